//! `cargo run --release -p lazy-mcp-core --example search_index_build_bench`
//!
//! The first `search_tools` after a catalogue change builds the search index
//! (issue 27). This times that build at 500 and 2,000 tools (the held-out
//! corpus's real tools, then copies of its servers under other names, as
//! bench/search-wasm.mjs does), with the vectors the catalogue already holds,
//! and the first search on it. `--dump` prints the top 10 (names and score
//! bits) of every held-out query at 2,000 tools instead, to compare two
//! builds' rankings byte for byte.
// A benchmark stops loudly on a missing or damaged input.
#![allow(clippy::indexing_slicing, clippy::panic)]

use lazy_mcp_core::tool_index::{tool_vector, EmbeddingModel, ToolIndex};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load(path: PathBuf) -> Vec<u8> {
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `count` tools: the corpus's servers in order, then copies under other names.
fn tools_with(count: usize) -> Vec<(String, Value)> {
    let doc: Value = serde_json::from_slice(&load(repo_root().join("bench/search/corpus.json")))
        .unwrap_or_else(|e| panic!("{e}"));
    let servers = doc["servers"].as_array().cloned().unwrap_or_default();
    let mut out = Vec::new();
    for copy in 0.. {
        for server in &servers {
            let name = server["server"].as_str().unwrap_or("");
            let name = if copy == 0 {
                name.to_string()
            } else {
                format!("{name}-copy{copy}")
            };
            for tool in server["tools"].as_array().into_iter().flatten() {
                if out.len() == count {
                    return out;
                }
                out.push((name.clone(), tool.clone()));
            }
        }
    }
    out
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--dump") {
        return dump();
    }
    let model = Arc::new(
        EmbeddingModel::from_bytes(&load(repo_root().join("assets/model/tool-embeddings.bin")))
            .unwrap_or_else(|e| panic!("{e}")),
    );
    println!("| tools | index build, catalogue's vectors (median of 5) | lexical only build | first search |\n|---:|---:|---:|---:|");
    for count in [500, 2000] {
        let tools = tools_with(count);
        let entries: Vec<(&str, &Value)> = tools.iter().map(|(s, t)| (s.as_str(), t)).collect();
        let vectors: Vec<Option<Vec<i8>>> = entries
            .iter()
            .map(|(s, t)| tool_vector(&model, s, t))
            .collect();
        let (mut hybrid, mut lexical, mut first) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..5 {
            let t = Instant::now();
            let index = ToolIndex::build_hybrid(&entries, Some(model.clone()), &|i| {
                vectors.get(i).cloned().flatten()
            });
            hybrid.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            std::hint::black_box(index.search("warm up", 10));
            first.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            std::hint::black_box(ToolIndex::build(&entries));
            lexical.push(t.elapsed().as_secs_f64() * 1e3);
        }
        println!(
            "| {count} | {:.1} ms | {:.1} ms | {:.2} ms |",
            median(hybrid),
            median(lexical),
            median(first)
        );
    }
}

fn dump() {
    let model = Arc::new(
        EmbeddingModel::from_bytes(&load(repo_root().join("assets/model/tool-embeddings.bin")))
            .unwrap_or_else(|e| panic!("{e}")),
    );
    let tools = tools_with(2000);
    let entries: Vec<(&str, &Value)> = tools.iter().map(|(s, t)| (s.as_str(), t)).collect();
    for (name, index) in [
        (
            "hybrid",
            ToolIndex::build_hybrid(&entries, Some(model), &|_| None),
        ),
        ("lexical", ToolIndex::build(&entries)),
    ] {
        for set in ["short-needs", "step-descriptions"] {
            let path = repo_root().join(format!("bench/search/queries-{set}.json"));
            let doc: Value = serde_json::from_slice(&load(path)).unwrap_or_else(|e| panic!("{e}"));
            for q in doc["queries"].as_array().into_iter().flatten() {
                let query = q["query"].as_str().unwrap_or("");
                for hit in index.search(query, 10) {
                    println!(
                        "{name}\t{query}\t{}\t{:08x}\t{}",
                        hit.qualified_name(),
                        hit.score.to_bits(),
                        hit.weak
                    );
                }
            }
        }
    }
}
