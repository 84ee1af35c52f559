//! Upstream servers of either protocol era, with the simulated host: the era is
//! probed once while cataloguing (`server/discover`), remembered in the catalogue
//! (a warm start and a first call send no probe), a failed probe falls back to
//! `initialize` without failing the server, and modern servers get the era's
//! envelope, headers and cache hints.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::config::model::Transport;
use lazy_mcp_core::diagnostics::{engine_report, ReportContext};
use lazy_mcp_core::engine::{Effect, Event, ServerState, Settings};
use lazy_mcp_core::protocol::client_discover::Era;
use lazy_mcp_core::vec_map::VecMap;
use serde_json::{json, Value};

fn fake(era: EraBehavior) -> FakeServer {
    FakeServer {
        era,
        ..FakeServer::with_tools(&["echo", "add"])
    }
}

const MODERN: EraBehavior = EraBehavior::Modern { ttl_ms: 60_000 };

fn catalogued(name: &str, era: EraBehavior) -> Sim {
    let mut sim = Sim::new(Settings::default()).fake(name, fake(era));
    sim.apply(vec![config(name)]);
    sim
}

fn era_in_blob(blob: &str, name: &str) -> Era {
    let blob: Value = serde_json::from_str(blob).unwrap();
    serde_json::from_value(blob["entries"][name]["era"].clone()).unwrap_or(Era::Legacy)
}

fn report(sim: &Sim) -> String {
    engine_report(
        &ReportContext {
            now_ms: Some(sim.now),
            ..ReportContext::default()
        },
        &sim.engine,
    )
}

/// A warm start from `blob`, then one tool call: what it sent upstream.
fn warm_call(name: &str, era: EraBehavior, blob: String) -> Sim {
    let mut sim = Sim::new(Settings::default()).fake(name, fake(era));
    sim.send(Event::CatalogueLoaded { blob });
    sim.apply(vec![config(name)]);
    assert_eq!(sim.opens(), 0, "a warm start spawns nothing");
    assert_eq!(sim.state(name), Some(ServerState::Catalogued));
    sim.client("c", server_endpoint(name), call(1, "echo"));
    sim
}

#[test]
fn a_modern_server_is_probed_once_and_spoken_to_without_initialize() {
    let sim = catalogued("modern", MODERN);
    assert_eq!(sim.state("modern"), Some(ServerState::Catalogued));
    assert_eq!(sim.sent_method("modern", "server/discover"), 1);
    assert_eq!(sim.sent_method("modern", "initialize"), 0);
    assert_eq!(
        sim.sent_method("modern", "notifications/initialized"),
        0,
        "no legacy handshake at all"
    );
    // Every request carried the envelope (the fake refuses any that does not).
    for (_, message) in &sim.sent {
        assert_eq!(
            message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28",
            "{message}"
        );
        assert_eq!(
            message["params"]["_meta"]["io.modelcontextprotocol/clientInfo"]["name"],
            "lazy-mcp"
        );
    }
    let blob = sim.persisted.clone().unwrap();
    assert_eq!(era_in_blob(&blob, "modern"), Era::Modern);
    let server = &sim.engine.snapshot().servers[0];
    assert_eq!(server.era, Some(Era::Modern));
    assert_eq!(server.tools, 2, "the fake server's two tools");
    assert!(
        report(&sim).contains("stdio · 2026-07-28"),
        "{}",
        report(&sim)
    );

    // Warm start + first call: zero probes, the call answered by the server.
    let sim = warm_call("modern", MODERN, blob);
    assert_eq!(sim.opens(), 1);
    assert_eq!(sim.sent_method("modern", "server/discover"), 0, "no probe");
    assert_eq!(sim.sent_method("modern", "initialize"), 0);
    let reply = sim.reply_to("c", json!(1)).unwrap();
    assert_eq!(
        reply["result"]["content"][0]["text"],
        "modern:echo:{\"text\":\"hi\"}"
    );
    assert_eq!(sim.state("modern"), Some(ServerState::Connected));
    assert_eq!(
        sim.sent_method("modern", "subscriptions/listen"),
        1,
        "list changes are asked for the modern way"
    );
    let listen = sim
        .sent
        .iter()
        .find(|(_, m)| m["method"] == "subscriptions/listen")
        .unwrap();
    assert_eq!(
        listen.1["params"]["notifications"]["toolsListChanged"],
        true
    );
}

