//! One server's OAuth as a state machine, in quinn-proto's shape: it owns
//! its fields (private), takes what happened through `handle_*` and says
//! what must happen as [`AuthOutput`]s the router drains with
//! [`AuthMachine::poll_outputs`] and carries out in order. It decides (refresh
//! single flight, `invalid_grant`, step-up without loops, sign-in only for a
//! call or the user, which servers to announce); the router does the rest
//! (effects with the server's binding, stopping, failing calls, timers, and
//! state changes through `Engine::transition`, `next_state`'s one caller).
//! The per-connection part, [`ConnAuth`], lives on the connection but is
//! this machine's: its fields are private here too.

use crate::engine::auth_contract::{AuthSnapshot, RefreshOutcome, SignInOutcome};
use crate::engine::effects::{Effect, LogLevel};
use crate::engine::state::{ServerState, Trigger};
use crate::protocol::www_authenticate::{
    challenge_param, is_insufficient_scope, resource_metadata_url,
};

/// What the machine reads of its server and host at an input.
pub(in crate::engine) struct AuthContext<'a> {
    pub(in crate::engine) name: &'a str,
    pub(in crate::engine) state: &'a ServerState,
    /// The server signs in with OAuth (`auth::uses_oauth`): it has a binding.
    pub(in crate::engine) oauth: bool,
    /// A call may wait for a sign-in (VS Code); else it fails at once (the CLI).
    pub(in crate::engine) may_wait: bool,
}

/// An OAuth effect; the router adds the server's name and binding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::engine) enum AuthRequest {
    RefreshTokens,
    RequireScopes {
        scope: String,
    },
    StartSignIn {
        reason: String,
        tool_name: Option<String>,
        scope: Option<String>,
        attempt: u32,
    },
    CancelSignIn {
        attempt: u32,
    },
    DeleteTokens {
        forget_client: bool,
    },
}

/// What the machine asks of the router, in the order it must happen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::engine) enum AuthOutput {
    /// Ask the host (dropped when the server has no OAuth binding).
    Request(AuthRequest),
    Log(LogLevel, String),
    /// The sign-in as shown changed: hosts redraw the server.
    Shown,
    /// The held connection goes on: the host re-sends its requests.
    Resume,
    /// The waiting calls bound the held connection now, not its handshake.
    BoundByCalls,
    /// The waiting calls' bound passed: its timer is spent.
    WaitEnded,
    /// End the connection and its calls, saying why.
    Stop(String),
    /// Fail the calls waiting for the connection with this error.
    FailWaiters(String),
    LastError(Option<String>),
    /// A state change, through `Engine::transition`.
    Transition(Trigger),
    /// Catalogue the server again (non-interactively).
    Catalogue,
    /// A user action is refused with this message.
    Refuse(String),
    /// The server joins the next sign-in announcement.
    Announce,
    /// The user was just asked about the server: never announced after.
    Told,
    /// Tokens came: a pending announcement of the server is withdrawn.
    Unannounce,
    /// The user signs in: "Not now" no longer holds.
    Undismiss,
}

/// The per-connection part: whether it is held after a challenge, and the
/// `send` effects held meanwhile (the refused ones and those made since; the
/// host holds nothing), sent again in order once it goes on.
#[derive(Debug, Default)]
pub(in crate::engine) struct ConnAuth {
    held: bool,
    sends: Vec<Effect>,
    /// A refresh already ran for this connection: another 401 means sign-in.
    refreshed: bool,
    /// A step-up sign-in already ran for this connection: another
    /// `insufficient_scope` fails the calls instead of asking again.
    stepped_up: bool,
}

impl ConnAuth {
    /// The server answered: the next refused token may be refreshed again.
    pub(in crate::engine) fn handle_answer(&mut self) {
        self.refreshed = false;
    }

    /// A `send` on this connection: held (returns None) while it waits for a
    /// refresh or sign-in, else handed back to go out now.
    pub(in crate::engine) fn handle_send(&mut self, send: Effect) -> Option<Effect> {
        if !self.held {
            return Some(send);
        }
        self.sends.push(send);
        None
    }

    /// It went on: what was held goes out, in order.
    pub(in crate::engine) fn take_held_sends(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.sends)
    }
}

