//! VS Code lists an extension's MCP tools only after starting its definition
//! once, so the engine asks the host to start each new or changed definition
//! (`startDefinition`) on the core's schedule until a client listed its tools,
//! never again after a failed start, and then closes a session that only
//! listed (`stopDefinition`) once the window has been quiet: never one a
//! client started using, never while a call of the window is in flight. The
//! decisions were the VS Code controller's (`startUntilListed`) until issue 25.
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
use lazy_mcp_core::host_limits::{QUIET_BEFORE_STOP_MS, START_LIMIT_MS, START_PAUSES_MS};
use serde_json::json;

const USER_FILE: &str = "/home/u/.copilot/mcp-config.json";

/// VS Code's settings: it offers definitions, one endpoint per server.
fn vscode() -> Settings {
    Settings {
        aggregate_endpoint: AggregateEndpoint::ToolIndex,
        ..Settings::default()
    }
}

/// A host whose user file defines `memory`.
fn host(settings: Settings, fake: FakeServer) -> Sim {
    let mut sim = Sim::new(settings).fake("memory", fake);
    sim.disk.insert(
        USER_FILE.into(),
        r#"{ "mcpServers": { "memory": { "type": "local", "command": "npx", "args": ["m"], "tools": ["*"] } } }"#.into(),
    );
    sim
}

/// [`host`], loaded with `trusted` workspace trust.
fn loaded(settings: Settings, fake: FakeServer, trusted: bool) -> Sim {
    let mut sim = host(settings, fake);
    load(&mut sim, trusted);
    sim
}

fn load(sim: &mut Sim, trusted: bool) {
    let sources = json!({
        "discovery": { "home": "/home/u", "workspaceFolders": [], "platform": "linux", "env": { "HOME": "/home/u" } },
        "explicitFiles": [],
        "policy": { "workspaceTrusted": trusted, "vscodeNative": "alsoManage" },
    });
    sim.send(Event::ConfigSources {
        sources: serde_json::from_value(sources).unwrap(),
    });
}

/// Every `startDefinition` so far, in order.
fn starts(sim: &Sim) -> Vec<(Endpoint, String)> {
    sim.effects
        .iter()
        .filter_map(|e| match e {
            Effect::StartDefinition { endpoint, version } => {
                Some((endpoint.clone(), version.clone()))
            }
            _ => None,
        })
        .collect()
}

fn stops(sim: &Sim) -> Vec<Endpoint> {
    sim.effects
        .iter()
        .filter_map(|e| match e {
            Effect::StopDefinition { endpoint } => Some(endpoint.clone()),
            _ => None,
        })
        .collect()
}

fn memory() -> Endpoint {
    server_endpoint("memory")
}

/// VS Code lists the definition's tools (on its own session).
fn list(sim: &mut Sim, endpoint: Endpoint, id: u64) {
    sim.client("vscode", endpoint, request(id, "tools/list"));
}

/// When the asks come, from the first, with every start answered at once and
/// no listing: each pause after an ask, the last one repeated, until the limit.
fn scheduled_asks() -> Vec<u64> {
    let mut at = vec![0];
    let mut now = 0;
    for asked in 0.. {
        let pause = START_PAUSES_MS[asked.min(START_PAUSES_MS.len() - 1)];
        now += pause;
        if now >= START_LIMIT_MS {
            return at;
        }
        at.push(now);
    }
    at
}

