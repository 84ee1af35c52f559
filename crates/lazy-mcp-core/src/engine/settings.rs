//! Engine settings (host-supplied; every field has a default).

use crate::config::model::ToolExposure;
use crate::shared::launch::SharingSettings;
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};

/// A workspace folder, answered to upstream `roots/list` requests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Root {
    pub uri: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// What the aggregate endpoint (`/mcp`) lists.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum AggregateEndpoint {
    /// Every server's tools, prompts and resources, plus the tool index (the CLI).
    #[default]
    All,
    /// Only the tool index: meta-tools and loaded tools (VS Code, where every
    /// server also has its own endpoint and listing them twice would duplicate).
    /// Such a host offers each endpoint to its MCP client as a definition the
    /// client starts only when asked: the engine asks it to
    /// (`clients/definition_starts.rs`).
    ToolIndex,
}

// Read by hand (`settings_json.rs`), not derived; the contract's type still
// takes its names and optional fields from the serde attributes below.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// How many servers are catalogued at the same time.
    pub catalogue_concurrency: usize,
    /// A CONNECTED server with no calls for this long is stopped; 0 = never.
    /// With `adaptive_idle` it is the ceiling of the idle time.
    pub idle_timeout_ms: u64,
    /// The idle time follows each server's call rate in the last hour (over 20
    /// calls → 5 min, 5–20 → 3 min, fewer → 1 min; never above
    /// `idle_timeout_ms`); false: every server idles out after `idle_timeout_ms`.
    pub adaptive_idle: bool,
    /// A server's own idle ceiling (ms; 0 = never), in place of
    /// `idle_timeout_ms` for that server (`lazyMcp.serverIdleTimeoutMinutes`,
    /// `--server-idle-timeout NAME=MS`), as the CLI flags say it:
    /// `NAME=MS` items separated by newlines (the last one of a name wins; a
    /// name holds no `=` or newline). A text, read at each use: a typed map's
    /// reader costs the `.wasm` 2 KB (bench/README.md "WASM size").
    pub idle_timeout_by_server: String,
    /// Handshake (and cataloguing) timeout when the server config sets none.
    pub handshake_timeout_ms: u64,
    /// How long a forwarded request may take before the client gets an error and
    /// the server a `notifications/cancelled` (progress notifications extend it).
    pub request_timeout_ms: u64,
    /// A server that asks for `roots/list` while starting gets this long to apply
    /// the roots before its first call is forwarded (0 = forward at once).
    pub roots_settle_ms: u64,
    /// Crashes within `crash_window_ms` that turn a server FAILED.
    pub crash_limit: usize,
    pub crash_window_ms: u64,
    /// First retry delay after a failure; doubled per consecutive failure up to the max.
    pub backoff_base_ms: u64,
    pub backoff_max_ms: u64,
    /// Automatic retries of a FAILED server before it gives up and stays FAILED
    /// (a user action, a config edit or a call still retries at once).
    pub max_retries: u32,
    /// The host's workspace folders (absolute paths); the engine turns them into
    /// the `roots` it answers to servers (engine/roots.rs).
    pub workspace_folders: Vec<String>,
    /// `clientInfo` sent upstream and `serverInfo` of the aggregate endpoint.
    pub client_name: String,
    pub client_version: String,
    /// Tool exposure of servers without a `toolExposure` key.
    pub tool_exposure: ToolExposure,
    /// Per-server tool exposure from the host's settings (wins over the config key).
    pub tool_exposure_by_server: VecMap<String, ToolExposure>,
    /// `auto`: the most estimated tokens of tool definitions listed in full.
    pub tool_token_budget: usize,
    /// The most tools one client is shown (`auto`, `load_tools`); Copilot refuses more than 128.
    pub max_tools: usize,
    /// The index lists one-line summaries while it fits this many tokens, names only beyond.
    pub index_token_budget: usize,
    pub aggregate_endpoint: AggregateEndpoint,
    /// Whether a call to a server that needs sign-in may wait for one within
    /// its timeout (VS Code: it prompts); else it fails at once naming
    /// `lazy-mcp auth login SERVER` (the CLI gateway).
    pub sign_in_may_wait: bool,
    /// The largest message Lazy MCP takes from a remote (HTTP) server: a reply
    /// body, one SSE event. A bigger one fails its request naming the server and
    /// this limit (a hostile server could otherwise grow the process without
    /// bound). Sent with each `open` effect.
    pub max_message_bytes: u64,
    /// A server seen for the first time has its tools held until the user
    /// reviews them (`lazyMcp.holdNewTools`, `--hold-new-tools`); otherwise its
    /// first listing becomes its approved baseline.
    pub hold_new_tools: bool,
    /// Stdio servers are attached through the per-user owner instead of
    /// spawned (`open` effect's `shared`; docs/shared-servers.md).
    pub share_servers: bool,
    /// What this engine's session is called where other sessions see it (the
    /// holders of a shared process): "VS Code window", "lazy-mcp serve --stdio (pid 4242)".
    pub session_label: String,
    /// false: the engine loads and reports config but manages none of its
    /// servers (never starts one): the CLI's `config` and `trust` commands.
    pub manage_servers: bool,
    /// Re-list every CONNECTED server this often (`refreshCatalogue` without
    /// re-cataloguing: never a spawn); 0 = never. The engine's own timer,
    /// restarted by each `settingsChanged` (VS Code's `lazyMcp.refreshIntervalMinutes`).
    pub refresh_interval_ms: u64,
    /// The HTTP gateway ends a client session with no request and no open
    /// stream for this long (`serve --session-idle-timeout`); 0 = never.
    pub session_idle_ms: u64,
    /// The HTTP gateway keeps at most this many client sessions: a new one
    /// beyond it ends the least recently used (`serve --max-sessions`).
    pub max_sessions: u64,
    /// A host that offers one definition per server (VS Code): once its
    /// client listed a definition's tools and the window was quiet, close the
    /// client's session that only listed, so its MCP list shows the server
    /// Stopped (`lazyMcp.closeListingSessions`). VS Code cancels a request it
    /// sends in the instant the session closes; false keeps the sessions open.
    pub close_listing_sessions: bool,
}

