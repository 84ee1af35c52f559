//! The engine decides an HTTP connection's transport and bounds its first
//! exchange (`engine/server/http_transport.rs`): the host reports when the
//! first exchange starts (`connectStarted`) and the status that answered it
//! (`connectAnswered`), and carries out `httpTransport`. A first POST
//! answered 400, 404 or 405 falls back to the legacy HTTP+SSE transport (the
//! spec's backward-compatibility section), one refused for a sign-in (401)
//! is held and probes again, any other status settles Streamable HTTP; a
//! first exchange unanswered for `HTTP_CONNECT_TIMEOUT_MS` fails the connect
//! with an error naming the server.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::engine::{Effect, Event, Settings};
use lazy_mcp_core::host_limits::HTTP_CONNECT_TIMEOUT_MS;
use lazy_mcp_core::http_status::HttpMode;
use serde_json::json;

/// `web` over HTTP (signed in with OAuth: no `Authorization` header), legacy
/// era, never answering `initialize`: its connection waits in its first
/// exchange, as a host would report it.
fn waiting() -> (Sim, u64) {
    let web = FakeServer {
        era: EraBehavior::Legacy,
        behavior: Behavior::Hang,
        ..FakeServer::with_tools(&["echo"])
    };
    let mut sim = Sim::new(Settings::default()).fake("web", web);
    // The simulated host refuses nothing: the test says what the POST met.
    sim.oauth.public.insert("web".into());
    sim.apply(vec![http_config("web")]);
    let conn = sim.conn_of("web").unwrap();
    sim.send(Event::ConnectStarted { conn });
    (sim, conn)
}

/// The transports the engine told the host for `conn`.
fn told(sim: &Sim, conn: u64) -> Vec<HttpMode> {
    sim.effects
        .iter()
        .filter_map(|e| match e {
            Effect::HttpTransport { conn: c, mode } if *c == conn => Some(*mode),
            _ => None,
        })
        .collect()
}

#[test]
fn the_first_posts_status_decides_streamable_http_or_the_legacy_fallback() {
    for (status, mode) in [
        (200, HttpMode::Streamable),
        (202, HttpMode::Streamable),
        (400, HttpMode::Legacy),
        (404, HttpMode::Legacy),
        (405, HttpMode::Legacy),
        (500, HttpMode::Streamable),
    ] {
        let (mut sim, conn) = waiting();
        sim.send(Event::ConnectAnswered { conn, status });
        assert_eq!(told(&sim, conn), vec![mode], "first POST answered {status}");
        // Settled: what answers later (the legacy stream's `endpoint`) settles nothing more.
        sim.send(Event::ConnectAnswered { conn, status: 200 });
        assert_eq!(told(&sim, conn), vec![mode], "first POST answered {status}");
    }
}

#[test]
fn a_first_post_refused_for_a_sign_in_is_held_and_the_next_one_probes() {
    let (mut sim, conn) = waiting();
    sim.send(Event::ConnectAnswered { conn, status: 401 });
    assert_eq!(told(&sim, conn), vec![HttpMode::Probing]);
    // Sent again once signed in, answered 404 this time: the fallback still applies.
    sim.send(Event::ConnectStarted { conn });
    sim.send(Event::ConnectAnswered { conn, status: 404 });
    assert_eq!(told(&sim, conn), vec![HttpMode::Probing, HttpMode::Legacy]);
}

#[test]
fn a_modern_requests_status_is_its_answer_never_a_fallback() {
    let web = FakeServer {
        era: EraBehavior::HangOnDiscover,
        ..FakeServer::with_tools(&["echo"])
    };
    let mut sim = Sim::new(Settings::default()).fake("web", web);
    sim.oauth.public.insert("web".into());
    sim.apply(vec![http_config("web")]);
    let conn = sim.conn_of("web").unwrap();
    assert_eq!(sim.sent_method("web", "server/discover"), 1);
    sim.send(Event::ConnectStarted { conn });
    sim.send(Event::ConnectAnswered { conn, status: 404 });
    assert_eq!(told(&sim, conn), vec![HttpMode::Streamable]);
}

#[test]
fn a_first_exchange_unanswered_fails_the_connect_naming_the_server_and_the_url() {
    let (mut sim, conn) = waiting();
    sim.client("c", server_endpoint("web"), call(1, "echo"));
    sim.advance(HTTP_CONNECT_TIMEOUT_MS - 1);
    assert!(
        sim.reply_to("c", json!(1)).is_none(),
        "not before the deadline"
    );
    sim.advance(1);
    let why = format!(
        "timed out connecting to http://127.0.0.1:1/mcp after {HTTP_CONNECT_TIMEOUT_MS} ms: the first POST got no answer"
    );
    let reply = sim.reply_to("c", json!(1)).expect("the call is answered");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("Could not connect to MCP server 'web': "),
        "{message}"
    );
    assert!(message.contains(&why), "{message}");
    assert!(
        sim.effects
            .iter()
            .any(|e| matches!(e, Effect::Close { conn: c, .. } if *c == conn)),
        "the connection is closed"
    );
    assert!(
        sim.logs().iter().any(|l| l.contains(&why)),
        "{:?}",
        sim.logs()
    );
}

#[test]
fn an_answered_first_exchange_has_no_deadline_left() {
    let (mut sim, conn) = waiting();
    sim.send(Event::ConnectAnswered { conn, status: 404 });
    // The legacy stream is opened: bounded again until its `endpoint` event.
    sim.send(Event::ConnectStarted { conn });
    sim.send(Event::ConnectAnswered { conn, status: 200 });
    sim.advance(HTTP_CONNECT_TIMEOUT_MS + 1);
    assert!(
        !sim.logs()
            .iter()
            .any(|l| l.contains("timed out connecting")),
        "{:?}",
        sim.logs()
    );
}
