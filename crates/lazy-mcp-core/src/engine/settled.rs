//! When the servers have settled: none PENDING, CATALOGUING or CONNECTING any
//! more after some was. The engine says so with one `catalogueSettled` effect
//! each time the last busy server settles, so a host that waits for complete
//! lists (`serve`, before its first client is answered) waits on an effect
//! instead of polling the snapshot.

use crate::engine::effects::Effect;
use crate::engine::router::Engine;
use crate::engine::server_actions::{progress, Progress};

pub(in crate::engine) mod settling;

impl Engine {
    /// At the end of an event that changed a server's state (or removed one):
    /// `catalogueSettled` when none is busy now and some was before.
    pub(super) fn flush_settled(&mut self) {
        let changed = self.effects.iter().any(|e| {
            matches!(
                e,
                Effect::StateChanged { .. } | Effect::ServerRemoved { .. }
            )
        });
        if !changed {
            return;
        }
        let busy = self
            .servers
            .values()
            .any(|s| progress(s.state()) == Progress::Busy);
        if self.settling.states_changed(busy) {
            self.effects.push(Effect::CatalogueSettled {});
        }
    }
}
