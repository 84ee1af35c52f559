//! Remote servers behind OAuth: every decision about signing in, refreshing and
//! signing out. The host runs the OAuth client (the official SDK), the browser,
//! the loopback redirect and the token store; the engine never sees a token.
//!
//! - Only a remote server without a static `Authorization` header uses OAuth
//!   (`uses_oauth`): its `open` carries an [`OAuthBinding`]; static credentials
//!   never trigger a sign-in.
//! - A challenge (`authRequired`) on a connection holds its requests in the host.
//!   With a token that was refused: one refresh per server at a time
//!   (`refreshTokens`, single flight; every held request waits on it), then
//!   `resumeConnection`. Without a token, after a refresh that did not help, or
//!   on 403: sign-in is needed.
//! - Sign-in is interactive only for a call or a user action, never while
//!   cataloguing. A call may wait for it (`signInMayWait`, VS Code) within its
//!   timeout; otherwise (the CLI gateway) it fails at once naming
//!   `lazy-mcp auth login SERVER`.
//! - `invalid_grant` on refresh deletes the tokens (`deleteTokens`) and takes
//!   the sign-in path above: never a loop of prompts.
//! - A 403 `insufficient_scope` asks for a sign-in with more scopes (step-up),
//!   never a refresh; a connection that already stepped up and is refused
//!   again fails instead of asking again (no loop).
//! - A sign-in started for waiting calls ends (`cancelSignIn`) when their
//!   timeout passes, so it never outlives them.
//! - Servers that need sign-in are announced together, once per server and
//!   session, never again after "Not now" (`dismissSignIn`).

use crate::config::model::{ServerConfig, Transport};
pub use crate::engine::auth_contract::{AuthSnapshot, OAuthBinding, RefreshOutcome, SignInOutcome};
use crate::engine::effects::{AnnounceAction, Effect, LogLevel};
use crate::engine::events::ConnId;
use crate::engine::router::Engine;
use crate::engine::server::auth::bookkeeping::ServerAuth;
use crate::engine::server::connection::Phase;
use crate::engine::server::state::ServerState;
use crate::engine::server::state::Trigger;
use crate::protocol::methods;
use crate::protocol::www_authenticate::{
    challenge_param, is_insufficient_scope, resource_metadata_url,
};

pub(in crate::engine) mod bookkeeping;

/// Whether `config` signs in with OAuth: a remote server without a static
/// `Authorization` header.
pub fn uses_oauth(config: &ServerConfig) -> bool {
    match &config.transport {
        Transport::Http { headers, .. } | Transport::Sse { headers, .. } => !headers
            .keys()
            .any(|key| key.eq_ignore_ascii_case("authorization")),
        Transport::Stdio { .. } => false,
    }
}

/// The binding an `open` of `config` carries, when it uses OAuth.
pub fn binding(config: &ServerConfig) -> Option<OAuthBinding> {
    if !uses_oauth(config) {
        return None;
    }
    match &config.transport {
        Transport::Http { url, .. } | Transport::Sse { url, .. } => Some(OAuthBinding {
            url: url.clone(),
            config: config.oauth.clone().unwrap_or_default(),
            resource_metadata_url: None,
        }),
        Transport::Stdio { .. } => None,
    }
}

impl Engine {
    /// `name`'s sign-in as shown (signing in, refreshing, needs sign-in) changed: the host
    /// refreshes its UI as for a state change (a `stateChanged` with the current state).
    fn sign_in_shown(&mut self, name: &str) {
        self.clients.exposure_changed();
        let Some(server) = self.servers.by_name.get(name) else {
            return;
        };
        let told = self
            .effects
            .iter()
            .any(|e| matches!(e, Effect::StateChanged { server, .. } if server == name));
        if !told {
            self.effects.push(Effect::StateChanged {
                server: name.to_string(),
                state: server.state.clone(),
            });
        }
    }

    /// The binding of `name` with the resource metadata URL learned from its
    /// challenges (this run, else the catalogue's).
    pub(in crate::engine) fn binding_of(&self, name: &str) -> Option<OAuthBinding> {
        let mut binding = self
            .servers
            .by_name
            .get(name)
            .and_then(|s| binding(&s.config))?;
        binding.resource_metadata_url = self.learned_resource_metadata_url(name);
        Some(binding)
    }

