//! What clients were last shown (`Exposure`): one owner, its fields private
//! here. `Clients`' inputs (`clients/machine.rs`) tell it what happened (a
//! publication begins, a plan was chosen, lists and endpoints were hashed,
//! a client loaded tools, a server's tools went away, the search inputs
//! changed), and `clients/`' files read it; what only its state answers (does a `list_changed`
//! go out, which server an aggregate name routes to, which loaded tools a
//! client sees) is decided here, unit-tested in `exposure_tests.rs` without an
//! engine. Apart from `clients/exposure.rs` so that `Clients` (`clients/machine.rs`)
//! names it without importing the code that drives it (no import cycle).

use super::exposure_plan::{ExposurePlan, LoadedTool};
use crate::engine::aggregate_names::aggregate_names;
use crate::engine::effects::EndpointInfo;
use crate::engine::stable_hash::fnv1a64_hex;
use crate::protocol::client_handshake::ListKind;
use crate::protocol::params::name_of;
use crate::tool_index::ToolIndex;
use crate::vec_map::{VecMap, VecSet};
use serde_json::Value;
use std::fmt::Write as _;

/// Tool-exposure state: what clients were last shown (endpoints, list versions,
/// aggregate names), the plan of full vs indexed servers, and what each client
/// loaded. Part of [`Clients`](crate::engine::clients::Clients).
#[derive(Debug, Default)]
pub(in crate::engine::clients) struct Exposure {
    /// Set when anything clients can see may have changed; cleared when a publication begins.
    dirty: bool,
    published_endpoints: Vec<EndpointInfo>,
    published_lists: VecMap<(String, ListKind), u64>,
    /// Aggregate endpoint: (tools|prompts, exposed name) → (server, original name).
    aggregate_routes: VecMap<(ListKind, String), (String, Value)>,
    /// The reverse: (tools|prompts, server, original name) → exposed name.
    aggregate_names_by_item: VecMap<(ListKind, String, String), String>,
    /// Which servers are listed in full and which in the index (see `tool_exposure`).
    plan: ExposurePlan,
    /// Search over the `index`-mode servers' tools; rebuilt on first use after a change.
    search_index: Option<ToolIndex>,
    /// Tools each client loaded, by client identity (`clientInfo.name`).
    loaded: VecMap<String, VecSet<LoadedTool>>,
    /// Version of the aggregate endpoint as last announced to hosts (None: not offered).
    published_aggregate: Option<String>,
    /// Its version as last announced to its clients (with `list_changed`).
    aggregate_seen: String,
}

impl Exposure {
    // ---- inputs ------------------------------------------------------------

    /// Something clients can see may have changed: the end of the event republishes.
    pub(in crate::engine::clients) fn changed(&mut self) {
        self.dirty = true;
    }

    /// A publication begins: nothing is pending any more, and the plan in
    /// force is handed over to decide the next from (it reuses what did not change).
    pub(in crate::engine::clients) fn publishing(&mut self) -> ExposurePlan {
        self.dirty = false;
        std::mem::take(&mut self.plan)
    }

    /// The plan chosen for what is exposed now; the search index is built
    /// again from it on first use.
    pub(in crate::engine::clients) fn plan_chosen(&mut self, plan: ExposurePlan) {
        self.plan = plan;
        self.search_index = None;
    }

    /// What search ranks by changed (the tool vectors, the embedding model):
    /// the index is built again on first use.
    pub(in crate::engine::clients) fn search_inputs_changed(&mut self) {
        self.search_index = None;
    }

    /// The search index was built (from the plan in force).
    pub(in crate::engine::clients) fn search_index_built(&mut self, index: ToolIndex) {
        self.search_index = Some(index);
    }

    /// Each exposed server's list hashes now, by (server, kind): kept as
    /// published; returns the `list_changed` each changed list sends to
    /// that server's clients, as (server, method).
    pub(in crate::engine::clients) fn lists_hashed(
        &mut self,
        lists: VecMap<(String, ListKind), u64>,
    ) -> VecSet<(String, &'static str)> {
        let mut changed = VecSet::new();
        let keys: VecSet<&(String, ListKind)> =
            lists.keys().chain(self.published_lists.keys()).collect();
        for key in keys {
            if lists.get(key) != self.published_lists.get(key) {
                changed.insert((key.0.clone(), key.1.list_changed_notification()));
            }
        }
        self.published_lists = lists;
        changed
    }

