//! Claude Code (`.mcp.json`, `~/.claude.json`, `~/.claude/.mcp.json`) and Claude
//! Desktop (`claude_desktop_config.json`): `mcpServers: {name: {type?, command,
//! args, env, url, headers}}`.
//!
//! In `~/.claude.json`, top-level `mcpServers` are user scope and
//! `projects["<abs folder>"].mcpServers` are local scope for that folder.

use super::shared::{
    entries_of, push_entries, CommandStyle, EntrySite, FileContext, FormatRules, LocateProblem,
    TransportKind,
};
use crate::config::model::ConfigScope;
use crate::config::variables::VariableSyntax;
use jsonc_parser::ast::Object;

const TYPES: &[(&str, TransportKind)] = &[
    ("stdio", TransportKind::Stdio),
    ("http", TransportKind::Http),
    ("sse", TransportKind::Sse),
];

pub(crate) const CLAUDE_CODE: FormatRules = FormatRules {
    types: TYPES,
    env_key: "env",
    command_style: CommandStyle::CommandAndArgs,
    variables: VariableSyntax::Claude,
    env_file: false,
    variables_only_in_env_and_headers: false,
    cwd_relative_to_workspace: false,
    ignored_keys: &["headersHelper", "description"],
};

pub(crate) const CLAUDE_DESKTOP: FormatRules = FormatRules {
    types: TYPES,
    env_key: "env",
    command_style: CommandStyle::CommandAndArgs,
    variables: VariableSyntax::Literal,
    env_file: false,
    variables_only_in_env_and_headers: false,
    cwd_relative_to_workspace: false,
    ignored_keys: &["description"],
};

pub(crate) fn locate_claude_code<'t, 'a>(
    ctx: &FileContext<'_>,
    root: &'t Object<'a>,
    sites: &mut Vec<EntrySite<'t, 'a>>,
    problems: &mut Vec<LocateProblem<'t, 'a>>,
) {
    entries_of(ctx, root, "mcpServers", sites, problems);
    let is_claude_json =
        ctx.scope == ConfigScope::User && ctx.platform.basename(ctx.path) == ".claude.json";
    if !is_claude_json {
        return;
    }
    let Some(projects) = root.get_object("projects") else {
        return;
    };
    for folder in ctx.workspace_folders {
        for project in &projects.properties {
            if !ctx.platform.same_path(project.name.as_str(), folder) {
                continue;
            }
            if let Some(servers) = project.value.as_object().and_then(|p| p.get("mcpServers")) {
                push_entries(
                    &servers.value,
                    "mcpServers",
                    ConfigScope::Local,
                    Some(folder),
                    sites,
                    problems,
                );
            }
        }
    }
}
