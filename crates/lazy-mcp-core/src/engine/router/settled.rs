//! At the event's end, `catalogueSettled` when the last busy server settled
//! (`settled.rs` decides; this pushes it with the event's effects).

use crate::engine::router::Engine;

impl Engine {
    /// At the event's end: `catalogueSettled` when due (`Settling::poll_settled`).
    pub(in crate::engine) fn flush_settled(&mut self) {
        if let Some(settled) = self.settling.poll_settled(&self.effects, &self.servers) {
            self.effects.push(settled);
        }
    }
}
