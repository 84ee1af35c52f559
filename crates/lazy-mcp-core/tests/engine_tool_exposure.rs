//! Tool exposure modes and the meta-tools (issue 7), through the simulated host:
//! what a client lists, what loading and calling do, and what they never start.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::config::model::ToolExposure;
use lazy_mcp_core::engine::{AggregateEndpoint, Effect, Endpoint, Event, ServerState, Settings};
use serde_json::{json, Value};

fn settings(mode: ToolExposure) -> Settings {
    Settings {
        tool_exposure: mode,
        ..Settings::default()
    }
}

/// `git` (3 tools with schemas) and `memory` (2), catalogued, nothing running.
fn sim_with(settings: Settings) -> Sim {
    let mut git = FakeServer::with_tools(&[]);
    git.tools = vec![
        json!({"name": "git_status", "description": "Shows the working tree status.",
               "inputSchema": {"type": "object", "properties": {"repo_path": {"type": "string"}}, "required": ["repo_path"]}}),
        json!({"name": "git_log", "description": "Shows the commit logs.",
               "inputSchema": {"type": "object", "properties": {"repo_path": {"type": "string"}, "max_count": {"type": "integer"}}, "required": ["repo_path"]}}),
        json!({"name": "git_commit", "description": "Records changes to the repository.",
               "inputSchema": {"type": "object", "properties": {"repo_path": {"type": "string"}, "message": {"type": "string"}}, "required": ["repo_path", "message"]}}),
    ];
    let mut sim = Sim::new(settings).fake("git", git).fake(
        "memory",
        FakeServer::with_tools(&["read_graph", "search_nodes"]),
    );
    sim.apply(vec![config("git"), config("memory")]);
    assert_eq!(sim.state("git"), Some(ServerState::Catalogued));
    assert_eq!(sim.state("memory"), Some(ServerState::Catalogued));
    assert!(sim.live.is_empty());
    sim
}

fn init(sim: &mut Sim, client: &str, endpoint: Endpoint, name: &str) {
    sim.client(
        client,
        endpoint,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": name}}}),
    );
}

fn list(sim: &mut Sim, client: &str, endpoint: Endpoint, id: u64) -> Vec<String> {
    sim.client(client, endpoint, request(id, "tools/list"));
    sim.reply_to(client, json!(id)).unwrap()["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn meta(sim: &mut Sim, client: &str, id: u64, tool: &str, arguments: Value) -> (String, bool) {
    sim.client(
        client,
        Endpoint::Aggregate,
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}),
    );
    let reply = sim.reply_to(client, json!(id)).unwrap();
    let result = &reply["result"];
    (
        result["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_string(),
        result["isError"] == true,
    )
}

/// `load_tools` with these names.
fn load(sim: &mut Sim, client: &str, id: u64, names: &[&str]) -> (String, bool) {
    meta(sim, client, id, "load_tools", json!({ "names": names }))
}

/// `call_tool` of `name` with `arguments`.
fn call_tool(sim: &mut Sim, client: &str, id: u64, name: &str, arguments: Value) -> (String, bool) {
    meta(
        sim,
        client,
        id,
        "call_tool",
        json!({"name": name, "arguments": arguments}),
    )
}

fn list_changed_to(sim: &Sim, client: &str) -> usize {
    sim.notifications
        .iter()
        .filter(|(c, m)| c == client && m["method"] == "notifications/tools/list_changed")
        .count()
}

#[test]
fn full_mode_lists_every_tool_and_no_meta_tools() {
    let mut sim = sim_with(settings(ToolExposure::Full));
    let names = list(&mut sim, "cli", Endpoint::Aggregate, 1);
    assert_eq!(
        names,
        [
            "git__git_status",
            "git__git_log",
            "git__git_commit",
            "memory__read_graph",
            "memory__search_nodes"
        ]
    );
    assert_eq!(list(&mut sim, "vs", server_endpoint("git"), 2).len(), 3);
}

