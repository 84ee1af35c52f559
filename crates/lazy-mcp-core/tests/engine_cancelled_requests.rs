//! A client's cancelled request gets no answer (MCP), and the core settles it,
//! once, in the answers it owes the client, for a request that would otherwise
//! have been answered later: a call waiting for its server to connect, a call
//! forwarded upstream, an open `subscriptions/listen`. Hosts stop waiting on it
//! (`serve --stdio` exits at stdin EOF instead of waiting for an answer that
//! never comes, `clientSettled`; an HTTP exchange ends its stream, from the
//! body's routing: `cancels`). An answered request, an unknown id and a second
//! cancellation never settle anything.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::engine::{Endpoint, ServerState, Settings};
use serde_json::{json, Value};

fn catalogued(behavior: Behavior) -> Sim {
    let mut sim = Sim::new(Settings::default()).fake("s", FakeServer::with_tools(&["echo"]));
    sim.apply(vec![config("s")]);
    assert_eq!(sim.state("s"), Some(ServerState::Catalogued));
    sim.fakes.get_mut("s").unwrap().behavior = behavior;
    sim
}

fn cancel(id: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": "user"}})
}

/// The answers the engine still owes `client`: requests read, neither
/// answered nor dropped (a drop settles one; nothing is said to the host).
fn owed(sim: &Sim, client: &str) -> u32 {
    sim.engine.answers_owed(client)
}

#[test]
fn a_cancelled_call_waiting_for_its_server_is_settled_once_and_never_answered() {
    let mut sim = catalogued(Behavior::Normal);
    sim.hold_opens = true;
    sim.client("a", server_endpoint("s"), call(7, "echo"));
    // Another call waits too: a second settle of 7 would show in its count.
    sim.client("a", server_endpoint("s"), call(8, "echo"));
    assert!(
        sim.reply_to("a", json!(7)).is_none(),
        "waiting for the connect"
    );
    assert_eq!(owed(&sim, "a"), 2);
    sim.client("a", server_endpoint("s"), cancel(json!(7)));
    assert_eq!(owed(&sim, "a"), 1, "7 settled, 8 still owed");
    sim.client("a", server_endpoint("s"), cancel(json!(7)));
    assert_eq!(owed(&sim, "a"), 1, "a second cancellation settles nothing");
    sim.release_opens();
    assert!(
        sim.reply_to("a", json!(7)).is_none(),
        "cancelled: no answer"
    );
    assert!(
        sim.reply_to("a", json!(8)).is_some(),
        "the other call is answered"
    );
    assert_eq!(owed(&sim, "a"), 0);
}

#[test]
fn a_cancelled_forwarded_call_is_settled_once_and_its_late_answer_is_dropped() {
    let mut sim = catalogued(Behavior::CallHangs);
    sim.client("a", server_endpoint("s"), call(3, "echo"));
    assert_eq!(sim.sent_method("s", "tools/call"), 1, "forwarded");
    assert_eq!(owed(&sim, "a"), 1);
    // Another client cancelling the same id cancels nothing of `a`'s.
    sim.client("b", server_endpoint("s"), cancel(json!(3)));
    assert_eq!(owed(&sim, "a"), 1);
    sim.client("a", server_endpoint("s"), cancel(json!(3)));
    assert_eq!(owed(&sim, "a"), 0, "settled");
    assert_eq!(sim.sent_method("s", "notifications/cancelled"), 1);
    // The request timer is gone with it: no timeout error later either.
    sim.advance(600_000);
    assert!(sim.reply_to("a", json!(3)).is_none());
    assert_eq!(owed(&sim, "a"), 0);
}

#[test]
fn answered_requests_and_unknown_ids_are_never_settled_by_a_cancellation() {
    let mut sim = catalogued(Behavior::Normal);
    sim.client("a", server_endpoint("s"), call(1, "echo"));
    assert!(sim.reply_to("a", json!(1)).is_some(), "answered");
    sim.client("a", server_endpoint("s"), request(2, "tools/list"));
    assert!(
        sim.reply_to("a", json!(2)).is_some(),
        "answered from the catalogue"
    );
    // A call still waiting: a settle by any of the cancellations below would show.
    sim.fakes.get_mut("s").unwrap().behavior = Behavior::CallHangs;
    sim.client("a", server_endpoint("s"), call(3, "echo"));
    assert_eq!(owed(&sim, "a"), 1);
    for id in [json!(1), json!(2), json!(99), json!("nope")] {
        sim.client("a", server_endpoint("s"), cancel(id));
    }
    assert_eq!(owed(&sim, "a"), 1, "only the waiting call is owed");
}

#[test]
fn a_cancelled_listen_is_settled_once() {
    let mut sim = catalogued(Behavior::Normal);
    let listen = json!({"jsonrpc": "2.0", "id": 5, "method": "subscriptions/listen", "params": {
        "notifications": {"toolsListChanged": true},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        },
    }});
    sim.client("m", Endpoint::Aggregate, listen);
    assert!(sim.reply_to("m", json!(5)).is_none(), "a listen stays open");
    assert_eq!(owed(&sim, "m"), 1);
    sim.client("m", Endpoint::Aggregate, cancel(json!(5)));
    assert_eq!(owed(&sim, "m"), 0, "settled");
    sim.client("m", Endpoint::Aggregate, cancel(json!(5)));
    assert_eq!(owed(&sim, "m"), 0);
    assert!(sim.reply_to("m", json!(5)).is_none());
}

#[test]
fn a_call_awaiting_its_retry_answered_its_first_id_so_cancelling_that_id_settles_nothing() {
    let server = FakeServer {
        asks_client: Some("elicitation/create".into()),
        ..FakeServer::with_tools(&["echo"])
    };
    let mut sim = Sim::new(Settings::default()).fake("old", server);
    sim.apply(vec![config("old")]);
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "echo", "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
            "io.modelcontextprotocol/clientInfo": {"name": "modern", "version": "1"},
        },
    }});
    sim.client("c", server_endpoint("old"), call);
    let reply = sim.reply_to("c", json!(1)).unwrap();
    assert_eq!(reply["result"]["resultType"], "input_required", "{reply}");
    assert_eq!(owed(&sim, "c"), 0, "answered");
    sim.client("c", server_endpoint("old"), cancel(json!(1)));
    assert_eq!(owed(&sim, "c"), 0);
}

/// The HTTP gateway alone keeps which answers each POST waits for: the body's
/// routing names the request a `notifications/cancelled` cancels (the engine
/// answers no cancelled request), so no effect has to tell it.
#[test]
fn a_bodys_routing_names_the_request_a_cancellation_cancels() {
    use lazy_mcp_core::protocol::client_message::{client_body, client_body_text};
    let single = client_body(&cancel(json!(7)).to_string());
    assert_eq!(single.messages[0].cancels, Some(json!(7)));
    assert!(client_body_text(&single).contains(r#""cancels":7"#));
    let batch = format!("[{},{}]", call(3, "echo"), cancel(json!("c-1")));
    let routed = client_body(&batch);
    assert_eq!(routed.messages[0].cancels, None, "a call cancels nothing");
    assert_eq!(routed.messages[1].cancels, Some(json!("c-1")));
    // Not a request id: nothing to stop waiting for.
    let odd = client_body(&cancel(json!(null)).to_string());
    assert_eq!(odd.messages[0].cancels, None);
}
