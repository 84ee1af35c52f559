//! Remote servers behind OAuth: the engine's decisions, driven through the
//! simulated host (token store, 401s with held requests, refresh and sign-in
//! effects answered as scripted). What a user would notice: no prompt while
//! cataloguing, one refresh for many calls, no prompt loop after a revoked
//! refresh token, the CLI failing fast with the command to run.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::oauth::*;
use engine_support::*;
use lazy_mcp_core::config::model::Transport;
use lazy_mcp_core::engine::auth::SignInOutcome;
use lazy_mcp_core::engine::{AnnounceAction, Effect, Event, ServerState, Settings};
use serde_json::json;

#[test]
fn cataloguing_without_tokens_opens_nothing_and_announces_all_servers_once() {
    let mut sim = Sim::new(vscode())
        .fake("linear", FakeServer::with_tools(&["create_issue"]))
        .fake("notion", FakeServer::with_tools(&["search"]))
        .fake("local", FakeServer::with_tools(&["echo"]));
    let mut linear = remote("linear");
    linear.tools = lazy_mcp_core::config::model::ToolFilter::Only(vec!["create_issue".into()]);
    sim.apply(vec![linear.clone(), remote("notion"), config("local")]);
    assert_eq!(sim.state("linear"), Some(ServerState::NeedsAuth));
    assert_eq!(sim.state("notion"), Some(ServerState::NeedsAuth));
    assert_eq!(sim.state("local"), Some(ServerState::Catalogued));
    assert!(
        sign_in_effects(&sim).is_empty(),
        "cataloguing never starts a sign-in"
    );
    assert_eq!(sim.oauth.refreshes, 0);
    let told = announcements(&sim);
    assert_eq!(told.len(), 1, "one announcement for all servers: {told:?}");
    assert!(told[0].0.contains("'linear'") && told[0].0.contains("'notion'"));
    assert_eq!(
        told[0].1,
        vec![AnnounceAction::SignIn, AnnounceAction::NotNow]
    );
    assert_eq!(told[0].2, vec!["linear".to_string(), "notion".to_string()]);
    // Declared tools stay exposed as stubs.
    let snapshot = sim.engine.snapshot();
    let linear_diag = snapshot
        .servers
        .iter()
        .find(|s| s.name == "linear")
        .unwrap();
    assert_eq!(linear_diag.tools, 1);
    let auth = linear_diag.auth.clone().unwrap();
    assert!(auth.needs_sign_in);
    assert_eq!(auth.reason.as_deref(), Some("not signed in"));
    assert!(auth.next_step.unwrap().contains("Sign In"));
    assert!(snapshot
        .servers
        .iter()
        .find(|s| s.name == "local")
        .unwrap()
        .auth
        .is_none());

    // A reload of the same config and a "Not now" announce nothing more.
    sim.send(Event::DismissSignIn {
        servers: vec!["linear".into(), "notion".into()],
    });
    sim.send(Event::RefreshCatalogue {
        server: None,
        recatalogue: true,
    });
    assert_eq!(sim.state("linear"), Some(ServerState::NeedsAuth));
    assert_eq!(announcements(&sim).len(), 1);
    assert!(sign_in_effects(&sim).is_empty());
}

/// Issue 23: the NEEDS AUTH "last error" in MCP Diagnostics was a long sentence
/// telling the user to open MCP Diagnostics, shown inside MCP Diagnostics.
#[test]
fn diagnostics_says_to_use_the_rows_sign_in_link_not_to_open_diagnostics() {
    let mut sim = Sim::new(vscode()).fake("linear", FakeServer::with_tools(&["t"]));
    sim.apply(vec![remote("linear")]);
    assert_eq!(sim.state("linear"), Some(ServerState::NeedsAuth));
    let context = lazy_mcp_core::diagnostics::ReportContext {
        links: true,
        ..Default::default()
    };
    let report = lazy_mcp_core::diagnostics::engine_report(&context, &sim.engine);
    let row = report
        .lines()
        .find(|l| l.starts_with("| linear |") && l.contains("NEEDS AUTH"))
        .unwrap();
    assert!(!row.contains("MCP Diagnostics"), "{row}");
    assert!(
        row.contains("| not signed in: use Sign in in this row |"),
        "{row}"
    );
    assert!(row.contains("(lazy-mcp://sign-in?server=linear)"), "{row}");
}

