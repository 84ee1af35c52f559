//! The engine owns an HTTP connection's transport state (ARCHITECTURE.md, "Who
//! owns HTTP transport state"): the requests in flight and the protocol version.
//! The host's connection moves bytes: it reports the end of each POST's reply
//! (`replyEnded`), answered or not, and the engine decides what that end means;
//! every message's `send` carries the `MCP-Protocol-Version` it needs.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::engine::{Effect, Event, ServerState, Settings};
use lazy_mcp_core::vec_map::VecMap;
use serde_json::{json, Value};

const ENDED: &str = "the reply stream from http://127.0.0.1:1/mcp ended before the response";

fn kind(effect: &Effect) -> String {
    let json = serde_json::to_value(effect).unwrap();
    json["type"].as_str().unwrap().to_string()
}

fn fake(behavior: Behavior) -> FakeServer {
    FakeServer {
        behavior,
        ..FakeServer::with_tools(&["echo"])
    }
}

/// `web` over HTTP and `pipe` over stdio, both legacy and catalogued.
fn both(web: FakeServer, pipe: FakeServer) -> Sim {
    let mut sim = Sim::new(Settings::default())
        .fake("web", web)
        .fake("pipe", pipe);
    sim.oauth.public.insert("web".into()); // a remote server without sign-in
    sim.apply(vec![http_config("web"), config("pipe")]);
    sim
}

/// Every `send` on `conn`: the message and its headers.
fn sends_on(sim: &Sim, on: u64) -> Vec<(Value, VecMap<String, String>)> {
    sim.effects
        .iter()
        .filter_map(|e| match e {
            Effect::Send {
                conn,
                message,
                headers,
                ..
            } if *conn == on => Some((serde_json::from_str(message).unwrap(), headers.clone())),
            _ => None,
        })
        .collect()
}

/// The upstream id of the last `tools/call` sent on `conn`.
fn call_id(sim: &Sim, conn: u64) -> u64 {
    sends_on(sim, conn)
        .iter()
        .rev()
        .find(|(m, _)| m["method"] == "tools/call")
        .and_then(|(m, _)| m["id"].as_u64())
        .unwrap()
}

/// Effects of one warm call to an HTTP server (connected, catalogued), as the
/// host sees them: the client's message in, the server's answer in, and the
/// end of the POST's reply (which the Sim reports like the host's connection).
#[test]
fn a_warm_http_call_makes_a_send_and_a_reply_and_nothing_else() {
    let mut sim = both(fake(Behavior::Normal), fake(Behavior::Normal));
    sim.client("c", server_endpoint("web"), call(1, "echo"));
    assert!(sim.reply_to("c", json!(1)).is_some());
    let before = sim.effects.len();
    sim.client("c", server_endpoint("web"), call(2, "echo"));
    assert_eq!(
        sim.reply_to("c", json!(2)).unwrap()["result"]["content"][0]["type"],
        "text"
    );
    let kinds: Vec<String> = sim.effects[before..].iter().map(kind).collect();
    eprintln!("effects per warm HTTP call: {} {kinds:?}", kinds.len());
    assert_eq!(kinds, ["send", "reply"]);
}

#[test]
fn a_reply_ending_after_the_answer_fails_nothing() {
    let mut sim = both(fake(Behavior::Normal), fake(Behavior::Normal));
    sim.client("c", server_endpoint("web"), call(1, "echo"));
    let conn = sim.conn_of("web").unwrap();
    let id = call_id(&sim, conn);
    assert!(sim.reply_to("c", json!(1)).unwrap()["result"].is_object());
    // The Sim reported the end of every reply already; once more, with an error status.
    let effects = sim.effects.len();
    sim.send(Event::ReplyEnded {
        conn,
        request_id: id,
        reason: "http://127.0.0.1:1/mcp answered HTTP 502 Bad Gateway".into(),
        http_status: Some(502),
    });
    assert_eq!(sim.effects.len(), effects, "{:?}", &sim.effects[effects..]);
    let replies: Vec<_> = sim.replies.iter().filter(|(_, m)| m["id"] == 1).collect();
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert!(
        !sim.logs().iter().any(|l| l.contains("failed")),
        "{:?}",
        sim.logs()
    );
    assert_eq!(sim.state("web"), Some(ServerState::Connected));
}

