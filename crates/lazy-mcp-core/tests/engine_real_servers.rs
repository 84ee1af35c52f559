//! The engine against real MCP servers, with a minimal native stdio host (real
//! processes, real time). Ignored by default: it needs Node and the npm packages.
//!
//! ```sh
//! npm install --prefix /tmp/engine-peers @modelcontextprotocol/server-everything @modelcontextprotocol/server-memory
//! LAZY_MCP_PEERS=/tmp/engine-peers/node_modules cargo test -p lazy-mcp-core --test engine_real_servers -- --ignored
//! ```
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use lazy_mcp_core::config::model::{ServerConfig, Transport};
use lazy_mcp_core::engine::{ConnId, Effect, Endpoint, Engine, Event, ServerState, Settings};
use lazy_mcp_core::vec_map::VecMap;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::time::{Duration, Instant};

enum FromChild {
    Line(String),
    Exited(Option<i32>),
}

struct RealHost {
    engine: Engine,
    start: Instant,
    children: BTreeMap<ConnId, (Child, Option<ChildStdin>)>,
    pids: Vec<u32>,
    /// The host's one timer: the deadline of the last `wakeAt`, until it fires.
    wake_at: Option<u64>,
    tx: Sender<(ConnId, FromChild)>,
    rx: Receiver<(ConnId, FromChild)>,
    replies: Vec<(String, Value)>,
    notifications: Vec<(String, Value)>,
    persisted: Option<String>,
    opens: usize,
}

impl RealHost {
    fn new() -> RealHost {
        RealHost::with_settings(Settings::default())
    }

    fn with_settings(settings: Settings) -> RealHost {
        let (tx, rx) = channel();
        RealHost {
            engine: Engine::new(settings),
            start: Instant::now(),
            children: BTreeMap::new(),
            pids: Vec::new(),
            wake_at: None,
            tx,
            rx,
            replies: Vec::new(),
            notifications: Vec::new(),
            persisted: None,
            opens: 0,
        }
    }

    fn now(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// Manages `servers` as is (`Engine::apply_servers`), then runs until idle.
    fn apply(&mut self, servers: Vec<ServerConfig>) {
        let effects = self.engine.apply_servers(self.now(), servers);
        for effect in effects {
            if let Some(event) = self.perform(effect) {
                self.send(event);
            }
        }
    }

    fn send(&mut self, event: Event) {
        let mut queue = vec![event];
        while let Some(event) = queue.pop() {
            let effects = self.engine.handle(self.now(), event);
            for effect in effects {
                if let Some(event) = self.perform(effect) {
                    queue.push(event);
                }
            }
        }
    }

    fn perform(&mut self, effect: Effect) -> Option<Event> {
        match effect {
            Effect::Open {
                conn, transport, ..
            } => {
                self.opens += 1;
                let Transport::Stdio {
                    command, args, env, ..
                } = *transport
                else {
                    panic!("stdio only here");
                };
                let mut child = Command::new(command)
                    .args(args)
                    .envs(env)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap();
                let stdout = child.stdout.take().unwrap();
                let stdin = child.stdin.take();
                let tx = self.tx.clone();
                std::thread::spawn(move || {
                    for line in BufReader::new(stdout).lines() {
                        let Ok(line) = line else { break };
                        if tx.send((conn, FromChild::Line(line))).is_err() {
                            return;
                        }
                    }
                    let _ = tx.send((conn, FromChild::Exited(None)));
                });
                let pid = child.id();
                self.pids.push(pid);
                self.children.insert(conn, (child, stdin));
                Some(Event::ConnectionOpened {
                    conn,
                    pid: Some(pid),
                })
            }
            Effect::Send { conn, message, .. } => {
                if let Some((_, Some(stdin))) = self.children.get_mut(&conn) {
                    let _ = writeln!(stdin, "{message}");
                }
                None
            }
            Effect::Close { conn, .. } => {
                if let Some((mut child, stdin)) = self.children.remove(&conn) {
                    drop(stdin);
                    let deadline = Instant::now() + Duration::from_millis(2_000);
                    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
                        std::thread::sleep(Duration::from_millis(10));
                    }
                    let _ = child.kill();
                    let _ = child.wait();
                }
                None
            }
            Effect::WakeAt { at_ms } => {
                self.wake_at = Some(at_ms);
                None
            }
            Effect::Reply {
                client, message, ..
            } => {
                self.replies
                    .push((client, serde_json::from_str(&message).unwrap()));
                None
            }
            Effect::NotifyClient {
                client, message, ..
            } => {
                self.notifications
                    .push((client, serde_json::from_str(&message).unwrap()));
                None
            }
            Effect::Log {
                level,
                server,
                message,
            } => {
                eprintln!("[{level:?}] {}: {message}", server.unwrap_or_default());
                None
            }
            Effect::PersistCatalogue { blob } => {
                self.persisted = Some(blob);
                None
            }
            _ => None,
        }
    }

