//! `{"type": ...}` JSON read without serde's internally tagged enums
//! (`lazy_mcp_core::tagged_json`): the shared-server owner's events read as
//! they did with `#[serde(tag = "type")]`, unknown fields ignored, a bad tag
//! an error.
#![allow(clippy::panic)]

use lazy_mcp_core::shared::launch::SharedLaunch;
use lazy_mcp_core::shared::mux::MuxEvent;
use lazy_mcp_core::tagged_json::from_tagged_json;
use serde_json::json;

fn read(value: serde_json::Value) -> MuxEvent {
    from_tagged_json(&value.to_string()).unwrap_or_else(|e| panic!("{value}: {e}"))
}

#[test]
fn every_owner_event_reads_from_its_tagged_json() {
    let launch = SharedLaunch {
        key: "k".into(),
        roots_key: "r".into(),
        roots_bound: true,
        // Only the client reads these two: the owner skips them.
        workspace_cwd: false,
        omit_env: Vec::new(),
        holder: "VS Code window · alpha".into(),
        // This client's idle ceiling for the server, for the owner.
        idle_timeout_ms: 120_000,
        adaptive_idle: true,
        // Its tools safe to send again should its workspace move mid-call.
        repeatable: vec!["read_graph".into()],
    };
    assert_eq!(
        read(json!({"type": "attach", "attach": 3, "server": "memory",
            "launch": {"key": "k", "rootsKey": "r", "rootsBound": true, "workspaceCwd": true,
                       "omitEnv": ["VSCODE_IPC_HOOK"], "holder": "VS Code window · alpha",
                       "idleTimeoutMs": 120000, "adaptiveIdle": true,
                       "repeatable": ["read_graph"]},
            "transport": {"type": "stdio"}, "cwd": "/w", "env": {"A": "1"}, "nowMs": 5,
            "unknown": [1, 2]})),
        MuxEvent::Attach {
            attach: 3,
            server: "memory".into(),
            launch: Box::new(launch),
            transport: json!({"type": "stdio"}),
            cwd: Some("/w".into()),
            env: json!({"A": "1"}),
            now_ms: 5,
        }
    );
    assert_eq!(
        read(json!({"type": "detach", "attach": 2})),
        MuxEvent::Detach {
            attach: 2,
            idle: false
        }
    );
    assert_eq!(
        read(json!({"type": "lingerEnded", "process": 4})),
        MuxEvent::LingerEnded { process: 4 }
    );
    assert_eq!(
        read(json!({"type": "processOpened", "process": 4})),
        MuxEvent::ProcessOpened {
            process: 4,
            pid: None
        }
    );
    assert_eq!(
        read(json!({"type": "processClosed", "process": 4, "reason": "exit", "exitCode": 1})),
        MuxEvent::ProcessClosed {
            process: 4,
            reason: "exit".into(),
            exit_code: Some(1),
            stderr_tail: String::new(),
        }
    );
}

#[test]
fn a_missing_or_unknown_type_or_a_missing_field_is_an_error() {
    for text in [
        r#"{"attach": 1}"#,
        r#"{"type": "nope", "attach": 1}"#,
        r#"{"type": "detach"}"#,
        r#"{"type": "detach", "attach": 1} trailing"#,
        // Only the object form (serde's tagged enums also took `["detach", 1]`).
        r#"["detach", 1]"#,
        "not json",
        // Messages cross as bytes (`Mux::client_message`/`server_message`), never inside an event's JSON.
        r#"{"attach": 1, "message": "{}", "type": "clientMessage"}"#,
        r#"{"type": "serverMessage", "process": 4, "message": "x"}"#,
    ] {
        assert!(from_tagged_json::<MuxEvent>(text).is_err(), "{text}");
    }
}

/// An attach's launch, read by hand (`shared/launch_json.rs`) as the derive
/// read it: `key`, `rootsKey`, `rootsBound` required, the rest defaulted, the
/// client's own members and unknown ones skipped, a wrong type refused.
#[test]
fn an_attachs_launch_reads_as_the_derived_reader_did() {
    let attach = |launch: serde_json::Value| {
        from_tagged_json::<MuxEvent>(
            &json!({"type": "attach", "attach": 1, "server": "s", "launch": launch, "transport": {}})
                .to_string(),
        )
    };
    let Ok(MuxEvent::Attach { launch, .. }) = attach(
        json!({"key": "k", "rootsKey": "r", "rootsBound": false, "workspaceCwd": true, "omitEnv": ["X"], "other": {}}),
    ) else {
        panic!("the least launch reads");
    };
    assert_eq!(
        *launch,
        SharedLaunch {
            key: "k".into(),
            roots_key: "r".into(),
            roots_bound: false,
            workspace_cwd: false,
            omit_env: Vec::new(),
            holder: String::new(),
            idle_timeout_ms: 0,
            adaptive_idle: false,
            repeatable: Vec::new(),
        }
    );
    for wrong in [
        json!({"rootsKey": "r", "rootsBound": false}),
        json!({"key": "k", "rootsBound": false}),
        json!({"key": "k", "rootsKey": "r"}),
        json!({"key": "k", "rootsKey": "r", "rootsBound": false, "repeatable": "echo"}),
        json!({"key": 1, "rootsKey": "r", "rootsBound": false}),
        json!(["k", "r", false]),
    ] {
        assert!(attach(wrong.clone()).is_err(), "{wrong}");
    }
}

