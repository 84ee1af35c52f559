//! Config loads as random conversations of "files wanted → files read": edits
//! (valid, half-typed, broken, removed, unreadable files, `{file:}` references),
//! watcher notifications and answers to the core's reads in any order, a
//! re-read of everything now and then. No input panics, and once the host has
//! answered everything, the result is what a fresh load of the same final files
//! gives (a file that stopped parsing keeps its last good version: the fresh load
//! is given that version first, then the file as it is).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use lazy_mcp_core::engine::{Engine, Settings};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

const HOME: &str = "/home/u";
const WS: &str = "/home/u/ws";

/// The files a load may look at: four of the plan's config files and two files
/// that OpenCode `{file:}` references name.
fn paths() -> [String; 6] {
    [
        format!("{WS}/.mcp.json"),
        format!("{WS}/.vscode/mcp.json"),
        format!("{HOME}/.copilot/mcp-config.json"),
        format!("{WS}/opencode.jsonc"),
        format!("{WS}/token.txt"),
        format!("{WS}/other.txt"),
    ]
}

#[derive(Debug, Clone, PartialEq)]
enum Disk {
    Content(String),
    Unreadable,
}

/// What one file holds: valid (with `servers` from a small shared set of names,
/// so files shadow each other), cut off anywhere (half-typed), or garbage.
#[derive(Debug, Clone)]
struct Content {
    kind: u8,
    servers: u8,
    version: u8,
    cut: usize,
}

fn render(path: usize, c: &Content) -> String {
    let names: Vec<&str> = ["alpha", "beta", "gamma"]
        .iter()
        .enumerate()
        .filter(|(i, _)| c.servers & (1 << i) != 0)
        .map(|(_, n)| *n)
        .collect();
    let v = c.version;
    let entries = |entry: &dyn Fn(&str) -> Value| -> serde_json::Map<String, Value> {
        names.iter().map(|n| ((*n).to_string(), entry(n))).collect()
    };
    let valid = match path {
        0 => {
            json!({"mcpServers": entries(&|n| json!({"command": "npx", "args": [format!("{n}-{v}")]}))})
        }
        1 => {
            json!({"servers": entries(&|n| json!({"type": "stdio", "command": "uvx", "args": [format!("{n}@{v}")]}))})
        }
        2 => {
            json!({"mcpServers": entries(&|n| json!({"type": "local", "command": "node", "args": [format!("{n}.js")], "tools": ["*"], "env": {"V": v.to_string()}}))})
        }
        3 => {
            let file = if v.is_multiple_of(2) {
                "token.txt"
            } else {
                "other.txt"
            };
            json!({"mcp": entries(&|n| json!({"type": "remote", "url": format!("https://{n}.invalid/mcp"), "headers": {"Authorization": format!("Bearer {{file:{file}}}")}}))})
        }
        _ => return format!("secret-{v}\n"),
    };
    let text = serde_json::to_string_pretty(&valid).unwrap();
    match c.kind % 4 {
        0 | 1 => text,
        2 => text.chars().take(c.cut % text.len().max(1)).collect(),
        _ => "{ \"mcpServers\": { oops ".to_string(),
    }
}

#[derive(Debug, Clone)]
enum Action {
    Write(usize, Content),
    Remove(usize),
    MakeUnreadable(usize),
    /// Deliver one of the watcher's pending notifications.
    Notify(usize),
    /// Answer one of the core's outstanding reads (with the disk as it is now).
    Answer(usize),
    /// "Sync Config": re-read everything.
    Resync,
    /// A host that answers what was not asked: a round that may not exist, a
    /// path that may not be wanted, content that may not be on disk.
    Junk(u8, usize, Option<Content>),
}

fn content() -> impl Strategy<Value = Content> {
    (any::<u8>(), any::<u8>(), 0u8..4, any::<usize>()).prop_map(|(kind, servers, version, cut)| {
        Content {
            kind,
            servers,
            version,
            cut,
        }
    })
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        4 => (0usize..6, content()).prop_map(|(p, c)| Action::Write(p, c)),
        1 => (0usize..6).prop_map(Action::Remove),
        1 => (0usize..6).prop_map(Action::MakeUnreadable),
        3 => any::<usize>().prop_map(Action::Notify),
        3 => any::<usize>().prop_map(Action::Answer),
        1 => Just(Action::Resync),
        1 => (any::<u8>(), 0usize..7, prop::option::of(content())).prop_map(|(r, p, c)| Action::Junk(r, p, c)),
    ]
}