#[test]
fn index_mode_lists_only_meta_tools_with_the_index_and_spawns_nothing() {
    let mut sim = sim_with(settings(ToolExposure::Index));
    init(&mut sim, "cli", Endpoint::Aggregate, "claude-code");
    sim.client("cli", Endpoint::Aggregate, request(1, "tools/list"));
    let reply = sim.reply_to("cli", json!(1)).unwrap();
    let tools = reply["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["search_tools", "load_tools", "unload_tools", "call_tool"]
    );
    let index = tools[1]["description"].as_str().unwrap();
    assert!(
        index.contains("# git\ngit_status — Shows the working tree status"),
        "{index}"
    );
    assert!(index.contains("# memory\nread_graph"), "{index}");
    // A server's own endpoint lists no tools in index mode.
    assert!(list(&mut sim, "vs", server_endpoint("git"), 2).is_empty());
    // Searching spawns nothing.
    let (text, error) = meta(
        &mut sim,
        "cli",
        3,
        "search_tools",
        json!({"query": "commit logs"}),
    );
    assert!(!error);
    assert!(
        text.starts_with("git/git_log — Shows the commit logs"),
        "{text}"
    );
    assert_eq!(
        sim.opens(),
        2,
        "only the two cataloguing connections ever opened"
    );
}

#[test]
fn load_adds_schemas_with_list_changed_and_call_spawns_only_that_server() {
    let mut sim = sim_with(settings(ToolExposure::Index));
    init(&mut sim, "cli", Endpoint::Aggregate, "claude-code");
    let opens = sim.opens();
    let before = list_changed_to(&sim, "cli");
    let (text, error) = load(&mut sim, "cli", 1, &["git/git_log", "read_graph"]);
    assert!(!error, "{text}");
    assert!(text.contains("git/git_log (git__git_log)"), "{text}");
    assert!(
        text.contains("memory/read_graph (memory__read_graph)"),
        "{text}"
    );
    assert_eq!(list_changed_to(&sim, "cli"), before + 1);
    let names = list(&mut sim, "cli", Endpoint::Aggregate, 2);
    assert_eq!(
        names,
        [
            "search_tools",
            "load_tools",
            "unload_tools",
            "call_tool",
            "git__git_log",
            "memory__read_graph"
        ]
    );
    assert_eq!(sim.opens(), opens, "loading starts nothing");

    // The loaded tool is called directly; only git starts.
    sim.client(
        "cli",
        Endpoint::Aggregate,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "git__git_log", "arguments": {"repo_path": "/r"}}}),
    );
    let reply = sim.reply_to("cli", json!(3)).unwrap();
    assert_eq!(
        reply["result"]["content"][0]["text"],
        "git:git_log:{\"repo_path\":\"/r\"}"
    );
    assert_eq!(sim.opens_of("git"), 2, "catalogue + this call");
    assert_eq!(sim.opens_of("memory"), 1, "memory was never started again");
    assert_eq!(sim.state("git"), Some(ServerState::Connected));

    // Unload removes it again.
    let (text, error) = meta(
        &mut sim,
        "cli",
        4,
        "unload_tools",
        json!({"names": ["git/git_log"]}),
    );
    assert!(!error, "{text}");
    assert_eq!(list(&mut sim, "cli", Endpoint::Aggregate, 5).len(), 5);
}

#[test]
fn call_tool_acts_in_one_step_and_validates_before_spawning() {
    let mut sim = sim_with(settings(ToolExposure::Index));
    init(&mut sim, "cli", Endpoint::Aggregate, "any");
    let opens = sim.opens();
    // Malformed arguments: the schema's complaint, nothing started.
    let (text, error) = call_tool(
        &mut sim,
        "cli",
        1,
        "git/git_commit",
        json!({"repo_path": "/r"}),
    );
    assert!(error);
    assert!(
        text.contains("Invalid arguments for git/git_commit"),
        "{text}"
    );
    assert!(
        text.contains("message"),
        "names the missing property: {text}"
    );
    let (text, error) = call_tool(
        &mut sim,
        "cli",
        2,
        "git/git_log",
        json!({"repo_path": "/r", "max_count": "ten"}),
    );
    assert!(error && text.contains("max_count"), "{text}");
    assert_eq!(sim.opens(), opens, "nothing started for bad arguments");

    // Good arguments: exactly a tools/call of the real tool, result unchanged.
    let (text, error) = call_tool(
        &mut sim,
        "cli",
        3,
        "git/git_status",
        json!({"repo_path": "/r"}),
    );
    assert!(!error);
    assert_eq!(text, "git:git_status:{\"repo_path\":\"/r\"}");
    assert_eq!(sim.opens(), opens + 1);
    assert_eq!(sim.opens_of("memory"), 1);
}

