//! A client's modern-era requests, the state `modern_clients.rs` keeps per
//! session. Apart from that code so that `Clients` (`clients/mod.rs`) names it
//! without importing the code that drives it (no import cycle); its fields
//! stay that file's own.

use crate::vec_map::VecMap;
use serde_json::Value;

/// A client's modern requests: those not answered yet, and the one being read now.
#[derive(Debug, Default)]
pub(in crate::engine) struct ModernRequests {
    /// Modern requests still to be answered, by id (as JSON text).
    pub(super) pending: VecMap<String, PendingModern>,
    /// The request being handled is modern.
    pub(super) active: bool,
    /// The client has sent a modern request: change notifications reach it
    /// only through its `subscriptions/listen` requests.
    pub(super) seen: bool,
    /// Its `clientInfo` as `name@version`, when it sent one.
    pub(super) identity: Option<String>,
}

impl ModernRequests {
    /// The request being handled carries the modern envelope.
    pub(in crate::engine) fn is_active(&self) -> bool {
        self.active
    }

    /// The client has spoken the modern era.
    pub(in crate::engine) fn seen(&self) -> bool {
        self.seen
    }
}

/// A modern request not answered yet.
#[derive(Debug, Default)]
pub(super) struct PendingModern {
    /// The answer gets cache hints (`resources/read`: lists have them already).
    pub(super) cache_hints: bool,
    /// The client's `elicitation`/`sampling` capabilities from its envelope: a
    /// modern server may ask for that input (`input_required`) and the client
    /// answers it by sending the request again (multi round-trip).
    pub(super) input_capabilities: serde_json::Map<String, Value>,
}
