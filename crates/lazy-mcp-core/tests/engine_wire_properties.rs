//! Any bytes through the entry points production uses (`engine::wire`: what the
//! WASM facade's `clientPost`/`clientMessage`/`messageReceived` run, invalid UTF-8 included,
//! and `split_payloads`): no panic, the same effects as the typed `handle`, one
//! answer for every request the gateway was told to wait for (`clientBody`'s
//! envelope), and exactly one answer for a forwarded call whatever its server sends.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::engine::{Endpoint, Event, Settings};
use lazy_mcp_core::protocol::client_message::{client_body, envelope};
use lazy_mcp_core::protocol::modern_http::RequestHeaders;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::{json, Value};

/// What the host's bytes mean: invalid UTF-8 is U+FFFD, as Node's `toString('utf8')` reads it.
fn text_of(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// Server `s` (tool `echo`) catalogued, clients `c` (its endpoint) and `a`
/// (aggregate) initialized.
fn sim(behavior: Behavior) -> Sim {
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
    sim
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-z\"\\\\\\u{0}-\\u{1f}é😀 ]{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
            prop::collection::btree_map("[a-z_]{0,4}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn id() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0u64..50).prop_map(Value::from),
        "[a-z0-9-]{0,6}".prop_map(Value::from),
        Just(Value::Null),
        Just(json!(1.5)),
        Just(json!([1])),
    ]
}

/// What a client may send: requests of every kind the gateway serves,
/// notifications, responses, batches, as JSON text.
fn message() -> impl Strategy<Value = String> {
    let method = prop_oneof![
        Just("tools/call"),
        Just("tools/list"),
        Just("prompts/list"),
        Just("resources/list"),
        Just("resources/read"),
        Just("prompts/get"),
        Just("completion/complete"),
        Just("ping"),
        Just("initialize"),
        Just("logging/setLevel"),
        Just("server/discover"),
        Just("no/such"),
        Just("notifications/initialized"),
        Just("notifications/cancelled"),
    ];
    let params = prop_oneof![
        Just(None),
        Just(Some(json!({"name": "echo", "arguments": {"text": "hi"}}))),
        Just(Some(json!({"name": "s__echo", "arguments": {}}))),
        Just(Some(json!({"uri": "file:///x"}))),
        json_value().prop_map(Some),
    ];
    let single = (method, prop::option::of(id()), params, any::<bool>())
        .prop_map(|(method, id, params, response)| {
            let mut m = json!({"jsonrpc": "2.0"});
            if response {
                m["id"] = id.unwrap_or(json!("lazy-mcp-1"));
                m["result"] = params.unwrap_or(json!({}));
            } else {
                m["method"] = json!(method);
                if let Some(id) = id {
                    m["id"] = id;
                }
                if let Some(params) = params {
                    m["params"] = params;
                }
            }
            m
        })
        .boxed();
    prop_oneof![
        4 => single.clone().prop_map(|m| m.to_string()),
        1 => prop::collection::vec(single, 0..3).prop_map(|b| Value::from(b).to_string()),
    ]
}

/// Bytes as a client or server may really send them: `text` with a few bytes
/// replaced, dropped or inserted, any byte value (so invalid UTF-8 too).
fn damaged(text: String) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec((any::<usize>(), 0u8..3, any::<u8>()), 0..4).prop_map(move |edits| {
        let mut bytes = text.clone().into_bytes();
        for (at, kind, byte) in edits {
            let at = if bytes.is_empty() {
                0
            } else {
                at % bytes.len()
            };
            match kind {
                0 if !bytes.is_empty() => bytes[at] = byte,
                1 if !bytes.is_empty() => {
                    bytes.remove(at);
                }
                _ => bytes.insert(at, byte),
            }
        }
        bytes
    })
}