    /// The resource metadata URL a challenge of `name` advertised.
    pub(in crate::engine) fn learned_resource_metadata_url(&self, name: &str) -> Option<String> {
        self.servers
            .by_name
            .get(name)
            .and_then(|s| s.auth.resource_metadata_url.clone())
            .or_else(|| {
                self.catalogue
                    .entries
                    .get(name)
                    .and_then(|e| e.resource_metadata_url.clone())
            })
    }

    /// The words that tell the user how to sign in to `name` in this host.
    fn sign_in_step(&self, name: &str) -> String {
        if self.settings.sign_in_may_wait {
            format!("sign in to '{name}' (MCP Diagnostics, the servers view or the command \"Lazy MCP: Sign In\")")
        } else {
            format!("run `lazy-mcp auth login {name}`")
        }
    }

    /// A connection of a server met an auth challenge (its requests are held).
    pub(in crate::engine) fn on_auth_required(
        &mut self,
        conn: ConnId,
        status: u16,
        had_token: bool,
        challenge: Option<&str>,
    ) {
        let insufficient_scope = is_insufficient_scope(status, challenge);
        let Some(connection) = self.servers.conns.get_mut(&conn) else {
            return;
        };
        let name = connection.server.clone();
        let Some(server) = self.servers.by_name.get_mut(&name) else {
            return;
        };
        if !uses_oauth(&server.config) {
            self.on_http_status(conn, status);
            return;
        }
        connection.auth.held = true;
        let refreshed = connection.auth.refreshed;
        let stepped_up = connection.auth.stepped_up;
        if let Some(url) = resource_metadata_url(challenge) {
            server.auth.resource_metadata_url = Some(url);
        }
        if server.auth.refreshing || server.auth.signing_in {
            // Single flight: this request waits on the refresh or sign-in under way.
            return;
        }
        if had_token && status == 401 && !refreshed {
            self.log(
                LogLevel::Info,
                Some(&name),
                "the access token was refused; refreshing it".into(),
            );
            if let Some(server) = self.servers.by_name.get_mut(&name) {
                server.auth.refreshing = true;
            }
            if let Some(oauth) = self.binding_of(&name) {
                self.effects.push(Effect::RefreshTokens {
                    server: name.clone(),
                    oauth,
                });
            }
            self.sign_in_shown(&name);
            return;
        }
        let reason = if insufficient_scope {
            let scope = challenge.and_then(|c| challenge_param(c, "scope"));
            if stepped_up {
                // The step-up sign-in did not get the scopes: asking again would loop.
                let named = scope.map(|s| format!(": {s}")).unwrap_or_default();
                self.block_on_sign_in(
                    &name,
                    &format!("the sign-in did not grant the permissions it needs (insufficient scope{named})"),
                );
                return;
            }
            if let (Some(scope), Some(oauth)) = (scope.clone(), self.binding_of(&name)) {
                self.effects.push(Effect::RequireScopes {
                    server: name.clone(),
                    oauth,
                    scope,
                });
            }
            if let Some(server) = self.servers.by_name.get_mut(&name) {
                server.auth.step_up_scope = scope;
            }
            "it needs more permissions (insufficient scope)".to_string()
        } else if had_token {
            "the sign-in expired or was revoked".to_string()
        } else {
            "not signed in".to_string()
        };
        self.sign_in_needed(&name, reason);
    }