/// A host with a fake disk and a watcher of exactly the paths the core asked to watch.
struct Host {
    engine: Engine,
    disk: BTreeMap<String, Disk>,
    watched: Vec<String>,
    /// The core's reads not answered yet: (round, paths).
    reads: Vec<(Value, Vec<String>)>,
    /// Changes the watcher saw and has not reported yet.
    notifications: Vec<Vec<String>>,
    /// What the core was last told each path holds.
    answered: BTreeMap<String, Option<String>>,
    /// The last version of each file a load reported as good (the core keeps it
    /// for a file that stops parsing).
    last_good: BTreeMap<String, String>,
    reports: Vec<Value>,
    /// The host answered something it was not asked (`Junk`).
    lied: bool,
    /// Every path the core asked to read.
    asked: BTreeSet<String>,
}

impl Host {
    fn new() -> Host {
        Host {
            engine: Engine::new(Settings::default()),
            disk: BTreeMap::new(),
            watched: Vec::new(),
            reads: Vec::new(),
            notifications: Vec::new(),
            answered: BTreeMap::new(),
            last_good: BTreeMap::new(),
            reports: Vec::new(),
            lied: false,
            asked: BTreeSet::new(),
        }
    }

    fn send(&mut self, event: Value) {
        let out = self.engine.handle_json(1_000, &event.to_string());
        let effects: Vec<Value> = serde_json::from_str(&out).unwrap();
        for effect in effects {
            match effect["type"].as_str().unwrap() {
                "readFiles" => {
                    let paths: Vec<String> =
                        serde_json::from_value(effect["paths"].clone()).unwrap();
                    self.asked.extend(paths.iter().cloned());
                    self.reads.push((effect["round"].clone(), paths));
                }
                "watchFiles" => {
                    self.watched = serde_json::from_value(effect["paths"].clone()).unwrap()
                }
                "configLoaded" => self.loaded(effect["report"].clone()),
                "log" if effect["level"] == "error" => panic!("the core logged: {effect}"),
                _ => {}
            }
        }
    }

    fn loaded(&mut self, report: Value) {
        for file in report["files"].as_array().unwrap() {
            let path = file["path"].as_str().unwrap();
            let good =
                file["found"] == true && file["error"].is_null() && file["usingLastGood"] != true;
            match self.answered.get(path) {
                Some(Some(content)) if good => {
                    self.last_good.insert(path.into(), content.clone());
                }
                _ if file["found"] != true => {
                    self.last_good.remove(path);
                }
                _ => {}
            }
        }
        self.reports.push(report);
    }

    fn start(&mut self) {
        self.send(json!({
            "type": "configSources",
            "sources": {
                "discovery": { "home": HOME, "workspaceFolders": [WS], "platform": "linux", "env": { "HOME": HOME } },
                "explicitFiles": [],
                "policy": { "workspaceTrusted": true, "vscodeNative": "alsoManage", "trustProjectServers": true },
            }
        }));
    }

    fn change(&mut self, path: &str, to: Option<Disk>) {
        match to {
            Some(disk) => self.disk.insert(path.into(), disk),
            None => self.disk.remove(path),
        };
        if self.watched.iter().any(|w| w == path) {
            self.notifications.push(vec![path.to_string()]);
        }
    }

    fn answer(&mut self, index: usize) {
        if self.reads.is_empty() {
            return;
        }
        let (round, paths) = self.reads.remove(index % self.reads.len());
        let files: Vec<Value> = paths
            .iter()
            .map(|p| match self.disk.get(p) {
                Some(Disk::Content(text)) => {
                    self.answered.insert(p.clone(), Some(text.clone()));
                    json!({"path": p, "content": text})
                }
                Some(Disk::Unreadable) => {
                    self.answered.insert(p.clone(), None);
                    json!({"path": p, "content": null, "unreadable": "is a FIFO"})
                }
                None => {
                    self.answered.insert(p.clone(), None);
                    json!({"path": p, "content": null})
                }
            })
            .collect();
        self.send(json!({"type": "filesRead", "round": round, "files": files}));
    }

