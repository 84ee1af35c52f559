//! A sign-in asked for by a call never outlives the call: when the call's
//! timeout passes (or the user cancels), the engine ends that sign-in
//! (`cancelSignIn`), so no listener, "signing in" state or ask is left behind
//! and a later Sign In starts afresh; the late end of the old sign-in changes
//! nothing. Also: tokens stored by another window or process, and the
//! resource metadata URL a challenge advertised (RFC 9728).
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
use lazy_mcp_core::engine::{Effect, Event, ServerState, Settings};
use serde_json::json;

fn signing_in(sim: &Sim) -> bool {
    sim.engine.snapshot().servers[0]
        .auth
        .clone()
        .unwrap()
        .signing_in
}

#[test]
fn an_ask_that_outlives_the_calls_timeout_is_ended_and_sign_in_works_again() {
    let mut sim = Sim::new(vscode()).fake("linear", FakeServer::with_tools(&["create_issue"]));
    sim.apply(vec![remote("linear")]);
    sim.client("c", server_endpoint("linear"), call(1, "create_issue"));
    assert_eq!(sign_in_effects(&sim).len(), 1);
    assert!(signing_in(&sim));
    let told_before = announcements(&sim).len();
    // Nobody answers the ask within the call's 120 s.
    sim.advance(121_000);
    let error = error_of(&sim.reply_to("c", json!(1)).unwrap());
    assert!(
        error.contains("no sign-in within the call's timeout"),
        "{error}"
    );
    assert_eq!(
        sim.oauth.cancels,
        vec![("linear".to_string(), 1)],
        "the host is told to end the sign-in"
    );
    assert!(!signing_in(&sim), "not shown as signing in any more");
    assert_eq!(sim.state("linear"), Some(ServerState::NeedsAuth));
    // The host's late "cancelled" for attempt 1 arrived (the sim sends it): no toast about it.
    assert_eq!(
        announcements(&sim).len(),
        told_before,
        "{:?}",
        announcements(&sim)
    );
    // Sign In now starts a new sign-in (it did nothing while the old one hung).
    sim.send(Event::SignIn {
        server: "linear".into(),
    });
    assert_eq!(sign_in_effects(&sim).len(), 2);
    assert_eq!(sim.oauth.attempts.get("linear"), Some(&2));
    // A stale end of attempt 1 does not end attempt 2.
    sim.finish_sign_in_attempt("linear", SignInOutcome::Failed, 1);
    sim.run();
    assert!(signing_in(&sim), "attempt 2 is still under way");
    sim.finish_sign_in("linear", SignInOutcome::Ok);
    sim.run();
    assert!(!signing_in(&sim));
    assert_eq!(sim.state("linear"), Some(ServerState::Catalogued));
}

#[test]
fn a_mid_session_ask_ends_when_the_refused_calls_own_timeout_passes() {
    let mut sim = with_scoped_tool(vscode());
    sim.client("c", server_endpoint("linear"), call(2, "admin_note"));
    assert!(signing_in(&sim));
    sim.advance(119_000);
    assert!(sim.reply_to("c", json!(2)).is_none(), "still waiting");
    sim.advance(2_000);
    let error = error_of(&sim.reply_to("c", json!(2)).unwrap());
    assert!(
        error.contains("needs you to sign in")
            && error.contains("no sign-in within the call's timeout"),
        "{error}"
    );
    assert_eq!(sim.oauth.cancels.len(), 1);
    assert!(!signing_in(&sim));
}

#[test]
fn cancel_on_the_progress_notification_ends_the_waiting_call_with_sign_in_cancelled() {
    let mut sim = Sim::new(vscode()).fake("linear", FakeServer::with_tools(&["create_issue"]));
    sim.apply(vec![remote("linear")]);
    sim.client("c", server_endpoint("linear"), call(1, "create_issue"));
    sim.send(Event::CancelSignIn {
        server: "linear".into(),
    });
    assert_eq!(sim.oauth.cancels, vec![("linear".to_string(), 1)]);
    let error = error_of(&sim.reply_to("c", json!(1)).unwrap());
    assert!(error.contains("sign-in cancelled"), "{error}");
    assert!(!signing_in(&sim));
    assert_eq!(sign_in_effects(&sim).len(), 1, "no second prompt");
}

