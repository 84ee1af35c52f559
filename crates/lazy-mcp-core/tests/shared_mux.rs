//! The owner's multiplexer (core `shared/`): several client attachments over
//! one server process, as the clients see it — one spawn, their own ids back,
//! the server's requests at the right client, cancellation that touches only
//! the canceller. docs/shared-servers.md.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use lazy_mcp_core::config::{
    ConfigFormat, ConfigScope, ServerConfig, SourceRef, ToolFilter, Transport,
};
use lazy_mcp_core::engine::settings::Settings;
use lazy_mcp_core::shared::launch::{shared_launch, SharedLaunch, SharingClient};
use lazy_mcp_core::shared::mux::{Mux, MuxEffect, MuxEvent, HANDOVER_GRACE_MS};
use lazy_mcp_core::vec_map::VecMap;
use serde_json::{json, Value};

mod mux_support;
use mux_support::{attach_at, client, server, spawns, to_client, to_server};

fn launch(key: &str, roots: &str, roots_bound: bool) -> SharedLaunch {
    SharedLaunch {
        key: key.into(),
        roots_key: roots.into(),
        roots_bound,
        workspace_cwd: roots_bound,
        omit_env: Vec::new(),
        holder: format!("session {roots}"),
        idle_timeout_ms: 600_000,
        adaptive_idle: true,
        repeatable: Vec::new(),
    }
}

fn attach(mux: &mut Mux, attach: u64, launch: SharedLaunch) -> Vec<MuxEffect> {
    attach_at(mux, attach, "memory", launch, 0)
}

/// Two attachments of one key on a process that is up and initialized by the first.
fn two_clients() -> Mux {
    let mut mux = Mux::new();
    assert_eq!(
        spawns(&attach(&mut mux, 1, launch("k", "r1", false))),
        vec![1]
    );
    assert!(
        spawns(&attach(&mut mux, 2, launch("k", "r2", false))).is_empty(),
        "the same key reuses the process"
    );
    let opened = mux.handle(MuxEvent::ProcessOpened {
        process: 1,
        pid: Some(42),
    });
    assert_eq!(
        opened
            .iter()
            .filter(|e| matches!(e, MuxEffect::Opened { pid: Some(42), .. }))
            .count(),
        2
    );
    let up = to_server(&client(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}),
    ));
    assert_eq!(up.len(), 1);
    let waits = client(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}),
    );
    assert!(
        to_server(&waits).is_empty(),
        "a second initialize is not sent to the server"
    );
    let answered = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": up[0]["id"], "result": {"protocolVersion": "2025-06-18"}}),
    );
    assert_eq!(to_client(&answered, 1)[0]["id"], 0);
    assert_eq!(
        to_client(&answered, 2)[0]["result"]["protocolVersion"],
        "2025-06-18"
    );
    let first = client(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    let second = client(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    assert_eq!(
        to_server(&first).len() + to_server(&second).len(),
        1,
        "initialized goes once"
    );
    mux
}

#[test]
fn one_process_per_key_and_initialize_once() {
    let mut mux = two_clients();
    // A third client later: answered from the first result at once.
    assert!(spawns(&attach(&mut mux, 3, launch("k", "r3", false))).is_empty());
    let late = client(
        &mut mux,
        3,
        json!({"jsonrpc": "2.0", "id": 9, "method": "initialize", "params": {}}),
    );
    assert!(to_server(&late).is_empty());
    assert_eq!(to_client(&late, 3)[0]["id"], 9);
    assert_eq!(mux.status()[0].clients, 3);
}

#[test]
fn same_ids_from_two_clients_come_back_to_their_own_client() {
    let mut mux = two_clients();
    let a = to_server(&client(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "x"}}),
    ));
    let b = to_server(&client(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "y"}}),
    ));
    assert_ne!(a[0]["id"], b[0]["id"], "upstream ids are distinct");
    let back_b = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": b[0]["id"], "result": {"v": "y"}}),
    );
    assert!(to_client(&back_b, 1).is_empty());
    assert_eq!(
        to_client(&back_b, 2),
        vec![json!({"jsonrpc": "2.0", "id": 5, "result": {"v": "y"}})]
    );
    let back_a = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": a[0]["id"], "result": {"v": "x"}}),
    );
    assert_eq!(to_client(&back_a, 1)[0]["result"]["v"], "x");
}

#[test]
fn progress_tokens_are_rewritten_and_routed_back() {
    let mut mux = two_clients();
    let up = to_server(&client(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "x", "_meta": {"progressToken": 1}}}),
    ));
    let token = up[0]["params"]["_meta"]["progressToken"].clone();
    assert_ne!(token, json!(1));
    let progress = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": 1}}),
    );
    assert!(to_client(&progress, 1).is_empty());
    assert_eq!(to_client(&progress, 2)[0]["params"]["progressToken"], 1);
}

