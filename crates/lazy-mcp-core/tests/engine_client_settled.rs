//! `clientInputEnded` → `clientSettled`: the engine, which answers or drops
//! every request, says when a client whose input ended is owed nothing more,
//! so `serve --stdio` stops at stdin EOF without a copy of the requests in
//! flight. At once when nothing is in flight; after the last answer; after
//! the last drop (a request it cancelled). A server's request still waiting for the
//! client's answer does not hold it (the client cannot answer any more).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::engine::{Effect, Endpoint, Event, ServerState, Settings};
use serde_json::{json, Value};

const CLIENT: &str = "stdio";

fn catalogued(behavior: Behavior) -> Sim {
    let mut sim = Sim::new(Settings::default()).fake("s", FakeServer::with_tools(&["echo"]));
    sim.apply(vec![config("s")]);
    assert_eq!(sim.state("s"), Some(ServerState::Catalogued));
    sim.fakes.get_mut("s").unwrap().behavior = behavior;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    sim.client(CLIENT, Endpoint::Aggregate, init);
    assert!(sim.reply_to(CLIENT, json!(0)).is_some());
    sim
}

/// `s__echo` on the aggregate endpoint (the raw forwarding path).
fn echo(id: u64) -> Value {
    call(id, "s__echo")
}

fn cancel(id: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}})
}

/// Where in `sim.effects` each `clientSettled` of `CLIENT` is.
fn settled_at(sim: &Sim) -> Vec<usize> {
    sim.effects
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Effect::ClientSettled { client } if client == CLIENT))
        .map(|(i, _)| i)
        .collect()
}

fn reply_at(sim: &Sim, id: Value) -> usize {
    sim.effects
        .iter()
        .position(
            |e| matches!(e, Effect::Reply { client, id: i, .. } if client == CLIENT && *i == id),
        )
        .expect("answered")
}

/// One `clientSettled`, after the answer at `reply` (at the end of that event).
fn settled_after(sim: &Sim, reply: usize) {
    let at = settled_at(sim);
    assert!(
        at.len() == 1 && at[0] > reply,
        "settled at {at:?}, answered at {reply}"
    );
}

fn input_ended(sim: &mut Sim) {
    sim.send(Event::ClientInputEnded {
        client: CLIENT.into(),
    });
}

#[test]
fn nothing_in_flight_settles_at_once_and_once() {
    let mut sim = catalogued(Behavior::Normal);
    sim.client(CLIENT, Endpoint::Aggregate, request(1, "tools/list"));
    sim.client(CLIENT, Endpoint::Aggregate, echo(2));
    assert!(sim.reply_to(CLIENT, json!(2)).is_some(), "answered");
    // Answered at once too: an unreadable line, a batch, a line too large.
    sim.send(Event::ClientMessage {
        client: CLIENT.into(),
        endpoint: Endpoint::Aggregate,
        message: "{not json".into(),
    });
    sim.send(Event::ClientMessage {
        client: CLIENT.into(),
        endpoint: Endpoint::Aggregate,
        message: r#"[{"jsonrpc":"2.0","id":3,"method":"ping"}]"#.into(),
    });
    sim.send(Event::ClientMessageTooLarge {
        client: CLIENT.into(),
        head: r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"#.into(),
        bytes: 20_000_000,
        limit_bytes: 16_777_216,
    });
    assert!(sim.reply_to(CLIENT, json!(4)).is_some());
    assert!(settled_at(&sim).is_empty(), "not before the input ended");
    input_ended(&mut sim);
    assert_eq!(settled_at(&sim), vec![sim.effects.len() - 1], "at once");
    sim.advance(600_000);
    input_ended(&mut sim);
    assert_eq!(settled_at(&sim).len(), 2, "once per clientInputEnded");
}

#[test]
fn a_client_never_heard_from_settles_at_once() {
    let mut sim = catalogued(Behavior::Normal);
    sim.send(Event::ClientInputEnded {
        client: "quiet".into(),
    });
    assert!(sim
        .effects
        .iter()
        .any(|e| matches!(e, Effect::ClientSettled { client } if client == "quiet")));
}

