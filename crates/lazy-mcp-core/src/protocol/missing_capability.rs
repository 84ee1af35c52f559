//! MCP 2026-07-28's error for a request that needs a client capability the
//! client did not declare in its `_meta` `clientCapabilities`
//! (`MissingRequiredClientCapabilityError`, SEP-2575): code -32021, with
//! `data.requiredCapabilities` naming what is missing in the `ClientCapabilities`
//! shape, and HTTP status 400. The spec: a server that cannot process a request
//! without such a capability MUST answer it, so the client knows what to declare
//! when it sends the request again.
//!
//! What an input request (elicitation, sampling, roots) requires follows the
//! official SDK v2: mode-aware (URL elicitation needs `elicitation.url`, form
//! elicitation `elicitation.form`, a bare `elicitation: {}` counting as form;
//! sampling with tools needs `sampling.tools`).

use crate::protocol::methods;
use serde_json::{json, Map, Value};

/// The error code.
pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;

/// Its HTTP status (Streamable HTTP).
pub const MISSING_CLIENT_CAPABILITY_STATUS: u16 = 400;

/// The client capabilities a request for input (`elicitation/create`,
/// `sampling/createMessage`, `roots/list`) requires; None for any other method.
pub fn required_for_input(method: &str, params: Option<&Value>) -> Option<Value> {
    let param = |key: &str| params.and_then(|p| p.get(key));
    let (capability, member) = match method {
        methods::ELICITATION_CREATE if param("mode").and_then(Value::as_str) == Some("url") => {
            ("elicitation", Some("url"))
        }
        methods::ELICITATION_CREATE => ("elicitation", Some("form")),
        methods::SAMPLING_CREATE_MESSAGE
            if param("tools").is_some() || param("toolChoice").is_some() =>
        {
            ("sampling", Some("tools"))
        }
        methods::SAMPLING_CREATE_MESSAGE => ("sampling", None),
        methods::ROOTS_LIST => ("roots", None),
        _ => return None,
    };
    // `{capability: {member: {}}}` built once here, not by a `json!` per arm (smaller `.wasm`).
    let mut members = Map::new();
    if let Some(member) = member {
        members.insert(member.into(), Value::Object(Map::new()));
    }
    let mut required = Map::new();
    required.insert(capability.into(), Value::Object(members));
    Some(Value::Object(required))
}

/// The part of `required` that `declared` does not declare (None: all of it is).
/// A capability is declared when its key is there and, for each member the
/// requirement names, that member too; a bare `elicitation: {}` declares form.
pub fn missing(required: &Value, declared: &Map<String, Value>) -> Option<Value> {
    let mut missing = Map::new();
    for (capability, requirement) in required.as_object()? {
        let Some(declared) = declared.get(capability) else {
            missing.insert(capability.clone(), requirement.clone());
            continue;
        };
        let (Some(members), Some(declared)) = (requirement.as_object(), declared.as_object())
        else {
            continue;
        };
        let bare_elicitation = capability == "elicitation"
            && !declared.contains_key("form")
            && !declared.contains_key("url");
        let absent: Map<String, Value> = members
            .iter()
            .filter(|(member, _)| {
                let implied = bare_elicitation && *member == "form";
                !(declared.contains_key(*member) || implied)
            })
            .map(|(member, value)| (member.clone(), value.clone()))
            .collect();
        if !absent.is_empty() {
            missing.insert(capability.clone(), Value::Object(absent));
        }
    }
    (!missing.is_empty()).then_some(Value::Object(missing))
}

/// Adds the capabilities of `more` to `into` (members merged).
pub fn merge(into: &mut Map<String, Value>, more: Value) {
    let Value::Object(more) = more else {
        return;
    };
    for (capability, members) in more {
        match (into.get_mut(&capability), members) {
            (Some(Value::Object(existing)), Value::Object(members)) => existing.extend(members),
            (_, members) => {
                into.insert(capability, members);
            }
        }
    }
}

/// The JSON-RPC error object: `message`, and the capabilities that are missing.
pub fn error(message: &str, required_capabilities: Value) -> Value {
    json!({
        "code": MISSING_CLIENT_CAPABILITY,
        "message": message,
        "data": { "requiredCapabilities": required_capabilities },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn input_requests_require_what_the_sdk_requires() {
        let form = required_for_input("elicitation/create", Some(&json!({"message": "?"})));
        assert_eq!(form, Some(json!({"elicitation": {"form": {}}})));
        let url = required_for_input("elicitation/create", Some(&json!({"mode": "url"})));
        assert_eq!(url, Some(json!({"elicitation": {"url": {}}})));
        let tools = required_for_input("sampling/createMessage", Some(&json!({"tools": []})));
        assert_eq!(tools, Some(json!({"sampling": {"tools": {}}})));
        assert_eq!(required_for_input("tools/call", None), None);
    }

    #[test]
    fn what_is_missing_is_named_in_the_capabilities_shape() {
        let form = json!({"elicitation": {"form": {}}});
        assert_eq!(missing(&form, &declared(json!({"elicitation": {}}))), None);
        assert_eq!(
            missing(&form, &declared(json!({"elicitation": {"form": {}}}))),
            None
        );
        assert_eq!(
            missing(&form, &declared(json!({"elicitation": {"url": {}}}))),
            Some(form.clone()),
            "declaring only URL mode removes the form implication"
        );
        assert_eq!(
            missing(&form, &declared(json!({"sampling": {}}))),
            Some(form.clone())
        );
        let sampling = json!({"sampling": {}});
        assert_eq!(missing(&sampling, &declared(json!({"sampling": {}}))), None);
        let mut all = Map::new();
        merge(&mut all, json!({"elicitation": {"form": {}}}));
        merge(&mut all, json!({"elicitation": {"url": {}}}));
        merge(&mut all, sampling);
        assert_eq!(
            Value::Object(all),
            json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}})
        );
    }
}
