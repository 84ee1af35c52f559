//! The simulated host's OAuth side: a token store per server (a generation
//! number stands for the token), an upstream that refuses stale tokens with
//! 401 and holds the refused requests like the real HTTP connection, and the
//! refresh / sign-in effects answered as scripted. Counts what a user or an
//! authorization server would notice: sign-ins started, refreshes, deletions.

use super::{call, config, server_endpoint, FakeServer, Sim};
use lazy_mcp_core::config::model::{ServerConfig, Transport};
use lazy_mcp_core::engine::auth::{RefreshOutcome, SignInOutcome};
use lazy_mcp_core::engine::{AnnounceAction, ConnId, Effect, Event, ServerState, Settings};
use lazy_mcp_core::vec_map::VecMap;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

/// How the next refresh / sign-in ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Answered at once with this outcome.
    Now(bool),
    /// Not answered until the test says so (to line up concurrent calls).
    Later,
}

#[derive(Debug)]
pub struct OAuthHost {
    /// Server → the stored token's generation (None: no tokens).
    pub stored: BTreeMap<String, Option<u32>>,
    /// Server → the generation the upstream accepts.
    pub accepted: BTreeMap<String, u32>,
    /// Connections opened with an OAuth binding.
    pub oauth_conns: BTreeSet<ConnId>,
    /// Requests held after a 401, per connection.
    pub held: BTreeMap<ConnId, Vec<Value>>,
    pub refresh_answer: Answer,
    /// The refresh token is revoked: refreshes end `invalidGrant`.
    pub revoked: bool,
    pub sign_in_answer: Option<SignInOutcome>,
    pub refreshes: usize,
    pub sign_ins: usize,
    /// Server → the attempt of its last `startSignIn` (echoed when it ends).
    pub attempts: BTreeMap<String, u32>,
    /// `cancelSignIn` effects carried out (server, attempt).
    pub cancels: Vec<(String, u32)>,
    /// Scopes `requireScopes` asked to keep, per server.
    pub required_scopes: BTreeMap<String, String>,
    pub deletions: usize,
    pub client_forgotten: usize,
    /// Remote servers that need no sign-in (they answer without a token).
    pub public: BTreeSet<String>,
    /// (tool, scope): the upstream refuses a call of `tool` with 403
    /// `insufficient_scope` until a sign-in was granted `scope`.
    pub scoped_tool: Option<(String, String)>,
    /// The authorization server grants the scopes a sign-in asks for.
    pub grants_asked_scope: bool,
    /// Scopes the stored token was granted.
    pub granted: BTreeSet<String>,
    /// The scope of the last `startSignIn` (None: none named).
    pub asked_scope: Option<String>,
}

impl Default for OAuthHost {
    fn default() -> Self {
        OAuthHost {
            stored: BTreeMap::new(),
            accepted: BTreeMap::new(),
            oauth_conns: BTreeSet::new(),
            held: BTreeMap::new(),
            refresh_answer: Answer::Now(true),
            revoked: false,
            sign_in_answer: None,
            refreshes: 0,
            sign_ins: 0,
            attempts: BTreeMap::new(),
            cancels: Vec::new(),
            required_scopes: BTreeMap::new(),
            deletions: 0,
            client_forgotten: 0,
            public: BTreeSet::new(),
            scoped_tool: None,
            grants_asked_scope: true,
            granted: BTreeSet::new(),
            asked_scope: None,
        }
    }
}

impl Sim {
    /// Signs `server` in (as `auth login` would have): a valid token stored.
    pub fn store_valid_token(&mut self, server: &str) {
        let generation = self.oauth.accepted.get(server).copied().unwrap_or(1);
        self.oauth.accepted.insert(server.into(), generation);
        self.oauth.stored.insert(server.into(), Some(generation));
    }

    /// The access token expires: the upstream accepts only a newer one.
    pub fn expire_token(&mut self, server: &str) {
        *self.oauth.accepted.entry(server.into()).or_insert(1) += 1;
    }