fn client_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => message().prop_flat_map(damaged),
        1 => prop::collection::vec(any::<u8>(), 0..40),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    /// The byte entry point and `split_payloads` give exactly what the typed
    /// `handle` gives for the same text (invalid UTF-8 read as U+FFFD).
    #[test]
    fn the_byte_entry_point_answers_exactly_as_the_typed_one(
        messages in prop::collection::vec((client_bytes(), any::<bool>()), 1..6),
    ) {
        let mut typed = sim(Behavior::Normal);
        let mut wire = sim(Behavior::Normal);
        for (bytes, aggregate) in messages {
            let (client, endpoint) = if aggregate { ("a", Endpoint::Aggregate) } else { ("c", server_endpoint("s")) };
            let event = Event::ClientMessage { client: client.into(), endpoint: endpoint.clone(), message: text_of(&bytes).into_owned() };
            let expected = typed.engine.handle(typed.now, event);
            let parts = wire.engine.client_message_bytes(wire.now, client, endpoint_name(&endpoint), &bytes);
            let got = joined(parts);
            prop_assert_eq!(&got, &expected);
            for (sim, effects) in [(&mut typed, expected), (&mut wire, got)] {
                for effect in effects {
                    sim.perform(effect);
                }
                sim.run();
            }
        }
        prop_assert_eq!(typed.engine.snapshot_json(), wire.engine.snapshot_json());
    }

    /// A POST body read and served in one crossing (`client_post_bytes`, WASM
    /// `clientPost`) gives the routing `clientBody` gave and exactly the effects
    /// the gateway's two crossings gave (each batch member, else the body, as
    /// one client message); a body the gateway refuses (no session, no
    /// `initialize`, not sessionless) is not served at all.
    #[test]
    fn one_crossing_per_body_answers_exactly_as_routing_then_messages(
        bodies in prop::collection::vec((client_bytes(), any::<bool>(), any::<bool>()), 1..6),
    ) {
        let mut two = sim(Behavior::Normal);
        let mut one = sim(Behavior::Normal);
        for (bytes, aggregate, in_session) in bodies {
            let (client, endpoint) = if aggregate { ("a", Endpoint::Aggregate) } else { ("c", server_endpoint("s")) };
            let text = text_of(&bytes).into_owned();
            let routed = client_body(&text);
            let refused = !routed.batch && routed.messages.first().and_then(|m| m.error.as_ref()).is_some_and(|e| e.status.is_some());
            let taken = !refused && (in_session || routed.opens_session || routed.sessionless);
            let mut expected = Vec::new();
            if taken {
                if routed.batch {
                    for m in &routed.messages {
                        let parts = two.engine.client_message_bytes(two.now, client, endpoint_name(&endpoint), m.text.as_deref().unwrap_or_default().as_bytes());
                        expected.extend(joined(parts));
                    }
                } else {
                    expected = joined(two.engine.client_message_bytes(two.now, client, endpoint_name(&endpoint), &bytes));
                }
            }
            let mut parts = one.engine.client_post_bytes(one.now, client, endpoint_name(&endpoint), &bytes, None, in_session);
            let routing: Value = serde_json::from_str(&parts.remove(0)).unwrap();
            prop_assert_eq!(&routing, &serde_json::to_value(&routed).unwrap());
            let got = joined(parts);
            prop_assert_eq!(&got, &expected);
            for (sim, effects) in [(&mut two, expected), (&mut one, got)] {
                for effect in effects {
                    sim.perform(effect);
                }
                sim.run();
            }
        }
        prop_assert_eq!(two.engine.snapshot_json(), one.engine.snapshot_json());
    }

    /// Whatever a client sends, it gets one answer exactly when the gateway was
    /// told to wait for one (`clientBody`'s envelope), with the id it was told;
    /// a well-formed request always gets one, with its own id.
    #[test]
    fn every_request_gets_one_answer_with_the_id_the_gateway_waits_for(
        messages in prop::collection::vec((client_bytes(), any::<bool>()), 1..8),
    ) {
        let mut sim = sim(Behavior::Normal);
        for (bytes, aggregate) in messages {
            let (client, endpoint) = if aggregate { ("a", Endpoint::Aggregate) } else { ("c", server_endpoint("s")) };
            let text = text_of(&bytes).into_owned();
            let promised = envelope(&text);
            let before = sim.replies.len();
            sim.client_bytes(client, &endpoint, &bytes);
            let answers: Vec<&Value> = sim.replies[before..].iter().filter(|(c, _)| c == client).map(|(_, m)| m).collect();
            prop_assert_eq!(answers.len(), usize::from(promised.expects_reply), "{} -> {:?}", text, answers);
            if let Some(answer) = answers.first() {
                prop_assert_eq!(&answer["id"], &promised.id, "{}", text);
            }
            // An independent reading: a plain valid request is answered under its id.
            if let Ok(Value::Object(m)) = serde_json::from_str::<Value>(&text) {
                let id_ok = m.get("id").is_some_and(|id| id.is_string() || id.is_number());
                if m.get("jsonrpc") == Some(&json!("2.0")) && m.get("method").is_some_and(Value::is_string) && id_ok {
                    prop_assert_eq!(answers.len(), 1, "{}", text);
                    prop_assert_eq!(Some(answers[0]["id"].clone()), m.get("id").cloned());
                }
            }
        }
        // And it keeps serving.
        sim.client("c", server_endpoint("s"), call(99, "echo"));
        prop_assert!(sim.reply_to("c", json!(99)).is_some_and(|r| r.get("result").is_some()));
    }

    /// Whatever a server sends while a call is in flight (its answer, damaged or
    /// not, batches, other ids, notifications, bytes that are not UTF-8), the
    /// call gets exactly one answer once the connection ends, and nothing that is
    /// not JSON is ever sent upstream (the simulated host parses every `send`).
    #[test]
    fn a_forwarded_call_gets_exactly_one_answer_whatever_its_server_sends(
        sends in prop::collection::vec((0u8..5, json_value()), 1..5),
        damage in prop::collection::vec(prop::collection::vec((any::<usize>(), 0u8..3, any::<u8>()), 0..3), 5),
        noise in prop::collection::vec(any::<u8>(), 0..24),
    ) {
        let mut sim = sim(Behavior::CallHangs);
        sim.client("c", server_endpoint("s"), json!({"jsonrpc": "2.0", "id": "w", "method": "tools/call", "params": {"name": "echo", "arguments": {}, "_meta": {"progressToken": "p"}}}));
        let upstream = sim.sent.iter().rev().find(|(_, m)| m["method"] == "tools/call").map(|(_, m)| m["id"].clone()).unwrap();
        let conn = sim.conn_of("s").unwrap();
        for (i, (kind, value)) in sends.into_iter().enumerate() {
            let text = match kind {
                0 => json!({"jsonrpc": "2.0", "id": upstream, "result": value}).to_string(),
                1 => json!({"jsonrpc": "2.0", "id": upstream, "error": {"code": -1, "message": "no", "data": value}}).to_string(),
                2 => json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "p", "progress": 1, "message": value}}).to_string(),
                3 => Value::from(vec![json!({"jsonrpc": "2.0", "id": 12345, "result": value}), json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}})]).to_string(),
                _ => String::from_utf8_lossy(&noise).into_owned(),
            };
            let mut bytes = text.into_bytes();
            for &(at, op, byte) in &damage[i % damage.len()] {
                let at = if bytes.is_empty() { 0 } else { at % bytes.len() };
                match op {
                    0 if !bytes.is_empty() => bytes[at] = byte,
                    1 if !bytes.is_empty() => { bytes.remove(at); }
                    _ => bytes.insert(at, byte),
                }
            }
            sim.server_bytes(conn, &bytes);
            let so_far = sim.replies.iter().filter(|(c, m)| c == "c" && m["id"] == "w").count();
            prop_assert!(so_far <= 1, "answered {} times", so_far);
        }
        sim.send(Event::ConnectionClosed { conn, reason: "gone".into(), exit_code: Some(1), stderr_tail: None });
        let answers = sim.replies.iter().filter(|(c, m)| c == "c" && m["id"] == "w").count();
        prop_assert_eq!(answers, 1);
    }
}