#[test]
fn a_reply_ending_before_the_answer_fails_exactly_that_request_with_the_hosts_reason() {
    let mut sim = both(fake(Behavior::CallHangs), fake(Behavior::Normal));
    sim.client("c", server_endpoint("web"), call(1, "echo"));
    let conn = sim.conn_of("web").unwrap();
    let first = call_id(&sim, conn);
    sim.client("c", server_endpoint("web"), call(2, "echo"));
    let second = call_id(&sim, conn);
    assert_ne!(first, second);
    sim.send(Event::ReplyEnded {
        conn,
        request_id: first,
        reason: ENDED.into(),
        http_status: None,
    });
    let failed = sim.reply_to("c", json!(1)).unwrap();
    assert_eq!(
        failed["error"],
        json!({"code": -32000, "message": ENDED, "data": {"transport": "http"}})
    );
    assert!(
        sim.reply_to("c", json!(2)).is_none(),
        "the other call still waits"
    );
    // An error status: the same, with the status.
    let why = "http://127.0.0.1:1/mcp answered HTTP 500 Internal Server Error: boom";
    sim.send(Event::ReplyEnded {
        conn,
        request_id: second,
        reason: why.into(),
        http_status: Some(500),
    });
    let failed = sim.reply_to("c", json!(2)).unwrap();
    assert_eq!(
        failed["error"],
        json!({"code": -32000, "message": why, "data": {"transport": "http", "httpStatus": 500}})
    );
    assert_eq!(sim.replies.iter().filter(|(_, m)| m["id"] == 1).count(), 1);
    assert_eq!(sim.state("web"), Some(ServerState::Connected));
    // The server answers the failed call late: nothing more reaches the client.
    sim.respond(
        conn,
        json!({"jsonrpc": "2.0", "id": first, "result": {"content": []}}),
    );
    sim.run();
    assert_eq!(sim.replies.iter().filter(|(_, m)| m["id"] == 1).count(), 1);
}

#[test]
fn a_cancelled_calls_reply_ending_fails_nothing() {
    let mut sim = both(fake(Behavior::CallHangs), fake(Behavior::Normal));
    sim.client("c", server_endpoint("web"), call(1, "echo"));
    let conn = sim.conn_of("web").unwrap();
    let id = call_id(&sim, conn);
    let cancel =
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
    sim.client("c", server_endpoint("web"), cancel);
    let effects = sim.effects.len();
    // The engine's `abortRequest` ended the POST: its reply ends with an error.
    sim.send(Event::ReplyEnded {
        conn,
        request_id: id,
        reason: "request to http://127.0.0.1:1/mcp failed: ECONNRESET".into(),
        http_status: None,
    });
    assert_eq!(sim.effects.len(), effects, "{:?}", &sim.effects[effects..]);
    assert!(
        sim.reply_to("c", json!(1)).is_none(),
        "a cancelled request is not answered"
    );
}

#[test]
fn the_version_header_is_on_every_http_send_after_initialize_and_on_none_for_stdio() {
    let older = |behavior| FakeServer {
        protocol_version: "2025-06-18".into(),
        ..fake(behavior)
    };
    let mut sim = both(older(Behavior::Normal), older(Behavior::Normal));
    // A cold call, then a warm one (the raw forwarding path).
    for id in [1, 2] {
        sim.client("c", server_endpoint("web"), call(id, "echo"));
        sim.client("c", server_endpoint("pipe"), call(id, "echo"));
    }
    // A server's own request: our answer carries it too.
    for server in ["web", "pipe"] {
        let conn = sim.conn_of(server).unwrap();
        sim.respond(
            conn,
            json!({"jsonrpc": "2.0", "id": "p1", "method": "ping"}),
        );
        sim.run();
    }
    let web = sim.conns_opened("web");
    assert!(web.len() >= 2, "the era probe, then initialize: {web:?}");
    let mut after_initialize = 0;
    for conn in &web {
        let mut negotiated = false;
        for (message, headers) in sends_on(&sim, *conn) {
            let version = headers.get("mcp-protocol-version").map(String::as_str);
            match message["method"].as_str() {
                Some("server/discover") => assert_eq!(version, Some("2026-07-28")),
                Some("initialize") => assert_eq!(version, None, "{message}"),
                _ => {
                    assert!(
                        negotiated,
                        "nothing but the handshake before its answer: {message}"
                    );
                    assert_eq!(version, Some("2025-06-18"), "{message}");
                    after_initialize += 1;
                }
            }
            negotiated |= message["method"] == "initialize";
        }
    }
    let sent: Vec<Value> = web
        .iter()
        .flat_map(|c| sends_on(&sim, *c))
        .map(|(m, _)| m)
        .collect();
    // Requests, notifications and our answer to the server's ping all carry it.
    assert!(sent
        .iter()
        .any(|m| m["method"] == "notifications/initialized"));
    assert!(sent.iter().any(|m| m["method"] == "tools/call"));
    assert!(sent
        .iter()
        .any(|m| m.get("method").is_none() && m["id"] == "p1"));
    assert!(after_initialize >= 5, "{sent:?}");
    let stdio: Vec<_> = sim
        .conns_opened("pipe")
        .iter()
        .flat_map(|c| sends_on(&sim, *c))
        .collect();
    assert!(stdio.len() >= 8, "{stdio:?}");
    assert!(stdio.iter().all(|(_, h)| h.is_empty()), "stdio: {stdio:?}");
}

