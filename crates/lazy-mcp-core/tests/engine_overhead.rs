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

#[test]
#[ignore = "a measurement, not a check; run in release"]
fn warm_start_cost_at_100_servers() {
    let tools: Vec<String> = (0..10).map(|i| format!("tool_{i}")).collect();
    let refs: Vec<&str> = tools.iter().map(String::as_str).collect();
    let names: Vec<String> = (0..100).map(|i| format!("server{i}")).collect();
    let mut cold = Sim::new(Settings {
        catalogue_concurrency: 8,
        ..Settings::default()
    });
    for name in &names {
        cold.fakes
            .insert(name.clone(), FakeServer::with_tools(&refs));
    }
    cold.apply(names.iter().map(|n| config(n)).collect());
    let blob = cold.persisted.clone().unwrap();
    let configs: Vec<_> = names.iter().map(|n| config(n)).collect();
    let start = Instant::now();
    let mut engine = lazy_mcp_core::engine::Engine::new(Settings::default());
    engine.handle(0, Event::CatalogueLoaded { blob: blob.clone() });
    let loaded = start.elapsed();
    let effects = engine.apply_servers(0, configs);
    let elapsed = start.elapsed();
    let snapshot_start = Instant::now();
    let _ = engine.snapshot_json();
    println!(
        "catalogueLoaded {:.2} ms, apply_servers {:.2} ms, snapshot {:.2} ms",
        loaded.as_secs_f64() * 1e3,
        (elapsed - loaded).as_secs_f64() * 1e3,
        snapshot_start.elapsed().as_secs_f64() * 1e3
    );
    assert!(!effects.iter().any(|e| matches!(e, Effect::Open { .. })));
    println!(
        "warm start, 100 servers x 10 tools ({} KB blob): {:.2} ms in the engine",
        blob.len() / 1024,
        elapsed.as_secs_f64() * 1e3
    );
}

/// Cost of comparing a listing with its approved baseline (issue 24): 500 tools,
/// unchanged (the common case: one hash per tool) and all changed (fields diffed too).
#[test]
#[ignore = "a measurement, not a check; run in release"]
fn definition_comparison_cost() {
    use lazy_mcp_core::engine::approved_definitions::{compare, Baseline};
    use lazy_mcp_core::engine::catalogue::CatalogueEntry;
    let tools: Vec<serde_json::Value> = (0..500)
        .map(|i| {
            json!({
                "name": format!("tool_{i}"),
                "description": format!("Tool number {i}: does one thing well, with a description about as long as the ones real servers send, {}", "x".repeat(120)),
                "inputSchema": {"type": "object", "properties": {
                    "path": {"type": "string", "description": "The file"},
                    "limit": {"type": "integer", "minimum": 1},
                    "mode": {"type": "string", "enum": ["a", "b", "c"]}
                }, "required": ["path"]},
                "annotations": {"readOnlyHint": true}
            })
        })
        .collect();
    let entry: CatalogueEntry = serde_json::from_value(json!({
        "fingerprint": "f", "cataloguedAtMs": 1,
        "initialize": {"protocolVersion": "2025-11-25"},
        "tools": tools,
    }))
    .unwrap();
    // Wall time on a shared machine includes waiting for a core: thread CPU time too.
    let cpu_ns = || -> u64 {
        std::fs::read_to_string("/proc/thread-self/schedstat")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    };
    let runs = 200u32;
    let measure = |what: &str, f: &mut dyn FnMut()| {
        let (wall, cpu) = (Instant::now(), cpu_ns());
        for _ in 0..runs {
            f();
        }
        let cpu_each = (cpu_ns() - cpu) / u64::from(runs);
        println!(
            "500 tools, {what}: {:?} wall, {:.3} ms CPU per run",
            wall.elapsed() / runs,
            cpu_each as f64 / 1e6
        );
    };
    let mut baseline = Baseline::default();
    measure("baseline created", &mut || {
        baseline = Baseline::of_entry("s", &entry, 1)
    });
    measure("compared, unchanged", &mut || {
        assert!(compare(&baseline, &entry).is_empty())
    });
    let mut changed = entry.clone();
    for tool in &mut changed.tools {
        tool["description"] = json!("changed");
    }
    measure("compared, all changed", &mut || {
        assert_eq!(compare(&baseline, &changed).items.len(), 500)
    });
}
