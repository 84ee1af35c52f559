//! Remote servers behind OAuth. The decisions are each server's auth machine
//! (`machines/auth/machine.rs`); `Servers` hands it its input with what it reads
//! (`AuthContext`) and carries out the outputs only the servers' state takes
//! (`auth_output`); the router (`router/server/auth.rs`) carries out the
//! rest of the outputs (a state change, a stop, the clients), in the
//! machine's order.
//! The host runs the OAuth client (the official SDK), the browser, the
//! loopback redirect and the token store; the engine never sees a token.
//!
//! - Only a remote server without a static `Authorization` header uses OAuth
//!   (`uses_oauth`): its `open` carries an [`OAuthBinding`]; static credentials
//!   never trigger a sign-in.
//! - A challenge (`authRequired`, with the refused `send`) holds the
//!   connection here: that message and every later `send` on it wait in its
//!   `ConnAuth` (the host holds nothing). With a token that was refused: one
//!   refresh per server at a time (`refreshTokens`, single flight; every held
//!   message waits on it), then the held messages go out again. Without a token, after a refresh that did not help, or
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
use crate::engine::announce::refusal;
pub use crate::engine::auth_contract::{AuthSnapshot, OAuthBinding, RefreshOutcome, SignInOutcome};
use crate::engine::effects::Effect;
use crate::engine::events::ConnId;
use crate::engine::registry::catalogue::Catalogue;
use crate::engine::server::ctx::ServerCtx;
use crate::engine::server::machines::auth::machine::{AuthContext, AuthOutput, AuthRequest};
use crate::engine::server::purpose::Purpose;
use crate::engine::server::Servers;
use crate::engine::settings::Settings;
use input::AuthInput;

pub(in crate::engine) mod input;

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

impl AuthRequest {
    fn effect(self, server: String, oauth: OAuthBinding) -> Effect {
        let oauth = Box::new(oauth);
        match self {
            AuthRequest::RefreshTokens => Effect::RefreshTokens { server, oauth },
            AuthRequest::RequireScopes { scope } => Effect::RequireScopes {
                server,
                oauth,
                scope,
            },
            AuthRequest::StartSignIn {
                reason,
                tool_name,
                scope,
                attempt,
            } => Effect::StartSignIn {
                server,
                oauth,
                reason,
                tool_name,
                scope,
                attempt,
            },
            AuthRequest::CancelSignIn { attempt } => Effect::CancelSignIn {
                server,
                oauth,
                attempt,
            },
            AuthRequest::DeleteTokens { forget_client } => Effect::DeleteTokens {
                server,
                oauth,
                forget_client,
            },
        }
    }
}

impl Servers {
    /// `name`'s sign-in as shown changed: a `stateChanged` with its current
    /// state, unless this event already told one for it (`effects`, the
    /// event's so far, which the router feeds: what the servers yielded
    /// before is in them, drained after each input).
    pub(in crate::engine) fn sign_in_shown(&mut self, effects: &[Effect], name: &str) {
        let Some(server) = self.get(name) else {
            return;
        };
        let told = (effects.iter())
            .any(|e| matches!(e, Effect::StateChanged { server, .. } if server == name));
        if !told {
            let state = server.state().clone();
            self.outbox().push(Effect::StateChanged {
                server: name.to_string(),
                state,
            });
        }
    }