#[test]
fn server_requests_go_to_the_client_whose_call_is_in_flight() {
    let mut mux = two_clients();
    client(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}),
    );
    let ask = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 77, "method": "sampling/createMessage", "params": {}}),
    );
    assert!(to_client(&ask, 1).is_empty());
    assert_eq!(to_client(&ask, 2)[0]["method"], "sampling/createMessage");
    // Under an id of the mux's own; only the client asked may answer, and the
    // server gets its answer with its own id.
    let asked = to_client(&ask, 2)[0]["id"].clone();
    assert!(to_server(&client(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": asked, "result": {}})
    ))
    .is_empty());
    assert_eq!(
        to_server(&client(
            &mut mux,
            2,
            json!({"jsonrpc": "2.0", "id": asked, "result": {}})
        ))[0]["id"],
        77
    );
    // A request the server cancels: the client is told with the id it got.
    let ask = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 78, "method": "sampling/createMessage", "params": {}}),
    );
    let asked = to_client(&ask, 2)[0]["id"].clone();
    let cancelled = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 78}}),
    );
    assert_eq!(to_client(&cancelled, 2)[0]["params"]["requestId"], asked);
    assert!(to_server(&client(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": asked, "result": {}})
    ))
    .is_empty());
}

#[test]
fn notifications_reach_every_client() {
    let mut mux = two_clients();
    let changed = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
    );
    assert_eq!(to_client(&changed, 1).len(), 1);
    assert_eq!(to_client(&changed, 2).len(), 1);
}

#[test]
fn a_cancel_or_a_detach_touches_only_that_clients_calls() {
    let mut mux = two_clients();
    let a = to_server(&client(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}}),
    ));
    let b = to_server(&client(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}}),
    ));
    let cancel = to_server(&client(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
    ));
    assert_eq!(
        cancel[0]["params"]["requestId"], b[0]["id"],
        "client 2's own call, not client 1's"
    );
    // A cancel of an id the client does not have in flight goes nowhere.
    assert!(to_server(&client(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
    ))
    .is_empty());
    let second = to_server(&client(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {}}),
    ));
    let gone = mux.handle(MuxEvent::Detach {
        attach: 2,
        idle: false,
    });
    let cancelled = to_server(&gone);
    assert_eq!(cancelled.len(), 1);
    assert_eq!(cancelled[0]["params"]["requestId"], second[0]["id"]);
    assert!(
        !gone
            .iter()
            .any(|e| matches!(e, MuxEffect::StopProcess { .. })),
        "the server stays for client 1"
    );
    let answer = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": a[0]["id"], "result": {}}),
    );
    assert_eq!(to_client(&answer, 1)[0]["id"], 1);
    // The last detach stops the process once the handover grace is over
    // (before issue 26's grace: at once); a new attachment then starts a new one.
    last_detach_stops_after_the_grace(&mut mux, 1, 3);
}

/// An hour after the calls of these tests: their idle time is long over, only
/// the grace is left (the idle time itself: `shared_mux_idle.rs`).
const LATER: u64 = 3_600_000;

/// `client` was process 1's last attachment: its detach stops the process once
/// the handover grace is over, and `next`'s attach spawns process 2.
fn last_detach_stops_after_the_grace(mux: &mut Mux, client: u64, next: u64) {
    let last = mux.at(LATER).handle(MuxEvent::Detach {
        attach: client,
        idle: false,
    });
    assert!(last.contains(&MuxEffect::Linger {
        process: 1,
        ms: HANDOVER_GRACE_MS
    }));
    assert!(mux
        .at(LATER + HANDOVER_GRACE_MS)
        .handle(MuxEvent::LingerEnded { process: 1 })
        .contains(&MuxEffect::StopProcess { process: 1 }));
    assert_eq!(
        spawns(&attach(mux, next, launch("k", "r-next", false))),
        vec![2]
    );
}

#[test]
fn project_servers_are_shared_only_within_the_same_roots() {
    let mut mux = Mux::new();
    assert_eq!(
        spawns(&attach(&mut mux, 1, launch("fs", "A", true))),
        vec![1]
    );
    assert!(spawns(&attach(&mut mux, 2, launch("fs", "A", true))).is_empty());
    assert_eq!(
        spawns(&attach(&mut mux, 3, launch("fs", "B", true))),
        vec![2]
    );
}

#[test]
fn a_server_that_asks_for_roots_is_keyed_by_roots_from_then_on() {
    let mut mux = Mux::new();
    attach(&mut mux, 1, launch("u", "A", false));
    mux.handle(MuxEvent::ProcessOpened {
        process: 1,
        pid: None,
    });
    let ask = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}),
    );
    assert_eq!(to_client(&ask, 1).len(), 1);
    assert!(
        spawns(&attach(&mut mux, 2, launch("u", "A", false))).is_empty(),
        "same roots: reused"
    );
    assert_eq!(
        spawns(&attach(&mut mux, 3, launch("u", "B", false))),
        vec![2],
        "other roots: a process of their own"
    );
}

// A process shared across roots that asks for roots: `shared_mux_roots.rs`.

