//! Checks a tool call's arguments against the tool's `inputSchema` before any
//! server is started, for the JSON Schema keywords tool schemas actually use:
//! `type` (one or a list), `properties`, `required`, `additionalProperties:
//! false` (or a schema), `enum`, `const`, `items`, `minimum`/`maximum`,
//! `minLength`/`maxLength`, `minItems`/`maxItems`. Other keywords (`$ref`,
//! `anyOf`, `pattern`, `format`, …) are not checked: the server still has the
//! last word, this only catches what is certainly wrong.

use serde_json::{Map, Value};

/// `Ok` when `args` fits `schema`; otherwise the first complaint, naming where
/// (`arguments.edits[0].oldText`), what the schema wants, and what was given.
pub fn validate_arguments(schema: &Value, args: &Value) -> Result<(), String> {
    check(schema, args, "arguments")
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn has_type(value: &Value, wanted: &str) -> bool {
    match wanted {
        "integer" => match value {
            Value::Number(n) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            _ => false,
        },
        "number" => value.is_number(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        _ => true, // an unknown type name is the schema's problem, not the caller's
    }
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(39).collect::<String>())
    } else {
        text
    }
}

fn check(schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    let Some(schema) = schema.as_object() else {
        // `true`, `{}` or anything else that is not an object accepts all;
        // `false` accepts nothing.
        return match schema {
            Value::Bool(false) => Err(format!("{at} is not allowed here")),
            _ => Ok(()),
        };
    };
    check_type(schema, value, at)?;
    check_combinators(schema, value, at)?;
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array) {
        if !allowed.contains(value) {
            let list: Vec<String> = allowed.iter().map(short).collect();
            return Err(format!(
                "{at} must be one of {}, got {}",
                list.join(", "),
                short(value)
            ));
        }
    }
    if let Some(constant) = schema.get("const") {
        if constant != value {
            return Err(format!(
                "{at} must be {}, got {}",
                short(constant),
                short(value)
            ));
        }
    }
    match value {
        Value::Object(object) => check_object(schema, object, at),
        Value::Array(items) => check_array(schema, items, at),
        Value::Number(n) => check_number(schema, n.as_f64().unwrap_or(0.0), at),
        Value::String(s) => check_length(schema, s.chars().count(), "Length", "characters", at),
        _ => Ok(()),
    }
}

fn check_combinators(schema: &Map<String, Value>, value: &Value, at: &str) -> Result<(), String> {
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        for branch in all {
            check(branch, value, at)?;
        }
    }
    for keyword in ["anyOf", "oneOf"] {
        let Some(branches) = schema.get(keyword).and_then(Value::as_array) else {
            continue;
        };
        let mut first_error = None;
        for branch in branches {
            match check(branch, value, at) {
                Ok(()) => {
                    first_error = None;
                    break;
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        if let Some(error) = first_error {
            let types: Vec<&str> = branches
                .iter()
                .filter_map(|b| b.get("type").and_then(Value::as_str))
                .collect();
            if types.len() == branches.len() {
                return Err(format!(
                    "{at} must be {}, got {} {}",
                    types.join(" or "),
                    type_name(value),
                    short(value)
                ));
            }
            return Err(error);
        }
    }
    Ok(())
}

fn check_type(schema: &Map<String, Value>, value: &Value, at: &str) -> Result<(), String> {
    let wanted: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => return Ok(()),
    };
    if wanted.is_empty() || wanted.iter().any(|t| has_type(value, t)) {
        return Ok(());
    }
    Err(format!(
        "{at} must be {}, got {} {}",
        wanted.join(" or "),
        type_name(value),
        short(value)
    ))
}

fn check_object(
    schema: &Map<String, Value>,
    object: &Map<String, Value>,
    at: &str,
) -> Result<(), String> {
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        let missing: Vec<&str> = required
            .iter()
            .filter_map(Value::as_str)
            .filter(|name| !object.contains_key(*name))
            .collect();
        if !missing.is_empty() {
            let what = if missing.len() == 1 {
                "property"
            } else {
                "properties"
            };
            return Err(format!(
                "{at} is missing required {what} {}",
                quoted(&missing)
            ));
        }
    }
    for (key, item) in object {
        let path = format!("{at}.{key}");
        match properties.and_then(|p| p.get(key)) {
            Some(property) => check(property, item, &path)?,
            None => match schema.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    let known: Vec<&str> = properties
                        .map(|p| p.keys().map(String::as_str).collect())
                        .unwrap_or_default();
                    let allowed = if known.is_empty() {
                        "none".to_string()
                    } else {
                        quoted(&known)
                    };
                    return Err(format!(
                        "{at} has unknown property \"{key}\" (allowed: {allowed})"
                    ));
                }
                Some(extra @ Value::Object(_)) => check(extra, item, &path)?,
                _ => {}
            },
        }
    }
    Ok(())
}

fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

fn check_array(schema: &Map<String, Value>, items: &[Value], at: &str) -> Result<(), String> {
    check_length(schema, items.len(), "Items", "items", at)?;
    match schema.get("items") {
        Some(Value::Array(tuple)) => {
            for (i, (item_schema, item)) in tuple.iter().zip(items).enumerate() {
                check(item_schema, item, &format!("{at}[{i}]"))?;
            }
        }
        Some(item_schema) => {
            for (i, item) in items.iter().enumerate() {
                check(item_schema, item, &format!("{at}[{i}]"))?;
            }
        }
        None => {}
    }
    Ok(())
}

fn check_length(
    schema: &Map<String, Value>,
    len: usize,
    keyword: &str,
    unit: &str,
    at: &str,
) -> Result<(), String> {
    let bound = |name: String| schema.get(&name).and_then(Value::as_u64);
    if let Some(min) = bound(format!("min{keyword}")) {
        if (len as u64) < min {
            return Err(format!("{at} must have at least {min} {unit}, got {len}"));
        }
    }
    if let Some(max) = bound(format!("max{keyword}")) {
        if (len as u64) > max {
            return Err(format!("{at} must have at most {max} {unit}, got {len}"));
        }
    }
    Ok(())
}

fn check_number(schema: &Map<String, Value>, n: f64, at: &str) -> Result<(), String> {
    if let Some(min) = schema.get("minimum").and_then(Value::as_f64) {
        if n < min {
            return Err(format!("{at} must be ≥ {min}, got {n}"));
        }
    }
    if let Some(max) = schema.get("maximum").and_then(Value::as_f64) {
        if n > max {
            return Err(format!("{at} must be ≤ {max}, got {n}"));
        }
    }
    if let Some(min) = schema.get("exclusiveMinimum").and_then(Value::as_f64) {
        if n <= min {
            return Err(format!("{at} must be > {min}, got {n}"));
        }
    }
    if let Some(max) = schema.get("exclusiveMaximum").and_then(Value::as_f64) {
        if n >= max {
            return Err(format!("{at} must be < {max}, got {n}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn edit_file_schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "edits": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"oldText": {"type": "string"}, "newText": {"type": "string"}},
                    "required": ["oldText", "newText"],
                    "additionalProperties": false
                }},
                "dryRun": {"type": "boolean", "default": false}
            },
            "required": ["path", "edits"],
            "additionalProperties": false
        })
    }

    #[test]
    fn well_formed_arguments_pass() {
        let args = json!({"path": "a.txt", "edits": [{"oldText": "x", "newText": "y"}]});
        assert_eq!(validate_arguments(&edit_file_schema(), &args), Ok(()));
        assert_eq!(validate_arguments(&json!({}), &json!({"any": 1})), Ok(()));
        assert_eq!(validate_arguments(&json!(true), &json!(null)), Ok(()));
    }

    #[test]
    fn missing_required_properties_are_named() {
        let err = validate_arguments(&edit_file_schema(), &json!({})).unwrap_err();
        assert_eq!(
            err,
            "arguments is missing required properties \"path\", \"edits\""
        );
    }

    #[test]
    fn wrong_types_name_the_path_and_the_value() {
        let err =
            validate_arguments(&edit_file_schema(), &json!({"path": 7, "edits": []})).unwrap_err();
        assert_eq!(err, "arguments.path must be string, got integer 7");
        let err = validate_arguments(
            &edit_file_schema(),
            &json!({"path": "a", "edits": [{"oldText": "x", "newText": false}]}),
        )
        .unwrap_err();
        assert_eq!(
            err,
            "arguments.edits[0].newText must be string, got boolean false"
        );
        let err = validate_arguments(&edit_file_schema(), &json!("a.txt")).unwrap_err();
        assert_eq!(err, "arguments must be object, got string \"a.txt\"");
    }

    #[test]
    fn unknown_properties_are_refused_when_the_schema_closes_the_object() {
        let err = validate_arguments(
            &edit_file_schema(),
            &json!({"path": "a", "edits": [], "dry_run": true}),
        )
        .unwrap_err();
        assert_eq!(
            err,
            "arguments has unknown property \"dry_run\" (allowed: \"path\", \"edits\", \"dryRun\")"
        );
        let open = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert_eq!(validate_arguments(&open, &json!({"b": 1})), Ok(()));
    }

    #[test]
    fn enums_and_integers_and_ranges() {
        let schema = json!({
            "type": "object",
            "properties": {
                "sortBy": {"type": "string", "enum": ["name", "size"]},
                "count": {"type": "integer", "minimum": 1, "maximum": 10},
                "ratio": {"type": ["number", "null"]}
            }
        });
        let err = validate_arguments(&schema, &json!({"sortBy": "date"})).unwrap_err();
        assert_eq!(
            err,
            "arguments.sortBy must be one of \"name\", \"size\", got \"date\""
        );
        let err = validate_arguments(&schema, &json!({"count": 2.5})).unwrap_err();
        assert_eq!(err, "arguments.count must be integer, got number 2.5");
        assert_eq!(validate_arguments(&schema, &json!({"count": 3.0})), Ok(()));
        let err = validate_arguments(&schema, &json!({"count": 11})).unwrap_err();
        assert_eq!(err, "arguments.count must be ≤ 10, got 11");
        assert_eq!(validate_arguments(&schema, &json!({"ratio": null})), Ok(()));
        let err = validate_arguments(&schema, &json!({"ratio": "x"})).unwrap_err();
        assert_eq!(
            err,
            "arguments.ratio must be number or null, got string \"x\""
        );
    }

    #[test]
    fn any_of_accepts_any_branch_and_names_them_all_when_none_fits() {
        let optional = json!({"anyOf": [{"type": "string"}, {"type": "null"}]});
        assert_eq!(validate_arguments(&optional, &json!(null)), Ok(()));
        assert_eq!(validate_arguments(&optional, &json!("x")), Ok(()));
        assert_eq!(
            validate_arguments(&optional, &json!(3)),
            Err("arguments must be string or null, got integer 3".to_string())
        );
        let mixed = json!({"oneOf": [{"type": "string", "minLength": 2}, {"enum": [1, 2]}]});
        assert_eq!(validate_arguments(&mixed, &json!(2)), Ok(()));
        assert_eq!(
            validate_arguments(&mixed, &json!("a")),
            Err("arguments must have at least 2 characters, got 1".to_string())
        );
        let all = json!({"allOf": [{"type": "integer"}, {"minimum": 5}]});
        assert_eq!(
            validate_arguments(&all, &json!(4)),
            Err("arguments must be ≥ 5, got 4".to_string())
        );
    }

    #[test]
    fn array_and_string_lengths() {
        let schema =
            json!({"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1});
        let err = validate_arguments(&schema, &json!([])).unwrap_err();
        assert_eq!(err, "arguments must have at least 1 items, got 0");
        let err = validate_arguments(&schema, &json!(["a", ""])).unwrap_err();
        assert_eq!(err, "arguments[1] must have at least 1 characters, got 0");
    }

    #[test]
    fn additional_properties_schema_applies_to_unlisted_keys() {
        let schema = json!({"type": "object", "additionalProperties": {"type": "string"}});
        assert_eq!(validate_arguments(&schema, &json!({"k": "v"})), Ok(()));
        let err = validate_arguments(&schema, &json!({"k": 1})).unwrap_err();
        assert_eq!(err, "arguments.k must be string, got integer 1");
    }
}
