//! The normalized shape every config format is read into. This is the contract
//! between config normalization (producer) and the lifecycle engine (consumer).

use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};

/// Which tool's config format a server definition came from.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConfigFormat {
    ClaudeCode,
    ClaudeDesktop,
    CopilotCli,
    OpenCode,
    VsCode,
}

/// Project = a workspace folder; user = the user's home / profile;
/// local = Claude Code's per-project entry inside `~/.claude.json`.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConfigScope {
    Local,
    Project,
    User,
}

/// Where a definition was read from, precise enough to open the file at the entry.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceRef {
    pub format: ConfigFormat,
    pub scope: ConfigScope,
    /// Absolute path of the file.
    pub file: String,
    /// 1-based line and column of the server's entry (its key).
    pub line: u32,
    pub column: u32,
    /// Workspace folder the file belongs to (project/local scope only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_folder: Option<String>,
}

/// How to reach a server. Values are expanded (except `${input:...}`, which the
/// host resolves only when the server connects); display code must redact them.
/// Read by `model_json.rs` (serde's `tag` here only writes).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Transport {
    #[serde(rename_all = "camelCase")]
    Stdio {
        command: String,
        #[serde(default)]
        args: Vec<String>,
        #[serde(default)]
        env: VecMap<String, String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
        /// VS Code `envFile`: read by the host at connect time.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        env_file: Option<String>,
    },
    /// Streamable HTTP (with the host falling back to legacy SSE when the server needs it).
    #[serde(rename_all = "camelCase")]
    Http {
        url: String,
        #[serde(default)]
        headers: VecMap<String, String>,
    },
    /// Legacy HTTP+SSE, when the config says so explicitly.
    #[serde(rename_all = "camelCase")]
    Sse {
        url: String,
        #[serde(default)]
        headers: VecMap<String, String>,
    },
}

/// The `tools` key: which tools are exposed, and (before any catalogue exists)
/// which names are shown as stubs without a live connection.
/// Read by `model_json.rs` (serde's `tag` here only writes).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(tag = "kind", content = "names", rename_all = "camelCase")]
pub enum ToolFilter {
    /// No `tools` key, or `["*"]`: everything the server lists.
    #[default]
    All,
    /// An explicit allow-list of tool names (also the declared stubs).
    Only(Vec<String>),
}

/// How a server's tools reach the model (`toolExposure` key, or a setting).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "camelCase")]
pub enum ToolExposure {
    /// Every catalogued schema is listed.
    Full,
    /// Only the compact index and the meta-tools; schemas are loaded on demand.
    Index,
    /// `full` while the exposed schemas fit the token budget and the tool limit,
    /// else `index` (biggest servers first).
    #[default]
    Auto,
}

impl ToolExposure {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolExposure::Full => "full",
            ToolExposure::Index => "index",
            ToolExposure::Auto => "auto",
        }
    }
}

/// The `oauth` key of a remote server: how Lazy MCP signs in to it (every field
/// optional; without them the client registers itself dynamically).
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuthConfig {
    /// A client id registered in advance (skips dynamic registration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// Its secret, for confidential clients (masked like any secret).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// Scopes to ask for (else those the server advertises).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<String>>", optional))]
    pub scopes: Vec<String>,
    /// Fixed loopback port for the redirect (a registration with a fixed redirect URI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub callback_port: Option<u16>,
    /// Authorization server metadata URL, when the server does not advertise one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth_server_metadata_url: Option<String>,
    /// The HTTPS URL of a Client ID Metadata Document describing this client:
    /// used as the client id with an authorization server that advertises
    /// `client_id_metadata_document_supported` (else dynamic registration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_metadata_url: Option<String>,
}

/// One server after discovery, normalization and merging (read by hand:
/// `server_config_json.rs`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerConfig {
    /// Unique name after merging (multi-root collisions get a distinguishing suffix).
    pub name: String,
    pub transport: Transport,
    /// `enabled: false` / `disabled: true` in config.
    pub enabled: bool,
    /// `autoConnect: false` = dormant: never spawned, nothing exposed until enabled.
    pub auto_connect: bool,
    pub tools: ToolFilter,
    /// Per-server timeout in milliseconds (`timeout` key), if set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// `toolExposure` key, if set (else the host's setting decides).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_exposure: Option<ToolExposure>,
    /// `oauth` key of a remote server, if set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth: Option<OAuthConfig>,
    pub source: SourceRef,
    /// True when VS Code itself also loads this file (`.vscode/mcp.json`, user
    /// `mcp.json`, workspace-root `.mcp.json`).
    pub loaded_by_vscode: bool,
    /// Stable hash of everything that affects launching the server (secrets are
    /// hashed, never stored in clear). The catalogue cache is keyed by it.
    pub fingerprint: String,
    /// Values that came from the environment (`${VAR}`, `{env:}`, `${env:}`)
    /// or a `{file:...}` (secret by origin), and the values the display rules
    /// mask (token-like arguments, env and header values, URL credentials).
    /// The display form masks them wherever they landed (command, args, url,
    /// cwd, ...), and the engine masks them in text about the server (stderr
    /// tails, errors, logs). Empty in a redacted copy; the launch uses the
    /// transport's real values.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<String>>", optional))]
    pub secret_values: Vec<String>,
    /// Files the definition's `{file:...}` references read (absolute): an
    /// approval review lists those outside the project.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<String>>", optional))]
    pub read_files: Vec<String>,
}
