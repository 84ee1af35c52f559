//! What the engine's aggregate endpoint lists at session start in each tool
//! exposure mode, for the tool index benchmark: a warm engine (catalogue blob
//! of the given tools, no connection) answering `tools/list` to a new client.
//! Included by `tool_index_bench` (`#[path]`), not an example of its own.

use crate::engine_support::config;
use lazy_mcp_core::config::model::ToolExposure;
use lazy_mcp_core::engine::{Effect, Endpoint, Engine, Event, Settings};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The tools a client lists from the aggregate endpoint, model-facing
/// (`name`, `description`, `inputSchema`), one compact JSON object per line.
/// Panics if the engine asks to spawn anything: a warm start must not.
pub fn engine_tools_list(entries: &[(&str, &Value)], mode: ToolExposure) -> String {
    let mut servers: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
    for (server, tool) in entries {
        servers.entry(server).or_default().push((*tool).clone());
    }
    let blob_entries: serde_json::Map<String, Value> = servers
        .iter()
        .map(|(name, tools)| {
            let entry = json!({
                "fingerprint": config(name).fingerprint,
                "cataloguedAtMs": 1,
                "initialize": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": name}},
                "tools": tools,
            });
            (name.to_string(), entry)
        })
        .collect();
    let blob = json!({"format": "lazy-mcp-catalogue", "version": 1, "entries": blob_entries});
    let mut engine = Engine::new(Settings {
        tool_exposure: mode,
        ..Settings::default()
    });
    let mut effects = engine.handle(
        2,
        Event::CatalogueLoaded {
            blob: blob.to_string(),
        },
    );
    effects.extend(engine.apply_servers(3, servers.keys().map(|name| config(name)).collect()));
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    effects.extend(engine.handle(
        4,
        Event::ClientMessage {
            client: "bench".into(),
            endpoint: Endpoint::Aggregate,
            message: request.to_string(),
        },
    ));
    assert!(
        !effects.iter().any(|e| matches!(e, Effect::Open { .. })),
        "a warm engine spawned a server"
    );
    let reply = effects.iter().find_map(|e| match e {
        Effect::Reply { message, .. } => serde_json::from_str::<Value>(message).ok(),
        _ => None,
    });
    let tools = reply
        .as_ref()
        .and_then(|r| r.pointer("/result/tools"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    tools
        .iter()
        .map(|t| {
            json!({"name": t.get("name"), "description": t.get("description"), "inputSchema": t.get("inputSchema")})
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}
