//! What clients were last shown (`Exposure`), the state `exposure.rs` keeps.
//! Apart from that code so that `Clients` (`clients/mod.rs`) names it without
//! importing the code that drives it (no import cycle).

use crate::engine::clients::tool_exposure::plan::{ExposurePlan, LoadedTool};
use crate::engine::effects::EndpointInfo;
use crate::protocol::client_handshake::ListKind;
use crate::vec_map::{VecMap, VecSet};
use serde_json::Value;

/// Tool-exposure state: what clients were last shown (endpoints, list versions,
/// aggregate names), the plan of full vs indexed servers, and what each client
/// loaded. Only `publish_changes` rebuilds it; requests read it. Part of
/// [`Clients`](crate::engine::clients::Clients): nothing outside `clients/` reaches its fields.
#[derive(Debug, Default)]
pub(in crate::engine::clients) struct Exposure {
    /// Set when anything clients can see may have changed; cleared by `publish_changes`.
    pub(in crate::engine::clients) dirty: bool,
    pub(in crate::engine::clients) published_endpoints: Vec<EndpointInfo>,
    pub(in crate::engine::clients) published_lists: VecMap<(String, ListKind), u64>,
    /// Aggregate endpoint: (tools|prompts, exposed name) → (server, original name).
    pub(in crate::engine::clients) aggregate_routes: VecMap<(ListKind, String), (String, Value)>,
    /// The reverse: (tools|prompts, server, original name) → exposed name.
    pub(in crate::engine::clients) aggregate_names_by_item:
        VecMap<(ListKind, String, String), String>,
    /// Which servers are listed in full and which in the index (see `tool_exposure`).
    pub(in crate::engine::clients) plan: ExposurePlan,
    /// Search over the `index`-mode servers' tools; rebuilt on first use after a change.
    pub(in crate::engine::clients) search_index: Option<crate::tool_index::ToolIndex>,
    /// Tools each client loaded, by client identity (`clientInfo.name`).
    pub(in crate::engine::clients) loaded: VecMap<String, VecSet<LoadedTool>>,
    /// Version of the aggregate endpoint as last announced to hosts (None: not offered).
    pub(in crate::engine::clients) published_aggregate: Option<String>,
    /// Its version as last announced to its clients (with `list_changed`).
    pub(in crate::engine::clients) aggregate_seen: String,
}
