//! Clients of the modern era (MCP 2026-07-28) through the simulated host:
//! `server/discover` and requests with a `_meta` envelope on every endpoint, the
//! cache hints and byte-identical lists, the envelope kept off the upstream hop,
//! loaded tools per modern client, and any envelope shape answered without panic.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::config::model::ToolExposure;
use lazy_mcp_core::engine::{Endpoint, ServerState, Settings};
use proptest::prelude::*;
use serde_json::{json, Value};

const MODERN: &str = "2026-07-28";

fn envelope(client_info: Option<Value>) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    if let Some(info) = client_info {
        meta["io.modelcontextprotocol/clientInfo"] = info;
    }
    meta
}

fn modern(id: u64, method: &str, mut params: Value, client_info: Option<Value>) -> Value {
    params["_meta"] = envelope(client_info);
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn sim(mode: ToolExposure) -> Sim {
    let settings = Settings {
        tool_exposure: mode,
        ..Settings::default()
    };
    let mut sim = Sim::new(settings)
        .fake("git", FakeServer::with_tools(&["git_status", "git_log"]))
        .fake("memory", FakeServer::with_tools(&["read_graph"]));
    sim.apply(vec![config("git"), config("memory")]);
    assert_eq!(sim.state("git"), Some(ServerState::Catalogued));
    sim
}

fn reply_text(sim: &Sim, client: &str, id: u64) -> String {
    sim.replies
        .iter()
        .rev()
        .find(|(c, m)| c == client && m["id"] == json!(id))
        .map(|(_, m)| m.to_string())
        .unwrap()
}

#[test]
fn discover_answers_on_every_endpoint_from_the_catalogue() {
    let mut sim = sim(ToolExposure::Full);
    let opens = sim.opens();
    for (client, endpoint, name) in [
        ("a", Endpoint::Aggregate, "lazy-mcp"),
        ("g", server_endpoint("git"), "git"),
    ] {
        sim.client(
            client,
            endpoint,
            modern(1, "server/discover", json!({}), None),
        );
        let result = sim.reply_to(client, json!(1)).unwrap()["result"].clone();
        assert_eq!(result["supportedVersions"], json!([MODERN]));
        assert_eq!(result["resultType"], "complete");
        assert_eq!(
            result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            name
        );
        assert!(result["capabilities"]["tools"].is_object(), "{result}");
        // Both delivered through subscriptions/listen.
        assert_eq!(
            result["capabilities"]["tools"]["listChanged"], true,
            "{result}"
        );
        let subscribe = result["capabilities"]["resources"].get("subscribe");
        match client {
            "a" => assert_eq!(subscribe, Some(&json!(true)), "{result}"),
            _ => assert!(subscribe.is_none(), "git has no resources: {result}"),
        }
    }
    assert_eq!(sim.opens(), opens, "discover starts nothing");
}

#[test]
fn modern_lists_carry_cache_hints_and_identical_bytes() {
    let mut sim = sim(ToolExposure::Full);
    let list = |sim: &mut Sim, id: u64| {
        sim.client(
            "m",
            Endpoint::Aggregate,
            modern(id, "tools/list", json!({}), None),
        );
        reply_text(sim, "m", id).replacen(&format!("\"id\":{id}"), "\"id\":_", 1)
    };
    let first = list(&mut sim, 1);
    let second = list(&mut sim, 2);
    assert_eq!(first, second, "the same catalogue lists the same bytes");
    let result: Value = serde_json::from_str(&first.replacen("\"id\":_", "\"id\":0", 1)).unwrap();
    assert_eq!(result["result"]["ttlMs"], 0);
    assert_eq!(result["result"]["cacheScope"], "private");
    assert_eq!(result["result"]["resultType"], "complete");
    // A fresh engine over the same catalogue lists the same bytes too.
    let mut other = self::sim(ToolExposure::Full);
    assert_eq!(list(&mut other, 1), first);
    // Legacy lists carry the hints too, and no resultType.
    sim.client("l", Endpoint::Aggregate, request(3, "tools/list"));
    let legacy = sim.reply_to("l", json!(3)).unwrap();
    assert_eq!(legacy["result"]["ttlMs"], 0);
    assert!(legacy["result"].get("resultType").is_none());
}

#[test]
fn a_modern_call_reaches_the_server_without_the_envelope_and_is_stamped() {
    let mut sim = sim(ToolExposure::Full);
    let mut params = json!({"name": "git__git_status", "arguments": {}});
    params["_meta"] = envelope(Some(json!({"name": "m", "version": "1"})));
    params["_meta"]["progressToken"] = json!("p1");
    sim.client(
        "m",
        Endpoint::Aggregate,
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}),
    );
    let sent = sim
        .sent
        .iter()
        .find(|(s, m)| s == "git" && m["method"] == "tools/call")
        .map(|(_, m)| m.clone())
        .unwrap();
    assert_eq!(sent["params"]["_meta"], json!({"progressToken": "p1"}));
    assert_eq!(sent["params"]["name"], "git_status");
    let reply = sim.reply_to("m", json!(7)).unwrap();
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
    // The same connection then speaks legacy: not stamped.
    sim.client("m", Endpoint::Aggregate, call(8, "git__git_status"));
    let legacy = sim.reply_to("m", json!(8)).unwrap();
    assert!(legacy["result"].get("resultType").is_none(), "{legacy}");
    // A modern call from a client the engine knows already (the raw fast path
    // takes legacy calls of known clients) is still read in full.
    let mut params = json!({"name": "git__git_log", "arguments": {}});
    params["_meta"] = envelope(Some(json!({"name": "m", "version": "1"})));
    sim.client(
        "m",
        Endpoint::Aggregate,
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params}),
    );
    let sent = sim
        .sent
        .iter()
        .rev()
        .find(|(s, m)| s == "git" && m["params"]["name"] == "git_log")
        .map(|(_, m)| m.clone())
        .unwrap();
    assert!(sent["params"].get("_meta").is_none(), "{sent}");
    let reply = sim.reply_to("m", json!(9)).unwrap();
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
}