#[test]
fn a_subscription_to_a_connected_modern_server_reopens_its_listen() {
    let sim = catalogued("modern", MODERN);
    let blob = sim.persisted.clone().unwrap();
    let mut sim = warm_call("modern", MODERN, blob);
    assert_eq!(sim.state("modern"), Some(ServerState::Connected));
    let first_listen = sim
        .sent
        .iter()
        .find(|(_, m)| m["method"] == "subscriptions/listen")
        .map(|(_, m)| m["id"].clone())
        .unwrap();
    let subscribe = |id: u64, method: &str| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"uri": "file:///notes.md"}});
    sim.client(
        "c",
        server_endpoint("modern"),
        subscribe(2, "resources/subscribe"),
    );
    assert_eq!(
        sim.reply_to("c", json!(2)).unwrap()["result"],
        json!({}),
        "answered by Lazy MCP"
    );
    assert_eq!(
        sim.sent_method("modern", "resources/subscribe"),
        0,
        "the modern era has no resources/subscribe"
    );
    let cancelled: Vec<&Value> = sim
        .sent
        .iter()
        .filter(|(_, m)| m["method"] == "notifications/cancelled")
        .map(|(_, m)| m)
        .collect();
    assert_eq!(cancelled.len(), 1);
    assert_eq!(cancelled[0]["params"]["requestId"], first_listen);
    let listens: Vec<&Value> = sim
        .sent
        .iter()
        .filter(|(_, m)| m["method"] == "subscriptions/listen")
        .map(|(_, m)| m)
        .collect();
    assert_eq!(listens.len(), 2);
    assert_eq!(
        listens[1]["params"]["notifications"]["resourceSubscriptions"],
        json!(["file:///notes.md"])
    );
    // Unsubscribing the last client listens again without the URI.
    sim.client(
        "c",
        server_endpoint("modern"),
        subscribe(3, "resources/unsubscribe"),
    );
    assert_eq!(sim.reply_to("c", json!(3)).unwrap()["result"], json!({}));
    assert_eq!(sim.sent_method("modern", "resources/unsubscribe"), 0);
    let last = sim
        .sent
        .iter()
        .rev()
        .find(|(_, m)| m["method"] == "subscriptions/listen")
        .map(|(_, m)| m.clone())
        .unwrap();
    assert!(last["params"]["notifications"]
        .get("resourceSubscriptions")
        .is_none());
}

/// The upstream id of the open `subscriptions/listen` of `server`.
fn open_listen(sim: &Sim, server: &str) -> Value {
    sim.sent
        .iter()
        .rfind(|(s, m)| s == server && m["method"] == "subscriptions/listen")
        .map(|(_, m)| m["id"].clone())
        .unwrap()
}

fn from_listen(sim: &mut Sim, server: &str, method: &str, mut params: Value) {
    let listen = open_listen(sim, server);
    params["_meta"] = json!({ "io.modelcontextprotocol/subscriptionId": listen });
    let conn = sim.conn_of(server).unwrap();
    sim.send(Event::MessageReceived {
        conn,
        message: json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string(),
    });
}

