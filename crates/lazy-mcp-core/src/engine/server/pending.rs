//! What a request in flight on a connection is for, so its answer finds its
//! way (a handshake step, a list page, a forwarded call, the listen, a
//! re-subscribe). A leaf: the files that send those requests name it
//! without importing the connection that keeps the table.

use crate::engine::server::calls::ForwardedCall;
use crate::protocol::client_handshake::ListKind;

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