    fn token_ok(&self, server: &str) -> bool {
        let stored = self.oauth.stored.get(server).copied().flatten();
        stored.is_some() && stored == self.oauth.accepted.get(server).copied()
    }

    /// A `send` on an OAuth connection without an accepted token is refused
    /// with a challenge: handed back in `authRequired` (the engine holds it),
    /// like the host's HTTP connection does.
    pub(crate) fn oauth_refuses(&mut self, server: &str, message: &Value, refused: Effect) -> bool {
        let Effect::Send {
            conn,
            message: text,
            ..
        } = refused
        else {
            return false;
        };
        if !self.oauth.oauth_conns.contains(&conn) || self.oauth.public.contains(server) {
            return false;
        }
        let (status, challenge, had_token) = if self.token_ok(server) {
            let Some((tool, scope)) = self.oauth.scoped_tool.clone() else {
                return false;
            };
            if message["params"]["name"] != tool.as_str() || self.oauth.granted.contains(&scope) {
                return false;
            }
            let challenge = format!(
                r#"Bearer error="insufficient_scope", scope="{scope}", resource_metadata="http://127.0.0.1/prm/{server}""#
            );
            (403, challenge, true)
        } else {
            let had_token = self.oauth.stored.get(server).copied().flatten().is_some();
            let challenge =
                "Bearer resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource\"";
            (401, challenge.to_string(), had_token)
        };
        self.queue.push_back(Event::AuthRequired {
            conn,
            status,
            challenge: Some(challenge),
            had_token,
            message: text,
        });
        true
    }

    /// Carries out the OAuth effects; gives back the others.
    pub(crate) fn perform_oauth(&mut self, effect: Effect) -> Option<Effect> {
        match effect {
            Effect::Open {
                conn, ref oauth, ..
            } => {
                if oauth.is_some() {
                    self.oauth.oauth_conns.insert(conn);
                }
                Some(effect)
            }
            Effect::RefreshTokens { server, .. } => {
                self.oauth.refreshes += 1;
                if let Answer::Now(ok) = self.oauth.refresh_answer {
                    self.finish_refresh(&server, ok);
                }
                None
            }
            Effect::StartSignIn {
                server,
                attempt,
                scope,
                ..
            } => {
                self.oauth.sign_ins += 1;
                self.oauth.asked_scope = scope;
                self.oauth.attempts.insert(server.clone(), attempt);
                if let Some(outcome) = self.oauth.sign_in_answer {
                    self.finish_sign_in(&server, outcome);
                }
                None
            }
            Effect::CancelSignIn {
                server, attempt, ..
            } => {
                // Like the host: the flow ends and reports itself cancelled.
                self.oauth.cancels.push((server.clone(), attempt));
                self.queue.push_back(Event::SignInFinished {
                    server,
                    outcome: SignInOutcome::Cancelled,
                    message: "the sign-in was cancelled".into(),
                    attempt,
                });
                None
            }
            Effect::RequireScopes { server, scope, .. } => {
                self.oauth.required_scopes.insert(server, scope);
                None
            }
            Effect::DeleteTokens {
                server,
                forget_client,
                ..
            } => {
                self.oauth.deletions += 1;
                if forget_client {
                    self.oauth.client_forgotten += 1;
                }
                self.oauth.stored.insert(server, None);
                None
            }
            other => Some(other),
        }
    }

    /// Ends the refresh under way (`ok`: a new accepted token is stored).
    pub fn finish_refresh(&mut self, server: &str, ok: bool) {
        let outcome = if self.oauth.revoked {
            RefreshOutcome::InvalidGrant
        } else if ok {
            let generation = self.oauth.accepted.get(server).copied().unwrap_or(1);
            self.oauth.stored.insert(server.into(), Some(generation));
            RefreshOutcome::Ok
        } else {
            RefreshOutcome::Failed
        };
        self.queue.push_back(Event::RefreshFinished {
            server: server.into(),
            outcome,
            message: if outcome == RefreshOutcome::Failed {
                "the token endpoint did not answer within 10000 ms".into()
            } else {
                String::new()
            },
        });
    }