#[test]
fn changes_a_modern_server_announces_on_its_listen_reach_the_clients() {
    let sim = catalogued("modern", MODERN);
    let blob = sim.persisted.clone().unwrap();
    let mut sim = warm_call("modern", MODERN, blob);
    // A legacy client (VS Code) subscribed to a resource, and lists the tools.
    sim.client(
        "vscode",
        server_endpoint("modern"),
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "vscode"}}}),
    );
    sim.client(
        "vscode",
        server_endpoint("modern"),
        json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe", "params": {"uri": "file:///notes.md"}}),
    );
    sim.client(
        "vscode",
        server_endpoint("modern"),
        request(2, "tools/list"),
    );
    let lists_before = sim.sent_method("modern", "tools/list");

    // A new tool, announced on the listen (tagged with its id, as the era does).
    sim.fakes
        .get_mut("modern")
        .unwrap()
        .tools
        .push(tool("fresh"));
    from_listen(
        &mut sim,
        "modern",
        "notifications/tools/list_changed",
        json!({}),
    );
    assert_eq!(
        sim.sent_method("modern", "tools/list"),
        lists_before + 1,
        "Lazy MCP lists the tools again"
    );
    // An added tool is held until the user approves it (issue 24).
    sim.send(Event::ApproveDefinitions {
        server: "modern".into(),
        items: vec!["fresh".into()],
    });
    assert!(
        sim.notifications
            .iter()
            .any(|(c, m)| c == "vscode" && m["method"] == "notifications/tools/list_changed"),
        "the client is told"
    );
    sim.client(
        "vscode",
        server_endpoint("modern"),
        request(3, "tools/list"),
    );
    let tools = sim.reply_to("vscode", json!(3)).unwrap()["result"]["tools"].clone();
    assert!(
        tools
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "fresh"),
        "{tools}"
    );

    // A resource update reaches the subscribed client, without the upstream tag
    // (it names Lazy MCP's listen, not anything of the client's).
    from_listen(
        &mut sim,
        "modern",
        "notifications/resources/updated",
        json!({"uri": "file:///notes.md"}),
    );
    let updated = sim
        .notifications
        .iter()
        .find(|(c, m)| c == "vscode" && m["method"] == "notifications/resources/updated")
        .map(|(_, m)| m.clone())
        .unwrap();
    assert_eq!(updated["params"]["uri"], "file:///notes.md");
    assert!(updated["params"].get("_meta").is_none(), "{updated}");
}

#[test]
fn a_refused_listen_is_said_in_the_log() {
    let sim = catalogued("modern", MODERN);
    let blob = sim.persisted.clone().unwrap();
    let mut sim = warm_call("modern", MODERN, blob);
    let listen = open_listen(&sim, "modern");
    let conn = sim.conn_of("modern").unwrap();
    sim.send(Event::MessageReceived {
        conn,
        message: json!({"jsonrpc": "2.0", "id": listen, "error": {"code": -32601, "message": "Method not found"}}).to_string(),
    });
    assert!(
        sim.logs()
            .iter()
            .any(|l| l.contains("refused subscriptions/listen (Method not found)")),
        "{:?}",
        sim.logs()
    );
    assert_eq!(sim.state("modern"), Some(ServerState::Connected));
}

#[test]
fn a_legacy_server_is_probed_once_on_the_same_process_then_initialized() {
    let sim = catalogued("legacy", EraBehavior::Legacy);
    assert_eq!(sim.state("legacy"), Some(ServerState::Catalogued));
    assert_eq!(sim.opens(), 1, "the probe costs no extra spawn");
    assert_eq!(sim.sent_method("legacy", "server/discover"), 1);
    assert_eq!(sim.sent_method("legacy", "initialize"), 1);
    let blob = sim.persisted.clone().unwrap();
    assert_eq!(era_in_blob(&blob, "legacy"), Era::Legacy);

    let sim = warm_call("legacy", EraBehavior::Legacy, blob);
    assert_eq!(sim.sent_method("legacy", "server/discover"), 0, "no probe");
    assert_eq!(sim.sent_method("legacy", "initialize"), 1);
    assert!(sim.reply_to("c", json!(1)).unwrap()["result"].is_object());
    // Legacy messages are untouched: no envelope.
    assert!(sim
        .sent
        .iter()
        .all(|(_, m)| m["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"].is_null()));
}

#[test]
fn a_server_that_exits_on_the_probe_is_initialized_on_a_fresh_process() {
    let sim = catalogued("strict", EraBehavior::ExitOnDiscover);
    assert_eq!(sim.state("strict"), Some(ServerState::Catalogued));
    assert_eq!(
        sim.opens(),
        2,
        "one probe, one fresh process for initialize"
    );
    assert_eq!(sim.sent_method("strict", "initialize"), 1);
    assert_eq!(
        era_in_blob(&sim.persisted.clone().unwrap(), "strict"),
        Era::Legacy
    );
    assert!(
        sim.engine.snapshot().servers[0].last_error.is_none(),
        "not a failure"
    );
    assert!(sim.live.is_empty(), "both connections ended");
}

