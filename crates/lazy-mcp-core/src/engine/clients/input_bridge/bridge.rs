//! What a call bridged to a modern client's input carries (`input_bridge.rs`
//! drives it). Apart from that code so that `Clients` (`clients/mod.rs`)
//! names it without importing the code that drives it (no import cycle); its
//! fields stay `input_bridge.rs`'s own.
//!
//! The clients' side owns it, not the server's call: only the bridge reads and
//! writes it (what the client was asked, the state its retry carries, the
//! server's requests and answer held meanwhile); the server's side asks only
//! whether a call awaits its client's retry (`Clients::awaits_retry`).

use crate::engine::events::ConnId;
use crate::vec_map::VecMap;
use serde_json::Value;

/// A call whose server asked its modern client for input: the forwarded call
/// `upstream_id` on `conn`.
#[derive(Debug)]
pub(in crate::engine) struct Bridge {
    pub(super) conn: ConnId,
    pub(super) upstream_id: u64,
    /// Rounds the client was asked (with the call's own `input_rounds`,
    /// bounded by `MAX_INPUT_ROUNDS`).
    pub(super) rounds: u32,
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
