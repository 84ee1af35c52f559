//! A 2026-07-28 client's call that has to wait before it is forwarded — the
//! server is being catalogued (its era probed), connected, probed again, or
//! could not be reached at first — still reaches a modern server with that
//! client's input capabilities (`elicitation`, `sampling`) in the envelope, so
//! the server can ask it for input (`input_required`) and its retry gets the
//! result. Each case over a one-shot HTTP client (a client of its own per
//! request, gone once answered, as `lazy-mcp serve --http` serves sessionless
//! requests) and over a stdio client (one client for every request).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::engine::{Event, ServerState, Settings};
use lazy_mcp_core::protocol::client_discover::Era;
use serde_json::{json, Value};

/// The official TypeScript SDK v2 server of the conformance fixture: both eras.
const DUAL: EraBehavior = EraBehavior::Dual { ttl_ms: 0 };

#[derive(Debug, Clone, Copy)]
enum ClientKind {
    /// Sessionless HTTP: each request is a client of its own, disconnected once answered.
    OneShot,
    /// One stdio client sends every request.
    Stdio,
}

const KINDS: [ClientKind; 2] = [ClientKind::OneShot, ClientKind::Stdio];

fn client_name(kind: ClientKind, id: u64) -> String {
    match kind {
        ClientKind::OneShot => format!("one-shot-{id}"),
        ClientKind::Stdio => "stdio".into(),
    }
}