#[test]
fn unknown_names_list_the_closest_and_disabled_servers_say_so() {
    let mut sim = sim_with(settings(ToolExposure::Index));
    init(&mut sim, "cli", Endpoint::Aggregate, "any");
    let (text, error) = load(&mut sim, "cli", 1, &["git/git_stauts"]);
    assert!(error);
    assert!(
        text.contains("Unknown tool \"git/git_stauts\". Closest: git/git_status"),
        "{text}"
    );
    let (text, error) = meta(
        &mut sim,
        "cli",
        2,
        "call_tool",
        json!({"name": "git_comit"}),
    );
    assert!(error && text.contains("git/git_commit"), "{text}");
    // Bad meta-tool arguments.
    let (text, error) = meta(
        &mut sim,
        "cli",
        3,
        "load_tools",
        json!({"names": "git/git_log"}),
    );
    assert!(
        error && text.contains("arguments.names must be array"),
        "{text}"
    );

    load(&mut sim, "cli", 4, &["git/git_log"]);
    let opens = sim.opens();
    sim.send(Event::Disable {
        server: "git".into(),
    });
    let (text, error) = call_tool(
        &mut sim,
        "cli",
        5,
        "git/git_log",
        json!({"repo_path": "/r"}),
    );
    assert!(error);
    assert!(text.contains("MCP server 'git' is disabled"), "{text}");
    // Disabling unloads its tools.
    assert_eq!(list(&mut sim, "cli", Endpoint::Aggregate, 6).len(), 4);
    sim.client(
        "cli",
        Endpoint::Aggregate,
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "git__git_log", "arguments": {}}}),
    );
    let reply = sim.reply_to("cli", json!(7)).unwrap();
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("'git' is disabled"),
        "{reply}"
    );
    assert_eq!(sim.opens(), opens, "nothing started");
    // The index no longer lists git.
    sim.client("cli", Endpoint::Aggregate, request(8, "tools/list"));
    let reply = sim.reply_to("cli", json!(8)).unwrap();
    assert!(!reply["result"]["tools"][1]["description"]
        .as_str()
        .unwrap()
        .contains("git_status"));
}

#[test]
fn loaded_tools_survive_a_server_restart_and_a_reconnecting_client() {
    let mut sim = sim_with(settings(ToolExposure::Index));
    init(&mut sim, "s1", Endpoint::Aggregate, "vscode");
    load(&mut sim, "s1", 1, &["git/git_log"]);
    call_tool(
        &mut sim,
        "s1",
        2,
        "git/git_status",
        json!({"repo_path": "/r"}),
    );
    assert_eq!(sim.state("git"), Some(ServerState::Connected));
    // The server process dies; the loaded set stays.
    let conn = sim.conn_of("git").unwrap();
    sim.send(Event::ConnectionClosed {
        conn,
        reason: "exit".into(),
        exit_code: Some(1),
        stderr_tail: None,
    });
    sim.run();
    assert_eq!(sim.state("git"), Some(ServerState::Catalogued));
    assert!(list(&mut sim, "s1", Endpoint::Aggregate, 3).contains(&"git__git_log".to_string()));
    // The same client program in a new session (a host restarting its definition).
    sim.send(Event::ClientDisconnected {
        client: "s1".into(),
    });
    init(&mut sim, "s2", Endpoint::Aggregate, "vscode");
    assert!(list(&mut sim, "s2", Endpoint::Aggregate, 4).contains(&"git__git_log".to_string()));
    // Another client has its own set.
    init(&mut sim, "other", Endpoint::Aggregate, "claude-code");
    assert_eq!(list(&mut sim, "other", Endpoint::Aggregate, 5).len(), 4);
}

