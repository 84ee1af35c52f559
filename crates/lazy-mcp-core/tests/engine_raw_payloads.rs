//! The raw-payload hot path (`engine/clients/raw_forwarding.rs`, `protocol/raw_message.rs`):
//! a forwarded `tools/call` keeps its params and its answer byte for byte (only the
//! `id`, and on the aggregate endpoint the tool's name, change); text that is not
//! valid JSON never reaches an upstream server; no input panics. The simulated host
//! (engine_support) parses every `send` (a panic there is invalid JSON sent upstream)
//! and checks that each `reply`/`notifyClient` is routed by its message's own id/token.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::engine::{Effect, Endpoint, Event, Settings};
use proptest::prelude::*;
use serde_json::{json, Value};

/// A server `s` with tool `echo`, CONNECTED, and initialized clients on its own
/// endpoint (`c`) and on the aggregate endpoint (`a`).
fn connected(behavior: Behavior) -> Sim {
    let mut fake = FakeServer::with_tools(&["echo"]);
    fake.behavior = behavior;
    let mut sim = Sim::new(Settings::default()).fake("s", fake);
    sim.apply(vec![config("s")]);
    for (client, endpoint) in [("c", server_endpoint("s")), ("a", Endpoint::Aggregate)] {
        sim.client(client, endpoint.clone(), json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": client, "version": "1"}}}));
        sim.client(
            client,
            endpoint,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        );
    }
    sim.client("c", server_endpoint("s"), call(1, "echo"));
    sim
}

fn text_event(client: &str, endpoint: Endpoint, text: String) -> Event {
    Event::ClientMessage {
        client: client.into(),
        endpoint,
        message: text,
    }
}

/// Any JSON value, with strings that need escaping and non-ASCII text.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e9f64..1e9).prop_map(Value::from),
        "[a-z\"\\\\/\\u{0}-\\u{1f}é😀 ]{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map("[a-z_\"]{0,5}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// `text` with a few bytes changed, dropped or inserted (still a `String`).
fn mutate(text: &str, edits: &[(usize, u8, u8)]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for &(at, kind, byte) in edits {
        if bytes.is_empty() {
            break;
        }
        let at = at % bytes.len();
        let alphabet = b"{}[]\",:\\0a-e \n";
        let byte = alphabet[usize::from(byte) % alphabet.len()];
        match kind % 3 {
            0 => bytes[at] = byte,
            1 => {
                bytes.remove(at);
            }
            _ => bytes.insert(at, byte),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn sent_calls(sim: &Sim) -> Vec<Value> {
    sim.sent
        .iter()
        .filter(|(_, m)| m["method"] == "tools/call")
        .map(|(_, m)| m["params"].clone())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn forwarded_calls_keep_their_arguments_and_answers(
        arguments in json_value(),
        meta in prop::option::of(prop_oneof![Just(json!({"progressToken": "p"})), Just(json!({"progressToken": 7})), Just(json!({"progressToken": null})), Just(json!({}))]),
        spaced in any::<bool>(),
        aggregate in any::<bool>(),
    ) {
        let mut sim = connected(Behavior::Normal);
        let (client, endpoint, name) = if aggregate {
            ("a", Endpoint::Aggregate, "s__echo")
        } else {
            ("c", server_endpoint("s"), "echo")
        };
        let mut params = json!({"name": name, "arguments": arguments});
        if let Some(meta) = &meta {
            params["_meta"] = meta.clone();
        }
        let request = json!({"jsonrpc": "2.0", "id": "k-1", "method": "tools/call", "params": params});
        let text = if spaced { serde_json::to_string_pretty(&request).unwrap() } else { request.to_string() };
        let before = sent_calls(&sim).len();
        sim.send(text_event(client, endpoint, text));
        let sent = sent_calls(&sim);
        prop_assert_eq!(sent.len(), before + 1);
        // Upstream gets the params unchanged, but for the server's own tool name
        // (compared as read back from the client's text: serde_json's float reading is
        // not exact, the forwarded bytes are).
        let mut expected: Value = serde_json::from_str(&params.to_string()).unwrap();
        expected["name"] = json!("echo");
        prop_assert_eq!(sent.last().unwrap(), &expected);
        let reply = sim.reply_to(client, json!("k-1")).expect("one reply with the client's id");
        let echoed = format!("s:echo:{}", expected["arguments"]);
        prop_assert_eq!(&reply["result"]["content"][0]["text"], &json!(echoed));
    }

    #[test]
    fn text_that_is_not_json_never_reaches_the_server(
        edits in prop::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..4),
        aggregate in any::<bool>(),
    ) {
        let mut sim = connected(Behavior::Normal);
        let (client, endpoint, name) = if aggregate {
            ("a", Endpoint::Aggregate, "s__echo")
        } else {
            ("c", server_endpoint("s"), "echo")
        };
        let valid = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": name, "arguments": {"text": "a \"quoted\" é"}}}).to_string();
        let text = mutate(&valid, &edits);
        let before = sent_calls(&sim).len();
        let replies_before = sim.replies.len();
        sim.send(text_event(client, endpoint, text.clone()));
        let forwarded = sent_calls(&sim).len() - before;
        if serde_json::from_str::<Value>(&text).is_err() {
            prop_assert_eq!(forwarded, 0, "invalid JSON was forwarded: {}", text);
        }
        prop_assert!(forwarded <= 1);
        // Whatever it was, no more than one answer, and the engine keeps serving.
        prop_assert!(sim.replies.len() - replies_before <= 1);
        sim.client("c", server_endpoint("s"), call(10, "echo"));
        prop_assert!(sim.reply_to("c", json!(10)).is_some_and(|r| r.get("result").is_some()));
    }

    #[test]
    fn any_answer_text_from_the_server_is_read_without_a_panic(
        result in json_value(),
        edits in prop::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..3),
        as_error in any::<bool>(),
    ) {
        let mut sim = connected(Behavior::CallHangs);
        sim.client("c", server_endpoint("s"), json!({"jsonrpc": "2.0", "id": "w", "method": "tools/call", "params": {"name": "echo", "arguments": {}}}));
        let upstream_id = sim.sent.iter().rev().find(|(_, m)| m["method"] == "tools/call").map(|(_, m)| m["id"].clone()).unwrap();
        let conn = sim.conn_of("s").unwrap();
        let field = if as_error { "error" } else { "result" };
        let valid = format!(r#"{{"jsonrpc":"2.0","id":{upstream_id},"{field}":{result}}}"#);
        let text = if edits.is_empty() { valid } else { mutate(&valid, &edits) };
        sim.send(Event::MessageReceived { conn, message: text.clone() });
        let reply = sim.reply_to("c", json!("w"));
        if edits.is_empty() {
            // Intact: the client gets the server's payload under its own id.
            let sent: Value = serde_json::from_str(&result.to_string()).unwrap();
            prop_assert_eq!(reply.and_then(|r| r.get(field).cloned()), Some(sent));
        }
        // Every effect the engine produced is well-formed (the simulated host parsed them).
        let all_json = sim.effects.iter().all(|e| match e {
            Effect::Send { message, .. } => serde_json::from_str::<Value>(message).is_ok(),
            _ => true,
        });
        prop_assert!(all_json);
    }
}