#[test]
fn a_modern_http_servers_every_send_names_the_modern_version() {
    let modern = FakeServer {
        era: EraBehavior::Modern { ttl_ms: 0 },
        ..fake(Behavior::Normal)
    };
    let mut sim = both(modern, fake(Behavior::Normal));
    sim.client("c", server_endpoint("web"), call(1, "echo"));
    assert!(sim.reply_to("c", json!(1)).unwrap()["result"].is_object());
    let sends: Vec<_> = sim
        .conns_opened("web")
        .iter()
        .flat_map(|c| sends_on(&sim, *c))
        .collect();
    assert!(sends.len() >= 3, "{sends:?}");
    for (message, headers) in sends {
        assert_eq!(
            headers.get("mcp-protocol-version").map(String::as_str),
            Some("2026-07-28"),
            "{message}"
        );
    }
}

/// The host's HTTP connection sends what it is given as it comes; it holds
/// nothing for a first exchange. That is right because the engine sends nothing
/// else on a connection until its first request (the era probe, `initialize`)
/// is answered: calls wait for the handshake, and so does everything else.
#[test]
fn nothing_more_is_sent_on_an_http_connection_before_its_first_request_is_answered() {
    for era in [EraBehavior::HangOnDiscover, EraBehavior::Legacy] {
        let web = FakeServer {
            era: era.clone(),
            asks_roots: true,
            ..fake(Behavior::Hang) // never answers initialize
        };
        let mut sim = Sim::new(Settings::default()).fake("web", web);
        sim.oauth.public.insert("web".into());
        sim.apply(vec![http_config("web")]);
        let conn = sim.conn_of("web").unwrap();
        sim.client("c", server_endpoint("web"), call(1, "echo"));
        sim.client("c", server_endpoint("web"), call(2, "echo"));
        sim.send(Event::WorkspaceFoldersChanged {
            folders: vec!["/w2".into()],
        });
        let sends = sends_on(&sim, conn);
        assert_eq!(sends.len(), 1, "{era:?}: {sends:?}");
        assert!(sim.reply_to("c", json!(1)).is_none());
    }
}

/// A modern client's `tools/call` of `tool` that declares elicitation, with `extra` params.
fn modern_call(id: u64, extra: Value) -> Value {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "modern", "version": "1"},
    });
    let mut params = json!({"name": "echo", "arguments": {}, "_meta": meta});
    for (key, value) in extra.as_object().unwrap() {
        params[key] = value.clone();
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

/// An answer held for its client's retry (the input bridge) is an answer: the
/// end of its reply fails nothing, and the retry gets it.
#[test]
fn an_answer_held_for_the_clients_retry_is_not_failed_by_its_replys_end() {
    let asker = FakeServer {
        asks_client: Some("elicitation/create".into()),
        ..FakeServer::with_tools(&["echo"])
    };
    let mut sim = Sim::new(Settings::default()).fake("old", asker);
    sim.oauth.public.insert("old".into());
    sim.apply(vec![http_config("old")]);
    sim.client("c", server_endpoint("old"), modern_call(1, json!({})));
    let state = sim.reply_to("c", json!(1)).unwrap()["result"]["requestState"].clone();
    assert!(state.is_string(), "{:?}", sim.replies);
    let conn = sim.conn_of("old").unwrap();
    let id = call_id(&sim, conn);
    // The server gave up waiting on its own and answered the call; then its reply ended.
    let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "timed out asking"}]}});
    sim.respond(conn, answer);
    sim.run();
    sim.send(Event::ReplyEnded {
        conn,
        request_id: id,
        reason: ENDED.into(),
        http_status: None,
    });
    assert_eq!(sim.replies.iter().filter(|(_, m)| m["id"] == 1).count(), 1);
    let answers = json!({"inputResponses": {}, "requestState": state});
    sim.client("c", server_endpoint("old"), modern_call(2, answers));
    let retry = sim.reply_to("c", json!(2)).unwrap();
    assert_eq!(
        retry["result"]["content"][0]["text"], "timed out asking",
        "{retry}"
    );
}
