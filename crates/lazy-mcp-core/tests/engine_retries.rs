//! Failed servers (issue 12 #2): automatic retries are bounded and never start
//! over, they run in the background (no progress shown), and a user action, a
//! config edit or a call retries at once — a call waiting for that one attempt.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::diagnostics::{engine_report, ReportContext};
use lazy_mcp_core::engine::{Event, ServerState, Settings};
use serde_json::json;

const HOUR_MS: u64 = 3_600_000;

fn broken(behavior: Behavior) -> Sim {
    let mut fake = FakeServer::with_tools(&["t"]);
    fake.behavior = behavior;
    let mut sim = Sim::new(Settings::default()).fake("broken", fake);
    sim.apply(vec![config("broken")]);
    sim
}

fn retry_at(sim: &Sim) -> Option<u64> {
    match sim.state("broken") {
        Some(ServerState::Failed { retry_at_ms, .. }) => retry_at_ms,
        other => panic!("expected FAILED, got {other:?}"),
    }
}

fn failed_error(sim: &Sim) -> String {
    match sim.state("broken") {
        Some(ServerState::Failed { error, .. }) => error,
        other => panic!("expected FAILED, got {other:?}"),
    }
}

fn report(sim: &Sim) -> String {
    engine_report(
        &ReportContext {
            now_ms: Some(sim.now),
            ..ReportContext::default()
        },
        &sim.engine,
    )
}

#[test]
fn a_missing_command_is_retried_a_bounded_number_of_times_then_stays_failed() {
    let mut sim = broken(Behavior::SpawnFails);
    let mut delays = Vec::new();
    while let Some(at) = retry_at(&sim) {
        delays.push(at - sim.now);
        assert!(delays.len() <= 20, "retried forever: {delays:?}");
        sim.advance(at - sim.now);
    }
    assert_eq!(delays, vec![5_000, 10_000, 20_000, 40_000, 80_000]);
    assert_eq!(sim.opens(), 6, "the first attempt and 5 retries");
    let error = failed_error(&sim);
    assert!(
        error.contains("'broken'") && error.contains("gave up after 6 attempts"),
        "{error}"
    );
    assert!(error.contains("Connect Now"), "says what to do: {error}");

    sim.advance(24 * HOUR_MS);
    assert_eq!(sim.opens(), 6, "the backoff never starts over");
    assert_eq!(retry_at(&sim), None);
    assert_eq!(sim.engine.poll_timeout(), None, "no timer left");
}