#[test]
fn a_server_that_answers_the_probe_with_an_error_is_initialized_on_the_same_process() {
    let sim = catalogued("picky", EraBehavior::ErrorOnDiscover);
    assert_eq!(sim.state("picky"), Some(ServerState::Catalogued));
    assert_eq!(sim.opens(), 1);
    assert_eq!(sim.sent_method("picky", "initialize"), 1);
}

#[test]
fn a_server_that_hangs_on_the_probe_falls_back_after_the_handshake_timeout() {
    let settings = Settings::default();
    let timeout = settings.handshake_timeout_ms;
    let mut sim = Sim::new(settings).fake("mute", fake(EraBehavior::HangOnDiscover));
    sim.apply(vec![config("mute")]);
    assert_eq!(sim.state("mute"), Some(ServerState::Cataloguing));
    assert_eq!(sim.sent_method("mute", "initialize"), 0);
    sim.advance(timeout - 1);
    assert_eq!(sim.opens(), 1, "still waiting within the handshake timeout");
    sim.advance(1);
    assert_eq!(sim.opens(), 2, "fresh process once the timeout passed");
    assert_eq!(sim.sent_method("mute", "initialize"), 1);
    assert_eq!(sim.state("mute"), Some(ServerState::Catalogued));
    assert_eq!(sim.live.len(), 0, "the hung probe was closed");
}

#[test]
fn a_server_whose_probe_went_unanswered_is_probed_again_once_its_launch_changed() {
    // The probe hung, so later attempts of that launch go straight to
    // `initialize`; a new command (the user fixed it) is a new runtime, whose
    // era is asked, not guessed from the old process.
    let settings = Settings::default();
    let timeout = settings.handshake_timeout_ms;
    let mut sim = Sim::new(settings).fake("mute", fake(EraBehavior::HangOnDiscover));
    sim.apply(vec![config("mute")]);
    sim.advance(timeout);
    assert_eq!(sim.state("mute"), Some(ServerState::Catalogued));
    assert_eq!(sim.sent_method("mute", "server/discover"), 1);
    sim.fakes.get_mut("mute").unwrap().era = MODERN;
    let (opens, initializes) = (sim.opens(), sim.sent_method("mute", "initialize"));
    let mut edited = config("mute");
    edited.fingerprint = "fp-mute-2".into();
    sim.apply(vec![edited]);
    assert_eq!(sim.state("mute"), Some(ServerState::Catalogued));
    assert_eq!(
        sim.sent_method("mute", "server/discover"),
        2,
        "the new launch is probed"
    );
    assert_eq!(
        (sim.opens() - opens, sim.sent_method("mute", "initialize") - initializes),
        (1, 0),
        "one process for the new launch, asked its era first (not `initialize`, refused, then a second process to probe)"
    );
    assert_eq!(
        era_in_blob(&sim.persisted.clone().unwrap(), "mute"),
        Era::Modern
    );
}

#[test]
fn a_refresh_asks_the_era_again_and_records_the_change() {
    let mut sim = catalogued("moving", EraBehavior::Legacy);
    assert_eq!(
        era_in_blob(&sim.persisted.clone().unwrap(), "moving"),
        Era::Legacy
    );
    sim.fakes.get_mut("moving").unwrap().era = MODERN;
    sim.send(Event::RefreshCatalogue {
        server: Some("moving".into()),
        recatalogue: true,
    });
    assert_eq!(sim.state("moving"), Some(ServerState::Catalogued));
    assert_eq!(
        era_in_blob(&sim.persisted.clone().unwrap(), "moving"),
        Era::Modern
    );
    assert_eq!(sim.sent_method("moving", "server/discover"), 2);
}

