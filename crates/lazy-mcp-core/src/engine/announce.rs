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

pub(in crate::engine) mod announcements;

/// The next step after a failure, in words a user can act on; none when the
/// error already says what to do (e.g. "command not found (ENOENT); check that
/// it is installed and on PATH").
fn next_step(state: Option<&ServerState>, error: &str) -> &'static str {
    match state {
        Some(ServerState::NeedsAuth) => "",
        _ if gives_next_step(error) => "",
        _ => " Check its definition (command, URL, env), then use Connect Now to try again.",
    }
}

/// Whether `error` (before the server's own stderr, which may say anything)
/// already tells the user what to do, in the words Lazy MCP's messages use.
fn gives_next_step(error: &str) -> bool {
    let ours = error
        .split("; stderr: ")
        .next()
        .unwrap_or_default()
        .to_lowercase();
    ["check ", "run `", "then use ", "fix the "]
        .iter()
        .any(|step| ours.contains(step))
}

/// How every connection failure starts: "Could not connect to MCP server 'x': ".
pub(super) fn connect_failure_prefix(name: &str) -> String {
    format!("Could not connect to MCP server '{name}': ")
}

/// `error` without the [`connect_failure_prefix`], for a sentence that names the
/// server itself ("MCP server 'x' could not be catalogued: …"): said once.
fn cause_of<'e>(name: &str, error: &'e str) -> &'e str {
    error
        .strip_prefix(&connect_failure_prefix(name))
        .unwrap_or(error)
}

impl Engine {
    /// The user asked for `action` on `name`: its failure will be announced.
    pub(super) fn await_outcome(&mut self, name: &str, action: &'static str) {
        self.announce.awaiting.insert(name.to_string(), action);
    }

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

    /// A connection of `name` failed with `error` (called before the state changes).
    pub(super) fn note_failure(&mut self, name: &str, error: &str, auth: bool) {
        let step = if auth {
            next_step(Some(&ServerState::NeedsAuth), error)
        } else {
            next_step(None, error)
        };
        if let Some(action) = self.announce.awaiting.remove(name) {
            self.announce.announced.insert(name.to_string());
            self.push_announce(
                LogLevel::Warn,
                Some(name),
                format!("{action} failed: {error}.{step}"),
                vec![
                    AnnounceAction::OpenDefinition,
                    AnnounceAction::ShowDiagnostics,
                ],
            );
            return;
        }
        if !self.announce.announced.insert(name.to_string()) {
            return;
        }
        if self.current_entry(name).is_some() {
            self.push_announce(
                LogLevel::Warn,
                Some(name),
                format!(
                    "MCP server '{name}' stopped working: {}.{step}",
                    cause_of(name, error)
                ),
                vec![AnnounceAction::ShowDiagnostics],
            );
        } else {
            self.announce
                .batch
                .push((name.to_string(), error.to_string()));
        }
    }

    /// Once no server is waiting for or in its cataloguing, one summary of the
    /// cataloguing failures collected meanwhile.
    pub(super) fn flush_announcements(&mut self) {
        if self.announce.batch.is_empty()
            || self
                .servers
                .values()
                .any(|s| matches!(s.state(), ServerState::Pending | ServerState::Cataloguing))
        {
            return;
        }
        let mut batch = std::mem::take(&mut self.announce.batch);
        // By name, not by which failed first: the same failures read the same
        // however fast each spawn or request failed (a shared spawn takes longer).
        crate::sorting::sort_by(&mut batch, |a, b| a.0.cmp(&b.0));
        let message = match batch.as_slice() {
            [(name, error)] => format!(
                "MCP server '{name}' could not be catalogued: {}.{}",
                cause_of(name, error),
                next_step(self.state(name), error)
            ),
            _ => format!(
                "{} MCP servers could not be catalogued: {}. MCP Diagnostics shows why.",
                batch.len(),
                batch
                    .iter()
                    .map(|(name, _)| format!("'{name}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let server = match batch.as_slice() {
            [(name, _)] => Some(name.clone()),
            _ => None,
        };
        self.push_announce(
            LogLevel::Warn,
            server.as_deref(),
            message,
            vec![AnnounceAction::ShowDiagnostics],
        );
    }
}