#[test]
fn a_roots_request_of_a_process_of_one_roots_is_answered_by_one_holder_and_told_to_all() {
    let mut mux = Mux::new();
    attach(&mut mux, 1, launch("u", "A", false));
    attach(&mut mux, 2, launch("u", "A", false));
    mux.handle(MuxEvent::ProcessOpened {
        process: 1,
        pid: None,
    });
    let ask = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 4, "method": "roots/list"}),
    );
    assert_eq!(to_client(&ask, 1).len(), 1);
    assert_eq!(to_client(&ask, 2).len(), 1);
    let asked = to_client(&ask, 1)[0]["id"].clone();
    let roots =
        |id| json!({"jsonrpc": "2.0", "id": id, "result": {"roots": [{"uri": "file:///A"}]}});
    let from_first = client(&mut mux, 1, roots(asked.clone()));
    assert_eq!(to_server(&from_first), vec![roots(json!(4))]);
    assert!(
        to_server(&client(&mut mux, 2, roots(asked))).is_empty(),
        "one answer per request"
    );
}

#[test]
fn the_process_ending_closes_every_attachment_and_the_next_attach_starts_anew() {
    let mut mux = two_clients();
    let closed = mux.handle(MuxEvent::ProcessClosed {
        process: 1,
        reason: "server process exited with code 1".into(),
        exit_code: Some(1),
        stderr_tail: "boom".into(),
    });
    let closes = closed
        .iter()
        .filter(|e| {
            matches!(
                e,
                MuxEffect::CloseClient {
                    exit_code: Some(1),
                    ..
                }
            )
        })
        .count();
    assert_eq!(closes, 2);
    assert!(mux.is_idle());
    assert_eq!(
        spawns(&attach(&mut mux, 5, launch("k", "r1", false))),
        vec![2]
    );
}

#[test]
fn events_as_json_round_trip() {
    let mut mux = Mux::new();
    let effects = mux.handle_json(
        &json!({"type": "attach", "attach": 1, "server": "m",
        "launch": {"key": "k", "rootsKey": "r", "rootsBound": false, "workspaceCwd": false},
        "transport": {"type": "stdio", "command": "node"}})
        .to_string(),
    );
    let effects: Value = serde_json::from_str(&effects).unwrap();
    assert_eq!(effects[0]["type"], "spawn");
    assert_eq!(mux.handle_json("not json"), "[]");
}

fn config(scope: ConfigScope, env: &[(&str, &str)], transport_url: Option<&str>) -> ServerConfig {
    let transport = match transport_url {
        Some(url) => Transport::Http {
            url: url.into(),
            headers: VecMap::new(),
        },
        None => Transport::Stdio {
            command: "node".into(),
            args: vec!["server.js".into()],
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            cwd: None,
            env_file: None,
        },
    };
    ServerConfig {
        name: "s".into(),
        transport,
        enabled: true,
        auto_connect: true,
        tools: ToolFilter::All,
        timeout_ms: None,
        tool_exposure: None,
        oauth: None,
        source: SourceRef {
            format: ConfigFormat::ClaudeCode,
            scope,
            file: "/p/.mcp.json".into(),
            line: 1,
            column: 1,
            workspace_folder: None,
        },
        loaded_by_vscode: false,
        fingerprint: String::new(),
        secret_values: Vec::new(),
        read_files: Vec::new(),
    }
}

/// A client whose catalogue says the server never asked for roots.
fn roots_free() -> SharingClient<'static> {
    SharingClient {
        roots_free: true,
        ..SharingClient::default()
    }
}

fn settings(folder: &str) -> Settings {
    Settings {
        share_servers: true,
        workspace_folders: vec![folder.into()],
        ..Settings::default()
    }
}

#[test]
fn the_sharing_key_follows_the_launch_and_for_project_servers_the_workspace() {
    let user = config(ConfigScope::User, &[("TOKEN", "s3cret-value")], None);
    let in_a = shared_launch(&user, &settings("/a"), roots_free()).unwrap();
    let in_b = shared_launch(&user, &settings("/b"), roots_free()).unwrap();
    assert_eq!(
        in_a.key, in_b.key,
        "a user-level server is the same launch in every project"
    );
    assert_ne!(in_a.roots_key, in_b.roots_key);
    assert!(!in_a.roots_bound && !in_a.workspace_cwd);
    let unknown = shared_launch(&user, &settings("/a"), SharingClient::default()).unwrap();
    assert!(
        unknown.roots_bound && !unknown.workspace_cwd,
        "not known never to ask for roots: keyed by the roots too"
    );
    assert_eq!(unknown.key, in_a.key, "the same launch");
    assert!(!in_a.key.contains("s3cret"));
    let other_secret = shared_launch(
        &config(ConfigScope::User, &[("TOKEN", "other")], None),
        &settings("/a"),
        SharingClient::default(),
    )
    .unwrap();
    assert_ne!(
        other_secret.key, in_a.key,
        "another secret value is another process"
    );
    let project = config(ConfigScope::Project, &[], None);
    let pa = shared_launch(&project, &settings("/a"), SharingClient::default()).unwrap();
    let pb = shared_launch(&project, &settings("/b"), SharingClient::default()).unwrap();
    assert!(pa.roots_bound && pa.workspace_cwd);
    assert_ne!(
        pa.key, pb.key,
        "a project server runs in its own project's folder"
    );
    assert!(shared_launch(
        &config(ConfigScope::User, &[], Some("https://x")),
        &settings("/a"),
        SharingClient::default()
    )
    .is_none());
    assert!(shared_launch(
        &user,
        &Settings {
            share_servers: false,
            ..settings("/a")
        },
        SharingClient::default()
    )
    .is_none());
    let prompted = config(ConfigScope::User, &[("KEY", "${input:key}")], None);
    assert!(
        shared_launch(&prompted, &settings("/a"), SharingClient::default()).is_none(),
        "a value each window resolves itself is never shared"
    );
}

