//! Config in the engine: the engine asks for files (`readFiles`, also the watch
//! set), the host answers (`filesRead`); `{file:}` references make it ask again;
//! a half-typed file keeps its last good version; host policy decides what is
//! managed; an edit re-reads only the changed file. Everything crosses JSON,
//! like the WASM host.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use lazy_mcp_core::engine::{Engine, Settings};
use serde_json::{json, Value};
use std::collections::BTreeMap;

const HOME: &str = "/home/u";
const WS: &str = "/home/u/ws";

/// A host with a fake disk: answers every `readFiles` from `disk`, counts reads.
struct Host {
    engine: Engine,
    disk: BTreeMap<String, String>,
    reads: Vec<Vec<String>>,
    watched: Vec<String>,
    loaded: Vec<Value>,
    effects: Vec<Value>,
}

impl Host {
    fn new() -> Host {
        Host {
            engine: Engine::new(Settings::default()),
            disk: BTreeMap::new(),
            reads: Vec::new(),
            watched: Vec::new(),
            loaded: Vec::new(),
            effects: Vec::new(),
        }
    }

    fn write(&mut self, path: &str, content: &str) {
        self.disk.insert(path.to_string(), content.to_string());
    }

    /// Sends `event` and answers the engine's reads until it is idle.
    fn send(&mut self, event: Value) {
        let mut queue = vec![event];
        while let Some(event) = queue.pop() {
            let out = self.engine.handle_json(1_000, &event.to_string());
            let effects: Vec<Value> = serde_json::from_str(&out).unwrap();
            for effect in effects {
                match effect["type"].as_str().unwrap() {
                    "readFiles" => {
                        let paths: Vec<String> =
                            serde_json::from_value(effect["paths"].clone()).unwrap();
                        let files: Vec<Value> = paths
                            .iter()
                            .map(|p| json!({ "path": p, "content": self.disk.get(p) }))
                            .collect();
                        self.reads.push(paths);
                        queue.push(json!({ "type": "filesRead", "round": effect["round"], "files": files }));
                    }
                    "watchFiles" => {
                        self.watched = serde_json::from_value(effect["paths"].clone()).unwrap()
                    }
                    "configLoaded" => self.loaded.push(effect["report"].clone()),
                    _ => {}
                }
                self.effects.push(effect);
            }
        }
    }

    fn report(&self) -> &Value {
        self.loaded.last().expect("a config load finished")
    }

