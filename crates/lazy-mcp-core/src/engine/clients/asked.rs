//! What a client's request comes to (`Clients::client_request`,
//! `gateway/requests.rs`; a meta-tool's call, `tool_calls.rs`), for the
//! router to carry out. Its own room, below both: the gateway hands a
//! meta-tool's call to `tool_calls.rs`, which must not import the gateway.

use crate::engine::clients::client_listens::ListenChange;
use crate::engine::server::calls::QueuedCall;

/// What a client's request comes to (`Clients::client_request`), for the
/// router to carry out.
pub(in crate::engine) enum Asked {
    /// Answered or refused here (the answer is yielded through the clients' outbox).
    Answered,
    /// A listen opened under `key` (its request id's text): the servers'
    /// subscriptions follow what it and a listen of the same id named.
    Listened(String, ListenChange),
    /// A call for the server named first: its resource subscription is
    /// tracked, then it is routed.
    Call(String, QueuedCall),
}
