//! The data behind "MCP Diagnostics": per server and totals, serialized camelCase.

use crate::config::host_policy::{Unmanaged, UnmanagedGroup};
use crate::config::model::{SourceRef, ToolExposure};
use crate::engine::server_actions::{Progress, ServerAction};
use crate::engine::state::ServerState;
use crate::protocol::client_discover::Era;
use serde::{Deserialize, Serialize};

#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerDiagnostics {
    pub name: String,
    pub source: SourceRef,
    /// Where it is defined, as MCP Diagnostics names files: `.mcp.json:3`
    /// (workspace-relative), `~/.copilot/mcp-config.json:4`, else the full path.
    #[serde(default)]
    pub source_label: String,
    /// `stdio`, `http` or `sse`.
    pub transport: String,
    pub state: ServerState,
    /// "CONNECTED", "CATALOGUED ONLY", …
    pub state_label: String,
    /// What the user can do with it now (menus, Diagnostics links, CLI).
    pub actions: Vec<ServerAction>,
    /// Busy, ready, failed or off: what a host waits on or counts.
    pub progress: Progress,
    /// CATALOGUED: listed, and no process of it runs for any client. A client
    /// session that only listed it may be closed (VS Code's, after its first
    /// listing); a server some client started using is no longer one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub catalogued_only: bool,
    /// When a client was last answered `tools/list` on its endpoint (VS Code
    /// picked its definition's tools up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listed_at_ms: Option<u64>,
    /// When the server entered its current state.
    pub state_since_ms: u64,
    /// PENDING/CATALOGUING as an automatic retry: hosts show no progress for it.
    pub background: bool,
    /// Failed attempts in a row (reset by a successful catalogue or a config change).
    pub failed_attempts: u32,
    /// FAILED with an automatic retry due at this time (host clock, ms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_at_ms: Option<u64>,
    /// FAILED and no longer retried on its own: the attempts made (Connect Now tries again).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gave_up_after: Option<u32>,
    /// Tools exposed to clients now.
    pub tools: usize,
    /// Tools its catalogue holds, exposed or not (a DISABLED or DORMANT server keeps them).
    pub catalogued_tools: usize,
    /// What the servers view says about its tools: "9 tools", "1 tool", or
    /// "9 tools catalogued" while none is exposed.
    pub tools_text: String,
    pub prompts: usize,
    pub resources: usize,
    pub resource_templates: usize,
    /// True while the exposed tools are declared stubs (no catalogue yet).
    pub tools_are_declared_stubs: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// The process is shared with other windows and CLI sessions (`lazyMcp.shareServers`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shared: bool,
    /// How many windows and CLI sessions hold the shared process, this one included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shared_clients: Option<u32>,
    /// Which windows and CLI sessions hold the shared process, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared_holders: Vec<crate::shared::launch::SharedHolder>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rss_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub catalogued_at_ms: Option<u64>,
    /// Age of the catalogue entry at the time of the last event.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_age_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connect_latency_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// The protocol era its catalogue entry records (absent until catalogued).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub era: Option<Era>,
    /// The `ttlMs` the server gave its lists (modern servers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_ttl_ms: Option<u64>,
    /// The entry is older than a non-zero ttl: it is re-listed at the next
    /// connection. Never set for a ttl of 0 (the server's "may change at any
    /// time": such an entry is listed again at each connection, not stale).
    #[serde(default)]
    pub cache_stale: bool,
    pub calls_served: u64,
    /// Calls forwarded to it in the last hour: its idle time follows them.
    #[serde(default)]
    pub calls_last_hour: usize,
    /// While it runs: how long it may go without calls before it is stopped
    /// (its call rate's tier under the user's ceiling; `server/idle/policy.rs`). 0 = never.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idle_after_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    pub dropped_declared_tools: Vec<String>,
    /// Estimated tokens of the exposed tools' definitions: what `full` mode costs
    /// (`estimate_definition_tokens`, an estimate, not a tokenizer count).
    pub schema_token_estimate: usize,
    /// Estimated tokens the server costs the model now: its definitions in `full`
    /// mode; its index lines plus loaded tools in `index` mode.
    pub exposed_token_estimate: usize,
    /// The mode asked for (setting or `toolExposure` key).
    pub tool_exposure: ToolExposure,
    /// The mode in effect (`full` or `index`) while the server is exposed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exposed_as: Option<ToolExposure>,
    /// Tools of this server some client loaded (index mode).
    pub loaded_tools: Vec<String>,
    pub loaded_by_vscode: bool,
    pub fingerprint: String,
    /// Sign-in of a server that uses OAuth (absent for the others).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<crate::engine::auth_contract::AuthSnapshot>,
    /// When its definitions were approved and what is held (absent before its first catalogue).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definitions: Option<crate::engine::trust::held_definitions::DefinitionsStatus>,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiagnosticsTotals {
    pub servers: usize,
    /// Servers neither disabled nor dormant: the "of N" of "connected of N".
    pub enabled: usize,
    pub catalogued: usize,
    pub connected: usize,
    pub dormant: usize,
    pub failed: usize,
    pub disabled: usize,
    pub needs_auth: usize,
    /// Project servers waiting for approval (`DiagnosticsSnapshot::needs_approval`).
    #[serde(default)]
    pub needs_approval: usize,
    /// PENDING, CATALOGUING or CONNECTING.
    pub in_progress: usize,
    /// Servers being catalogued (PENDING or CATALOGUING) that a host shows as
    /// progress: automatic retries run in the background and are not counted.
    pub cataloguing_shown: usize,
    /// Tools exposed to clients, all servers.
    pub tools: usize,
    /// Estimated tokens of every exposed tool definition (`full` mode for all).
    pub schema_token_estimate: usize,
    /// Estimated tokens exposed now, meta-tools and index included.
    pub exposed_token_estimate: usize,
    /// Of which the meta-tools with the index (0 when no server is in `index` mode).
    pub meta_tool_tokens: usize,
    pub loaded_tools: usize,
    /// Configured servers the host does not manage, by group (`host_policy.rs`):
    /// with `servers` they add up to every server configured.
    #[serde(default)]
    pub unmanaged: Vec<(UnmanagedGroup, usize)>,
    /// Definitions held until the user reviews them, all servers (the status bar's count).
    #[serde(default)]
    pub held_definitions: usize,
}