#[test]
fn static_authorization_headers_never_start_oauth() {
    let mut fake = FakeServer::with_tools(&["x"]);
    fake.behavior = Behavior::Unauthorized;
    let mut sim = Sim::new(vscode()).fake("static", fake);
    let mut server = remote("static");
    if let Transport::Http { headers, .. } = &mut server.transport {
        headers.insert("authorization".into(), "Bearer configured".into());
    }
    sim.apply(vec![server]);
    assert!(sim
        .effects
        .iter()
        .all(|e| !matches!(e, Effect::Open { oauth: Some(_), .. })));
    assert_eq!(sim.state("static"), Some(ServerState::NeedsAuth));
    sim.client("c", server_endpoint("static"), call(1, "x"));
    assert!(sign_in_effects(&sim).is_empty());
    assert_eq!(sim.oauth.refreshes, 0);
    assert!(sim.engine.snapshot().servers[0].auth.is_none());
}

#[test]
fn the_cli_gateway_fails_at_once_naming_the_login_command() {
    let mut sim =
        Sim::new(Settings::default()).fake("linear", FakeServer::with_tools(&["create_issue"]));
    sim.apply(vec![remote("linear")]);
    assert_eq!(sim.state("linear"), Some(ServerState::NeedsAuth));
    let told = announcements(&sim);
    assert!(
        told[0].0.contains("run `lazy-mcp auth login linear`"),
        "{told:?}"
    );
    let before = sim.now;
    sim.client("c", server_endpoint("linear"), call(7, "create_issue"));
    let error = error_of(&sim.reply_to("c", json!(7)).expect("answered at once"));
    assert_eq!(sim.now, before, "no waiting");
    assert!(
        error.contains("needs you to sign in (not signed in): run `lazy-mcp auth login linear`"),
        "{error}"
    );
    assert!(sign_in_effects(&sim).is_empty());
    assert_eq!(sim.state("linear"), Some(ServerState::NeedsAuth));
}

#[test]
fn in_vscode_a_call_waits_for_the_sign_in_it_asks_for_and_gets_its_real_result() {
    let mut sim = Sim::new(vscode()).fake("linear", FakeServer::with_tools(&["create_issue"]));
    sim.apply(vec![remote("linear")]);
    sim.client("c", server_endpoint("linear"), call(1, "create_issue"));
    assert_eq!(
        sign_in_effects(&sim),
        vec![("linear".to_string(), Some("create_issue".to_string()))]
    );
    assert!(sim.reply_to("c", json!(1)).is_none(), "the call waits");
    // The user takes 60 s (longer than the 30 s handshake bound) to sign in.
    sim.advance(60_000);
    assert!(sim.reply_to("c", json!(1)).is_none(), "still waiting");
    sim.finish_sign_in("linear", SignInOutcome::Ok);
    sim.run();
    assert_eq!(
        text_of(&sim.reply_to("c", json!(1)).unwrap()),
        r#"linear:create_issue:{"text":"hi"}"#
    );
    assert_eq!(sim.state("linear"), Some(ServerState::Connected));
    assert!(
        !sim.engine.snapshot().servers[0]
            .auth
            .clone()
            .unwrap()
            .needs_sign_in
    );
}

#[test]
fn a_waiting_call_ends_with_how_to_sign_in_when_nobody_signs_in_within_its_timeout() {
    let mut sim = Sim::new(vscode()).fake("linear", FakeServer::with_tools(&["create_issue"]));
    sim.apply(vec![remote("linear")]);
    sim.client("c", server_endpoint("linear"), call(1, "create_issue"));
    sim.advance(119_000);
    assert!(sim.reply_to("c", json!(1)).is_none());
    sim.advance(2_000);
    let error = error_of(&sim.reply_to("c", json!(1)).unwrap());
    assert!(
        error.contains("no sign-in within the call's timeout"),
        "{error}"
    );
    assert!(error.contains("Sign In"), "{error}");
    assert_eq!(sim.state("linear"), Some(ServerState::NeedsAuth));
    assert_eq!(sign_in_effects(&sim).len(), 1);
}

#[test]
fn a_cancelled_sign_in_ends_the_waiting_call_with_sign_in_cancelled() {
    let mut sim = Sim::new(vscode()).fake("linear", FakeServer::with_tools(&["create_issue"]));
    sim.oauth.sign_in_answer = Some(SignInOutcome::Cancelled);
    sim.apply(vec![remote("linear")]);
    sim.client("c", server_endpoint("linear"), call(1, "create_issue"));
    let error = error_of(&sim.reply_to("c", json!(1)).unwrap());
    assert!(error.contains("sign-in cancelled"), "{error}");
    assert_eq!(sim.state("linear"), Some(ServerState::NeedsAuth));
    assert_eq!(sign_in_effects(&sim).len(), 1, "no second prompt");
    assert!(sim.live.is_empty(), "connection closed");
}