#[test]
fn a_server_that_became_modern_since_cataloguing_is_probed_at_the_first_call() {
    let sim = catalogued("moved", EraBehavior::Legacy);
    let blob = sim.persisted.clone().unwrap();
    let sim = warm_call("moved", MODERN, blob);
    // initialize refused with -32022 → probe on a fresh process → the call goes through.
    assert_eq!(sim.sent_method("moved", "initialize"), 1);
    assert_eq!(sim.sent_method("moved", "server/discover"), 1);
    let reply = sim.reply_to("c", json!(1)).unwrap();
    assert_eq!(
        reply["result"]["content"][0]["text"], "moved:echo:{\"text\":\"hi\"}",
        "{reply}"
    );
    assert_eq!(
        era_in_blob(&sim.persisted.clone().unwrap(), "moved"),
        Era::Modern
    );
}

#[test]
fn a_changed_config_asks_the_era_again() {
    let mut sim = catalogued("moving", MODERN);
    assert_eq!(sim.sent_method("moving", "server/discover"), 1);
    sim.fakes.get_mut("moving").unwrap().era = EraBehavior::Legacy;
    let mut edited = config("moving");
    edited.fingerprint = "fp-moving-2".into();
    sim.apply(vec![edited]);
    assert_eq!(sim.state("moving"), Some(ServerState::Catalogued));
    assert_eq!(
        sim.sent_method("moving", "server/discover"),
        2,
        "the new config is probed, not trusted to the old verdict"
    );
    assert_eq!(
        era_in_blob(&sim.persisted.clone().unwrap(), "moving"),
        Era::Legacy
    );
}

/// What Python `mcp` 1.x answers to any request before `initialize`.
fn python_refusal() -> Value {
    json!({"code": -32602, "message": "Invalid request parameters", "data": ""})
}

/// What the host passes on when the TypeScript SDK v1's HTTP server refuses a
/// request without a session (HTTP 400, JSON-RPC error with a null id).
fn sdk1_http_refusal() -> Value {
    json!({"code": -32000, "message": "http://127.0.0.1:1/mcp answered HTTP 400 Bad Request: {\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,\"message\":\"Bad Request: Server not initialized\"},\"id\":null}", "data": {"transport": "http", "httpStatus": 400}})
}

#[test]
fn a_server_recorded_modern_that_now_speaks_only_legacy_is_probed_again_at_its_first_connection() {
    let sim = catalogued("moved", MODERN);
    let blob = sim.persisted.clone().unwrap();
    let sim = warm_call(
        "moved",
        EraBehavior::LegacyStrict {
            refusal: python_refusal(),
        },
        blob,
    );
    // The list round refused → a probe on a fresh process → initialize → the call.
    let reply = sim.reply_to("c", json!(1)).unwrap();
    assert_eq!(
        reply["result"]["content"][0]["text"], "moved:echo:{\"text\":\"hi\"}",
        "{reply}"
    );
    assert_eq!(sim.opens(), 2);
    assert_eq!(sim.sent_method("moved", "server/discover"), 1);
    assert_eq!(sim.sent_method("moved", "initialize"), 1);
    assert_eq!(
        era_in_blob(&sim.persisted.clone().unwrap(), "moved"),
        Era::Legacy
    );
    assert_eq!(sim.state("moved"), Some(ServerState::Connected));
}

#[test]
fn a_call_refused_because_the_server_became_legacy_is_sent_again_after_a_probe() {
    let sim = catalogued("moved", MODERN);
    let blob = sim.persisted.clone().unwrap();
    let mut sim = warm_call("moved", MODERN, blob);
    assert!(sim.reply_to("c", json!(1)).unwrap()["result"].is_object());
    // Replaced while connected (an HTTP server redeployed): modern requests are refused.
    sim.fakes.get_mut("moved").unwrap().era = EraBehavior::LegacyStrict {
        refusal: sdk1_http_refusal(),
    };
    sim.client("c", server_endpoint("moved"), call(2, "echo"));
    let reply = sim.reply_to("c", json!(2)).unwrap();
    assert_eq!(
        reply["result"]["content"][0]["text"], "moved:echo:{\"text\":\"hi\"}",
        "the call succeeds without a manual refresh: {reply}"
    );
    assert_eq!(
        sim.sent_method("moved", "server/discover"),
        1,
        "probed once"
    );
    assert_eq!(sim.sent_method("moved", "initialize"), 1);
    assert_eq!(
        era_in_blob(&sim.persisted.clone().unwrap(), "moved"),
        Era::Legacy
    );
}

