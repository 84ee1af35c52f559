//! Which project-defined servers the user approved. A definition in a file of
//! the workspace (`.mcp.json`, `.vscode/mcp.json`, `.copilot/mcp-config.json`,
//! `opencode.json(c)`, …) is code a cloned repository can make us run: it runs
//! only once approved, and again only while its launch (the fingerprint of
//! command, args, env, cwd, envFile / url, headers) stays what was approved.
//!
//! Where answers come from (all read through the config load, so another
//! process's change applies live):
//! - Lazy MCP's own approvals, `$XDG_CONFIG_HOME/lazy-mcp/approvals.json`
//!   (else `~/.config/...`), shared by the CLI and every VS Code window:
//!   project path → server name → approved fingerprint;
//! - Claude Code's answers for `.mcp.json` servers: `enabledMcpjsonServers`,
//!   `disabledMcpjsonServers`, `enableAllProjectMcpServers` in
//!   `~/.claude.json` (`projects[<folder>]`) and `<folder>/.claude/settings.local.json`
//!   (written by Claude Code, kept out of git), and the `disabled…` key of
//!   `<folder>/.claude/settings.json`. That last file is committed with the
//!   repository, so its `enabled…` keys would let a repository approve itself:
//!   they are not honoured. A server disabled in any of them stays off.

use super::discovery::DiscoveryInput;
use super::model::{ConfigFormat, ConfigScope, ServerConfig, SourceRef};
use super::paths::Platform;
use crate::vec_map::{VecMap, VecSet};
use serde::{Deserialize, Serialize};

/// Current version of the approvals file.
const APPROVALS_VERSION: u32 = 1;

/// `approvals.json`: project path → server name → approval.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalsFile {
    #[serde(default)]
    pub version: u32,
    #[serde(default)]
    pub projects: VecMap<String, ProjectApprovals>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectApprovals {
    #[serde(default)]
    pub servers: VecMap<String, ServerApproval>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerApproval {
    /// The launch fingerprint approved (config/fingerprint.rs).
    pub fingerprint: String,
}

/// Claude Code's answers for one project, from one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct ClaudeAnswers {
    file: String,
    enabled: VecSet<String>,
    disabled: VecSet<String>,
    enable_all: bool,
}

/// Everything the approval decision reads, parsed from the files of a load.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApprovalFacts {
    platform_name: String,
    approvals: ApprovalsFile,
    /// Workspace folder → Claude Code's answers for it.
    claude: VecMap<String, Vec<ClaudeAnswers>>,
    /// Why the approvals file was not used (it is not valid JSON).
    pub approvals_error: Option<String>,
    pub approvals_path: String,
}

/// What the approval rules say about one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Not defined in a project file (the user's own files, `--config`): runs as always.
    NotAsked,
    /// Approved in Lazy MCP's approvals file, or the host trusts project servers.
    Approved,
    /// Claude Code's answer enables it (the file that says so).
    ApprovedByClaude(String),
    /// Disabled in Claude Code (the file that says so): stays off.
    DisabledByClaude(String),
    /// Waits for the user. `changed`: an earlier launch of it was approved.
    Needed { changed: bool },
}

/// Where Lazy MCP keeps approvals: `$XDG_CONFIG_HOME/lazy-mcp/approvals.json`,
/// else `~/.config/lazy-mcp/approvals.json` (on every platform, as the CLI's
/// other files), so the CLI and every VS Code window share them.
pub fn approvals_path(discovery: &DiscoveryInput) -> String {
    let platform = Platform::parse(&discovery.platform);
    let config = platform
        .env_dir(&discovery.env, "XDG_CONFIG_HOME")
        .filter(|dir| platform.is_absolute(dir))
        .map_or_else(|| platform.join(&discovery.home, ".config"), str::to_string);
    platform.join(&config, "lazy-mcp/approvals.json")
}

/// Claude Code's settings the decision reads, per workspace folder, plus `~/.claude.json`.
pub fn approval_paths(discovery: &DiscoveryInput) -> Vec<String> {
    let platform = Platform::parse(&discovery.platform);
    let mut paths = vec![approvals_path(discovery), claude_json(discovery, platform)];
    for folder in &discovery.workspace_folders {
        paths.push(platform.join(folder, ".claude/settings.json"));
        paths.push(platform.join(folder, ".claude/settings.local.json"));
    }
    paths
}

fn claude_json(discovery: &DiscoveryInput, platform: Platform) -> String {
    platform.join(&discovery.home, ".claude.json")
}

