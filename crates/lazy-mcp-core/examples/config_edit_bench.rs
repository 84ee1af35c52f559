//! Times a config load and a one-server config edit through the engine natively
//! (written by bench/config-edit.mjs: `{blob, sources, files, edit}`), the
//! native side of `npm run bench:config-edit`. Prints one JSON line of timings.
//! Run: cargo run --release -p lazy-mcp-core --example config_edit_bench -- FILE [RUNS] [edits]
//! (`edits`: one load, then RUNS edits on the same engine, for profiling the edit alone).
// `value["key"]` on a serde_json::Value gives Null when absent, never panics.
#![allow(clippy::indexing_slicing)]

use lazy_mcp_core::engine::{Engine, Settings};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::Instant;

fn exchange(engine: &mut Engine, disk: &BTreeMap<String, String>, event: Value) -> Vec<Value> {
    let mut all = Vec::new();
    let mut queue = vec![event];
    while let Some(event) = queue.pop() {
        let out = engine.handle_json(1, &event.to_string());
        let effects: Vec<Value> = serde_json::from_str(&out).unwrap_or_default();
        for effect in &effects {
            if effect["type"] == "readFiles" {
                let files: Vec<Value> = effect["paths"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|p| json!({ "path": p, "content": p.as_str().and_then(|p| disk.get(p)) }))
                    .collect();
                queue
                    .push(json!({ "type": "filesRead", "round": effect["round"], "files": files }));
            }
        }
        all.extend(effects);
    }
    all
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(file) = args.next() else {
        eprintln!("usage: config_edit_bench FILE [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(200);
    let input: Value = match std::fs::read_to_string(&file).map(|s| serde_json::from_str(&s)) {
        Ok(Ok(v)) => v,
        _ => {
            eprintln!("cannot read {file}");
            std::process::exit(1);
        }
    };
    let mut disk: BTreeMap<String, String> = input["files"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| {
            Some((
                f["path"].as_str()?.to_string(),
                f["content"].as_str()?.to_string(),
            ))
        })
        .collect();
    let edit_path = input["edit"]["path"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let versions: Vec<String> = input["edit"]["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(String::from))
        .collect();
    let (mut loads, mut edits) = (Vec::new(), Vec::new());
    if args.next().as_deref() == Some("edits") {
        let mut engine = Engine::new(Settings::default());
        engine.handle_json(
            1,
            &json!({ "type": "catalogueLoaded", "blob": input["blob"] }).to_string(),
        );
        exchange(
            &mut engine,
            &disk,
            json!({ "type": "configSources", "sources": input["sources"] }),
        );
        for run in 0..runs {
            if let Some(v) = versions.get(run % 2) {
                disk.insert(edit_path.clone(), v.clone());
            }
            exchange(
                &mut engine,
                &disk,
                json!({ "type": "configFilesChanged", "paths": [edit_path] }),
            );
        }
        return;
    }
    for run in 0..runs + 20 {
        let mut engine = Engine::new(Settings::default());
        engine.handle_json(
            1,
            &json!({ "type": "catalogueLoaded", "blob": input["blob"] }).to_string(),
        );
        let t = Instant::now();
        exchange(
            &mut engine,
            &disk,
            json!({ "type": "configSources", "sources": input["sources"] }),
        );
        let load = t.elapsed().as_secs_f64() * 1000.0;
        if let Some(v) = versions.get(1) {
            disk.insert(edit_path.clone(), v.clone());
        }
        let t = Instant::now();
        exchange(
            &mut engine,
            &disk,
            json!({ "type": "configFilesChanged", "paths": [edit_path] }),
        );
        let edit = t.elapsed().as_secs_f64() * 1000.0;
        if let Some(v) = versions.first() {
            disk.insert(edit_path.clone(), v.clone());
        }
        if run >= 20 {
            loads.push(load);
            edits.push(edit);
        }
    }
    let at = |xs: &mut Vec<f64>, q: f64| {
        xs.sort_by(|a, b| a.total_cmp(b));
        xs.get(((xs.len() as f64 - 1.0) * q) as usize)
            .copied()
            .unwrap_or(0.0)
    };
    println!(
        "{{\"runs\":{runs},\"loadMedianMs\":{:.4},\"loadP95Ms\":{:.4},\"loadMinMs\":{:.4},\"editMedianMs\":{:.4},\"editP95Ms\":{:.4},\"editMinMs\":{:.4}}}",
        at(&mut loads, 0.5),
        at(&mut loads, 0.95),
        at(&mut loads, 0.0),
        at(&mut edits, 0.5),
        at(&mut edits, 0.95),
        at(&mut edits, 0.0)
    );
}
