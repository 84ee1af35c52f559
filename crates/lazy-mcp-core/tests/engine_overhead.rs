//! Rough cost of the engine on the warm-call path (native, release build):
//! `cargo test --release -p lazy-mcp-core --test engine_overhead -- --ignored --nocapture`
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::engine::{Effect, Endpoint, Event, Settings};
use serde_json::json;
use std::time::Instant;

#[test]
#[ignore = "a measurement, not a check; run in release"]
fn warm_call_overhead() {
    let names: Vec<String> = (0..50).map(|i| format!("tool_{i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut sim = Sim::new(Settings::default());
    for server in ["a", "b", "c", "d", "e", "f"] {
        sim.fakes
            .insert(server.into(), FakeServer::with_tools(&refs));
    }
    sim.apply(
        ["a", "b", "c", "d", "e", "f"]
            .iter()
            .map(|n| config(n))
            .collect(),
    );
    for (endpoint, label) in [
        (server_endpoint("a"), "server endpoint"),
        (Endpoint::Aggregate, "aggregate endpoint"),
    ] {
        let tool = if label == "aggregate endpoint" {
            "a__tool_7"
        } else {
            "tool_7"
        };
        sim.client("bench", endpoint.clone(), call(0, tool)); // connects
        let conn = sim.conn_of("a").unwrap();
        let rounds = 20_000u64;
        let start = Instant::now();
        for i in 1..=rounds {
            let request = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": tool, "arguments": {"text": "hello"}}});
            let effects = sim.engine.handle(
                sim.now,
                Event::ClientMessage {
                    client: "bench".into(),
                    endpoint: endpoint.clone(),
                    message: request.to_string(),
                },
            );
            let sent = effects
                .iter()
                .find_map(|e| match e {
                    Effect::Send { message, .. } => Some(message.clone()),
                    _ => None,
                })
                .unwrap();
            let id: serde_json::Value =
                serde_json::from_str::<serde_json::Value>(&sent).unwrap()["id"].clone();
            let response = json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "hello back"}]}});
            let effects = sim.engine.handle(
                sim.now,
                Event::MessageReceived {
                    conn,
                    message: response.to_string(),
                },
            );
            assert!(effects.iter().any(|e| matches!(e, Effect::Reply { .. })));
        }
        let per_call = start.elapsed().as_secs_f64() * 1e6 / rounds as f64;
        println!("{label}: {per_call:.1} µs per call round trip (incl. building the test JSON), 300 tools catalogued");
    }
}
