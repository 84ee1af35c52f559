//! The server side of MCP towards clients of the gateway: the `initialize` result.

use super::handshake_result::ServerCapabilities;
use super::versions;
use serde_json::{json, Map, Value};

/// Capabilities the gateway declares for one upstream server: whatever lists the
/// upstream has (from its catalogued capabilities), always with `listChanged`,
/// because the gateway announces catalogue changes itself.
pub fn gateway_capabilities(upstream: &Value, has_tools: bool) -> Value {
    let upstream = ServerCapabilities::read(upstream);
    let mut capabilities = Map::new();
    if has_tools || upstream.tools.is_some() {
        capabilities.insert("tools".into(), json!({"listChanged": true}));
    }
    if upstream.prompts.is_some() {
        capabilities.insert("prompts".into(), json!({"listChanged": true}));
    }
    if upstream.resources.is_some() {
        capabilities.insert(
            "resources".into(),
            json!({"listChanged": true, "subscribe": upstream.resources_subscribe()}),
        );
    }
    if let Some(completions) = upstream.completions {
        capabilities.insert("completions".into(), completions.clone());
    }
    if upstream.logging.is_some() {
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
