//! One upstream connection as the engine tracks it: why it was opened, its
//! handshake (a machine of its own), and the requests it has in flight.

use crate::engine::server::auth::machine::ConnAuth;
use crate::engine::server::calls::ForwardedCall;
use crate::engine::server::handshake::machine::HandshakeMachine;
use crate::engine::server::listing::machine::ListingMachine;
use crate::engine::timers::TimerId;
use crate::protocol::client_handshake::ListKind;
use crate::vec_map::VecMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::engine) enum Purpose {
    /// Learn the lists, then close (unless calls arrived meanwhile).
    Catalogue,
    /// Stay connected and forward calls.
    Connect,
}

#[derive(Debug)]
pub(in crate::engine) struct Connection {
    pub(super) server: String,
    pub(super) purpose: Purpose,
    pub(super) opened_at_ms: u64,
    pub(super) next_id: u64,
    pub(super) pending: VecMap<u64, Pending>,
    /// Its listing rounds: kinds outstanding, pages so far (`listing/machine.rs` owns it).
    pub(super) listing: ListingMachine,
    pub(super) handshake_timer: Option<TimerId>,
    /// Calls are forwarded (the server is CONNECTED on this connection).
    pub(super) live: bool,
    /// When the server asked for `roots/list` before calls flowed.
    pub(super) roots_asked_at_ms: Option<u64>,
    /// Its handshake: phase, era, what the server said (`handshake/machine.rs` owns it).
    pub(super) handshake: HandshakeMachine,
    /// The connection may open a browser / OAuth flow (not for cataloguing).
    pub(super) interactive: bool,
    /// The upstream id of the open `subscriptions/listen` (modern servers, `era.rs`).
    pub(super) listen: Option<u64>,
    /// Requests held by the host after an auth challenge (`auth/machine.rs` owns it).
    pub(super) auth: ConnAuth,
}

#[derive(Debug)]
pub(in crate::engine) enum Pending {
    Initialize,
    /// The era probe (`server/discover`).
    Discover,
    /// A page of a list (the pages so far are the listing machine's).
    List {
        kind: ListKind,
    },
    /// Boxed: a call carries much more than the other variants.
    Call(Box<ForwardedCall>),
    /// A request of the engine's own whose answer does not matter (re-subscribe).
    Internal,
    /// The `subscriptions/listen` of a modern server (`era.rs`): answered only
    /// when the server refuses or ends it.
    Listen,
}
