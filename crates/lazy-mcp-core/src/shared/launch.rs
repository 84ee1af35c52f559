//! Whether a server's launch is shared through the per-user owner, and under
//! which key. Two attachments share a process only when it is the same server
//! for both: same launch (command, args, env with resolved values, envFile,
//! cwd), same client environment (but for what describes the client
//! application or its terminal, see `app_env`), same Lazy MCP version, same cwd
//! base when the cwd depends on the workspace, same workspace roots for a
//! project-defined server and for one not known never to ask for roots. The client's name is not in the key: a VS Code window
//! and a `lazy-mcp serve` share a process (the `initialize` capabilities are the
//! same; only `clientInfo.name` differs, and the server sees the first one's).
//! The key is a hash: secrets never appear in it.

use crate::config::fingerprint;
use crate::config::model::{ConfigScope, ServerConfig, Transport};
use crate::protocol::listed_item::ListedItem;
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};

/// The `open` effect's `shared`: attach to the owner's process by `key`
/// instead of spawning. Read by hand (`launch_json.rs`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedLaunch {
    /// Hash of the launch, the client's environment, Lazy MCP's version and
    /// (when `workspaceCwd`) the workspace folder that is the cwd base.
    pub key: String,
    /// Hash of the client's workspace folders (the roots its engine answers).
    pub roots_key: String,
    /// The process must also match `rootsKey` (a server from a project file).
    pub roots_bound: bool,
    /// The spawn's cwd base is the client's workspace folder (its
    /// `cwdFallback`); false: the owner's own directory. Only the client reads
    /// it (the owner gets the cwd itself), as `omit_env`: neither is read from
    /// an attach (a field's reader costs the `.wasm` bytes).
    #[serde(skip_deserializing)]
    pub workspace_cwd: bool,
    /// Variables of the client's environment the host leaves out of what it
    /// sends to the owner: the client application's and its terminal's
    /// (`VSCODE_*`: each VS Code window has its own IPC socket; `TERM_PROGRAM`,
    /// `GIT_ASKPASS`, …), not in the key, so a server never gets another
    /// window's. Only the client reads it (the owner skips it).
    #[serde(skip_deserializing)]
    pub omit_env: Vec<String>,
    /// Who holds the process through this attachment, for Diagnostics and
    /// `lazy-mcp daemon status`: the session (`Settings::session_label`) and the
    /// workspace folder's last name only, never a path another client could read.
    #[serde(default)]
    pub holder: String,
    /// This client's idle ceiling for the server (ms; 0 = never) and whether
    /// its idle time follows the call rate: the owner keeps the process after
    /// its last client left for the longest idle time its holders' settings
    /// give at the process's own call rate (`shared/mux.rs`). Not in the key.
    #[serde(default)]
    pub idle_timeout_ms: u64,
    #[serde(default)]
    pub adaptive_idle: bool,
    /// The server's tools this client's catalogue marks `readOnlyHint` or
    /// `idempotentHint` ([`repeatable_tools`]): should its workspace move to a
    /// process of its own roots mid-call, only a call of one of these is sent
    /// again there (any other may have run once on the first process). Empty
    /// when the catalogue is not known: no `tools/call` is repeated.
    #[serde(default)]
    pub repeatable: Vec<String>,
}

/// One client holding a shared process: who, and since when (the owner's clock, ms).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedHolder {
    pub label: String,
    pub since_ms: u64,
}

/// At most this many characters of a holder's label cross to other clients.
const MAX_HOLDER_CHARS: usize = 120;

/// `VS Code window · alpha`: the session and its first workspace folder's last name.
fn holder_label(settings: &SharingSettings<'_>) -> String {
    let folder = settings
        .workspace_folders
        .first()
        .map(|f| f.trim_end_matches(['/', '\\']))
        .and_then(|f| f.rsplit(['/', '\\']).next())
        .filter(|name| !name.is_empty());
    let label = match folder {
        Some(name) => format!("{} · {name}", settings.session_label),
        None => format!("{} · no folder", settings.session_label),
    };
    label
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_HOLDER_CHARS)
        .collect()
}

