//! The router's side of the clients (`clients/`): the `impl Engine` blocks
//! that hand `Clients` an input with what it reads of the servers, and carry
//! out what it returns on the servers' side (a call routed, a connection told,
//! a subscription followed). Each child file mirrors the `clients/` file whose
//! inputs it routes; the few short entries that only lend `Clients` what it
//! reads are here.

mod call_out;
mod client_listens;
mod gateway;
mod input_bridge;
mod raw_forwarding;
mod tool_vectors;

use crate::engine::clients::exposure::view::{ServedView, ShownView};
use crate::engine::clients::gateway_sessions::session_policy;
use crate::engine::router::Engine;

impl Engine {
    /// What clients are shown, read from the servers' side (`clients/exposure.rs`).
    pub(in crate::engine) fn shown(&self) -> ShownView<'_> {
        let served = ServedView::new(
            &self.servers,
            self.registry.catalogue(),
            self.trust.pins(),
            self.settings(),
            self.trust.awaiting(),
        );
        self.clients.shown(served)
    }

    /// The gateway took a POST body of `client` (`clientPost`,
    /// `clients/gateway_sessions.rs`): its session is used now. One the engine
    /// did not know began: the sessions are reviewed (beyond `maxSessions` the
    /// least recently used others end).
    pub(in crate::engine) fn on_gateway_post(&mut self, client: &str) {
        let policy = session_policy(self.settings());
        self.with_clients(|clients, ctx| clients.gateway_post(client, policy, ctx));
    }

    /// How many answers `client` is still owed (requests read, neither answered
    /// nor dropped; `clients/answers_owed.rs`). For native tests only (feature
    /// `test-exports`).
    #[cfg(any(test, feature = "test-exports"))]
    pub fn answers_owed(&self, client: &str) -> u32 {
        self.clients.owed().count(client)
    }
}
