//! Copilot CLI (`~/.copilot/mcp-config.json` or `$COPILOT_HOME/mcp-config.json`,
//! `.copilot/mcp-config.json`, `.github/mcp-config.json`, `.github/mcp.json`):
//! `mcpServers: {name: {type: local|stdio|http|sse, command, args, env, cwd, url,
//! headers, tools, timeout}}`; `local` is stdio. `tools` and `timeout` are native
//! Copilot keys with the same meaning as Lazy MCP's. Variables: `$VAR`,
//! `${VAR}`, `${VAR:-default}` in `env` and `headers` values.

use super::shared::{CommandStyle, FormatRules, TransportKind};
use crate::config::variables::VariableSyntax;

pub(crate) const COPILOT_CLI: FormatRules = FormatRules {
    types: &[
        ("local", TransportKind::Stdio),
        ("stdio", TransportKind::Stdio),
        ("http", TransportKind::Http),
        ("sse", TransportKind::Sse),
    ],
    env_key: "env",
    command_style: CommandStyle::CommandAndArgs,
    variables: VariableSyntax::Copilot,
    env_file: false,
    variables_only_in_env_and_headers: true,
    cwd_relative_to_workspace: false,
    ignored_keys: &["description"],
};
