//! What the user is told (issue 12, defects 3, 4, 6, 9): every user action ends
//! with a visible outcome, failures after having worked are announced once,
//! startup cataloguing failures are summarized once, NEEDS AUTH says what is
//! true, a refresh restarts the cache age, Enable/Disable are logged, and the
//! totals count what the status bar shows.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::engine::{AnnounceAction, Effect, Event, LogLevel, ServerState, Settings};
use serde_json::json;

/// Announcements since effect index `from`: (server, message, actions).
fn announced(sim: &Sim, from: usize) -> Vec<(Option<String>, String, Vec<AnnounceAction>)> {
    sim.effects[from..]
        .iter()
        .filter_map(|e| match e {
            Effect::Announce {
                server,
                message,
                actions,
                ..
            } => Some((server.clone(), message.clone(), actions.clone())),
            _ => None,
        })
        .collect()
}

fn failing(behavior: Behavior) -> FakeServer {
    let mut fake = FakeServer::with_tools(&["t"]);
    fake.behavior = behavior;
    fake
}

fn catalogued(names: &[&str]) -> Sim {
    let mut sim = Sim::new(Settings::default());
    for name in names {
        sim.fakes
            .insert((*name).into(), FakeServer::with_tools(&["echo"]));
    }
    sim.apply(names.iter().map(|n| config(n)).collect());
    sim
}

#[test]
fn the_failures_announcement_names_servers_alphabetically_whatever_failed_first() {
    // "zeta" fails at once, "alpha" only when its handshake times out.
    let mut sim = Sim::new(Settings::default())
        .fake("zeta", failing(Behavior::SpawnFails))
        .fake("alpha", failing(Behavior::Hang));
    sim.apply(vec![config("zeta"), config("alpha")]);
    sim.advance(31_000);
    let all = announced(&sim, 0);
    assert_eq!(all.len(), 1, "{all:?}");
    assert!(all[0].1.contains("'alpha', 'zeta'"), "{}", all[0].1);
}

#[test]
fn startup_cataloguing_failures_are_one_announcement_naming_each_server() {
    let mut sim = Sim::new(Settings::default())
        .fake("good", FakeServer::with_tools(&["t"]))
        .fake("broken", failing(Behavior::SpawnFails))
        .fake("hung", failing(Behavior::Hang));
    sim.apply(vec![config("good"), config("broken"), config("hung")]);
    // "broken" failed at once, but "hung" is still cataloguing: nothing yet.
    assert!(announced(&sim, 0).is_empty(), "{:?}", announced(&sim, 0));
    sim.advance(31_000);
    let all = announced(&sim, 0);
    assert_eq!(all.len(), 1, "{all:?}");
    let (server, message, actions) = &all[0];
    assert_eq!(server, &None);
    assert!(
        message.starts_with("2 MCP servers could not be catalogued"),
        "{message}"
    );
    assert!(
        message.contains("'broken'") && message.contains("'hung'"),
        "{message}"
    );
    assert_eq!(actions, &vec![AnnounceAction::ShowDiagnostics]);
    // Automatic retries that fail again say nothing more.
    let from = sim.effects.len();
    sim.advance(600_000);
    assert!(
        announced(&sim, from).is_empty(),
        "{:?}",
        announced(&sim, from)
    );
}

#[test]
fn a_changed_definition_that_still_fails_is_told_again_once() {
    let mut sim = Sim::new(Settings::default()).fake("broken", failing(Behavior::SpawnFails));
    sim.apply(vec![config("broken")]);
    assert_eq!(announced(&sim, 0).len(), 1);
    let mut edited = config("broken");
    edited.fingerprint = "fp-broken-2".into();
    let from = sim.effects.len();
    sim.apply(vec![edited]);
    let said = announced(&sim, from);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0]
            .1
            .starts_with("MCP server 'broken' could not be catalogued: "),
        "{}",
        said[0].1
    );
    // The same definition failing on its automatic retries stays quiet.
    let from = sim.effects.len();
    sim.advance(600_000);
    assert!(announced(&sim, from).is_empty());
}

