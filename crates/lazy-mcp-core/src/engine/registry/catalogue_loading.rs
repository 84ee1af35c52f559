//! The persisted catalogue read back at start: entries merged under the ones
//! this run already has (`Registry::catalogue_loaded`), and servers waiting
//! for a cataloguing that the loaded entries make warm (no spawn).

use crate::engine::effects::LogLevel;
use crate::engine::registry::machine::Registry;
use crate::engine::router::Engine;
use crate::engine::server::Servers;
use crate::engine::state::{ServerState, Trigger};

impl Engine {
    pub(in crate::engine) fn on_catalogue_loaded(&mut self, blob: &str) {
        if let Err(why) = self.registry.catalogue_loaded(blob, &self.servers) {
            return self.log(LogLevel::Warn, None, why);
        }
        self.clients.exposure_changed();
        let names: Vec<String> = self.servers.keys().cloned().collect();
        for name in names {
            let Some(waiting) = self.registry.made_warm(&name, &self.servers) else {
                continue;
            };
            if waiting {
                self.servers.warm_catalogue_found(&mut self.timers, &name);
                self.transition(&name, Trigger::WarmCatalogueFound);
            }
            self.report_dropped_declared_tools(&name);
        }
        self.recheck_all_definitions();
    }
}

impl Registry {
    /// The persisted blob read back (`Err`: why it cannot be used), merged
    /// under this run's entries.
    pub(in crate::engine) fn catalogue_loaded(
        &mut self,
        blob: &str,
        servers: &Servers,
    ) -> Result<(), String> {
        let fingerprint_of = |name: &str| servers.get(name).map(|s| s.config().fingerprint.clone());
        self.catalogue_mut().loaded(blob, fingerprint_of)
    }

    /// After a load: `Some` when `name` is warm, saying whether it waits for
    /// a cataloguing (PENDING or FAILED: it becomes CATALOGUED without a spawn).
    pub(in crate::engine) fn made_warm(&self, name: &str, servers: &Servers) -> Option<bool> {
        let server = servers.get(name)?;
        self.catalogue().warm(name, &server.config().fingerprint)?;
        Some(matches!(
            server.state(),
            ServerState::Pending | ServerState::Failed { .. }
        ))
    }
}
