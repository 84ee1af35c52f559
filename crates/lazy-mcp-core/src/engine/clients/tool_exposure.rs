//! Tool exposure (docs/tool-index.md): which servers list their tool schemas in
//! full and which only in the compact index behind the meta-tools, what that
//! costs in tokens, and each client's loaded tools.
//!
//! The plan is recomputed by `publish_changes` whenever exposure may have
//! changed; requests read it. The search index is built on the first search
//! after a change.

use crate::config::model::{ToolExposure, ToolFilter};
use crate::engine::clients::Clients;
use crate::engine::router::Engine;
use crate::engine::settings::AggregateEndpoint;
use crate::engine::stable_hash::{fnv1a64, Fnv1a64Writer};
use crate::protocol::client_handshake::ListKind;
use crate::protocol::methods;
use crate::protocol::params::name_of;
use crate::tool_index::{
    estimate_definition_tokens, estimate_tokens, meta_tools_with_index, IndexDetail, ToolIndex,
};
use crate::vec_map::VecSet;
use plan::{ExposurePlan, LoadedTool};
use serde_json::Value;

pub(in crate::engine) mod plan;

/// FNV-1a of the items' JSON, written straight into the hasher.
pub(in crate::engine) fn items_hash(items: &[Value]) -> u64 {
    let mut hasher = Fnv1a64Writer::default();
    // Writing into a hasher cannot fail; a failure would only weaken the hash.
    let _ = serde_json::to_writer(&mut hasher, items);
    hasher.finish()
}

fn tool_name(tool: &Value) -> Option<&str> {
    name_of(tool)
}

impl Engine {
    /// The mode asked for: host setting per server, else the config key, else the default.
    pub(in crate::engine) fn configured_exposure(&self, name: &str) -> ToolExposure {
        self.settings()
            .tool_exposure_by_server
            .get(name)
            .copied()
            .or_else(|| {
                self.servers
                    .get(name)
                    .and_then(|s| s.config().tool_exposure)
            })
            .unwrap_or(self.settings().tool_exposure)
    }

    /// Decides every exposed server's mode. `auto` servers stay `full` while
    /// everything listed in full fits the token budget and the tool limit;
    /// otherwise they move to `index`, biggest first, until it fits.
    pub(in crate::engine) fn plan_exposure(&self, mut previous: ExposurePlan) -> ExposurePlan {
        let mut plan = ExposurePlan::default();
        let mut auto: Vec<(usize, usize, String)> = Vec::new();
        let (mut tokens, mut tools) = (0usize, 0usize);
        for (name, server) in &self.servers {
            if !server.state().is_exposed() {
                continue;
            }
            let items = self.exposed_items(name, ListKind::Tools);
            let hash = items_hash(&items);
            let cost = match (
                previous.tool_hashes.get(name),
                previous.full_tokens.get(name),
            ) {
                (Some(old), Some(cost)) if *old == hash => *cost,
                _ => items.iter().map(estimate_definition_tokens).sum(),
            };
            plan.tool_hashes.insert(name.clone(), hash);
            plan.full_tokens.insert(name.clone(), cost);
            let mode = self.configured_exposure(name);
            if mode != ToolExposure::Index {
                tokens += cost;
                tools += items.len();
            }
            if mode == ToolExposure::Auto {
                auto.push((cost, items.len(), name.clone()));
            }
            let fixed = if mode == ToolExposure::Index {
                ToolExposure::Index
            } else {
                ToolExposure::Full
            };
            plan.modes.insert(name.clone(), fixed);
        }
        plan.fit_auto(
            auto,
            (tokens, tools),
            self.settings().tool_token_budget,
            self.settings().max_tools,
        );
        if plan.modes.values().any(|m| *m == ToolExposure::Index) {
            let key = self.index_key(&plan);
            if previous.index_key == Some(key) {
                plan.index_key = Some(key);
                plan.index_tokens = std::mem::take(&mut previous.index_tokens);
                plan.meta_tools = std::mem::take(&mut previous.meta_tools);
                plan.meta_tokens = previous.meta_tokens;
                plan.meta_hash = previous.meta_hash;
                return plan;
            }
            plan.index_key = Some(key);
            let entries = self.index_entries(&plan);
            let detail = IndexDetail::within_budget(&entries, self.settings().index_token_budget);
            for name in plan
                .modes
                .iter()
                .filter(|(_, m)| **m == ToolExposure::Index)
            {
                let own: Vec<(&str, &Value)> = entries
                    .iter()
                    .filter(|(server, _)| *server == name.0.as_str())
                    .copied()
                    .collect();
                let cost = estimate_tokens(&detail.render(&own));
                plan.index_tokens.insert(name.0.clone(), cost);
            }
            plan.meta_tools = meta_tools_with_index(&detail.render(&entries));
            plan.meta_tokens = plan.meta_tools.iter().map(estimate_definition_tokens).sum();
        }
        plan.meta_hash = items_hash(&plan.meta_tools);
        plan
    }

