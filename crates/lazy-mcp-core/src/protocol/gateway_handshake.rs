//! The server side of MCP towards clients of the gateway: the `initialize` result.

use super::versions;
use serde_json::{json, Map, Value};

/// Capabilities the gateway declares for one upstream server: whatever lists the
/// upstream has (from its catalogued capabilities), always with `listChanged`,
/// because the gateway announces catalogue changes itself.
pub fn gateway_capabilities(upstream: &Value, has_tools: bool) -> Value {
    let mut capabilities = Map::new();
    if has_tools || upstream.get("tools").is_some() {
        capabilities.insert("tools".into(), json!({"listChanged": true}));
    }
    if upstream.get("prompts").is_some() {
        capabilities.insert("prompts".into(), json!({"listChanged": true}));
    }
    if let Some(resources) = upstream.get("resources") {
        let subscribe = resources
            .get("subscribe")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        capabilities.insert(
            "resources".into(),
            json!({"listChanged": true, "subscribe": subscribe}),
        );
    }
    if let Some(completions) = upstream.get("completions") {
        capabilities.insert("completions".into(), completions.clone());
    }
    if upstream.get("logging").is_some() {
        capabilities.insert("logging".into(), json!({}));
    }
    Value::Object(capabilities)
}

/// The result of a client's `initialize`.
pub fn initialize_result(
    requested_version: Option<&str>,
    server_name: &str,
    server_version: &str,
    capabilities: Value,
    instructions: Option<&str>,
) -> Value {
    let mut result = json!({
        "protocolVersion": versions::answer_client(requested_version),
        "capabilities": capabilities,
        "serverInfo": {"name": server_name, "version": server_version},
    });
    if let (Some(instructions), Some(object)) = (instructions, result.as_object_mut()) {
        object.insert("instructions".into(), Value::from(instructions));
    }
    result
}
