//! Per-tool knowledge: where in a file the server entries are, what each
//! entry's keys are called, which `type` values exist, and which variable
//! syntax applies. Reading an entry is shared (`entry.rs`).

pub(crate) mod claude;
pub(crate) mod copilot;
pub(crate) mod opencode;
mod shared;
pub(crate) mod vscode;

pub(crate) use shared::{
    entries_of, CommandStyle, EntrySite, FileContext, FormatRules, LocateProblem, TransportKind,
};

use super::model::ConfigFormat;
use jsonc_parser::ast::Object;

pub(crate) fn rules(format: ConfigFormat) -> &'static FormatRules {
    match format {
        ConfigFormat::ClaudeCode => &claude::CLAUDE_CODE,
        ConfigFormat::ClaudeDesktop => &claude::CLAUDE_DESKTOP,
        ConfigFormat::CopilotCli => &copilot::COPILOT_CLI,
        ConfigFormat::OpenCode => &opencode::OPENCODE,
        ConfigFormat::VsCode => &vscode::VSCODE,
    }
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
