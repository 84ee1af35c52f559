//! The servers waiting to be catalogued, one at a time per free slot. Owned
//! by `Servers` (a field of it): queued once each, taken in order, and
//! dropped when the server connects, is withdrawn or has a warm catalogue.

use std::collections::VecDeque;

#[derive(Debug, Default)]
pub(in crate::engine::server) struct CatalogueQueue {
    names: VecDeque<String>,
}

impl CatalogueQueue {
    /// `name` wants cataloguing: queued, unless it is already.
    pub(in crate::engine::server) fn handle_wanted(&mut self, name: &str) {
        if !self.names.iter().any(|queued| queued == name) {
            self.names.push_back(name.to_string());
        }
    }

    /// `name` needs no cataloguing from the queue any more.
    pub(in crate::engine::server) fn handle_gone(&mut self, name: &str) {
        self.names.retain(|queued| queued != name);
    }

    pub(in crate::engine::server) fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The next server to catalogue (a slot is free).
    pub(in crate::engine::server) fn poll_next(&mut self) -> Option<String> {
        self.names.pop_front()
    }
}

#[cfg(test)]
#[path = "queue_tests.rs"]
mod tests;
