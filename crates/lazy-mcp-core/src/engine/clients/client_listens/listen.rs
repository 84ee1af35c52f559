//! A client's open listens, the state `client_listens.rs` keeps per session.
//! Apart from that code so that `Clients` (`clients/mod.rs`) names it without
//! importing the code that drives it (no import cycle); its fields stay that
//! file's own.

use crate::vec_map::{VecMap, VecSet};
use serde_json::Value;

/// One open listen of a client.
#[derive(Debug)]
pub(in crate::engine) struct Listen {
    /// Its request id (the `subscriptionId` of everything sent on it).
    pub(in crate::engine) id: Value,
    /// The `list_changed` notifications it wants.
    pub(super) methods: VecSet<&'static str>,
    /// The resources it subscribed to: (server, URI).
    pub(super) resources: VecSet<(String, String)>,
}

/// A client's open listens by request id (as JSON text).
pub(in crate::engine) type Listens = VecMap<String, Listen>;
