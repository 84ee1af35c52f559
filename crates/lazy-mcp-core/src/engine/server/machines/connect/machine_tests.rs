//! The connect machine alone, without an engine: inputs in, reads and the
//! waiting calls out.

use super::ConnectMachine;
use crate::engine::server::calls::{CallParams, QueuedCall};
use crate::engine::server::machines::handshake::machine::Handshake;
use crate::engine::state::Trigger;
use crate::protocol::client_discover::Era;
use crate::protocol::methods;
use serde_json::{json, Value};

fn call(method: &str, id: u64, params: Option<Value>) -> QueuedCall {
    QueuedCall::new(
        "c1".into(),
        json!(id),
        method.into(),
        CallParams::Parsed(params),
    )
}

#[test]
fn calls_wait_in_order_until_taken_once() {
    let mut machine = ConnectMachine::default();
    assert!(!machine.has_waiters());
    machine.handle_call_waiting(call(methods::RESOURCES_READ, 1, None));
    machine.handle_call_waiting(call(methods::TOOLS_CALL, 2, Some(json!({"name": "echo"}))));
    machine.handle_call_waiting(call(methods::TOOLS_CALL, 3, Some(json!({"name": "add"}))));
    assert!(machine.has_waiters());
    // The sign-in prompt names the first waiting tool call's tool.
    assert_eq!(machine.waiting_tool().as_deref(), Some("echo"));
    // A cancelled call leaves the queue; the others keep their order.
    assert!(machine.handle_calls_gone(&|c| *c.client_id() == json!(2)));
    assert!(!machine.handle_calls_gone(&|c| *c.client_id() == json!(9)));
    let ids: Vec<Value> = machine
        .take_waiters()
        .into_iter()
        .map(|c| c.into_reply_target().1)
        .collect();
    assert_eq!(ids, [json!(1), json!(3)]);
    assert!(machine.take_waiters().is_empty());
    assert_eq!(machine.waiting_tool(), None);
}

#[test]
fn the_next_connection_trusts_the_verdict_until_the_era_is_doubted() {
    let mut machine = ConnectMachine::default();
    assert_eq!(machine.how_to_start(false, None), Handshake::Probe);
    assert_eq!(
        machine.how_to_start(false, Some(Era::Modern)),
        Handshake::Modern
    );
    assert_eq!(
        machine.how_to_start(false, Some(Era::Legacy)),
        Handshake::Legacy
    );
    // A legacy SSE transport is never probed.
    assert_eq!(machine.how_to_start(true, None), Handshake::Legacy);
    // An answer says the era changed: probe, whatever the catalogue says,
    // until a handshake settles it.
    machine.handle_era_changed();
    assert!(machine.asks_era_again());
    assert_eq!(
        machine.how_to_start(false, Some(Era::Modern)),
        Handshake::Probe
    );
    assert_eq!(machine.how_to_start(true, None), Handshake::Legacy);
    machine.handle_era_known();
    assert!(!machine.asks_era_again());
    assert_eq!(
        machine.how_to_start(false, Some(Era::Modern)),
        Handshake::Modern
    );
}

#[test]
fn a_refused_verdict_is_probed_again_once_per_verdict() {
    let mut machine = ConnectMachine::default();
    assert!(machine.handle_verdict_refused());
    // Refused again before a handshake settled the era: no second probe.
    assert!(!machine.handle_verdict_refused());
    machine.handle_era_known();
    assert!(machine.handle_verdict_refused());
}

#[test]
fn an_unanswered_probe_goes_straight_to_initialize_until_a_refresh() {
    let mut machine = ConnectMachine::default();
    machine.handle_probe_unanswered();
    assert_eq!(machine.how_to_start(false, None), Handshake::Legacy);
    // A catalogue's verdict still wins.
    assert_eq!(
        machine.how_to_start(false, Some(Era::Modern)),
        Handshake::Modern
    );
    machine.handle_refresh();
    assert_eq!(machine.how_to_start(false, None), Handshake::Probe);
    machine.handle_era_known();
    assert_eq!(machine.how_to_start(false, None), Handshake::Probe);
}

#[test]
fn only_the_automatic_retry_of_a_server_without_catalogue_is_background() {
    let mut machine = ConnectMachine::default();
    // A warm retry goes back to CATALOGUED: nothing runs in the background.
    machine.handle_retry_started(true, true);
    assert!(!machine.is_background());
    machine.handle_retry_started(true, false);
    assert!(machine.is_background());
    // The retry's own triggers keep it.
    machine.handle_trigger(&Trigger::RetryDue { warm: false });
    machine.handle_trigger(&Trigger::CatalogueStarted);
    assert!(machine.is_background());
    // Any other trigger ends it.
    machine.handle_trigger(&Trigger::CatalogueSucceeded);
    assert!(!machine.is_background());
    // So does a user action, a foreground retry or a failure.
    for end in [
        ConnectMachine::handle_user_action as fn(&mut ConnectMachine),
        |m: &mut ConnectMachine| m.handle_retry_started(false, false),
        ConnectMachine::handle_connect_failed,
    ] {
        machine.handle_retry_started(true, false);
        end(&mut machine);
        assert!(!machine.is_background());
    }
}

#[test]
fn the_current_connection_is_the_latest_opened_until_it_ends() {
    let mut machine = ConnectMachine::default();
    assert_eq!(machine.conn(), None);
    machine.handle_connection_opened(1);
    // An older connection's end does not clear a newer current one.
    machine.handle_connection_opened(2);
    machine.handle_connection_dropped(1);
    assert_eq!(machine.conn(), Some(2));
    machine.handle_connection_dropped(2);
    assert_eq!(machine.conn(), None);
    machine.handle_connection_opened(3);
    assert_eq!(machine.handle_stopped(), Some(3));
    assert_eq!(machine.conn(), None);
    assert_eq!(machine.handle_stopped(), None);
}