    /// The aggregate endpoint's version now: true when its clients have not
    /// seen it yet (they get `tools/list_changed`).
    pub(in crate::engine::clients) fn aggregate_versioned(&mut self, version: &str) -> bool {
        if self.aggregate_seen == version {
            return false;
        }
        self.aggregate_seen = version.to_string();
        true
    }

    /// The (server, original name) of every exposed tool and prompt, in server
    /// order: each gets its aggregate name (`aggregate_names.rs`), both ways.
    pub(in crate::engine::clients) fn aggregate_items(
        &mut self,
        tools: Vec<(String, String)>,
        prompts: Vec<(String, String)>,
    ) {
        // Extended, not inserted one by one: one sort for any number of tools.
        let mut routes = VecMap::new();
        let mut by_item = VecMap::new();
        for (kind, pairs) in [(ListKind::Tools, tools), (ListKind::Prompts, prompts)] {
            let named: Vec<(String, (String, String))> =
                aggregate_names(&pairs).into_iter().zip(pairs).collect();
            by_item.extend(named.iter().map(|(exposed, (server, item))| {
                ((kind, server.clone(), item.clone()), exposed.clone())
            }));
            routes.extend(
                named.into_iter().map(|(exposed, (server, item))| {
                    ((kind, exposed), (server, Value::from(item)))
                }),
            );
        }
        self.aggregate_routes = routes;
        self.aggregate_names_by_item = by_item;
    }

    /// The endpoints and the aggregate's version (None: not offered) now:
    /// true when hosts must hear of them (`endpointsChanged`).
    pub(in crate::engine::clients) fn endpoints_published(
        &mut self,
        endpoints: &[EndpointInfo],
        aggregate: &Option<String>,
    ) -> bool {
        if endpoints == self.published_endpoints.as_slice()
            && *aggregate == self.published_aggregate
        {
            return false;
        }
        self.published_endpoints = endpoints.to_vec();
        self.published_aggregate = aggregate.clone();
        true
    }

    /// The endpoints and the aggregate's version hosts were last told.
    pub(in crate::engine::clients) fn published(&self) -> (&[EndpointInfo], Option<&String>) {
        (&self.published_endpoints, self.published_aggregate.as_ref())
    }

    /// The client known as `identity` loaded (or unloaded) `tools`. Its
    /// entry is kept even when empty: it counts as a known identity.
    pub(in crate::engine::clients) fn tools_loaded(
        &mut self,
        identity: &str,
        tools: &[LoadedTool],
        load: bool,
    ) {
        let set = self.loaded.entry(identity.to_string()).or_default();
        for pair in tools {
            if load {
                set.insert(pair.clone());
            } else {
                set.remove(pair);
            }
        }
    }

    /// `server` was disabled or removed: its loaded tools are forgotten;
    /// returns the identities that had some (to tell their clients).
    pub(in crate::engine::clients) fn server_unloaded(&mut self, server: &str) -> Vec<String> {
        let mut touched = Vec::new();
        for (identity, set) in self.loaded.iter_mut() {
            let before = set.len();
            set.retain(|(s, _)| s != server);
            if set.len() != before {
                touched.push(identity.clone());
            }
        }
        touched
    }

    /// `server` no longer offers `tool`: no client has it loaded any more.
    pub(in crate::engine::clients) fn tool_gone(&mut self, tool: &LoadedTool) {
        for set in self.loaded.values_mut() {
            set.remove(tool);
        }
    }

    // ---- reads -------------------------------------------------------------

    /// Whether something clients can see changed since the last publication.
    pub(in crate::engine::clients) fn is_dirty(&self) -> bool {
        self.dirty
    }

    /// The plan in force: which servers are listed in full and which in the index.
    pub(in crate::engine::clients) fn plan(&self) -> &ExposurePlan {
        &self.plan
    }