#[test]
fn concurrent_calls_after_expiry_share_one_silent_refresh() {
    for settings in [Settings::default(), vscode()] {
        let mut sim = connected(settings);
        sim.expire_token("linear");
        sim.oauth.refresh_answer = Answer::Later;
        for id in 10..15 {
            sim.client_queued("c", server_endpoint("linear"), call(id, "create_issue"));
        }
        sim.run();
        assert_eq!(sim.oauth.refreshes, 1, "single flight");
        assert!(
            sim.reply_to("c", json!(10)).is_none(),
            "calls wait on the refresh"
        );
        sim.finish_refresh("linear", true);
        sim.run();
        for id in 10..15 {
            assert_eq!(
                text_of(&sim.reply_to("c", json!(id)).unwrap()),
                r#"linear:create_issue:{"text":"hi"}"#
            );
        }
        assert_eq!(sim.oauth.refreshes, 1);
        assert!(
            sign_in_effects(&sim).is_empty(),
            "no prompt while a refresh works"
        );
        assert_eq!(sim.state("linear"), Some(ServerState::Connected));
        // Hours later it expires again: refreshed again, silently.
        sim.expire_token("linear");
        sim.oauth.refresh_answer = Answer::Now(true);
        sim.client("c", server_endpoint("linear"), call(20, "create_issue"));
        assert!(sim.reply_to("c", json!(20)).unwrap()["result"].is_object());
        assert_eq!(sim.oauth.refreshes, 2);
        assert!(sign_in_effects(&sim).is_empty());
    }
}

#[test]
fn an_expired_token_is_refreshed_while_cataloguing_without_any_prompt() {
    let mut sim = Sim::new(vscode()).fake("linear", FakeServer::with_tools(&["create_issue"]));
    sim.store_valid_token("linear");
    sim.expire_token("linear");
    sim.apply(vec![remote("linear")]);
    assert_eq!(sim.state("linear"), Some(ServerState::Catalogued));
    assert_eq!(sim.oauth.refreshes, 1);
    assert!(sign_in_effects(&sim).is_empty());
    assert!(
        sim.persisted.is_some(),
        "catalogue persisted as for any server"
    );
}

#[test]
fn a_revoked_refresh_token_deletes_the_tokens_and_never_loops_prompts() {
    // CLI: a clear error, then `auth login` signs in and the next call works.
    let mut sim = connected(Settings::default());
    sim.expire_token("linear");
    sim.oauth.revoked = true;
    sim.client("c", server_endpoint("linear"), call(2, "create_issue"));
    let error = error_of(&sim.reply_to("c", json!(2)).unwrap());
    assert!(
        error.contains("the sign-in expired or was revoked")
            && error.contains("lazy-mcp auth login linear"),
        "{error}"
    );
    assert_eq!(sim.oauth.refreshes, 1);
    assert_eq!(sim.oauth.deletions, 1);
    assert_eq!(sim.oauth.stored.get("linear"), Some(&None));
    assert!(sign_in_effects(&sim).is_empty());
    assert_eq!(sim.state("linear"), Some(ServerState::NeedsAuth));
    // Another call: no refresh without tokens, no prompt, the same clear error.
    sim.client("c", server_endpoint("linear"), call(3, "create_issue"));
    assert!(error_of(&sim.reply_to("c", json!(3)).unwrap()).contains("auth login"));
    assert_eq!(sim.oauth.refreshes, 1);
    // `auth login`: the user command signs in; the server is catalogued again.
    sim.oauth.sign_in_answer = Some(SignInOutcome::Ok);
    sim.send(Event::SignIn {
        server: "linear".into(),
    });
    assert_eq!(sign_in_effects(&sim).len(), 1);
    assert_eq!(sim.state("linear"), Some(ServerState::Catalogued));
    sim.client("c", server_endpoint("linear"), call(4, "create_issue"));
    assert!(sim.reply_to("c", json!(4)).unwrap()["result"].is_object());

    // VS Code: exactly one prompt for the waiting call.
    let mut sim = connected(vscode());
    sim.expire_token("linear");
    sim.oauth.revoked = true;
    sim.client("c", server_endpoint("linear"), call(2, "create_issue"));
    assert_eq!(sign_in_effects(&sim).len(), 1);
    assert_eq!(sim.oauth.deletions, 1);
    sim.finish_sign_in("linear", SignInOutcome::Ok);
    sim.run();
    assert!(sim.reply_to("c", json!(2)).unwrap()["result"].is_object());
    assert_eq!(sign_in_effects(&sim).len(), 1);
}

#[test]
fn a_refresh_that_fails_for_another_reason_keeps_the_tokens() {
    let mut sim = connected(Settings::default());
    sim.expire_token("linear");
    sim.oauth.refresh_answer = Answer::Now(false);
    sim.client("c", server_endpoint("linear"), call(2, "create_issue"));
    let error = error_of(&sim.reply_to("c", json!(2)).unwrap());
    assert!(
        error.contains("refreshing the sign-in failed: the token endpoint did not answer"),
        "{error}"
    );
    assert_eq!(sim.oauth.deletions, 0);
}

