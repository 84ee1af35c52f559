//! A server's `timeout` key bounds every forwarded request, not only the handshake
//! (issue 11 #4): a call to a server configured with `"timeout": 5000` that never
//! answers fails after 5 s, not after the 120 s `requestTimeoutMs`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::engine::{Event, ServerState, Settings};
use serde_json::json;

fn hanging_calls(timeout_ms: Option<u64>) -> Sim {
    let mut sim = Sim::new(Settings::default()).fake("slow", FakeServer::with_tools(&["t"]));
    let mut slow = config("slow");
    slow.timeout_ms = timeout_ms;
    sim.apply(vec![slow]);
    assert_eq!(sim.state("slow"), Some(ServerState::Catalogued));
    sim.fakes.get_mut("slow").unwrap().behavior = Behavior::CallHangs;
    sim
}

fn error_of(sim: &Sim, id: u64) -> Option<String> {
    sim.reply_to("c", json!(id))
        .map(|r| r["error"]["message"].as_str().unwrap_or("").to_string())
}

#[test]
fn the_servers_timeout_bounds_a_call_that_is_never_answered() {
    let mut sim = hanging_calls(Some(5_000));
    sim.client("c", server_endpoint("slow"), call(1, "t"));
    assert_eq!(sim.state("slow"), Some(ServerState::Connected));
    sim.advance(4_999);
    assert!(sim.reply_to("c", json!(1)).is_none(), "not before 5 s");
    sim.advance(1);
    let error = error_of(&sim, 1).expect("an error after the server's 5 s timeout");
    assert!(
        error.contains("'slow'") && error.contains("5000 ms") && error.contains("timeout"),
        "{error}"
    );
    assert_eq!(sim.sent_method("slow", "notifications/cancelled"), 1);
    assert_eq!(
        sim.state("slow"),
        Some(ServerState::Connected),
        "one slow call does not drop the server"
    );
}

#[test]
fn progress_notifications_extend_the_servers_timeout() {
    let mut sim = hanging_calls(Some(5_000));
    let mut with_token = call(1, "t");
    with_token["params"]["_meta"] = json!({"progressToken": "p1"});
    sim.client("c", server_endpoint("slow"), with_token);
    let conn = sim.conn_of("slow").unwrap();
    sim.advance(4_000);
    sim.send(Event::MessageReceived {
        conn,
        message: json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "p1", "progress": 1}}).to_string(),
    });
    sim.advance(4_000);
    assert!(
        sim.reply_to("c", json!(1)).is_none(),
        "progress at 4 s moved the deadline to 9 s"
    );
    sim.advance(1_000);
    assert!(error_of(&sim, 1).unwrap().contains("5000 ms"));
}

#[test]
fn without_a_timeout_key_calls_are_bounded_by_request_timeout_ms() {
    let mut sim = hanging_calls(None);
    sim.client("c", server_endpoint("slow"), call(1, "t"));
    sim.advance(119_999);
    assert!(sim.reply_to("c", json!(1)).is_none());
    sim.advance(1);
    let error = error_of(&sim, 1).unwrap();
    assert!(
        error.contains("120000 ms") && error.contains("requestTimeoutMs"),
        "{error}"
    );
}
