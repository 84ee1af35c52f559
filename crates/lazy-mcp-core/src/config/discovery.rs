//! Where MCP configs live: every file of every supported tool, for the user's
//! home and each workspace folder, listed in precedence order (best first).
//!
//! The order is the merge order used by `normalize`:
//! 1. project files (each workspace folder, in the order given), by tool:
//!    VS Code `.vscode/mcp.json`; Claude Code `.mcp.json`; Copilot CLI
//!    `.copilot/mcp-config.json`, `.github/mcp-config.json`, `.github/mcp.json`;
//!    OpenCode `.opencode/opencode.jsonc`, `.opencode/opencode.json`,
//!    `opencode.jsonc`, `opencode.json`;
//! 2. user files, by tool: VS Code profile `mcp.json`; Claude Code
//!    `~/.claude.json`, `~/.claude/.mcp.json`; Copilot CLI
//!    `$COPILOT_HOME/mcp-config.json` (else `~/.copilot/mcp-config.json`),
//!    `~/.github/mcp-config.json`; OpenCode `$OPENCODE_CONFIG`,
//!    `<config dir>/opencode/opencode.jsonc`, `.../opencode.json`; Claude Desktop
//!    `claude_desktop_config.json`.
//!
//! Claude Code's per-project ("local") entries inside `~/.claude.json` rank as
//! project definitions, ahead of that folder's `.mcp.json` (Claude Code's own
//! rule: local > project > user).

use super::model::{ConfigFormat, ConfigScope};
use super::paths::Platform;
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};

/// What the host knows about the machine; the core derives every path from it
/// (read by hand: `discovery_json.rs`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoveryInput {
    /// Absolute path of the user's home directory.
    pub home: String,
    /// Absolute paths of the workspace folders, in VS Code's order.
    #[serde(default)]
    pub workspace_folders: Vec<String>,
    /// Node's `process.platform`: "linux", "darwin" or "win32".
    #[serde(default)]
    pub platform: String,
    /// Environment variables (COPILOT_HOME, XDG_CONFIG_HOME, APPDATA,
    /// OPENCODE_CONFIG, and the variables configs refer to).
    #[serde(default)]
    pub env: VecMap<String, String>,
    /// The VS Code profile's `mcp.json`, when the host knows it (profiles move it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vscode_user_mcp_json: Option<String>,
    /// Formats to read; `None` = all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sources: Option<Vec<ConfigFormat>>,
}

/// One file to read (it may not exist; the host reports that by passing no content).
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CandidateFile {
    pub path: String,
    pub format: ConfigFormat,
    pub scope: ConfigScope,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_folder: Option<String>,
    /// VS Code itself loads this file (so its tools may already be visible).
    pub loaded_by_vscode: bool,
}

/// Every config file to look at, best first (see the module documentation).
pub fn discovery_plan(input: &DiscoveryInput) -> Vec<CandidateFile> {
    let platform = Platform::parse(&input.platform);
    let wanted = |format: ConfigFormat| {
        input
            .sources
            .as_ref()
            .is_none_or(|sources| sources.contains(&format))
    };
    let mut plan = Vec::new();
    for folder in &input.workspace_folders {
        for (format, relative, loaded_by_vscode) in PROJECT_FILES {
            if wanted(*format) {
                plan.push(CandidateFile {
                    path: platform.join(folder, relative),
                    format: *format,
                    scope: ConfigScope::Project,
                    workspace_folder: Some(folder.clone()),
                    loaded_by_vscode: *loaded_by_vscode,
                });
            }
        }
    }
    for (format, path) in user_files(input, platform) {
        if wanted(format) {
            plan.push(CandidateFile {
                path,
                format,
                scope: ConfigScope::User,
                workspace_folder: None,
                loaded_by_vscode: format == ConfigFormat::VsCode,
            });
        }
    }
    plan
}

/// Project files relative to a workspace folder: (format, path, loaded by VS Code).
const PROJECT_FILES: &[(ConfigFormat, &str, bool)] = &[
    (ConfigFormat::VsCode, ".vscode/mcp.json", true),
    (ConfigFormat::ClaudeCode, ".mcp.json", true),
    (ConfigFormat::CopilotCli, ".copilot/mcp-config.json", false),
    (ConfigFormat::CopilotCli, ".github/mcp-config.json", false),
    (ConfigFormat::CopilotCli, ".github/mcp.json", false),
    (ConfigFormat::OpenCode, ".opencode/opencode.jsonc", false),
    (ConfigFormat::OpenCode, ".opencode/opencode.json", false),
    (ConfigFormat::OpenCode, "opencode.jsonc", false),
    (ConfigFormat::OpenCode, "opencode.json", false),
];

fn user_files(input: &DiscoveryInput, platform: Platform) -> Vec<(ConfigFormat, String)> {
    let home = input.home.as_str();
    let env = &input.env;
    let xdg_config = platform
        .env_dir(env, "XDG_CONFIG_HOME")
        .map_or_else(|| platform.join(home, ".config"), str::to_string);
    let app_data = platform
        .env_dir(env, "APPDATA")
        .map_or_else(|| platform.join(home, "AppData/Roaming"), str::to_string);
    let os_config_dir = match platform {
        Platform::Linux => xdg_config.clone(),
        Platform::Darwin => platform.join(home, "Library/Application Support"),
        Platform::Win32 => app_data,
    };

    let mut files = Vec::new();
    let vscode_user = input
        .vscode_user_mcp_json
        .clone()
        .unwrap_or_else(|| platform.join(&os_config_dir, "Code/User/mcp.json"));
    files.push((ConfigFormat::VsCode, vscode_user));
    files.push((
        ConfigFormat::ClaudeCode,
        platform.join(home, ".claude.json"),
    ));
    files.push((
        ConfigFormat::ClaudeCode,
        platform.join(home, ".claude/.mcp.json"),
    ));
    let copilot_home = platform
        .env_dir(env, "COPILOT_HOME")
        .map_or_else(|| platform.join(home, ".copilot"), str::to_string);
    files.push((
        ConfigFormat::CopilotCli,
        platform.join(&copilot_home, "mcp-config.json"),
    ));
    files.push((
        ConfigFormat::CopilotCli,
        platform.join(home, ".github/mcp-config.json"),
    ));
    if let Some(custom) = platform.env_dir(env, "OPENCODE_CONFIG") {
        files.push((ConfigFormat::OpenCode, custom.to_string()));
    }
    // OpenCode uses the XDG layout on every platform (also on macOS and Windows).
    files.push((
        ConfigFormat::OpenCode,
        platform.join(&xdg_config, "opencode/opencode.jsonc"),
    ));
    files.push((
        ConfigFormat::OpenCode,
        platform.join(&xdg_config, "opencode/opencode.json"),
    ));
    files.push((
        ConfigFormat::ClaudeDesktop,
        platform.join(&os_config_dir, "Claude/claude_desktop_config.json"),
    ));
    files
}

/// Rank of a tool when the same name is defined at the same level by several
/// tools (lower wins): VS Code, Claude Code, Copilot CLI, OpenCode, Claude Desktop.
pub(crate) fn format_rank(format: ConfigFormat) -> u8 {
    match format {
        ConfigFormat::VsCode => 0,
        ConfigFormat::ClaudeCode => 1,
        ConfigFormat::CopilotCli => 2,
        ConfigFormat::OpenCode => 3,
        ConfigFormat::ClaudeDesktop => 4,
    }
}