#[test]
fn a_server_that_never_answers_initialize_is_spawned_six_times_in_an_hour_not_forever() {
    let mut sim = broken(Behavior::Hang);
    sim.advance(HOUR_MS);
    assert_eq!(sim.opens(), 6);
    assert!(sim.live.is_empty(), "no process left open");
    assert!(failed_error(&sim).contains("gave up after 6 attempts"));
    let states: Vec<String> = sim
        .effects
        .iter()
        .filter_map(|e| match e {
            lazy_mcp_core::engine::Effect::StateChanged { state, .. } => {
                Some(state.label().to_string())
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        states.iter().filter(|s| *s == "FAILED").count(),
        6,
        "{states:?}"
    );
    sim.advance(HOUR_MS);
    assert_eq!(sim.opens(), 6, "nothing more in the second hour");
}

#[test]
fn automatic_retries_run_in_the_background_user_cataloguing_does_not() {
    let mut sim = Sim::new(Settings::default());
    let mut hanging = FakeServer::with_tools(&["t"]);
    hanging.behavior = Behavior::Hang;
    sim.fakes.insert("broken".into(), hanging);
    sim.apply(vec![config("broken")]);
    let snap = sim.engine.snapshot();
    assert_eq!(sim.state("broken"), Some(ServerState::Cataloguing));
    assert!(
        !snap.servers[0].background,
        "the first cataloguing is shown"
    );
    assert_eq!(snap.totals.cataloguing_shown, 1);

    sim.advance(30_000); // handshake timeout
    let at = retry_at(&sim).unwrap();
    sim.advance(at - sim.now);
    assert_eq!(sim.state("broken"), Some(ServerState::Cataloguing));
    let snap = sim.engine.snapshot();
    assert!(snap.servers[0].background, "an automatic retry");
    assert_eq!(
        snap.totals.cataloguing_shown, 0,
        "hosts show no progress for it"
    );
    assert!(
        report(&sim).contains("(automatic retry after 1 failed attempt)"),
        "{}",
        report(&sim)
    );

    // The user refreshes it: the same kind of cataloguing, now in the foreground.
    sim.send(Event::RefreshCatalogue {
        server: Some("broken".into()),
        recatalogue: true,
    });
    let snap = sim.engine.snapshot();
    assert!(!snap.servers[0].background);
    assert_eq!(snap.totals.cataloguing_shown, 1);
}

#[test]
fn diagnostics_say_when_the_next_retry_is_and_when_it_gave_up() {
    let mut sim = broken(Behavior::SpawnFails);
    sim.advance(2_000);
    let text = report(&sim);
    assert!(text.contains("**FAILED (next retry in 3 s)**"), "{text}");
    let snap = sim.engine.snapshot();
    assert_eq!(snap.servers[0].failed_attempts, 1);
    sim.advance(HOUR_MS);
    let text = report(&sim);
    assert!(text.contains("gave up after 6 attempts"), "{text}");
    assert!(!text.contains("next retry in"), "{text}");
}

#[test]
fn connect_now_refresh_and_a_config_edit_retry_at_once() {
    let mut sim = broken(Behavior::SpawnFails);
    assert_eq!(sim.opens(), 1);
    assert!(retry_at(&sim).unwrap() > sim.now);

    sim.send(Event::ConnectNow {
        server: "broken".into(),
    });
    assert_eq!(
        sim.opens(),
        2,
        "Connect Now: at once, not at the retry time"
    );

    sim.send(Event::RefreshCatalogue {
        server: Some("broken".into()),
        recatalogue: true,
    });
    assert_eq!(sim.opens(), 3, "Refresh: at once");

    // An edit that keeps the launch fingerprint (a new timeout) …
    let mut edited = config("broken");
    edited.timeout_ms = Some(9_000);
    sim.apply(vec![edited.clone()]);
    assert_eq!(sim.opens(), 4, "editing its config: at once");
    // … and one that changes it.
    edited.fingerprint = "fp-broken-2".into();
    sim.apply(vec![edited]);
    assert_eq!(sim.opens(), 5);
    assert_eq!(
        retry_at(&sim),
        Some(sim.now + 5_000),
        "a config edit restarts the attempt count"
    );
}

#[test]
fn after_giving_up_a_user_action_still_tries_once_and_a_success_recovers() {
    let mut sim = broken(Behavior::SpawnFails);
    sim.advance(HOUR_MS);
    assert_eq!(sim.opens(), 6);
    sim.send(Event::ConnectNow {
        server: "broken".into(),
    });
    assert_eq!(sim.opens(), 7);
    assert_eq!(retry_at(&sim), None, "still no automatic retries");
    assert!(failed_error(&sim).contains("gave up after 7 attempts"));

    sim.fakes.get_mut("broken").unwrap().behavior = Behavior::Normal;
    sim.send(Event::RefreshCatalogue {
        server: Some("broken".into()),
        recatalogue: true,
    });
    assert_eq!(sim.state("broken"), Some(ServerState::Catalogued));
    assert_eq!(sim.engine.snapshot().servers[0].failed_attempts, 0);
}

#[test]
fn a_call_to_a_failed_server_waits_for_one_fresh_attempt() {
    let mut sim = broken(Behavior::SpawnFails);
    let opens = sim.opens();
    assert!(retry_at(&sim).unwrap() > sim.now);

    // It fails again: the call gets a clear error naming the server and the cause.
    sim.client("c", server_endpoint("broken"), call(1, "t"));
    assert_eq!(
        sim.opens(),
        opens + 1,
        "tried at once, not at the retry time"
    );
    let error = sim.reply_to("c", json!(1)).unwrap()["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        error.contains("'broken'") && error.contains("ENOENT"),
        "{error}"
    );
    assert!(matches!(
        sim.state("broken"),
        Some(ServerState::Failed { .. })
    ));

    // It works now: the waiting call is answered by the fresh attempt.
    sim.fakes.get_mut("broken").unwrap().behavior = Behavior::Normal;
    sim.client("c", server_endpoint("broken"), call(2, "t"));
    assert!(
        sim.reply_to("c", json!(2)).unwrap()["result"].is_object(),
        "{:?}",
        sim.reply_to("c", json!(2))
    );
    assert_eq!(sim.state("broken"), Some(ServerState::Connected));
}

#[test]
fn a_call_waits_at_most_the_handshake_timeout_for_a_server_that_hangs() {
    let mut fake = FakeServer::with_tools(&["t"]);
    fake.behavior = Behavior::Hang;
    let mut sim = Sim::new(Settings::default()).fake("broken", fake);
    let mut hanging = config("broken");
    hanging.timeout_ms = Some(5_000);
    sim.apply(vec![hanging]);
    sim.advance(5_000);
    assert!(retry_at(&sim).is_some());
    let opens = sim.opens();

    sim.client("c", server_endpoint("broken"), call(1, "t"));
    assert_eq!(sim.opens(), opens + 1);
    sim.advance(4_999);
    assert!(
        sim.reply_to("c", json!(1)).is_none(),
        "waiting for the attempt"
    );
    sim.advance(1);
    let error = sim.reply_to("c", json!(1)).unwrap()["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        error.contains("'broken'") && error.contains("initialize") && error.contains("5000 ms"),
        "{error}"
    );
}
