//! What the user was told and what they wait to hear about: the state
//! `announce.rs` keeps between events. Apart from that code so that the router
//! names it without importing the code that drives it (no import cycle); its
//! fields stay `announce.rs`'s own.

use crate::engine::server::state::ServerState;
use crate::vec_map::{VecMap, VecSet};

#[derive(Debug, Default)]
pub(in crate::engine) struct Announcements {
    /// Servers whose failure was announced this session (never twice).
    pub(super) announced: VecSet<String>,
    /// Server → the user action (its command title) whose outcome is awaited.
    pub(super) awaiting: VecMap<String, &'static str>,
    /// First-cataloguing failures not yet summarized: (server, error).
    pub(super) batch: Vec<(String, String)>,
}

impl Announcements {
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
