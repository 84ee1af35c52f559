//! `Engine::snapshot`: the data behind "MCP Diagnostics" read from every
//! owner (the servers, the catalogue, the clients, trust, the config load).
//! The snapshot's types are `diagnostics_snapshot.rs`'s; building it reads
//! the router's fields, so it lives in the router's folder.

use crate::config::host_policy::unmanaged_counts;
use crate::config::model::{ToolExposure, Transport};
use crate::engine::diagnostics_snapshot::{
    DiagnosticsSnapshot, DiagnosticsTotals, ServerDiagnostics, UnmanagedView,
};
use crate::engine::router::Engine;
use crate::engine::server_actions::{allowed_actions, progress};
use crate::engine::state::ServerState;
use crate::protocol::client_handshake::ListKind;
use crate::protocol::params::name_of;
use crate::tool_index::estimate_definition_tokens;

/// "9 tools", "1 tool"; "9 tools catalogued" when none is exposed (disabled, dormant).
fn tools_text(exposed: usize, catalogued: usize) -> String {
    if exposed == 0 && catalogued > 0 {
        format!("{} catalogued", crate::wording::count(catalogued, "tool"))
    } else {
        crate::wording::count(exposed, "tool")
    }
}

fn transport_kind(transport: &Transport) -> &'static str {
    match transport {
        Transport::Stdio { .. } => "stdio",
        Transport::Http { .. } => "http",
        Transport::Sse { .. } => "sse",
    }
}

