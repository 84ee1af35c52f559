//! The persisted catalogue read back at start: entries merged under the ones
//! this run already has, and servers waiting for a cataloguing that the loaded
//! entries make warm (no spawn).

use crate::engine::effects::LogLevel;
use crate::engine::registry::catalogue::Catalogue;
use crate::engine::router::Engine;
use crate::engine::server::connect::is_warm;
use crate::engine::server::state::{ServerState, Trigger};

impl Engine {
    pub(in crate::engine) fn on_catalogue_loaded(&mut self, blob: &str) {
        let loaded = match Catalogue::from_blob(blob) {
            Ok(loaded) => loaded,
            Err(why) => {
                self.log(LogLevel::Warn, None, why);
                return;
            }
        };
        for (name, entry) in loaded.entries {
            let ours_is_current = match (self.catalogue.entries.get(&name), self.servers.get(&name))
            {
                (Some(ours), Some(server)) => ours.fingerprint == server.config().fingerprint,
                (Some(_), None) => true,
                (None, _) => false,
            };
            if !ours_is_current {
                self.catalogue.entries.insert(name, entry);
            }
        }
        self.clients.exposure_changed();
        // Vectors made by another model version are recomputed (once).
        self.tool_vectors_pending = true;
        let names: Vec<String> = self.servers.keys().cloned().collect();
        for name in names {
            let Some(server) = self.servers.get(&name) else {
                continue;
            };
            let warm = is_warm(
                self.catalogue.entries.get(&name),
                &server.config().fingerprint,
            );
            if warm
                && matches!(
                    server.state(),
                    ServerState::Pending | ServerState::Failed { .. }
                )
            {
                let retry = server.retry_timer();
                self.cancel_timer(retry);
                self.catalogue_queue.retain(|queued| queued != &name);
                self.transition(&name, Trigger::WarmCatalogueFound);
            }
            if warm {
                self.report_dropped_declared_tools(&name);
            }
        }
        self.recheck_all_definitions();
    }
}