    /// Runs the host loop until `done` or 20 s.
    fn run_until(&mut self, done: impl Fn(&RealHost) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !done(self) {
            assert!(Instant::now() < deadline, "timed out waiting");
            let now = self.now();
            if self.wake_at.is_some_and(|at| at <= now) {
                self.wake_at = None;
                self.send(Event::Timeout);
            }
            if let Ok((conn, message)) = self.rx.recv_timeout(Duration::from_millis(10)) {
                if !self.children.contains_key(&conn) {
                    continue;
                }
                match message {
                    FromChild::Line(line) => self.send(Event::MessageReceived {
                        conn,
                        message: line,
                    }),
                    FromChild::Exited(code) => {
                        self.children.remove(&conn);
                        self.send(Event::ConnectionClosed {
                            conn,
                            reason: "the process exited".into(),
                            exit_code: code,
                            stderr_tail: None,
                        })
                    }
                }
            }
        }
    }

    fn client(&mut self, client: &str, endpoint: Endpoint, message: Value) {
        self.send(Event::ClientMessage {
            client: client.into(),
            endpoint,
            message: message.to_string(),
        });
    }

    fn reply(&self, client: &str, id: u64) -> Option<Value> {
        self.replies
            .iter()
            .find(|(c, m)| c == client && m["id"] == json!(id))
            .map(|(_, m)| m.clone())
    }
}

/// A real npm server as the shared test config, launched with node from `peers`.
fn peer(peers: &str, package: &str, args: &[&str]) -> ServerConfig {
    let name = package.trim_start_matches("server-");
    ServerConfig {
        transport: Transport::Stdio {
            command: "node".into(),
            args: std::iter::once(format!(
                "{peers}/@modelcontextprotocol/{package}/dist/index.js"
            ))
            .chain(args.iter().map(|a| a.to_string()))
            .collect(),
            env: VecMap::new(),
            cwd: None,
            env_file: None,
        },
        fingerprint: format!("real-{name}"),
        secret_values: Vec::new(),
        read_files: Vec::new(),
        ..engine_support::config(name)
    }
}

fn alive(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .unwrap_or_default()
            .contains(") Z ")
}