    fn act(&mut self, action: Action) {
        let paths = paths();
        match action {
            Action::Write(p, content) => {
                let text = render(p, &content);
                self.change(&paths[p], Some(Disk::Content(text)));
            }
            Action::Remove(p) => self.change(&paths[p], None),
            Action::MakeUnreadable(p) => self.change(&paths[p], Some(Disk::Unreadable)),
            Action::Notify(i) if !self.notifications.is_empty() => {
                let changed = self.notifications.remove(i % self.notifications.len());
                self.send(json!({"type": "configFilesChanged", "paths": changed}));
            }
            Action::Notify(_) => {}
            Action::Answer(i) => self.answer(i),
            Action::Resync => self.send(json!({"type": "configFilesChanged", "paths": []})),
            Action::Junk(round, p, content) => {
                let path = paths
                    .get(p)
                    .cloned()
                    .unwrap_or_else(|| "/elsewhere/x.json".into());
                let text = content.map(|c| render(p.min(5), &c));
                // The core takes only a path its round asked for, and that round is then answered.
                let round_value = json!(round);
                if let Some(at) = self.reads.iter().position(|(r, _)| *r == round_value) {
                    let (_, asked) = self.reads.remove(at);
                    if asked.contains(&path) {
                        self.answered.insert(path.clone(), text.clone());
                    }
                }
                let file = json!({"path": path, "content": text});
                self.send(json!({"type": "filesRead", "round": round, "files": [file]}));
                self.lied = true;
            }
        }
    }

    /// The host catches up: every change reported, every read answered.
    fn settle(&mut self) {
        loop {
            if !self.notifications.is_empty() {
                let changed = self.notifications.remove(0);
                self.send(json!({"type": "configFilesChanged", "paths": changed}));
            } else if !self.reads.is_empty() {
                self.answer(0);
            } else {
                break;
            }
        }
    }

    fn report(&self) -> &Value {
        self.reports.last().expect("a load finished")
    }

    /// The managed servers: name and launch fingerprint.
    fn managed(&self) -> Vec<(String, String)> {
        let snap: Value = serde_json::from_str(&self.engine.snapshot_json()).unwrap();
        let fingerprints: BTreeMap<&str, &str> = self.report()["servers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["name"].as_str().unwrap(),
                    s["fingerprint"].as_str().unwrap(),
                )
            })
            .collect();
        snap["servers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let name = s["name"].as_str().unwrap();
                (name.to_string(), fingerprints[name].to_string())
            })
            .collect()
    }
}

/// A fresh host loading `disk`, where the files `stale` name first hold their
/// last good version (what the history left the core with), then what they hold.
fn fresh(disk: &BTreeMap<String, Disk>, stale: &BTreeMap<String, String>) -> Host {
    let mut host = Host::new();
    host.disk = disk.clone();
    for (path, good) in stale {
        host.disk.insert(path.clone(), Disk::Content(good.clone()));
    }
    host.start();
    host.settle();
    if !stale.is_empty() {
        for path in stale.keys() {
            host.change(path, disk.get(path).cloned());
        }
        host.settle();
    }
    host
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_history_of_edits_and_reads_ends_where_a_fresh_load_of_the_same_files_does(
        initial in prop::collection::vec(action(), 0..6),
        history in prop::collection::vec(action(), 0..40),
    ) {
        let mut host = Host::new();
        for action in initial.into_iter().filter(|a| matches!(a, Action::Write(..) | Action::Remove(_) | Action::MakeUnreadable(_))) {
            host.act(action);
        }
        host.start();
        for action in history {
            host.act(action);
        }
        host.settle();
        if host.lied {
            // What a lying host told the core stands until the files are read again.
            host.act(Action::Resync);
            host.settle();
        }
        let report = host.report().clone();
        let stale: BTreeMap<String, String> = report["files"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["usingLastGood"] == true)
            .map(|f| {
                let path = f["path"].as_str().unwrap().to_string();
                let good = host.last_good.get(&path).cloned().expect("a last good version the history gave");
                (path, good)
            })
            .collect();
        let expected = fresh(&host.disk, &stale);
        prop_assert_eq!(&report, expected.report());
        prop_assert_eq!(host.managed(), expected.managed());
        // Every path the core asked to read is watched.
        for path in &host.asked {
            prop_assert!(host.watched.contains(path), "{} read but not watched: {:?}", path, host.watched);
        }
    }
}