/// What the engine's settings add to the sharing decision (built from its
/// `Settings` in `engine/settings.rs`: the engine sits above this module).
#[derive(Debug, Clone, Copy)]
pub struct SharingSettings<'a> {
    /// Off: every launch is the client's own.
    pub share_servers: bool,
    /// The client's workspace folders (absolute paths; the first is the cwd base).
    pub workspace_folders: &'a [String],
    /// Lazy MCP's version: clients of two versions never share a process.
    pub client_version: &'a str,
    /// Who the client is, in words (`VS Code window`, `lazy-mcp serve`).
    pub session_label: &'a str,
}

/// What the client adds to the sharing decision besides the server's config.
#[derive(Debug, Default, Clone, Copy)]
pub struct SharingClient<'a> {
    /// The client's environment, which the server inherits under its `env`.
    pub env: Option<&'a VecMap<String, String>>,
    /// A VS Code window in Restricted Mode: it never starts or attaches to a
    /// shared server (its user-level servers run in its own process), so
    /// nothing an untrusted window does reaches the owner.
    pub untrusted: bool,
    /// The catalogue says the server never asked for `roots/list`: only then may
    /// clients of other workspace roots share its process. Not known (never
    /// catalogued, an older entry) or seen asking: the key includes the roots.
    pub roots_free: bool,
}

/// Variables of the client's environment that differ between two sessions of
/// one user without changing what a server does: left out of the key (the
/// server gets the first client's values).
const VOLATILE_ENV: &[&str] = &["PWD", "OLDPWD", "SHLVL", "_", "LAZY_MCP_SERVE_PID", "TERM"];

/// Variables that describe the client application or the terminal it runs
/// in, not the user's setup: a VS Code extension host's (`VSCODE_IPC_HOOK_CLI`,
/// `VSCODE_NLS_CONFIG`, `ELECTRON_RUN_AS_NODE`, …, one IPC socket per window),
/// an integrated terminal's (`TERM_PROGRAM`, `GIT_ASKPASS`, which talks to one
/// window), a terminal's size and colours. A stdio server has no terminal and
/// no window, so they are left out of the key and not passed to a shared
/// server at all: this is what lets a VS Code window and a CLI session started
/// from a terminal share a process, and no window's values reach another's.
/// Terminals name each tab or pane (`TERM_SESSION_ID`, `ITERM_SESSION_ID`,
/// `KITTY_WINDOW_ID`, `WEZTERM_PANE`, `WT_SESSION`, …), an SSH login its client
/// port, macOS the app that launched the process (`__CFBundleIdentifier`,
/// `XPC_SERVICE_NAME`), Claude Code's IDE link one window's port: with any of
/// them in the key, agent sessions in two tabs would never share. Exact names,
/// not prefixes, so that a user's own `KITTY_TOKEN` or `WT_API_KEY` still counts.
const APP_ENV_PREFIXES: &[&str] = &["VSCODE_", "ELECTRON_", "TERM_PROGRAM", "CODE_SERVER_"];
const APP_ENV: &[&str] = &[
    "APPLICATION_INSIGHTS_NO_DIAGNOSTIC_CHANNEL",
    "GIT_ASKPASS",
    "CHROME_DESKTOP",
    "ORIGINAL_XDG_CURRENT_DESKTOP",
    "COLORTERM",
    "COLORFGBG",
    "LS_COLORS",
    "COLUMNS",
    "LINES",
    "WINDOWID",
    "TMUX",
    "TMUX_PANE",
    "STY",
    "ZELLIJ",
    "ZELLIJ_SESSION_NAME",
    "ZELLIJ_PANE_ID",
    "SSH_TTY",
    "SSH_CLIENT",
    "SSH_CONNECTION",
    "TERM_SESSION_ID",
    "ITERM_SESSION_ID",
    "ITERM_PROFILE",
    "LC_TERMINAL",
    "LC_TERMINAL_VERSION",
    "KITTY_WINDOW_ID",
    "KITTY_PID",
    "KITTY_PUBLIC_KEY",
    "KITTY_LISTEN_ON",
    "WEZTERM_PANE",
    "WEZTERM_UNIX_SOCKET",
    "WEZTERM_EXECUTABLE",
    "WEZTERM_EXECUTABLE_DIR",
    "ALACRITTY_WINDOW_ID",
    "ALACRITTY_SOCKET",
    "ALACRITTY_LOG",
    "WT_SESSION",
    "WT_PROFILE_ID",
    "GNOME_TERMINAL_SCREEN",
    "GNOME_TERMINAL_SERVICE",
    "KONSOLE_DBUS_SESSION",
    "KONSOLE_DBUS_WINDOW",
    "KONSOLE_DBUS_SERVICE",
    "KONSOLE_VERSION",
    "TERMINATOR_UUID",
    "TILIX_ID",
    "VTE_VERSION",
    "TERMINAL_EMULATOR",
    "__CFBundleIdentifier",
    "XPC_SERVICE_NAME",
    "XPC_FLAGS",
    "CURSOR_TRACE_ID",
    "CLAUDE_CODE_SSE_PORT",
];