#[test]
fn a_call_refused_as_an_unsupported_version_by_a_server_still_modern_is_sent_again_once() {
    let unsupported = json!({"code": -32022, "message": "Unsupported protocol version", "data": {"supported": ["2026-07-28"]}});
    let server = FakeServer {
        call_error: Some(unsupported),
        ..fake(MODERN)
    };
    let mut sim = Sim::new(Settings::default()).fake("stuck", server);
    sim.apply(vec![config("stuck")]);
    sim.client("c", server_endpoint("stuck"), call(1, "echo"));
    let reply = sim.reply_to("c", json!(1)).unwrap();
    assert_eq!(reply["error"]["code"], -32022, "{reply}");
    assert_eq!(
        sim.sent_method("stuck", "tools/call"),
        2,
        "sent again once, not forever"
    );
    assert_eq!(sim.sent_method("stuck", "server/discover"), 2);
    assert_eq!(sim.state("stuck"), Some(ServerState::Connected));
}

#[test]
fn a_catalogue_past_the_servers_ttl_is_shown_stale_and_relisted_only_when_connected() {
    let mut sim = catalogued("short", EraBehavior::Modern { ttl_ms: 5_000 });
    let server = &sim.engine.snapshot().servers[0];
    assert_eq!(server.cache_ttl_ms, Some(5_000));
    assert!(!server.cache_stale);
    sim.advance(6_000);
    sim.send(Event::ProcessStats {
        server: "nobody".into(),
        rss_bytes: 0,
    });
    assert!(sim.engine.snapshot().servers[0].cache_stale);
    assert!(
        report(&sim).contains("(stale: ttl 5 s)"),
        "{}",
        report(&sim)
    );
    assert_eq!(sim.opens(), 1, "a stale entry never starts its server");
    // The next connection (a call) re-lists it: fresh again.
    sim.client("c", server_endpoint("short"), call(1, "echo"));
    assert!(sim.reply_to("c", json!(1)).is_some());
    assert!(!sim.engine.snapshot().servers[0].cache_stale);
}

/// Issue 23: "cache age 0 s (stale: ttl 0 s)" for mcp-server-time straight after
/// cataloguing read as a fault.
#[test]
fn a_ttl_of_0_is_explained_and_a_fresh_entry_is_not_called_stale() {
    let mut sim = catalogued("time", EraBehavior::Modern { ttl_ms: 0 });
    let server = &sim.engine.snapshot().servers[0];
    assert_eq!(server.cache_ttl_ms, Some(0));
    assert!(!server.cache_stale);
    let text = report(&sim);
    assert!(!text.contains("stale"), "{text}");
    assert!(
        text.contains("| 0 s (ttl 0: listed again at each connection) |"),
        "{text}"
    );
    sim.advance(6_000);
    sim.send(Event::ProcessStats {
        server: "nobody".into(),
        rss_bytes: 0,
    });
    assert!(!report(&sim).contains("stale"));
}

