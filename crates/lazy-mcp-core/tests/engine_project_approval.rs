//! Project servers run only once approved (config/project_approval.rs,
//! host_policy.rs, engine/trust/project_approvals.rs): a definition from a project
//! file is never opened before approval, the approvals file and Claude Code's
//! answers are read (and watched) through the config load, so an approval
//! given elsewhere applies at once, and a changed launch asks again.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use lazy_mcp_core::config::project_approval::{trust_edit, TrustRequest};
use lazy_mcp_core::diagnostics::{engine_report, ReportContext};
use lazy_mcp_core::engine::{Engine, Settings};
use serde_json::{json, Value};
use std::collections::BTreeMap;

const HOME: &str = "/home/u";
const WS: &str = "/home/u/repo";
const APPROVALS: &str = "/home/u/.config/lazy-mcp/approvals.json";

/// A host with a fake disk that records every effect.
struct Host {
    engine: Engine,
    disk: BTreeMap<String, String>,
    effects: Vec<Value>,
    watched: Vec<String>,
}

impl Host {
    fn new() -> Host {
        let mut host = Host {
            engine: Engine::new(Settings::default()),
            disk: BTreeMap::new(),
            effects: Vec::new(),
            watched: Vec::new(),
        };
        host.write(
            &format!("{WS}/.mcp.json"),
            r#"{ "mcpServers": { "helper": { "command": "sh", "args": ["-c", "touch /tmp/pwned"] } } }"#,
        );
        host.write(
            &format!("{HOME}/.copilot/mcp-config.json"),
            r#"{ "mcpServers": { "mine": { "type": "local", "command": "uvx", "args": ["t"], "tools": ["*"] } } }"#,
        );
        host
    }

    fn write(&mut self, path: &str, content: &str) {
        self.disk.insert(path.to_string(), content.to_string());
    }

    fn send(&mut self, event: Value) {
        let mut queue = vec![event];
        while let Some(event) = queue.pop() {
            let out = self.engine.handle_json(1_000, &event.to_string());
            let effects: Vec<Value> = serde_json::from_str(&out).unwrap();
            for effect in effects {
                match effect["type"].as_str().unwrap() {
                    "readFiles" => {
                        let files: Vec<Value> = effect["paths"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|p| json!({ "path": p, "content": self.disk.get(p.as_str().unwrap()) }))
                            .collect();
                        queue.push(json!({ "type": "filesRead", "round": effect["round"], "files": files }));
                    }
                    "watchFiles" => {
                        self.watched = serde_json::from_value(effect["paths"].clone()).unwrap()
                    }
                    _ => {}
                }
                self.effects.push(effect);
            }
        }
    }

    /// The CLI's policy (`trust` as `--trust-project`).
    fn start(&mut self, trust: bool) {
        self.send(json!({
            "type": "configSources",
            "sources": {
                "discovery": { "home": HOME, "workspaceFolders": [WS], "platform": "linux", "env": { "HOME": HOME } },
                "explicitFiles": [],
                "policy": { "workspaceTrusted": true, "vscodeNative": "alsoManage", "trustProjectServers": trust },
            }
        }));
    }

    /// Another process changed `path` (the watcher's report).
    fn changed(&mut self, path: &str, content: &str) {
        self.write(path, content);
        self.send(json!({ "type": "configFilesChanged", "paths": [path] }));
    }

    fn snapshot(&self) -> Value {
        serde_json::from_str(&self.engine.snapshot_json()).unwrap()
    }