impl ApprovalFacts {
    /// Reads the approvals file and Claude Code's answers; `read` gives a
    /// path's contents (None: missing or unreadable).
    pub fn read<'a>(
        discovery: &DiscoveryInput,
        read: impl Fn(&str) -> Option<&'a str>,
    ) -> ApprovalFacts {
        let platform = Platform::parse(&discovery.platform);
        let approvals_path = approvals_path(discovery);
        let (approvals, approvals_error) = match read(&approvals_path) {
            None => (ApprovalsFile::default(), None),
            Some(text) if text.trim().is_empty() => (ApprovalsFile::default(), None),
            Some(text) => match serde_json::from_str::<ApprovalsFile>(text) {
                Ok(file) => (file, None),
                Err(error) => (
                    ApprovalsFile::default(),
                    Some(format!(
                        "the approvals file is {} (line {}, column {}): no approval in it is used; fix it, or delete it and approve again",
                        classify(&error),
                        error.line(),
                        error.column()
                    )),
                ),
            },
        };
        let mut claude: VecMap<String, Vec<ClaudeAnswers>> = VecMap::new();
        let claude_json_path = claude_json(discovery, platform);
        let claude_json: Option<serde_json::Value> =
            read(&claude_json_path).and_then(|t| serde_json::from_str(t).ok());
        for folder in &discovery.workspace_folders {
            let mut answers = Vec::new();
            if let Some(projects) = claude_json
                .as_ref()
                .and_then(|v| v.get("projects"))
                .and_then(serde_json::Value::as_object)
            {
                for (path, entry) in projects {
                    if platform.same_path(path, folder) {
                        answers.push(claude_answers(&claude_json_path, entry, true));
                    }
                }
            }
            let local = platform.join(folder, ".claude/settings.local.json");
            if let Some(value) = read(&local).and_then(|t| serde_json::from_str(t).ok()) {
                answers.push(claude_answers(&local, &value, true));
            }
            let shared = platform.join(folder, ".claude/settings.json");
            if let Some(value) = read(&shared).and_then(|t| serde_json::from_str(t).ok()) {
                // Committed with the repository: only its "disabled" answers count.
                answers.push(claude_answers(&shared, &value, false));
            }
            claude.insert(folder.clone(), answers);
        }
        ApprovalFacts {
            platform_name: discovery.platform.clone(),
            approvals,
            claude,
            approvals_error,
            approvals_path,
        }
    }

    /// The verdict for `server`; `trust_all`: the host trusts every project server.
    pub fn verdict(&self, server: &ServerConfig, trust_all: bool) -> Verdict {
        let Some(folder) = project_folder(server) else {
            return Verdict::NotAsked;
        };
        let platform = Platform::parse(&self.platform_name);
        let claude = self
            .claude
            .iter()
            .filter(|(f, _)| platform.same_path(f, folder))
            .flat_map(|(_, answers)| answers.iter());
        let from_mcp_json = server.source.format == ConfigFormat::ClaudeCode;
        let mut enabled_by = None;
        if from_mcp_json {
            for answers in claude {
                if answers.disabled.contains(&server.name) {
                    return Verdict::DisabledByClaude(answers.file.clone());
                }
                if enabled_by.is_none()
                    && (answers.enable_all || answers.enabled.contains(&server.name))
                {
                    enabled_by = Some(answers.file.clone());
                }
            }
        }
        if trust_all {
            return Verdict::Approved;
        }
        match self.approved_fingerprint(folder, &server.name) {
            Some(fp) if fp == server.fingerprint => return Verdict::Approved,
            Some(_) => return Verdict::Needed { changed: true },
            None => {}
        }
        match enabled_by {
            Some(file) => Verdict::ApprovedByClaude(file),
            None => Verdict::Needed { changed: false },
        }
    }

    fn approved_fingerprint(&self, folder: &str, name: &str) -> Option<&str> {
        let platform = Platform::parse(&self.platform_name);
        self.approvals
            .projects
            .iter()
            .filter(|(path, _)| platform.same_path(path, folder))
            .find_map(|(_, project)| project.servers.get(name))
            .map(|a| a.fingerprint.as_str())
    }
}

/// The workspace folder of a definition that needs approval: one read from a
/// project file of a workspace folder. `None` for the user's own files,
/// Claude Code's per-project entries in `~/.claude.json` (the user's file) and
/// files named on the command line (`--config`: the user chose them).
pub fn project_folder(server: &ServerConfig) -> Option<&str> {
    match server.source.scope {
        ConfigScope::Project => server.source.workspace_folder.as_deref(),
        ConfigScope::Local | ConfigScope::User => None,
    }
}

