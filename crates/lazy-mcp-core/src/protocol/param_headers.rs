//! `Mcp-Param-{Name}` headers of MCP 2026-07-28 (SEP-2243): a tool may mark
//! primitive properties of its `inputSchema` with `x-mcp-header: "Name"`, and a
//! client calling it over Streamable HTTP mirrors each such argument into a
//! header (servers check them against the body and refuse a call without them,
//! -32020). Only properties reachable through a chain of `properties` count;
//! a declaration anywhere else, a bad name, a non-primitive type or a name used
//! twice (case-insensitively) makes the tool's declarations invalid, and then
//! none are sent.

use crate::vec_map::{VecMap, VecSet};
use serde_json::Value;

pub const X_MCP_HEADER: &str = "x-mcp-header";
const PREFIX: &str = "mcp-param-";

/// One declared header: where its value sits in `arguments`, and its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    pub path: Vec<String>,
    pub name: String,
}

/// Subschema keywords a `properties` chain never passes through: a declaration
/// under any of them is invalid.
const UNREACHABLE: [&str; 18] = [
    "items",
    "prefixItems",
    "contains",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "propertyNames",
    "patternProperties",
    "dependentSchemas",
    "oneOf",
    "anyOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "$defs",
    "definitions",
];

/// Keywords whose value maps names to subschemas (the others hold one or a list).
const NAMED_SUBSCHEMAS: [&str; 4] = [
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

/// The declarations of one tool's `inputSchema`, or why they are invalid.
/// Walks with an explicit stack (no recursion on a server's schema).
pub fn declarations(input_schema: &Value) -> Result<Vec<Declaration>, String> {
    let mut found = Vec::new();
    let mut names = VecSet::new();
    // (node, path in `arguments`, reachable through `properties` only)
    let mut stack: Vec<(&Value, Vec<String>, bool)> = vec![(input_schema, Vec::new(), true)];
    while let Some((node, path, reachable)) = stack.pop() {
        let Some(schema) = node.as_object() else {
            continue;
        };
        if let Some(raw) = schema.get(X_MCP_HEADER) {
            let at = if path.is_empty() {
                "<root>".to_string()
            } else {
                path.join(".")
            };
            if !reachable || path.is_empty() {
                return Err(format!("{at}: {X_MCP_HEADER} is only allowed on properties reached through 'properties'"));
            }
            let Some(name) = raw.as_str().filter(|n| is_token(n)) else {
                return Err(format!(
                    "{at}: {X_MCP_HEADER} must be a non-empty HTTP token"
                ));
            };
            // A JSON Schema is free-form JSON (any keyword may hold anything): read as a map.
            let kind = schema.get("type").and_then(Value::as_str);
            if !matches!(kind, Some("string" | "integer" | "boolean")) {
                return Err(format!(
                    "{at}: {X_MCP_HEADER} is only allowed on string, integer or boolean properties"
                ));
            }
            if !names.insert(name.to_ascii_lowercase()) {
                return Err(format!("{X_MCP_HEADER} '{name}' is declared twice"));
            }
            found.push(Declaration {
                path: path.clone(),
                name: name.to_string(),
            });
        }
        // Free-form JSON Schema as above: its `properties` may name any key.
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for (key, child) in properties {
                let mut child_path = path.clone();
                child_path.push(key.clone());
                stack.push((child, child_path, reachable));
            }
        }
        for keyword in UNREACHABLE {
            let Some(sub) = schema.get(keyword) else {
                continue;
            };
            let branches: Vec<&Value> = match sub {
                Value::Array(list) => list.iter().collect(),
                Value::Object(map) if NAMED_SUBSCHEMAS.contains(&keyword) => map.values().collect(),
                other => vec![other],
            };
            for branch in branches {
                stack.push((branch, path.clone(), false));
            }
        }
    }
    // Stable order whatever the walk's: by header name.
    crate::sorting::sort_by(&mut found, |a, b| a.name.cmp(&b.name));
    Ok(found)
}

