//! What clients are shown, read from the servers' side: each server's exposed
//! lists (catalogue filtered by the config's `tools` and the held
//! definitions, or declared stubs before any catalogue), endpoint versions,
//! the aggregate tables, the tool-exposure plan and the index's entries.
//! A read-only view over the owners it reads (servers, catalogue, pins,
//! clients, settings): nothing here changes state, so the router's files
//! (`exposure.rs`, `tool_exposure.rs`, `tool_calls.rs`, diagnostics) read it
//! and hand what it says to the owners.

use crate::config::model::{ToolExposure, ToolFilter};
use crate::engine::clients::state::exposure_plan::{ExposurePlan, LoadedTool};
use crate::engine::clients::tool_exposure::items_hash;
use crate::engine::clients::Clients;
use crate::engine::effects::EndpointInfo;
use crate::engine::registry::catalogue::{Catalogue, CatalogueEntry};
use crate::engine::server::Servers;
use crate::engine::settings::{AggregateEndpoint, Settings};
use crate::engine::stable_hash::{fnv1a64, fnv1a64_hex, Fnv1a64Writer};
use crate::engine::trust::approved_definitions::baseline_key;
use crate::engine::trust::pins::Pins;
use crate::engine::trust::project_approvals::awaiting::AwaitingApproval;
use crate::protocol::client_handshake::ListKind;
use crate::protocol::handshake_result::ServerCapabilities;
use crate::protocol::listed_item::ListedItem;
use crate::protocol::params::name_of;
use crate::tool_index::{
    estimate_definition_tokens, estimate_tokens, meta_tools_with_index, validate_arguments,
    IndexDetail,
};
use crate::vec_map::VecMap;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::fmt::Write as _;

mod gateway_answers;

fn item_name(item: &Value) -> Option<&str> {
    name_of(item)
}

fn tool_name(tool: &Value) -> Option<&str> {
    name_of(tool)
}

/// The servers' side of what clients are shown: the owners it is read from
/// (servers, catalogue, pins, settings, project approvals), not the clients. A `Clients` input
/// takes it while `Clients` itself is borrowed to change (`Engine::with_served`).
#[derive(Clone, Copy)]
pub(in crate::engine) struct ServedView<'a> {
    servers: &'a Servers,
    catalogue: &'a Catalogue,
    pins: &'a Pins,
    settings: &'a Settings,
    /// Project servers awaiting approval (a call to one is refused saying so).
    awaiting: &'a AwaitingApproval,
}

/// What clients are shown: the servers' side and what the clients chose
/// (the exposure plan, loaded tools, aggregate names); `Engine::shown`, or
/// [`Clients::shown`] inside a `Clients` input.
#[derive(Clone, Copy)]
pub(in crate::engine) struct ShownView<'a> {
    served: ServedView<'a>,
    clients: &'a Clients,
}

impl<'a> std::ops::Deref for ShownView<'a> {
    type Target = ServedView<'a>;
    fn deref(&self) -> &ServedView<'a> {
        &self.served
    }
}

impl<'a> ShownView<'a> {
    pub(in crate::engine) fn new(served: ServedView<'a>, clients: &'a Clients) -> Self {
        ShownView { served, clients }
    }
}

impl<'a> ServedView<'a> {
    pub(in crate::engine) fn new(
        servers: &'a Servers,
        catalogue: &'a Catalogue,
        pins: &'a Pins,
        settings: &'a Settings,
        awaiting: &'a AwaitingApproval,
    ) -> Self {
        ServedView {
            servers,
            catalogue,
            pins,
            settings,
            awaiting,
        }
    }

