//! Per-tool knowledge: where in a file the server entries are, what each
//! entry's keys are called, which `type` values exist, and which variable
//! syntax applies. Reading an entry is shared (`entry.rs`).

pub(crate) mod claude;
pub(crate) mod copilot;
pub(crate) mod opencode;
pub(crate) mod vscode;

use super::model::{ConfigFormat, ConfigScope};
use super::variables::VariableSyntax;
use jsonc_parser::ast::{Object, ObjectProp, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TransportKind {
    Stdio,
    Http,
    Sse,
}

/// How a stdio command is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CommandStyle {
    /// `command: "npx"`, `args: ["-y", "pkg"]`.
    CommandAndArgs,
    /// OpenCode: `command: ["npx", "-y", "pkg"]`, or a string split on whitespace.
    Argv,
}

/// A tool's vocabulary for one server entry.
pub(crate) struct FormatRules {
    pub types: &'static [(&'static str, TransportKind)],
    pub env_key: &'static str,
    pub command_style: CommandStyle,
    pub variables: VariableSyntax,
    /// `envFile` (VS Code only).
    pub env_file: bool,
    /// Variables are substituted only in `env` and `headers` values (Copilot CLI).
    pub variables_only_in_env_and_headers: bool,
    /// A relative `cwd` means the workspace folder (OpenCode says so).
    pub cwd_relative_to_workspace: bool,
    /// Keys the tool defines that Lazy MCP does not use (no note for them).
    pub ignored_keys: &'static [&'static str],
}

pub(crate) fn rules(format: ConfigFormat) -> &'static FormatRules {
    match format {
        ConfigFormat::ClaudeCode => &claude::CLAUDE_CODE,
        ConfigFormat::ClaudeDesktop => &claude::CLAUDE_DESKTOP,
        ConfigFormat::CopilotCli => &copilot::COPILOT_CLI,
        ConfigFormat::OpenCode => &opencode::OPENCODE,
        ConfigFormat::VsCode => &vscode::VSCODE,
    }
}

/// One server entry found in a file, before reading it.
pub(crate) struct EntrySite<'t, 'a> {
    pub prop: &'t ObjectProp<'a>,
    pub scope: ConfigScope,
    pub workspace_folder: Option<String>,
}

/// Everything a format's locator needs to know about the file.
pub(crate) struct FileContext<'c> {
    pub format: ConfigFormat,
    pub scope: ConfigScope,
    pub path: &'c str,
    pub workspace_folder: Option<&'c str>,
    pub workspace_folders: &'c [String],
    pub platform: super::paths::Platform,
}

/// A structural problem found while locating entries.
pub(crate) struct LocateProblem<'t, 'a> {
    pub at: &'t Value<'a>,
    pub message: String,
}

/// The server entries of a parsed file.
pub(crate) fn locate_entries<'t, 'a>(
    ctx: &FileContext<'_>,
    root: &'t Object<'a>,
) -> (Vec<EntrySite<'t, 'a>>, Vec<LocateProblem<'t, 'a>>) {
    let mut sites = Vec::new();
    let mut problems = Vec::new();
    match ctx.format {
        ConfigFormat::ClaudeCode => {
            claude::locate_claude_code(ctx, root, &mut sites, &mut problems)
        }
        ConfigFormat::ClaudeDesktop | ConfigFormat::CopilotCli => {
            entries_of(ctx, root, "mcpServers", &mut sites, &mut problems);
            if ctx.format == ConfigFormat::CopilotCli && root.get("mcpServers").is_none() {
                // `.github/mcp.json` is also written in VS Code's shape.
                entries_of(ctx, root, "servers", &mut sites, &mut problems);
            }
        }
        ConfigFormat::OpenCode => opencode::locate(ctx, root, &mut sites, &mut problems),
        ConfigFormat::VsCode => entries_of(ctx, root, "servers", &mut sites, &mut problems),
    }
    (sites, problems)
}

/// Entries of `root[key]`, in the file's scope.
pub(crate) fn entries_of<'t, 'a>(
    ctx: &FileContext<'_>,
    root: &'t Object<'a>,
    key: &str,
    sites: &mut Vec<EntrySite<'t, 'a>>,
    problems: &mut Vec<LocateProblem<'t, 'a>>,
) {
    if let Some(prop) = root.get(key) {
        push_entries(
            &prop.value,
            key,
            ctx.scope,
            ctx.workspace_folder,
            sites,
            problems,
        );
    }
}

pub(crate) fn push_entries<'t, 'a>(
    map: &'t Value<'a>,
    key: &str,
    scope: ConfigScope,
    workspace_folder: Option<&str>,
    sites: &mut Vec<EntrySite<'t, 'a>>,
    problems: &mut Vec<LocateProblem<'t, 'a>>,
) {
    match map.as_object() {
        Some(object) => {
            for prop in &object.properties {
                sites.push(EntrySite {
                    prop,
                    scope,
                    workspace_folder: workspace_folder.map(str::to_string),
                });
            }
        }
        None => problems.push(LocateProblem {
            at: map,
            message: format!("`{key}` must be an object mapping server names to their definitions"),
        }),
    }
}