#[test]
fn a_relative_cwd_makes_even_a_user_level_server_depend_on_the_workspace() {
    let mut user = config(ConfigScope::User, &[], None);
    if let Transport::Stdio { cwd, .. } = &mut user.transport {
        *cwd = Some("tools".into());
    }
    let a = shared_launch(&user, &settings("/a"), roots_free()).unwrap();
    let b = shared_launch(&user, &settings("/b"), roots_free()).unwrap();
    assert!(a.workspace_cwd && !a.roots_bound);
    assert_ne!(a.key, b.key);
    if let Transport::Stdio { cwd, .. } = &mut user.transport {
        *cwd = Some("/opt/tools".into());
    }
    let a = shared_launch(&user, &settings("/a"), SharingClient::default()).unwrap();
    let b = shared_launch(&user, &settings("/b"), SharingClient::default()).unwrap();
    assert!(!a.workspace_cwd);
    assert_eq!(a.key, b.key, "an absolute cwd is the same everywhere");
}

#[test]
fn a_failed_initialize_is_answered_to_every_waiter_and_the_next_one_tries_again() {
    let mut mux = Mux::new();
    attach(&mut mux, 1, launch("k", "r", false));
    attach(&mut mux, 2, launch("k", "r", false));
    mux.handle(MuxEvent::ProcessOpened {
        process: 1,
        pid: None,
    });
    let up = to_server(&client(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}),
    ));
    client(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {}}),
    );
    let failed = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": up[0]["id"], "error": {"code": -32602, "message": "unsupported"}}),
    );
    assert_eq!(to_client(&failed, 1)[0]["error"]["code"], -32602);
    assert_eq!(to_client(&failed, 2)[0]["id"], 7);
    let retry = client(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": 8, "method": "initialize", "params": {}}),
    );
    assert_eq!(
        to_server(&retry).len(),
        1,
        "forwarded again, not answered from a failure"
    );
}

#[test]
fn a_server_request_with_no_client_left_is_answered_with_an_error() {
    let mut mux = one_client_process_up();
    let stop = mux.handle(MuxEvent::Detach {
        attach: 1,
        idle: false,
    });
    assert!(stop.contains(&MuxEffect::StopProcess { process: 1 }));
    let ask = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 3, "method": "roots/list"}),
    );
    assert_eq!(to_server(&ask)[0]["error"]["code"], -32603);
}

/// A client's environment from name/value pairs.
fn env(pairs: &[(&str, &str)]) -> VecMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn the_clients_environment_is_part_of_the_key_but_for_its_volatile_variables() {
    let user = config(ConfigScope::User, &[], None);
    let one = env(&[
        ("HOME", "/h"),
        ("GITHUB_TOKEN", "one"),
        ("PWD", "/a"),
        ("LAZY_MCP_SERVE_PID", "1"),
    ]);
    let same = env(&[
        ("HOME", "/h"),
        ("GITHUB_TOKEN", "one"),
        ("PWD", "/b"),
        ("LAZY_MCP_SERVE_PID", "2"),
    ]);
    let other = env(&[
        ("HOME", "/h"),
        ("GITHUB_TOKEN", "two"),
        ("PWD", "/a"),
        ("LAZY_MCP_SERVE_PID", "1"),
    ]);
    fn with_env(e: &VecMap<String, String>) -> SharingClient<'_> {
        SharingClient {
            env: Some(e),
            untrusted: false,
            roots_free: true,
        }
    }
    let key = |e: &VecMap<String, String>| {
        shared_launch(&user, &settings("/a"), with_env(e))
            .unwrap()
            .key
    };
    assert_eq!(
        key(&one),
        key(&same),
        "another directory or serve pid is the same server"
    );
    assert_ne!(
        key(&one),
        key(&other),
        "another token in the environment is another process"
    );
    assert!(!key(&one).contains("one"));

    // Two VS Code windows: each extension host has its own IPC socket and NLS
    // config. Same server, one process, and neither window's values reach it.
    let window_a = env(&[
        ("HOME", "/h"),
        ("VSCODE_IPC_HOOK_CLI", "/run/a.sock"),
        ("VSCODE_NLS_CONFIG", "{}"),
    ]);
    let window_b = env(&[("HOME", "/h"), ("VSCODE_IPC_HOOK_CLI", "/run/b.sock")]);
    assert_eq!(
        key(&window_a),
        key(&window_b),
        "per-window VS Code variables do not split the process"
    );
    let in_a = shared_launch(&user, &settings("/a"), with_env(&window_a)).unwrap();
    assert_eq!(in_a.omit_env, ["VSCODE_IPC_HOOK_CLI", "VSCODE_NLS_CONFIG"]);
}

