//! The HTTP gateway's session policy is the engine's
//! (`engine/clients/gateway_sessions.rs`): each body the gateway takes
//! (`clientPost`) uses its session; a session unused for `sessionIdleMs`
//! (no body, no open GET stream, no request in flight) gets `closeClient`
//! with `idle`, and a new session beyond `maxSessions` ends the least
//! recently used other one. The engine looks by one timer of its table; the
//! host keeps no clock of its own.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::engine::{Effect, Endpoint, Event, Settings};
use serde_json::{json, Value};

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
}

fn gateway(session_idle_ms: u64, max_sessions: u64) -> Sim {
    gateway_with(Settings {
        session_idle_ms,
        max_sessions,
        ..Settings::default()
    })
}

fn gateway_with(settings: Settings) -> Sim {
    let mut sim = Sim::new(settings).fake("s", FakeServer::with_tools(&["echo"]));
    sim.apply(vec![config("s")]);
    sim
}

/// A client opens its session with `initialize`, as the gateway hands it over.
fn open(sim: &mut Sim, client: &str) {
    sim.post(client, &Endpoint::Aggregate, &initialize(), false);
    assert!(
        sim.reply_to(client, json!(0)).is_some(),
        "{client} answered"
    );
}

/// One more request on the session.
fn list(sim: &mut Sim, client: &str) {
    sim.post(
        client,
        &Endpoint::Aggregate,
        &request(9, "tools/list"),
        true,
    );
}

/// The sessions the engine told the host to end, in order, and whether for idleness.
fn closed(sim: &Sim) -> Vec<(String, bool)> {
    sim.effects
        .iter()
        .filter_map(|e| match e {
            Effect::CloseClient { client, idle } => Some((client.clone(), *idle)),
            _ => None,
        })
        .collect()
}

fn ended(clients: &[&str], idle: bool) -> Vec<(String, bool)> {
    clients.iter().map(|c| (c.to_string(), idle)).collect()
}

#[test]
fn beyond_the_cap_the_least_recently_used_session_is_closed() {
    let mut sim = gateway(60_000, 3);
    for client in ["s1", "s2", "s3"] {
        open(&mut sim, client);
        sim.advance(1);
    }
    assert_eq!(closed(&sim), vec![], "three sessions fit a cap of 3");
    open(&mut sim, "s4");
    assert_eq!(closed(&sim), ended(&["s1"], false));
    // s2 is used again: s3 is now the least recently used.
    sim.advance(1);
    list(&mut sim, "s2");
    open(&mut sim, "s5");
    assert_eq!(closed(&sim), ended(&["s1", "s3"], false));
    assert!(sim
        .logs()
        .iter()
        .any(|l| l.contains("ended 0 idle session(s) (idle 60000 ms) and 1 beyond the cap of 3")));
    // The host ended them and said so: a body on a session it still has is
    // served as before.
    list(&mut sim, "s2");
    assert!(sim.reply_to("s2", json!(9)).is_some());
}

#[test]
fn an_idle_session_is_closed_after_the_timeout_and_an_active_one_is_not() {
    let mut sim = gateway(60_000, 1_000);
    open(&mut sim, "quiet");
    open(&mut sim, "busy");
    sim.advance(40_000);
    list(&mut sim, "busy");
    sim.advance(19_999);
    assert_eq!(closed(&sim), vec![], "nobody idle for 60 s yet");
    sim.advance(1);
    assert_eq!(closed(&sim), ended(&["quiet"], true));
    assert!(sim.logs().iter().any(|l| l.contains(
        "gateway: ended 1 idle session(s) (idle 60000 ms) and 0 beyond the cap of 1000"
    )));
    // `busy` was used 20 s ago: it ends 60 s after that use, not before.
    sim.advance(39_999);
    assert_eq!(closed(&sim), ended(&["quiet"], true));
    sim.advance(1);
    assert_eq!(closed(&sim), ended(&["quiet", "busy"], true));
}

#[test]
fn a_session_with_its_stream_open_or_a_call_in_flight_is_in_use() {
    let mut sim = gateway_with(Settings {
        session_idle_ms: 10_000,
        // Answered between two looks at the sessions (every 10 s).
        request_timeout_ms: 125_000,
        ..Settings::default()
    });
    open(&mut sim, "listening");
    sim.send(Event::ClientStreamOpened {
        client: "listening".into(),
    });
    open(&mut sim, "calling");
    sim.fakes.get_mut("s").unwrap().behavior = Behavior::CallHangs;
    sim.post("calling", &Endpoint::Aggregate, &call(5, "s__echo"), true);
    sim.advance(100_000);
    assert_eq!(closed(&sim), vec![], "in use for ten idle timeouts");
    // The call times out (125 s) and is answered: its session is idle 10 s
    // after that answer, not at the next look (130 s).
    sim.advance(25_000);
    assert!(sim.reply_to("calling", json!(5)).is_some());
    sim.advance(9_999);
    assert_eq!(closed(&sim), vec![], "the answer was a use");
    sim.advance(1);
    assert_eq!(closed(&sim), ended(&["calling"], true));
    // The stream closes: its session's last use.
    sim.send(Event::ClientStreamClosed {
        client: "listening".into(),
    });
    sim.advance(9_999);
    assert_eq!(closed(&sim), ended(&["calling"], true));
    sim.advance(1);
    assert_eq!(closed(&sim), ended(&["calling", "listening"], true));
}

#[test]
fn a_session_the_host_ended_is_forgotten_and_zero_never_ends_one() {
    let mut sim = gateway(60_000, 1);
    open(&mut sim, "gone");
    sim.send(Event::ClientDisconnected {
        client: "gone".into(),
    });
    open(&mut sim, "next");
    assert_eq!(
        closed(&sim),
        vec![],
        "a session the host ended is not ended again"
    );

    let mut never = gateway(0, 1_000);
    open(&mut never, "kept");
    never.advance(10 * 3_600_000);
    assert_eq!(closed(&never), vec![]);
}
