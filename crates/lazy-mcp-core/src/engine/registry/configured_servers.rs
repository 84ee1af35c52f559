//! What `Registry`'s decisions read of the configured servers: a server's
//! definition (its fingerprint says whether a catalogue entry is warm, its
//! launch whether it is shared) and state, and a log line about one with its
//! secrets masked. A trait, so that registry/ does not import server/ (the
//! servers sit above the registry and read it); `Servers` implements it
//! (`server/registry_reads.rs`) and the router hands it in (`RegistryCtx`,
//! `Registry::current_entry`).

use crate::config::model::ServerConfig;
use crate::engine::effects::{Effect, LogLevel};
use crate::engine::state::ServerState;

/// The configured servers, as the registry reads them.
pub(in crate::engine) trait ConfiguredServers {
    /// `name`'s definition (None: no such server).
    fn config_of(&self, name: &str) -> Option<&ServerConfig>;

    /// `name`'s state (None: no such server).
    fn state_of(&self, name: &str) -> Option<&ServerState>;

    /// A `log` effect about `server`, its secrets masked.
    fn log_about(&self, level: LogLevel, server: &str, message: String) -> Effect;
}