/// Default of `Settings::max_message_bytes`: 64 MiB (a tool result of tens of
/// megabytes still passes).
pub const DEFAULT_MAX_MESSAGE_BYTES: u64 = 64 * 1024 * 1024;

impl Default for Settings {
    fn default() -> Self {
        Settings {
            catalogue_concurrency: 2,
            idle_timeout_ms: 600_000,
            adaptive_idle: true,
            idle_timeout_by_server: String::new(),
            handshake_timeout_ms: 30_000,
            request_timeout_ms: 120_000,
            roots_settle_ms: 100,
            crash_limit: 3,
            crash_window_ms: 120_000,
            backoff_base_ms: 5_000,
            backoff_max_ms: 300_000,
            max_retries: 5,
            workspace_folders: Vec::new(),
            client_name: "lazy-mcp".into(),
            client_version: crate::CORE_VERSION.into(),
            tool_exposure: ToolExposure::Auto,
            tool_exposure_by_server: VecMap::new(),
            tool_token_budget: 20_000,
            max_tools: 128,
            index_token_budget: 1_000,
            aggregate_endpoint: AggregateEndpoint::All,
            sign_in_may_wait: false,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            hold_new_tools: false,
            share_servers: false,
            session_label: "lazy-mcp".into(),
            manage_servers: true,
            refresh_interval_ms: 0,
            session_idle_ms: crate::host_limits::SESSION_IDLE_MS,
            max_sessions: crate::host_limits::MAX_SESSIONS,
            close_listing_sessions: true,
        }
    }
}

impl<'a> From<&'a Settings> for SharingSettings<'a> {
    fn from(settings: &'a Settings) -> Self {
        SharingSettings {
            share_servers: settings.share_servers,
            workspace_folders: &settings.workspace_folders,
            client_version: &settings.client_version,
            session_label: &settings.session_label,
        }
    }
}
