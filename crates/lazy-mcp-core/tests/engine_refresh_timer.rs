//! The periodic refresh (`Settings::refresh_interval_ms`) is the engine's own
//! timer, no longer a host `setInterval`: every interval it re-lists the
//! CONNECTED servers (never spawning one), 0 turns it off, and a settings
//! change starts the interval afresh.
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

const MINUTE: u64 = 60_000;

/// Two catalogued servers, `used` connected by a call; `asleep` never started since.
fn sim_with(refresh_interval_ms: u64) -> Sim {
    let settings = Settings {
        refresh_interval_ms,
        // The premise: `used` stays connected for minutes (a fixed 10 min idle
        // time), not the 1 min a server with one call gets from adaptive idle.
        adaptive_idle: false,
        ..Settings::default()
    };
    let mut sim = Sim::new(settings)
        .fake("used", FakeServer::with_tools(&["echo"]))
        .fake("asleep", FakeServer::with_tools(&["add"]));
    sim.apply(vec![config("used"), config("asleep")]);
    sim.client("c", server_endpoint("used"), call(1, "echo"));
    assert!(sim.reply_to("c", json!(1)).is_some());
    assert_eq!(sim.state("used"), Some(ServerState::Connected));
    assert_eq!(sim.state("asleep"), Some(ServerState::Catalogued));
    sim
}

#[test]
fn every_interval_the_connected_servers_are_listed_again_and_nothing_is_spawned() {
    let mut sim = sim_with(MINUTE);
    let lists = sim.sent_method("used", "tools/list");
    let opens = sim.opens();
    sim.advance(MINUTE + 1);
    assert_eq!(sim.sent_method("used", "tools/list"), lists + 1);
    sim.advance(MINUTE);
    assert_eq!(
        sim.sent_method("used", "tools/list"),
        lists + 2,
        "it repeats"
    );
    assert_eq!(sim.opens(), opens, "a refresh never spawns");
    assert_eq!(sim.state("asleep"), Some(ServerState::Catalogued));
}

#[test]
fn zero_means_never() {
    let mut sim = sim_with(0);
    let lists = sim.sent_method("used", "tools/list");
    sim.advance(5 * MINUTE);
    assert_eq!(sim.sent_method("used", "tools/list"), lists);
}

#[test]
fn a_settings_change_turns_it_off_or_starts_the_new_interval_afresh() {
    let mut sim = sim_with(MINUTE);
    let lists = sim.sent_method("used", "tools/list");
    sim.advance(MINUTE / 2);
    let off = Settings {
        refresh_interval_ms: 0,
        adaptive_idle: false,
        ..Settings::default()
    };
    sim.send(Event::SettingsChanged { settings: off });
    sim.advance(3 * MINUTE);
    assert_eq!(sim.sent_method("used", "tools/list"), lists, "turned off");

    // The server went idle meanwhile? Connect it again first.
    if sim.state("used") != Some(ServerState::Connected) {
        sim.client("c", server_endpoint("used"), call(2, "echo"));
    }
    let lists = sim.sent_method("used", "tools/list");
    let every_two = Settings {
        refresh_interval_ms: 2 * MINUTE,
        adaptive_idle: false,
        ..Settings::default()
    };
    sim.send(Event::SettingsChanged {
        settings: every_two,
    });
    sim.advance(2 * MINUTE - 1);
    assert_eq!(
        sim.sent_method("used", "tools/list"),
        lists,
        "not before the new interval"
    );
    sim.advance(2);
    assert_eq!(sim.sent_method("used", "tools/list"), lists + 1);
}