    /// Sign-in is needed for `name`: wait for one when a call may, else end
    /// the connection and fail its calls with how to sign in.
    fn sign_in_needed(&mut self, name: &str, reason: String) {
        let conn = self.servers.by_name.get(name).and_then(|s| s.conn);
        let interactive = conn
            .and_then(|c| self.servers.conns.get(&c))
            .is_some_and(|c| c.purpose == crate::engine::server::connection::Purpose::Connect);
        if let Some(server) = self.servers.by_name.get_mut(name) {
            server.auth.needs_sign_in = Some(reason.clone());
        }
        self.sign_in_shown(name);
        if interactive && self.settings.sign_in_may_wait {
            let tool_name = self.waiting_tool_name(name);
            self.start_sign_in(name, reason);
            if let Some(server) = self.servers.by_name.get_mut(name) {
                server.auth.for_calls = true;
            }
            if let Some(tool) = tool_name {
                if let Some(Effect::StartSignIn { tool_name, .. }) = self.effects.last_mut() {
                    *tool_name = Some(tool);
                }
            }
            // The waiting call is bounded by its own timeout, not the handshake's.
            if let Some(conn) = conn {
                let at = self.now_ms.saturating_add(self.request_timeout_ms(name));
                if let Some(timer) = self
                    .servers
                    .conns
                    .get(&conn)
                    .and_then(|c| c.handshake_timer)
                {
                    self.rearm_timer(timer, at);
                }
            }
            return;
        }
        self.block_on_sign_in(name, &reason);
    }

    /// Ends the server's connection and calls: NEEDS AUTH with `reason` and the next step.
    pub(in crate::engine) fn block_on_sign_in(&mut self, name: &str, reason: &str) {
        let step = self.sign_in_step(name);
        let error = format!("MCP server '{name}' needs you to sign in ({reason}): {step}");
        let state = self.servers.by_name.get(name).map(|s| s.state.clone());
        let requested = self
            .servers
            .by_name
            .get(name)
            .is_some_and(|s| s.auth.sign_in_requested);
        self.stop_server(name, &format!("it needs you to sign in ({reason}): {step}"));
        self.fail_waiters(name, &error);
        if let Some(server) = self.servers.by_name.get_mut(name) {
            server.stats.last_error = Some(error.clone());
            server.auth.needs_sign_in = Some(reason.to_string());
        }
        if requested {
            // The sign-in the user asked for starts now: no advice to sign in.
            self.log(LogLevel::Debug, Some(name), format!("{reason}; signing in"));
        } else {
            self.log(LogLevel::Warn, Some(name), error);
        }
        match state {
            Some(ServerState::Cataloguing | ServerState::Connecting | ServerState::Connected) => {
                self.transition(name, Trigger::AuthRequired)
            }
            _ => self.sign_in_shown(name),
        }
        if !requested {
            self.sign_in_announcements.batch.insert(name.to_string());
        }
    }

    /// `name` changed state: a Sign In asked for during its cataloguing starts
    /// once that has ended, whatever the outcome (as if asked for then).
    pub(in crate::engine) fn start_requested_sign_in(&mut self, name: &str) {
        let Some(server) = self.servers.by_name.get_mut(name) else {
            return;
        };
        if !server.auth.sign_in_requested
            || matches!(
                server.state,
                ServerState::Pending | ServerState::Cataloguing
            )
        {
            return;
        }
        server.auth.sign_in_requested = false;
        self.on_sign_in(name);
    }

    /// The tool a waiting call wants (named in the sign-in prompt): one waiting
    /// for the connection, else one held on it (a 401/403 mid-session).
    fn waiting_tool_name(&self, name: &str) -> Option<String> {
        let server = self.servers.by_name.get(name)?;
        let waiting = server.waiters.iter().find_map(|call| {
            (call.method == methods::TOOLS_CALL)
                .then(|| call.params.name())
                .flatten()
        });
        waiting.or_else(|| {
            let conn = self.servers.conns.get(&server.conn?)?;
            conn.pending.values().find_map(|pending| match pending {
                crate::engine::server::connection::Pending::Call(call) => {
                    call.tool_name().map(str::to_string)
                }
                _ => None,
            })
        })
    }

    fn start_sign_in(&mut self, name: &str, reason: String) {
        let Some(oauth) = self.binding_of(name) else {
            return;
        };
        let Some(server) = self.servers.by_name.get_mut(name) else {
            return;
        };
        server.auth.signing_in = true;
        server.auth.sign_in_requested = false;
        server.auth.for_calls = false;
        server.auth.attempt = server.auth.attempt.wrapping_add(1);
        server.auth.stepping_up = server.auth.step_up_scope.is_some();
        let attempt = server.auth.attempt;
        let scope = server.auth.step_up_scope.clone();
        self.sign_in_shown(name);
        self.effects.push(Effect::StartSignIn {
            server: name.to_string(),
            oauth,
            reason,
            tool_name: None,
            scope,
            attempt,
        });
    }