#[test]
fn a_modern_servers_request_for_roots_is_answered_with_the_workspace_folders() {
    let mut sim = Sim::new(Settings {
        workspace_folders: vec!["/work/project".into()],
        ..Settings::default()
    })
    .fake(
        "rooted",
        FakeServer {
            asks_roots: true,
            ..fake(MODERN)
        },
    );
    sim.apply(vec![config("rooted")]);
    sim.client("c", server_endpoint("rooted"), call(1, "echo"));
    let reply = sim.reply_to("c", json!(1)).unwrap();
    assert_eq!(
        reply["result"]["content"][0]["text"],
        "roots [{\"uri\":\"file:///work/project\",\"name\":\"project\"}] state \"state-1\"",
        "{reply}"
    );
    assert_eq!(
        sim.sent_method("rooted", "tools/call"),
        2,
        "asked again once, with the answers"
    );
    let retry = sim.last_sent("tools/call");
    assert_eq!(retry["params"]["name"], "echo", "the same request");
    assert_eq!(retry["params"]["arguments"]["text"], "hi");
    assert_eq!(
        retry["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["roots"],
        json!({})
    );
}

#[test]
fn cancelling_a_call_to_a_modern_http_server_aborts_its_request() {
    let http = |name: &str| {
        let mut config = config(name);
        config.transport = Transport::Http {
            url: "http://127.0.0.1:1/mcp".into(),
            headers: VecMap::new(),
        };
        config
    };
    let hanging = |era| FakeServer {
        behavior: Behavior::CallHangs,
        ..fake(era)
    };
    let mut sim = Sim::new(Settings::default())
        .fake("web", hanging(MODERN))
        .fake("old", hanging(EraBehavior::Legacy));
    sim.oauth.public.extend(["web".into(), "old".into()]); // remote servers without sign-in
    sim.apply(vec![http("web"), http("old")]);
    for (id, server) in [(1, "web"), (2, "old")] {
        sim.client("c", server_endpoint(server), call(id, "echo"));
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}});
        sim.client("c", server_endpoint(server), cancel);
    }
    let aborts: Vec<(u64, u64)> = sim
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::AbortRequest { conn, id } => Some((*conn, *id)),
            _ => None,
        })
        .collect();
    let web_call = sim
        .sent
        .iter()
        .find(|(s, m)| s == "web" && m["method"] == "tools/call")
        .map(|(_, m)| m["id"].as_u64().unwrap())
        .unwrap();
    assert_eq!(
        aborts.len(),
        1,
        "only the modern HTTP request is aborted: {aborts:?}"
    );
    assert_eq!(aborts[0].1, web_call);
    assert_eq!(sim.sent_method("web", "notifications/cancelled"), 1);
    assert_eq!(sim.sent_method("old", "notifications/cancelled"), 1);
}

#[test]
fn modern_requests_over_http_carry_the_eras_headers() {
    let mut config = config("web");
    config.transport = Transport::Http {
        url: "http://127.0.0.1:1/mcp".into(),
        headers: VecMap::new(),
    };
    let mut sim = Sim::new(Settings::default()).fake("web", fake(MODERN));
    sim.oauth.public.insert("web".into()); // a remote server without sign-in
    sim.apply(vec![config]);
    sim.client("c", server_endpoint("web"), call(1, "echo"));
    assert!(sim.reply_to("c", json!(1)).unwrap()["result"].is_object());
    let headers: Vec<&VecMap<String, String>> = sim
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Send {
                headers, message, ..
            } if message.contains("tools/call") => Some(headers),
            _ => None,
        })
        .collect();
    assert_eq!(headers.len(), 1);
    assert_eq!(headers[0]["mcp-method"], "tools/call");
    assert_eq!(headers[0]["mcp-name"], "echo");
    assert_eq!(headers[0]["mcp-protocol-version"], "2026-07-28");
    assert!(!headers[0].contains_key("mcp-session-id"));
    // stdio carries none.
    let sim = catalogued("pipe", MODERN);
    assert!(sim.effects.iter().all(|e| match e {
        Effect::Send { headers, .. } => headers.is_empty(),
        _ => true,
    }));
}

#[test]
fn a_call_mirrors_the_arguments_its_tool_declares_into_mcp_param_headers() {
    let mut config = config("web");
    config.transport = Transport::Http {
        url: "http://127.0.0.1:1/mcp".into(),
        headers: VecMap::new(),
    };
    let mut server = fake(MODERN);
    server.tools = vec![
        json!({"name": "query", "inputSchema": {"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "sql": {"type": "string"}
        }}}),
    ];
    let mut sim = Sim::new(Settings::default()).fake("web", server);
    sim.oauth.public.insert("web".into()); // a remote server without sign-in
    sim.apply(vec![config]);
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "query", "arguments": {"region": "eu-west-1", "sql": "select 1"}}});
    sim.client("c", server_endpoint("web"), request);
    assert!(sim.reply_to("c", json!(1)).unwrap()["result"].is_object());
    let headers: Vec<&VecMap<String, String>> = sim
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Send {
                headers, message, ..
            } if message.contains("tools/call") => Some(headers),
            _ => None,
        })
        .collect();
    assert_eq!(headers.len(), 1);
    assert_eq!(
        headers[0].get("mcp-param-region").map(String::as_str),
        Some("eu-west-1")
    );
    assert_eq!(
        headers[0]
            .keys()
            .filter(|k| k.starts_with("mcp-param-"))
            .count(),
        1,
        "only declared arguments: {:?}",
        headers[0]
    );
}