/// A modern client's `tools/call` of `echo`, declaring elicitation and sampling.
fn modern_call(id: u64, extra: Value) -> Value {
    let mut params = json!({"name": "echo", "arguments": {}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}, "sampling": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "modern", "version": "1"},
    }});
    for (key, value) in extra.as_object().unwrap() {
        params[key] = value.clone();
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

/// Sends request `id` as a client of `kind` (the answer may come later).
fn send_call(sim: &mut Sim, kind: ClientKind, id: u64, extra: Value) {
    sim.client(
        &client_name(kind, id),
        server_endpoint("sdk2"),
        modern_call(id, extra),
    );
}

/// The answer to request `id`; a one-shot client is gone once answered.
fn answer(sim: &mut Sim, kind: ClientKind, id: u64) -> Value {
    let client = client_name(kind, id);
    let reply = sim
        .reply_to(&client, json!(id))
        .unwrap_or_else(|| panic!("{kind:?}: no answer to request {id}: {:?}", sim.logs()));
    if let ClientKind::OneShot = kind {
        sim.send(Event::ClientDisconnected { client });
    }
    reply
}

/// The server asked the waiting call's client for input, and that client's
/// retry (a new request, from a new one-shot client) got the tool's result.
fn assert_asked_and_answered(sim: &mut Sim, kind: ClientKind, first: Value) {
    assert_eq!(
        first["result"]["resultType"],
        "input_required",
        "{kind:?}: {first}; log: {:?}",
        sim.logs()
    );
    let upstream = sim.last_sent("tools/call");
    assert_eq!(
        upstream["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"],
        json!({"roots": {}, "elicitation": {"form": {}}, "sampling": {}}),
        "{kind:?}: the server is told what the waiting call's client can answer: {upstream}"
    );
    let answers = json!({"inputResponses": {"q": {"action": "accept", "content": {}}}});
    send_call(sim, kind, 2, answers);
    let second = answer(sim, kind, 2);
    let text = second["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("");
    assert!(text.starts_with("answers "), "{kind:?}: {second}");
}

fn asker(era: EraBehavior) -> FakeServer {
    FakeServer {
        era,
        asks_input: true,
        ..FakeServer::with_tools(&["echo"])
    }
}

fn era_in_blob(sim: &Sim, name: &str) -> Era {
    let blob: Value = serde_json::from_str(sim.persisted.as_deref().unwrap()).unwrap();
    // Entries of legacy servers leave `era` out.
    serde_json::from_value(blob["entries"][name]["era"].clone()).unwrap_or(Era::Legacy)
}

#[test]
fn a_call_that_arrives_while_the_server_is_catalogued_for_the_first_time_declares_its_clients_input_capabilities(
) {
    for kind in KINDS {
        for config in [config("sdk2"), http_config("sdk2")] {
            let mut sim = Sim::new(Settings::default()).fake("sdk2", asker(DUAL));
            sim.oauth.public.insert("sdk2".into());
            sim.hold_opens = true;
            sim.apply(vec![config]);
            assert_eq!(sim.state("sdk2"), Some(ServerState::Cataloguing));
            send_call(&mut sim, kind, 1, json!({}));
            assert!(sim.reply_to(&client_name(kind, 1), json!(1)).is_none());
            sim.release_opens();
            assert_eq!(sim.sent_method("sdk2", "server/discover"), 1);
            let first = answer(&mut sim, kind, 1);
            assert_asked_and_answered(&mut sim, kind, first);
        }
    }
}

#[test]
fn a_call_that_waits_for_the_connection_of_a_catalogued_server_declares_its_clients_input_capabilities(
) {
    for kind in KINDS {
        let mut sim = Sim::new(Settings::default()).fake("sdk2", asker(DUAL));
        sim.apply(vec![config("sdk2")]);
        assert_eq!(sim.state("sdk2"), Some(ServerState::Catalogued));
        sim.hold_opens = true;
        send_call(&mut sim, kind, 1, json!({}));
        assert_eq!(sim.state("sdk2"), Some(ServerState::Connecting));
        sim.release_opens();
        let first = answer(&mut sim, kind, 1);
        assert_asked_and_answered(&mut sim, kind, first);
        assert_eq!(
            sim.sent_method("sdk2", "server/discover"),
            1,
            "only the cataloguing probed"
        );
    }
}

#[test]
fn a_call_that_waits_for_a_new_probe_of_a_server_recorded_legacy_declares_its_clients_input_capabilities(
) {
    for kind in KINDS {
        let mut sim = Sim::new(Settings::default()).fake("sdk2", asker(EraBehavior::Legacy));
        sim.apply(vec![config("sdk2")]);
        assert_eq!(era_in_blob(&sim, "sdk2"), Era::Legacy);
        // Upgraded to a modern-only server since: `initialize` is refused (-32022).
        sim.fakes.get_mut("sdk2").unwrap().era = EraBehavior::Modern { ttl_ms: 0 };
        send_call(&mut sim, kind, 1, json!({}));
        assert_eq!(
            sim.sent_method("sdk2", "server/discover"),
            2,
            "probed again"
        );
        let first = answer(&mut sim, kind, 1);
        assert_asked_and_answered(&mut sim, kind, first);
    }
}

/// The conformance run that failed: `lazy-mcp serve --http` catalogued a server
/// that was not listening yet. The probe could not connect — that says nothing
/// about the era — but was remembered as unanswered, so the next connection
/// skipped the probe: `initialize` succeeded (the server speaks both eras), the
/// server was recorded legacy, and every call went without the envelope, where
/// a stateless legacy server cannot ask the client anything.
#[test]
fn an_http_server_that_could_not_be_reached_at_first_is_probed_when_a_call_connects_it() {
    for kind in KINDS {
        let unreachable = FakeServer {
            behavior: Behavior::Unreachable,
            ..asker(DUAL)
        };
        let mut sim = Sim::new(Settings::default()).fake("sdk2", unreachable);
        sim.oauth.public.insert("sdk2".into());
        sim.apply(vec![http_config("sdk2")]);
        assert!(
            matches!(sim.state("sdk2"), Some(ServerState::Failed { .. })),
            "{:?}",
            sim.state("sdk2")
        );
        // It is up now.
        sim.fakes.get_mut("sdk2").unwrap().behavior = Behavior::Normal;
        send_call(&mut sim, kind, 1, json!({}));
        let first = answer(&mut sim, kind, 1);
        assert_eq!(
            sim.sent_method("sdk2", "initialize"),
            0,
            "{kind:?}: spoken to as a 2026-07-28 server"
        );
        assert_asked_and_answered(&mut sim, kind, first);
        assert_eq!(era_in_blob(&sim, "sdk2"), Era::Modern);
    }
}

#[test]
fn an_http_server_that_could_not_be_reached_at_first_is_probed_again_by_the_automatic_retry() {
    let unreachable = FakeServer {
        behavior: Behavior::Unreachable,
        ..asker(DUAL)
    };
    let mut sim = Sim::new(Settings::default()).fake("sdk2", unreachable);
    sim.oauth.public.insert("sdk2".into());
    sim.apply(vec![http_config("sdk2")]);
    assert!(matches!(
        sim.state("sdk2"),
        Some(ServerState::Failed { .. })
    ));
    sim.fakes.get_mut("sdk2").unwrap().behavior = Behavior::Normal;
    sim.advance(10 * 60_000);
    assert_eq!(sim.state("sdk2"), Some(ServerState::Catalogued));
    assert_eq!(sim.sent_method("sdk2", "initialize"), 0);
    assert_eq!(era_in_blob(&sim, "sdk2"), Era::Modern);
}