    /// Ends the sign-in under way as the engine's own decision: its end, when
    /// the host reports it, is then stale (`signInFinished` of an old attempt).
    fn cancel_sign_in(&mut self, name: &str) {
        let Some(server) = self.servers.by_name.get_mut(name) else {
            return;
        };
        if !server.auth.signing_in {
            return;
        }
        server.auth.signing_in = false;
        server.auth.for_calls = false;
        server.auth.stepping_up = false;
        let attempt = server.auth.attempt;
        self.sign_in_shown(name);
        if let Some(oauth) = self.binding_of(name) {
            self.effects.push(Effect::CancelSignIn {
                server: name.to_string(),
                oauth,
                attempt,
            });
        }
    }

    /// The held connection of `name`, if any.
    fn held_conn(&self, name: &str) -> Option<ConnId> {
        let conn = self.servers.by_name.get(name)?.conn?;
        self.servers
            .conns
            .get(&conn)
            .filter(|c| c.auth.held)
            .map(|_| conn)
    }

    pub(in crate::engine) fn on_refresh_finished(
        &mut self,
        name: &str,
        outcome: RefreshOutcome,
        message: &str,
    ) {
        let Some(server) = self.servers.by_name.get_mut(name) else {
            return;
        };
        server.auth.refreshing = false;
        if outcome == RefreshOutcome::Ok {
            server.auth.needs_sign_in = None;
        }
        self.sign_in_shown(name);
        match outcome {
            RefreshOutcome::Ok => {
                self.log(
                    LogLevel::Info,
                    Some(name),
                    "the sign-in was refreshed".into(),
                );
                self.resume_held(name, true);
            }
            RefreshOutcome::InvalidGrant => {
                if let Some(oauth) = self.binding_of(name) {
                    self.effects.push(Effect::DeleteTokens {
                        server: name.to_string(),
                        oauth,
                        forget_client: false,
                    });
                }
                self.log(
                    LogLevel::Warn,
                    Some(name),
                    "the authorization server refused the refresh token (invalid_grant); the stored tokens were deleted".into(),
                );
                self.after_refresh_failed(name, "the sign-in expired or was revoked".into());
            }
            RefreshOutcome::Failed => {
                let reason = if message.is_empty() {
                    "refreshing the sign-in failed".to_string()
                } else {
                    format!("refreshing the sign-in failed: {message}")
                };
                self.after_refresh_failed(name, reason);
            }
        }
    }

    fn after_refresh_failed(&mut self, name: &str, reason: String) {
        if self.held_conn(name).is_some() {
            self.sign_in_needed(name, reason);
        } else if let Some(server) = self.servers.by_name.get_mut(name) {
            server.auth.needs_sign_in = Some(reason);
        }
    }

    /// Resumes the held connection (the host re-sends its requests with the new token).
    fn resume_held(&mut self, name: &str, refreshed: bool) -> bool {
        let Some(conn) = self.held_conn(name) else {
            return false;
        };
        let stepped_up = self
            .servers
            .by_name
            .get_mut(name)
            .is_some_and(|s| std::mem::take(&mut s.auth.stepping_up));
        if let Some(connection) = self.servers.conns.get_mut(&conn) {
            connection.auth.held = false;
            connection.auth.refreshed = refreshed;
            connection.auth.stepped_up |= stepped_up;
            // Back to the handshake's own bound when still handshaking.
            if connection.phase != Phase::Ready || !connection.live {
                if let Some(timer) = connection.handshake_timer {
                    let at = self.now_ms.saturating_add(self.handshake_timeout_ms(name));
                    self.rearm_timer(timer, at);
                }
            }
        }
        self.effects.push(Effect::ResumeConnection { conn });
        true
    }