    pub(in crate::engine) fn servers(self) -> &'a Servers {
        self.servers
    }

    pub(in crate::engine) fn pins(self) -> &'a Pins {
        self.pins
    }

    pub(in crate::engine) fn settings(self) -> &'a Settings {
        self.settings
    }

    /// The catalogue entry of a server, when it matches the server's config.
    pub(in crate::engine) fn current_entry(self, name: &str) -> Option<&'a CatalogueEntry> {
        let server = self.servers.get(name)?;
        self.catalogue.warm(name, &server.config().fingerprint)
    }

    /// The instructions a server's endpoint serves: the approved ones while
    /// changed ones are held.
    pub(in crate::engine) fn served_instructions(self, name: &str) -> Option<&'a str> {
        let entry = self.current_entry(name)?;
        if self.pins.held_instructions(name) {
            let key = baseline_key(self.servers.get(name)?.config());
            return self.pins.baseline(&key)?.instructions.as_deref();
        }
        entry.initialize.instructions.as_deref()
    }

    /// The list a client of `name` sees for `kind` (empty when not exposed).
    pub(in crate::engine) fn exposed_list(self, name: &str, kind: ListKind) -> Vec<Value> {
        self.exposed_items(name, kind).into_owned()
    }

    /// [`ShownView::exposed_list`] without copying in the common (unfiltered) case.
    pub(in crate::engine) fn exposed_items(self, name: &str, kind: ListKind) -> Cow<'a, [Value]> {
        let Some(server) = self.servers.get(name) else {
            return Cow::Borrowed(&[]);
        };
        if !server.state().is_exposed() {
            return Cow::Borrowed(&[]);
        }
        self.catalogued_items(name, kind)
    }

    /// A server's lists as its catalogue (or its declared tools) has them, whether
    /// exposed now or not (a disabled server keeps its catalogue).
    pub(in crate::engine) fn catalogued_items(
        self,
        name: &str,
        kind: ListKind,
    ) -> Cow<'a, [Value]> {
        let Some(server) = self.servers.get(name) else {
            return Cow::Borrowed(&[]);
        };
        let entry = self.current_entry(name);
        // Held definitions (changed since approved) are never listed.
        if let Some(entry) = entry.filter(|_| self.pins.holds_kind(name, kind)) {
            return entry
                .list(kind)
                .iter()
                .filter(|item| {
                    item_name(item).is_some_and(|n| {
                        !self.pins.is_held(name, kind, n)
                            && match (kind, &server.config().tools) {
                                (ListKind::Tools, ToolFilter::Only(names)) => {
                                    names.iter().any(|d| d == n)
                                }
                                _ => true,
                            }
                    })
                })
                .cloned()
                .collect();
        }
        match (kind, entry, &server.config().tools) {
            (ListKind::Tools, Some(entry), ToolFilter::Only(names)) => entry
                .tools
                .iter()
                .filter(|tool| item_name(tool).is_some_and(|n| names.iter().any(|d| d == n)))
                .cloned()
                .collect(),
            (ListKind::Tools, None, ToolFilter::Only(names)) => names
                .iter()
                .map(|tool| {
                    json!({
                        "name": tool,
                        "description": format!(
                            "Declared in {} for MCP server '{name}'. Its full description and input schema load when the server first connects.",
                            server.config().source.file
                        ),
                        "inputSchema": {"type": "object"}
                    })
                })
                .collect(),
            (kind, Some(entry), _) => Cow::Borrowed(entry.list(kind).as_slice()),
            (_, None, _) => Cow::Borrowed(&[]),
        }
    }

    pub(in crate::engine) fn endpoint_version(self, name: &str, list_hashes: &[u64]) -> String {
        let fingerprint = self
            .servers
            .get(name)
            .map(|s| s.config().fingerprint.as_str())
            .unwrap_or_default();
        let instructions = self.served_instructions(name).unwrap_or_default();
        let mut text = format!("{fingerprint}\n{instructions}");
        for hash in list_hashes {
            let _ = write!(text, "\n{hash:016x}");
        }
        fnv1a64_hex(text.as_bytes())
    }

    /// Whether hosts that register one MCP definition per server offer this one: only
    /// with something to list. A server still cataloguing, FAILED or NEEDS AUTH with
    /// neither a catalogue nor declared tools is not: VS Code would show an empty server
    /// as "Running" (its gateway session is fine) and list nothing. Its endpoint still
    /// answers (a client configured with its URL gets `list_changed` when tools arrive).
    pub(in crate::engine) fn is_offered(self, name: &str) -> bool {
        ListKind::ALL
            .iter()
            .any(|kind| !self.exposed_items(name, *kind).is_empty())
    }

    /// The server is enabled and its catalogue says `resources.subscribe`.
    pub(in crate::engine) fn supports_subscriptions(self, name: &str) -> bool {
        let exposed = self
            .servers
            .get(name)
            .is_some_and(|s| s.state().is_exposed());
        exposed
            && self.current_entry(name).is_some_and(|entry| {
                ServerCapabilities::read(&entry.initialize.capabilities).resources_subscribe()
            })
    }

    /// (server, item name) of every exposed tool or prompt, in server order.
    pub(in crate::engine) fn aggregate_pairs(self, kind: ListKind) -> Vec<(String, String)> {
        let mut pairs = Vec::new();
        for (name, server) in self.servers {
            if !server.state().is_exposed() {
                continue;
            }
            for item in self.exposed_items(name, kind).iter() {
                if let Some(item_name) = item_name(item) {
                    pairs.push((name.clone(), item_name.to_string()));
                }
            }
        }
        pairs
    }

    /// The server holding resource `uri` (exact resource first, then the template
    /// with the longest literal prefix).
    pub(in crate::engine) fn server_for_resource(self, uri: &str) -> Option<String> {
        let exposed = self.servers.iter().filter(|(_, s)| s.state().is_exposed());
        for (name, _) in exposed.clone() {
            let resources = self.exposed_items(name, ListKind::Resources);
            if resources
                .iter()
                .any(|r| ListedItem::read(r).uri == Some(uri))
            {
                return Some(name.clone());
            }
        }
        let mut best: Option<(usize, String)> = None;
        for (name, _) in exposed {
            for template in self.exposed_items(name, ListKind::ResourceTemplates).iter() {
                let Some(pattern) = ListedItem::read(template).uri_template else {
                    continue;
                };
                let prefix = pattern.split('{').next().unwrap_or_default();
                if !prefix.is_empty()
                    && uri.starts_with(prefix)
                    && best.as_ref().is_none_or(|(len, _)| prefix.len() > *len)
                {
                    best = Some((prefix.len(), name.clone()));
                }
            }
        }
        best.map(|(_, name)| name)
    }

    /// The mode asked for: host setting per server, else the config key, else the default.
    pub(in crate::engine) fn configured_exposure(self, name: &str) -> ToolExposure {
        self.settings
            .tool_exposure_by_server
            .get(name)
            .copied()
            .or_else(|| {
                self.servers
                    .get(name)
                    .and_then(|s| s.config().tool_exposure)
            })
            .unwrap_or(self.settings.tool_exposure)
    }

    /// Decides every exposed server's mode. `auto` servers stay `full` while
    /// everything listed in full fits the token budget and the tool limit;
    /// otherwise they move to `index`, biggest first, until it fits.
    pub(in crate::engine) fn plan_exposure(self, mut previous: ExposurePlan) -> ExposurePlan {
        let mut plan = ExposurePlan::default();
        let mut auto: Vec<(usize, usize, String)> = Vec::new();
        let (mut tokens, mut tools) = (0usize, 0usize);
        for (name, server) in self.servers {
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
            self.settings.tool_token_budget,
            self.settings.max_tools,
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
            let detail = IndexDetail::within_budget(&entries, self.settings.index_token_budget);
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
    pub(in crate::engine) fn index_key(self, plan: &ExposurePlan) -> u64 {
        let mut text = format!("{}", self.settings.index_token_budget);
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
    pub(in crate::engine) fn index_entries(self, plan: &ExposurePlan) -> Vec<(&'a str, &'a Value)> {
        let mut entries = Vec::new();
        for (name, server) in self.servers {
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

    /// The schema's complaint about `arguments` for a catalogued tool, if any:
    /// said before any server is started.
    pub(in crate::engine) fn invalid_arguments(
        self,
        server: &str,
        tool: &str,
        arguments: &Value,
    ) -> Option<String> {
        let items = self.exposed_items(server, ListKind::Tools);
        let schema = items
            .iter()
            .find(|t| name_of(t) == Some(tool))
            .and_then(|t| ListedItem::read(t).input_schema)?;
        validate_arguments(schema, arguments).err().map(|why| {
            format!("Invalid arguments for {server}/{tool}: {why}. Nothing was started.")
        })
    }
}

impl<'a> ShownView<'a> {
    /// Hash of what the server's own endpoint lists for `kind`.
    pub(in crate::engine) fn list_hash(self, name: &str, kind: ListKind) -> u64 {
        let mut hasher = Fnv1a64Writer::default();
        // Writing into a hasher cannot fail; a failure would only weaken the hash.
        if kind == ListKind::Tools && self.clients.exposure().is_indexed(name) {
            let _ = serde_json::to_writer(&mut hasher, &json!({"toolExposure": "index"}));
        } else if let Some(hash) = (kind == ListKind::Tools)
            .then(|| self.clients.exposure().plan().tool_hashes.get(name))
            .flatten()
        {
            // The plan hashed the same items the same way (`items_hash`).
            return *hash;
        } else {
            let _ = serde_json::to_writer(&mut hasher, self.exposed_items(name, kind).as_ref());
        }
        hasher.finish()
    }

    /// Loaded tools their server no longer offers; a server not catalogued
    /// right now (restarting, failed) keeps its own.
    pub(in crate::engine) fn loaded_not_offered(self) -> Vec<LoadedTool> {
        let mut gone: Vec<LoadedTool> = Vec::new();
        for (server, tool) in self.clients.all_loaded() {
            let offered = match self.servers.get(&server) {
                Some(s) if s.state().is_exposed() && self.current_entry(&server).is_some() => self
                    .exposed_items(&server, ListKind::Tools)
                    .iter()
                    .any(|t| tool_name(t) == Some(tool.as_str())),
                _ => true,
            };
            if !offered {
                gone.push((server, tool));
            }
        }
        gone
    }

    /// Each exposed server's list hashes (by kind) and endpoint, as published.
    pub(in crate::engine) fn lists_and_endpoints(
        self,
    ) -> (VecMap<(String, ListKind), u64>, Vec<EndpointInfo>) {
        let mut lists: VecMap<(String, ListKind), u64> = VecMap::new();
        let mut endpoints = Vec::new();
        for (name, server) in self.servers {
            if !server.state().is_exposed() {
                continue;
            }
            let hashes: Vec<u64> = ListKind::ALL
                .iter()
                .map(|kind| self.list_hash(name, *kind))
                .collect();
            for (kind, hash) in ListKind::ALL.iter().zip(&hashes) {
                lists.insert((name.clone(), *kind), *hash);
            }
            endpoints.push(EndpointInfo {
                server: name.clone(),
                version: self.endpoint_version(name, &hashes),
                offered: self.is_offered(name),
            });
        }
        (lists, endpoints)
    }

    /// Tools or prompts of every exposed server for which `keep(server, name)`
    /// holds, renamed for the aggregate endpoint.
    pub(in crate::engine) fn aggregate_list_where(
        self,
        kind: ListKind,
        keep: impl Fn(&str, &str) -> bool,
    ) -> Vec<Value> {
        let mut items = Vec::new();
        for (name, server) in self.servers {
            if !server.state().is_exposed() {
                continue;
            }
            for item in self.exposed_items(name, kind).iter() {
                let Some(original) = item_name(item) else {
                    continue;
                };
                if !keep(name, original) {
                    continue;
                }
                let Some(exposed) = self.clients.exposure().aggregate_name(kind, name, original)
                else {
                    continue;
                };
                let mut item = item.clone();
                if let Some(object) = item.as_object_mut() {
                    object.insert("name".into(), Value::from(exposed.as_str()));
                }
                items.push(item);
            }
        }
        items
    }

    /// The tools a server's own endpoint lists: none in `index` mode.
    pub(in crate::engine) fn endpoint_tools(self, name: &str) -> Vec<Value> {
        if self.clients.exposure().is_indexed(name) {
            Vec::new()
        } else {
            self.exposed_list(name, ListKind::Tools)
        }
    }

    /// The aggregate endpoint's tools for one client: the meta-tools, every
    /// `full` server's tools (when the aggregate lists everything), and this
    /// client's loaded tools of `index` servers, under their aggregate names.
    pub(in crate::engine) fn aggregate_tools_for(self, client: &str) -> Vec<Value> {
        let loaded = self.clients.loaded_of(client);
        let all = self.settings.aggregate_endpoint == AggregateEndpoint::All;
        let mut items = self.clients.exposure().plan().meta_tools.clone();
        items.extend(self.aggregate_list_where(ListKind::Tools, |server, tool| {
            self.clients
                .exposure()
                .aggregate_shows(&loaded, server, tool, all)
        }));
        items
    }

    /// How many tools a client sees in all: `full` servers (on any endpoint),
    /// meta-tools and its loaded tools.
    pub(in crate::engine) fn tools_seen_by(self, client: &str) -> usize {
        let plan = self.clients.exposure().plan();
        let full: usize = plan
            .modes
            .iter()
            .filter(|(_, m)| **m == ToolExposure::Full)
            .map(|(name, _)| self.exposed_items(name, ListKind::Tools).len())
            .sum();
        let loaded = self
            .clients
            .exposure()
            .loaded_listed(&self.clients.loaded_of(client));
        full + plan.meta_tools.len() + loaded
    }
}