    /// Everything the index depends on: each `index`-mode server, whether it is
    /// catalogued and its tools, and the index budget.
    fn index_key(&self, plan: &ExposurePlan) -> u64 {
        let mut text = format!("{}", self.settings().index_token_budget);
        for (name, _) in plan
            .modes
            .iter()
            .filter(|(_, m)| **m == ToolExposure::Index)
        {
            let hash = plan.tool_hashes.get(name).copied().unwrap_or_default();
            let catalogued = self.current_entry(name).is_some();
            text.push_str(&format!("\n{name} {catalogued} {hash:016x}"));
        }
        fnv1a64(text.as_bytes())
    }

    /// `(server, tool)` of every catalogued tool of an `index`-mode server, in
    /// server order (declared stubs join once the server is catalogued).
    fn index_entries<'a>(&'a self, plan: &ExposurePlan) -> Vec<(&'a str, &'a Value)> {
        let mut entries = Vec::new();
        for (name, server) in &self.servers {
            let Some(entry) = self.current_entry(name).filter(|_| plan.is_indexed(name)) else {
                continue;
            };
            let allowed = |tool: &Value| {
                let listed = match &server.config().tools {
                    ToolFilter::All => true,
                    ToolFilter::Only(names) => {
                        tool_name(tool).is_some_and(|n| names.iter().any(|d| d == n))
                    }
                };
                // Held tools are out of the index (search, load_tools, summary).
                listed
                    && !tool_name(tool).is_some_and(|n| self.pins.is_held(name, ListKind::Tools, n))
            };
            entries.extend(
                entry
                    .tools
                    .iter()
                    .filter(|t| allowed(t))
                    .map(|t| (name.as_str(), t)),
            );
        }
        entries
    }

    /// The search index over the `index`-mode servers' tools (built on first use).
    pub(in crate::engine) fn tool_index(&mut self) -> &ToolIndex {
        if self.clients.exposure.search_index().is_none() {
            let entries = self.index_entries(self.clients.exposure.plan());
            // Each indexed tool's cached vector: its position in its entry.
            let cached: Vec<Option<Vec<i8>>> = entries
                .iter()
                .map(|(server, tool)| {
                    let position = self
                        .current_entry(server)
                        .and_then(|e| e.tools.iter().position(|t| std::ptr::eq(t, *tool)));
                    position.and_then(|p| self.cached_tool_vector(server, p))
                })
                .collect();
            let index =
                ToolIndex::build_hybrid(&entries, self.search_model.model().cloned(), &|i| {
                    cached.get(i).cloned().flatten()
                });
            self.clients.exposure.search_index_built(index);
        }
        self.clients.exposure.search_index_or_empty()
    }

    /// The tools a server's own endpoint lists: none in `index` mode.
    pub(in crate::engine) fn endpoint_tools(&self, name: &str) -> Vec<Value> {
        if self.clients.exposure.is_indexed(name) {
            Vec::new()
        } else {
            self.exposed_list(name, ListKind::Tools)
        }
    }

    /// The aggregate endpoint's tools for one client: the meta-tools, every
    /// `full` server's tools (when the aggregate lists everything), and this
    /// client's loaded tools of `index` servers, under their aggregate names.
    pub(in crate::engine) fn aggregate_tools_for(&self, client: &str) -> Vec<Value> {
        let loaded = self.clients.loaded_of(client);
        let all = self.settings().aggregate_endpoint == AggregateEndpoint::All;
        let mut items = self.clients.exposure.plan().meta_tools.clone();
        items.extend(self.aggregate_list_where(ListKind::Tools, |server, tool| {
            self.clients
                .exposure
                .aggregate_shows(&loaded, server, tool, all)
        }));
        items
    }

    /// How many tools a client sees in all: `full` servers (on any endpoint),
    /// meta-tools and its loaded tools.
    pub(in crate::engine) fn tools_seen_by(&self, client: &str) -> usize {
        let plan = self.clients.exposure.plan();
        let full: usize = plan
            .modes
            .iter()
            .filter(|(_, m)| **m == ToolExposure::Full)
            .map(|(name, _)| self.exposed_items(name, ListKind::Tools).len())
            .sum();
        let loaded = self
            .clients
            .exposure
            .loaded_listed(&self.clients.loaded_of(client));
        full + plan.meta_tools.len() + loaded
    }

    /// Forgets a server's loaded tools (it was disabled or removed) and tells
    /// the clients that had some.
    pub(in crate::engine) fn unload_server(&mut self, server: &str) {
        for identity in self.clients.exposure.server_unloaded(server) {
            self.notify_identity_tools_changed(&identity);
        }
    }

    /// Drops loaded tools their server no longer offers (after a catalogue change).
    pub(in crate::engine) fn prune_loaded(&mut self) {
        let mut gone: Vec<LoadedTool> = Vec::new();
        for (server, tool) in self.clients.all_loaded() {
            let offered = match self.servers.get(&server) {
                Some(s) if s.state().is_exposed() && self.current_entry(&server).is_some() => self
                    .exposed_items(&server, ListKind::Tools)
                    .iter()
                    .any(|t| tool_name(t) == Some(tool.as_str())),
                // Not catalogued right now (restarting, failed): keep it.
                _ => true,
            };
            if !offered {
                gone.push((server, tool));
            }
        }
        for gone in gone {
            self.clients.exposure.tool_gone(&gone);
            let (server, tool) = gone;
            self.log(
                crate::engine::effects::LogLevel::Info,
                Some(&server),
                format!("loaded tool '{tool}' was unloaded: the server no longer offers it"),
            );
        }
    }

    /// `notifications/tools/list_changed` to every aggregate session of a client.
    pub(in crate::engine) fn notify_identity_tools_changed(&mut self, identity: &str) {
        let sessions: Vec<String> = self
            .clients
            .sessions
            .iter()
            .filter(|(_, s)| s.identity() == identity && s.is_aggregate())
            .map(|(id, _)| id.clone())
            .collect();
        for client in sessions {
            self.notify_client(
                &client,
                crate::protocol::jsonrpc::notification(
                    methods::NOTIFICATIONS_TOOLS_LIST_CHANGED,
                    None,
                ),
            );
        }
    }
}

impl Clients {
    /// Who a client is for its loaded set: its `clientInfo.name`, so a client that
    /// reconnects (VS Code restarting a definition) keeps what it loaded.
    /// A modern-era request is keyed by its own `clientInfo` (`modern_clients.rs`).
    pub(super) fn identity_of(&self, client: &str) -> String {
        if let Some(modern) = self.modern_request_identity(client) {
            return modern;
        }
        self.sessions
            .get(client)
            .map(|s| s.identity().to_string())
            .unwrap_or_else(|| client.to_string())
    }

    pub(super) fn loaded_of(&self, client: &str) -> VecSet<LoadedTool> {
        self.exposure
            .loaded_by(&self.identity_of(client))
            .cloned()
            .unwrap_or_default()
    }

    /// Every loaded tool over all clients (for diagnostics).
    pub(in crate::engine) fn all_loaded(&self) -> VecSet<LoadedTool> {
        self.exposure.all_loaded()
    }
}
