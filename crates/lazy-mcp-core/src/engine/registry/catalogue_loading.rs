//! The persisted catalogue read back at start: entries merged under the ones
//! this run already has (`Registry::catalogue_loaded`), and servers waiting
//! for a cataloguing that the loaded entries make warm (no spawn). The router
//! carries it out (`Engine::on_catalogue_loaded`, `router/registry.rs`).

use crate::engine::registry::configured_servers::ConfiguredServers;
use crate::engine::registry::machine::Registry;
use crate::engine::state::ServerState;

impl Registry {
    /// The persisted blob read back (`Err`: why it cannot be used), merged
    /// under this run's entries.
    pub(in crate::engine) fn catalogue_loaded(
        &mut self,
        blob: &str,
        servers: &impl ConfiguredServers,
    ) -> Result<(), String> {
        let fingerprint_of = |name: &str| servers.config_of(name).map(|c| c.fingerprint.clone());
        self.catalogue_mut().loaded(blob, fingerprint_of)
    }

    /// After a load: `Some` when `name` is warm, saying whether it waits for
    /// a cataloguing (PENDING or FAILED: it becomes CATALOGUED without a spawn).
    pub(in crate::engine) fn made_warm(
        &self,
        name: &str,
        servers: &impl ConfiguredServers,
    ) -> Option<bool> {
        let config = servers.config_of(name)?;
        self.catalogue().warm(name, &config.fingerprint)?;
        Some(matches!(
            servers.state_of(name)?,
            ServerState::Pending | ServerState::Failed { .. }
        ))
    }
}
