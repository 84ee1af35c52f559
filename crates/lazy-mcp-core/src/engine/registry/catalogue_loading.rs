//! The persisted catalogue read back at start: entries merged under the ones
//! this run already has (`Registry::catalogue_loaded`), and servers waiting
//! for a cataloguing that the loaded entries make warm (no spawn).

use crate::engine::effects::LogLevel;
use crate::engine::registry::machine::Registry;
use crate::engine::router::Engine;
use crate::engine::server::state::{ServerState, Trigger};
use crate::engine::server::{Server, Servers};

impl Engine {
    pub(in crate::engine) fn on_catalogue_loaded(&mut self, blob: &str) {
        let warm = match self.registry.catalogue_loaded(blob, &self.servers) {
            Ok(warm) => warm,
            Err(why) => return self.log(LogLevel::Warn, None, why),
        };
        self.clients.exposure_changed();
        for (name, waiting) in warm {
            if waiting {
                let retry = self.servers.get(&name).and_then(Server::retry_timer);
                self.timers.cancel_armed(retry);
                self.servers.unqueue_catalogue(&name);
                self.transition(&name, Trigger::WarmCatalogueFound);
            }
            self.report_dropped_declared_tools(&name);
        }
        self.recheck_all_definitions();
    }
}

impl Registry {
    /// The persisted blob read back (`Err`: why it cannot be used): the
    /// servers it makes warm, each with whether it waits for a cataloguing
    /// (PENDING or FAILED: it becomes CATALOGUED without a spawn).
    pub(in crate::engine) fn catalogue_loaded(
        &mut self,
        blob: &str,
        servers: &Servers,
    ) -> Result<Vec<(String, bool)>, String> {
        let fingerprint_of = |name: &str| servers.get(name).map(|s| s.config().fingerprint.clone());
        self.catalogue_mut().loaded(blob, fingerprint_of)?;
        let warm = servers.iter().filter_map(|(name, server)| {
            self.catalogue().warm(name, &server.config().fingerprint)?;
            let waiting = matches!(
                server.state(),
                ServerState::Pending | ServerState::Failed { .. }
            );
            Some((name.clone(), waiting))
        });
        Ok(warm.collect())
    }
}
