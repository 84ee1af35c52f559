//! VS Code (`.vscode/mcp.json`, the profile's `mcp.json`): `servers: {name:
//! {type: stdio|http|sse, command, args, env, envFile, cwd, url, headers}}` and
//! `inputs: [{id, ...}]`. `${input:id}` stays verbatim for the host.

use super::shared::{CommandStyle, FormatRules, TransportKind};
use crate::config::variables::VariableSyntax;
use crate::vec_map::VecSet;
use jsonc_parser::ast::Object;

pub(crate) const VSCODE: FormatRules = FormatRules {
    types: &[
        ("stdio", TransportKind::Stdio),
        ("http", TransportKind::Http),
        ("sse", TransportKind::Sse),
    ],
    env_key: "env",
    command_style: CommandStyle::CommandAndArgs,
    variables: VariableSyntax::VsCode,
    env_file: true,
    variables_only_in_env_and_headers: false,
    cwd_relative_to_workspace: false,
    ignored_keys: &["dev", "gallery", "version", "description"],
};

/// Ids declared in the file's `inputs` array.
pub(crate) fn input_ids(root: &Object<'_>) -> VecSet<String> {
    root.get_array("inputs")
        .map(|inputs| {
            inputs
                .elements
                .iter()
                .filter_map(|input| input.as_object()?.get_string("id"))
                .map(|id| id.value.to_string())
                .collect()
        })
        .unwrap_or_default()
}
