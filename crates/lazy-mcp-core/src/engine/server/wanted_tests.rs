//! What a server is wanted to be and expose, without an engine.

use super::Wanted;
use crate::config::model::ServerConfig;
use crate::engine::registry::catalogue::CatalogueEntry;
use crate::engine::server::Servers;
use crate::protocol::client_handshake::InitializeOutcome;
use serde_json::json;

fn config(name: &str, enabled: bool, auto_connect: bool, tools: Option<&[&str]>) -> ServerConfig {
    let tools = match tools {
        Some(names) => json!({"kind": "only", "names": names}),
        None => json!({"kind": "all"}),
    };
    let parsed = serde_json::from_value(json!({
        "name": name,
        "transport": {"type": "stdio", "command": "node"},
        "enabled": enabled,
        "autoConnect": auto_connect,
        "tools": tools,
        "source": {"format": "vs-code", "scope": "user", "file": "/u/mcp.json", "line": 1, "column": 1},
        "loadedByVscode": false,
        "fingerprint": "f",
    }));
    parsed.unwrap_or_else(|e| panic!("test config: {e}"))
}

#[test]
fn the_sessions_enable_and_disable_win_over_the_config() {
    let mut servers = Servers::default();
    servers.add(config("on", true, true, None), 0);
    servers.add(config("off", false, true, None), 0);
    servers.add(config("dormant", true, false, None), 0);
    let wanted = |servers: &Servers, name: &str| servers.get(name).map(|s| s.wanted());
    assert_eq!(wanted(&servers, "on"), Some(Wanted::Active));
    assert_eq!(wanted(&servers, "off"), Some(Wanted::Disabled));
    assert_eq!(wanted(&servers, "dormant"), Some(Wanted::Dormant));
    servers.enabled_for_session("off", true);
    servers.enabled_for_session("dormant", true);
    servers.enabled_for_session("on", false);
    assert_eq!(wanted(&servers, "on"), Some(Wanted::Disabled));
    assert_eq!(wanted(&servers, "off"), Some(Wanted::Active));
    assert_eq!(wanted(&servers, "dormant"), Some(Wanted::Active));
}

#[test]
fn a_filtered_endpoint_exposes_only_the_tools_it_names() {
    let mut servers = Servers::default();
    servers.add(config("all", true, true, None), 0);
    servers.add(config("some", true, true, Some(&["read"])), 0);
    let exposes = |name: &str, tool: &str| servers.get(name).is_some_and(|s| s.exposes_tool(tool));
    assert!(exposes("all", "anything"));
    assert!(exposes("some", "read"));
    assert!(!exposes("some", "write"));
}

#[test]
fn a_call_to_a_switched_off_server_says_so() {
    let mut servers = Servers::default();
    // A server just added is disabled until it is reconciled.
    servers.add(config("a", true, true, None), 0);
    assert_eq!(
        servers.switched_off_refusal("a__search").as_deref(),
        Some("MCP server 'a' is disabled; enable it to use 'a__search'")
    );
    assert_eq!(servers.switched_off_refusal("ab__search"), None);
    assert_eq!(servers.switched_off_refusal("b__search"), None);
}

#[test]
fn declared_tools_the_catalogue_does_not_offer_are_dropped() {
    let entry = CatalogueEntry {
        fingerprint: "f".into(),
        catalogued_at_ms: 1,
        era: Default::default(),
        initialize: InitializeOutcome::default(),
        cache: None,
        tools: vec![json!({"name": "read"}), json!({"name": "list"})],
        prompts: vec![],
        resources: vec![],
        resource_templates: vec![],
        resource_metadata_url: None,
        tool_vectors: None,
        asks_roots: None,
    };
    let mut servers = Servers::default();
    servers.add(config("all", true, true, None), 0);
    servers.add(
        config("some", true, true, Some(&["read", "write", "delete"])),
        0,
    );
    let dropped = |name: &str| servers.get(name).map(|s| s.dropped_declared_tools(&entry));
    assert_eq!(dropped("all"), Some(vec![]));
    assert_eq!(
        dropped("some"),
        Some(vec!["write".to_string(), "delete".to_string()])
    );
}