#[test]
fn a_tool_that_leaves_the_catalogue_is_unloaded() {
    let mut sim = sim_with(settings(ToolExposure::Index));
    init(&mut sim, "c", Endpoint::Aggregate, "c");
    load(&mut sim, "c", 1, &["git/git_log", "git/git_status"]);
    call_tool(
        &mut sim,
        "c",
        2,
        "git/git_status",
        json!({"repo_path": "/r"}),
    );
    // The connected server drops git_log and announces it.
    sim.fakes
        .get_mut("git")
        .unwrap()
        .tools
        .retain(|t| t["name"] != "git_log");
    let conn = sim.conn_of("git").unwrap();
    sim.send(Event::MessageReceived {
        conn,
        message: json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            .to_string(),
    });
    sim.run();
    let names = list(&mut sim, "c", Endpoint::Aggregate, 3);
    assert!(names.contains(&"git__git_status".to_string()));
    assert!(!names.contains(&"git__git_log".to_string()), "{names:?}");
    assert!(sim
        .logs()
        .iter()
        .any(|l| l.contains("'git_log' was unloaded")));
}

#[test]
fn auto_indexes_the_biggest_servers_until_the_budget_fits() {
    // Budget fits memory's two small tools but not git's three with schemas too.
    let mut small = settings(ToolExposure::Auto);
    small.tool_token_budget = 60;
    let mut sim = sim_with(small);
    let snapshot = sim.engine.snapshot();
    let mode = |name: &str| {
        snapshot
            .servers
            .iter()
            .find(|s| s.name == name)
            .unwrap()
            .exposed_as
    };
    assert_eq!(mode("git"), Some(ToolExposure::Index));
    assert_eq!(mode("memory"), Some(ToolExposure::Full));
    let names = list(&mut sim, "c", Endpoint::Aggregate, 1);
    assert_eq!(
        names,
        [
            "search_tools",
            "load_tools",
            "unload_tools",
            "call_tool",
            "memory__read_graph",
            "memory__search_nodes"
        ]
    );
    // The default budget keeps small setups in full.
    let mut sim = sim_with(settings(ToolExposure::Auto));
    assert_eq!(list(&mut sim, "c", Endpoint::Aggregate, 1).len(), 5);
    // The tool limit counts too.
    let mut few = settings(ToolExposure::Auto);
    few.max_tools = 4;
    let mut sim = sim_with(few);
    assert_eq!(list(&mut sim, "c", server_endpoint("git"), 1).len(), 0);
    assert_eq!(list(&mut sim, "c", server_endpoint("memory"), 2).len(), 2);
}

#[test]
fn loading_past_the_tool_limit_is_refused_with_the_count() {
    let mut limited = settings(ToolExposure::Index);
    limited.max_tools = 5;
    let mut sim = sim_with(limited);
    init(&mut sim, "c", Endpoint::Aggregate, "c");
    let (text, error) = load(&mut sim, "c", 1, &["git/git_log", "git/git_status"]);
    assert!(error);
    assert!(
        text.contains("would make 6 in the tool list, over the limit of 5"),
        "{text}"
    );
    let (_, error) = load(&mut sim, "c", 2, &["git/git_log"]);
    assert!(!error);
}

#[test]
fn per_server_setting_beats_config_key_beats_default_and_switching_announces() {
    let mut sim = sim_with(settings(ToolExposure::Full));
    init(&mut sim, "vs", server_endpoint("git"), "vscode");
    assert_eq!(list(&mut sim, "vs", server_endpoint("git"), 1).len(), 3);
    // The config key moves git to index: its endpoint's list empties, with list_changed.
    let mut git = config("git");
    git.tool_exposure = Some(ToolExposure::Index);
    let before = list_changed_to(&sim, "vs");
    sim.apply(vec![git.clone(), config("memory")]);
    assert_eq!(
        sim.opens_of("git"),
        1,
        "a toolExposure change re-catalogues nothing"
    );
    assert!(list(&mut sim, "vs", server_endpoint("git"), 2).is_empty());
    assert_eq!(list_changed_to(&sim, "vs"), before + 1);
    // The host's per-server setting wins over the key.
    let mut s = settings(ToolExposure::Full);
    s.tool_exposure_by_server
        .insert("git".into(), ToolExposure::Full);
    sim.send(Event::SettingsChanged { settings: s });
    assert_eq!(list(&mut sim, "vs", server_endpoint("git"), 3).len(), 3);
}

