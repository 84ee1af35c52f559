//! Which configured servers a host manages. Decided here, not in the host:
//! - untrusted workspace: servers from workspace files are never started, and
//!   the host must not ask its MCP client to start anything (VS Code asks for
//!   workspace trust before it starts any extension-provided MCP definition, so
//!   every such start would be a modal trust dialog the user did not ask for);
//! - servers from files VS Code loads itself are left to VS Code by default
//!   (VS Code would show their tools a second time, or disable ours on a name
//!   collision), and listed in Diagnostics so nothing is silently dropped.

use crate::config::model::{ConfigScope, ServerConfig, SourceRef};
use serde::{Deserialize, Serialize};

/// Setting `lazyMcp.vscodeNativeServers`.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum VsCodeNativePolicy {
    /// VS Code manages servers from the files it reads itself; we only list them.
    #[default]
    LeaveToVsCode,
    /// Manage them too (for users who turned VS Code's own copies off).
    AlsoManage,
}

/// What a host may manage. The default is the CLI's: everything (it has no
/// workspace trust and no MCP client loading files of its own).
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct HostPolicy {
    pub workspace_trusted: bool,
    pub vscode_native: VsCodeNativePolicy,
    /// Only these servers (`lazy-mcp catalogue SERVER…`; empty for a `serve`
    /// that lazy-mcp started itself); `None`: all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub only: Option<Vec<String>>,
}

impl Default for HostPolicy {
    fn default() -> Self {
        HostPolicy {
            workspace_trusted: true,
            vscode_native: VsCodeNativePolicy::AlsoManage,
            only: None,
        }
    }
}

/// A configured server the host does not manage, and why.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Unmanaged {
    pub name: String,
    pub source: SourceRef,
    pub reason: String,
    /// The group a host lists it under ("Managed by VS Code", …), with its count.
    #[serde(default)]
    pub group: UnmanagedGroup,
}

/// Why a configured server is not managed, as a group of the servers view and a
/// count of the summary line (so the counts add up to the servers configured).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum UnmanagedGroup {
    /// From a file VS Code loads itself (`lazyMcp.vscodeNativeServers: leaveToVsCode`).
    #[default]
    ManagedByVsCode,
    /// From a workspace file while the workspace is not trusted.
    Untrusted,
    /// `lazy-mcp … SERVER`: not named on the command line.
    NotNamed,
}

impl UnmanagedGroup {
    /// The group's title in the servers view.
    pub fn title(self) -> &'static str {
        match self {
            UnmanagedGroup::ManagedByVsCode => "Managed by VS Code",
            UnmanagedGroup::Untrusted => "Waiting for workspace trust",
            UnmanagedGroup::NotNamed => "Not named on the command line",
        }
    }

    /// How the summary line counts it ("3 managed by VS Code").
    pub fn counted_as(self) -> &'static str {
        match self {
            UnmanagedGroup::ManagedByVsCode => "managed by VS Code",
            UnmanagedGroup::Untrusted => "waiting for trust",
            UnmanagedGroup::NotNamed => "not named",
        }
    }

    /// Why, and how to change it: the group's tooltip.
    pub fn explanation(self) -> &'static str {
        match self {
            UnmanagedGroup::ManagedByVsCode => "VS Code reads these files itself (a workspace .mcp.json, .vscode/mcp.json, your user mcp.json) and starts their servers as it does without Lazy MCP (setting lazyMcp.vscodeNativeServers: leaveToVsCode). To have Lazy MCP start them lazily, move them to a file only Lazy MCP reads (e.g. .copilot/mcp-config.json or opencode.json), or set lazyMcp.vscodeNativeServers to alsoManage after turning VS Code's own copies off.",
            UnmanagedGroup::Untrusted => "Servers from workspace files are not started in Restricted Mode. Trust the workspace (Workspaces: Manage Workspace Trust) to allow them.",
            UnmanagedGroup::NotNamed => "Only the servers named on the command line are managed.",
        }
    }
}

