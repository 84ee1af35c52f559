//! Session-wide: which servers that need sign-in were announced, and which
//! the user dismissed ("Not now"). A small machine of its own, a field of
//! `Servers` (the servers' auth machines say `Announce`/`Told`/`Unannounce`,
//! `Servers` passes it on), drained with
//! [`SignInAnnouncements::poll_announcement`] at each event's end.

use crate::engine::effects::{AnnounceAction, Effect, LogLevel};
use crate::vec_map::VecSet;

#[derive(Debug, Default)]
pub(in crate::engine) struct SignInAnnouncements {
    announced: VecSet<String>,
    dismissed: VecSet<String>,
    batch: VecSet<String>,
}

impl SignInAnnouncements {
    /// `name` newly needs sign-in: it joins the next announcement.
    pub(in crate::engine) fn handle_needs_sign_in(&mut self, name: &str) {
        self.batch.insert(name.to_string());
    }

    /// The user was just asked about `name`: it is never announced after.
    pub(in crate::engine) fn handle_told(&mut self, name: &str) {
        self.batch.remove(name);
        self.announced.insert(name.to_string());
    }

    /// `name` got tokens: its pending announcement is withdrawn.
    pub(in crate::engine) fn handle_signed_in(&mut self, name: &str) {
        self.batch.remove(name);
    }

    /// The user signs in to `name`: an earlier "Not now" no longer holds.
    pub(in crate::engine) fn handle_sign_in(&mut self, name: &str) {
        self.dismissed.remove(name);
    }

    /// "Not now": these servers are not announced again this session.
    pub(in crate::engine) fn handle_dismissed(&mut self, servers: Vec<String>) {
        for name in servers {
            self.batch.remove(&name);
            self.dismissed.insert(name);
        }
    }

    /// One announcement listing every server that newly needs sign-in, once
    /// no cataloguing is in progress (`cataloguing`, asked only when there
    /// is something to announce); never for a dismissed or already told
    /// server, nor one that no longer `needs_sign_in`.
    pub(in crate::engine) fn poll_announcement(
        &mut self,
        cataloguing: impl FnOnce() -> bool,
        needs_sign_in: impl Fn(&str) -> bool,
        may_wait: bool,
    ) -> Option<Effect> {
        if self.batch.is_empty() || cataloguing() {
            return None;
        }
        let batch = std::mem::take(&mut self.batch);
        let servers: Vec<String> = batch
            .into_iter()
            .filter(|name| {
                !self.dismissed.contains(name)
                    && !self.announced.contains(name)
                    && needs_sign_in(name)
            })
            .collect();
        if servers.is_empty() {
            return None;
        }
        let listed = servers
            .iter()
            .map(|name| format!("'{name}'"))
            .collect::<Vec<_>>()
            .join(", ");
        let message = match servers.as_slice() {
            [name] if !may_wait => format!(
                "MCP server {listed} needs you to sign in: run `lazy-mcp auth login {name}`"
            ),
            [_] => format!("MCP server {listed} needs you to sign in."),
            _ if !may_wait => format!(
                "{} MCP servers need you to sign in: {listed}. Run `lazy-mcp auth login SERVER` for each.",
                servers.len()
            ),
            _ => format!("{} MCP servers need you to sign in: {listed}.", servers.len()),
        };
        for name in &servers {
            self.announced.insert(name.clone());
        }
        Some(Effect::Announce {
            level: LogLevel::Warn,
            server: match servers.as_slice() {
                [name] => Some(name.clone()),
                _ => None,
            },
            message,
            actions: vec![AnnounceAction::SignIn, AnnounceAction::NotNow],
            servers,
        })
    }
}