#[test]
fn vscode_style_aggregate_shows_only_the_index_and_is_offered_only_when_needed() {
    let mut s = settings(ToolExposure::Full);
    s.aggregate_endpoint = AggregateEndpoint::ToolIndex;
    let mut sim = sim_with(s.clone());
    let last_aggregate = |sim: &Sim| {
        sim.effects.iter().rev().find_map(|e| match e {
            Effect::EndpointsChanged { aggregate, .. } => Some(aggregate.clone()),
            _ => None,
        })
    };
    assert_eq!(
        last_aggregate(&sim),
        Some(None),
        "nothing to offer in full mode"
    );
    assert!(
        list(&mut sim, "vs", Endpoint::Aggregate, 1).is_empty(),
        "no duplicates of the per-server endpoints"
    );
    s.tool_exposure_by_server
        .insert("git".into(), ToolExposure::Index);
    sim.send(Event::SettingsChanged { settings: s });
    assert!(matches!(last_aggregate(&sim), Some(Some(_))));
    assert_eq!(
        list(&mut sim, "vs", Endpoint::Aggregate, 2),
        ["search_tools", "load_tools", "unload_tools", "call_tool"]
    );
    // memory stays on its own endpoint; git's tools are only in the index.
    assert_eq!(list(&mut sim, "vs", server_endpoint("memory"), 3).len(), 2);
    let (text, _) = meta(
        &mut sim,
        "vs",
        4,
        "search_tools",
        json!({"query": "read graph"}),
    );
    // Issue 27: never an empty answer while tools exist; what matters here is
    // that none of memory's tools is offered (memory is not in the index).
    assert!(
        text.starts_with("No tool shares a word with \"read graph\""),
        "{text}"
    );
    assert!(
        !text.contains("memory/"),
        "memory is not in the index: {text}"
    );
    // A version that does not move when a tool is loaded (the host must not restart it).
    let versions_before = sim.effects.len();
    init(&mut sim, "vs", Endpoint::Aggregate, "vscode");
    load(&mut sim, "vs", 5, &["git/git_log"]);
    assert!(!sim.effects[versions_before..]
        .iter()
        .any(|e| matches!(e, Effect::EndpointsChanged { .. })));
}

#[test]
fn diagnostics_show_tokens_now_and_in_full_and_the_loaded_tools() {
    let mut sim = sim_with(settings(ToolExposure::Index));
    init(&mut sim, "c", Endpoint::Aggregate, "c");
    load(&mut sim, "c", 1, &["git/git_log"]);
    let snapshot = sim.engine.snapshot();
    let git = snapshot.servers.iter().find(|s| s.name == "git").unwrap();
    assert_eq!(git.exposed_as, Some(ToolExposure::Index));
    assert_eq!(git.loaded_tools, ["git_log"]);
    assert!(
        git.exposed_token_estimate < git.schema_token_estimate,
        "{git:?}"
    );
    let totals = &snapshot.totals;
    assert!(totals.meta_tool_tokens > 0);
    assert_eq!(totals.loaded_tools, 1);
    assert!(totals.exposed_token_estimate >= totals.meta_tool_tokens);
    let report = lazy_mcp_core::diagnostics::engine_report(
        &serde_json::from_value(json!({})).unwrap(),
        &sim.engine,
    );
    assert!(
        report.contains("↳ loaded from the index: git_log"),
        "{report}"
    );
    assert!(report.contains("| index |"), "{report}");
}