fn claude_answers(file: &str, value: &serde_json::Value, may_enable: bool) -> ClaudeAnswers {
    let names = |key: &str| -> VecSet<String> {
        value
            .get(key)
            .and_then(serde_json::Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(serde_json::Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    ClaudeAnswers {
        file: file.to_string(),
        enabled: if may_enable {
            names("enabledMcpjsonServers")
        } else {
            VecSet::new()
        },
        disabled: names("disabledMcpjsonServers"),
        enable_all: may_enable
            && value
                .get("enableAllProjectMcpServers")
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false),
    }
}

fn classify(error: &serde_json::Error) -> &'static str {
    match error.classify() {
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof => "not valid JSON",
        _ => "not the expected shape",
    }
}

/// One change to the approvals file.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalChange {
    /// Approve these definitions (each its project, name and fingerprint).
    #[serde(default)]
    pub approve: Vec<ApprovalKey>,
    /// Revoke these (no fingerprint needed).
    #[serde(default)]
    pub revoke: Vec<ApprovalKey>,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalKey {
    pub project: String,
    pub server: String,
    #[serde(default)]
    pub fingerprint: String,
}

/// The approvals file after `change`, from its current text (None: missing).
/// A file that is not valid is replaced (its approvals were not used anyway).
pub fn apply_approval_change(current: Option<&str>, change: &ApprovalChange) -> String {
    let mut file = current
        .and_then(|t| serde_json::from_str::<ApprovalsFile>(t).ok())
        .unwrap_or_default();
    file.version = APPROVALS_VERSION;
    for key in &change.revoke {
        if let Some(project) = file.projects.get_mut(&key.project) {
            project.servers.remove(&key.server);
            if project.servers.is_empty() {
                file.projects.remove(&key.project);
            }
        }
    }
    for key in &change.approve {
        file.projects
            .entry(key.project.clone())
            .or_default()
            .servers
            .insert(
                key.server.clone(),
                ServerApproval {
                    fingerprint: key.fingerprint.clone(),
                },
            );
    }
    let mut text = approvals_pretty(&file);
    text.push('\n');
    text
}

/// Where a project server's approval stands (`lazy-mcp trust` lists these).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ApprovalStatus {
    /// Approved in Lazy MCP's approvals file for this launch.
    Approved,
    /// Approved by Claude Code's answers (`approved_by` names the file).
    ApprovedInClaudeCode,
    /// The host runs project servers without asking (`--trust-project`, the setting).
    TrustedByHost,
    /// Disabled in Claude Code: stays off.
    DisabledInClaudeCode,
    NeedsApproval,
    /// Approved for an earlier launch; this one changed.
    ChangedSinceApproved,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectServer {
    pub name: String,
    pub project: String,
    pub fingerprint: String,
    pub source: SourceRef,
    pub status: ApprovalStatus,
    /// The Claude Code file whose answer applies, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claude_file: Option<String>,
}

/// What `lazy-mcp trust` (or VS Code's Allow/Approve) asked for.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TrustRequest {
    /// The approvals file's text now (None: missing).
    #[serde(default)]
    pub current: Option<String>,
    /// The project's servers as the last config load saw them.
    #[serde(default)]
    pub project_servers: Vec<ProjectServer>,
    /// Every project server (approve) or every approved one (revoke).
    #[serde(default)]
    pub all: bool,
    #[serde(default)]
    pub names: Vec<String>,
    #[serde(default)]
    pub revoke: bool,
}

/// The approvals file to write and what changed.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TrustEdit {
    /// The new text of the approvals file (None: nothing to write).
    pub content: Option<String>,
    /// Servers approved or revoked.
    pub changed: Vec<String>,
    /// Names that are not servers of this project's files.
    pub unknown: Vec<String>,
    /// Servers left off: disabled in Claude Code (with the file).
    pub refused: Vec<String>,
}

/// Approve or revoke project servers: the new approvals file from its current
/// text and the servers the load saw (each approved for its current launch).
pub fn trust_edit(request: &TrustRequest) -> TrustEdit {
    let mut edit = TrustEdit::default();
    let named = |name: &str| request.all || request.names.iter().any(|n| n == name);
    for name in &request.names {
        if !request.project_servers.iter().any(|s| &s.name == name) {
            edit.unknown.push(name.clone());
        }
    }
    let mut change = ApprovalChange {
        approve: Vec::new(),
        revoke: Vec::new(),
    };
    for server in request.project_servers.iter().filter(|s| named(&s.name)) {
        let key = ApprovalKey {
            project: server.project.clone(),
            server: server.name.clone(),
            fingerprint: server.fingerprint.clone(),
        };
        if request.revoke {
            change.revoke.push(key);
            edit.changed.push(server.name.clone());
        } else if server.status == ApprovalStatus::DisabledInClaudeCode {
            edit.refused.push(format!(
                "{} (disabled in Claude Code: {}, disabledMcpjsonServers)",
                server.name,
                server.claude_file.as_deref().unwrap_or("")
            ));
        } else {
            change.approve.push(key);
            edit.changed.push(server.name.clone());
        }
    }
    if !change.approve.is_empty() || !change.revoke.is_empty() {
        edit.content = Some(apply_approval_change(request.current.as_deref(), &change));
    }
    edit
}

