//! What the user was told and what they wait to hear about, and what is said
//! when a server fails (the rules are `announce.rs`'s module doc). Apart from
//! `announce.rs` (which builds the `announce` effects) so that the router
//! names it without importing the code that drives it (no import cycle); its
//! fields are this file's own.

use crate::engine::effects::AnnounceAction;
use crate::engine::state::ServerState;
use crate::vec_map::{VecMap, VecSet};

#[derive(Debug, Default)]
pub(in crate::engine) struct Announcements {
    /// Servers whose failure was announced this session (never twice).
    announced: VecSet<String>,
    /// Server → the user action (its command title) whose outcome is awaited.
    awaiting: VecMap<String, &'static str>,
    /// First-cataloguing failures not yet summarized: (server, error).
    batch: Vec<(String, String)>,
}

/// A failure to tell now: its words and the actions the notification offers.
#[derive(Debug, PartialEq)]
pub(in crate::engine) struct FailureNotice {
    pub(in crate::engine) message: String,
    pub(in crate::engine) actions: Vec<AnnounceAction>,
}

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
pub(in crate::engine) fn connect_failure_prefix(name: &str) -> String {
    format!("Could not connect to MCP server '{name}': ")
}

/// `error` without the [`connect_failure_prefix`], for a sentence that names the
/// server itself ("MCP server 'x' could not be catalogued: …"): said once.
fn cause_of<'e>(name: &str, error: &'e str) -> &'e str {
    error
        .strip_prefix(&connect_failure_prefix(name))
        .unwrap_or(error)
}

impl Announcements {
    /// The user asked for `action` on `name`: its failure will be announced.
    pub(in crate::engine) fn awaits(&mut self, name: &str, action: &'static str) {
        self.awaiting.insert(name.to_string(), action);
    }

    /// A connection of `name` failed with `error` (`auth`: it needs a sign-in;
    /// `catalogued`: it has worked before). What to tell now: the failure of
    /// an action the user awaits, always; a server that worked before, once
    /// per session; a first cataloguing's failure waits for the summary.
    pub(in crate::engine) fn failed(
        &mut self,
        name: &str,
        error: &str,
        auth: bool,
        catalogued: bool,
    ) -> Option<FailureNotice> {
        let step = next_step(auth.then_some(&ServerState::NeedsAuth), error);
        if let Some(action) = self.awaiting.remove(name) {
            self.announced.insert(name.to_string());
            return Some(FailureNotice {
                message: format!("{action} failed: {error}.{step}"),
                actions: vec![
                    AnnounceAction::OpenDefinition,
                    AnnounceAction::ShowDiagnostics,
                ],
            });
        }
        if !self.announced.insert(name.to_string()) {
            return None;
        }
        if catalogued {
            return Some(FailureNotice {
                message: format!(
                    "MCP server '{name}' stopped working: {}.{step}",
                    cause_of(name, error)
                ),
                actions: vec![AnnounceAction::ShowDiagnostics],
            });
        }
        self.batch.push((name.to_string(), error.to_string()));
        None
    }

    /// Whether first-cataloguing failures wait for their summary.
    pub(in crate::engine) fn has_batch(&self) -> bool {
        !self.batch.is_empty()
    }

    /// The one summary of the first-cataloguing failures collected (taken):
    /// the server it names alone, and its words. `state_of` gives a server's
    /// state now (its next step depends on it).
    pub(in crate::engine) fn take_summary<'s>(
        &mut self,
        state_of: impl Fn(&str) -> Option<&'s ServerState>,
    ) -> Option<(Option<String>, String)> {
        if self.batch.is_empty() {
            return None;
        }
        let mut batch = std::mem::take(&mut self.batch);
        // By name, not by which failed first: the same failures read the same
        // however fast each spawn or request failed (a shared spawn takes longer).
        crate::sorting::sort_by(&mut batch, |a, b| a.0.cmp(&b.0));
        Some(match batch.as_slice() {
            [(name, error)] => (
                Some(name.clone()),
                format!(
                    "MCP server '{name}' could not be catalogued: {}.{}",
                    cause_of(name, error),
                    next_step(state_of(name), error)
                ),
            ),
            _ => (
                None,
                format!(
                    "{} MCP servers could not be catalogued: {}. MCP Diagnostics shows why.",
                    batch.len(),
                    batch
                        .iter()
                        .map(|(name, _)| format!("'{name}'"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
        })
    }

    /// A new definition (its launch config changed) or none: a new server as far
    /// as announcements go.
    pub(in crate::engine) fn forget(&mut self, name: &str) {
        self.announced.remove(name);
        self.awaiting.remove(name);
        self.batch.retain(|(server, _)| server != name);
    }

    /// A server reached a state that shows the outcome of the user's action.
    pub(in crate::engine) fn settled(&mut self, name: &str, state: &ServerState) {
        if matches!(
            state,
            ServerState::Connected
                | ServerState::Catalogued
                | ServerState::Disabled
                | ServerState::Dormant
        ) {
            self.awaiting.remove(name);
        }
    }
}

#[cfg(test)]
#[path = "announcements_tests.rs"]
mod tests;