#[test]
fn a_vs_code_window_and_a_cli_session_in_its_terminal_share_a_process() {
    let user = config(ConfigScope::User, &[], None);
    let base = [("HOME", "/h"), ("PATH", "/usr/bin"), ("LANG", "C.UTF-8")];
    // The extension host: the user's environment plus the application's own.
    let extension_host = env(&[
        base[0],
        base[1],
        base[2],
        ("ELECTRON_RUN_AS_NODE", "1"),
        ("VSCODE_IPC_HOOK_CLI", "/run/a.sock"),
        ("APPLICATION_INSIGHTS_NO_DIAGNOSTIC_CHANNEL", "1"),
    ]);
    // `lazy-mcp serve` started by an agent in VS Code's integrated terminal.
    let terminal = env(&[
        base[0],
        base[1],
        base[2],
        ("TERM", "xterm-256color"),
        ("TERM_PROGRAM", "vscode"),
        ("TERM_PROGRAM_VERSION", "1.139.1"),
        ("COLORTERM", "truecolor"),
        ("GIT_ASKPASS", "/vscode/askpass.sh"),
        ("VSCODE_GIT_IPC_HANDLE", "/run/git.sock"),
    ]);
    let window = Settings {
        client_name: "lazy-mcp (VS Code)".into(),
        ..settings("/a")
    };
    let cli = Settings {
        client_name: "lazy-mcp".into(),
        ..settings("/b")
    };
    let shared = |s: &Settings, e: &VecMap<String, String>| {
        shared_launch(
            &user,
            s,
            SharingClient {
                env: Some(e),
                untrusted: false,
                roots_free: true,
            },
        )
        .unwrap()
    };
    let in_window = shared(&window, &extension_host);
    let in_terminal = shared(&cli, &terminal);
    assert_eq!(
        in_window.key, in_terminal.key,
        "the same user-level server for a window and a terminal session"
    );
    assert_eq!(
        in_window.omit_env,
        [
            "APPLICATION_INSIGHTS_NO_DIAGNOSTIC_CHANNEL",
            "ELECTRON_RUN_AS_NODE",
            "VSCODE_IPC_HOOK_CLI"
        ],
        "the application's variables never reach a shared server"
    );
    assert_eq!(
        in_terminal.omit_env,
        [
            "COLORTERM",
            "GIT_ASKPASS",
            "TERM_PROGRAM",
            "TERM_PROGRAM_VERSION",
            "VSCODE_GIT_IPC_HANDLE"
        ]
    );
    let other_version = Settings {
        client_version: "0.0.1".into(),
        ..settings("/b")
    };
    assert_ne!(
        shared(&other_version, &terminal).key,
        in_window.key,
        "another Lazy MCP version runs its own process"
    );
}

