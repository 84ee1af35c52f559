//! The "MCP Diagnostics" report, rendered by the core from what it knows so that
//! the VS Code command and the CLI show the same thing.

use serde::{Deserialize, Serialize};

/// What the host tells the report about its surroundings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportContext {
    /// e.g. "VS Code 1.139.1" or "lazy-mcp CLI".
    #[serde(default)]
    pub host: String,
    /// Workspace folders the host is serving.
    #[serde(default)]
    pub workspace_folders: Vec<String>,
}

/// Render the report as Markdown.
pub fn render_markdown(ctx: &ReportContext, servers_configured: usize) -> String {
    let mut out = String::new();
    out.push_str("# MCP Diagnostics\n\n");
    out.push_str(&format!("Core version: {}\n\n", crate::CORE_VERSION));
    if !ctx.host.is_empty() {
        out.push_str(&format!("Host: {}\n\n", ctx.host));
    }
    let plural = if servers_configured == 1 { "" } else { "s" };
    out.push_str(&format!("{servers_configured} server{plural} configured\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_report_names_the_core_version_and_zero_servers() {
        let report = render_markdown(&ReportContext::default(), 0);
        assert!(report.starts_with("# MCP Diagnostics\n"));
        assert!(report.contains(&format!("Core version: {}", crate::CORE_VERSION)));
        assert!(report.contains("0 servers configured"));
    }

    #[test]
    fn singular_server_is_not_pluralized() {
        let report = render_markdown(&ReportContext::default(), 1);
        assert!(report.contains("1 server configured"));
    }
}