#[test]
fn connect_now_on_a_failed_server_says_why_it_failed_again_and_what_to_do() {
    let mut sim = Sim::new(Settings::default()).fake("broken", failing(Behavior::SpawnFails));
    sim.apply(vec![config("broken")]);
    assert!(matches!(
        sim.state("broken"),
        Some(ServerState::Failed { .. })
    ));
    let from = sim.effects.len();
    sim.send(Event::ConnectNow {
        server: "broken".into(),
    });
    assert!(matches!(
        sim.state("broken"),
        Some(ServerState::Failed { .. })
    ));
    let said = announced(&sim, from);
    assert_eq!(said.len(), 1, "{said:?}");
    let (server, message, actions) = &said[0];
    assert_eq!(server.as_deref(), Some("broken"));
    assert!(message.starts_with("Connect Now failed: "), "{message}");
    assert!(message.contains("'broken'"), "{message}");
    assert!(message.contains("Check its definition"), "{message}");
    assert!(actions.contains(&AnnounceAction::ShowDiagnostics));
    assert!(actions.contains(&AnnounceAction::OpenDefinition));
    // Every time the user asks, they hear back.
    let from = sim.effects.len();
    sim.send(Event::ConnectNow {
        server: "broken".into(),
    });
    assert_eq!(announced(&sim, from).len(), 1);
}

#[test]
fn actions_that_cannot_be_done_say_so() {
    let mut sim = catalogued(&["a"]);
    let cases = [
        (
            Event::Disconnect { server: "a".into() },
            "is not connected (CATALOGUED ONLY)",
        ),
        (Event::Enable { server: "a".into() }, "is already enabled"),
        (
            Event::ConnectNow {
                server: "nope".into(),
            },
            "no server named 'nope'",
        ),
    ];
    for (event, expected) in cases {
        let from = sim.effects.len();
        sim.send(event.clone());
        let said = announced(&sim, from);
        assert_eq!(said.len(), 1, "{event:?}: {said:?}");
        assert!(said[0].1.contains(expected), "{event:?}: {}", said[0].1);
    }
    sim.send(Event::Disable { server: "a".into() });
    let from = sim.effects.len();
    sim.send(Event::ConnectNow { server: "a".into() });
    let said = announced(&sim, from);
    assert!(
        said[0].1.contains("it is DISABLED. Enable it first"),
        "{said:?}"
    );
    // The successful actions show their outcome as a state instead.
    let from = sim.effects.len();
    sim.send(Event::Enable { server: "a".into() });
    sim.send(Event::ConnectNow { server: "a".into() });
    assert_eq!(sim.state("a"), Some(ServerState::Connected));
    assert!(
        announced(&sim, from).is_empty(),
        "{:?}",
        announced(&sim, from)
    );
}

#[test]
fn a_server_that_fails_after_having_worked_is_announced_once_per_session() {
    let mut sim = catalogued(&["flaky"]);
    sim.fakes.get_mut("flaky").unwrap().behavior = Behavior::CrashOnCall;
    let from = sim.effects.len();
    for id in 1..=6 {
        sim.client("c", server_endpoint("flaky"), call(id, "echo"));
        sim.advance(60_000);
    }
    let said = announced(&sim, from);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0]
            .1
            .starts_with("MCP server 'flaky' stopped working: "),
        "{}",
        said[0].1
    );
    assert_eq!(said[0].2, vec![AnnounceAction::ShowDiagnostics]);
}

#[test]
fn needs_auth_says_what_is_true_and_how_to_configure_a_token() {
    let mut sim = Sim::new(Settings::default()).fake("remote", failing(Behavior::Unauthorized));
    sim.apply(vec![config("remote")]);
    assert_eq!(sim.state("remote"), Some(ServerState::NeedsAuth));
    let snapshot = sim.engine.snapshot();
    let error = snapshot.servers[0].last_error.clone().unwrap();
    assert!(!error.contains("sign in\""), "{error}");
    assert!(
        !error.to_lowercase().contains("to sign in"),
        "no promise of a sign-in flow: {error}"
    );
    assert!(
        error.contains("requires authentication (HTTP 401)"),
        "{error}"
    );
    assert!(
        error.contains(r#""headers": {"Authorization": "Bearer ${input:token}"}"#),
        "{error}"
    );
    let from = sim.effects.len();
    sim.send(Event::ConnectNow {
        server: "remote".into(),
    });
    let said = announced(&sim, from);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].1.starts_with("Connect Now failed: "),
        "{}",
        said[0].1
    );
    assert!(said[0].1.contains("Authorization"), "{}", said[0].1);
}