fn listen(id: u64, filter: Value) -> Value {
    modern(
        id,
        "subscriptions/listen",
        json!({"notifications": filter}),
        None,
    )
}

fn to(sim: &Sim, client: &str) -> Vec<Value> {
    sim.notifications
        .iter()
        .filter(|(c, _)| c == client)
        .map(|(_, m)| m.clone())
        .collect()
}

#[test]
fn a_listen_is_acknowledged_then_gets_only_the_changes_it_asked_for_tagged_with_its_id() {
    let mut sim = sim(ToolExposure::Full);
    let filter = json!({"toolsListChanged": true, "resourceSubscriptions": ["memory://graph"]});
    sim.client("m", Endpoint::Aggregate, listen(5, filter));
    let first = to(&sim, "m");
    assert_eq!(first.len(), 1, "{first:?}");
    assert_eq!(
        first[0]["method"],
        "notifications/subscriptions/acknowledged"
    );
    assert_eq!(
        first[0]["params"]["notifications"],
        json!({"toolsListChanged": true}),
        "the subset honoured: no server here supports resource subscriptions"
    );
    assert_eq!(
        first[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        5
    );
    assert!(
        sim.reply_to("m", json!(5)).is_none(),
        "the listen stays open"
    );
    // A legacy client of the same endpoint, for comparison.
    sim.client(
        "l",
        Endpoint::Aggregate,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}),
    );
    // A server is added: the aggregate's tool list changes.
    sim.apply(vec![config("git"), config("memory"), config("web")]);
    let changes: Vec<Value> = to(&sim, "m").into_iter().skip(1).collect();
    assert!(!changes.is_empty(), "the listen heard of the change");
    for change in &changes {
        assert_eq!(
            change["method"], "notifications/tools/list_changed",
            "{change}"
        );
        assert_eq!(
            change["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            5
        );
    }
    assert!(
        to(&sim, "l")
            .iter()
            .any(|m| m["method"] == "notifications/tools/list_changed"),
        "legacy clients are told as before"
    );
    // Cancelled: nothing more on it, and no answer.
    let cancel =
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}});
    sim.client("m", Endpoint::Aggregate, cancel);
    let heard = to(&sim, "m").len();
    sim.apply(vec![config("git"), config("memory")]);
    assert_eq!(
        to(&sim, "m").len(),
        heard,
        "a cancelled listen hears nothing"
    );
    assert!(sim.reply_to("m", json!(5)).is_none());
}