#[test]
fn agent_sessions_in_two_tabs_of_any_terminal_share_a_process() {
    let user = config(ConfigScope::User, &[], None);
    let key = |e: &VecMap<String, String>| {
        shared_launch(
            &user,
            &settings("/a"),
            SharingClient {
                env: Some(e),
                untrusted: false,
                roots_free: true,
            },
        )
        .unwrap()
    };
    let base = [("HOME", "/h"), ("PATH", "/usr/bin"), ("API_TOKEN", "t1")];
    // What each terminal sets per tab, pane or login (two tabs: two values).
    let per_tab: &[&[(&str, &str)]] = &[
        &[
            ("TERM_SESSION_ID", "w0t0p0:1"),
            ("__CFBundleIdentifier", "com.apple.Terminal"),
            ("XPC_SERVICE_NAME", "0"),
        ],
        &[
            ("ITERM_SESSION_ID", "w0t1p0:2"),
            ("LC_TERMINAL", "iTerm2"),
            ("ITERM_PROFILE", "Default"),
        ],
        &[
            ("KITTY_WINDOW_ID", "3"),
            ("KITTY_PID", "4242"),
            ("KITTY_PUBLIC_KEY", "1:abc"),
        ],
        &[("WEZTERM_PANE", "5"), ("WEZTERM_UNIX_SOCKET", "/run/wez-1")],
        &[("WT_SESSION", "6f1c"), ("WT_PROFILE_ID", "{61c5}")],
        &[
            ("SSH_CLIENT", "10.0.0.2 51122 22"),
            ("SSH_CONNECTION", "10.0.0.2 51122 10.0.0.1 22"),
        ],
        &[
            ("GNOME_TERMINAL_SCREEN", "/org/gnome/Terminal/screen/1"),
            ("VTE_VERSION", "7600"),
        ],
        &[
            ("ZELLIJ", "0"),
            ("ZELLIJ_PANE_ID", "7"),
            ("ZELLIJ_SESSION_NAME", "work"),
        ],
        &[("CLAUDE_CODE_SSE_PORT", "43121")],
    ];
    for tab in per_tab {
        let first = env(&[base.as_slice(), tab].concat());
        let second_values: Vec<(&str, String)> = tab
            .iter()
            .map(|(k, v)| (*k, format!("{v}-other")))
            .collect();
        let second_pairs: Vec<(&str, &str)> = second_values
            .iter()
            .map(|(k, v)| (*k, v.as_str()))
            .collect();
        let second = env(&[base.as_slice(), &second_pairs].concat());
        let (a, b) = (key(&first), key(&second));
        assert_eq!(a.key, b.key, "two tabs sharing: {tab:?}");
        let mut names: Vec<&str> = tab.iter().map(|(k, _)| *k).collect();
        names.sort_unstable();
        assert_eq!(
            a.omit_env, names,
            "a tab's own variables never reach a shared server"
        );
    }
    // The user's own variables still count: another token in one tab is another process.
    let other_token = env(&[("HOME", "/h"), ("PATH", "/usr/bin"), ("API_TOKEN", "t2")]);
    assert_ne!(key(&env(&base)).key, key(&other_token).key);
    // Names close to a terminal's but the user's own are kept in the key.
    let own = env(&[
        base.as_slice(),
        &[("KITTY_TOKEN", "k1"), ("WT_API_KEY", "w1")],
    ]
    .concat());
    let own_other = env(&[
        base.as_slice(),
        &[("KITTY_TOKEN", "k2"), ("WT_API_KEY", "w1")],
    ]
    .concat());
    assert_ne!(key(&own).key, key(&own_other).key);
    assert!(key(&own).omit_env.is_empty());
}

#[test]
fn an_untrusted_window_shares_nothing() {
    let user = config(ConfigScope::User, &[], None);
    let untrusted = SharingClient {
        env: None,
        untrusted: true,
        roots_free: true,
    };
    assert!(
        shared_launch(&user, &settings("/a"), untrusted).is_none(),
        "a Restricted Mode window runs its user-level servers itself"
    );
}

fn sharing(effects: &[MuxEffect]) -> Vec<(u64, usize)> {
    effects
        .iter()
        .filter_map(|e| match e {
            MuxEffect::Sharing {
                attach, clients, ..
            } => Some((*attach, *clients)),
            _ => None,
        })
        .collect()
}

#[test]
fn every_attachment_hears_how_many_clients_share_its_process() {
    let mut mux = Mux::new();
    assert_eq!(
        sharing(&attach(&mut mux, 1, launch("k", "r", false))),
        [],
        "nothing before the process is up"
    );
    let opened = mux.handle(MuxEvent::ProcessOpened {
        process: 1,
        pid: Some(77),
    });
    assert_eq!(sharing(&opened), [(1, 1)]);
    assert_eq!(
        sharing(&attach(&mut mux, 2, launch("k", "r2", false))),
        [(1, 2), (2, 2)]
    );
    assert_eq!(
        sharing(&attach(&mut mux, 3, launch("other", "r", false))),
        [],
        "another key is another process"
    );
    assert_eq!(
        sharing(&mux.handle(MuxEvent::Detach {
            attach: 1,
            idle: false
        })),
        [(2, 1)]
    );
}

#[test]
fn every_holder_is_named_oldest_first_and_the_status_lists_them() {
    let mut mux = Mux::new();
    attach(&mut mux, 1, launch("k", "alpha", false));
    mux.handle(MuxEvent::ProcessOpened {
        process: 1,
        pid: Some(77),
    });
    let effects = attach(&mut mux, 2, launch("k", "beta", false));
    let holders: Vec<_> = effects
        .iter()
        .filter_map(|e| match e {
            MuxEffect::Sharing {
                attach: 2, holders, ..
            } => Some(holders.iter().map(|h| h.label.clone()).collect::<Vec<_>>()),
            _ => None,
        })
        .collect();
    assert_eq!(holders, [["session alpha", "session beta"]]);
    assert_eq!(mux.status()[0].holders.len(), 2);
    let after = mux.handle(MuxEvent::Detach {
        attach: 1,
        idle: false,
    });
    assert!(after.iter().any(|e| matches!(e,
        MuxEffect::Sharing { attach: 2, holders, .. } if holders.len() == 1 && holders[0].label == "session beta")));
}