impl Engine {
    /// Everything "MCP Diagnostics" shows. Secrets are not included (no env or headers).
    pub fn snapshot(&self) -> DiagnosticsSnapshot {
        let mut totals = DiagnosticsTotals {
            meta_tool_tokens: self.clients.plan().meta_tokens,
            exposed_token_estimate: self.clients.plan().meta_tokens,
            ..DiagnosticsTotals::default()
        };
        let loaded = self.clients.all_loaded();
        let shown = self.shown();
        let mut servers = Vec::new();
        for (name, server) in &self.servers {
            let entry = self.current_entry(name);
            let tools = shown.exposed_items(name, ListKind::Tools);
            let schema_token_estimate: usize = tools.iter().map(estimate_definition_tokens).sum();
            let exposed_as = self.clients.plan().modes.get(name).copied();
            let loaded_tools: Vec<String> = loaded
                .iter()
                .filter(|(server, _)| server == name)
                .map(|(_, tool)| tool.clone())
                .collect();
            let exposed_token_estimate = match exposed_as {
                Some(ToolExposure::Index) => {
                    let index = self
                        .clients
                        .plan()
                        .index_tokens
                        .get(name)
                        .copied()
                        .unwrap_or(0);
                    let loaded_cost: usize = tools
                        .iter()
                        .filter(|t| name_of(t).is_some_and(|n| loaded_tools.iter().any(|l| l == n)))
                        .map(estimate_definition_tokens)
                        .sum();
                    index + loaded_cost
                }
                Some(_) => schema_token_estimate,
                None => 0,
            };
            let count = |kind| shown.exposed_items(name, kind).len();
            let catalogued_tools =
                entry.map_or(0, |_| shown.catalogued_items(name, ListKind::Tools).len());
            let connected = *server.state() == ServerState::Connected;
            totals.servers += 1;
            match server.state() {
                ServerState::Catalogued => totals.catalogued += 1,
                ServerState::Connected => totals.connected += 1,
                ServerState::Dormant => totals.dormant += 1,
                ServerState::Failed { .. } => totals.failed += 1,
                ServerState::Disabled => totals.disabled += 1,
                ServerState::NeedsAuth => totals.needs_auth += 1,
                ServerState::Pending | ServerState::Cataloguing | ServerState::Connecting => {
                    totals.in_progress += 1
                }
            }
            if matches!(
                server.state(),
                ServerState::Pending | ServerState::Cataloguing
            ) && !server.background()
            {
                totals.cataloguing_shown += 1;
            }
            totals.tools += tools.len();
            totals.schema_token_estimate += schema_token_estimate;
            totals.exposed_token_estimate += exposed_token_estimate;
            totals.loaded_tools += loaded_tools.len();
            servers.push(ServerDiagnostics {
                name: name.clone(),
                source: server.config().source.clone(),
                source_label: self
                    .registry
                    .config_load()
                    .source_label(&server.config().source),
                transport: transport_kind(&server.config().transport).into(),
                state: server.state().clone(),
                state_label: server.state().label().into(),
                actions: allowed_actions(
                    server.state(),
                    (self.servers).auth_snapshot(self.settings(), name).as_ref(),
                ),
                progress: progress(server.state()),
                catalogued_only: *server.state() == ServerState::Catalogued,
                listed_at_ms: self.clients.listed_at(name),
                state_since_ms: server.state_since_ms(),
                background: server.background(),
                failed_attempts: server.crashes().failed_attempts(),
                retry_at_ms: match server.state() {
                    ServerState::Failed { retry_at_ms, .. } => *retry_at_ms,
                    _ => None,
                },
                gave_up_after: match server.state() {
                    ServerState::Failed {
                        retry_at_ms: None, ..
                    } => Some(server.crashes().failed_attempts()),
                    _ => None,
                },
                tools: tools.len(),
                catalogued_tools,
                tools_text: tools_text(tools.len(), catalogued_tools),
                prompts: count(ListKind::Prompts),
                resources: count(ListKind::Resources),
                resource_templates: count(ListKind::ResourceTemplates),
                tools_are_declared_stubs: entry.is_none() && !tools.is_empty(),
                pid: server.stats().pid().filter(|_| connected),
                shared: server.stats().shared() && connected,
                shared_clients: server
                    .stats()
                    .shared_clients()
                    .filter(|_| server.stats().shared() && connected),
                shared_holders: if server.stats().shared() && connected {
                    server.stats().shared_holders().to_vec()
                } else {
                    Vec::new()
                },
                rss_bytes: server.stats().rss_bytes().filter(|_| connected),
                catalogued_at_ms: entry.map(|e| e.catalogued_at_ms),
                cache_age_ms: entry.map(|e| self.now_ms.saturating_sub(e.catalogued_at_ms)),
                connect_latency_ms: server.stats().connect_latency_ms(),
                protocol_version: entry.map(|e| e.initialize.protocol_version.clone()),
                era: entry.map(|e| e.era),
                cache_ttl_ms: entry.and_then(|e| e.cache.as_ref()).map(|c| c.ttl_ms),
                cache_stale: entry.is_some_and(|e| {
                    e.is_stale(self.now_ms) && e.cache.as_ref().is_some_and(|c| c.ttl_ms > 0)
                }),
                calls_served: server.stats().calls_served(),
                calls_last_hour: server.idle().calls_last_hour(self.now_ms),
                idle_after_ms: connected
                    .then(|| (self.servers).idle_after_ms(self.settings(), name, self.now_ms)),
                last_error: server.stats().last_error().cloned(),
                dropped_declared_tools: server.stats().dropped_declared_tools().to_vec(),
                schema_token_estimate,
                exposed_token_estimate,
                tool_exposure: shown.configured_exposure(name),
                exposed_as,
                loaded_tools,
                loaded_by_vscode: server.config().loaded_by_vscode,
                fingerprint: server.config().fingerprint.clone(),
                auth: (self.servers).auth_snapshot(self.settings(), name),
                definitions: self.trust.pins().status(name, server.config()),
            });
        }
        totals.held_definitions = self.trust.pins().held_count();
        totals.enabled = totals
            .servers
            .saturating_sub(totals.disabled)
            .saturating_sub(totals.dormant);
        let unmanaged_servers = &self.config_report().unmanaged;
        totals.unmanaged = unmanaged_counts(unmanaged_servers);
        let unmanaged = totals
            .unmanaged
            .iter()
            .map(|&(group, count)| UnmanagedView {
                group,
                title: format!("{} ({count})", group.title()),
                explanation: group.explanation().into(),
                servers: unmanaged_servers
                    .iter()
                    .filter(|u| u.group == group)
                    .cloned()
                    .collect(),
            })
            .collect();
        totals.needs_approval = self.trust.awaiting().requests().len();
        DiagnosticsSnapshot {
            core_version: crate::CORE_VERSION.into(),
            now_ms: self.now_ms,
            servers,
            summary: totals.summary(),
            totals,
            unmanaged,
            needs_approval: self.trust.awaiting().requests().to_vec(),
        }
    }

    /// [`Engine::snapshot`] as JSON.
    pub fn snapshot_json(&self) -> String {
        serde_json::to_string(&self.snapshot()).unwrap_or_else(|_| "{}".into())
    }
}