#[test]
fn listens_that_are_malformed_legacy_or_too_many_get_the_specs_errors() {
    let mut sim = sim(ToolExposure::Full);
    for (id, filter) in [
        (1, json!("all")),
        (2, json!({"toolsListChanged": "yes"})),
        (3, json!({"resourceSubscriptions": "memory://graph"})),
    ] {
        sim.client("m", Endpoint::Aggregate, listen(id, filter));
        let reply = sim.reply_to("m", json!(id)).unwrap();
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
    }
    let legacy = json!({"jsonrpc": "2.0", "id": 4, "method": "subscriptions/listen", "params": {"notifications": {}}});
    sim.client("l", Endpoint::Aggregate, legacy);
    assert_eq!(
        sim.reply_to("l", json!(4)).unwrap()["error"]["code"],
        -32601
    );
    for id in 10..18 {
        sim.client(
            "m",
            Endpoint::Aggregate,
            listen(id, json!({"toolsListChanged": true})),
        );
        assert!(
            sim.reply_to("m", json!(id)).is_none(),
            "listen {id} is open"
        );
    }
    sim.client(
        "m",
        Endpoint::Aggregate,
        listen(18, json!({"toolsListChanged": true})),
    );
    let refused = sim.reply_to("m", json!(18)).unwrap();
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(refused["error"]["message"]
        .as_str()
        .unwrap()
        .contains("at most 8"));
    // The client keeps working.
    sim.client(
        "m",
        Endpoint::Aggregate,
        modern(19, "tools/list", json!({}), None),
    );
    assert!(sim.reply_to("m", json!(19)).unwrap()["result"]["tools"].is_array());
}

