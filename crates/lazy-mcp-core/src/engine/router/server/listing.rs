//! The router's part of listing (`server/listing.rs`): a finished round is
//! written into the registry's catalogue, the held definitions checked and
//! the clients' exposure refreshed; then the server goes live or stops.

use crate::engine::events::ConnId;
use crate::engine::registry::catalogue::{Listing, Recorded};
use crate::engine::router::Engine;
use crate::engine::server::connect::GoLive;
use crate::engine::server::listing::{AfterRound, Listed, RoundDone};
use crate::engine::server::machines::listing::machine::ListingInput;
use crate::engine::state::Trigger;

impl Engine {
    /// Hands `conn`'s listing machine `input` ([`Servers::with_listing`]): a
    /// finished round recorded, or the connection reopened.
    pub(in crate::engine) fn on_listing(&mut self, conn: ConnId, input: ListingInput) {
        match self.with_servers(|servers, ctx| servers.with_listing(ctx, conn, input)) {
            None => {}
            Some(Listed::Round(done)) => self.on_listing_complete(conn, done),
            Some(Listed::Reopen(name, reopen)) => self.reopen(conn, &name, reopen),
        }
    }

    /// A listing round finished (`Servers::round_done` decides what follows):
    /// the catalogue written, then the server goes live or, catalogued, stops.
    fn on_listing_complete(&mut self, conn: ConnId, done: RoundDone) {
        let (name, mut listing, roots_asked_at, next) = done.into_parts();
        if roots_asked_at.is_some() {
            self.note_roots_asked(&name);
        }
        listing.asks_roots = self.known_to_ask_roots(&name);
        self.update_catalogue(&name, listing);
        self.registry.listed(&name);
        match next {
            AfterRound::Stays => {}
            AfterRound::Live => self.become_connected(conn, GoLive::Listed(roots_asked_at)),
            AfterRound::Stop => {
                self.stop_server(&name, "cataloguing finished");
                self.transition(&name, Trigger::CatalogueSucceeded);
                self.with_servers(|servers, ctx| servers.log_catalogued(ctx, &name));
            }
        }
    }

    /// Writes listed kinds into the server's entry; persists when anything changed.
    fn update_catalogue(&mut self, name: &str, listing: Listing) {
        let Some(server) = self.servers.get(name) else {
            return;
        };
        let fingerprint = &server.config().fingerprint;
        let recorded = self
            .registry
            .record_listing(name, fingerprint, listing, self.now_ms);
        if recorded == Recorded::Unchanged {
            self.check_definitions(name);
            return;
        }
        self.clients.exposure_changed();
        // Before any waiting call is forwarded: a held tool is refused, not called.
        self.check_definitions(name);
        self.report_dropped_declared_tools(name);
    }

    /// Declared tools (`tools: [...]` in config) the server does not have
    /// (`Servers::report_dropped_declared_tools`).
    pub(in crate::engine) fn report_dropped_declared_tools(&mut self, name: &str) {
        self.with_servers(|servers, ctx| servers.report_dropped_declared_tools(ctx, name));
    }
}
