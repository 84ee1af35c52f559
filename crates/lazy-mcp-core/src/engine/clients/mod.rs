//! The clients: their sessions, what they are shown (exposure, the tool
//! index), and their calls on the way in (gateway, raw forwarding, modern-era
//! requests and listens).

pub mod aggregate_names;
pub(super) mod client_listens;
pub(super) mod exposure;
pub(super) mod gateway;
pub(super) mod input_bridge;
pub(super) mod modern_clients;
pub(super) mod raw_forwarding;
pub(super) mod tool_calls;
pub(super) mod tool_exposure;
pub(super) mod tool_vectors;

use crate::engine::events::{ClientId, ConnId, Endpoint};
use client_listens::Listens;
use modern_clients::ModernRequests;
use serde_json::Value;

#[derive(Debug)]
pub(in crate::engine) struct ClientSession {
    pub(in crate::engine) endpoint: Endpoint,
    pub(in crate::engine) capabilities: Value,
    /// `clientInfo.name` from `initialize` (else the session id): loaded tools are kept per identity.
    pub(in crate::engine) identity: String,
    /// Modern-era (2026-07-28) requests of this client in flight (`modern_clients.rs`).
    pub(in crate::engine) modern: ModernRequests,
    /// Its open `subscriptions/listen` requests (`client_listens.rs`).
    pub(in crate::engine) listens: Listens,
}

#[derive(Debug)]
pub(in crate::engine) struct OutboundRequest {
    pub(in crate::engine) client: ClientId,
    pub(in crate::engine) conn: ConnId,
    pub(in crate::engine) upstream_id: Value,
}