/// Ids a call may carry: the compact form holds unsigned integers, strings JSON
/// writes as they are, and null; any other (a quote or backslash in a string,
/// a negative or fractional number) keeps the parts JSON.
fn any_id() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0u64..50).prop_map(Value::from),
        Just(json!(u64::MAX)),
        Just(json!((1u64 << 53) + 1)),
        "[a-z0-9 é-]{0,6}".prop_map(Value::from),
        "[a-z\"\\\\]{1,4}".prop_map(Value::from),
        Just(Value::Null),
        Just(json!(-3)),
        Just(json!(1.5)),
    ]
}

/// Text JSON writes as it is: what a compact part may hold of a client or an id.
fn plain(text: &str) -> bool {
    !text.chars().any(|c| c == '"' || c == '\\' || c < ' ')
}

/// Effects as the usual warm call has them, read from their JSON (an independent
/// statement of when the compact form applies): only `send`s without headers or
/// a stream to open and `reply`s without an HTTP status, to a client JSON writes
/// as it is, under an unsigned integer, plain string or null id.
fn usual_effects(json: &str) -> bool {
    let effects: Vec<Value> = serde_json::from_str(json).unwrap();
    let id_ok = |id: &Value| id.is_u64() || id.is_null() || id.as_str().is_some_and(plain);
    !effects.is_empty()
        && effects.iter().all(|e| {
            let keys: Vec<&str> = e.as_object().unwrap().keys().map(String::as_str).collect();
            let only = |allowed: &[&str]| keys.iter().all(|k| allowed.contains(k));
            match e["type"].as_str() {
                Some("send") => only(&["type", "conn", "message", "requestId"]),
                Some("reply") => {
                    only(&["type", "client", "id", "message"])
                        && e["client"].as_str().is_some_and(plain)
                        && id_ok(&e["id"])
                }
                _ => false,
            }
        })
}