    /// Ends the sign-in under way (`Ok`: a valid token is stored).
    pub fn finish_sign_in(&mut self, server: &str, outcome: SignInOutcome) {
        let attempt = self.oauth.attempts.get(server).copied().unwrap_or(0);
        self.finish_sign_in_attempt(server, outcome, attempt);
    }

    /// Ends sign-in `attempt` (an older one than the current: a stale end).
    pub fn finish_sign_in_attempt(&mut self, server: &str, outcome: SignInOutcome, attempt: u32) {
        if outcome == SignInOutcome::Ok {
            self.oauth.revoked = false;
            self.store_valid_token(server);
            if self.oauth.grants_asked_scope {
                if let Some(asked) = self.oauth.asked_scope.clone() {
                    self.oauth
                        .granted
                        .extend(asked.split(' ').map(str::to_string));
                }
            }
        }
        self.queue.push_back(Event::SignInFinished {
            server: server.into(),
            outcome,
            message: String::new(),
            attempt,
        });
    }
}

// Shared by the OAuth test files.

pub fn remote(name: &str) -> ServerConfig {
    ServerConfig {
        transport: Transport::Http {
            url: format!("http://127.0.0.1:9/{name}/mcp"),
            headers: VecMap::new(),
        },
        ..config(name)
    }
}

/// `linear` signed in and connected (one call of `create_issue` answered); its
/// `admin_note` needs scope `mcp:admin`, which the stored token lacks.
pub fn with_scoped_tool(settings: Settings) -> Sim {
    let mut sim = Sim::new(settings).fake(
        "linear",
        FakeServer::with_tools(&["create_issue", "admin_note"]),
    );
    sim.oauth.scoped_tool = Some(("admin_note".into(), "mcp:admin".into()));
    sim.store_valid_token("linear");
    sim.apply(vec![remote("linear")]);
    sim.client("c", server_endpoint("linear"), call(1, "create_issue"));
    assert!(sim.reply_to("c", json!(1)).unwrap()["result"].is_object());
    sim
}

pub fn vscode() -> Settings {
    Settings {
        sign_in_may_wait: true,
        ..Settings::default()
    }
}

pub fn sign_in_effects(sim: &Sim) -> Vec<(String, Option<String>)> {
    sim.effects
        .iter()
        .filter_map(|e| match e {
            Effect::StartSignIn {
                server, tool_name, ..
            } => Some((server.clone(), tool_name.clone())),
            _ => None,
        })
        .collect()
}

pub fn announcements(sim: &Sim) -> Vec<(String, Vec<AnnounceAction>, Vec<String>)> {
    sim.effects
        .iter()
        .filter_map(|e| match e {
            Effect::Announce {
                message,
                actions,
                servers,
                ..
            } => Some((message.clone(), actions.clone(), servers.clone())),
            _ => None,
        })
        .collect()
}

pub fn text_of(reply: &Value) -> String {
    reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

pub fn error_of(reply: &Value) -> String {
    reply["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// A signed-in, catalogued and connected server `linear` (tool `create_issue`).
pub fn connected(settings: Settings) -> Sim {
    let mut sim = Sim::new(settings).fake("linear", FakeServer::with_tools(&["create_issue"]));
    sim.store_valid_token("linear");
    sim.apply(vec![remote("linear")]);
    assert_eq!(sim.state("linear"), Some(ServerState::Catalogued));
    sim.client("c", server_endpoint("linear"), call(1, "create_issue"));
    assert_eq!(
        text_of(&sim.reply_to("c", json!(1)).unwrap()),
        r#"linear:create_issue:{"text":"hi"}"#
    );
    sim
}
