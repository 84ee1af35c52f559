//! What a call bridged to a modern client's input carries (`input_bridge.rs`
//! drives it). Apart from that code so that a forwarded call
//! (`server/calls.rs`) names it without importing the code that drives it (no
//! import cycle); its fields stay `input_bridge.rs`'s own.

use crate::vec_map::VecMap;
use serde_json::Value;

/// A call whose server asked its modern client for input.
#[derive(Debug, Default)]
pub(in crate::engine) struct Bridge {
    /// The client was answered `input_required`; its retry carries this state.
    pub(super) awaiting: Option<String>,
    /// The server's requests of the current round: input key → upstream request id.
    pub(super) asked: VecMap<String, Value>,
    /// Server requests that came while the client was being asked.
    pub(super) queued: Vec<ServerRequest>,
    /// The upstream's answer when it came before the client's retry.
    pub(super) held: Option<Result<Value, Value>>,
}

#[derive(Debug, Clone)]
pub(super) struct ServerRequest {
    pub(super) id: Value,
    pub(super) method: String,
    pub(super) params: Option<Value>,
}