#[test]
fn a_refresh_restarts_the_cache_age_even_when_nothing_changed() {
    let mut sim = catalogued(&["a"]);
    sim.advance(24 * 60_000);
    sim.send(Event::Disable { server: "b".into() }); // any event: the engine's clock moves
    let age = |sim: &Sim| sim.engine.snapshot().servers[0].cache_age_ms.unwrap();
    assert!(age(&sim) >= 24 * 60_000);
    sim.send(Event::RefreshCatalogue {
        server: Some("a".into()),
        recatalogue: true,
    });
    assert_eq!(sim.state("a"), Some(ServerState::Catalogued));
    assert_eq!(age(&sim), 0);
    // And it is persisted, so a restart shows it too.
    let blob: serde_json::Value = serde_json::from_str(sim.persisted.as_ref().unwrap()).unwrap();
    assert_eq!(blob["entries"]["a"]["cataloguedAtMs"], json!(sim.now));
}

#[test]
fn enable_and_disable_are_logged() {
    let mut sim = catalogued(&["a"]);
    sim.send(Event::Disable { server: "a".into() });
    sim.send(Event::Enable { server: "a".into() });
    let logs: Vec<(LogLevel, String)> = sim
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Log {
                level,
                server: Some(server),
                message,
            } if server == "a" => Some((*level, message.clone())),
            _ => None,
        })
        .collect();
    assert!(
        logs.contains(&(
            LogLevel::Info,
            "disabled by the user (for this session)".into()
        )),
        "{logs:?}"
    );
    assert!(
        logs.contains(&(
            LogLevel::Info,
            "enabled by the user (for this session)".into()
        )),
        "{logs:?}"
    );
}

#[test]
fn totals_count_enabled_servers_and_the_summary_names_every_non_empty_state() {
    let mut sim = catalogued(&["a", "b", "c", "d"]);
    sim.send(Event::Disable { server: "d".into() });
    let snapshot = sim.engine.snapshot();
    assert_eq!(snapshot.totals.servers, 4);
    assert_eq!(
        snapshot.totals.enabled, 3,
        "a disabled server is not counted as one that could run"
    );
    assert_eq!(
        snapshot.summary,
        "0 connected · 3 catalogued only · 1 disabled"
    );
}

/// Issue 23: a disabled server showed "DISABLED · 0 tools" and offered Refresh, which
/// does nothing there (and on a dormant one contradicts "never started until enabled");
/// Refresh Catalogue's "All servers" counted it too.
#[test]
fn an_off_server_keeps_its_catalogued_tool_count_and_offers_no_refresh() {
    let mut sim = Sim::new(Settings::default()).fake(
        "nine",
        FakeServer::with_tools(&["a", "b", "c", "d", "e", "f", "g", "h", "i"]),
    );
    sim.fakes
        .insert("one".into(), FakeServer::with_tools(&["x"]));
    sim.apply(vec![config("nine"), config("one")]);
    assert_eq!(sim.state("nine"), Some(ServerState::Catalogued));
    let row = |sim: &Sim, name: &str| {
        sim.engine
            .snapshot()
            .servers
            .into_iter()
            .find(|s| s.name == name)
            .unwrap()
    };
    assert_eq!(row(&sim, "nine").tools_text, "9 tools");
    assert_eq!(row(&sim, "one").tools_text, "1 tool");

    sim.send(Event::Disable {
        server: "nine".into(),
    });
    assert_eq!(sim.state("nine"), Some(ServerState::Disabled));
    let nine = row(&sim, "nine");
    assert_eq!(nine.tools, 0, "withdrawn from clients");
    assert_eq!(nine.catalogued_tools, 9);
    assert_eq!(nine.tools_text, "9 tools catalogued");
    assert!(
        !nine
            .actions
            .contains(&lazy_mcp_core::engine::server_actions::ServerAction::Refresh),
        "{:?}",
        nine.actions
    );
    // What "All servers" offers: exactly the servers a refresh of all re-catalogues.
    let offered: Vec<String> = sim
        .engine
        .snapshot()
        .servers
        .into_iter()
        .filter(|s| {
            s.actions
                .contains(&lazy_mcp_core::engine::server_actions::ServerAction::Refresh)
        })
        .map(|s| s.name)
        .collect();
    let opens = sim.opens();
    sim.send(Event::RefreshCatalogue {
        server: None,
        recatalogue: true,
    });
    sim.run();
    assert_eq!(offered, ["one"]);
    assert_eq!(
        sim.opens() - opens,
        offered.len(),
        "one spawn per offered server"
    );
    assert_eq!(sim.state("nine"), Some(ServerState::Disabled));
}