#[test]
fn transports_endpoints_and_tool_filters_read_back_what_they_write() {
    use lazy_mcp_core::config::model::{ToolFilter, Transport};
    use lazy_mcp_core::engine::events::Endpoint;
    use lazy_mcp_core::vec_map::VecMap;
    let transports = [
        Transport::Stdio {
            command: "node".into(),
            args: vec!["s.js".into()],
            env: VecMap::from([("A".to_string(), "1".to_string())]),
            cwd: Some("/w".into()),
            env_file: Some(".env".into()),
        },
        Transport::Stdio {
            command: "node".into(),
            args: Vec::new(),
            env: VecMap::new(),
            cwd: None,
            env_file: None,
        },
        Transport::Http {
            url: "https://h/mcp".into(),
            headers: VecMap::from([("X".to_string(), "y".to_string())]),
        },
        Transport::Sse {
            url: "https://h/sse".into(),
            headers: VecMap::new(),
        },
    ];
    for transport in transports {
        let text = serde_json::to_string(&transport).unwrap();
        assert_eq!(
            serde_json::from_str::<Transport>(&text).unwrap(),
            transport,
            "{text}"
        );
    }
    for endpoint in [Endpoint::Server { name: "a".into() }, Endpoint::Aggregate] {
        let text = serde_json::to_string(&endpoint).unwrap();
        assert_eq!(
            serde_json::from_str::<Endpoint>(&text).unwrap(),
            endpoint,
            "{text}"
        );
    }
    for filter in [
        ToolFilter::All,
        ToolFilter::Only(vec!["a".into(), "b".into()]),
    ] {
        let text = serde_json::to_string(&filter).unwrap();
        assert_eq!(
            serde_json::from_str::<ToolFilter>(&text).unwrap(),
            filter,
            "{text}"
        );
    }
    // Written by hand: defaults, and fields of other variants ignored.
    assert_eq!(
        serde_json::from_str::<Transport>(r#"{"url": "u", "type": "http", "extra": 1}"#).unwrap(),
        Transport::Http {
            url: "u".into(),
            headers: VecMap::new()
        }
    );
    for (text, error) in [
        (r#"{"type": "stdio"}"#, "missing field `command`"),
        (r#"{"type": "http"}"#, "missing field `url`"),
        (r#"{"command": "x"}"#, "missing field `type`"),
        (
            r#"{"type": "pipe", "command": "x"}"#,
            "unknown variant `pipe`",
        ),
    ] {
        let message = serde_json::from_str::<Transport>(text)
            .unwrap_err()
            .to_string();
        assert!(message.contains(error), "{text}: {message}");
    }
    assert!(serde_json::from_str::<Endpoint>(r#"{"kind": "server"}"#)
        .unwrap_err()
        .to_string()
        .contains("missing field `name`"));
    assert!(serde_json::from_str::<ToolFilter>(r#"{"kind": "only"}"#)
        .unwrap_err()
        .to_string()
        .contains("missing field `names`"));
}

/// The events with one field share one reader (`engine/event_json.rs`
/// `one_field`, for the `.wasm` size): they read, round-trip and fail as the
/// derived readers did.
#[test]
fn one_field_events_read_round_trip_and_fail_as_derived_readers_did() {
    use lazy_mcp_core::engine::events::Event;
    let events = [
        Event::SignIn { server: "a".into() },
        Event::Disconnect { server: "b".into() },
        Event::ClientInputEnded {
            client: "c1".into(),
        },
        Event::TokensAvailable {
            url: "https://x".into(),
        },
        Event::CatalogueLoaded { blob: "{}".into() },
        Event::DismissSignIn {
            servers: vec!["a".into(), "b".into()],
        },
        Event::WorkspaceFoldersChanged {
            folders: vec!["/w".into()],
        },
        Event::ConfigFilesChanged {
            paths: vec!["/w/.vscode/mcp.json".into()],
        },
    ];
    for event in events {
        assert_eq!(Event::from_json(&event.to_json()).ok(), Some(event));
    }
    // Other members ignored, escapes read, an omitted `paths` empty.
    assert_eq!(
        Event::from_json(r#"{"extra": [1, {"server": 2}], "type": "enable", "ser\u0076er": "s"}"#)
            .ok(),
        Some(Event::Enable { server: "s".into() })
    );
    assert_eq!(
        Event::from_json(r#"{"type": "configFilesChanged"}"#).ok(),
        Some(Event::ConfigFilesChanged { paths: vec![] })
    );
    let error = |text: &str| {
        Event::from_json(text)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    assert!(error(r#"{"type": "signOut"}"#).contains("missing field `server`"));
    assert!(error(r#"{"type": "workspaceFoldersChanged"}"#).contains("missing field `folders`"));
    assert!(
        error(r#"{"type": "connectNow", "server": "a", "server": "b"}"#)
            .contains("duplicate field `server`")
    );
    assert!(error(r#"{"type": "clientDisconnected", "client": 7}"#)
        .contains("invalid type: integer `7`, expected a string"));
}
