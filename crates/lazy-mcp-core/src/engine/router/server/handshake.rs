//! The router's part of a handshake (`server/handshake.rs`): what the
//! machine's last output asks beyond the servers, the first listing round, a
//! connection dropped and opened again, or a failure carried out.

use crate::engine::events::ConnId;
use crate::engine::router::Engine;
use crate::engine::server::handshake::reopening::Reopening;
use crate::engine::server::handshake::HandshakeNext;
use crate::engine::server::machines::handshake::input::HandshakeInput;
use crate::engine::server::machines::listing::machine::ListingInput;

impl Engine {
    /// Hands `conn`'s handshake machine `input` (`Servers::with_handshake`),
    /// then does what its last output asks of the router: the first listing
    /// round, a reopening, or a failure carried out (the connection closed
    /// unless the input says the host closed it).
    pub(in crate::engine) fn on_handshake(&mut self, conn: ConnId, input: HandshakeInput) {
        let close = !matches!(input, HandshakeInput::Closed { close: false, .. });
        match self.with_servers(|servers, ctx| servers.with_handshake(ctx, conn, input)) {
            None => {}
            Some((_, HandshakeNext::List(kinds))) => {
                self.on_listing(conn, ListingInput::Start(&kinds))
            }
            Some((name, HandshakeNext::Reopen(reopen))) => self.reopen(conn, &name, reopen),
            Some((_, HandshakeNext::Failed(failed))) => self.carry_out_failure(conn, failed, close),
        }
    }

    /// `conn` is dropped and `name` opened again as [`Reopening`] says (a
    /// fallback handshake, or its era asked again).
    pub(super) fn reopen(&mut self, conn: ConnId, name: &str, reopen: Reopening) {
        let (why, handshake, purpose, interactive) = reopen.into_parts();
        self.drop_connection(conn, why, true);
        self.open_connection_with(name, purpose, interactive, Some(handshake));
    }
}