/// Configured servers the host leaves out, one group of the servers view.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UnmanagedView {
    pub group: UnmanagedGroup,
    /// "Managed by VS Code (3)".
    pub title: String,
    /// Why, and how to change it (a setting, trust).
    pub explanation: String,
    pub servers: Vec<Unmanaged>,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiagnosticsSnapshot {
    pub core_version: String,
    /// Time of the last event the engine handled.
    pub now_ms: u64,
    pub servers: Vec<ServerDiagnostics>,
    pub totals: DiagnosticsTotals,
    /// One line for every UI ("1 connected · 2 catalogued only · 1 disabled ·
    /// 3 managed by VS Code"): connected and catalogued always, the other states
    /// and unmanaged groups when there are any, so the counts add up.
    #[serde(default)]
    pub summary: String,
    /// Servers configured but left out by the host policy, by group.
    #[serde(default)]
    pub unmanaged: Vec<UnmanagedView>,
    /// Project servers shown as NEEDS APPROVAL: nothing of them runs until the
    /// user approves (config/project_approval.rs); not in `servers`.
    #[serde(default)]
    pub needs_approval: Vec<crate::config::host_policy::ApprovalRequest>,
}

impl DiagnosticsTotals {
    /// See [`DiagnosticsSnapshot::summary`].
    pub fn summary(&self) -> String {
        let mut parts = vec![
            format!("{} connected", self.connected),
            format!("{} catalogued only", self.catalogued),
        ];
        // (count, its words for one, for several): "1 needs auth", "2 need auth".
        for (count, one, many) in [
            (self.in_progress, "in progress", "in progress"),
            (self.failed, "failed", "failed"),
            (self.needs_auth, "needs auth", "need auth"),
            (self.needs_approval, "needs approval", "need approval"),
            (self.dormant, "dormant", "dormant"),
            (self.disabled, "disabled", "disabled"),
        ] {
            if count > 0 {
                parts.push(crate::wording::count_as(count, one, many));
            }
        }
        for (group, count) in &self.unmanaged {
            parts.push(format!("{count} {}", group.counted_as()));
        }
        // Definitions, not servers: said apart so the server counts still add up.
        if self.held_definitions > 0 {
            parts.push(format!(
                "{} held for review",
                crate::wording::count(self.held_definitions, "definition")
            ));
        }
        parts.join(" · ")
    }
}