#[test]
fn it_asks_again_on_the_schedule_until_a_client_listed_the_tools() {
    let mut sim = loaded(vscode(), FakeServer::with_tools(&["echo"]), true);
    assert_eq!(sim.state("memory"), Some(ServerState::Catalogued));
    let first = starts(&sim);
    assert_eq!(first.len(), 1, "asked once the definition is offered");
    assert_eq!(first[0].0, memory());
    let since = sim.now;
    // The first four asks, each after its pause (25, 50, 100 ms).
    for (asks, at) in scheduled_asks().iter().enumerate().skip(1).take(3) {
        sim.advance_to(since + at - 1);
        assert_eq!(starts(&sim).len(), asks, "not before its pause ({at} ms)");
        sim.advance_to(since + at);
        assert_eq!(starts(&sim).len(), asks + 1, "asked again at {at} ms");
    }
    // Listed: no more asks, ever.
    list(&mut sim, memory(), 1);
    let asked = starts(&sim).len();
    sim.advance(60_000);
    assert_eq!(starts(&sim).len(), asked, "listed: never asked again");
    assert!(
        starts(&sim).iter().all(|s| s == &first[0]),
        "the same version"
    );
    assert_eq!(
        sim.engine.snapshot().servers[0].listed_at_ms,
        Some(since + 175),
        "the snapshot says when it was listed"
    );
}

#[test]
fn it_gives_up_at_the_limit_and_the_last_pause_repeats() {
    let mut sim = loaded(vscode(), FakeServer::with_tools(&["echo"]), true);
    let since = sim.now;
    let expected = scheduled_asks();
    sim.advance(120_000);
    assert_eq!(starts(&sim).len(), expected.len(), "asks at {expected:?}");
    let limit = START_LIMIT_MS;
    assert!(expected.last().is_some_and(|last| *last < limit));
    // The last pause repeats: the asks after the schedule's end are 400 ms apart.
    assert_eq!(
        expected[expected.len() - 1] - expected[expected.len() - 2],
        400
    );
    assert!(stops(&sim).is_empty(), "never listed: nothing to close");
    // A listing after it gave up asks nothing and closes nothing.
    list(&mut sim, memory(), 1);
    sim.advance(10_000);
    assert_eq!(starts(&sim).len(), expected.len());
    assert!(stops(&sim).is_empty());
    assert!(sim.now > since + limit);
}

#[test]
fn a_failed_start_is_never_asked_again() {
    let mut sim = host(vscode(), FakeServer::with_tools(&["echo"]));
    sim.start_answer = StartAnswer::Fail;
    load(&mut sim, true);
    assert_eq!(starts(&sim).len(), 1);
    sim.advance(60_000);
    // The same definition offered again (a config reload) is not asked again either.
    sim.send(Event::ConfigFilesChanged { paths: vec![] });
    sim.advance(60_000);
    assert_eq!(starts(&sim).len(), 1, "Lazy MCP never asks twice");
}

#[test]
fn only_a_host_that_offers_definitions_in_a_trusted_workspace_is_asked() {
    // The CLI offers no definitions.
    let sim = loaded(Settings::default(), FakeServer::with_tools(&["echo"]), true);
    assert_eq!(sim.state("memory"), Some(ServerState::Catalogued));
    assert!(starts(&sim).is_empty());
    // VS Code in Restricted Mode: nothing until trust is granted.
    let mut sim = loaded(vscode(), FakeServer::with_tools(&["echo"]), false);
    assert_eq!(sim.state("memory"), Some(ServerState::Catalogued));
    assert!(starts(&sim).is_empty(), "no trust prompt caused");
    load(&mut sim, true);
    assert_eq!(starts(&sim).len(), 1, "asked once trust is granted");
}

/// Asked, then listed 10 ms after the first ask (inside its pause).
fn listed_after_first_ask(settings: Settings, fake: FakeServer) -> (Sim, u64) {
    let mut sim = loaded(settings, fake, true);
    let since = sim.now;
    sim.advance(10);
    list(&mut sim, memory(), 1);
    (sim, since + 10)
}