fn names(sim: &mut Sim, client: &str, id: u64, info: Option<Value>) -> Vec<String> {
    sim.client(
        client,
        Endpoint::Aggregate,
        modern(id, "tools/list", json!({}), info),
    );
    sim.reply_to(client, json!(id)).unwrap()["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn load(sim: &mut Sim, client: &str, id: u64, info: Option<Value>) -> Value {
    sim.client(
        client,
        Endpoint::Aggregate,
        modern(
            id,
            "tools/call",
            json!({"name": "load_tools", "arguments": {"names": ["git/git_log"]}}),
            info,
        ),
    );
    sim.reply_to(client, json!(id)).unwrap()["result"].clone()
}

#[test]
fn loaded_tools_belong_to_one_modern_client_and_never_leak() {
    let mut sim = sim(ToolExposure::Index);
    let alice = Some(json!({"name": "alice", "version": "1"}));
    let before = names(&mut sim, "c1", 1, alice.clone());
    assert!(!before.contains(&"git__git_log".to_string()));
    let loaded = load(&mut sim, "c1", 2, alice.clone());
    assert_eq!(loaded["isError"], false, "{loaded}");
    // Alice again, over another connection (HTTP: each request is its own).
    assert!(names(&mut sim, "c2", 3, alice.clone()).contains(&"git__git_log".to_string()));
    for (client, info) in [
        ("c3", Some(json!({"name": "bob", "version": "1"}))),
        ("c4", Some(json!({"name": "alice", "version": "2"}))),
        ("c5", None),
        ("c1", None),
    ] {
        assert!(
            !names(&mut sim, client, 4, info.clone()).contains(&"git__git_log".to_string()),
            "{client} {info:?}"
        );
    }
    // A legacy client named alice on the same connection sees nothing of it either.
    sim.client(
        "c1",
        Endpoint::Aggregate,
        json!({"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "alice"}}}),
    );
    sim.client("c1", Endpoint::Aggregate, request(6, "tools/list"));
    let legacy = sim.reply_to("c1", json!(6)).unwrap().to_string();
    assert!(!legacy.contains("git__git_log"), "{legacy}");
    // Nothing stable: the load is refused with a way out, and nothing is kept.
    let anonymous = load(&mut sim, "c6", 7, None);
    assert_eq!(anonymous["isError"], true);
    assert!(anonymous["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("call_tool"));
    assert!(!names(&mut sim, "c6", 8, None).contains(&"git__git_log".to_string()));
    assert!(sim.live.is_empty(), "loading starts nothing");
}

#[test]
fn invented_client_names_cannot_grow_the_loaded_sets_without_bound() {
    let mut sim = sim(ToolExposure::Index);
    for n in 0..1_000u64 {
        let info = Some(json!({"name": format!("c{n}"), "version": "1"}));
        assert_eq!(load(&mut sim, "flood", n, info)["isError"], false);
    }
    let refused = load(&mut sim, "flood", 5_000, Some(json!({"name": "one-more"})));
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(
        !names(&mut sim, "x", 5_001, Some(json!({"name": "one-more"})))
            .contains(&"git__git_log".to_string())
    );
    // A client that already holds a set is not refused, and keeps what it loaded.
    let again = load(
        &mut sim,
        "flood",
        5_002,
        Some(json!({"name": "c7", "version": "1"})),
    );
    let text = again["content"][0]["text"].as_str().unwrap();
    assert!(!text.contains("other 2026-07-28 clients"), "{text}");
    assert!(names(
        &mut sim,
        "x",
        5_003,
        Some(json!({"name": "c7", "version": "1"}))
    )
    .contains(&"git__git_log".to_string()));
}

#[test]
fn the_specs_errors_for_bad_envelopes() {
    let mut sim = sim(ToolExposure::Full);
    let cases = [
        (json!({"_meta": "x"}), -32602),
        (
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}),
            -32602,
        ),
        (
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": 2026, "io.modelcontextprotocol/clientCapabilities": {}}}),
            -32602,
        ),
        (
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": []}}),
            -32602,
        ),
        (
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/clientInfo": "x"}}),
            -32602,
        ),
        (
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2025-11-25", "io.modelcontextprotocol/clientCapabilities": {}}}),
            -32022,
        ),
        (
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": {}}}),
            -32022,
        ),
    ];
    for (id, (params, code)) in cases.into_iter().enumerate() {
        let id = id as u64;
        sim.client(
            "bad",
            Endpoint::Aggregate,
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params}),
        );
        let reply = sim.reply_to("bad", json!(id)).unwrap();
        assert_eq!(reply["error"]["code"], code, "{reply}");
        if code == -32022 {
            assert_eq!(reply["error"]["data"]["supported"], json!([MODERN]));
        }
    }
    // A method the modern era removed is method-not-found (legacy clients keep it).
    sim.client(
        "bad",
        Endpoint::Aggregate,
        modern(50, "ping", json!({}), None),
    );
    assert_eq!(
        sim.reply_to("bad", json!(50)).unwrap()["error"]["code"],
        -32601
    );
    sim.client("bad", Endpoint::Aggregate, request(51, "ping"));
    assert_eq!(sim.reply_to("bad", json!(51)).unwrap()["result"], json!({}));
    // The same client, and another, keep working.
    assert_eq!(names(&mut sim, "bad", 100, None).len(), 3);
    assert_eq!(names(&mut sim, "other", 1, None).len(), 3);
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        prop_oneof![
            Just(MODERN.to_string()),
            Just("2025-11-25".to_string()),
            ".{0,12}"
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(
                prop_oneof![
                    Just("io.modelcontextprotocol/protocolVersion".to_string()),
                    Just("io.modelcontextprotocol/clientCapabilities".to_string()),
                    Just("io.modelcontextprotocol/clientInfo".to_string()),
                    Just("name".to_string()),
                    Just("version".to_string()),
                    "[a-z]{1,6}"
                ],
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any `_meta` on any method, from either era, on one connection: exactly one
    /// answer with the request's id, no panic, and the connection still serves a
    /// good modern request afterwards.
    #[test]
    fn any_meta_gets_one_answer_and_the_connection_keeps_working(
        meta in any_json(),
        method in prop_oneof![
            Just("tools/list"), Just("server/discover"), Just("tools/call"),
            Just("initialize"), Just("ping"), Just("prompts/list"), Just("no/such"),
            Just("subscriptions/listen")
        ],
        legacy_first in any::<bool>(),
    ) {
        let mut sim = sim(ToolExposure::Index);
        if legacy_first {
            sim.client("c", Endpoint::Aggregate, json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}));
        }
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"name": "load_tools", "arguments": {"names": ["git/git_log"]}, "_meta": meta}});
        sim.client("c", Endpoint::Aggregate, message);
        let answers = sim.replies.iter().filter(|(c, m)| c == "c" && m["id"] == json!(1)).count();
        prop_assert_eq!(answers, 1);
        let listed = names(&mut sim, "c", 2, Some(json!({"name": "after", "version": "1"})));
        prop_assert_eq!(listed.len(), 4, "{:?}", listed);
    }

    /// Any filter on a listen: either refused with one answer, or acknowledged
    /// (and left open, no answer); never a panic, and the client keeps working.
    #[test]
    fn any_listen_filter_is_refused_or_acknowledged(filter in any_json()) {
        let mut sim = sim(ToolExposure::Full);
        sim.client("c", Endpoint::Aggregate, listen(1, filter));
        let answers = sim.replies.iter().filter(|(c, m)| c == "c" && m["id"] == json!(1)).count();
        let acks = sim
            .notifications
            .iter()
            .filter(|(c, m)| c == "c" && m["method"] == "notifications/subscriptions/acknowledged")
            .count();
        prop_assert_eq!(answers + acks, 1);
        sim.client("c", Endpoint::Aggregate, modern(2, "tools/list", json!({}), None));
        prop_assert!(sim.reply_to("c", json!(2)).is_some());
    }
}

