//! The JSON the host exchanges with the engine, written out: these literals are
//! the contract of the WASM boundary (`Engine::handle_json`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use lazy_mcp_core::config::model::OAuthConfig;
use lazy_mcp_core::config::model::Transport;
use lazy_mcp_core::engine::auth::OAuthBinding;
use lazy_mcp_core::engine::{
    AnnounceAction, Effect, Endpoint, EndpointInfo, Event, LogLevel, ServerState,
};
use lazy_mcp_core::vec_map::VecMap;

fn oauth_binding() -> OAuthBinding {
    OAuthBinding {
        url: "https://mcp.linear.app/mcp".into(),
        config: OAuthConfig {
            callback_port: Some(33418),
            ..OAuthConfig::default()
        },
        resource_metadata_url: None,
    }
}
use serde_json::{json, Value};

fn event(value: Value) -> Event {
    Event::from_json(&value.to_string()).unwrap_or_else(|e| panic!("{value}: {e}"))
}

#[test]
fn every_event_reads_from_its_documented_json() {
    let events = [
        json!({"type": "catalogueLoaded", "blob": "{}"}),
        json!({"type": "sharedCatalogueRead", "server": "memory", "key": "k-r", "file": "/c/k-r.json", "blob": "{}"}),
        json!({"type": "sharedCatalogueRead", "server": "memory", "key": "k", "file": "/c/k.json", "blob": null}),
        json!({"type": "sharedCatalogueRead", "server": "memory", "key": "k", "file": "/c/k.json"}),
        json!({"type": "connectionOpened", "conn": 1, "pid": 4242}),
        json!({"type": "connectionOpened", "conn": 1}),
        json!({"type": "messageReceived", "conn": 1, "message": "{\"jsonrpc\":\"2.0\"}"}),
        json!({"type": "connectionClosed", "conn": 1, "reason": "exited", "exitCode": 1, "stderrTail": "boom"}),
        json!({"type": "connectionClosed", "conn": 1}),
        json!({"type": "replyEnded", "conn": 1, "requestId": 7, "reason": "the reply stream ended before the response"}),
        json!({"type": "replyEnded", "conn": 1, "requestId": 7, "reason": "http://x answered HTTP 500", "httpStatus": 500}),
        json!({"type": "httpStatus", "conn": 1, "status": 401}),
        json!({"type": "authRequired", "conn": 1, "status": 401, "challenge": "Bearer resource_metadata=\"x\"", "hadToken": true}),
        json!({"type": "authRequired", "conn": 1, "status": 403}),
        json!({"type": "authRequired", "conn": 1, "status": 401, "hadToken": true, "message": "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\"}"}),
        json!({"type": "tokensAvailable", "url": "https://mcp.linear.app/mcp"}),
        json!({"type": "signInFinished", "server": "linear", "outcome": "ok"}),
        json!({"type": "signInFinished", "server": "linear", "outcome": "ok", "attempt": 2}),
        json!({"type": "cancelSignIn", "server": "linear"}),
        json!({"type": "signInFinished", "server": "linear", "outcome": "cancelled", "message": "m"}),
        json!({"type": "signInFinished", "server": "linear", "outcome": "failed", "message": "m"}),
        json!({"type": "refreshFinished", "server": "linear", "outcome": "invalidGrant"}),
        json!({"type": "refreshFinished", "server": "linear", "outcome": "ok"}),
        json!({"type": "refreshFinished", "server": "linear", "outcome": "failed", "message": "m"}),
        json!({"type": "signIn", "server": "linear"}),
        json!({"type": "signOut", "server": "linear"}),
        json!({"type": "dismissSignIn", "servers": ["linear", "notion"]}),
        json!({"type": "timeout"}),
        json!({"type": "clientMessage", "client": "c1", "endpoint": {"kind": "server", "name": "github"}, "message": "{}"}),
        json!({"type": "clientMessage", "client": "c1", "endpoint": {"kind": "aggregate"}, "message": "{}"}),
        json!({"type": "clientDisconnected", "client": "c1"}),
        json!({"type": "definitionStarted", "endpoint": {"kind": "server", "name": "github"}, "version": "v1"}),
        json!({"type": "definitionStarted", "endpoint": {"kind": "aggregate"}, "version": "v1", "failed": true}),
        json!({"type": "enable", "server": "github"}),
        json!({"type": "disable", "server": "github"}),
        json!({"type": "connectNow", "server": "github"}),
        json!({"type": "disconnect", "server": "github"}),
        json!({"type": "refreshCatalogue"}),
        json!({"type": "refreshCatalogue", "server": "github", "recatalogue": true}),
        json!({"type": "processStats", "server": "github", "rssBytes": 65000000}),
        json!({"type": "workspaceFoldersChanged", "folders": ["/w", "C:\\w x"]}),
        json!({"type": "settingsChanged", "settings": {}}),
        json!({"type": "settingsChanged", "settings": {
            "catalogueConcurrency": 2, "idleTimeoutMs": 600000, "handshakeTimeoutMs": 30000,
            "requestTimeoutMs": 120000, "rootsSettleMs": 100, "crashLimit": 3, "crashWindowMs": 120000,
            "backoffBaseMs": 5000, "backoffMaxMs": 300000,
            "workspaceFolders": ["/w"], "clientName": "lazy-mcp", "clientVersion": "0.1.0"
        }}),
    ];
    for value in events {
        event(value);
    }
    assert_eq!(
        event(
            json!({"type": "clientMessage", "client": "c", "endpoint": {"kind": "server", "name": "x"}, "message": ""})
        ),
        Event::ClientMessage {
            client: "c".into(),
            endpoint: Endpoint::Server { name: "x".into() },
            message: String::new()
        }
    );
}

