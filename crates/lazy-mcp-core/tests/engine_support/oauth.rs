//! The simulated host's OAuth side: a token store per server (a generation
//! number stands for the token), an upstream that refuses stale tokens with
//! 401 and holds the refused requests like the real HTTP connection, and the
//! refresh / sign-in effects answered as scripted. Counts what a user or an
//! authorization server would notice: sign-ins started, refreshes, deletions.

use super::Sim;
use lazy_mcp_core::engine::auth::{RefreshOutcome, SignInOutcome};
use lazy_mcp_core::engine::{ConnId, Effect, Event};
use serde_json::Value;
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
    pub deletions: usize,
    pub client_forgotten: usize,
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
            deletions: 0,
            client_forgotten: 0,
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

    /// Requests on an OAuth connection without an accepted token are held and
    /// reported, like the host's HTTP connection does.
    pub(crate) fn oauth_holds(&mut self, conn: ConnId, server: &str, message: &Value) -> bool {
        if !self.oauth.oauth_conns.contains(&conn) || self.token_ok(server) {
            return false;
        }
        self.oauth
            .held
            .entry(conn)
            .or_default()
            .push(message.clone());
        let had_token = self.oauth.stored.get(server).copied().flatten().is_some();
        self.queue.push_back(Event::AuthRequired {
            conn,
            status: 401,
            challenge: Some("Bearer resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource\"".into()),
            had_token,
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
            Effect::ResumeConnection { conn } => {
                let held = self.oauth.held.remove(&conn).unwrap_or_default();
                for message in held {
                    if let Some(server) = self.live.get(&conn).cloned() {
                        if self.oauth_holds(conn, &server, &message) {
                            continue;
                        }
                        self.sent.push((server.clone(), message.clone()));
                        self.answer(conn, &server, &message);
                    }
                }
                None
            }
            Effect::RefreshTokens { server, .. } => {
                self.oauth.refreshes += 1;
                if let Answer::Now(ok) = self.oauth.refresh_answer {
                    self.finish_refresh(&server, ok);
                }
                None
            }
            Effect::StartSignIn { server, .. } => {
                self.oauth.sign_ins += 1;
                if let Some(outcome) = self.oauth.sign_in_answer {
                    self.finish_sign_in(&server, outcome);
                }
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
            Effect::Close { conn } => {
                self.oauth.held.remove(&conn);
                Some(effect)
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
        if outcome == SignInOutcome::Ok {
            self.oauth.revoked = false;
            self.store_valid_token(server);
        }
        self.queue.push_back(Event::SignInFinished {
            server: server.into(),
            outcome,
            message: String::new(),
        });
    }
}
