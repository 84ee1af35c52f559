//! What is said when a server fails, without an engine.

use super::{Announcements, FailureNotice};
use crate::engine::effects::AnnounceAction;
use crate::engine::state::ServerState;

const STEP: &str = " Check its definition (command, URL, env), then use Connect Now to try again.";

#[test]
fn an_awaited_action_that_fails_is_always_told_with_its_next_step() {
    let mut told = Announcements::default();
    told.awaits("a", "Connect Now");
    assert_eq!(
        told.failed("a", "spawn failed", false, true),
        Some(FailureNotice {
            message: format!("Connect Now failed: spawn failed.{STEP}"),
            actions: vec![
                AnnounceAction::OpenDefinition,
                AnnounceAction::ShowDiagnostics
            ],
        })
    );
    // The automatic retry that fails again says nothing more.
    assert_eq!(told.failed("a", "spawn failed", false, true), None);
    // Asked again: told again; a sign-in or an error that says what to do needs no step.
    told.awaits("a", "Enable");
    assert_eq!(
        told.failed("a", "401", true, true).map(|t| t.message),
        Some("Enable failed: 401.".to_string())
    );
    told.awaits("a", "Enable");
    assert_eq!(
        told.failed("a", "not found; check that it is installed", false, true)
            .map(|t| t.message),
        Some("Enable failed: not found; check that it is installed.".to_string())
    );
}

#[test]
fn a_server_that_worked_is_told_once_per_definition() {
    let mut told = Announcements::default();
    let error = "Could not connect to MCP server 'a': it exited";
    assert_eq!(
        told.failed("a", error, false, true).map(|t| t.message),
        Some(format!("MCP server 'a' stopped working: it exited.{STEP}"))
    );
    assert_eq!(told.failed("a", error, false, true), None);
    // A changed definition is a new server.
    told.forget("a");
    assert!(told.failed("a", error, false, true).is_some());
}

#[test]
fn first_cataloguing_failures_are_summarized_once_by_name() {
    let mut told = Announcements::default();
    assert_eq!(told.failed("b", "boom", false, false), None);
    assert!(told.has_batch());
    let none = |_: &str| -> Option<&ServerState> { None };
    assert_eq!(
        told.take_summary(none),
        Some((
            Some("b".to_string()),
            format!("MCP server 'b' could not be catalogued: boom.{STEP}")
        ))
    );
    assert!(told.take_summary(none).is_none());
    told.forget("b");
    told.failed("b", "boom", false, false);
    told.failed("a", "bang", false, false);
    assert_eq!(
        told.take_summary(none),
        Some((
            None,
            "2 MCP servers could not be catalogued: 'a', 'b'. MCP Diagnostics shows why."
                .to_string()
        ))
    );
    // A server now waiting for a sign-in needs no step.
    told.forget("c");
    told.failed("c", "boom", false, false);
    let signing_in = ServerState::NeedsAuth;
    assert_eq!(
        told.take_summary(|_| Some(&signing_in)).map(|s| s.1),
        Some("MCP server 'c' could not be catalogued: boom.".to_string())
    );
}

#[test]
fn a_settled_state_ends_the_wait_for_an_actions_outcome() {
    let mut told = Announcements::default();
    told.awaits("a", "Enable");
    told.settled("a", &ServerState::Connecting);
    assert!(told
        .failed("a", "x", false, true)
        .is_some_and(|t| t.message.starts_with("Enable failed")));
    told.forget("a");
    told.awaits("a", "Enable");
    told.settled("a", &ServerState::Connected);
    // Not awaited any more: a server that worked, told once.
    assert!(told
        .failed("a", "x", false, true)
        .is_some_and(|t| t.message.starts_with("MCP server 'a' stopped")));
}