    pub(in crate::engine) fn on_sign_in_finished(
        &mut self,
        name: &str,
        outcome: SignInOutcome,
        message: &str,
        attempt: u32,
    ) {
        let Some(server) = self.servers.by_name.get_mut(name) else {
            return;
        };
        if !server.auth.signing_in || server.auth.attempt != attempt {
            // A sign-in the engine already ended (its calls gave up): a late
            // success still brings tokens; anything else changes nothing.
            if outcome == SignInOutcome::Ok && !server.auth.signing_in {
                server.auth.step_up_scope = None;
                self.log(LogLevel::Info, Some(name), format!("Signed in to '{name}'"));
                self.on_tokens_available(name);
            }
            return;
        }
        server.auth.signing_in = false;
        server.auth.for_calls = false;
        self.sign_in_shown(name);
        match outcome {
            SignInOutcome::Ok => {
                if let Some(server) = self.servers.by_name.get_mut(name) {
                    server.auth.step_up_scope = None;
                }
                self.log(LogLevel::Info, Some(name), format!("Signed in to '{name}'"));
                self.on_tokens_available(name)
            }
            SignInOutcome::Cancelled => {
                self.log(LogLevel::Info, Some(name), "sign-in cancelled".into());
                self.sign_in_ended_without_tokens(name, "sign-in cancelled".into());
            }
            SignInOutcome::Failed => {
                let reason = if message.is_empty() {
                    "sign-in failed".to_string()
                } else {
                    format!("sign-in failed: {message}")
                };
                self.sign_in_ended_without_tokens(name, reason);
            }
        }
    }

    fn sign_in_ended_without_tokens(&mut self, name: &str, reason: String) {
        let step = self.sign_in_step(name);
        let error = format!("MCP server '{name}': {reason}. To use it, {step}");
        if let Some(server) = self.servers.by_name.get_mut(name) {
            server.auth.needs_sign_in = Some(reason.clone());
            server.auth.stepping_up = false;
            server.stats.last_error = Some(error.clone());
        }
        if self.held_conn(name).is_some() {
            self.block_on_sign_in(name, &reason);
            // The user just answered an ask naming this server: no second notice about it.
            self.sign_in_announcements.batch.remove(name);
            self.sign_in_announcements
                .announced
                .insert(name.to_string());
        } else {
            // A sign-in the user asked for: tell them how it ended.
            self.refuse_action(Some(name), error);
        }
    }

    /// Another window or process stored tokens for `url`: every server of that
    /// URL that needs sign-in (and is not signing in or refreshing itself,
    /// whose own end follows) uses them.
    pub(in crate::engine) fn on_tokens_stored_elsewhere(&mut self, url: &str) {
        let names: Vec<String> = self
            .servers
            .by_name
            .iter()
            .filter(|(_, s)| {
                s.auth.needs_sign_in.is_some()
                    && !s.auth.signing_in
                    && !s.auth.refreshing
                    && binding(&s.config).is_some_and(|b| b.url == url)
            })
            .map(|(name, _)| name.clone())
            .collect();
        for name in names {
            self.log(
                LogLevel::Info,
                Some(&name),
                "tokens were stored by another window or process; using them".into(),
            );
            self.on_tokens_available(&name);
        }
    }

    /// Tokens are stored for `name` (a sign-in here, or in another window or
    /// the CLI): resume a held connection, else catalogue it again
    /// non-interactively so its tools appear.
    pub(in crate::engine) fn on_tokens_available(&mut self, name: &str) {
        let Some(server) = self.servers.by_name.get_mut(name) else {
            return;
        };
        if !uses_oauth(&server.config) {
            return;
        }
        server.auth.needs_sign_in = None;
        server.stats.last_error = None;
        self.sign_in_shown(name);
        self.sign_in_announcements.batch.remove(name);
        if self.resume_held(name, false) {
            return;
        }
        let state = self.servers.by_name.get(name).map(|s| s.state.clone());
        if let Some(ServerState::NeedsAuth) = state {
            self.transition(name, Trigger::NeedsCatalogue);
            self.enqueue_catalogue(name);
        }
    }