#[test]
fn a_session_that_only_listed_is_closed_once_the_endpoint_was_quiet() {
    let (mut sim, listed) = listed_after_first_ask(vscode(), FakeServer::with_tools(&["echo"]));
    let quiet = QUIET_BEFORE_STOP_MS;
    // Anything VS Code sends meanwhile (a ping at +2 s) starts the quiet time afresh.
    sim.advance_to(listed + 2_000);
    sim.client("vscode", memory(), request(2, "ping"));
    let heard = sim.now;
    sim.advance_to(listed + quiet + 100);
    assert!(
        stops(&sim).is_empty(),
        "not within the quiet time of the ping"
    );
    sim.advance_to(heard + quiet);
    assert!(stops(&sim).is_empty(), "one more turn before the decision");
    sim.advance_to(heard + quiet + 1);
    assert_eq!(stops(&sim), [memory()], "closed once quiet");
    assert_eq!(starts(&sim).len(), 1, "listed before the second ask");
    sim.advance(60_000);
    assert_eq!(stops(&sim).len(), 1, "closed once");
}

#[test]
fn with_close_listing_sessions_off_a_session_that_only_listed_stays_open() {
    // `lazyMcp.closeListingSessions: false`: VS Code's list says Running, and
    // no close can cancel a call VS Code starts at that instant.
    let settings = Settings {
        close_listing_sessions: false,
        ..vscode()
    };
    let (mut sim, _) = listed_after_first_ask(settings, FakeServer::with_tools(&["echo"]));
    sim.advance(QUIET_BEFORE_STOP_MS + 60_000);
    assert!(stops(&sim).is_empty(), "never closed");
    assert_eq!(starts(&sim).len(), 1, "asked once: listed");
    sim.client("vscode", memory(), call(2, "echo"));
    assert!(sim.reply_to("vscode", json!(2)).is_some());
}

#[test]
fn a_session_a_client_started_using_is_never_closed() {
    let (mut sim, _) = listed_after_first_ask(vscode(), FakeServer::with_tools(&["echo"]));
    sim.client("vscode", memory(), call(2, "echo"));
    assert!(sim.reply_to("vscode", json!(2)).is_some());
    assert_eq!(sim.state("memory"), Some(ServerState::Connected));
    sim.advance(10_000);
    assert!(stops(&sim).is_empty(), "in use: its session stays Running");
}

/// The tool index's definition (the aggregate endpoint, no server of its
/// own), listed; then `call_tool` of memory's `echo` through it.
fn tool_index_with_a_call(hangs: bool) -> Sim {
    let settings = Settings {
        tool_exposure: ToolExposure::Index,
        ..vscode()
    };
    let mut fake = FakeServer::with_tools(&["echo"]);
    if hangs {
        fake.behavior = Behavior::CallHangs;
    }
    let mut sim = loaded(settings, fake, true);
    assert!(starts(&sim).iter().any(|(e, _)| *e == Endpoint::Aggregate));
    list(&mut sim, Endpoint::Aggregate, 1);
    sim.client(
        "vscode",
        Endpoint::Aggregate,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "call_tool", "arguments": {"name": "memory/echo", "arguments": {}}}}),
    );
    assert_eq!(sim.reply_to("vscode", json!(2)).is_some(), !hangs);
    sim.advance(10_000);
    sim
}

#[test]
fn a_session_is_never_closed_while_a_request_of_it_is_in_flight() {
    // The tool index is no server: only what is in flight keeps its session.
    let answered = tool_index_with_a_call(false);
    assert_eq!(stops(&answered), [Endpoint::Aggregate]);
    let in_flight = tool_index_with_a_call(true);
    assert!(
        stops(&in_flight).is_empty(),
        "the stop would cancel the call"
    );
}