/// The headers of one `tools/call` (lower-case names, like the other header
/// names the core emits): a declared argument that is absent, null or not a
/// primitive gets none; strings that cannot travel as plain ASCII are sent
/// base64-encoded as the spec says.
pub fn headers(declarations: &[Declaration], arguments: Option<&Value>) -> VecMap<String, String> {
    let mut out = VecMap::new();
    for declaration in declarations {
        let mut value = arguments;
        for key in &declaration.path {
            value = value.and_then(|v| v.get(key));
        }
        let text = match value {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Bool(b)) => Some(b.to_string()),
            Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Some(n.to_string()),
            // serde_json's shortest form (`2.5`, `1e-7`), with a whole float's
            // `.0` dropped as JavaScript's String() does (`3.0` → `3`).
            Some(Value::Number(n)) => {
                let text = n.to_string();
                Some(text.strip_suffix(".0").map(str::to_string).unwrap_or(text))
            }
            _ => None,
        };
        if let Some(text) = text {
            out.insert(
                format!("{PREFIX}{}", declaration.name.to_ascii_lowercase()),
                super::client_discover::header_value(&text),
            );
        }
    }
    out
}

/// RFC 9110 `token`: one or more of the visible characters that are not delimiters.
fn is_token(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema_with(region: Value) -> Value {
        json!({"type": "object", "properties": {"region": region, "query": {"type": "string"}}})
    }

    #[test]
    fn declared_arguments_become_headers_and_absent_ones_none() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "opts": {"type": "object", "properties": {"dry": {"type": "boolean", "x-mcp-header": "Dry-Run"}}},
            "limit": {"type": "integer", "x-mcp-header": "Limit"}
        }});
        let decls = declarations(&schema).unwrap();
        assert_eq!(
            decls.iter().map(|d| d.name.as_str()).collect::<Vec<_>>(),
            ["Dry-Run", "Limit", "Region"]
        );
        let args = json!({"region": "café", "opts": {"dry": true}, "limit": null});
        let headers = headers(&decls, Some(&args));
        assert_eq!(
            headers.get("mcp-param-region").map(String::as_str),
            Some("=?base64?Y2Fmw6k=?=")
        );
        assert_eq!(
            headers.get("mcp-param-dry-run").map(String::as_str),
            Some("true")
        );
        assert!(!headers.contains_key("mcp-param-limit"), "null: no header");
        let plain = super::headers(&decls, Some(&json!({"region": "us-west1", "limit": 7})));
        assert_eq!(
            plain.get("mcp-param-region").map(String::as_str),
            Some("us-west1")
        );
        assert_eq!(plain.get("mcp-param-limit").map(String::as_str), Some("7"));
        assert!(super::headers(&decls, None).is_empty());
        // Floats as JavaScript's String() writes them for a header.
        for (limit, text) in [
            (json!(2.5), "2.5"),
            (json!(3.0), "3"),
            (json!(-0.001), "-0.001"),
        ] {
            let h = super::headers(&decls, Some(&json!({ "limit": limit })));
            assert_eq!(h.get("mcp-param-limit").map(String::as_str), Some(text));
        }
    }

    #[test]
    fn declarations_the_spec_forbids_make_the_tool_invalid() {
        for bad in [
            schema_with(json!({"type": "number", "x-mcp-header": "Region"})),
            schema_with(json!({"type": "object", "x-mcp-header": "Region"})),
            schema_with(json!({"type": "string", "x-mcp-header": "Bad Name"})),
            schema_with(json!({"type": "string", "x-mcp-header": ""})),
            json!({"type": "object", "x-mcp-header": "Root"}),
            json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}),
            json!({"type": "object", "anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
            json!({"type": "object", "properties": {
                "a": {"type": "string", "x-mcp-header": "Same"},
                "b": {"type": "string", "x-mcp-header": "same"}
            }}),
        ] {
            assert!(declarations(&bad).is_err(), "{bad}");
        }
        assert_eq!(
            declarations(&schema_with(json!({"type": "string"}))),
            Ok(vec![])
        );
        assert_eq!(declarations(&json!("not a schema")), Ok(vec![]));
    }
}
