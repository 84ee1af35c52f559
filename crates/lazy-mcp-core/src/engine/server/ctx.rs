//! What a server's machines are handed with an input, quinn-proto style: the
//! one timer table, the host's clock, and what they read of the rest of the
//! engine (settings, catalogue; the clients and the pins through `reads.rs`'s
//! traits, as `clients/` and `trust/` sit above `server/`), read only. The
//! router lends it (`Engine::servers_input`); the servers' state stays
//! `Servers`' own, and what an input tells the host is yielded through their
//! outbox.

use crate::engine::registry::catalogue::Catalogue;
use crate::engine::server::reads::{ClientReads, HeldReads};
use crate::engine::settings::Settings;
use crate::engine::timers::TimerTable;

pub(in crate::engine) struct ServerCtx<'a> {
    pub(in crate::engine) timers: &'a mut TimerTable,
    pub(in crate::engine) settings: &'a Settings,
    pub(in crate::engine) catalogue: &'a Catalogue,
    pub(in crate::engine) clients: &'a dyn ClientReads,
    pub(in crate::engine) pins: &'a dyn HeldReads,
    pub(in crate::engine) now_ms: u64,
}
