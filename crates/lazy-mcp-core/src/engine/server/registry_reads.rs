//! `Servers` as the registry reads them (`registry/configured_servers.rs`):
//! registry/ sits below server/ and names no type of it, so the router hands
//! it the servers through this trait.

use crate::config::model::ServerConfig;
use crate::engine::effects::{Effect, LogLevel};
use crate::engine::registry::configured_servers::ConfiguredServers;
use crate::engine::server::{Server, Servers};
use crate::engine::state::ServerState;

impl ConfiguredServers for Servers {
    fn config_of(&self, name: &str) -> Option<&ServerConfig> {
        self.get(name).map(Server::config)
    }

    fn state_of(&self, name: &str) -> Option<&ServerState> {
        self.get(name).map(Server::state)
    }

    fn log_about(&self, level: LogLevel, server: &str, message: String) -> Effect {
        self.log_line(level, Some(server), message)
    }
}