    /// Hands `name`'s auth machine `input` (`name` None: the server of the
    /// input's connection) with what it reads: the `AuthContext`, the auth
    /// of the connection the input names (else the current one's), and for
    /// a challenge or a refresh's end whether calls wait and for which tool.
    /// Returns the server's name, the input's answer and the machine's
    /// outputs; None when there is no such server (a Sign In or Sign Out of
    /// one is refused here).
    pub(in crate::engine) fn handle_auth(
        &mut self,
        ctx: &mut ServerCtx,
        name: Option<&str>,
        input: AuthInput,
    ) -> Option<(String, bool, Vec<AuthOutput>)> {
        let on = input.conn();
        let name = match name {
            Some(name) => name.to_string(),
            None => self.server_of(on?)?.to_string(),
        };
        let Some(server) = self.get(&name) else {
            let refused = match input {
                AuthInput::SignIn => (None, format!("There is no MCP server named '{name}'.")),
                AuthInput::SignOut => (
                    Some(name.as_str()),
                    format!("MCP server '{name}' does not sign in with OAuth."),
                ),
                _ => return None,
            };
            self.outbox().push(refusal(refused.0, refused.1));
            return None;
        };
        let conn = on.or_else(|| server.connect().conn());
        let (interactive, tool_name) = match input {
            AuthInput::Challenge { .. } | AuthInput::RefreshFinished(..) => {
                self.call_waiting(&name)
            }
            _ => (false, None),
        };
        let (server, connection) = self.server_and_conn_mut(&name, conn)?;
        let (auth, state, config) = server.auth_parts();
        let cx = AuthContext {
            name: &name,
            state,
            oauth: uses_oauth(config),
            may_wait: ctx.settings.sign_in_may_wait,
        };
        let conn = connection.map(|c| c.auth_mut());
        let mut result = true;
        match input {
            AuthInput::Challenge {
                status,
                had_token,
                challenge,
                ..
            } => {
                if let Some(conn) = conn {
                    let waiting = (interactive, tool_name);
                    auth.handle_challenge(
                        &cx, conn, status, had_token, challenge, waiting.0, waiting.1,
                    );
                }
            }
            AuthInput::RefreshFinished(outcome, message) => {
                auth.handle_refresh_finished(&cx, outcome, message, conn, interactive, tool_name)
            }
            AuthInput::SignInFinished(outcome, message, attempt) => {
                auth.handle_sign_in_finished(&cx, outcome, message, attempt, conn)
            }
            AuthInput::TokensStoredElsewhere => auth.handle_tokens_stored_elsewhere(&cx, conn),
            AuthInput::StateChanged => auth.handle_state_changed(&cx),
            AuthInput::SignIn => auth.handle_sign_in(&cx),
            AuthInput::CancelSignIn => auth.handle_cancel_by_user(),
            AuthInput::SignOut => auth.handle_sign_out(&cx),
            AuthInput::WaitExpired(_) => {
                result = conn.is_some_and(|conn| auth.handle_wait_expired(&cx, conn));
            }
        }
        let outputs = auth.poll_outputs();
        Some((name, result, outputs))
    }

    /// Whether `conn`'s server signs in with OAuth (None: no such connection
    /// or server): a challenge on any other is an HTTP status.
    pub(in crate::engine) fn signs_in_on(&self, conn: ConnId) -> Option<bool> {
        let server = self.get(self.server_of(conn)?)?;
        Some(uses_oauth(server.config()))
    }

    /// The message `refused` by a challenge on `conn`: held, as its `send`
    /// said it, when the connection is still open (not ended for a sign-in
    /// it cannot wait for).
    pub(in crate::engine) fn hold_refused(
        &mut self,
        ctx: &mut ServerCtx,
        conn: ConnId,
        refused: String,
    ) {
        if let Ok(message) = serde_json::from_str::<serde_json::Value>(&refused) {
            self.send_text(ctx, conn, refused, &message);
        }
    }

    /// Carries out one output of `name`'s auth machine that only the
    /// servers' state takes (a request to the host, a log line, the held
    /// connection resumed or bound, the last error, the cataloguing queue,
    /// the sign-in announcements). Returns the others, for the router (a
    /// state change, stopping, the clients). `on`: the connection whose wait
    /// ended (`WaitEnded`).
    pub(in crate::engine) fn auth_output(
        &mut self,
        ctx: &mut ServerCtx,
        name: &str,
        output: AuthOutput,
        on: Option<ConnId>,
    ) -> Option<AuthOutput> {
        match output {
            AuthOutput::Request(request) => {
                if let Some(oauth) = self.binding_of(ctx.catalogue, name) {
                    self.outbox().push(request.effect(name.to_string(), oauth));
                }
            }
            AuthOutput::Log(level, message) => self.log(level, Some(name), message),
            AuthOutput::Resume => self.resume_connection(ctx, name),
            AuthOutput::BoundByCalls => {
                let server = self.get(name);
                let timer = server
                    .and_then(|s| s.connect().conn())
                    .and_then(|c| self.conn(c))
                    .and_then(|c| c.handshake_timer());
                if let Some(timer) = timer {
                    // The server's `timeout` key, else `requestTimeoutMs` (as a call's).
                    let bound = server.and_then(|s| s.config().timeout_ms);
                    let bound = bound.unwrap_or(ctx.settings.request_timeout_ms);
                    ctx.timers
                        .handle_rearm(timer, ctx.now_ms.saturating_add(bound));
                }
            }
            AuthOutput::WaitEnded => {
                if let Some(timer) = on
                    .and_then(|c| self.conn_mut(c))
                    .and_then(|c| c.take_handshake_timer())
                {
                    ctx.timers.handle_cancel(timer);
                }
            }
            AuthOutput::LastError(error) => {
                if let Some(server) = self.server_mut(name) {
                    server.last_error(error);
                }
            }
            AuthOutput::Catalogue => self.enqueue_catalogue(name),
            other => return self.sign_in_noted(name, other),
        }
        None
    }