#[test]
fn signing_out_deletes_tokens_and_registration_and_the_next_use_needs_sign_in() {
    let mut sim = connected(Settings::default());
    sim.send(Event::SignOut {
        server: "linear".into(),
    });
    assert_eq!(sim.oauth.deletions, 1);
    assert_eq!(sim.oauth.client_forgotten, 1);
    assert_eq!(sim.state("linear"), Some(ServerState::Catalogued));
    assert!(sim.live.is_empty());
    let auth = sim.engine.snapshot().servers[0].auth.clone().unwrap();
    assert_eq!(auth.reason.as_deref(), Some("signed out"));
    sim.client("c", server_endpoint("linear"), call(5, "create_issue"));
    assert!(error_of(&sim.reply_to("c", json!(5)).unwrap()).contains("lazy-mcp auth login linear"));
}

#[test]
fn sign_in_is_refused_with_a_reason_for_servers_without_oauth() {
    let mut sim = Sim::new(vscode()).fake("local", FakeServer::with_tools(&["echo"]));
    sim.apply(vec![config("local")]);
    sim.send(Event::SignIn {
        server: "local".into(),
    });
    assert!(sign_in_effects(&sim).is_empty());
    let told = announcements(&sim);
    assert!(
        told.last()
            .unwrap()
            .0
            .contains("does not sign in with OAuth"),
        "{told:?}"
    );
}

#[test]
fn tokens_from_another_window_or_the_cli_catalogue_a_server_that_needed_sign_in() {
    let mut sim = Sim::new(vscode()).fake("linear", FakeServer::with_tools(&["create_issue"]));
    sim.apply(vec![remote("linear")]);
    assert_eq!(sim.state("linear"), Some(ServerState::NeedsAuth));
    sim.store_valid_token("linear");
    sim.send(Event::TokensAvailable {
        url: "http://127.0.0.1:9/linear/mcp".into(),
    });
    assert_eq!(sim.state("linear"), Some(ServerState::Catalogued));
    assert!(sign_in_effects(&sim).is_empty());
}

#[test]
fn a_403_insufficient_scope_asks_for_a_sign_in_with_the_scopes_it_named() {
    let mut sim = connected(vscode());
    let conn = sim.conn_of("linear").unwrap();
    sim.send(Event::AuthRequired {
        conn,
        status: 403,
        challenge: Some(
            r#"Bearer error="insufficient_scope", scope="mcp:tools mcp:admin", resource_metadata="http://x/.well-known/oauth-protected-resource""#.into(),
        ),
        had_token: true,
        message: String::new(),
    });
    let started: Vec<_> = sim
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::StartSignIn { reason, scope, .. } => Some((reason.clone(), scope.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        started,
        vec![(
            "it needs more permissions (insufficient scope)".to_string(),
            Some("mcp:tools mcp:admin".to_string())
        )]
    );
    assert_eq!(sim.oauth.refreshes, 0, "a refresh cannot add scopes");
}

/// The engine is the one owner of what a challenged connection holds (the host
/// keeps no queue): the refused call comes back in `authRequired`, a call made
/// while the refresh runs is not handed to the host at all, and once refreshed
/// both go out again, each getting its real result.
#[test]
fn the_engine_holds_what_a_challenged_connection_sends_until_it_is_refreshed() {
    let sends = |sim: &Sim| {
        sim.effects
            .iter()
            .filter(|e| matches!(e, Effect::Send { .. }))
            .count()
    };
    let mut sim = connected(vscode());
    sim.expire_token("linear");
    sim.oauth.refresh_answer = Answer::Later;
    sim.client("c", server_endpoint("linear"), call(10, "create_issue"));
    assert_eq!(
        sim.oauth.refreshes, 1,
        "the refused call asked for a refresh"
    );
    let before = sends(&sim);
    sim.client("c", server_endpoint("linear"), call(11, "create_issue"));
    assert_eq!(
        sends(&sim),
        before,
        "nothing is handed to the host while the connection waits for its refresh"
    );
    assert!(sim.reply_to("c", json!(11)).is_none());
    sim.finish_refresh("linear", true);
    sim.run();
    assert_eq!(sends(&sim), before + 2, "the refused call and the held one");
    for id in [10, 11] {
        assert_eq!(
            text_of(&sim.reply_to("c", json!(id)).unwrap()),
            r#"linear:create_issue:{"text":"hi"}"#
        );
    }
    assert_eq!(
        sim.sent_method("linear", "tools/call"),
        3,
        "each call reached the server once"
    );
    assert!(sign_in_effects(&sim).is_empty());
}
