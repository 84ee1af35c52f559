//! What every format shares: the rules a format states, where an entry was
//! found, and the reading of a block of entries. The formats (claude.rs, …)
//! and the dispatch (mod.rs) both use it; it uses neither.

use crate::config::model::{ConfigFormat, ConfigScope};
use crate::config::paths::Platform;
use crate::config::variables::VariableSyntax;
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
    pub platform: Platform,
}

/// A structural problem found while locating entries.
pub(crate) struct LocateProblem<'t, 'a> {
    pub at: &'t Value<'a>,
    pub message: String,
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