mod modern_messages_never_panic {
    use super::*;
    use lazy_mcp_core::engine::Engine;
    use proptest::prelude::*;

    fn modern_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            prop_oneof![
                Just("2026-07-28"),
                Just("2025-11-25"),
                Just("input_required"),
                Just("complete"),
                Just("public"),
                Just("private"),
                Just("server/discover"),
                Just("notifications/tools/list_changed"),
                Just("caf\u{e9}"),
            ]
            .prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 40, 6, |inner| {
            let key = prop_oneof![
                Just("supportedVersions"),
                Just("capabilities"),
                Just("ttlMs"),
                Just("cacheScope"),
                Just("resultType"),
                Just("inputRequests"),
                Just("_meta"),
                Just("io.modelcontextprotocol/serverInfo"),
                Just("tools"),
                Just("nextCursor"),
                Just("listChanged"),
                Just("code"),
                Just("data"),
            ];
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::btree_map(key, inner, 0..5).prop_map(|m| {
                    Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
                }),
            ]
        })
    }

    fn upstream_message() -> impl Strategy<Value = Value> {
        (0u64..6, modern_value(), any::<bool>()).prop_map(|(id, body, error)| {
            if error {
                json!({"jsonrpc": "2.0", "id": id, "error": body})
            } else {
                json!({"jsonrpc": "2.0", "id": id, "result": body})
            }
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn whatever_a_server_answers_during_and_after_the_probe(
            messages in prop::collection::vec(upstream_message(), 1..8),
            http in any::<bool>(),
        ) {
            let mut engine = Engine::new(Settings::default());
            let mut server = config("s");
            if http {
                server.transport = Transport::Http { url: "http://127.0.0.1:1/mcp".into(), headers: VecMap::new() };
            }
            engine.apply_servers(1, vec![server]);
            let mut now = 2;
            for conn in 1..4u64 {
                engine.handle(now, Event::ConnectionOpened { conn, pid: None });
                for message in &messages {
                    now += 1;
                    let out = engine.handle_json(now, &serde_json::to_string(&Event::MessageReceived { conn, message: message.to_string() }).unwrap());
                    prop_assert!(serde_json::from_str::<Vec<Effect>>(&out).is_ok());
                }
            }
            let _ = engine.snapshot();
        }
    }
}

/// Issue 23: a stdio server that crashes at start. Its first attempt costs two
/// processes (the probe's exited, and a strict legacy server exits on the probe too:
/// `initialize` gets a fresh one); every retry goes straight to `initialize`.
#[test]
fn a_server_crashing_at_start_costs_two_processes_once_then_one_per_retry() {
    let mut crasher = fake(EraBehavior::ExitOnDiscover);
    crasher.behavior = Behavior::CrashOnInitialize;
    let mut sim = Sim::new(Settings::default()).fake("crasher", crasher);
    sim.apply(vec![config("crasher")]);
    let mut opens = vec![sim.opens()];
    while let Some(ServerState::Failed {
        retry_at_ms: Some(at),
        ..
    }) = sim.state("crasher")
    {
        sim.advance(at - sim.now);
        opens.push(sim.opens());
    }
    assert_eq!(opens, [2, 3, 4, 5, 6, 7], "spawns after each attempt");
    assert_eq!(sim.sent_method("crasher", "server/discover"), 1);
    let failures = sim
        .logs()
        .iter()
        .filter(|l| l.starts_with("Could not connect to MCP server 'crasher'"))
        .count();
    assert_eq!(failures, 6, "one line per failed attempt");
}
