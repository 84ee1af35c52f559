//! The gateway's hot path in the core, natively and without I/O: one client's
//! `tools/call` to a CONNECTED server and the server's answer, as the WASM facade
//! runs them (`client_post_compact`, `message_received_compact`; with `HOT_PATH_JSON=1`
//! the all-JSON forms the facade returned before, `*_bytes`). Prints the time per round; under
//! `valgrind --tool=callgrind` it gives repeatable instruction counts per round.
//! Run: cargo run --release -p lazy-mcp-core --example hot_path_bench -- [ROUNDS] [MESSAGE_BYTES]
// `value["key"]` on a serde_json::Value gives Null when absent, never panics.
#![allow(clippy::indexing_slicing)]

use lazy_mcp_core::engine::effects_json::split_payloads;
use lazy_mcp_core::engine::{Endpoint, Engine, Settings};
use lazy_mcp_core::protocol::modern_http::RequestHeaders;
use serde_json::{json, Value};
use std::time::Instant;

fn effects_of(parts: &[String]) -> Vec<Value> {
    let mut effects: Vec<Value> = parts
        .first()
        .and_then(|j| serde_json::from_str(j).ok())
        .unwrap_or_default();
    let mut next = 1;
    for e in &mut effects {
        if matches!(e["type"].as_str(), Some("send" | "reply" | "notifyClient")) {
            e["message"] = json!(parts.get(next).cloned().unwrap_or_default());
            next += 1;
        }
    }
    effects
}

fn handle(engine: &mut Engine, event: Value) -> Vec<Value> {
    serde_json::from_str(&engine.handle_json(1, &event.to_string())).unwrap_or_default()
}

/// Answers every request the engine sent to `conn` until it sends none.
fn answer_all(engine: &mut Engine, conn: u64, mut effects: Vec<Value>) -> Vec<Value> {
    for _ in 0..20 {
        let requests: Vec<Value> = effects
            .iter()
            .filter(|e| e["type"] == "send")
            .filter_map(|e| serde_json::from_str::<Value>(e["message"].as_str()?).ok())
            .filter(|m| m["id"].is_number() && m["method"].is_string())
            .collect();
        if requests.is_empty() {
            break;
        }
        let mut next = Vec::new();
        for m in requests {
            let result = match m["method"].as_str() {
                Some("initialize") => {
                    json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}})
                }
                Some("tools/list") => {
                    json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]})
                }
                Some(other) => json!({ other.split('/').next().unwrap_or(""): [] }),
                None => json!({}),
            };
            let answer = json!({"jsonrpc": "2.0", "id": m["id"], "result": result}).to_string();
            next.extend(effects_of(&split_payloads(
                engine.handle_message_received(1, conn, &answer),
            )));
        }
        effects = next;
    }
    effects
}

fn open_conn(effects: &[Value]) -> Option<u64> {
    effects
        .iter()
        .find(|e| e["type"] == "open")
        .and_then(|e| e["conn"].as_u64())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(100_000);
    let bytes: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(5);
    let mut engine = Engine::new(Settings::default());
    let server = json!({"name": "s", "transport": {"type": "stdio", "command": "x", "args": [], "env": {}, "cwd": null}, "enabled": true, "autoConnect": true, "tools": {"kind": "all"}, "loadedByVscode": false, "fingerprint": "f", "source": {"file": "x", "line": 1, "column": 1, "format": "claude-code", "scope": "project"}});
    let effects = match serde_json::from_value(server) {
        Ok(server) => effects_of(&split_payloads(engine.apply_servers(1, vec![server]))),
        Err(error) => {
            eprintln!("the bench's server config does not read: {error}");
            std::process::exit(1);
        }
    };
    let Some(mut conn) = open_conn(&effects) else {
        eprintln!("no open effect");
        std::process::exit(1);
    };
    let effects = handle(
        &mut engine,
        json!({"type": "connectionOpened", "conn": conn, "pid": 1}),
    );
    answer_all(&mut engine, conn, effects);
    let endpoint = || Endpoint::Server { name: "s".into() };
    let client_sends = |engine: &mut Engine, m: Value| {
        effects_of(&split_payloads(engine.handle_client_message(
            1,
            "c",
            endpoint(),
            &m.to_string(),
        )))
    };
    client_sends(
        &mut engine,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}}}),
    );
    client_sends(
        &mut engine,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    let mut effects = client_sends(
        &mut engine,
        json!({"jsonrpc": "2.0", "id": "warm", "method": "tools/call", "params": {"name": "echo", "arguments": {}}}),
    );
    if let Some(c) = open_conn(&effects) {
        conn = c;
        effects = handle(
            &mut engine,
            json!({"type": "connectionOpened", "conn": conn, "pid": 2}),
        );
    }
    answer_all(&mut engine, conn, effects);
    let state = engine.snapshot_json();
    if !state.contains("CONNECTED") {
        eprintln!("the simulated server is not CONNECTED: {state}");
        std::process::exit(1);
    }

    let message = "x".repeat(bytes);
    let json_forms = std::env::var_os("HOT_PATH_JSON").is_some();
    let t0 = Instant::now();
    let mut checksum = 0usize;
    for i in 0..rounds {
        let request = format!(
            r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"echo","arguments":{{"message":"{message}"}}}}}}"#
        );
        // What the gateway does with a POST: read the body and serve it in one crossing.
        let (endpoint, body) = (Some("s".into()), request.as_bytes());
        let out = if json_forms {
            engine.client_post_bytes(1, "c", endpoint, body, Some("{}"), true)
        } else {
            engine.client_post_compact(1, "c", endpoint, body, RequestHeaders::default(), true)
        };
        checksum += out.first().map_or(0, String::len);
        let Some(sent) = out.get(2) else {
            eprintln!("no send: {out:?}");
            std::process::exit(1);
        };
        let id_at = sent.find("\"id\":").map(|at| at + 5).unwrap_or(0);
        let id: String = sent[id_at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let answer = format!(
            r#"{{"result":{{"content":[{{"type":"text","text":"Echo: {message}"}}]}},"jsonrpc":"2.0","id":{id}}}"#
        );
        let back = if json_forms {
            engine.message_received_bytes(1, conn, answer.as_bytes())
        } else {
            engine.message_received_compact(1, conn, answer.as_bytes())
        };
        checksum += back.iter().map(String::len).sum::<usize>();
    }
    let us = t0.elapsed().as_secs_f64() * 1e6 / rounds as f64;
    println!("{{\"rounds\":{rounds},\"messageBytes\":{bytes},\"usPerRound\":{us:.3},\"checksum\":{checksum}}}");
}
