//! Which configured servers a host manages. Decided here, not in the host:
//! - untrusted workspace: servers from workspace files are never started, and
//!   the host must not ask its MCP client to start anything (VS Code asks for
//!   workspace trust before it starts any extension-provided MCP definition, so
//!   every such start would be a modal trust dialog the user did not ask for);
//! - servers from files VS Code loads itself are left to VS Code by default
//!   (VS Code would show their tools a second time, or disable ours on a name
//!   collision), and listed in Diagnostics so nothing is silently dropped;
//! - servers defined in a project's files run only once the user approved them
//!   (config/project_approval.rs): the others wait as NEEDS APPROVAL, with the
//!   command or button that approves them.

use super::model::{ConfigScope, ServerConfig, SourceRef, Transport};
use super::project_approval::{project_folder, ApprovalFacts, Verdict};
pub use super::project_approval::{ApprovalStatus, ProjectServer};
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

/// How the user approves project servers on this host (the words of the action).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ApprovalVia {
    /// `lazy-mcp trust`.
    #[default]
    Cli,
    /// The notification, the view's and Diagnostics' Approve.
    VsCode,
}

/// What a host may manage. The default is the CLI's: everything from the
/// user's files (it has no workspace trust and no MCP client loading files of
/// its own); project servers once approved.
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
    /// Run project servers without approval (`--trust-project`,
    /// `lazyMcp.trustProjectServers`; off by default).
    pub trust_project_servers: bool,
    pub approval_via: ApprovalVia,
}

impl Default for HostPolicy {
    fn default() -> Self {
        HostPolicy {
            workspace_trusted: true,
            vscode_native: VsCodeNativePolicy::AlsoManage,
            only: None,
            trust_project_servers: false,
            approval_via: ApprovalVia::Cli,
        }
    }
}

/// A project server that waits for the user's approval: what it would run and
/// how to approve it. Nothing of it is spawned, catalogued or connected.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequest {
    pub name: String,
    pub source: SourceRef,
    /// The workspace folder the approval is kept for.
    pub project: String,
    /// The launch fingerprint an approval is given for.
    pub fingerprint: String,
    /// The command line (or URL) it would run, secrets masked.
    pub command_line: String,
    /// Files outside the project its definition reads (`{file:}`, `envFile`).
    pub reads_outside_project: Vec<String>,
    /// An earlier launch of it was approved; this one changed.
    pub changed: bool,
    /// What to do to approve it, in this host's words.
    pub action: String,
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
    /// A project server the user disabled in Claude Code (`disabledMcpjsonServers`).
    DisabledInClaudeCode,
}

impl UnmanagedGroup {
    /// The group's title in the servers view.
    pub fn title(self) -> &'static str {
        match self {
            UnmanagedGroup::ManagedByVsCode => "Managed by VS Code",
            UnmanagedGroup::Untrusted => "Waiting for workspace trust",
            UnmanagedGroup::NotNamed => "Not named on the command line",
            UnmanagedGroup::DisabledInClaudeCode => "Disabled in Claude Code",
        }
    }

    /// How the summary line counts it ("3 managed by VS Code").
    pub fn counted_as(self) -> &'static str {
        match self {
            UnmanagedGroup::ManagedByVsCode => "managed by VS Code",
            UnmanagedGroup::Untrusted => "waiting for trust",
            UnmanagedGroup::NotNamed => "not named",
            UnmanagedGroup::DisabledInClaudeCode => "disabled in Claude Code",
        }
    }

    /// Why, and how to change it: the group's tooltip.
    pub fn explanation(self) -> &'static str {
        match self {
            UnmanagedGroup::ManagedByVsCode => "VS Code reads these files itself (a workspace .mcp.json, .vscode/mcp.json, your user mcp.json) and starts their servers as it does without Lazy MCP (setting lazyMcp.vscodeNativeServers: leaveToVsCode). To have Lazy MCP start them lazily, move them to a file only Lazy MCP reads (e.g. .copilot/mcp-config.json or opencode.json), or set lazyMcp.vscodeNativeServers to alsoManage after turning VS Code's own copies off.",
            UnmanagedGroup::Untrusted => "Servers from workspace files are not started in Restricted Mode. Trust the workspace (Workspaces: Manage Workspace Trust) to allow them.",
            UnmanagedGroup::NotNamed => "Only the servers named on the command line are managed.",
            UnmanagedGroup::DisabledInClaudeCode => "You turned these project servers off in Claude Code (disabledMcpjsonServers in .claude/settings*.json or ~/.claude.json); Lazy MCP honours that. Remove them there to use them.",
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
    /// Project servers waiting for approval.
    pub needs_approval: Vec<ApprovalRequest>,
    /// Every server defined in a project file and where its approval stands.
    pub project_servers: Vec<ProjectServer>,
}

