//! When the servers have settled: none PENDING, CATALOGUING or CONNECTING any
//! more after some was. The engine says so with one `catalogueSettled` effect
//! each time the last busy server settles, so a host that waits for complete
//! lists (`serve`, before its first client is answered) waits on an effect
//! instead of polling the snapshot.

use crate::engine::effects::Effect;
use crate::engine::server::Servers;
use crate::engine::server_actions::{progress, Progress};

pub(in crate::engine) mod settling;

use settling::Settling;

impl Settling {
    /// At the end of an event that changed a server's state (or removed one;
    /// `effects`: the event's so far): `catalogueSettled` when none is busy
    /// now and some was before.
    pub(in crate::engine) fn poll_settled(
        &mut self,
        effects: &[Effect],
        servers: &Servers,
    ) -> Option<Effect> {
        let changed = effects.iter().any(|e| {
            matches!(
                e,
                Effect::StateChanged { .. } | Effect::ServerRemoved { .. }
            )
        });
        if !changed {
            return None;
        }
        let busy = servers
            .values()
            .any(|s| progress(s.state()) == Progress::Busy);
        self.states_changed(busy)
            .then_some(Effect::CatalogueSettled {})
    }
}