    /// The user command Sign In (CLI `auth login`, a button).
    pub(in crate::engine) fn on_sign_in(&mut self, name: &str) {
        let Some(server) = self.servers.by_name.get(name) else {
            self.refuse_action(None, format!("There is no MCP server named '{name}'."));
            return;
        };
        if !uses_oauth(&server.config) {
            self.refuse_action(
                Some(name),
                format!("MCP server '{name}' does not sign in with OAuth: only remote (http/sse) servers without an Authorization header do."),
            );
            return;
        }
        if server.auth.signing_in {
            self.refuse_action(
                Some(name),
                format!("Signing in to MCP server '{name}' is under way: finish it in the browser, or cancel it and sign in again."),
            );
            return;
        }
        self.sign_in_announcements.dismissed.remove(name);
        if matches!(
            server.state,
            ServerState::Pending | ServerState::Cataloguing
        ) {
            // Its challenge (and the metadata URL it names) is about to come.
            self.log(
                LogLevel::Debug,
                Some(name),
                "Sign In asked for during cataloguing: it starts when the cataloguing ends".into(),
            );
            if let Some(server) = self.servers.by_name.get_mut(name) {
                server.auth.sign_in_requested = true;
            }
            return;
        }
        let reason = server
            .auth
            .needs_sign_in
            .clone()
            .unwrap_or_else(|| "requested".into());
        self.start_sign_in(name, reason);
    }

    /// The user command Cancel on a sign-in under way: the host ends it and
    /// reports it `cancelled` (a waiting call then ends "sign-in cancelled").
    pub(in crate::engine) fn on_cancel_sign_in(&mut self, name: &str) {
        let Some(server) = self.servers.by_name.get(name) else {
            return;
        };
        if !server.auth.signing_in {
            return;
        }
        let attempt = server.auth.attempt;
        if let Some(oauth) = self.binding_of(name) {
            self.effects.push(Effect::CancelSignIn {
                server: name.to_string(),
                oauth,
                attempt,
            });
        }
    }

    /// The user command Sign Out: tokens and client registration deleted, the
    /// server stopped; its catalogue stays, its next use needs a sign-in.
    pub(in crate::engine) fn on_sign_out(&mut self, name: &str) {
        let Some(oauth) = self.binding_of(name) else {
            self.refuse_action(
                Some(name),
                format!("MCP server '{name}' does not sign in with OAuth."),
            );
            return;
        };
        self.effects.push(Effect::DeleteTokens {
            server: name.to_string(),
            oauth,
            forget_client: true,
        });
        let state = self.servers.by_name.get(name).map(|s| s.state.clone());
        self.cancel_sign_in(name);
        if let Some(server) = self.servers.by_name.get_mut(name) {
            server.auth = ServerAuth {
                needs_sign_in: Some("signed out".into()),
                attempt: server.auth.attempt,
                resource_metadata_url: server.auth.resource_metadata_url.take(),
                ..ServerAuth::default()
            };
        }
        self.sign_in_shown(name);
        if matches!(
            state,
            Some(ServerState::Connecting | ServerState::Connected | ServerState::Cataloguing)
        ) {
            self.stop_server(name, "the user signed out");
            self.transition(name, Trigger::Stopped);
        }
    }

    /// "Not now": these servers are not announced again this session.
    pub(in crate::engine) fn on_dismiss_sign_in(&mut self, servers: Vec<String>) {
        for name in servers {
            self.sign_in_announcements.batch.remove(&name);
            self.sign_in_announcements.dismissed.insert(name);
        }
    }

    /// The connection is held for a sign-in started for its calls.
    pub(in crate::engine) fn call_awaits_sign_in(&self, conn: ConnId) -> bool {
        self.servers.conns.get(&conn).is_some_and(|c| {
            c.auth.held
                && self
                    .servers
                    .by_name
                    .get(&c.server)
                    .is_some_and(|s| s.auth.signing_in && s.auth.for_calls)
        })
    }