#[test]
fn an_escape_heavy_result_passes_byte_for_byte_with_only_the_id_changed() {
    let mut sim = connected(Behavior::CallHangs);
    sim.client(
        "c",
        server_endpoint("s"),
        json!({"jsonrpc": "2.0", "id": "big", "method": "tools/call", "params": {"name": "echo", "arguments": {}}}),
    );
    let upstream_id = sim
        .sent
        .iter()
        .rev()
        .find(|(_, m)| m["method"] == "tools/call")
        .map(|(_, m)| m["id"].clone())
        .unwrap();
    let conn = sim.conn_of("s").unwrap();
    let payload =
        r#"{"content":[{"type":"text","text":"\"quoted\" \\ \u00e9 1.50e3"}],"n":1.50}   "#;
    let text = format!(r#"{{"jsonrpc":"2.0","id":{upstream_id},"result":{payload}}}"#);
    let mut engine_effects = sim.engine.handle(
        sim.now,
        Event::MessageReceived {
            conn,
            message: text,
        },
    );
    let reply = engine_effects
        .drain(..)
        .find_map(|e| match e {
            Effect::Reply { id, message, .. } => Some((id, message)),
            _ => None,
        })
        .unwrap();
    // The payload's bytes, escapes and number spelling included, are the server's own.
    assert_eq!(reply.0, json!("big"));
    assert_eq!(
        reply.1,
        format!(
            r#"{{"jsonrpc":"2.0","id":"big","result":{}}}"#,
            payload.trim_end()
        )
    );
}

#[test]
fn a_number_out_of_range_is_refused_as_before_not_forwarded() {
    let mut sim = connected(Behavior::Normal);
    let before = sent_calls(&sim).len();
    let text = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"n":1e999}}}"#;
    sim.send(text_event("c", server_endpoint("s"), text.into()));
    assert_eq!(
        sent_calls(&sim).len(),
        before,
        "1e999 is not read as JSON: never forwarded"
    );
    let reply = sim.reply_to("c", json!(5)).unwrap();
    assert_eq!(reply["error"]["code"], json!(-32700));
    // Ordinary exponents still work, through the full reading.
    let text = r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"n":1e3}}}"#;
    sim.send(text_event("c", server_endpoint("s"), text.into()));
    assert_eq!(sent_calls(&sim).len(), before + 1);
}
