//! OpenCode (`opencode.json(c)`, `.opencode/opencode.json(c)`,
//! `~/.config/opencode/opencode.json(c)`): v1 `mcp: {name: {...}}` and v2
//! `mcp: {servers: {name: {...}}}`. Entries: `type: local|remote`, `command`
//! (argv array, or a string split on whitespace), `environment`, `cwd`,
//! `enabled` (v1) / `disabled` (v2), `timeout`, `url`, `headers`, `oauth`.
//! `remote` is streamable HTTP (the host falls back to SSE).

use super::shared::{
    push_entries, CommandStyle, EntrySite, FileContext, FormatRules, LocateProblem, TransportKind,
};
use crate::config::variables::VariableSyntax;
use jsonc_parser::ast::{Object, Value};

pub(crate) const OPENCODE: FormatRules = FormatRules {
    types: &[
        ("local", TransportKind::Stdio),
        ("remote", TransportKind::Http),
    ],
    env_key: "environment",
    command_style: CommandStyle::Argv,
    variables: VariableSyntax::OpenCode,
    env_file: false,
    variables_only_in_env_and_headers: false,
    cwd_relative_to_workspace: true,
    ignored_keys: &["description"],
};

pub(crate) fn locate<'t, 'a>(
    ctx: &FileContext<'_>,
    root: &'t Object<'a>,
    sites: &mut Vec<EntrySite<'t, 'a>>,
    problems: &mut Vec<LocateProblem<'t, 'a>>,
) {
    let Some(mcp) = root.get("mcp") else {
        return;
    };
    let Some(mcp_object) = mcp.value.as_object() else {
        push_entries(
            &mcp.value,
            "mcp",
            ctx.scope,
            ctx.workspace_folder,
            sites,
            problems,
        );
        return;
    };
    match mcp_object.get("servers") {
        // v2; a v1 server that happens to be called "servers" has a `type`.
        Some(servers) if !is_server_entry(&servers.value) => push_entries(
            &servers.value,
            "mcp.servers",
            ctx.scope,
            ctx.workspace_folder,
            sites,
            problems,
        ),
        _ => push_entries(
            &mcp.value,
            "mcp",
            ctx.scope,
            ctx.workspace_folder,
            sites,
            problems,
        ),
    }
}

fn is_server_entry(value: &Value<'_>) -> bool {
    value.as_object().is_some_and(|object| {
        object.get_string("type").is_some()
            || object.get("command").is_some()
            || object.get("url").is_some()
    })
}