/// "3 managed by VS Code · 1 waiting for trust": the unmanaged servers counted by group.
pub fn unmanaged_counts(unmanaged: &[Unmanaged]) -> Vec<(UnmanagedGroup, usize)> {
    let mut counts: Vec<(UnmanagedGroup, usize)> = Vec::new();
    for u in unmanaged {
        match counts.iter_mut().find(|(g, _)| *g == u.group) {
            Some((_, n)) => *n += 1,
            None => counts.push((u.group, 1)),
        }
    }
    counts
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Selection {
    pub managed: Vec<ServerConfig>,
    pub unmanaged: Vec<Unmanaged>,
    /// Whether the host may ask its MCP client (VS Code) to start the server
    /// definitions it offers. False while the workspace is untrusted: the host
    /// waits for trust instead of making VS Code prompt for it.
    pub start_client_definitions: bool,
    /// Sentences for the top of MCP Diagnostics (why something is on hold).
    pub notices: Vec<String>,
}

/// Shown in Diagnostics while the workspace is untrusted.
pub const UNTRUSTED_NOTICE: &str = "Restricted Mode: this workspace is not trusted. VS Code asks for workspace trust before it starts any MCP server an extension provides, so Lazy MCP does not ask VS Code to start its servers and never causes a trust prompt. Servers from your user configuration are still catalogued; their tools reach Copilot Chat once you trust this folder (Workspaces: Manage Workspace Trust).";

pub fn select_servers(servers: &[ServerConfig], policy: &HostPolicy) -> Selection {
    let mut selection = Selection {
        start_client_definitions: policy.workspace_trusted,
        notices: if policy.workspace_trusted {
            Vec::new()
        } else {
            vec![UNTRUSTED_NOTICE.to_string()]
        },
        ..Selection::default()
    };
    for server in servers {
        let from_workspace = matches!(
            server.source.scope,
            ConfigScope::Project | ConfigScope::Local
        );
        let named = policy
            .only
            .as_ref()
            .is_none_or(|only| only.contains(&server.name));
        let reason = if !named {
            Some((
                UnmanagedGroup::NotNamed,
                "not named on the command line".to_string(),
            ))
        } else if from_workspace && !policy.workspace_trusted {
            Some((UnmanagedGroup::Untrusted, "the workspace is not trusted: servers from workspace files are not started (trust the workspace to allow them)".to_string()))
        } else if server.loaded_by_vscode
            && policy.vscode_native == VsCodeNativePolicy::LeaveToVsCode
        {
            Some((UnmanagedGroup::ManagedByVsCode, "VS Code loads this file itself and manages this server (setting lazyMcp.vscodeNativeServers)".to_string()))
        } else {
            None
        };
        match reason {
            Some((group, reason)) => selection.unmanaged.push(Unmanaged {
                name: server.name.clone(),
                source: server.source.clone(),
                reason,
                group,
            }),
            None => selection.managed.push(server.clone()),
        }
    }
    selection
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::model::{ConfigFormat, ToolFilter, Transport};

    fn server(name: &str, scope: ConfigScope, loaded_by_vscode: bool) -> ServerConfig {
        ServerConfig {
            name: name.into(),
            transport: Transport::Stdio {
                command: "node".into(),
                args: vec![],
                env: Default::default(),
                cwd: None,
                env_file: None,
            },
            enabled: true,
            auto_connect: true,
            tools: ToolFilter::All,
            timeout_ms: None,
            tool_exposure: None,
            oauth: None,
            source: SourceRef {
                format: ConfigFormat::CopilotCli,
                scope,
                file: format!("/{name}.json"),
                line: 1,
                column: 1,
                workspace_folder: None,
            },
            loaded_by_vscode,
            fingerprint: name.into(),
            secret_values: Vec::new(),
        }
    }

    #[test]
    fn untrusted_workspace_blocks_project_and_local_servers_but_not_user_ones() {
        let servers = [
            server("proj", ConfigScope::Project, false),
            server("local", ConfigScope::Local, false),
            server("user", ConfigScope::User, false),
        ];
        let policy = HostPolicy {
            workspace_trusted: false,
            vscode_native: VsCodeNativePolicy::AlsoManage,
            only: None,
        };
        let sel = select_servers(&servers, &policy);
        let managed: Vec<_> = sel.managed.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(managed, ["user"]);
        // The host waits for trust instead of asking VS Code to start (a trust dialog each time).
        assert!(!sel.start_client_definitions);
        assert_eq!(sel.notices, [UNTRUSTED_NOTICE]);
        assert_eq!(sel.unmanaged.len(), 2);
        assert!(sel
            .unmanaged
            .iter()
            .all(|u| u.reason.contains("not trusted")));
    }

    #[test]
    fn servers_vscode_loads_are_left_to_it_by_default_and_listed() {
        let servers = [
            server("native", ConfigScope::Project, true),
            server("ours", ConfigScope::Project, false),
        ];
        let policy = HostPolicy {
            workspace_trusted: true,
            vscode_native: VsCodeNativePolicy::LeaveToVsCode,
            only: None,
        };
        let sel = select_servers(&servers, &policy);
        assert_eq!(sel.managed.len(), 1);
        assert_eq!(sel.unmanaged.len(), 1);
        assert!(sel.start_client_definitions);
        assert!(sel.notices.is_empty());
        assert!(sel
            .unmanaged
            .iter()
            .any(|u| u.name == "native" && u.reason.contains("lazyMcp.vscodeNativeServers")));
        assert_eq!(
            unmanaged_counts(&sel.unmanaged),
            [(UnmanagedGroup::ManagedByVsCode, 1)]
        );
        let also = HostPolicy {
            vscode_native: VsCodeNativePolicy::AlsoManage,
            ..policy
        };
        assert_eq!(select_servers(&servers, &also).managed.len(), 2);
    }
}
