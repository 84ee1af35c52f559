//! What clients see: each server's exposed lists (catalogue filtered by the config's
//! `tools`, or declared stubs before any catalogue), the aggregate tables, endpoint
//! versions, and the `list_changed` announcements when any of it changes.

use crate::config::model::ToolFilter;
use crate::engine::clients::Clients;
use crate::engine::effects::Effect;
use crate::engine::effects::EndpointInfo;
use crate::engine::router::Engine;
use crate::engine::settings::AggregateEndpoint;
use crate::engine::stable_hash::{fnv1a64_hex, Fnv1a64Writer};
use crate::protocol::client_handshake::ListKind;
use crate::protocol::listed_item::ListedItem;
use crate::protocol::methods;
use crate::protocol::params::name_of;
use crate::vec_map::{VecMap, VecSet};
use serde_json::{json, Value};
use std::borrow::Cow;
use std::fmt::Write as _;

pub(in crate::engine) mod shown;

fn item_name(item: &Value) -> Option<&str> {
    name_of(item)
}

impl Engine {
    /// The list a client of `name` sees for `kind` (empty when not exposed).
    pub(in crate::engine) fn exposed_list(&self, name: &str, kind: ListKind) -> Vec<Value> {
        self.exposed_items(name, kind).into_owned()
    }

    /// [`Engine::exposed_list`] without copying in the common (unfiltered) case.
    pub(in crate::engine) fn exposed_items(&self, name: &str, kind: ListKind) -> Cow<'_, [Value]> {
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
        &self,
        name: &str,
        kind: ListKind,
    ) -> Cow<'_, [Value]> {
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

    /// Hash of what the server's own endpoint lists for `kind`.
    fn list_hash(&self, name: &str, kind: ListKind) -> u64 {
        let mut hasher = Fnv1a64Writer::default();
        // Writing into a hasher cannot fail; a failure would only weaken the hash.
        if kind == ListKind::Tools && self.clients.exposure.is_indexed(name) {
            let _ = serde_json::to_writer(&mut hasher, &json!({"toolExposure": "index"}));
        } else if let Some(hash) = (kind == ListKind::Tools)
            .then(|| self.clients.exposure.plan().tool_hashes.get(name))
            .flatten()
        {
            // The plan hashed the same items the same way (`items_hash`).
            return *hash;
        } else {
            let _ = serde_json::to_writer(&mut hasher, self.exposed_items(name, kind).as_ref());
        }
        hasher.finish()
    }

    fn endpoint_version(&self, name: &str, list_hashes: &[u64]) -> String {
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
    fn is_offered(&self, name: &str) -> bool {
        ListKind::ALL
            .iter()
            .any(|kind| !self.exposed_items(name, *kind).is_empty())
    }

    pub(in crate::engine) fn current_endpoints(&self) -> Vec<EndpointInfo> {
        self.servers
            .iter()
            .filter(|(_, s)| s.state().is_exposed())
            .map(|(name, _)| {
                let hashes: Vec<u64> = ListKind::ALL
                    .iter()
                    .map(|kind| self.list_hash(name, *kind))
                    .collect();
                EndpointInfo {
                    server: name.clone(),
                    version: self.endpoint_version(name, &hashes),
                    offered: self.is_offered(name),
                }
            })
            .collect()
    }

    /// Announces what changed since the last call: `endpointsChanged` for hosts,
    /// `notifications/*/list_changed` for attached clients.
    pub(in crate::engine) fn publish_changes(&mut self) {
        let previous = self.clients.exposure.publishing();
        let plan = self.plan_exposure(previous);
        self.clients.exposure.plan_chosen(plan);
        self.prune_loaded();
        let mut lists: VecMap<(String, ListKind), u64> = VecMap::new();
        let mut endpoints = Vec::new();
        for (name, server) in &self.servers {
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
        let tools = self.aggregate_pairs(ListKind::Tools);
        let prompts = self.aggregate_pairs(ListKind::Prompts);
        let all = self.settings().aggregate_endpoint == AggregateEndpoint::All;
        let published = self
            .clients
            .publish(lists, endpoints, (tools, prompts), all);
        self.effects.extend(published);
    }

    /// (server, item name) of every exposed tool or prompt, in server order.
    fn aggregate_pairs(&self, kind: ListKind) -> Vec<(String, String)> {
        let mut pairs = Vec::new();
        for (name, server) in &self.servers {
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

    /// Tools or prompts of every exposed server for which `keep(server, name)`
    /// holds, renamed for the aggregate endpoint.
    pub(in crate::engine) fn aggregate_list_where(
        &self,
        kind: ListKind,
        keep: impl Fn(&str, &str) -> bool,
    ) -> Vec<Value> {
        let mut items = Vec::new();
        for (name, server) in &self.servers {
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
                let Some(exposed) = self.clients.exposure.aggregate_name(kind, name, original)
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

    /// The server holding resource `uri` (exact resource first, then the template
    /// with the longest literal prefix).
    pub(in crate::engine) fn server_for_resource(&self, uri: &str) -> Option<String> {
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
}

/// (server, name) of every exposed tool, then of every prompt.
type AggregatePairs = (Vec<(String, String)>, Vec<(String, String)>);

impl Clients {
    /// Publishes what clients are shown now: each exposed server's `lists`
    /// hashes and `endpoints`, the aggregate endpoint's `pairs` (`all`: it
    /// lists every server's tools). Returns the `notifications/*/list_changed`
    /// for attached clients, then `endpointsChanged` for hosts, when any of it
    /// changed.
    fn publish(
        &mut self,
        lists: VecMap<(String, ListKind), u64>,
        endpoints: Vec<EndpointInfo>,
        pairs: AggregatePairs,
        all: bool,
    ) -> Vec<Effect> {
        let aggregate_version = self.exposure.aggregate_version(&lists, all);
        let changed = self.exposure.lists_hashed(lists);
        let mut notifications: VecSet<(String, &'static str)> = VecSet::new();
        for (server, method) in changed {
            for client in self.of_server(&server) {
                notifications.insert((client, method));
            }
        }
        if self.exposure.aggregate_versioned(&aggregate_version) {
            for (client, session) in &self.sessions {
                if session.is_aggregate() {
                    notifications
                        .insert((client.clone(), methods::NOTIFICATIONS_TOOLS_LIST_CHANGED));
                }
            }
        }
        let mut effects = Vec::new();
        for (client, method) in notifications {
            self.list_changed_notices(&client, method, &mut effects);
        }
        let (tools, prompts) = pairs;
        self.exposure.aggregate_items(tools, prompts);
        // The aggregate endpoint is offered when it has something of its own to show.
        let aggregate =
            (all || !self.exposure.plan().meta_tools.is_empty()).then_some(aggregate_version);
        if self.exposure.endpoints_published(&endpoints, &aggregate) {
            self.starts.handle_offered(&endpoints, aggregate.as_ref());
            effects.push(Effect::EndpointsChanged {
                endpoints,
                aggregate,
            });
        }
        effects
    }
}