    /// Version of the aggregate endpoint: the meta-tools (with the index) and the
    /// exposed tools with their modes, but not any client's loaded set, so loading
    /// a tool never makes a host restart the endpoint (it gets `list_changed`).
    /// (`lists_too`: the aggregate lists every server's prompts and resources.)
    pub(in crate::engine) fn aggregate_version(
        &self,
        list_hashes: &VecMap<(String, ListKind), u64>,
        lists_too: bool,
    ) -> String {
        // The plan hashed the meta-tools and every exposed server's tools already.
        // (`write!` into a String cannot fail.)
        let plan = &self.plan;
        let mut text = format!("{:016x}", plan.meta_hash);
        for (name, mode) in &plan.modes {
            let tools = plan.tool_hashes.get(name).copied().unwrap_or_default();
            let _ = write!(text, "\n{name} {} {tools:016x}", mode.as_str());
        }
        if lists_too {
            for ((name, kind), hash) in list_hashes {
                let _ = write!(text, "\n{name} {kind:?} {hash:016x}");
            }
        }
        fnv1a64_hex(text.as_bytes())
    }

    /// Whether `server`'s tools are in the index (not listed in full).
    pub(in crate::engine::clients) fn is_indexed(&self, server: &str) -> bool {
        self.plan.is_indexed(server)
    }

    /// The meta-tool listed now under `name`, if any.
    pub(in crate::engine::clients) fn meta_tool(&self, name: &str) -> Option<&Value> {
        self.plan
            .meta_tools
            .iter()
            .find(|t| name_of(t) == Some(name))
    }

    /// The search index, when built since the last change.
    pub(in crate::engine::clients) fn search_index(&self) -> Option<&ToolIndex> {
        self.search_index.as_ref()
    }

    /// The search index (an empty one until built).
    pub(in crate::engine::clients) fn search_index_or_empty(&mut self) -> &ToolIndex {
        self.search_index.get_or_insert_with(ToolIndex::default)
    }

    /// The (server, original name) an aggregate `exposed` name of `kind` routes to.
    pub(in crate::engine::clients) fn aggregate_route(
        &self,
        kind: ListKind,
        exposed: &str,
    ) -> Option<&(String, Value)> {
        self.aggregate_routes.get(&(kind, exposed.to_string()))
    }

    /// The aggregate name of `server`'s `item` of `kind`.
    pub(in crate::engine::clients) fn aggregate_name(
        &self,
        kind: ListKind,
        server: &str,
        item: &str,
    ) -> Option<&String> {
        self.aggregate_names_by_item
            .get(&(kind, server.to_string(), item.to_string()))
    }

    /// The tools the client known as `identity` loaded.
    pub(in crate::engine::clients) fn loaded_by(
        &self,
        identity: &str,
    ) -> Option<&VecSet<LoadedTool>> {
        self.loaded.get(identity)
    }

    /// Whether the aggregate endpoint shows `server`'s `tool` to `loaded`'s
    /// client: an `index` server's only when loaded, a `full` server's when
    /// the aggregate lists everything (`all`).
    pub(in crate::engine::clients) fn aggregate_shows(
        &self,
        loaded: &VecSet<LoadedTool>,
        server: &str,
        tool: &str,
        all: bool,
    ) -> bool {
        if self.plan.is_indexed(server) {
            loaded.contains(&(server.to_string(), tool.to_string()))
        } else {
            all
        }
    }

    /// How many of `loaded` are in a client's tool list now (an `index`
    /// server's; a `full` server's are listed anyway).
    pub(in crate::engine::clients) fn loaded_listed(&self, loaded: &VecSet<LoadedTool>) -> usize {
        loaded
            .iter()
            .filter(|(server, _)| self.plan.is_indexed(server))
            .count()
    }

    /// Whether `identity` would be one more identity starting with `prefix`
    /// when `cap` of them already have loaded tools (then nothing is kept for it).
    pub(in crate::engine::clients) fn is_new_identity_over(
        &self,
        identity: &str,
        prefix: &str,
        cap: usize,
    ) -> bool {
        let known = self.loaded.keys().filter(|k| k.starts_with(prefix)).count();
        known >= cap && !self.loaded.contains_key(identity)
    }

    /// Every loaded tool over all clients (for diagnostics and pruning).
    pub(in crate::engine::clients) fn all_loaded(&self) -> VecSet<LoadedTool> {
        self.loaded.values().flatten().cloned().collect()
    }
}

#[cfg(test)]
#[path = "exposure_tests.rs"]
mod tests;