    /// The servers whose sign-in takes tokens another window or process
    /// stored for `url`.
    pub(in crate::engine) fn taking_tokens_for(&self, url: &str) -> Vec<String> {
        self.iter()
            .filter(|(_, s)| {
                s.auth().takes_tokens_from_elsewhere()
                    && binding(s.config()).is_some_and(|b| b.url == url)
            })
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// The held connection of `name` goes on: back to the handshake's own
    /// bound when still handshaking, and what it held is sent (with the token
    /// the host now has).
    fn resume_connection(&mut self, ctx: &mut ServerCtx, name: &str) {
        let Some(server) = self.get(name) else {
            return;
        };
        // The server's `timeout` key bounds its handshake, else `handshakeTimeoutMs`.
        let bound = (server.config().timeout_ms).unwrap_or(ctx.settings.handshake_timeout_ms);
        let Some(connection) = server.connect().conn().and_then(|c| self.conn_mut(c)) else {
            return;
        };
        let mut held = connection.take_held_sends();
        let timer = connection
            .is_handshaking()
            .then(|| connection.handshake_timer())
            .flatten();
        if let Some(timer) = timer {
            ctx.timers
                .handle_rearm(timer, ctx.now_ms.saturating_add(bound));
        }
        self.outbox().append(&mut held);
    }

    /// The binding of `name` with the resource metadata URL learned from its
    /// challenges (this run, else the catalogue's).
    pub(in crate::engine) fn binding_of(
        &self,
        catalogue: &Catalogue,
        name: &str,
    ) -> Option<OAuthBinding> {
        let mut binding = self.get(name).and_then(|s| binding(s.config()))?;
        binding.resource_metadata_url = self.learned_resource_metadata_url(catalogue, name);
        Some(binding)
    }

    /// The resource metadata URL a challenge of `name` advertised.
    pub(in crate::engine) fn learned_resource_metadata_url(
        &self,
        catalogue: &Catalogue,
        name: &str,
    ) -> Option<String> {
        self.get(name)
            .and_then(|s| s.auth().resource_metadata_url().map(str::to_string))
            .or_else(|| {
                catalogue
                    .get(name)
                    .and_then(|e| e.resource_metadata_url.clone())
            })
    }

    /// Diagnostics' view of a server's sign-in (None: it does not use OAuth).
    pub(in crate::engine) fn auth_snapshot(
        &self,
        settings: &Settings,
        name: &str,
    ) -> Option<AuthSnapshot> {
        let server = self.get(name)?;
        server.auth().snapshot(&AuthContext {
            name,
            state: server.state(),
            oauth: uses_oauth(server.config()),
            may_wait: settings.sign_in_may_wait,
        })
    }

    /// Whether `name`'s connection is for calls, and the tool a waiting call
    /// wants (named in a sign-in prompt): what a sign-in decision reads.
    fn call_waiting(&self, name: &str) -> (bool, Option<String>) {
        let Some(server) = self.get(name) else {
            return (false, None);
        };
        let conn = server.connect().conn().and_then(|c| self.conn(c));
        let interactive = conn.is_some_and(|c| c.purpose() == Purpose::Connect);
        // One waiting for the connection, else one held on it (a 401/403 mid-session).
        let tool = server.connect().waiting_tool().or_else(|| {
            conn?
                .calls()
                .find_map(|(_, call)| call.tool_name().map(str::to_string))
        });
        (interactive, tool)
    }

    /// The connection is held for a sign-in started for its calls.
    pub(in crate::engine) fn call_awaits_sign_in(&self, conn: ConnId) -> bool {
        self.conn(conn).is_some_and(|c| {
            self.get(c.server())
                .is_some_and(|s| s.auth().awaits_sign_in_for_calls(c.auth()))
        })
    }
}