    /// A timer of a connection held for a sign-in or refresh fired: the
    /// waiting calls' timeout passed (the handshake timer, rearmed to the
    /// request timeout, or a forwarded call's own timer mid-session). The
    /// calls fail saying how to sign in, and a sign-in started for them is
    /// ended too: nothing is left waiting for a browser nobody will use.
    pub(in crate::engine) fn sign_in_wait_expired(&mut self, conn: ConnId) -> bool {
        let Some(connection) = self.servers.conns.get(&conn) else {
            return false;
        };
        let name = connection.server.clone();
        let waiting = connection.auth.held
            && self
                .servers
                .by_name
                .get(&name)
                .is_some_and(|s| s.auth.signing_in || s.auth.refreshing);
        if !waiting {
            return false;
        }
        if let Some(timer) = self
            .servers
            .conns
            .get_mut(&conn)
            .and_then(|c| c.handshake_timer.take())
        {
            self.timers.handle_cancel(timer);
        }
        if self
            .servers
            .by_name
            .get(&name)
            .is_some_and(|s| s.auth.for_calls)
        {
            self.cancel_sign_in(&name);
        }
        let reason = self
            .servers
            .by_name
            .get(&name)
            .and_then(|s| s.auth.needs_sign_in.clone())
            .unwrap_or_else(|| "not signed in".into());
        self.block_on_sign_in(
            &name,
            &format!("{reason}; no sign-in within the call's timeout"),
        );
        // The ask named the server: no second notice about it.
        self.sign_in_announcements.batch.remove(&name);
        self.sign_in_announcements.announced.insert(name);
        true
    }

    /// One announcement listing every server that newly needs sign-in, once no
    /// cataloguing is in progress; never for a dismissed or already told server.
    pub(in crate::engine) fn flush_sign_in_announcements(&mut self) {
        if self.sign_in_announcements.batch.is_empty()
            || self
                .servers
                .by_name
                .values()
                .any(|s| matches!(s.state, ServerState::Pending | ServerState::Cataloguing))
        {
            return;
        }
        let batch = std::mem::take(&mut self.sign_in_announcements.batch);
        let servers: Vec<String> = batch
            .into_iter()
            .filter(|name| {
                !self.sign_in_announcements.dismissed.contains(name)
                    && !self.sign_in_announcements.announced.contains(name)
                    && self
                        .servers
                        .by_name
                        .get(name)
                        .is_some_and(|s| s.auth.needs_sign_in.is_some())
            })
            .collect();
        if servers.is_empty() {
            return;
        }
        let listed = servers
            .iter()
            .map(|name| format!("'{name}'"))
            .collect::<Vec<_>>()
            .join(", ");
        let message = match servers.as_slice() {
            [name] if !self.settings.sign_in_may_wait => format!(
                "MCP server {listed} needs you to sign in: run `lazy-mcp auth login {name}`"
            ),
            [_] => format!("MCP server {listed} needs you to sign in."),
            _ if !self.settings.sign_in_may_wait => format!(
                "{} MCP servers need you to sign in: {listed}. Run `lazy-mcp auth login SERVER` for each.",
                servers.len()
            ),
            _ => format!("{} MCP servers need you to sign in: {listed}.", servers.len()),
        };
        for name in &servers {
            self.sign_in_announcements.announced.insert(name.clone());
        }
        self.effects.push(Effect::Announce {
            level: LogLevel::Warn,
            server: match servers.as_slice() {
                [name] => Some(name.clone()),
                _ => None,
            },
            message,
            actions: vec![AnnounceAction::SignIn, AnnounceAction::NotNow],
            servers,
        });
    }

    /// Diagnostics' view of a server's sign-in (None: it does not use OAuth).
    pub(in crate::engine) fn auth_snapshot(&self, name: &str) -> Option<AuthSnapshot> {
        let server = self.servers.by_name.get(name)?;
        if !uses_oauth(&server.config) {
            return None;
        }
        let needs = server.auth.needs_sign_in.clone();
        Some(AuthSnapshot {
            needs_sign_in: needs.is_some(),
            next_step: needs.as_ref().map(|_| self.sign_in_step(name)),
            reason: needs,
            signing_in: server.auth.signing_in,
            refreshing: server.auth.refreshing,
        })
    }
}