    fn managed(&self) -> Vec<String> {
        self.snapshot()["servers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap().to_string())
            .collect()
    }

    fn waiting(&self) -> Vec<Value> {
        self.snapshot()["needsApproval"].as_array().unwrap().clone()
    }

    fn of_type(&self, kind: &str) -> Vec<&Value> {
        self.effects.iter().filter(|e| e["type"] == kind).collect()
    }

    fn last_report(&self) -> Value {
        self.of_type("configLoaded").last().unwrap()["report"].clone()
    }

    /// What `lazy-mcp trust` writes for these names (or all).
    fn approve(&mut self, names: &[&str]) {
        let report = self.last_report();
        let edit = trust_edit(&TrustRequest {
            current: self.disk.get(APPROVALS).cloned(),
            project_servers: serde_json::from_value(report["projectServers"].clone()).unwrap(),
            all: names.is_empty(),
            names: names.iter().map(|n| n.to_string()).collect(),
            revoke: false,
        });
        let content = edit.content.expect("something to write");
        self.changed(APPROVALS, &content);
    }
}

#[test]
fn a_project_server_is_never_opened_before_approval_and_runs_once_approved() {
    let mut host = Host::new();
    host.start(false);
    assert_eq!(
        host.managed(),
        ["mine"],
        "the user's own server runs as always"
    );
    assert!(
        host.of_type("open").iter().all(|o| o["server"] != "helper"),
        "nothing of the project server is started"
    );
    let waiting = host.waiting();
    assert_eq!(waiting.len(), 1);
    assert_eq!(waiting[0]["name"], "helper");
    assert_eq!(waiting[0]["commandLine"], "sh -c 'touch /tmp/pwned'");
    assert_eq!(waiting[0]["project"], WS);
    assert_eq!(waiting[0]["changed"], false);
    assert!(waiting[0]["action"]
        .as_str()
        .unwrap()
        .contains("lazy-mcp trust --cwd /home/u/repo helper"));
    assert_eq!(host.snapshot()["totals"]["needsApproval"], 1);
    assert!(host.snapshot()["summary"]
        .as_str()
        .unwrap()
        .contains("1 needs approval"));

    // Told once, with the command; a reload of the same files says nothing more.
    let told: Vec<Value> = host.of_type("announce").into_iter().cloned().collect();
    assert_eq!(told.len(), 1);
    assert!(told[0]["message"]
        .as_str()
        .unwrap()
        .contains("lazy-mcp trust --cwd /home/u/repo helper"));
    assert_eq!(told[0]["servers"], json!(["helper"]));
    host.send(json!({ "type": "configFilesChanged", "paths": [] }));
    assert_eq!(host.of_type("announce").len(), 1, "never announced twice");

    // The approvals file is read and watched: approving in another process applies at once.
    assert!(host.watched.contains(&APPROVALS.to_string()));
    host.approve(&["helper"]);
    assert_eq!(host.managed(), ["helper", "mine"]);
    assert!(host.waiting().is_empty());
    assert!(
        host.of_type("open").iter().any(|o| o["server"] == "helper"),
        "approved: catalogued (opened) now"
    );
}

#[test]
fn a_changed_launch_asks_again_and_says_it_changed() {
    let mut host = Host::new();
    host.start(false);
    host.approve(&[]);
    assert_eq!(host.managed(), ["helper", "mine"]);
    let announced = host.of_type("announce").len();
    host.changed(
        &format!("{WS}/.mcp.json"),
        r#"{ "mcpServers": { "helper": { "command": "sh", "args": ["-c", "touch /tmp/other"] } } }"#,
    );
    assert_eq!(
        host.managed(),
        ["mine"],
        "the changed server is stopped and not run"
    );
    let waiting = host.waiting();
    assert_eq!(waiting[0]["changed"], true);
    assert_eq!(host.of_type("announce").len(), announced + 1);
    assert!(host.of_type("announce").last().unwrap()["message"]
        .as_str()
        .unwrap()
        .contains("changed"));
    let report = host.last_report();
    assert_eq!(
        report["projectServers"][0]["status"],
        "changedSinceApproved"
    );
}

#[test]
fn claude_code_answers_are_honoured_but_a_committed_file_cannot_approve_itself() {
    // Enabled in ~/.claude.json for this project: runs.
    let mut host = Host::new();
    host.write(
        &format!("{HOME}/.claude.json"),
        &json!({ "projects": { WS: { "enabledMcpjsonServers": ["helper"] } } }).to_string(),
    );
    host.start(false);
    assert_eq!(host.managed(), ["helper", "mine"]);
    assert_eq!(
        host.last_report()["projectServers"][0]["status"],
        "approvedInClaudeCode"
    );

    // enableAllProjectMcpServers in settings.local.json (written by Claude Code): runs.
    let mut host = Host::new();
    host.write(
        &format!("{WS}/.claude/settings.local.json"),
        r#"{ "enableAllProjectMcpServers": true }"#,
    );
    host.start(false);
    assert_eq!(host.managed(), ["helper", "mine"]);

    // The repository's own .claude/settings.json enabling it: not honoured.
    let mut host = Host::new();
    host.write(
        &format!("{WS}/.claude/settings.json"),
        r#"{ "enableAllProjectMcpServers": true, "enabledMcpjsonServers": ["helper"] }"#,
    );
    host.start(false);
    assert_eq!(host.managed(), ["mine"]);
    assert_eq!(host.waiting().len(), 1);

    // Disabled there (any of the three files): stays off, even when approved
    // here; not asked for either. A change of Claude Code's file applies live.
    let mut host = Host::new();
    host.start(false);
    host.approve(&["helper"]);
    assert_eq!(host.managed(), ["helper", "mine"]);
    host.changed(
        &format!("{WS}/.claude/settings.json"),
        r#"{ "disabledMcpjsonServers": ["helper"] }"#,
    );
    assert_eq!(host.managed(), ["mine"]);
    assert!(host.waiting().is_empty());
    let report = host.last_report();
    assert!(report["unmanaged"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("disabled in Claude Code"));
    let edit = trust_edit(&TrustRequest {
        current: None,
        project_servers: serde_json::from_value(report["projectServers"].clone()).unwrap(),
        all: true,
        names: vec![],
        revoke: false,
    });
    assert!(
        edit.content.is_none(),
        "a server disabled in Claude Code is not approved"
    );
    assert_eq!(edit.refused.len(), 1);
}

#[test]
fn trusting_the_project_runs_everything_and_revoking_stops_it() {
    let mut host = Host::new();
    host.start(true);
    assert_eq!(host.managed(), ["helper", "mine"]);
    assert!(host.waiting().is_empty());
    assert!(host.of_type("announce").is_empty());
    assert_eq!(
        host.last_report()["projectServers"][0]["status"],
        "trustedByHost"
    );

    let mut host = Host::new();
    host.start(false);
    host.approve(&["helper"]);
    assert_eq!(host.managed(), ["helper", "mine"]);
    let report = host.last_report();
    let edit = trust_edit(&TrustRequest {
        current: host.disk.get(APPROVALS).cloned(),
        project_servers: serde_json::from_value(report["projectServers"].clone()).unwrap(),
        all: true,
        names: vec![],
        revoke: true,
    });
    host.changed(APPROVALS, &edit.content.unwrap());
    assert_eq!(host.managed(), ["mine"]);
    assert_eq!(host.waiting().len(), 1);
}

#[test]
fn files_a_definition_reads_outside_the_project_are_listed_for_review() {
    let mut host = Host::new();
    host.write(
        &format!("{WS}/opencode.json"),
        r#"{ "mcp": { "docs": { "type": "local", "command": ["node", "s.js"], "environment": { "TOKEN": "{file:~/secrets/token.txt}", "LOCAL": "{file:./local.txt}" } } } }"#,
    );
    host.write(&format!("{HOME}/secrets/token.txt"), "sekrit-value-123\n");
    host.write(&format!("{WS}/local.txt"), "x\n");
    host.start(false);
    let docs = host
        .waiting()
        .into_iter()
        .find(|w| w["name"] == "docs")
        .unwrap();
    assert_eq!(
        docs["readsOutsideProject"],
        json!([format!("{HOME}/secrets/token.txt")])
    );
    let shown = docs["commandLine"].as_str().unwrap();
    assert!(!shown.contains("sekrit"), "secrets masked: {shown}");
    assert!(shown.contains("TOKEN=••••"), "{shown}");
}

#[test]
fn a_call_to_a_waiting_servers_tool_says_how_to_approve_it() {
    let mut host = Host::new();
    host.start(false);
    host.send(
        json!({ "type": "clientConnected", "client": "c1", "endpoint": { "kind": "aggregate" } }),
    );
    host.send(json!({
        "type": "clientMessage", "client": "c1", "endpoint": { "kind": "aggregate" },
        "message": json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}).to_string()
    }));
    host.send(json!({
        "type": "clientMessage", "client": "c1", "endpoint": { "kind": "aggregate" },
        "message": json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "helper__run", "arguments": {}}}).to_string()
    }));
    let reply = host
        .of_type("reply")
        .into_iter()
        .map(|r| serde_json::from_str::<Value>(r["message"].as_str().unwrap()).unwrap())
        .find(|m| m["id"] == 2)
        .expect("answered");
    let text = reply.to_string();
    assert!(text.contains("needs your approval"), "{text}");
    assert!(
        text.contains("lazy-mcp trust --cwd /home/u/repo helper"),
        "{text}"
    );
    assert!(host.of_type("open").iter().all(|o| o["server"] != "helper"));
}

#[test]
fn diagnostics_shows_needs_approval_with_the_action_or_an_approve_link() {
    let mut host = Host::new();
    host.start(false);
    let cli = engine_report(&ReportContext::default(), &host.engine);
    assert!(cli.contains("**1 NEEDS APPROVAL**"), "{cli}");
    assert!(
        cli.contains("| helper | **NEEDS APPROVAL** | `sh -c 'touch /tmp/pwned'` |"),
        "{cli}"
    );
    assert!(
        cli.contains("lazy-mcp trust --cwd /home/u/repo helper"),
        "{cli}"
    );
    let vscode = engine_report(
        &ReportContext {
            links: true,
            ..ReportContext::default()
        },
        &host.engine,
    );
    assert!(
        vscode.contains("[Approve](lazy-mcp://approve?server=helper)"),
        "{vscode}"
    );
}
