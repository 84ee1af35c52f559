//! The router's part of the servers' side: the entries that carry out what
//! `Servers` (`engine/server/`) returned, where it reaches beyond the servers
//! (the clients, the announcements, a state change, the registry). They live
//! here, not in `server/`, so that `server/` never imports the router: the
//! router sits above the owner it routes. Each file mirrors the `server/` file
//! whose outputs it carries out (`server/upstream.rs`'s `Asked`, `Heard` →
//! `upstream.rs`, …).

mod auth;
mod connect;
mod connection_end;
mod handshake;
mod listing;
mod transition;
mod upstream;
mod user_commands;

use crate::engine::router::Engine;

impl Engine {
    /// For the host's own lines about a server (a connection's log line, a
    /// stderr line shown under --verbose): the same masking
    /// (`server/secret_text.rs`).
    pub fn mask_server_text(&self, name: &str, text: &str) -> String {
        self.servers.mask_for_server(name, text.to_string())
    }
}