/// One crossing's parts, compact and JSON, for the same input: the same count, the
/// same payloads, and the first `routed` parts (the routing) and then the effects read
/// back to what the JSON says; the effects compact exactly when they are the usual
/// ones. Returns whether any part was compact.
fn same_parts(got: &[String], expected: &[String], routed: bool) -> Result<bool, TestCaseError> {
    prop_assert_eq!(got.len(), expected.len());
    // The facade joins the parts with U+001E and the host cuts them there.
    prop_assert!(
        got.iter().all(|p| !p.contains('\u{1e}')),
        "a part holds U+001E: {:?}",
        got
    );
    let mut compact = false;
    let mut at = 0;
    if routed {
        let mut routing: Value = serde_json::from_str(&expected[0]).unwrap();
        if got[0].starts_with('#') {
            compact = true;
            for m in routing["messages"].as_array_mut().unwrap() {
                m.as_object_mut().unwrap().remove("method");
            }
        }
        prop_assert_eq!(compact_routing_value(&got[0]), routing);
        at = 1;
    }
    compact |= got[at].starts_with('#');
    prop_assert_eq!(
        got[at].starts_with('#'),
        usual_effects(&expected[at]),
        "{:?}",
        expected[at]
    );
    prop_assert_eq!(
        compact_effects_value(&got[at]),
        serde_json::from_str::<Value>(&expected[at]).unwrap()
    );
    prop_assert_eq!(&got[at + 1..], &expected[at + 1..]);
    Ok(compact)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    /// The compact forms the WASM facade's joined crossings return
    /// (`client_post_compact`, `client_message_compact`, `message_received_compact`)
    /// say exactly what the JSON forms say: the same routing (less the method),
    /// effects and payloads, body by body, line by line and answer by answer, two
    /// engines in step.
    #[test]
    fn the_compact_forms_say_what_the_json_forms_say(
        bodies in prop::collection::vec((client_bytes(), any::<bool>(), any::<bool>()), 0..5),
        lines in prop::collection::vec((client_bytes(), any::<bool>()), 0..4),
        calls in prop::collection::vec((any_id(), 0u8..3), 1..5),
    ) {
        let mut json_sim = sim(Behavior::CallHangs);
        let mut compact_sim = sim(Behavior::CallHangs);
        let (mut compact_seen, mut answered_compact) = (false, false);
        // Every routing flag: a session opened, a notification, a sessionless request.
        let mut posts: Vec<(Vec<u8>, bool, bool)> = [
            (json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "n", "version": "1"}}}), false),
            (json!({"jsonrpc": "2.0", "method": "notifications/initialized"}), true),
            (json!({"jsonrpc": "2.0", "id": "d", "method": "server/discover"}), false),
        ]
        .into_iter()
        .map(|(m, in_session)| (m.to_string().into_bytes(), false, in_session))
        .chain(bodies)
        .collect();
        for (i, (id, _)) in calls.iter().enumerate() {
            // Every other call with a progress token (as VS Code sends them), of the ids' kinds.
            let mut params = json!({"name": "echo", "arguments": {"i": i}});
            if i % 2 == 1 {
                params["_meta"] = json!({"progressToken": calls[i - 1].0});
            }
            posts.push((json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string().into_bytes(), false, true));
        }
        for (i, (bytes, aggregate, in_session)) in posts.into_iter().enumerate() {
            let (client, endpoint) = if aggregate { ("a", Endpoint::Aggregate) } else { ("c", server_endpoint("s")) };
            // Every third with modern-era headers: as JSON on one side, as values on the other.
            let modern = i % 3 == 2;
            let headers_json = modern.then(|| json!({"protocolVersion": "2026-07-28", "method": "tools/call", "name": "echo"}).to_string());
            let headers = if modern {
                RequestHeaders { protocol_version: Some("2026-07-28".into()), method: Some("tools/call".into()), name: Some("echo".into()) }
            } else {
                RequestHeaders::default()
            };
            let expected = json_sim.engine.client_post_bytes(json_sim.now, client, endpoint_name(&endpoint), &bytes, headers_json.as_deref(), in_session);
            let got = compact_sim.engine.client_post_compact(compact_sim.now, client, endpoint_name(&endpoint), &bytes, headers, in_session);
            compact_seen |= same_parts(&got, &expected, true)?;
            for sim in [&mut json_sim, &mut compact_sim] {
                for effect in joined(expected[1..].to_vec()) {
                    sim.perform(effect);
                }
                sim.run();
            }
        }
        // Lines as `serve --stdio` hands them over (`clientMessage`): any bytes, then
        // each call again on the aggregate endpoint, as the stdio client makes it.
        let calls_as_lines = calls.iter().enumerate().map(|(i, (id, _))| {
            let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "s__echo", "arguments": {"i": i}}});
            (call.to_string().into_bytes(), true)
        });
        for (bytes, aggregate) in lines.into_iter().chain(calls_as_lines) {
            let (client, endpoint) = if aggregate { ("a", Endpoint::Aggregate) } else { ("c", server_endpoint("s")) };
            let expected = json_sim.engine.client_message_bytes(json_sim.now, client, endpoint_name(&endpoint), &bytes);
            let got = compact_sim.engine.client_message_compact(compact_sim.now, client, endpoint_name(&endpoint), &bytes);
            same_parts(&got, &expected, false)?;
            for sim in [&mut json_sim, &mut compact_sim] {
                for effect in joined(expected.clone()) {
                    sim.perform(effect);
                }
                sim.run();
            }
        }
        // The calls hang upstream: answer each (a result, an error, or progress first).
        // (None forwarded, e.g. every id refused: nothing to answer.)
        let conn = json_sim.conn_of("s").unwrap_or_default();
        // Each forwarded call (its index in `calls` in its arguments) answered as `calls` says.
        let upstream: Vec<(Value, usize)> = json_sim.sent.iter().filter(|(_, m)| m["method"] == "tools/call").map(|(_, m)| (m["id"].clone(), m["params"]["arguments"]["i"].as_u64().unwrap_or_default() as usize)).collect();
        let mut plain_answer = false;
        for (id, i) in &upstream {
            let Some((client_id, kind)) = calls.get(*i) else { continue };
            let kind = *kind;
            plain_answer |= client_id.is_u64() && kind < 2;
            let answer = match kind {
                0 => json!({"jsonrpc": "2.0", "id": id, "result": {"content": []}}),
                1 => json!({"jsonrpc": "2.0", "id": id, "error": {"code": -1, "message": "no"}}),
                _ => json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}}),
            }
            .to_string();
            let expected = json_sim.engine.message_received_bytes(json_sim.now, conn, answer.as_bytes());
            let got = compact_sim.engine.message_received_compact(compact_sim.now, conn, answer.as_bytes());
            answered_compact |= same_parts(&got, &expected, false)?;
            for sim in [&mut json_sim, &mut compact_sim] {
                for effect in joined(expected.clone()) {
                    sim.perform(effect);
                }
                sim.run();
            }
        }
        prop_assert_eq!(json_sim.engine.snapshot_json(), compact_sim.engine.snapshot_json());
        let plain_call = calls.iter().any(|(id, kind)| id.is_u64() && *kind < 2);
        prop_assert!(compact_seen || !plain_call, "a call with an unsigned id crossed compact");
        prop_assert!(answered_compact || !plain_answer, "an answer to a call with an unsigned id crossed compact");
    }
}
