//! A 403 `insufficient_scope` (step-up): the engine asks for a sign-in with
//! the scopes the challenge named (never a refresh, which cannot add scopes),
//! has the host keep them, resumes the refused call with the new token, and
//! never asks twice for the same connection when the authorization server
//! did not grant them.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::oauth::*;
use engine_support::*;
use lazy_mcp_core::engine::auth::SignInOutcome;
use lazy_mcp_core::engine::{Effect, ServerState, Settings};
use serde_json::json;

fn step_up_scopes(sim: &Sim) -> Vec<Option<String>> {
    sim.effects
        .iter()
        .filter_map(|e| match e {
            Effect::StartSignIn { scope, .. } => Some(scope.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn in_vscode_the_refused_call_asks_once_for_the_scope_and_returns_its_real_result() {
    let mut sim = with_scoped_tool(vscode());
    sim.client("c", server_endpoint("linear"), call(2, "admin_note"));
    assert!(sim.reply_to("c", json!(2)).is_none(), "the call waits");
    assert_eq!(step_up_scopes(&sim), vec![Some("mcp:admin".to_string())]);
    assert_eq!(
        sign_in_effects(&sim),
        vec![("linear".to_string(), Some("admin_note".to_string()))],
        "the ask names the tool of the refused call"
    );
    assert_eq!(sim.oauth.refreshes, 0, "a refresh cannot add scopes");
    assert_eq!(
        sim.oauth.required_scopes.get("linear").map(String::as_str),
        Some("mcp:admin"),
        "the host is told to keep the scope"
    );
    sim.finish_sign_in("linear", SignInOutcome::Ok);
    sim.run();
    assert_eq!(
        text_of(&sim.reply_to("c", json!(2)).unwrap()),
        r#"linear:admin_note:{"text":"hi"}"#
    );
    assert_eq!(sim.oauth.sign_ins, 1);
    assert_eq!(sim.state("linear"), Some(ServerState::Connected));
    // The stepped-up token serves later calls of that tool without asking.
    sim.client("c", server_endpoint("linear"), call(3, "admin_note"));
    assert!(sim.reply_to("c", json!(3)).unwrap()["result"].is_object());
    assert_eq!(sim.oauth.sign_ins, 1);
}

#[test]
fn when_the_step_up_does_not_grant_the_scope_the_call_fails_instead_of_asking_again() {
    let mut sim = with_scoped_tool(vscode());
    sim.oauth.grants_asked_scope = false;
    sim.client("c", server_endpoint("linear"), call(2, "admin_note"));
    sim.finish_sign_in("linear", SignInOutcome::Ok);
    sim.run();
    let error = error_of(&sim.reply_to("c", json!(2)).unwrap());
    assert!(
        error.contains("did not grant the permissions it needs (insufficient scope: mcp:admin)"),
        "{error}"
    );
    assert_eq!(sim.oauth.sign_ins, 1, "no second sign-in: no loop");
    assert_eq!(sim.oauth.refreshes, 0);
    // The server's other tools keep working.
    sim.client("c", server_endpoint("linear"), call(4, "create_issue"));
    assert!(sim.reply_to("c", json!(4)).unwrap()["result"].is_object());
}

#[test]
fn from_the_cli_gateway_the_call_fails_at_once_and_the_scope_is_kept_for_auth_login() {
    let mut sim = with_scoped_tool(Settings::default());
    sim.client("c", server_endpoint("linear"), call(2, "admin_note"));
    let error = error_of(&sim.reply_to("c", json!(2)).unwrap());
    assert!(
        error.contains("it needs more permissions (insufficient scope)")
            && error.contains("lazy-mcp auth login linear"),
        "{error}"
    );
    assert!(
        step_up_scopes(&sim).is_empty(),
        "no sign-in from the CLI gateway"
    );
    assert_eq!(
        sim.oauth.required_scopes.get("linear").map(String::as_str),
        Some("mcp:admin")
    );
    assert_eq!(sim.oauth.refreshes, 0);
}
