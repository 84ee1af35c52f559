//! The router's side of what the user is told (`announce.rs`): a refused
//! action and a connection's failure, pushed with the event's effects. The
//! rules of when a failure is told are `Announcements`' own; this only reads
//! what it needs (whether the server has a catalogue) and pushes the result.

use crate::engine::announce::{announcement, refusal};
use crate::engine::effects::LogLevel;
use crate::engine::router::Engine;

impl Engine {
    /// The user's action cannot be carried out: say why at once.
    pub(in crate::engine) fn refuse_action(&mut self, name: Option<&str>, message: String) {
        self.effects.push(refusal(name, message));
    }

    /// A connection of `name` failed with `error` (called before the state
    /// changes): told now, once, or in the summary (`Announcements::failed`).
    pub(in crate::engine) fn note_failure(&mut self, name: &str, error: &str, auth: bool) {
        let catalogued = self.current_entry(name).is_some();
        if let Some(told) = self.announce.failed(name, error, auth, catalogued) {
            let notice = announcement(LogLevel::Warn, Some(name), told.message, told.actions);
            self.effects.push(notice);
        }
    }
}
