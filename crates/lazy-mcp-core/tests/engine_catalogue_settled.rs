//! `catalogueSettled` (engine/settled.rs): the engine says when no server is
//! busy any more (PENDING, CATALOGUING, CONNECTING), so `serve` waits for its
//! first catalogue on an effect instead of polling the snapshot every 50 ms.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::engine::server_actions::{progress, Progress};
use lazy_mcp_core::engine::{Effect, Event, ServerState, Settings};

fn settled_count(sim: &Sim) -> usize {
    sim.effects
        .iter()
        .filter(|e| matches!(e, Effect::CatalogueSettled {}))
        .count()
}

/// The state of every server as the effects told it up to (not including) `index`.
fn busy_before(sim: &Sim, index: usize) -> Vec<String> {
    let mut states = std::collections::BTreeMap::new();
    for effect in &sim.effects[..index] {
        match effect {
            Effect::StateChanged { server, state } => {
                states.insert(server.clone(), state.clone());
            }
            Effect::ServerRemoved { server } => {
                states.remove(server);
            }
            _ => {}
        }
    }
    states
        .into_iter()
        .filter(|(_, s)| progress(s) == Progress::Busy)
        .map(|(n, _)| n)
        .collect()
}

#[test]
fn a_cold_start_says_settled_once_when_the_last_server_is_catalogued() {
    let mut sim = Sim::new(Settings::default())
        .fake("a", FakeServer::with_tools(&["echo"]))
        .fake("b", FakeServer::with_tools(&["add"]))
        .fake("c", FakeServer::with_tools(&["sum"]));
    sim.apply(vec![config("a"), config("b"), config("c")]);
    for name in ["a", "b", "c"] {
        assert_eq!(sim.state(name), Some(ServerState::Catalogued), "{name}");
    }
    assert_eq!(settled_count(&sim), 1, "{:?}", sim.effects);
    let at = sim
        .effects
        .iter()
        .position(|e| matches!(e, Effect::CatalogueSettled {}))
        .unwrap();
    assert!(busy_before(&sim, at).is_empty(), "settled while busy");
    // Nothing more changed state after it: the lists were complete then.
    assert!(!sim.effects[at..]
        .iter()
        .any(|e| matches!(e, Effect::StateChanged { .. })));
}

#[test]
fn not_settled_while_a_server_is_still_opening_and_settled_when_it_is_catalogued() {
    let mut sim = Sim::new(Settings::default())
        .fake("fast", FakeServer::with_tools(&["echo"]))
        .fake("slow", FakeServer::with_tools(&["add"]));
    sim.hold_opens = true;
    sim.apply(vec![config("fast"), config("slow")]);
    assert_eq!(settled_count(&sim), 0, "nothing catalogued yet");
    sim.release_opens();
    assert_eq!(sim.state("fast"), Some(ServerState::Catalogued));
    assert_eq!(sim.state("slow"), Some(ServerState::Catalogued));
    assert_eq!(settled_count(&sim), 1);
}

#[test]
fn a_server_that_never_answers_settles_as_failed_at_its_handshake_timeout() {
    let mut hang = FakeServer::with_tools(&["echo"]);
    hang.behavior = Behavior::Hang;
    let settings = Settings {
        max_retries: 0,
        ..Settings::default()
    };
    let mut sim = Sim::new(settings)
        .fake("ok", FakeServer::with_tools(&["echo"]))
        .fake("hang", hang);
    sim.apply(vec![config("ok"), config("hang")]);
    assert_eq!(sim.state("ok"), Some(ServerState::Catalogued));
    assert_eq!(settled_count(&sim), 0, "'hang' is still cataloguing");
    sim.advance(Settings::default().handshake_timeout_ms + 1);
    assert!(matches!(
        sim.state("hang"),
        Some(ServerState::Failed { .. })
    ));
    assert_eq!(settled_count(&sim), 1);
}

#[test]
fn a_warm_start_has_nothing_to_wait_for_and_a_later_config_edit_settles_again() {
    let mut first = Sim::new(Settings::default()).fake("a", FakeServer::with_tools(&["echo"]));
    first.apply(vec![config("a")]);
    let blob = first.persisted.clone().unwrap();

    let mut sim = Sim::new(Settings::default())
        .fake("a", FakeServer::with_tools(&["echo"]))
        .fake("new", FakeServer::with_tools(&["add"]));
    sim.send(Event::CatalogueLoaded { blob });
    sim.apply(vec![config("a")]);
    assert_eq!(sim.state("a"), Some(ServerState::Catalogued));
    assert_eq!(sim.opens(), 0);
    // Every settled effect (if any) came when nothing was busy.
    for (i, e) in sim.effects.iter().enumerate() {
        if matches!(e, Effect::CatalogueSettled {}) {
            assert!(busy_before(&sim, i).is_empty());
        }
    }
    let before = settled_count(&sim);
    // A server added by a config edit is catalogued: settled once more.
    sim.apply(vec![config("a"), config("new")]);
    assert_eq!(sim.state("new"), Some(ServerState::Catalogued));
    assert_eq!(settled_count(&sim), before + 1);
}

#[test]
fn warm_calls_say_nothing() {
    let mut sim = Sim::new(Settings::default()).fake("a", FakeServer::with_tools(&["echo"]));
    sim.apply(vec![config("a")]);
    let endpoint = server_endpoint("a");
    sim.client("c", endpoint.clone(), call(1, "echo"));
    assert!(sim.reply_to("c", serde_json::json!(1)).is_some());
    let after_connect = settled_count(&sim);
    for id in 2..6 {
        sim.client("c", endpoint.clone(), call(id, "echo"));
        assert!(sim.reply_to("c", serde_json::json!(id)).is_some());
    }
    assert_eq!(
        settled_count(&sim),
        after_connect,
        "no effect per warm call"
    );
}
