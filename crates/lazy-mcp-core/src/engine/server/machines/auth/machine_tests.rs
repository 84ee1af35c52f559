//! The auth machine's decisions, without an engine: inputs in, outputs out.

use super::*;

fn cx<'a>(state: &'a ServerState, may_wait: bool) -> AuthContext<'a> {
    AuthContext {
        name: "remote",
        state,
        oauth: true,
        may_wait,
    }
}

fn requests(outputs: &[AuthOutput]) -> Vec<AuthRequest> {
    outputs
        .iter()
        .filter_map(|o| match o {
            AuthOutput::Request(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

fn transitions(outputs: &[AuthOutput]) -> Vec<Trigger> {
    outputs
        .iter()
        .filter_map(|o| match o {
            AuthOutput::Transition(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_refused_token_is_refreshed_once_for_every_held_request() {
    let connected = ServerState::Connected;
    let cx = cx(&connected, true);
    let mut auth = AuthMachine::default();
    let (mut a, mut b) = (ConnAuth::default(), ConnAuth::default());
    auth.handle_challenge(&cx, &mut a, 401, true, None, true, None);
    auth.handle_challenge(&cx, &mut b, 401, true, None, true, None);
    let outputs = auth.poll_outputs();
    assert_eq!(requests(&outputs), [AuthRequest::RefreshTokens]);
    assert!(a.held && b.held);
    assert!(auth.snapshot(&cx).is_some_and(|s| s.refreshing));

    auth.handle_refresh_finished(&cx, RefreshOutcome::Ok, "", Some(&mut a), true, None);
    let outputs = auth.poll_outputs();
    assert!(outputs.contains(&AuthOutput::Resume));
    assert!(requests(&outputs).is_empty());
    assert!(!a.held);

    // The refreshed token refused again before any answer: sign-in, not a second refresh.
    auth.handle_challenge(&cx, &mut a, 401, true, None, true, Some("search".into()));
    let outputs = auth.poll_outputs();
    assert!(matches!(
        requests(&outputs).as_slice(),
        [AuthRequest::StartSignIn { tool_name: Some(tool), attempt: 1, .. }] if tool == "search"
    ));
    assert!(outputs.contains(&AuthOutput::BoundByCalls));
}

#[test]
fn invalid_grant_deletes_the_tokens_and_never_prompts_while_cataloguing() {
    let cataloguing = ServerState::Cataloguing;
    let cx = cx(&cataloguing, true);
    let mut auth = AuthMachine::default();
    let mut conn = ConnAuth::default();
    auth.handle_challenge(&cx, &mut conn, 401, true, None, false, None);
    auth.poll_outputs();
    auth.handle_refresh_finished(
        &cx,
        RefreshOutcome::InvalidGrant,
        "",
        Some(&mut conn),
        false,
        None,
    );
    let outputs = auth.poll_outputs();
    assert_eq!(
        requests(&outputs),
        [AuthRequest::DeleteTokens {
            forget_client: false
        }]
    );
    assert_eq!(transitions(&outputs), [Trigger::AuthRequired]);
    assert!(outputs.contains(&AuthOutput::Announce));
    assert!(outputs
        .iter()
        .any(|o| matches!(o, AuthOutput::FailWaiters(e)
        if e.contains("the sign-in expired or was revoked") && e.contains("sign in to 'remote'"))));
    assert!(auth.needs_sign_in());
}

#[test]
fn the_cli_fails_a_call_at_once_naming_auth_login() {
    let connecting = ServerState::Connecting;
    let cx = cx(&connecting, false);
    let mut auth = AuthMachine::default();
    let mut conn = ConnAuth::default();
    auth.handle_challenge(&cx, &mut conn, 401, false, None, true, None);
    let outputs = auth.poll_outputs();
    assert!(requests(&outputs).is_empty());
    assert!(outputs.iter().any(|o| matches!(o, AuthOutput::FailWaiters(e)
        if e == "MCP server 'remote' needs you to sign in (not signed in): run `lazy-mcp auth login remote`")));
}

#[test]
fn a_step_up_is_asked_once_per_connection() {
    let connected = ServerState::Connected;
    let cx = cx(&connected, true);
    let mut auth = AuthMachine::default();
    let mut conn = ConnAuth::default();
    let challenge = Some(r#"Bearer error="insufficient_scope", scope="files:write""#);
    auth.handle_challenge(&cx, &mut conn, 403, true, challenge, true, None);
    let outputs = auth.poll_outputs();
    assert!(matches!(
        requests(&outputs).as_slice(),
        [AuthRequest::RequireScopes { scope }, AuthRequest::StartSignIn { scope: Some(asked), attempt: 1, .. }]
            if scope == "files:write" && asked == "files:write"
    ));

    auth.handle_sign_in_finished(&cx, SignInOutcome::Ok, "", 1, Some(&mut conn));
    assert!(auth.poll_outputs().contains(&AuthOutput::Resume));

    // Refused again for scope on the same connection: the calls fail, no second ask.
    auth.handle_challenge(&cx, &mut conn, 403, true, challenge, true, None);
    let outputs = auth.poll_outputs();
    assert!(requests(&outputs).is_empty());
    assert_eq!(transitions(&outputs), [Trigger::AuthRequired]);
}

#[test]
fn a_sign_in_asked_for_while_cataloguing_starts_when_it_ends_and_is_not_announced() {
    let cataloguing = ServerState::Cataloguing;
    let mut auth = AuthMachine::default();
    auth.handle_sign_in(&cx(&cataloguing, true));
    assert!(requests(&auth.poll_outputs()).is_empty());

    // The cataloguing meets the challenge: blocked, but the user is signing in already.
    let mut conn = ConnAuth::default();
    auth.handle_challenge(
        &cx(&cataloguing, true),
        &mut conn,
        401,
        false,
        None,
        false,
        None,
    );
    let outputs = auth.poll_outputs();
    assert!(!outputs.contains(&AuthOutput::Announce));
    assert_eq!(transitions(&outputs), [Trigger::AuthRequired]);

    let needs_auth = ServerState::NeedsAuth;
    auth.handle_state_changed(&cx(&needs_auth, true));
    assert!(matches!(
        requests(&auth.poll_outputs()).as_slice(),
        [AuthRequest::StartSignIn { reason, .. }] if reason == "not signed in"
    ));
}

#[test]
fn a_waiting_call_s_timeout_ends_the_sign_in_started_for_it() {
    let connecting = ServerState::Connecting;
    let cx = cx(&connecting, true);
    let mut auth = AuthMachine::default();
    let mut conn = ConnAuth::default();
    auth.handle_challenge(&cx, &mut conn, 401, false, None, true, None);
    auth.poll_outputs();
    assert!(auth.awaits_sign_in_for_calls(&conn));
    assert!(auth.handle_wait_expired(&cx, &conn));
    let outputs = auth.poll_outputs();
    assert_eq!(
        requests(&outputs),
        [AuthRequest::CancelSignIn { attempt: 1 }]
    );
    assert!(outputs.contains(&AuthOutput::Told));
    // The host's late report of that sign-in is stale; a late success still brings tokens.
    auth.handle_sign_in_finished(&cx, SignInOutcome::Cancelled, "", 1, None);
    assert!(auth.poll_outputs().is_empty());
    assert!(!auth.handle_wait_expired(&cx, &conn));
}

#[test]
fn servers_are_announced_together_once_and_never_after_not_now() {
    let mut announcements = super::super::announcements::SignInAnnouncements::default();
    announcements.handle_needs_sign_in("a");
    assert!(announcements
        .poll_announcement(|| true, |_| true, true)
        .is_none());
    announcements.handle_needs_sign_in("b");
    announcements.handle_needs_sign_in("a");
    let Some(crate::engine::effects::Effect::Announce { servers, .. }) =
        announcements.poll_announcement(|| false, |_| true, true)
    else {
        panic!("one announcement");
    };
    assert_eq!(servers, ["a", "b"]);
    announcements.handle_needs_sign_in("a");
    announcements.handle_dismissed(vec!["c".into()]);
    announcements.handle_needs_sign_in("c");
    assert!(announcements
        .poll_announcement(|| false, |_| true, true)
        .is_none());
}
