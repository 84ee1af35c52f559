//! The persisted catalogue read back at start: entries merged under the ones
//! this run already has, and servers waiting for a cataloguing that the loaded
//! entries make warm (no spawn).

use crate::engine::effects::LogLevel;
use crate::engine::router::Engine;
use crate::engine::server::state::{ServerState, Trigger};

impl Engine {
    pub(in crate::engine) fn on_catalogue_loaded(&mut self, blob: &str) {
        let servers = &self.servers;
        let fingerprint_of = |name: &str| servers.get(name).map(|s| s.config().fingerprint.clone());
        if let Err(why) = self.catalogue.loaded(blob, fingerprint_of) {
            self.log(LogLevel::Warn, None, why);
            return;
        }
        self.clients.exposure_changed();
        let names: Vec<String> = self.servers.keys().cloned().collect();
        for name in names {
            let Some(server) = self.servers.get(&name) else {
                continue;
            };
            let warm = self
                .catalogue
                .warm(&name, &server.config().fingerprint)
                .is_some();
            if warm
                && matches!(
                    server.state(),
                    ServerState::Pending | ServerState::Failed { .. }
                )
            {
                let retry = server.retry_timer();
                self.timers.cancel_armed(retry);
                self.servers.unqueue_catalogue(&name);
                self.transition(&name, Trigger::WarmCatalogueFound);
            }
            if warm {
                self.report_dropped_declared_tools(&name);
            }
        }
        self.recheck_all_definitions();
    }
}
