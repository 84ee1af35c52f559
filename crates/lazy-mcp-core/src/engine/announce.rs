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
use crate::engine::state::ServerState;
use announcements::Announcements;

pub(in crate::engine) mod announcements;

pub(super) use announcements::connect_failure_prefix;

/// The `announce` effect of one notification.
pub(in crate::engine) fn announcement(
    level: LogLevel,
    server: Option<&str>,
    message: String,
    actions: Vec<AnnounceAction>,
) -> Effect {
    Effect::Announce {
        level,
        server: server.map(str::to_string),
        message,
        actions,
        servers: Vec::new(),
    }
}

/// The user's action cannot be carried out: the `announce` effect that says why at once.
pub(in crate::engine) fn refusal(name: Option<&str>, message: String) -> Effect {
    announcement(LogLevel::Info, name, message, vec![])
}

impl Announcements {
    /// Once no server is waiting for or in its cataloguing (`cataloguing` says
    /// whether one is), one summary of the cataloguing failures collected
    /// meanwhile (the router pushes it). `state_of` reads a server's state: the
    /// servers are the router's to lend, so this folder never imports them.
    pub(in crate::engine) fn poll_summary<'s>(
        &mut self,
        cataloguing: bool,
        state_of: impl Fn(&str) -> Option<&'s ServerState>,
    ) -> Option<Effect> {
        if !self.has_batch() || cataloguing {
            return None;
        }
        let (server, message) = self.take_summary(state_of)?;
        Some(announcement(
            LogLevel::Warn,
            server.as_deref(),
            message,
            vec![AnnounceAction::ShowDiagnostics],
        ))
    }
}