#[test]
fn a_modern_requests_method_not_found_answer_carries_its_http_status() {
    let mut sim = sim(ToolExposure::Full);
    // Unknown to the gateway, and removed by the era: both 404 for a modern client.
    sim.client(
        "m",
        Endpoint::Aggregate,
        modern(1, "foo/bar", json!({}), None),
    );
    sim.client("m", Endpoint::Aggregate, modern(2, "ping", json!({}), None));
    for id in [1, 2] {
        assert_eq!(
            sim.reply_to("m", json!(id)).unwrap()["error"]["code"],
            -32601
        );
        assert_eq!(sim.answer_status("m", id), Some(404), "request {id}");
    }
    // Other answers, and any answer to a legacy request, are plain 200s.
    sim.client(
        "m",
        Endpoint::Aggregate,
        modern(3, "tools/list", json!({}), None),
    );
    assert_eq!(sim.answer_status("m", 3), None);
    sim.client("l", Endpoint::Aggregate, request(4, "foo/bar"));
    assert_eq!(
        sim.reply_to("l", json!(4)).unwrap()["error"]["code"],
        -32601
    );
    assert_eq!(sim.answer_status("l", 4), None);
    // On a live per-server endpoint an unknown method goes to the server: its
    // method-not-found answer carries the status too.
    sim.client("c", server_endpoint("git"), call(5, "git_status"));
    assert_eq!(sim.state("git"), Some(ServerState::Connected));
    sim.client(
        "m",
        server_endpoint("git"),
        modern(6, "custom/thing", json!({}), None),
    );
    assert_eq!(sim.sent_method("git", "custom/thing"), 1, "forwarded");
    assert_eq!(
        sim.reply_to("m", json!(6)).unwrap()["error"]["code"],
        -32601
    );
    assert_eq!(sim.answer_status("m", 6), Some(404));
}