#[test]
fn a_call_in_flight_settles_right_after_its_answer() {
    let mut sim = catalogued(Behavior::CallHangs);
    sim.client(CLIENT, Endpoint::Aggregate, echo(7));
    assert_eq!(sim.sent_method("s", "tools/call"), 1, "forwarded");
    input_ended(&mut sim);
    // Other clients' traffic and time passing settle nothing.
    sim.client("other", Endpoint::Aggregate, request(1, "ping"));
    sim.advance(1_000);
    assert!(settled_at(&sim).is_empty(), "a call is still in flight");
    let upstream = sim.last_sent("tools/call")["id"].clone();
    let conn = sim.conn_of("s").unwrap();
    let answer = json!({"jsonrpc": "2.0", "id": upstream, "result": {"content": []}});
    sim.server_bytes(conn, answer.to_string().as_bytes());
    let reply = reply_at(&sim, json!(7));
    settled_after(&sim, reply);
}

#[test]
fn a_call_waiting_for_its_server_to_start_holds_it_until_answered() {
    let mut sim = catalogued(Behavior::Normal);
    sim.hold_opens = true;
    sim.client(CLIENT, Endpoint::Aggregate, echo(8));
    input_ended(&mut sim);
    assert!(settled_at(&sim).is_empty(), "waiting for the connect");
    sim.release_opens();
    let reply = reply_at(&sim, json!(8));
    settled_after(&sim, reply);
}

#[test]
fn a_call_that_times_out_is_answered_and_settles() {
    let mut sim = catalogued(Behavior::CallHangs);
    sim.client(CLIENT, Endpoint::Aggregate, echo(9));
    input_ended(&mut sim);
    sim.advance(600_000);
    let reply = reply_at(&sim, json!(9));
    assert!(sim.reply_to(CLIENT, json!(9)).unwrap()["error"].is_object());
    settled_after(&sim, reply);
}

#[test]
fn a_cancelled_call_settles_with_its_drop() {
    let mut sim = catalogued(Behavior::CallHangs);
    sim.client(CLIENT, Endpoint::Aggregate, echo(3));
    sim.client(CLIENT, Endpoint::Aggregate, echo(4));
    sim.client(CLIENT, Endpoint::Aggregate, cancel(json!(3)));
    input_ended(&mut sim);
    assert!(settled_at(&sim).is_empty(), "call 4 is still in flight");
    // Its drop came before the end; the other call's answer settles the client.
    let upstream = sim.last_sent("tools/call")["id"].clone();
    let conn = sim.conn_of("s").unwrap();
    let answer = json!({"jsonrpc": "2.0", "id": upstream, "result": {"content": []}});
    sim.server_bytes(conn, answer.to_string().as_bytes());
    settled_after(&sim, reply_at(&sim, json!(4)));
    assert!(
        sim.reply_to(CLIENT, json!(3)).is_none(),
        "cancelled: never answered"
    );

    // Every call cancelled: settled at the end of the input, nothing answered.
    let mut sim = catalogued(Behavior::CallHangs);
    sim.client(CLIENT, Endpoint::Aggregate, echo(5));
    sim.client(CLIENT, Endpoint::Aggregate, cancel(json!(5)));
    input_ended(&mut sim);
    assert_eq!(settled_at(&sim), vec![sim.effects.len() - 1]);
    assert!(sim.reply_to(CLIENT, json!(5)).is_none());
}

#[test]
fn a_server_request_waiting_at_the_client_does_not_hold_it() {
    let server = FakeServer {
        asks_client: Some("elicitation/create".into()),
        ..FakeServer::with_tools(&["echo"])
    };
    let mut sim = Sim::new(Settings::default()).fake("s", server);
    sim.apply(vec![config("s")]);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "t", "version": "1"}}});
    sim.client(CLIENT, Endpoint::Aggregate, init);
    sim.client(CLIENT, Endpoint::Aggregate, echo(1));
    let asked = sim
        .notifications
        .iter()
        .any(|(c, m)| c == CLIENT && m["method"] == "elicitation/create");
    assert!(
        asked,
        "the server asked the client: {:?}",
        sim.notifications
    );
    input_ended(&mut sim);
    assert!(
        settled_at(&sim).is_empty(),
        "the call that asked is in flight"
    );
    // The call times out and is answered; the question to the client stays unanswered.
    sim.advance(600_000);
    settled_after(&sim, reply_at(&sim, json!(1)));
}

#[test]
fn a_disconnected_client_is_forgotten() {
    let mut sim = catalogued(Behavior::CallHangs);
    sim.client(CLIENT, Endpoint::Aggregate, echo(1));
    input_ended(&mut sim);
    sim.send(Event::ClientDisconnected {
        client: CLIENT.into(),
    });
    sim.advance(600_000);
    assert!(
        settled_at(&sim).is_empty(),
        "nobody waits for a client gone"
    );
}
