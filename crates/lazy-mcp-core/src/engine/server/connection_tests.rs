//! A connection's own state alone, without an engine: inputs in, reads out.

use super::{Connection, WentLive};
use crate::engine::server::calls::{CallParams, ForwardedCall, QueuedCall};
use crate::engine::server::machines::handshake::machine::Handshake;
use crate::engine::server::pending::Pending;
use crate::engine::server::purpose::Purpose;
use crate::protocol::client_handshake::ListKind;
use crate::protocol::methods;
use serde_json::{json, Value};

const HANDSHAKE_TIMER: u64 = 7;

fn connection(purpose: Purpose) -> Connection {
    Connection::new(
        "s".to_string(),
        purpose,
        false,
        Handshake::Legacy,
        1_000,
        HANDSHAKE_TIMER,
    )
}

/// A client's `tools/call` as `client`'s request `id`, its params read (and
/// kept) or forwarded raw, sent again after an era change already or not.
fn call_as(client: &str, id: u64, timer: u64, parsed: bool, era_retried: bool) -> Pending {
    let params = if parsed {
        CallParams::Parsed(Some(json!({"name": "echo"})))
    } else {
        CallParams::Raw {
            text: r#"{"name":"echo"}"#.into(),
            progress_token: None,
            tool: "echo".into(),
        }
    };
    let queued = QueuedCall::new(
        client.to_string(),
        Value::from(id),
        methods::TOOLS_CALL.to_string(),
        params,
    )
    .era_retried(era_retried);
    Pending::Call(ForwardedCall::forward(queued, timer, 0).0)
}

fn call(client: &str, id: u64, timer: u64, parsed: bool) -> Pending {
    call_as(client, id, timer, parsed, false)
}

#[test]
fn requests_get_ids_in_order_and_each_answer_is_taken_once() {
    let mut c = connection(Purpose::Catalogue);
    assert_eq!(c.next_request_id(), 1);
    assert_eq!(c.send_request(Pending::Initialize), 1);
    assert_eq!(c.send_request(call("a", 10, 20, true)), 2);
    assert_eq!(c.next_request_id(), 3);
    assert!(c.awaits_answer(1) && c.awaits_answer(2) && !c.awaits_answer(3));
    assert!(matches!(c.take_answered(1), Some(Pending::Initialize)));
    assert!(
        c.take_answered(1).is_none(),
        "an answer echoed twice is nothing"
    );
    // A call is read, changed and taken by its id; put back, it waits on.
    assert_eq!(c.call(2).map(|call| call.timer()), Some(20));
    assert_eq!(c.answer_retry(2, "b", &Value::from(12)), Some(20));
    let taken = c.take_call(2).expect("the call is in flight");
    assert_eq!(taken.client(), "b");
    assert_eq!(taken.client_id(), &Value::from(12));
    assert!(!c.has_calls_in_flight());
    c.put_call_back(2, taken);
    assert!(c.has_calls_in_flight() && c.awaits_answer(2));
}

#[test]
fn a_closed_connection_fails_its_calls_and_drops_its_own_requests() {
    let mut c = connection(Purpose::Connect);
    c.send_request(Pending::Initialize);
    c.send_request(call("a", 10, 20, true));
    c.send_request(Pending::List {
        kind: ListKind::Tools,
    });
    c.send_request(Pending::Listen);
    c.send_request(call("b", 11, 21, false));
    c.send_request(Pending::Internal);
    assert!(c.has_calls_in_flight());
    let closed = c.close();
    assert_eq!(closed.handshake_timer, Some(HANDSHAKE_TIMER));
    let failed: Vec<(u64, &str, u64)> = closed
        .calls
        .iter()
        .map(|(id, call)| (*id, call.client(), call.timer()))
        .collect();
    assert_eq!(failed, [(2, "a", 20), (5, "b", 21)]);
    // Nothing is left to time out or answer.
    assert!(!c.has_calls_in_flight() && !c.awaits_answer(1) && !c.awaits_answer(4));
    let again = c.close();
    assert!(again.handshake_timer.is_none() && again.calls.is_empty());
}

#[test]
fn going_live_keeps_it_for_calls_and_ends_the_handshake_bound() {
    let mut c = connection(Purpose::Catalogue);
    assert!(!c.is_live() && c.is_handshaking());
    assert_eq!(c.handshake_timer(), Some(HANDSHAKE_TIMER));
    assert_eq!(
        c.went_live(1_250),
        WentLive {
            latency_ms: 250,
            handshake_timer: Some(HANDSHAKE_TIMER),
        }
    );
    assert!(c.is_live());
    assert_eq!(c.purpose(), Purpose::Connect);
    assert_eq!(c.handshake_timer(), None);
    // A handshake timer that fires after calls flow times nothing out.
    assert!(!c.handshake_timer_fired());
    // Before, it does (and is gone either way).
    let mut opening = connection(Purpose::Connect);
    assert!(opening.handshake_timer_fired());
    assert_eq!(opening.handshake_timer(), None);
    assert_eq!(opening.take_handshake_timer(), None);
}

#[test]
fn roots_count_only_when_first_asked_before_calls_flow() {
    let mut c = connection(Purpose::Connect);
    c.roots_asked(1_100);
    c.roots_asked(1_200);
    assert_eq!(c.roots_asked_at(), Some(1_100), "the first ask counts");
    let mut live = connection(Purpose::Connect);
    live.went_live(1_050);
    live.roots_asked(1_300);
    assert_eq!(
        live.roots_asked_at(),
        None,
        "asked once calls flow: no settling"
    );
}

#[test]
fn only_the_open_listen_is_answered_and_a_replaced_one_says_nothing() {
    let mut c = connection(Purpose::Connect);
    let first = c.send_request(Pending::Listen);
    c.listen_opened(Some(first));
    // A new filter replaces it: cancelled, then a second one opened.
    assert_eq!(c.take_listen(), Some(first));
    let second = c.send_request(Pending::Listen);
    c.listen_opened(Some(second));
    assert!(!c.listen_answered(first), "the cancelled listen's answer");
    assert!(c.listen_answered(second));
    assert!(!c.listen_answered(second), "closed once");
    assert_eq!(c.take_listen(), None);
}

#[test]
fn after_an_era_change_only_calls_not_yet_resent_with_params_and_not_held_go_again() {
    let mut c = connection(Purpose::Connect);
    c.went_live(1_000);
    c.send_request(Pending::Internal);
    let kept = c.send_request(call("a", 10, 20, true));
    let raw = c.send_request(call("b", 11, 21, false));
    let held = c.send_request(call("c", 12, 22, true));
    let retried = c.send_request(call_as("d", 13, 23, true, true));
    let again = c.take_calls_to_resend(&|id| id == held);
    let clients: Vec<&str> = again.iter().map(ForwardedCall::client).collect();
    assert_eq!(clients, ["a"]);
    assert!(!c.awaits_answer(kept));
    // The others stay in flight on this connection.
    assert!(c.awaits_answer(1) && c.awaits_answer(raw) && c.awaits_answer(held));
    assert!(c.awaits_answer(retried));
}
