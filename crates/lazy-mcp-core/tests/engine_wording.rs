//! Wording a newcomer reads (issue 23, section 4): counts in the singular for
//! one, an exit code said once, a connection failure named once in the
//! catalogue summary, no "Check its definition" after a message that already
//! says what to do, sources named as MCP Diagnostics names them, and
//! `lazy-mcp auth login` neither told to run itself nor silent on success.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::oauth::*;
use engine_support::*;
use lazy_mcp_core::config::load::ConfigSources;
use lazy_mcp_core::config::DiscoveryInput;
use lazy_mcp_core::engine::auth::SignInOutcome;
use lazy_mcp_core::engine::{Effect, Event, LogLevel, ServerState, Settings};

/// Announcement messages since effect index `from`.
fn told(sim: &Sim, from: usize) -> Vec<String> {
    sim.effects[from..]
        .iter()
        .filter_map(|e| match e {
            Effect::Announce { message, .. } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

fn logged_at(sim: &Sim, level: LogLevel) -> Vec<String> {
    sim.effects
        .iter()
        .filter_map(|e| match e {
            Effect::Log {
                level: l, message, ..
            } if *l == level => Some(message.clone()),
            _ => None,
        })
        .collect()
}

/// A server whose process is opened, then ends as the host reports it.
fn ends_with(reason: &str, exit_code: Option<i32>, stderr: Option<&str>) -> Sim {
    let mut sim = Sim::new(Settings::default()).fake("crasher", FakeServer::with_tools(&["t"]));
    sim.hold_opens = true;
    sim.apply(vec![config("crasher")]);
    let conn = sim.held.pop().expect("an open");
    sim.live.remove(&conn);
    sim.send(Event::ConnectionClosed {
        conn,
        reason: reason.into(),
        exit_code,
        stderr_tail: stderr.map(str::to_string),
    });
    sim
}

#[test]
fn an_exit_code_the_hosts_reason_names_is_said_once() {
    let sim = ends_with(
        "server process \"node\" exited with code 3",
        Some(3),
        Some("boom"),
    );
    let Some(ServerState::Failed { error, .. }) = sim.state("crasher") else {
        panic!("expected FAILED: {:?}", sim.state("crasher"));
    };
    assert_eq!(error.matches("code 3").count(), 1, "{error}");
    assert!(!error.contains("(exit code 3)"), "{error}");
    // A reason that does not name it still gets it.
    let sim = ends_with("the connection closed", Some(3), None);
    let Some(ServerState::Failed { error, .. }) = sim.state("crasher") else {
        panic!("expected FAILED");
    };
    assert!(error.contains("(exit code 3)"), "{error}");
}

#[test]
fn the_catalogue_summary_names_the_server_and_the_failure_once() {
    let sim = ends_with(
        "server process \"node\" exited with code 3",
        Some(3),
        Some("boom"),
    );
    let said = told(&sim, 0);
    assert_eq!(said.len(), 1, "{said:?}");
    let message = &said[0];
    assert_eq!(
        message,
        "MCP server 'crasher' could not be catalogued: server process \"node\" exited with code 3; \
         stderr: boom. Check its definition (command, URL, env), then use Connect Now to try again.",
    );
    assert_eq!(message.to_lowercase().matches("could not").count(), 1);
}

#[test]
fn no_generic_next_step_after_a_message_that_says_what_to_do() {
    let sim = ends_with(
        "cannot start nosuch-mcp: command not found (ENOENT); check that it is installed and on PATH, or use an absolute path",
        None,
        None,
    );
    let said = told(&sim, 0);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("check that it is installed"), "{said:?}");
    assert!(!said[0].contains("Check its definition"), "{said:?}");
    // The server's own stderr saying "check" is not Lazy MCP's advice.
    let sim = ends_with(
        "server process \"node\" exited with code 1",
        Some(1),
        Some("please check your input"),
    );
    assert!(
        told(&sim, 0)[0].contains("Check its definition"),
        "{:?}",
        told(&sim, 0)
    );
}

#[test]
fn counts_of_one_are_singular_in_the_log_and_the_summary() {
    let mut failing = FakeServer::with_tools(&["t"]);
    failing.behavior = Behavior::SpawnFails;
    let mut sim = Sim::new(Settings::default())
        .fake("one", FakeServer::with_tools(&["only_tool"]))
        .fake("broken", failing);
    sim.apply(vec![config("one"), config("broken")]);
    let logs = sim.logs();
    assert!(
        logs.iter()
            .any(|l| l
                == "catalogued: 1 tool, 0 prompts, 0 resources, 0 resource templates; stopped"),
        "{logs:?}"
    );
    assert!(!logs.iter().any(|l| l.contains("1 tools")), "{logs:?}");
    let snapshot = sim.engine.snapshot();
    assert_eq!(
        snapshot.summary,
        "0 connected · 1 catalogued only · 1 failed"
    );
}

#[test]
fn a_servers_source_is_named_as_diagnostics_names_it() {
    let mut sim = Sim::new(Settings::default()).fake("s", FakeServer::with_tools(&["t"]));
    sim.send(Event::ConfigSources {
        sources: ConfigSources {
            discovery: DiscoveryInput {
                home: "/home/me".into(),
                workspace_folders: vec!["/work/project".into()],
                ..DiscoveryInput::default()
            },
            explicit_files: vec![],
            policy: Default::default(),
            approved_definitions_file: None,
        },
    });
    let mut user = config("u");
    user.source.file = "/home/me/.copilot/mcp-config.json".into();
    user.source.line = 4;
    let mut elsewhere = config("e");
    elsewhere.source.file = "/etc/mcp.json".into();
    sim.apply(vec![config("s"), user, elsewhere]);
    let labels: Vec<(String, String)> = sim
        .engine
        .snapshot()
        .servers
        .into_iter()
        .map(|s| (s.name, s.source_label))
        .collect();
    assert_eq!(
        labels,
        vec![
            ("e".to_string(), "/etc/mcp.json:3".to_string()),
            ("s".to_string(), ".mcp.json:3".to_string()),
            ("u".to_string(), "~/.copilot/mcp-config.json:4".to_string()),
        ]
    );
}

/// `lazy-mcp auth login linear` right after start: the sign-in it asked for is
/// not announced as needed, and its success is logged.
#[test]
fn sign_in_asked_for_during_cataloguing_is_not_told_to_sign_in_and_logs_its_success() {
    let mut sim = Sim::new(Settings::default()).fake("linear", FakeServer::with_tools(&["a"]));
    sim.hold_opens = true;
    sim.apply(vec![remote("linear")]);
    assert_eq!(sim.state("linear"), Some(ServerState::Cataloguing));
    sim.send(Event::SignIn {
        server: "linear".into(),
    });
    assert!(
        sign_in_effects(&sim).is_empty(),
        "waits for the server's challenge"
    );
    sim.hold_opens = false;
    sim.release_opens();
    assert_eq!(sign_in_effects(&sim).len(), 1, "then signs in");
    sim.finish_sign_in("linear", SignInOutcome::Ok);
    sim.run();
    assert_eq!(sim.state("linear"), Some(ServerState::Catalogued));
    assert!(told(&sim, 0).is_empty(), "{:?}", told(&sim, 0));
    let warnings = logged_at(&sim, LogLevel::Warn);
    assert!(
        !warnings.iter().any(|w| w.contains("auth login")),
        "{warnings:?}"
    );
    assert!(
        logged_at(&sim, LogLevel::Info).contains(&"Signed in to 'linear'".to_string()),
        "{:?}",
        sim.logs()
    );
}

#[test]
fn a_sign_in_asked_for_when_cataloguing_succeeds_anyway_still_starts() {
    let mut sim = Sim::new(Settings::default()).fake("linear", FakeServer::with_tools(&["a"]));
    sim.store_valid_token("linear");
    sim.hold_opens = true;
    sim.apply(vec![remote("linear")]);
    sim.send(Event::SignIn {
        server: "linear".into(),
    });
    sim.hold_opens = false;
    sim.release_opens();
    assert_eq!(sim.state("linear"), Some(ServerState::Catalogued));
    assert_eq!(sign_in_effects(&sim).len(), 1);
}