    fn managed(&self) -> Vec<String> {
        let snap: Value = serde_json::from_str(&self.engine.snapshot_json()).unwrap();
        snap["servers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap().to_string())
            .collect()
    }
}

fn sources(policy: Value) -> Value {
    json!({
        "type": "configSources",
        "sources": {
            "discovery": { "home": HOME, "workspaceFolders": [WS], "platform": "linux", "env": { "HOME": HOME } },
            "explicitFiles": [],
            "policy": policy,
        }
    })
}

/// Every server managed (project servers trusted without approval, as `--trust-project`).
fn everything() -> Value {
    json!({ "workspaceTrusted": true, "vscodeNative": "alsoManage", "trustProjectServers": true })
}

fn project_file() -> String {
    format!("{WS}/.mcp.json")
}

fn user_file() -> String {
    format!("{HOME}/.copilot/mcp-config.json")
}

fn setup() -> Host {
    let mut host = Host::new();
    host.write(
        &project_file(),
        "{\n  \"mcpServers\": {\n    \"memory\": { \"command\": \"npx\", \"args\": [\"m\"] },\n    \"files\": { \"command\": \"npx\", \"args\": [\"f\"] }\n  }\n}\n",
    );
    host.write(
        &user_file(),
        r#"{ "mcpServers": { "time": { "type": "local", "command": "uvx", "args": ["t"], "tools": ["*"] } } }"#,
    );
    host
}

#[test]
fn one_round_of_files_wanted_and_files_read_loads_and_manages_every_server() {
    let mut host = setup();
    host.send(sources(everything()));
    assert_eq!(host.reads.len(), 1, "one round: {:?}", host.reads);
    assert!(host.reads[0].contains(&project_file()));
    assert!(
        host.reads[0].contains(&format!("{WS}/.vscode/mcp.json")),
        "missing files are asked for too"
    );
    assert_eq!(
        host.watched, host.reads[0],
        "the watch set is what the core asked for"
    );
    let names: Vec<&str> = host.report()["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["files", "memory", "time"]);
    assert_eq!(host.managed(), ["files", "memory", "time"]);
    assert_eq!(
        host.report()["servers"][1]["source"]["line"],
        3,
        "the entry line is reported"
    );
}

/// The CLI's `config` and `trust` commands load config in an engine that
/// manages no server: the same report, and nothing started or listed.
#[test]
fn an_engine_that_manages_no_servers_reports_the_config_and_starts_nothing() {
    let mut host = setup();
    host.engine = Engine::new(Settings {
        manage_servers: false,
        ..Settings::default()
    });
    host.send(sources(everything()));
    let names: Vec<&str> = host.report()["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["files", "memory", "time"], "the report is whole");
    assert!(host.managed().is_empty(), "no server is managed");
    let kinds: Vec<&str> = host
        .effects
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["watchFiles", "readFiles", "configLoaded"],
        "nothing opened: {kinds:?}"
    );
}

#[test]
fn a_file_reference_makes_the_core_ask_for_it_in_a_following_round() {
    let mut host = setup();
    host.write(
        &format!("{WS}/opencode.jsonc"),
        r#"{ "mcp": { "docs": { "type": "remote", "url": "https://example.invalid/mcp", "headers": { "Authorization": "Bearer {file:token.txt}" } } } }"#,
    );
    host.write(&format!("{WS}/token.txt"), "sekrit\n");
    host.send(sources(everything()));
    assert_eq!(host.reads.len(), 2);
    assert_eq!(host.reads[1], [format!("{WS}/token.txt")]);
    assert!(
        host.watched.contains(&format!("{WS}/token.txt")),
        "referenced files are watched"
    );
    let docs = host.report()["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "docs")
        .unwrap()
        .clone();
    assert_eq!(
        docs["transport"]["headers"]["Authorization"],
        "Bearer sekrit"
    );
}

#[test]
fn an_edit_rereads_only_the_changed_file_and_a_half_typed_one_keeps_its_last_good_servers() {
    let mut host = setup();
    host.send(sources(everything()));
    host.write(
        &project_file(),
        "{\n  \"mcpServers\": {\n    \"memory\": { \"command\": \n",
    );
    host.send(json!({ "type": "configFilesChanged", "paths": [project_file()] }));
    assert_eq!(
        host.reads.last().unwrap(),
        &[project_file()],
        "only the changed file is read again"
    );
    assert_eq!(
        host.managed(),
        ["files", "memory", "time"],
        "last good version still used"
    );
    let report = host.report().clone();
    let file = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == project_file())
        .unwrap();
    assert_eq!(file["usingLastGood"], true);
    assert_eq!(file["syntaxError"], true);
    let problem = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["file"] == project_file())
        .unwrap();
    assert!(problem["line"].as_u64().unwrap() >= 3, "{problem}");
    assert_eq!(&file["error"], problem);

    // Fixed: the new version applies; a removed server leaves the engine.
    host.write(
        &project_file(),
        r#"{ "mcpServers": { "memory": { "command": "npx", "args": ["m2"] } } }"#,
    );
    host.send(json!({ "type": "configFilesChanged", "paths": [project_file()] }));
    assert_eq!(host.managed(), ["memory", "time"]);
    assert!(host
        .effects
        .iter()
        .any(|e| e["type"] == "serverRemoved" && e["server"] == "files"));
}

#[test]
fn a_broken_file_without_a_good_version_contributes_nothing_and_the_others_load() {
    let mut host = setup();
    host.write(&project_file(), r#"{ "mcpServers": { oops } }"#);
    host.send(sources(everything()));
    assert_eq!(host.managed(), ["time"]);
    assert!(host.report()["problems"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["file"] == project_file() && p["line"] == 1));
}

#[test]
fn host_policy_is_applied_in_the_core_for_every_host() {
    let mut host = setup();
    // VS Code in Restricted Mode: workspace servers are listed, not managed, and VS Code is not asked to start anything.
    host.send(sources(
        json!({ "workspaceTrusted": false, "vscodeNative": "leaveToVsCode" }),
    ));
    assert_eq!(host.managed(), ["time"]);
    let report = host.report().clone();
    assert_eq!(report["startClientDefinitions"], false);
    assert_eq!(report["unmanaged"].as_array().unwrap().len(), 2);
    assert!(report["unmanaged"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("not trusted"));
    assert_eq!(
        report["servers"].as_array().unwrap().len(),
        3,
        "the report still lists every configured server"
    );

    // Trust granted: the same files, now managed.
    host.send(sources(everything()));
    assert_eq!(host.managed(), ["files", "memory", "time"]);
    assert_eq!(host.report()["startClientDefinitions"], true);

    // The CLI naming servers (`catalogue time`), or a nested serve (none).
    host.send(sources(
        json!({ "workspaceTrusted": true, "vscodeNative": "alsoManage", "only": ["time"] }),
    ));
    assert_eq!(host.managed(), ["time"]);
    host.send(sources(
        json!({ "workspaceTrusted": true, "vscodeNative": "alsoManage", "only": [] }),
    ));
    assert!(host.managed().is_empty());
}

#[test]
fn files_changed_before_any_sources_asks_for_nothing() {
    let mut host = setup();
    host.send(json!({ "type": "configFilesChanged", "paths": [] }));
    assert!(host.reads.is_empty());
    assert!(host.loaded.is_empty());
}

#[test]
fn reads_answered_out_of_order_load_once_all_are_in() {
    let mut host = setup();
    let first: Vec<Value> = serde_json::from_str(
        &host
            .engine
            .handle_json(1, &sources(everything()).to_string()),
    )
    .unwrap();
    let again: Vec<Value> = serde_json::from_str(&host.engine.handle_json(
        2,
        &json!({ "type": "configFilesChanged", "paths": [] }).to_string(),
    ))
    .unwrap();
    let read_of = |effects: &[Value]| {
        effects
            .iter()
            .find(|e| e["type"] == "readFiles")
            .unwrap()
            .clone()
    };
    let (first, again) = (read_of(&first), read_of(&again));
    let answer = |effect: &Value, disk: &BTreeMap<String, String>| {
        let files: Vec<Value> = effect["paths"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| json!({ "path": p, "content": disk.get(p.as_str().unwrap()) }))
            .collect();
        json!({ "type": "filesRead", "round": effect["round"], "files": files }).to_string()
    };
    // The later round answers first: nothing is loaded until the earlier one is in too.
    let out: Vec<Value> =
        serde_json::from_str(&host.engine.handle_json(3, &answer(&again, &host.disk))).unwrap();
    assert!(!out.iter().any(|e| e["type"] == "configLoaded"));
    let out: Vec<Value> =
        serde_json::from_str(&host.engine.handle_json(4, &answer(&first, &host.disk))).unwrap();
    assert_eq!(
        out.iter().filter(|e| e["type"] == "configLoaded").count(),
        1
    );
}

#[test]
fn every_path_is_watched_before_it_is_read_so_an_edit_during_a_load_is_not_missed() {
    let mut host = setup();
    host.write(
        &format!("{WS}/opencode.jsonc"),
        r#"{ "mcp": { "docs": { "type": "remote", "url": "https://example.invalid/mcp", "headers": { "Authorization": "Bearer {file:token.txt}" } } } }"#,
    );
    host.write(&format!("{WS}/token.txt"), "sekrit\n");
    host.send(sources(everything()));
    assert_eq!(host.reads.len(), 2, "the plan, then the reference");
    for (round, paths) in host.reads.iter().enumerate() {
        let read_at = host
            .effects
            .iter()
            .position(|e| e["type"] == "readFiles" && e["paths"] == json!(paths))
            .unwrap();
        let watched_before: Vec<String> = host.effects[..read_at]
            .iter()
            .filter(|e| e["type"] == "watchFiles")
            .flat_map(|e| serde_json::from_value::<Vec<String>>(e["paths"].clone()).unwrap())
            .collect();
        for path in paths {
            assert!(
                watched_before.contains(path),
                "round {round}: {path} is read before it is watched"
            );
        }
    }
}

#[test]
fn an_answer_the_core_did_not_ask_for_is_not_taken() {
    let mut host = setup();
    let token = format!("{WS}/token.txt");
    host.write(&token, "real\n");
    let effects: Vec<Value> = serde_json::from_str(
        &host
            .engine
            .handle_json(1, &sources(everything()).to_string()),
    )
    .unwrap();
    let read = effects.iter().find(|e| e["type"] == "readFiles").unwrap();
    let mut files: Vec<Value> = read["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| json!({ "path": p, "content": host.disk.get(p.as_str().unwrap()) }))
        .collect();
    // A host answering a path nobody asked for, and a round that does not exist.
    files.push(json!({ "path": token, "content": "junk\n" }));
    host.send(json!({ "type": "filesRead", "round": read["round"], "files": files }));
    let loads = host.loaded.len();
    host.send(json!({ "type": "filesRead", "round": 999, "files": [] }));
    assert_eq!(host.loaded.len(), loads, "an unknown round loads nothing");
    // Now a file references it: the core reads it, it does not use what it was never asked.
    host.write(
        &format!("{WS}/opencode.jsonc"),
        r#"{ "mcp": { "docs": { "type": "remote", "url": "https://example.invalid/mcp", "headers": { "Authorization": "Bearer {file:token.txt}" } } } }"#,
    );
    host.send(json!({ "type": "configFilesChanged", "paths": [format!("{WS}/opencode.jsonc")] }));
    assert_eq!(host.reads.last().unwrap(), &[token]);
    let docs = host.report()["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "docs")
        .unwrap()
        .clone();
    assert_eq!(docs["transport"]["headers"]["Authorization"], "Bearer real");
}

/// Issue 23: servers left to VS Code were invisible in the view and missing from the
/// counts ("5 servers configured — 0 connected · 2 catalogued only …" did not add up).
#[test]
fn servers_left_to_vscode_are_listed_by_group_and_the_counts_add_up() {
    let mut host = setup();
    host.send(sources(
        json!({ "workspaceTrusted": true, "vscodeNative": "leaveToVsCode" }),
    ));
    assert_eq!(host.managed(), ["time"]);
    let snap: Value = serde_json::from_str(&host.engine.snapshot_json()).unwrap();
    let groups = snap["unmanaged"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "{groups:?}");
    assert_eq!(groups[0]["title"], "Managed by VS Code (2)");
    assert!(groups[0]["explanation"]
        .as_str()
        .unwrap()
        .contains("lazyMcp.vscodeNativeServers"));
    let names: Vec<&str> = groups[0]["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["files", "memory"]);
    let summary = snap["summary"].as_str().unwrap();
    assert!(summary.ends_with(" · 2 managed by VS Code"), "{summary}");

    // The Diagnostics header: the parts add up to the servers configured. The
    // host sends only its own facts: the config comes from the engine's last load.
    let context = json!({ "home": HOME, "workspaceFolders": [WS], "nowMs": 1_000 });
    let context: lazy_mcp_core::diagnostics::ReportContext =
        serde_json::from_value(context).unwrap();
    let markdown = lazy_mcp_core::diagnostics::engine_report(&context, &host.engine);
    let header = markdown
        .lines()
        .find(|l| l.contains("servers configured"))
        .unwrap();
    let total: usize = header
        .split_once("configured** — ")
        .unwrap()
        .1
        .split(" · ")
        .map(|part| part.split(' ').next().unwrap().parse::<usize>().unwrap())
        .sum();
    assert!(header.starts_with("**3 servers configured**"), "{header}");
    assert_eq!(total, 3, "{header}");
    assert!(header.ends_with(" · 2 managed by VS Code"), "{header}");
}

/// MCP Diagnostics shows the engine's own last config load (the host sends only
/// its facts): the same report as one rendered from the `configLoaded` report
/// the host was sent, and the next load's once it finishes.
#[test]
fn diagnostics_show_the_engines_last_config_load() {
    use lazy_mcp_core::config::load::ConfigReport;
    use lazy_mcp_core::diagnostics::{engine_report, render_markdown, ReportContext};
    let mut host = setup();
    // `time` again in the project file: the user file's is shadowed.
    host.write(
        &project_file(),
        "{\n  \"mcpServers\": {\n    \"memory\": { \"command\": \"npx\", \"args\": [\"m\"] },\n    \"time\": { \"command\": \"uvx\", \"args\": [\"t2\"] },\n    \"bad\": { \"args\": [] }\n  }\n}\n",
    );
    host.send(sources(
        json!({ "workspaceTrusted": false, "vscodeNative": "leaveToVsCode" }),
    ));
    let context = ReportContext {
        host: "test".into(),
        workspace_folders: vec![WS.into()],
        home: HOME.into(),
        links: true,
        now_ms: Some(1_000),
    };
    let sent: ConfigReport = serde_json::from_value(host.report().clone()).unwrap();
    let shown = engine_report(&context, &host.engine);
    assert_eq!(
        shown,
        render_markdown(&context, &sent, Some(&host.engine.snapshot()))
    );
    for part in [
        "> **Note:** Restricted Mode",
        "## Configured but not managed by Lazy MCP",
        "## Server definitions (secrets masked)",
        "`uvx t2`",
        "## Problems",
        "— server `bad`",
        "## Shadowed definitions",
        "## Config files looked at",
        "| .mcp.json | claude-code | project | 2 servers |",
    ] {
        assert!(shown.contains(part), "{part}\n{shown}");
    }

    // Trusted and edited: the next load's report replaces it.
    host.write(
        &project_file(),
        r#"{ "mcpServers": { "memory": { "command": "npx", "args": ["m2"] } } }"#,
    );
    host.send(sources(everything()));
    let shown = engine_report(&context, &host.engine);
    assert!(shown.contains("`npx m2`"), "{shown}");
    for gone in [
        "Restricted Mode",
        "not managed",
        "`uvx t2`",
        "## Problems",
        "## Shadowed",
    ] {
        assert!(!shown.contains(gone), "{gone}\n{shown}");
    }
}
