//! The shared owner's multiplexer step natively, without I/O: a `tools/call` in
//! (`Mux::client_message`) and server-memory's `read_graph` answer back
//! (`server_message`), as bench/mux-step.mjs runs it through WASM. Prints the
//! time per round; under `valgrind --tool=callgrind` it gives repeatable
//! instruction counts per round (run it with two ROUNDS values and subtract).
//! Run: cargo run --release -p lazy-mcp-core --example mux_step_bench -- [ROUNDS]
use lazy_mcp_core::shared::mux::{Mux, MuxEffect};
use lazy_mcp_core::tagged_json::from_tagged_json;
use serde_json::json;
use std::time::Instant;

fn event(mux: &mut Mux, value: serde_json::Value) -> Vec<MuxEffect> {
    match from_tagged_json(&value.to_string()) {
        Ok(event) => mux.handle(event),
        Err(_) => Vec::new(),
    }
}

fn upstream_id(effects: &[MuxEffect]) -> u64 {
    match effects.first() {
        // The id's digits (the bench's own reading kept small: it counts in every round).
        Some(MuxEffect::ToServer { message, .. }) => message
            .split("\"id\":")
            .nth(1)
            .map(|rest| {
                rest.bytes()
                    .take_while(u8::is_ascii_digit)
                    .fold(0, |n, d| n * 10 + u64::from(d - b'0'))
            })
            .unwrap_or_default(),
        _ => 0,
    }
}

fn main() {
    let rounds: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100_000);
    let mut mux = Mux::new();
    let launch = json!({"key": "k", "rootsKey": "", "rootsBound": false, "workspaceCwd": false, "omitEnv": [], "holder": "bench"});
    let spawned = event(
        &mut mux,
        json!({"type": "attach", "attach": 1, "server": "memory", "launch": launch, "transport": {"type": "stdio", "command": "x", "args": []}, "cwd": null, "env": {}, "nowMs": 1}),
    );
    let process = spawned
        .iter()
        .find_map(|e| match e {
            MuxEffect::Spawn { process, .. } => Some(*process),
            _ => None,
        })
        .unwrap_or(1);
    event(
        &mut mux,
        json!({"type": "processOpened", "process": process, "pid": 1}),
    );
    let init = mux.client_message(1, &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}}}).to_string());
    let init_id = upstream_id(&init);
    mux.server_message(process, &json!({"jsonrpc": "2.0", "id": init_id, "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}}).to_string());
    mux.client_message(
        1,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    let text = json!({"type": "text", "text": "{\n  \"entities\": [],\n  \"relations\": []\n}"})
        .to_string();
    let started = Instant::now();
    let mut bytes = 0;
    for i in 0..rounds {
        let call = mux.client_message(1, &format!(r#"{{"method":"tools/call","params":{{"name":"read_graph","arguments":{{}}}},"jsonrpc":"2.0","id":{i}}}"#));
        let sid = upstream_id(&call);
        mux.recycle(call);
        let answer = mux.server_message(
            process,
            &format!(r#"{{"result":{{"content":[{text}]}},"jsonrpc":"2.0","id":{sid}}}"#),
        );
        bytes += answer.len();
        mux.recycle(answer);
    }
    let per_round = started.elapsed().as_secs_f64() * 1e6 / rounds.max(1) as f64;
    println!("{rounds} rounds, {per_round:.2} µs per round ({bytes} answers)");
}