/// One server's sign-in state.
#[derive(Debug, Default)]
pub(in crate::engine) struct AuthMachine {
    refreshing: bool,
    signing_in: bool,
    /// The current (or last) sign-in's number, echoed by `signInFinished`.
    attempt: u32,
    /// The sign-in under way was started for waiting calls (it ends with them).
    for_calls: bool,
    /// Why sign-in is needed, while it is.
    needs_sign_in: Option<String>,
    /// Scopes a 403 `insufficient_scope` challenge asked for (step-up), for the next sign-in.
    step_up_scope: Option<String>,
    /// The sign-in under way is a step-up: the connection it resumes must not ask again.
    stepping_up: bool,
    /// RFC 9728: the protected resource metadata URL the last challenge advertised.
    resource_metadata_url: Option<String>,
    /// Sign In was asked for while the server was being catalogued (`lazy-mcp
    /// auth login` right after start): it starts once that ends, with what its
    /// challenge said, and the NEEDS AUTH it meets is not announced: the user
    /// is signing in already.
    sign_in_requested: bool,
    outputs: Vec<AuthOutput>,
}

/// The words that tell the user how to sign in to `name` in this host.
pub(in crate::engine) fn sign_in_step(name: &str, may_wait: bool) -> String {
    if may_wait {
        format!("sign in to '{name}' (MCP Diagnostics, the servers view or the command \"Lazy MCP: Sign In\")")
    } else {
        format!("run `lazy-mcp auth login {name}`")
    }
}

impl AuthMachine {
    // ---- outputs and reads ---------------------------------------------------

    /// Everything the inputs so far asked for, in order (the router carries
    /// them out; an output may feed this machine again, whose own outputs
    /// are then drained first, as a call would).
    pub(in crate::engine) fn poll_outputs(&mut self) -> Vec<AuthOutput> {
        std::mem::take(&mut self.outputs)
    }

    /// The resource metadata URL the last challenge advertised.
    pub(in crate::engine) fn resource_metadata_url(&self) -> Option<&str> {
        self.resource_metadata_url.as_deref()
    }

    pub(in crate::engine) fn needs_sign_in(&self) -> bool {
        self.needs_sign_in.is_some()
    }

    /// Tokens stored elsewhere serve this server: it needs them and is not
    /// getting its own (whose end follows).
    pub(in crate::engine) fn takes_tokens_from_elsewhere(&self) -> bool {
        self.needs_sign_in.is_some() && !self.signing_in && !self.refreshing
    }

    /// `conn` is held for a sign-in started for its calls.
    pub(in crate::engine) fn awaits_sign_in_for_calls(&self, conn: &ConnAuth) -> bool {
        conn.held && self.signing_in && self.for_calls
    }

    /// Diagnostics' view (None: the server does not use OAuth).
    pub(in crate::engine) fn snapshot(&self, cx: &AuthContext) -> Option<AuthSnapshot> {
        if !cx.oauth {
            return None;
        }
        let needs = self.needs_sign_in.clone();
        Some(AuthSnapshot {
            needs_sign_in: needs.is_some(),
            next_step: needs.as_ref().map(|_| sign_in_step(cx.name, cx.may_wait)),
            reason: needs,
            signing_in: self.signing_in,
            refreshing: self.refreshing,
        })
    }

    fn out(&mut self, output: AuthOutput) {
        self.outputs.push(output);
    }

    fn log(&mut self, level: LogLevel, message: String) {
        self.out(AuthOutput::Log(level, message));
    }

    // ---- inputs ----------------------------------------------------------------