/// Shown in Diagnostics while the workspace is untrusted.
pub const UNTRUSTED_NOTICE: &str = "Restricted Mode: this workspace is not trusted. VS Code asks for workspace trust before it starts any MCP server an extension provides, so Lazy MCP does not ask VS Code to start its servers and never causes a trust prompt. Servers from your user configuration are still catalogued; their tools reach Copilot Chat once you trust this folder (Workspaces: Manage Workspace Trust).";

pub fn select_servers(
    servers: &[ServerConfig],
    policy: &HostPolicy,
    approvals: &ApprovalFacts,
) -> Selection {
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
            let verdict = approvals.verdict(server, policy.trust_project_servers);
            if let Some(project) = project_folder(server) {
                let (status, claude_file) = match &verdict {
                    Verdict::Approved if policy.trust_project_servers => {
                        (ApprovalStatus::TrustedByHost, None)
                    }
                    Verdict::NotAsked | Verdict::Approved => (ApprovalStatus::Approved, None),
                    Verdict::ApprovedByClaude(file) => {
                        (ApprovalStatus::ApprovedInClaudeCode, Some(file.clone()))
                    }
                    Verdict::DisabledByClaude(file) => {
                        (ApprovalStatus::DisabledInClaudeCode, Some(file.clone()))
                    }
                    Verdict::Needed { changed: false } => (ApprovalStatus::NeedsApproval, None),
                    Verdict::Needed { changed: true } => {
                        (ApprovalStatus::ChangedSinceApproved, None)
                    }
                };
                selection.project_servers.push(ProjectServer {
                    name: server.name.clone(),
                    project: project.to_string(),
                    fingerprint: server.fingerprint.clone(),
                    source: server.source.clone(),
                    status,
                    claude_file,
                });
            }
            match verdict {
                Verdict::NotAsked | Verdict::Approved | Verdict::ApprovedByClaude(_) => None,
                Verdict::DisabledByClaude(file) => Some((
                    UnmanagedGroup::DisabledInClaudeCode,
                    format!(
                        "disabled in Claude Code ({file}, disabledMcpjsonServers): remove it there to use it"
                    ),
                )),
                Verdict::Needed { changed } => {
                    selection
                        .needs_approval
                        .push(approval_request(server, changed, policy.approval_via));
                    continue;
                }
            }
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

/// Approving `names` of `project` in this host's words.
pub fn approval_action(via: ApprovalVia, project: &str, names: &[&str]) -> String {
    match via {
        ApprovalVia::Cli => format!(
            "run `lazy-mcp trust --cwd {} {}`",
            shell_quote(project),
            names
                .iter()
                .map(|n| shell_quote(n))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        ApprovalVia::VsCode => "choose Allow in the notification, or Approve in the Lazy MCP view or MCP Diagnostics (command: Lazy MCP: Approve Project Servers)".to_string(),
    }
}

fn shell_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@+=,".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

fn approval_request(server: &ServerConfig, changed: bool, via: ApprovalVia) -> ApprovalRequest {
    let project = project_folder(server).unwrap_or_default().to_string();
    let shown = server.redacted();
    let command_line = match &shown.transport {
        Transport::Stdio {
            command, args, env, ..
        } => env
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .chain(std::iter::once(shell_quote(command)))
            .chain(args.iter().map(|a| shell_quote(a)))
            .collect::<Vec<_>>()
            .join(" "),
        Transport::Http { url, .. } | Transport::Sse { url, .. } => url.clone(),
    };
    let mut outside: Vec<String> = server
        .read_files
        .iter()
        .chain(match &server.transport {
            Transport::Stdio { env_file, .. } => env_file.iter().collect::<Vec<_>>(),
            _ => Vec::new(),
        })
        .filter(|path| !is_within(path, &project))
        .cloned()
        .collect();
    crate::sorting::sort(&mut outside);
    outside.dedup();
    ApprovalRequest {
        name: server.name.clone(),
        source: server.source.clone(),
        action: approval_action(via, &project, &[&server.name]),
        project,
        fingerprint: server.fingerprint.clone(),
        command_line,
        reads_outside_project: outside,
        changed,
    }
}

/// `path` is `folder` or inside it (separators `/` or `\\`, as the host gave them).
fn is_within(path: &str, folder: &str) -> bool {
    let folder = folder.trim_end_matches(['/', '\\']);
    !folder.is_empty()
        && path
            .strip_prefix(folder)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['/', '\\']))
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
            read_files: Vec::new(),
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
            trust_project_servers: true,
            approval_via: ApprovalVia::VsCode,
        };
        let sel = select_servers(&servers, &policy, &ApprovalFacts::default());
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
            trust_project_servers: true,
            approval_via: ApprovalVia::VsCode,
        };
        let sel = select_servers(&servers, &policy, &ApprovalFacts::default());
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
        assert_eq!(
            select_servers(&servers, &also, &ApprovalFacts::default())
                .managed
                .len(),
            2
        );
    }

    #[test]
    fn only_servers_of_a_workspace_folders_files_wait_for_approval() {
        let mut project = server("proj", ConfigScope::Project, false);
        project.source.workspace_folder = Some("/ws".into());
        // A file named on the command line (`--config`): project scope, no folder.
        let explicit = server("explicit", ConfigScope::Project, false);
        // Claude Code's per-project entry in ~/.claude.json: the user's own file.
        let local = server("local", ConfigScope::Local, false);
        let user = server("user", ConfigScope::User, false);
        let servers = [project, explicit, local, user];
        let sel = select_servers(&servers, &HostPolicy::default(), &ApprovalFacts::default());
        let managed: Vec<_> = sel.managed.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(managed, ["explicit", "local", "user"]);
        assert_eq!(sel.needs_approval.len(), 1);
        let waiting = &sel.needs_approval[0];
        assert_eq!(waiting.name, "proj");
        assert_eq!(waiting.project, "/ws");
        assert_eq!(waiting.action, "run `lazy-mcp trust --cwd /ws proj`");
        assert_eq!(sel.project_servers.len(), 1);
        assert_eq!(sel.project_servers[0].status, ApprovalStatus::NeedsApproval);
        let trusting = HostPolicy {
            trust_project_servers: true,
            ..HostPolicy::default()
        };
        let sel = select_servers(&servers, &trusting, &ApprovalFacts::default());
        assert_eq!(sel.managed.len(), 4);
        assert_eq!(sel.project_servers[0].status, ApprovalStatus::TrustedByHost);
    }

    #[test]
    fn approval_commands_quote_what_a_shell_would_split() {
        assert_eq!(
            approval_action(ApprovalVia::Cli, "/home/me/my repo", &["a", "it's"]),
            "run `lazy-mcp trust --cwd '/home/me/my repo' a 'it'\\''s'`"
        );
    }
}