#[test]
fn tokens_stored_by_another_process_are_ignored_while_this_one_signs_in_itself() {
    let mut sim = Sim::new(vscode()).fake("linear", FakeServer::with_tools(&["create_issue"]));
    sim.apply(vec![remote("linear")]);
    sim.send(Event::SignIn {
        server: "linear".into(),
    });
    sim.store_valid_token("linear");
    sim.send(Event::TokensAvailable {
        url: "http://127.0.0.1:9/linear/mcp".into(),
    });
    assert_eq!(
        sim.state("linear"),
        Some(ServerState::NeedsAuth),
        "its own sign-in's end decides"
    );
    sim.finish_sign_in("linear", SignInOutcome::Ok);
    sim.run();
    assert_eq!(sim.state("linear"), Some(ServerState::Catalogued));
    // Tokens of a server that needs no sign-in, or of another URL: nothing happens.
    let opens = sim.opens_of("linear");
    for url in [
        "http://127.0.0.1:9/linear/mcp",
        "http://127.0.0.1:9/other/mcp",
    ] {
        sim.send(Event::TokensAvailable { url: url.into() });
    }
    assert_eq!(sim.opens_of("linear"), opens);
}

fn binding_urls(sim: &Sim) -> Vec<(String, Option<String>)> {
    sim.effects
        .iter()
        .filter_map(|e| match e {
            Effect::StartSignIn { oauth, .. } => {
                Some(("startSignIn".into(), oauth.resource_metadata_url.clone()))
            }
            Effect::RefreshTokens { oauth, .. } => {
                Some(("refreshTokens".into(), oauth.resource_metadata_url.clone()))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn the_resource_metadata_url_of_a_401_reaches_sign_in_and_refresh_and_outlives_the_run() {
    let prm = "http://127.0.0.1/.well-known/oauth-protected-resource";
    let mut sim =
        Sim::new(Settings::default()).fake("linear", FakeServer::with_tools(&["create_issue"]));
    sim.apply(vec![remote("linear")]);
    assert_eq!(sim.state("linear"), Some(ServerState::NeedsAuth));
    sim.oauth.sign_in_answer = Some(SignInOutcome::Ok);
    sim.send(Event::SignIn {
        server: "linear".into(),
    });
    assert_eq!(sim.state("linear"), Some(ServerState::Catalogued));
    sim.client("c", server_endpoint("linear"), call(1, "create_issue"));
    sim.expire_token("linear");
    sim.client("c", server_endpoint("linear"), call(2, "create_issue"));
    assert!(sim.reply_to("c", json!(2)).unwrap()["result"].is_object());
    assert_eq!(
        binding_urls(&sim),
        vec![
            ("startSignIn".to_string(), Some(prm.to_string())),
            ("refreshTokens".to_string(), Some(prm.to_string()))
        ]
    );
    // The next run starts from the catalogue (no 401 seen yet): Sign In still knows the URL.
    let blob = sim.persisted.clone().unwrap();
    let mut next =
        Sim::new(Settings::default()).fake("linear", FakeServer::with_tools(&["create_issue"]));
    next.send(Event::CatalogueLoaded { blob });
    next.apply(vec![remote("linear")]);
    assert_eq!(next.state("linear"), Some(ServerState::Catalogued));
    next.send(Event::SignIn {
        server: "linear".into(),
    });
    assert_eq!(
        binding_urls(&next),
        vec![("startSignIn".to_string(), Some(prm.to_string()))]
    );
}

fn ui_refreshes(sim: &Sim) -> usize {
    sim.effects
        .iter()
        .filter(|e| matches!(e, Effect::StateChanged { server, .. } if server == "linear"))
        .count()
}

#[test]
fn a_sign_in_starting_or_ending_without_a_state_change_still_refreshes_the_ui() {
    let mut sim = Sim::new(vscode()).fake("linear", FakeServer::with_tools(&["create_issue"]));
    sim.apply(vec![remote("linear")]);
    assert_eq!(sim.state("linear"), Some(ServerState::NeedsAuth));
    let before = ui_refreshes(&sim);
    sim.send(Event::SignIn {
        server: "linear".into(),
    });
    assert!(signing_in(&sim));
    assert_eq!(ui_refreshes(&sim), before + 1, "'signing in' is shown");
    sim.send(Event::CancelSignIn {
        server: "linear".into(),
    });
    assert!(!signing_in(&sim));
    assert_eq!(sim.state("linear"), Some(ServerState::NeedsAuth));
    assert_eq!(
        ui_refreshes(&sim),
        before + 2,
        "the end is shown (the progress ends, the status bar offers the sign-in again)"
    );
}
