//! One upstream connection as the engine tracks it: why it was opened, how far
//! its handshake got, and the requests it has in flight.

use crate::engine::server::auth::ConnAuth;
use crate::engine::server::calls::ForwardedCall;
use crate::engine::server::era::Handshake;
use crate::engine::timers::TimerId;
use crate::protocol::client_discover::{CacheHint, Era};
use crate::protocol::client_handshake::{InitializeOutcome, ListKind};
use crate::vec_map::{VecMap, VecSet};
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::engine) enum Purpose {
    /// Learn the lists, then close (unless calls arrived meanwhile).
    Catalogue,
    /// Stay connected and forward calls.
    Connect,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::engine) enum Phase {
    /// `open` sent, waiting for `connectionOpened`.
    Opening,
    /// `server/discover` sent: which era does the server speak?
    Probing,
    /// `initialize` sent.
    Initializing,
    /// Initialized: lists and calls may flow.
    Ready,
}

#[derive(Debug)]
pub(in crate::engine) struct Connection {
    pub(in crate::engine) server: String,
    pub(in crate::engine) purpose: Purpose,
    pub(in crate::engine) phase: Phase,
    pub(in crate::engine) opened_at_ms: u64,
    pub(in crate::engine) next_id: u64,
    pub(in crate::engine) pending: VecMap<u64, Pending>,
    /// Lists completed in the current listing round, and those still outstanding.
    pub(in crate::engine) listed: VecMap<ListKind, Vec<Value>>,
    pub(in crate::engine) listing: VecSet<ListKind>,
    /// Kinds announced as changed while being listed: listed again after this round.
    pub(in crate::engine) relist: VecSet<ListKind>,
    pub(in crate::engine) handshake_timer: Option<TimerId>,
    pub(in crate::engine) init: Option<InitializeOutcome>,
    /// Calls are forwarded (the server is CONNECTED on this connection).
    pub(in crate::engine) live: bool,
    /// When the server asked for `roots/list` before calls flowed.
    pub(in crate::engine) roots_asked_at_ms: Option<u64>,
    /// How this connection starts (decided when it is opened) and, once known, its era.
    pub(in crate::engine) handshake: Handshake,
    pub(in crate::engine) era: Era,
    /// The connection may open a browser / OAuth flow (not for cataloguing).
    pub(in crate::engine) interactive: bool,
    /// The stricter cache hint of the lists of the current listing round.
    pub(in crate::engine) cache: Option<CacheHint>,
    /// The upstream id of the open `subscriptions/listen` (modern servers, `era.rs`).
    pub(in crate::engine) listen: Option<u64>,
    /// Requests held by the host after an auth challenge (`auth.rs`).
    pub(in crate::engine) auth: ConnAuth,
}

#[derive(Debug)]
pub(in crate::engine) enum Pending {
    Initialize,
    /// The era probe (`server/discover`).
    Discover,
    List {
        kind: ListKind,
        items: Vec<Value>,
        pages: u32,
    },
    /// Boxed: a call carries much more than the other variants.
    Call(Box<ForwardedCall>),
    /// A request of the engine's own whose answer does not matter (re-subscribe).
    Internal,
    /// The `subscriptions/listen` of a modern server (`era.rs`): answered only
    /// when the server refuses or ends it.
    Listen,
}
