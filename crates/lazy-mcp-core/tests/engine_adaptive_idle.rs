//! Idle stop that follows use (issue 26): a server's idle time is its call
//! rate's tier — over 20 calls in the last hour 5 min, 5–20 3 min, fewer 1 min —
//! never above the user's `idleTimeoutMs`; `adaptiveIdle: false` keeps the
//! setting itself. MCP Diagnostics shows the idle time of each running server.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::engine::{ServerState, Settings};
use serde_json::json;

const MINUTE: u64 = 60_000;

fn sim(adaptive_idle: bool) -> Sim {
    sim_with_ceiling(10 * MINUTE, adaptive_idle)
}

fn sim_with_ceiling(idle_timeout_ms: u64, adaptive_idle: bool) -> Sim {
    let mut sim = Sim::new(Settings {
        idle_timeout_ms,
        adaptive_idle,
        ..Settings::default()
    })
    .fake("time", FakeServer::with_tools(&["now"]));
    sim.apply(vec![config("time")]);
    sim
}

/// `n` calls, 10 s apart, each answered.
fn calls(sim: &mut Sim, n: u64) {
    for id in 1..=n {
        sim.client("c", server_endpoint("time"), call(id, "now"));
        assert!(sim.reply_to("c", json!(id)).is_some());
        sim.advance(10_000);
    }
}

/// How long the server stays connected from now, to the second.
fn stays_up_for(sim: &mut Sim) -> u64 {
    let mut up = 0;
    while sim.state("time") == Some(ServerState::Connected) && up < 20 * MINUTE {
        sim.advance(1_000);
        up += 1_000;
    }
    up
}

fn diagnostics_report(sim: &Sim) -> String {
    lazy_mcp_core::diagnostics::engine_report(&Default::default(), &sim.engine)
}

#[test]
fn a_server_called_once_stops_after_a_minute_not_the_ten_minute_ceiling() {
    let mut sim = sim(true);
    calls(&mut sim, 1);
    let report = diagnostics_report(&sim);
    assert!(
        report.contains("| after 1 min (1 call in the last hour) |"),
        "Diagnostics shows the idle time: {report}"
    );
    // 10 s passed after the call already; it stops 1 min after the call.
    let up = stays_up_for(&mut sim);
    assert!((49_000..=51_000).contains(&up), "stopped {up} ms later");
    assert_eq!(sim.state("time"), Some(ServerState::Catalogued));
    assert!(sim.live.is_empty(), "its process stopped");
    // The close says it was the idle stop: the owner of a shared process keeps
    // it for its idle time only then (a session that ends gives the grace).
    let closes: Vec<bool> = sim
        .effects
        .iter()
        .filter_map(|e| match e {
            lazy_mcp_core::engine::Effect::Close { idle, .. } => Some(*idle),
            _ => None,
        })
        .collect();
    assert_eq!(closes.last(), Some(&true), "{closes:?}");
}

#[test]
fn busier_servers_stay_up_longer_between_calls() {
    let mut sim = sim(true);
    calls(&mut sim, 6);
    assert!(diagnostics_report(&sim).contains("| after 3 min (6 calls in the last hour) |"));
    let up = stays_up_for(&mut sim);
    assert!(
        (169_000..=171_000).contains(&up),
        "5–20 calls: 3 min, stopped {up} ms later"
    );

    let mut sim = self::sim(true);
    calls(&mut sim, 21);
    let up = stays_up_for(&mut sim);
    assert!(
        (289_000..=291_000).contains(&up),
        "over 20 calls: 5 min, stopped {up} ms later"
    );
}

#[test]
fn the_user_setting_is_the_ceiling_and_adaptive_off_keeps_it() {
    let mut sim = sim(false);
    calls(&mut sim, 1);
    assert!(diagnostics_report(&sim).contains("| after 10 min (1 call in the last hour) |"));
    let up = stays_up_for(&mut sim);
    assert!(
        (589_000..=591_000).contains(&up),
        "fixed: 10 min, stopped {up} ms later"
    );

    let mut sim = sim_with_ceiling(20_000, true);
    calls(&mut sim, 1);
    let up = stays_up_for(&mut sim);
    assert!(
        (9_000..=11_000).contains(&up),
        "a 20 s ceiling wins over the 1 min tier: {up}"
    );
}

#[test]
fn a_call_in_flight_never_idles_out() {
    let mut sim = sim(true);
    calls(&mut sim, 1);
    sim.fakes.get_mut("time").unwrap().behavior = Behavior::CallHangs;
    sim.client("c", server_endpoint("time"), call(99, "now"));
    sim.advance(90_000);
    assert_eq!(
        sim.state("time"),
        Some(ServerState::Connected),
        "a call under way keeps it up past its 1 min idle time"
    );
}

#[test]
fn a_servers_own_idle_setting_is_its_ceiling() {
    // `serverIdleTimeoutMinutes: {"time": …}` / `--server-idle-timeout time=MS`.
    let settings = Settings {
        idle_timeout_ms: 10 * MINUTE,
        adaptive_idle: false,
        idle_timeout_by_server: format!("other=1\ntime={}", 2 * MINUTE),
        ..Settings::default()
    };
    let mut sim = Sim::new(settings).fake("time", FakeServer::with_tools(&["now"]));
    sim.apply(vec![config("time")]);
    calls(&mut sim, 1);
    assert!(diagnostics_report(&sim).contains("| after 2 min (1 call in the last hour) |"));
    let up = stays_up_for(&mut sim);
    assert!(
        (109_000..=111_000).contains(&up),
        "its own 2 min, not the user's 10: stopped {up} ms later"
    );
}
