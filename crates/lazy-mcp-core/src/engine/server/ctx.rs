//! What a server's machines are handed with an input, quinn-proto style: the
//! effects sink they push onto, the one timer table, the host's clock, and
//! what they read of the rest of the engine (settings, catalogue, clients,
//! the pins),
//! read only. The router lends it (`Engine::server_parts`); the servers'
//! state stays `Servers`' own.

use crate::engine::clients::Clients;
use crate::engine::effects::{Effect, LogLevel};
use crate::engine::registry::catalogue::{Catalogue, CatalogueEntry};
use crate::engine::server::Servers;
use crate::engine::settings::Settings;
use crate::engine::timers::TimerTable;
use crate::engine::trust::held_definitions::pins::Pins;

pub(in crate::engine) struct ServerCtx<'a> {
    pub(in crate::engine) effects: &'a mut Vec<Effect>,
    pub(in crate::engine) timers: &'a mut TimerTable,
    pub(in crate::engine) settings: &'a Settings,
    pub(in crate::engine) catalogue: &'a Catalogue,
    pub(in crate::engine) clients: &'a Clients,
    pub(in crate::engine) pins: &'a Pins,
    pub(in crate::engine) now_ms: u64,
}

impl Servers {
    /// A `log` effect about `server` (its secrets masked).
    pub(in crate::engine) fn log(
        &self,
        ctx: &mut ServerCtx,
        level: LogLevel,
        server: Option<&str>,
        message: String,
    ) {
        self.log_into(ctx.effects, level, server, message);
    }

    /// The one place a log line about a server gets its secrets masked
    /// (`Engine::log` and the servers' inputs both come here).
    pub(in crate::engine) fn log_into(
        &self,
        effects: &mut Vec<Effect>,
        level: LogLevel,
        server: Option<&str>,
        message: String,
    ) {
        let message = match server {
            Some(name) => self.mask_for_server(name, message),
            None => message,
        };
        effects.push(Effect::Log {
            level,
            server: server.map(str::to_string),
            message,
        });
    }

    /// The catalogue entry of a server, when it matches its config (as `Engine::current_entry`).
    pub(in crate::engine) fn current_entry<'c>(
        &self,
        ctx: &ServerCtx<'c>,
        name: &str,
    ) -> Option<&'c CatalogueEntry> {
        let server = self.by_name.get(name)?;
        ctx.catalogue.warm(name, &server.config.fingerprint)
    }
}
