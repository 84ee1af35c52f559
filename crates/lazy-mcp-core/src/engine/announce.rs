//! What the user is told in a notification, and when. Rules:
//! - an action the user took (Connect Now, Enable, Refresh…) that fails or
//!   cannot be done is always answered, with the reason and a next step;
//! - a server that fails after having worked (it has a catalogue: a crash loop,
//!   a connect failure on a call) is announced once per server and session;
//! - servers that fail their first cataloguing (startup, a config edit) are
//!   summarized in one announcement once no cataloguing is in progress;
//! - a changed launch config makes a new server: its failure is told again;
//! - automatic retries that fail again say nothing more.
//!
//! The host only shows the `announce` effects (VS Code: a non-modal toast).

use crate::engine::effects::{AnnounceAction, Effect, LogLevel};
use crate::engine::router::Engine;
use crate::engine::server::state::ServerState;
use crate::engine::server::Server;

pub(in crate::engine) mod announcements;

pub(super) use announcements::connect_failure_prefix;

impl Engine {
    /// The user's action cannot be carried out: say why at once.
    pub(super) fn refuse_action(&mut self, name: Option<&str>, message: String) {
        self.push_announce(LogLevel::Info, name, message, vec![]);
    }

    fn push_announce(
        &mut self,
        level: LogLevel,
        server: Option<&str>,
        message: String,
        actions: Vec<AnnounceAction>,
    ) {
        self.effects.push(Effect::Announce {
            level,
            server: server.map(str::to_string),
            message,
            actions,
            servers: Vec::new(),
        });
    }

    /// A connection of `name` failed with `error` (called before the state
    /// changes): told now, once, or in the summary (`Announcements::failed`).
    pub(super) fn note_failure(&mut self, name: &str, error: &str, auth: bool) {
        let catalogued = self.current_entry(name).is_some();
        if let Some(told) = self.announce.failed(name, error, auth, catalogued) {
            self.push_announce(LogLevel::Warn, Some(name), told.message, told.actions);
        }
    }

    /// Once no server is waiting for or in its cataloguing, one summary of the
    /// cataloguing failures collected meanwhile.
    pub(super) fn flush_announcements(&mut self) {
        if !self.announce.has_batch()
            || self
                .servers
                .values()
                .any(|s| matches!(s.state(), ServerState::Pending | ServerState::Cataloguing))
        {
            return;
        }
        let servers = &self.servers;
        let summary = self
            .announce
            .take_summary(|name| servers.get(name).map(Server::state));
        if let Some((server, message)) = summary {
            self.push_announce(
                LogLevel::Warn,
                server.as_deref(),
                message,
                vec![AnnounceAction::ShowDiagnostics],
            );
        }
    }
}