    /// A connection met a challenge (`authRequired`; its requests are held).
    /// `interactive`: the server's connection is for calls, whose waiting
    /// tool (`tool_name`) a sign-in prompt names.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::engine) fn handle_challenge(
        &mut self,
        cx: &AuthContext,
        conn: &mut ConnAuth,
        status: u16,
        had_token: bool,
        challenge: Option<&str>,
        interactive: bool,
        tool_name: Option<String>,
    ) {
        conn.held = true;
        if let Some(url) = resource_metadata_url(challenge) {
            self.resource_metadata_url = Some(url);
        }
        if self.refreshing || self.signing_in {
            // Single flight: this request waits on the refresh or sign-in under way.
            return;
        }
        if had_token && status == 401 && !conn.refreshed {
            self.log(
                LogLevel::Info,
                "the access token was refused; refreshing it".into(),
            );
            self.refreshing = true;
            self.out(AuthOutput::Request(AuthRequest::RefreshTokens));
            self.out(AuthOutput::Shown);
            return;
        }
        let reason = if is_insufficient_scope(status, challenge) {
            let scope = challenge.and_then(|c| challenge_param(c, "scope"));
            if conn.stepped_up {
                // The step-up sign-in did not get the scopes: asking again would loop.
                let named = scope.map(|s| format!(": {s}")).unwrap_or_default();
                self.block(
                    cx,
                    &format!("the sign-in did not grant the permissions it needs (insufficient scope{named})"),
                );
                return;
            }
            if let Some(scope) = scope.clone() {
                self.out(AuthOutput::Request(AuthRequest::RequireScopes { scope }));
            }
            self.step_up_scope = scope;
            "it needs more permissions (insufficient scope)".to_string()
        } else if had_token {
            "the sign-in expired or was revoked".to_string()
        } else {
            "not signed in".to_string()
        };
        self.sign_in_needed(cx, reason, interactive, tool_name);
    }

    /// The host's refresh ended. `conn`: the server's connection.
    pub(in crate::engine) fn handle_refresh_finished(
        &mut self,
        cx: &AuthContext,
        outcome: RefreshOutcome,
        message: &str,
        conn: Option<&mut ConnAuth>,
        interactive: bool,
        tool_name: Option<String>,
    ) {
        self.refreshing = false;
        if outcome == RefreshOutcome::Ok {
            self.needs_sign_in = None;
        }
        self.out(AuthOutput::Shown);
        let reason = match outcome {
            RefreshOutcome::Ok => {
                self.log(LogLevel::Info, "the sign-in was refreshed".into());
                self.resume(conn, true);
                return;
            }
            RefreshOutcome::InvalidGrant => {
                self.out(AuthOutput::Request(AuthRequest::DeleteTokens {
                    forget_client: false,
                }));
                self.log(
                    LogLevel::Warn,
                    "the authorization server refused the refresh token (invalid_grant); the stored tokens were deleted".into(),
                );
                "the sign-in expired or was revoked".to_string()
            }
            RefreshOutcome::Failed if message.is_empty() => {
                "refreshing the sign-in failed".to_string()
            }
            RefreshOutcome::Failed => format!("refreshing the sign-in failed: {message}"),
        };
        if conn.is_some_and(|c| c.held) {
            self.sign_in_needed(cx, reason, interactive, tool_name);
        } else {
            self.needs_sign_in = Some(reason);
        }
    }

    /// The host's sign-in number `attempt` ended. `conn`: the server's connection.
    pub(in crate::engine) fn handle_sign_in_finished(
        &mut self,
        cx: &AuthContext,
        outcome: SignInOutcome,
        message: &str,
        attempt: u32,
        conn: Option<&mut ConnAuth>,
    ) {
        if !self.signing_in || self.attempt != attempt {
            // A sign-in the engine already ended (its calls gave up): a late
            // success still brings tokens; anything else changes nothing.
            if outcome == SignInOutcome::Ok && !self.signing_in {
                self.step_up_scope = None;
                self.log(LogLevel::Info, format!("Signed in to '{}'", cx.name));
                self.tokens_available(cx, conn);
            }
            return;
        }
        self.signing_in = false;
        self.for_calls = false;
        self.out(AuthOutput::Shown);
        match outcome {
            SignInOutcome::Ok => {
                self.step_up_scope = None;
                self.log(LogLevel::Info, format!("Signed in to '{}'", cx.name));
                self.tokens_available(cx, conn)
            }
            SignInOutcome::Cancelled => {
                self.log(LogLevel::Info, "sign-in cancelled".into());
                self.ended_without_tokens(cx, "sign-in cancelled".into(), conn);
            }
            SignInOutcome::Failed => {
                let reason = if message.is_empty() {
                    "sign-in failed".to_string()
                } else {
                    format!("sign-in failed: {message}")
                };
                self.ended_without_tokens(cx, reason, conn);
            }
        }
    }

    /// Another window or process stored tokens this server may use
    /// (only asked when [`AuthMachine::takes_tokens_from_elsewhere`]).
    pub(in crate::engine) fn handle_tokens_stored_elsewhere(
        &mut self,
        cx: &AuthContext,
        conn: Option<&mut ConnAuth>,
    ) {
        self.log(
            LogLevel::Info,
            "tokens were stored by another window or process; using them".into(),
        );
        self.tokens_available(cx, conn);
    }

    /// The user asked to sign in (CLI `auth login`, a button).
    pub(in crate::engine) fn handle_sign_in(&mut self, cx: &AuthContext) {
        let name = cx.name;
        if !cx.oauth {
            self.out(AuthOutput::Refuse(format!("MCP server '{name}' does not sign in with OAuth: only remote (http/sse) servers without an Authorization header do.")));
            return;
        }
        if self.signing_in {
            self.out(AuthOutput::Refuse(format!("Signing in to MCP server '{name}' is under way: finish it in the browser, or cancel it and sign in again.")));
            return;
        }
        self.out(AuthOutput::Undismiss);
        if matches!(cx.state, ServerState::Pending | ServerState::Cataloguing) {
            // Its challenge (and the metadata URL it names) is about to come.
            self.log(
                LogLevel::Debug,
                "Sign In asked for during cataloguing: it starts when the cataloguing ends".into(),
            );
            self.sign_in_requested = true;
            return;
        }
        let reason = self
            .needs_sign_in
            .clone()
            .unwrap_or_else(|| "requested".into());
        self.start_sign_in(cx, reason, None);
    }

    /// The user cancelled the sign-in under way: the host ends it and
    /// reports it `cancelled` (a waiting call then ends "sign-in cancelled").
    pub(in crate::engine) fn handle_cancel_by_user(&mut self) {
        if self.signing_in {
            let attempt = self.attempt;
            self.out(AuthOutput::Request(AuthRequest::CancelSignIn { attempt }));
        }
    }

    /// The user signed out: tokens and client registration deleted, the
    /// server stopped; its next use needs a sign-in.
    pub(in crate::engine) fn handle_sign_out(&mut self, cx: &AuthContext) {
        if !cx.oauth {
            let name = cx.name;
            self.out(AuthOutput::Refuse(format!(
                "MCP server '{name}' does not sign in with OAuth."
            )));
            return;
        }
        self.out(AuthOutput::Request(AuthRequest::DeleteTokens {
            forget_client: true,
        }));
        self.cancel_sign_in();
        // Everything but the attempt's number and the metadata URL starts over.
        self.refreshing = false;
        self.signing_in = false;
        self.for_calls = false;
        self.stepping_up = false;
        self.sign_in_requested = false;
        self.step_up_scope = None;
        self.needs_sign_in = Some("signed out".into());
        self.out(AuthOutput::Shown);
        if matches!(
            cx.state,
            ServerState::Connecting | ServerState::Connected | ServerState::Cataloguing
        ) {
            self.out(AuthOutput::Stop("the user signed out".into()));
            self.out(AuthOutput::Transition(Trigger::Stopped));
        }
    }

    /// The server's state changed (to `cx.state`): a Sign In asked for
    /// during its cataloguing starts once that has ended, whatever the outcome.
    pub(in crate::engine) fn handle_state_changed(&mut self, cx: &AuthContext) {
        if !self.sign_in_requested
            || matches!(cx.state, ServerState::Pending | ServerState::Cataloguing)
        {
            return;
        }
        self.sign_in_requested = false;
        self.handle_sign_in(cx);
    }

    /// The bound of the calls waiting on `conn` passed (the handshake timer,
    /// rearmed to the request timeout, or a call's own timer mid-session).
    /// Returns false when `conn` was not waiting for a refresh or sign-in.
    /// Else the calls fail saying how to sign in, and a sign-in started for
    /// them ends too: nothing is left waiting for a browser nobody will use.
    pub(in crate::engine) fn handle_wait_expired(
        &mut self,
        cx: &AuthContext,
        conn: &ConnAuth,
    ) -> bool {
        if !(conn.held && (self.signing_in || self.refreshing)) {
            return false;
        }
        self.out(AuthOutput::WaitEnded);
        if self.for_calls {
            self.cancel_sign_in();
        }
        let reason = self
            .needs_sign_in
            .clone()
            .unwrap_or_else(|| "not signed in".into());
        self.block(
            cx,
            &format!("{reason}; no sign-in within the call's timeout"),
        );
        // The ask named the server: no second notice about it.
        self.out(AuthOutput::Told);
        true
    }

    // ---- decisions shared by the inputs -------------------------------------------

    /// Sign-in is needed: wait for one when a call may, else block.
    fn sign_in_needed(
        &mut self,
        cx: &AuthContext,
        reason: String,
        interactive: bool,
        tool_name: Option<String>,
    ) {
        self.needs_sign_in = Some(reason.clone());
        self.out(AuthOutput::Shown);
        if interactive && cx.may_wait {
            self.start_sign_in(cx, reason, tool_name);
            self.for_calls = true;
            // The waiting call is bounded by its own timeout, not the handshake's.
            self.out(AuthOutput::BoundByCalls);
            return;
        }
        self.block(cx, &reason);
    }

    /// Ends the server's connection and calls: NEEDS AUTH with `reason` and the next step.
    fn block(&mut self, cx: &AuthContext, reason: &str) {
        let name = cx.name;
        let step = sign_in_step(name, cx.may_wait);
        let error = format!("MCP server '{name}' needs you to sign in ({reason}): {step}");
        let requested = self.sign_in_requested;
        self.out(AuthOutput::Stop(format!(
            "it needs you to sign in ({reason}): {step}"
        )));
        self.out(AuthOutput::FailWaiters(error.clone()));
        self.out(AuthOutput::LastError(Some(error.clone())));
        self.needs_sign_in = Some(reason.to_string());
        if requested {
            // The sign-in the user asked for starts now: no advice to sign in.
            self.log(LogLevel::Debug, format!("{reason}; signing in"));
        } else {
            self.log(LogLevel::Warn, error);
        }
        match cx.state {
            ServerState::Cataloguing | ServerState::Connecting | ServerState::Connected => {
                self.out(AuthOutput::Transition(Trigger::AuthRequired))
            }
            _ => self.out(AuthOutput::Shown),
        }
        if !requested {
            self.out(AuthOutput::Announce);
        }
    }

    fn start_sign_in(&mut self, cx: &AuthContext, reason: String, tool_name: Option<String>) {
        if !cx.oauth {
            return;
        }
        self.signing_in = true;
        self.sign_in_requested = false;
        self.for_calls = false;
        self.attempt = self.attempt.wrapping_add(1);
        self.stepping_up = self.step_up_scope.is_some();
        self.out(AuthOutput::Shown);
        self.out(AuthOutput::Request(AuthRequest::StartSignIn {
            reason,
            tool_name,
            scope: self.step_up_scope.clone(),
            attempt: self.attempt,
        }));
    }

    /// Ends the sign-in under way as the engine's own decision: its end, when
    /// the host reports it, is then stale (`signInFinished` of an old attempt).
    fn cancel_sign_in(&mut self) {
        if !self.signing_in {
            return;
        }
        self.signing_in = false;
        self.for_calls = false;
        self.stepping_up = false;
        self.out(AuthOutput::Shown);
        let attempt = self.attempt;
        self.out(AuthOutput::Request(AuthRequest::CancelSignIn { attempt }));
    }

    /// Resumes the held connection (the host re-sends its requests with the
    /// new token). Returns whether there was one.
    fn resume(&mut self, conn: Option<&mut ConnAuth>, refreshed: bool) -> bool {
        let Some(conn) = conn.filter(|c| c.held) else {
            return false;
        };
        conn.held = false;
        conn.refreshed = refreshed;
        conn.stepped_up |= std::mem::take(&mut self.stepping_up);
        self.out(AuthOutput::Resume);
        true
    }

    /// Tokens are stored (a sign-in here, or in another window or the CLI):
    /// resume a held connection, else catalogue again so its tools appear.
    fn tokens_available(&mut self, cx: &AuthContext, conn: Option<&mut ConnAuth>) {
        if !cx.oauth {
            return;
        }
        self.needs_sign_in = None;
        self.out(AuthOutput::LastError(None));
        self.out(AuthOutput::Shown);
        self.out(AuthOutput::Unannounce);
        if self.resume(conn, false) {
            return;
        }
        if *cx.state == ServerState::NeedsAuth {
            self.out(AuthOutput::Transition(Trigger::NeedsCatalogue));
            self.out(AuthOutput::Catalogue);
        }
    }

    fn ended_without_tokens(
        &mut self,
        cx: &AuthContext,
        reason: String,
        conn: Option<&mut ConnAuth>,
    ) {
        let step = sign_in_step(cx.name, cx.may_wait);
        let error = format!("MCP server '{}': {reason}. To use it, {step}", cx.name);
        self.needs_sign_in = Some(reason.clone());
        self.stepping_up = false;
        self.out(AuthOutput::LastError(Some(error.clone())));
        if conn.is_some_and(|c| c.held) {
            self.block(cx, &reason);
            // The user just answered an ask naming this server: no second notice about it.
            self.out(AuthOutput::Told);
        } else {
            // A sign-in the user asked for: tell them how it ended.
            self.out(AuthOutput::Refuse(error));
        }
    }
}

#[cfg(test)]
#[path = "machine_tests.rs"]
mod tests;