#[test]
#[ignore = "needs Node and LAZY_MCP_PEERS=<node_modules with server-everything and server-memory>"]
fn real_servers_catalogue_then_disconnect_connect_on_first_call_and_warm_start() {
    let peers = std::env::var("LAZY_MCP_PEERS").expect("set LAZY_MCP_PEERS");
    let servers = vec![
        peer(&peers, "server-everything", &["stdio"]),
        peer(&peers, "server-memory", &[]),
    ];
    let mut host = RealHost::new();
    host.apply(servers.clone());
    host.run_until(|h| {
        ["everything", "memory"]
            .iter()
            .all(|s| h.engine.state(s) == Some(&ServerState::Catalogued))
    });
    assert_eq!(host.opens, 2);
    assert!(
        host.pids.iter().all(|pid| !alive(*pid)),
        "no server process alive after cataloguing"
    );
    let snapshot = host.engine.snapshot();
    let everything = snapshot
        .servers
        .iter()
        .find(|s| s.name == "everything")
        .unwrap();
    assert!(everything.tools >= 13, "{} tools", everything.tools);
    assert!(everything.prompts >= 1 && everything.resources >= 1);

    for i in 0..5 {
        host.client(
            &format!("c{i}"),
            Endpoint::Server { name: "everything".into() },
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": format!("hi {i}")}}}),
        );
    }
    host.run_until(|h| (0..5).all(|i| h.reply(&format!("c{i}"), 1).is_some()));
    assert_eq!(host.opens, 3, "five concurrent first calls spawn once");
    let answer = host.reply("c3", 1).unwrap();
    assert!(
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("hi 3"),
        "{answer}"
    );
    assert_eq!(
        host.engine.state("everything"),
        Some(&ServerState::Connected)
    );
    assert_eq!(host.engine.state("memory"), Some(&ServerState::Catalogued));

    // Progress passes through; a sampling request with no capable client is refused
    // with a clear error instead of hanging the call.
    host.client(
        "c0",
        Endpoint::Server {
            name: "everything".into(),
        },
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "trigger-long-running-operation", "arguments": {"duration": 0.3, "steps": 3},
            "_meta": {"progressToken": "p1"}}}),
    );
    host.client(
        "c1",
        Endpoint::Server {
            name: "everything".into(),
        },
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "trigger-sampling-request", "arguments": {"prompt": "hello"}}}),
    );
    host.run_until(|h| h.reply("c0", 2).is_some() && h.reply("c1", 2).is_some());
    let progress = host
        .notifications
        .iter()
        .filter(|(c, m)| c == "c0" && m["method"] == "notifications/progress")
        .count();
    assert_eq!(progress, 3);
    let sampling = host.reply("c1", 2).unwrap().to_string();
    assert!(sampling.contains("sampling"), "{sampling}");
    assert_eq!(host.opens, 3);

    let blob = host.persisted.clone().unwrap();
    host.send(Event::Disable {
        server: "everything".into(),
    });
    assert!(host.pids.iter().all(|pid| !alive(*pid)));

    let mut warm = RealHost::new();
    warm.send(Event::CatalogueLoaded { blob });
    warm.apply(servers);
    assert_eq!(warm.opens, 0, "warm start spawns nothing");
    warm.client(
        "vscode",
        Endpoint::Server {
            name: "memory".into(),
        },
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    );
    let tools = warm.reply("vscode", 1).unwrap()["result"]["tools"]
        .as_array()
        .unwrap()
        .len();
    assert!(tools >= 9, "{tools} memory tools");
}

#[test]
#[ignore = "needs Node and LAZY_MCP_PEERS=<node_modules with server-filesystem>"]
fn real_filesystem_server_gets_the_workspace_roots() {
    let peers = std::env::var("LAZY_MCP_PEERS").expect("set LAZY_MCP_PEERS");
    let workspace = std::env::temp_dir().join("lazy-mcp-roots-test");
    let other = std::env::temp_dir().join("lazy-mcp-roots-other");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    let mut host = RealHost::with_settings(Settings {
        workspace_folders: vec![workspace.display().to_string()],
        ..Settings::default()
    });
    let filesystem = peer(&peers, "server-filesystem", &[other.to_str().unwrap()]);
    host.apply(vec![filesystem]);
    host.run_until(|h| h.engine.state("filesystem") == Some(&ServerState::Catalogued));
    host.client(
        "c",
        Endpoint::Server { name: "filesystem".into() },
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_allowed_directories", "arguments": {}}}),
    );
    host.run_until(|h| h.reply("c", 1).is_some());
    let text = host.reply("c", 1).unwrap()["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(text.contains("lazy-mcp-roots-test"), "{text}");
    assert!(
        !text.contains("lazy-mcp-roots-other"),
        "roots replace the command-line dirs: {text}"
    );
}
