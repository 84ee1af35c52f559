//! What a server's machines are handed with an input, quinn-proto style: the
//! effects sink they push onto, the one timer table, the host's clock, and
//! what they read of the rest of the engine (settings, catalogue, clients,
//! the pins),
//! read only. The router lends it (`Engine::server_parts`); the servers'
//! state stays `Servers`' own.

use crate::engine::clients::Clients;
use crate::engine::effects::Effect;
use crate::engine::registry::catalogue::Catalogue;
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