#[test]
fn a_changed_version_or_a_definition_no_longer_offered_ends_the_attempt() {
    let mut fake = FakeServer::with_tools(&["echo"]);
    fake.capabilities = json!({"tools": {}, "resources": {}});
    let mut sim = loaded(vscode(), fake, true);
    sim.start_answer = StartAnswer::Hold;
    let since = sim.now;
    // Listed, and in its quiet time.
    list(&mut sim, memory(), 1);
    sim.advance(25);
    assert_eq!(starts(&sim).len(), 1);
    // The server's lists change: a new version of the definition, asked for.
    let resource = json!({"uri": "memory://notes", "name": "notes"});
    sim.fakes
        .get_mut("memory")
        .unwrap()
        .resources
        .push(resource);
    sim.send(Event::RefreshCatalogue {
        server: Some("memory".into()),
        recatalogue: true,
    });
    let asked = starts(&sim);
    assert_eq!(asked.len(), 2, "the new version is asked for");
    assert_ne!(asked[0].1, asked[1].1);
    // The old attempt ended: its quiet time passes without a stop, and the
    // old start's late answer asks nothing.
    sim.send(Event::DefinitionStarted {
        endpoint: memory(),
        version: asked[0].1.clone(),
        failed: false,
    });
    sim.advance_to(since + 10_000);
    assert!(stops(&sim).is_empty(), "the old attempt closed nothing");
    assert_eq!(starts(&sim).len(), 2);
    // No longer offered (disabled): the new attempt ends too.
    sim.send(Event::DefinitionStarted {
        endpoint: memory(),
        version: asked[1].1.clone(),
        failed: false,
    });
    sim.send(Event::Disable {
        server: "memory".into(),
    });
    sim.advance(60_000);
    assert_eq!(starts(&sim).len(), 2, "a definition gone is not asked for");
    assert!(stops(&sim).is_empty());
}

/// A window whose user file defines `memory` and `everything`, both listed by
/// VS Code at once; `memory`'s process is slow to start (its open is held).
fn two_listed_memory_slow() -> (Sim, u64) {
    let mut sim = Sim::new(vscode())
        .fake("memory", FakeServer::with_tools(&["read_graph"]))
        .fake("everything", FakeServer::with_tools(&["echo"]));
    sim.disk.insert(
        USER_FILE.into(),
        r#"{ "mcpServers": {
            "memory": { "type": "local", "command": "npx", "args": ["m"], "tools": ["*"] },
            "everything": { "type": "local", "command": "npx", "args": ["e"], "tools": ["*"] } } }"#
            .into(),
    );
    load(&mut sim, true);
    sim.advance(10);
    list(&mut sim, memory(), 1);
    list(&mut sim, server_endpoint("everything"), 1);
    let listed = sim.now;
    sim.hold_opens = true;
    sim.advance(100);
    sim.client("vscode", memory(), call(2, "read_graph"));
    (sim, listed)
}

#[test]
fn no_session_is_closed_while_a_call_of_the_window_is_under_way() {
    // Copilot calls memory, then everything: memory's start outlasts the
    // quiet time, and closing everything's session then would cancel the call
    // that comes next (VS Code cancels a session's requests as it closes it).
    let (mut sim, listed) = two_listed_memory_slow();
    sim.advance_to(listed + QUIET_BEFORE_STOP_MS + 5_000);
    assert!(
        stops(&sim).is_empty(),
        "a call of the window is waiting for its server"
    );
    sim.release_opens();
    assert!(sim.reply_to("vscode", json!(2)).is_some());
    sim.advance(50);
    sim.client("vscode", server_endpoint("everything"), call(3, "echo"));
    assert!(sim.reply_to("vscode", json!(3)).is_some());
    sim.advance(60_000);
    assert!(
        stops(&sim).is_empty(),
        "both in use: both sessions stay Running"
    );
}

#[test]
fn a_session_that_only_listed_is_closed_once_the_whole_window_was_quiet() {
    let (mut sim, _) = two_listed_memory_slow();
    sim.advance(QUIET_BEFORE_STOP_MS + 5_000);
    sim.release_opens();
    assert!(sim.reply_to("vscode", json!(2)).is_some());
    let answered = sim.now;
    // The answer counts as the window's activity: the next call may come
    // right after it.
    sim.advance_to(answered + QUIET_BEFORE_STOP_MS - 1);
    assert!(
        stops(&sim).is_empty(),
        "within the quiet time of the answer"
    );
    sim.advance_to(answered + QUIET_BEFORE_STOP_MS + 1);
    assert_eq!(
        stops(&sim),
        [server_endpoint("everything")],
        "only everything's session, which only listed, is closed"
    );
}
