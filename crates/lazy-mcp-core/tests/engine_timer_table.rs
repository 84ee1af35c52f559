//! The engine's one timer table (issue 25): the host keeps one timer, armed
//! by `wakeAt`, and answers `timeout`. A warm call arms and cancels its
//! request timer inside the table (no effect crosses for it); one `timeout`
//! fires every due timer in deadline order, once, however late it comes; a
//! cancelled timer never fires.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::engine::{Effect, ServerState, Settings};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The effects' types, counted.
fn tally(effects: &[Effect]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for effect in effects {
        let kind = serde_json::to_value(effect).unwrap()["type"]
            .as_str()
            .unwrap()
            .to_string();
        *counts.entry(kind).or_default() += 1;
    }
    counts
}

#[test]
fn a_warm_tool_call_costs_a_send_and_a_reply_and_no_timer_effect() {
    let mut sim = Sim::new(Settings::default()).fake("s", FakeServer::with_tools(&["echo"]));
    sim.apply(vec![config("s")]);
    sim.client("c", server_endpoint("s"), call(1, "echo"));
    assert_eq!(sim.state("s"), Some(ServerState::Connected));
    let rounds = 100u64;
    let (start, timeouts) = (sim.effects.len(), sim.timeouts);
    for id in 2..2 + rounds {
        sim.advance(10);
        sim.client("c", server_endpoint("s"), call(id, "echo"));
        assert!(sim
            .reply_to("c", json!(id))
            .unwrap()
            .get("result")
            .is_some());
    }
    let counts = tally(&sim.effects[start..]);
    println!(
        "effects per warm call over {rounds} calls: {:.2}; by type: {counts:?}",
        (sim.effects.len() - start) as f64 / rounds as f64
    );
    assert_eq!(
        counts,
        BTreeMap::from([("reply".to_string(), 100), ("send".to_string(), 100)]),
        "each warm call: one send, one reply, nothing else"
    );
    assert_eq!(sim.timeouts, timeouts, "and no wake-up of the host");
}

/// Two servers whose calls hang: `late` with a 3 s timeout, `soon` with 1 s.
fn two_hanging_calls() -> Sim {
    let mut sim = Sim::new(Settings::default())
        .fake("late", FakeServer::with_tools(&["t"]))
        .fake("soon", FakeServer::with_tools(&["t"]));
    let (mut late, mut soon) = (config("late"), config("soon"));
    late.timeout_ms = Some(3_000);
    soon.timeout_ms = Some(1_000);
    sim.apply(vec![late, soon]);
    for name in ["late", "soon"] {
        sim.fakes.get_mut(name).unwrap().behavior = Behavior::CallHangs;
    }
    // `late`'s timer is armed first, `soon`'s is due first.
    sim.client("c", server_endpoint("late"), call(1, "t"));
    sim.client("c", server_endpoint("soon"), call(2, "t"));
    assert!(sim.reply_to("c", json!(1)).is_none() && sim.reply_to("c", json!(2)).is_none());
    sim
}

fn timeout_errors(sim: &Sim) -> Vec<Value> {
    sim.replies
        .iter()
        .filter(|(_, r)| {
            r["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("timeout"))
        })
        .map(|(_, r)| r["id"].clone())
        .collect()
}

#[test]
fn one_timeout_fires_the_due_timers_in_deadline_order() {
    let mut sim = two_hanging_calls();
    let start = sim.now;
    assert_eq!(
        sim.wake_at,
        Some(start + 1_000),
        "the host waits for the earliest deadline"
    );
    sim.now = start + 3_000;
    let timeouts = sim.timeouts;
    sim.fire_timeout();
    assert_eq!(sim.timeouts, timeouts + 1, "one crossing");
    assert_eq!(
        timeout_errors(&sim),
        vec![json!(2), json!(1)],
        "the 1 s call fails before the 3 s one, though its timer was armed later"
    );
}

#[test]
fn a_host_that_reports_late_fires_each_missed_timer_once_in_order_then_names_the_next_deadline() {
    let mut sim = two_hanging_calls();
    let start = sim.now;
    // Both deadlines passed long ago (a suspended laptop, a busy event loop).
    sim.now = start + 50_000;
    sim.fire_timeout();
    assert_eq!(timeout_errors(&sim), vec![json!(2), json!(1)]);
    assert_eq!(sim.sent_method("late", "notifications/cancelled"), 1);
    assert_eq!(sim.sent_method("soon", "notifications/cancelled"), 1);
    // What is left (the two idle timers) is the next deadline, and the host was told.
    let next = sim
        .engine
        .poll_timeout()
        .expect("the idle timers are still armed");
    assert!(next > sim.now, "nothing due is left behind: {next}");
    assert_eq!(sim.wake_at, Some(next), "the host's timer is armed at it");
    sim.fire_timeout();
    assert_eq!(
        timeout_errors(&sim).len(),
        2,
        "a second timeout fires nothing again"
    );
}

#[test]
fn a_cancelled_timer_never_fires() {
    let settings = Settings {
        idle_timeout_ms: 0,
        ..Settings::default()
    };
    let mut sim = Sim::new(settings).fake("s", FakeServer::with_tools(&["echo"]));
    let mut s = config("s");
    s.timeout_ms = Some(5_000);
    sim.apply(vec![s]);
    sim.client("c", server_endpoint("s"), call(1, "echo"));
    sim.advance(100);
    // The call's request timer is armed at +5 s, then cancelled by its answer.
    sim.client("c", server_endpoint("s"), call(2, "echo"));
    assert!(sim.reply_to("c", json!(2)).unwrap().get("result").is_some());
    assert_eq!(sim.engine.poll_timeout(), None, "the table is empty");
    let armed = sim
        .wake_at
        .expect("the host's timer still waits for an earlier deadline");
    let (effects, timeouts) = (sim.effects.len(), sim.timeouts);
    sim.advance(60_000);
    assert!(
        armed <= sim.now && sim.timeouts == timeouts + 1,
        "it fired early, once"
    );
    assert!(
        sim.effects[effects..].is_empty(),
        "and found nothing due: {:?}",
        &sim.effects[effects..]
    );
    assert_eq!(sim.sent_method("s", "notifications/cancelled"), 0);
    assert_eq!(sim.replies.len(), 2, "no late error for the answered call");
    assert_eq!(sim.wake_at, None, "nothing to wait for");
}