#[test]
fn every_effect_writes_its_documented_json() {
    let cases = vec![
        (
            Effect::Open {
                conn: 1,
                server: "github".into(),
                transport: Box::new(Transport::Http {
                    url: "https://x".into(),
                    headers: VecMap::new(),
                }),
                interactive: false,
                oauth: None,
                max_message_bytes: 64 * 1024 * 1024,
                shared: None,
            },
            json!({"type": "open", "conn": 1, "server": "github", "transport": {"type": "http", "url": "https://x", "headers": {}}, "interactive": false, "maxMessageBytes": 67108864}),
        ),
        (
            Effect::Send {
                conn: 1,
                message: "{}".into(),
                headers: Default::default(),
                request_id: None,
                open_event_stream: false,
            },
            json!({"type": "send", "conn": 1, "message": "{}"}),
        ),
        (
            Effect::Send {
                conn: 1,
                message: "{}".into(),
                headers: Default::default(),
                request_id: Some(3),
                open_event_stream: true,
            },
            json!({"type": "send", "conn": 1, "message": "{}", "requestId": 3, "openEventStream": true}),
        ),
        (
            Effect::Send {
                conn: 1,
                message: "{}".into(),
                headers: VecMap::from_iter([(
                    "mcp-protocol-version".to_string(),
                    "2025-06-18".to_string(),
                )]),
                request_id: Some(4),
                open_event_stream: false,
            },
            json!({"type": "send", "conn": 1, "message": "{}", "headers": {"mcp-protocol-version": "2025-06-18"}, "requestId": 4}),
        ),
        (
            Effect::Close {
                conn: 1,
                idle: false,
            },
            json!({"type": "close", "conn": 1}),
        ),
        (
            Effect::WakeAt { at_ms: 30_000 },
            json!({"type": "wakeAt", "atMs": 30000}),
        ),
        (
            Effect::Reply {
                client: "c1".into(),
                id: json!(7),
                http_status: None,
                message: "{}".into(),
            },
            json!({"type": "reply", "client": "c1", "id": 7, "message": "{}"}),
        ),
        (
            Effect::Reply {
                client: "c1".into(),
                id: json!(7),
                http_status: Some(404),
                message: "{}".into(),
            },
            json!({"type": "reply", "client": "c1", "id": 7, "httpStatus": 404, "message": "{}"}),
        ),
        (
            Effect::NotifyClient {
                client: "c1".into(),
                progress_token: None,
                request: None,
                message: "{}".into(),
            },
            json!({"type": "notifyClient", "client": "c1", "message": "{}"}),
        ),
        (
            Effect::NotifyClient {
                client: "c1".into(),
                progress_token: None,
                request: Some(Box::new(json!(4))),
                message: "{}".into(),
            },
            json!({"type": "notifyClient", "client": "c1", "request": 4, "message": "{}"}),
        ),
        (
            Effect::NotifyClient {
                client: "c1".into(),
                progress_token: Some(json!("p")),
                request: None,
                message: "{}".into(),
            },
            json!({"type": "notifyClient", "client": "c1", "progressToken": "p", "message": "{}"}),
        ),
        (
            Effect::StartDefinition {
                endpoint: Endpoint::Server { name: "x".into() },
                version: "v1".into(),
            },
            json!({"type": "startDefinition", "endpoint": {"kind": "server", "name": "x"}, "version": "v1"}),
        ),
        (
            Effect::StopDefinition {
                endpoint: Endpoint::Aggregate,
            },
            json!({"type": "stopDefinition", "endpoint": {"kind": "aggregate"}}),
        ),
        (
            Effect::PersistCatalogue { blob: "b".into() },
            json!({"type": "persistCatalogue", "blob": "b"}),
        ),
        (
            Effect::ReadSharedCatalogue {
                server: "memory".into(),
                keys: vec!["k-r".into(), "k".into()],
            },
            json!({"type": "readSharedCatalogue", "server": "memory", "keys": ["k-r", "k"]}),
        ),
        (
            Effect::WriteSharedCatalogue {
                key: "k".into(),
                blob: "b".into(),
            },
            json!({"type": "writeSharedCatalogue", "key": "k", "blob": "b"}),
        ),
        (
            Effect::Log {
                level: LogLevel::Warn,
                server: Some("github".into()),
                message: "m".into(),
            },
            json!({"type": "log", "level": "warn", "server": "github", "message": "m"}),
        ),
        (
            Effect::Log {
                level: LogLevel::Info,
                server: None,
                message: "m".into(),
            },
            json!({"type": "log", "level": "info", "message": "m"}),
        ),
        (
            Effect::StateChanged {
                server: "github".into(),
                state: ServerState::Failed {
                    error: "e".into(),
                    retry_at_ms: Some(9),
                },
            },
            json!({"type": "stateChanged", "server": "github", "state": {"kind": "FAILED", "error": "e", "retryAtMs": 9}}),
        ),
        (
            Effect::StateChanged {
                server: "github".into(),
                state: ServerState::Catalogued,
            },
            json!({"type": "stateChanged", "server": "github", "state": {"kind": "CATALOGUED"}}),
        ),
        (
            Effect::EndpointsChanged {
                endpoints: vec![EndpointInfo {
                    server: "github".into(),
                    version: "v".into(),
                    offered: true,
                }],
                aggregate: None,
            },
            json!({"type": "endpointsChanged", "endpoints": [{"server": "github", "version": "v", "offered": true}]}),
        ),
        (
            Effect::EndpointsChanged {
                endpoints: vec![],
                aggregate: Some("a1".into()),
            },
            json!({"type": "endpointsChanged", "endpoints": [], "aggregate": "a1"}),
        ),
        (
            Effect::ServerRemoved {
                server: "github".into(),
            },
            json!({"type": "serverRemoved", "server": "github"}),
        ),
        (
            Effect::StartSignIn {
                server: "linear".into(),
                oauth: Box::new(oauth_binding()),
                reason: "not signed in".into(),
                tool_name: Some("create_issue".into()),
                scope: None,
                attempt: 3,
            },
            json!({"type": "startSignIn", "server": "linear", "oauth": {"url": "https://mcp.linear.app/mcp", "config": {"callbackPort": 33418}}, "reason": "not signed in", "toolName": "create_issue", "attempt": 3}),
        ),
        (
            Effect::CancelSignIn {
                server: "linear".into(),
                oauth: Box::new(oauth_binding()),
                attempt: 3,
            },
            json!({"type": "cancelSignIn", "server": "linear", "oauth": {"url": "https://mcp.linear.app/mcp", "config": {"callbackPort": 33418}}, "attempt": 3}),
        ),
        (
            Effect::RefreshTokens {
                server: "linear".into(),
                oauth: Box::new(oauth_binding()),
            },
            json!({"type": "refreshTokens", "server": "linear", "oauth": {"url": "https://mcp.linear.app/mcp", "config": {"callbackPort": 33418}}}),
        ),
        (
            Effect::DeleteTokens {
                server: "linear".into(),
                oauth: Box::new(oauth_binding()),
                forget_client: true,
            },
            json!({"type": "deleteTokens", "server": "linear", "oauth": {"url": "https://mcp.linear.app/mcp", "config": {"callbackPort": 33418}}, "forgetClient": true}),
        ),
        (
            Effect::Announce {
                level: LogLevel::Warn,
                server: None,
                message: "2 MCP servers need you to sign in".into(),
                actions: vec![AnnounceAction::SignIn, AnnounceAction::NotNow],
                servers: vec!["linear".into(), "notion".into()],
            },
            json!({"type": "announce", "level": "warn", "message": "2 MCP servers need you to sign in", "actions": ["signIn", "notNow"], "servers": ["linear", "notion"]}),
        ),
    ];
    for (effect, expected) in cases {
        assert_eq!(serde_json::to_value(&effect).unwrap(), expected);
        let back: Effect = serde_json::from_value(expected).unwrap();
        assert_eq!(back, effect);
    }
}

#[test]
fn the_diagnostics_snapshot_is_camel_case() {
    let engine = lazy_mcp_core::engine::Engine::new(Default::default());
    let snapshot: Value = serde_json::from_str(&engine.snapshot_json()).unwrap();
    assert!(snapshot["servers"].is_array());
    for key in [
        "servers",
        "catalogued",
        "connected",
        "dormant",
        "failed",
        "disabled",
        "needsAuth",
        "inProgress",
        "tools",
        "schemaTokenEstimate",
    ] {
        assert!(snapshot["totals"].get(key).is_some(), "totals.{key}");
    }
}

#[test]
fn the_engine_starts_from_settings_json() {
    use lazy_mcp_core::engine::Engine;
    let engine =
        Engine::from_settings_json(r#"{"idleTimeoutMs": 0, "workspaceFolders": ["/w"]}"#).unwrap();
    assert_eq!(engine.settings().idle_timeout_ms, 0);
    assert_eq!(
        engine.settings().catalogue_concurrency,
        2,
        "defaults fill the rest"
    );
    assert!(Engine::from_settings_json("{").is_err());
}