#[test]
fn a_holder_is_named_by_session_and_folder_name_never_a_path() {
    let user = config(ConfigScope::User, &[], None);
    let mut s = settings("/home/u/projects/alpha/");
    s.session_label = "VS Code window".into();
    let launch = shared_launch(&user, &s, SharingClient::default()).unwrap();
    assert_eq!(launch.holder, "VS Code window · alpha");
    s.workspace_folders = Vec::new();
    s.session_label = "lazy-mcp serve --stdio (pid 42)\n".into();
    let launch = shared_launch(&user, &s, SharingClient::default()).unwrap();
    assert_eq!(launch.holder, "lazy-mcp serve --stdio (pid 42) · no folder");
}

#[test]
fn a_client_attaching_within_the_grace_reuses_the_process_instead_of_a_second_spawn() {
    let mut mux = two_clients();
    let last = used_then_left(&mut mux);
    assert!(!last
        .iter()
        .any(|e| matches!(e, MuxEffect::StopProcess { .. })));
    // A client a moment later (another's idle stop, then a call): the same process.
    let again = attach(&mut mux, 3, launch("k", "r3", false));
    assert!(spawns(&again).is_empty(), "no second process");
    assert!(again.contains(&MuxEffect::Opened {
        attach: 3,
        pid: Some(42)
    }));
    let init = client(
        &mut mux,
        3,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}),
    );
    assert!(
        to_server(&init).is_empty(),
        "answered from the first initialize"
    );
    assert_eq!(to_client(&init, 3)[0]["id"], 0);
    assert!(
        mux.handle(MuxEvent::LingerEnded { process: 1 }).is_empty(),
        "the grace's end changes nothing for a held process"
    );
    assert!(!mux.is_idle());
    // Held by nobody past the grace: stopped, and the next client spawns anew.
    last_detach_stops_after_the_grace(&mut mux, 3, 4);
}

#[test]
fn a_process_only_catalogued_stops_at_once_when_its_client_leaves() {
    let mut mux = two_clients();
    client(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {}}),
    );
    mux.handle(MuxEvent::Detach {
        attach: 1,
        idle: false,
    });
    assert!(mux
        .handle(MuxEvent::Detach {
            attach: 2,
            idle: false
        })
        .contains(&MuxEffect::StopProcess { process: 1 }));
}

#[test]
fn a_line_the_mux_cannot_read_reaches_every_holder_as_the_server_wrote_it() {
    let mut mux = Mux::new();
    attach(&mut mux, 1, launch("k", "r", false));
    attach(&mut mux, 2, launch("k", "r", false));
    mux.handle(MuxEvent::ProcessOpened {
        process: 1,
        pid: None,
    });
    // (A line that is not JSON at all never gets here: the owner's stdio
    // connection logs it, throttled, and drops it.)
    let garbage = r#"{"jsonrpc":"2.0","oops"}"#;
    let heard = mux.handle(MuxEvent::ServerMessage {
        process: 1,
        message: garbage.into(),
    });
    for who in [1, 2] {
        assert!(
            heard.contains(&MuxEffect::ToClient {
                attach: who,
                message: garbage.into()
            }),
            "holder {who} hears what its server wrote: {heard:?}"
        );
    }
}

#[test]
fn a_reply_nested_deeper_than_a_full_reading_still_reaches_its_caller_under_its_own_id() {
    let mut mux = one_client_process_up();
    let sent = client(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": {"name": "deep"}}),
    );
    let upstream = to_server(&sent)[0]["id"].clone();
    let deep = |id: &dyn std::fmt::Display| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{}{}}}"#,
            "[".repeat(1000),
            "]".repeat(1000)
        )
    };
    let answered = mux.handle(MuxEvent::ServerMessage {
        process: 1,
        message: deep(&upstream),
    });
    // Its engine reads it as it reads its own server's (and fails the call,
    // "sent a reply Lazy MCP cannot read"): the caller is never left waiting.
    assert_eq!(
        answered,
        [MuxEffect::ToClient {
            attach: 1,
            message: deep(&41)
        }]
    );
}

fn raw_client(mux: &mut Mux, attach: u64, text: &str) -> Vec<MuxEffect> {
    mux.handle(MuxEvent::ClientMessage {
        attach,
        message: text.into(),
    })
}

fn raw_server(mux: &mut Mux, process: u64, text: &str) -> Vec<MuxEffect> {
    mux.handle(MuxEvent::ServerMessage {
        process,
        message: text.into(),
    })
}