/// `trust_edit` over JSON: a `TrustRequest` in, a `TrustEdit` out (`{}` fields
/// empty on input that is not a `TrustRequest`).
pub fn trust_edit_json(input_json: &str) -> String {
    let edit = serde_json::from_str::<TrustRequest>(input_json)
        .map(|request| trust_edit(&request))
        .unwrap_or_default();
    serde_json::to_string(&edit).unwrap_or_else(|_| "{}".to_string())
}

// `approvals.json`'s text written by hand, byte for byte as
// `serde_json::to_string_pretty` writes an [`ApprovalsFile`] (the test below
// holds them equal): serde's pretty writer compiled for these types was 724
// bytes of the shipped `.wasm` (bench/README.md "WASM size").

/// The file as `serde_json::to_string_pretty(file)` writes it.
fn approvals_pretty(file: &ApprovalsFile) -> String {
    let mut out = String::from("{\n  \"version\": ");
    out.push_str(itoa::Buffer::new().format(file.version));
    out.push_str(",\n  \"projects\": ");
    open_map(&mut out, file.projects.is_empty());
    for (i, (project, approvals)) in file.projects.iter().enumerate() {
        member_key(&mut out, i, 2, project);
        out.push_str("{\n      \"servers\": ");
        open_map(&mut out, approvals.servers.is_empty());
        for (j, (server, approval)) in approvals.servers.iter().enumerate() {
            member_key(&mut out, j, 4, server);
            out.push_str("{\n          \"fingerprint\": ");
            json_string(&mut out, &approval.fingerprint);
            out.push_str("\n        }");
        }
        close_map(&mut out, approvals.servers.is_empty(), 3);
        out.push_str("\n    }");
    }
    close_map(&mut out, file.projects.is_empty(), 1);
    out.push_str("\n}");
    out
}

/// `{` of a map (`{}` whole when empty: serde writes no line break in it).
fn open_map(out: &mut String, empty: bool) {
    out.push_str(if empty { "{}" } else { "{" });
}

/// `}` of a non-empty map at `depth` (two spaces a level).
fn close_map(out: &mut String, empty: bool, depth: usize) {
    if !empty {
        out.push('\n');
        indent(out, depth);
        out.push('}');
    }
}

/// The `index`th key of a map whose members sit at `depth` levels, then `: `.
fn member_key(out: &mut String, index: usize, depth: usize, name: &str) {
    out.push_str(if index == 0 { "\n" } else { ",\n" });
    indent(out, depth);
    json_string(out, name);
    out.push_str(": ");
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// A JSON string escaped as serde_json escapes it.
fn json_string(out: &mut String, text: &str) {
    out.push_str(&serde_json::to_string(text).unwrap_or_default());
}

#[cfg(test)]
mod pretty_text_tests {
    use super::*;
    use crate::config::project_approval::{ProjectApprovals, ServerApproval};

    fn file(projects: &[(&str, &[(&str, &str)])]) -> ApprovalsFile {
        let mut file = ApprovalsFile {
            version: 1,
            ..ApprovalsFile::default()
        };
        for (project, servers) in projects {
            let mut approvals = ProjectApprovals::default();
            for (server, fingerprint) in *servers {
                approvals.servers.insert(
                    (*server).to_string(),
                    ServerApproval {
                        fingerprint: (*fingerprint).to_string(),
                    },
                );
            }
            file.projects.insert((*project).to_string(), approvals);
        }
        file
    }

    #[test]
    fn written_as_serde_json_pretty_writes_it() {
        let files = [
            ApprovalsFile::default(),
            file(&[]),
            file(&[("/p", &[])]),
            file(&[("/p", &[("a", "f1")])]),
            file(&[
                ("/home/me/x", &[("a", "sha256:1"), ("b", "")]),
                ("C:\\work\\\"q\"", &[("ünï\ncode\t\u{1}", "f\\")]),
                ("/z", &[]),
            ]),
        ];
        for f in &files {
            assert_eq!(
                approvals_pretty(f),
                serde_json::to_string_pretty(f).unwrap(),
                "{f:?}"
            );
        }
    }
}