fn app_env(name: &str) -> bool {
    APP_ENV.contains(&name) || APP_ENV_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// `None` when the launch is not shared: sharing is off, a remote server, or a
/// `${input:…}` the host resolves only at connect time (two windows may answer
/// it differently), or an untrusted window. Two clients share only when
/// their environments are the same (but for `VOLATILE_ENV` and `app_env`
/// variables), so a server never runs with another client's environment or
/// secrets.
pub fn shared_launch<'a>(
    config: &ServerConfig,
    settings: impl Into<SharingSettings<'a>>,
    client: SharingClient<'_>,
) -> Option<SharedLaunch> {
    let settings = &settings.into();
    if !settings.share_servers || client.untrusted {
        return None;
    }
    let Transport::Stdio {
        command,
        args,
        env,
        cwd,
        env_file,
    } = &config.transport
    else {
        return None;
    };
    let unresolved = std::iter::once(command)
        .chain(args)
        .chain(env.values())
        .chain(cwd)
        .chain(env_file)
        .any(|text| text.contains("${input:"));
    if unresolved {
        return None;
    }
    let project = matches!(
        config.source.scope,
        ConfigScope::Project | ConfigScope::Local
    );
    let relative = |path: &Option<String>| path.as_ref().is_some_and(|p| !is_absolute(p));
    let workspace_cwd = project || relative(cwd) || (cwd.is_none() && relative(env_file));
    let base = if workspace_cwd {
        settings
            .workspace_folders
            .first()
            .cloned()
            .unwrap_or_default()
    } else {
        String::new()
    };
    let mut env_parts: Vec<&str> = Vec::new();
    let mut omit_env = Vec::new();
    for (name, value) in client.env.into_iter().flatten() {
        if app_env(name) {
            omit_env.push(name.clone());
        } else if !VOLATILE_ENV.contains(&name.as_str()) {
            env_parts.push(name);
            env_parts.push(value);
        }
    }
    let key = hash_of(&[
        &fingerprint(&config.transport),
        settings.client_version,
        &base,
        &hash_of(&env_parts),
    ]);
    let folders: Vec<&str> = settings
        .workspace_folders
        .iter()
        .map(String::as_str)
        .collect();
    Some(SharedLaunch {
        key,
        roots_key: hash_of(&folders),
        // Safe by default: a server not known to leave roots alone may ask the
        // client for them, and one process answers one set of roots.
        roots_bound: project || !client.roots_free,
        workspace_cwd,
        omit_env,
        holder: holder_label(settings),
        idle_timeout_ms: 0,
        adaptive_idle: false,
        repeatable: Vec::new(),
    })
}

/// The names of the listed `tools` whose annotations say running them twice
/// is harmless: `readOnlyHint: true` or `idempotentHint: true` (MCP's defaults
/// for a tool without them: not read-only, not idempotent).
pub fn repeatable_tools(tools: &[serde_json::Value]) -> Vec<String> {
    let mut names = Vec::new();
    for tool in tools.iter().map(ListedItem::read) {
        if let (true, Some(name)) = (tool.repeatable, tool.name) {
            names.push(name.to_string());
        }
    }
    names
}

/// The launch fingerprint's hash over a list of texts (length-prefixed, so
/// `["a b"]` and `["a", "b"]` differ).
fn hash_of(parts: &[&str]) -> String {
    fingerprint(&Transport::Stdio {
        command: "lazy-mcp shared key".into(),
        args: parts.iter().map(|p| (*p).to_string()).collect(),
        env: VecMap::new(),
        cwd: None,
        env_file: None,
    })
}

fn is_absolute(path: &str) -> bool {
    let bytes = path.as_bytes();
    path.starts_with('/')
        || path.starts_with('\\')
        || matches!(bytes, [letter, b':', ..] if letter.is_ascii_alphabetic())
}