fn texts(effects: &[MuxEffect]) -> Vec<String> {
    effects
        .iter()
        .filter_map(|e| match e {
            MuxEffect::ToServer { message, .. } | MuxEffect::ToClient { message, .. } => {
                Some(message.clone())
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_call_its_progress_and_its_answer_keep_every_byte_but_the_id_and_the_token() {
    // The hot path (shared/splice.rs): the owner passes a message on as it came,
    // with only the id (and the progress token) rewritten, so a big result is
    // never parsed into a tree nor its numbers and escapes re-written.
    let mut mux = two_clients();
    let call = r#"{"params":{"_meta":{"progressToken":"tok"}, "arguments":{"n":1.50,"s":"\u00e9\n"},"name":"x"} ,"id":"c-7","jsonrpc":"2.0","method":"tools/call"}"#;
    let up = texts(&raw_client(&mut mux, 2, call));
    let upstream: Value = serde_json::from_str(&up[0]).unwrap();
    let (id, token) = (
        upstream["id"].clone(),
        upstream["params"]["_meta"]["progressToken"].clone(),
    );
    assert_eq!(
        up,
        [call
            .replace(r#""tok""#, &token.to_string())
            .replace(r#""c-7""#, &id.to_string())]
    );
    let progress = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progress":0.50,"progressToken":{token}}}}}"#
    );
    assert_eq!(
        texts(&raw_server(&mut mux, 1, &progress)),
        [progress.replace(&token.to_string(), r#""tok""#)]
    );
    let answer = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"1e2 \u00e9"}}],"n":1.50}}}}"#
    );
    let back = raw_server(&mut mux, 1, &answer);
    assert!(to_client(&back, 1).is_empty());
    assert_eq!(
        texts(&back),
        [answer.replace(&format!(r#""id":{id}"#), r#""id":"c-7""#)]
    );
    // A notification for everyone goes out as it came.
    let changed = r#"{"method":"notifications/resources/list_changed" ,"jsonrpc":"2.0"}"#;
    assert_eq!(texts(&raw_server(&mut mux, 1, changed)), [changed, changed]);
}

#[test]
fn unusual_messages_are_still_routed_by_the_full_reading() {
    let mut mux = two_clients();
    // A duplicate key (the last one counts), an escaped key, a null id: not the
    // hot path's, routed by the full reading exactly as before.
    let dup = to_server(&raw_client(
        &mut mux,
        1,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"a","name":"b"}}"#,
    ));
    assert_eq!(dup[0]["params"]["name"], "b");
    let escaped = to_server(&raw_client(
        &mut mux,
        2,
        r#"{"jsonrpc":"2.0","i\u0064":4,"method":"tools/call","params":{"_meta":{"progress\u0054oken":9}}}"#,
    ));
    assert_ne!(escaped[0]["id"], dup[0]["id"]);
    assert_ne!(escaped[0]["params"]["_meta"]["progressToken"], 9);
    let null_id = to_server(&raw_client(
        &mut mux,
        2,
        r#"{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{}}"#,
    ));
    assert!(null_id[0]["id"].is_u64(), "a request, rewritten as before");
    let back = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": escaped[0]["id"], "result": {}}),
    );
    assert_eq!(to_client(&back, 2)[0]["id"], 4);
    let back = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": null_id[0]["id"], "result": {}}),
    );
    assert_eq!(to_client(&back, 2)[0]["id"], Value::Null);
    // Not JSON, or not an object: dropped, as before.
    assert!(raw_client(&mut mux, 1, "{\"id\":1,").is_empty());
    assert!(raw_server(&mut mux, 1, "[1]").is_empty());
}

#[test]
fn the_owner_may_set_another_handover_grace() {
    // `daemon run --grace-ms`: a benchmark that compresses time scales the grace too.
    let mut mux = two_clients();
    mux.set_handover_grace_ms(17);
    let last = used_then_left(&mut mux);
    assert!(
        last.contains(&MuxEffect::Linger { process: 1, ms: 17 }),
        "{last:?}"
    );
}

/// Client 2 makes a call and gets its answer; then both clients detach: the
/// last detach's effects.
fn used_then_left(mux: &mut Mux) -> Vec<MuxEffect> {
    client(
        mux,
        2,
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {}}),
    );
    server(mux, 1, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    mux.at(LATER).handle(MuxEvent::Detach {
        attach: 1,
        idle: false,
    });
    mux.handle(MuxEvent::Detach {
        attach: 2,
        idle: false,
    })
}

/// One client attached (key `k`, roots `r`) and its process up (no pid).
fn one_client_process_up() -> Mux {
    let mut mux = Mux::new();
    attach(&mut mux, 1, launch("k", "r", false));
    mux.handle(MuxEvent::ProcessOpened {
        process: 1,
        pid: None,
    });
    mux
}

#[test]
fn a_malformed_reply_to_a_call_ends_that_call_with_an_error_instead_of_a_hang() {
    let mut mux = one_client_process_up();
    let sent = client(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": {"name": "x"}}),
    );
    let upstream = to_server(&sent)[0]["id"].clone();
    let answered = mux.handle(MuxEvent::ServerMessage {
        process: 1,
        message: format!(r#"{{"jsonrpc":"2.0","id":{upstream},"result":{{"content":}}}}"#),
    });
    let replies = to_client(&answered, 1);
    assert_eq!(replies.len(), 1, "{answered:?}");
    assert_eq!(replies[0]["id"], 41, "the client's own id");
    assert!(
        replies[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("sent a reply Lazy MCP cannot read"),
        "{}",
        replies[0]
    );
}
