//! `cargo run --release --example tool_index_bench [-- --dump DIR]`
//!
//! The tool index side by side with full schemas, in one run, on the six real
//! benchmark servers (tests/fixtures/tool_index/real_tools.json) plus a
//! synthetic 200-tool forge API:
//!
//! 1. tokens at session start: every tool's definition (`full`) vs the compact
//!    index plus the three meta-tools (`index`), per server and in total —
//!    counted with `estimate_tokens`, an estimate (`--dump DIR` writes both
//!    texts so bench/tool-index-tokens.mjs can count them with a real tokenizer);
//! 2. top-1 / top-5 accuracy of `search` on the development query set and the
//!    two held-out sets;
//! 3. median and p99 latency of one `search` over 1,000 tools.

#[path = "../tests/engine_support/mod.rs"]
mod engine_support;
#[path = "support/engine_tool_lists.rs"]
mod engine_tool_lists;
#[path = "../tests/tool_index_support/mod.rs"]
mod tool_index_support;

use lazy_mcp_core::config::model::ToolExposure;
use lazy_mcp_core::tool_index::{
    estimate_tokens, meta_tools, meta_tools_with_index, IndexDetail, ToolIndex,
};
use serde_json::{json, Value};
use std::time::Instant;
use tool_index_support::*;

/// What a client hands the model for one tool: name, description, parameters.
fn definition(tool: &Value) -> String {
    json!({
        "name": tool.get("name"),
        "description": tool.get("description"),
        "inputSchema": tool.get("inputSchema"),
    })
    .to_string()
}

fn full_text(entries: &[(&str, &Value)]) -> String {
    entries
        .iter()
        .map(|(_, tool)| definition(tool))
        .collect::<Vec<_>>()
        .join("\n")
}

fn meta_text() -> String {
    let meta: Vec<String> = meta_tools().iter().map(definition).collect();
    meta.join("\n")
}

/// What the model sees at session start in `index` mode: the three meta-tools,
/// the index riding in `load_tools`' description.
fn index_text(entries: &[(&str, &Value)], detail: IndexDetail) -> String {
    let tools = meta_tools_with_index(&detail.render(entries));
    tools.iter().map(definition).collect::<Vec<_>>().join("\n")
}

fn percent(part: usize, whole: usize) -> f64 {
    100.0 * part as f64 / whole.max(1) as f64
}

fn accuracy(index: &ToolIndex, queries: &[Query]) -> (usize, usize, usize) {
    let (mut top1, mut top5) = (0, 0);
    for q in queries {
        let hits = index.search(&q.query, 5);
        let rank = hits
            .iter()
            .position(|h| q.accept.contains(&h.qualified_name()));
        top1 += usize::from(rank == Some(0));
        top5 += usize::from(rank.is_some());
    }
    (top1, top5, queries.len())
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    let at = ((sorted.len().saturating_sub(1)) as f64 * q).round() as usize;
    sorted.get(at).copied().unwrap_or(0.0)
}

fn main() {
    let dump_dir = std::env::args()
        .skip_while(|a| a != "--dump")
        .nth(1)
        .map(std::path::PathBuf::from);

    let mut owned = real_tools();
    for tool in synthetic_forge_tools(200) {
        owned.push((SYNTHETIC_SERVER.to_string(), tool));
    }
    let entries: Vec<(&str, &Value)> = owned.iter().map(|(s, t)| (s.as_str(), t)).collect();

    // 1. Tokens.
    println!("## Tokens at session start (estimate_tokens: an estimate, not a tokenizer)\n");
    println!("| server | tools | full (all definitions) | index: summaries | index: names |");
    println!("|---|---:|---:|---:|---:|");
    let mut servers: Vec<&str> = Vec::new();
    for (server, _) in &entries {
        if !servers.contains(server) {
            servers.push(server);
        }
    }
    for server in &servers {
        let mine: Vec<(&str, &Value)> = entries
            .iter()
            .filter(|(s, _)| s == server)
            .copied()
            .collect();
        println!(
            "| {server} | {} | {} | {} | {} |",
            mine.len(),
            estimate_tokens(&full_text(&mine)),
            estimate_tokens(&IndexDetail::Summaries.render(&mine)),
            estimate_tokens(&IndexDetail::Names.render(&mine)),
        );
    }
    println!(
        "| meta-tools (search_tools, load_tools, unload_tools, call_tool) | 4 | | {meta} | {meta} |",
        meta = estimate_tokens(&meta_text())
    );
    let real: Vec<(&str, &Value)> = entries
        .iter()
        .filter(|(s, _)| *s != SYNTHETIC_SERVER)
        .copied()
        .collect();
    println!(
        "\n| tools | full | index + meta-tools: summaries | names | richest index detail within 5% of full |"
    );
    println!("|---|---:|---:|---:|---|");
    let mut estimates = serde_json::Map::new();
    let mut dumps = Vec::new();
    for (label, key, set) in [
        ("six real servers", "real", &real),
        ("six real + forge 200", "all", &entries),
    ] {
        let full = full_text(set);
        let summaries = index_text(set, IndexDetail::Summaries);
        let names = index_text(set, IndexDetail::Names);
        let (f, s, n) = (
            estimate_tokens(&full),
            estimate_tokens(&summaries),
            estimate_tokens(&names),
        );
        let budget = f / 20;
        let meta = estimate_tokens(&meta_text());
        let picked = IndexDetail::within_budget(set, budget.saturating_sub(meta));
        println!(
            "| {label} ({}) | {f} | {s} ({:.1}%) | {n} ({:.1}%) | {picked:?} |",
            set.len(),
            percent(s, f),
            percent(n, f)
        );
        estimates.insert(key.into(), json!({"full": f, "summaries": s, "names": n}));
        dumps.push((format!("{key}-full.txt"), full));
        dumps.push((format!("{key}-summaries.txt"), summaries));
        dumps.push((format!("{key}-names.txt"), names));
        // What the engine really lists to a new client in each mode.
        for mode in [ToolExposure::Full, ToolExposure::Index, ToolExposure::Auto] {
            let listed = engine_tool_lists::engine_tools_list(set, mode);
            dumps.push((format!("{key}-engine-{}.txt", mode.as_str()), listed));
        }
    }
    if let Some(dir) = &dump_dir {
        dumps.push((
            "estimates.json".into(),
            Value::Object(estimates).to_string(),
        ));
        let written = std::fs::create_dir_all(dir).and_then(|()| {
            dumps
                .iter()
                .try_for_each(|(name, text)| std::fs::write(dir.join(name), text))
        });
        match written {
            Ok(()) => println!(
                "\n(texts written to {}; count them with `node bench/tool-index-tokens.mjs {}`)",
                dir.display(),
                dir.display()
            ),
            Err(e) => eprintln!("cannot write to {}: {e}", dir.display()),
        }
    }

    // 2. Accuracy.
    let index = ToolIndex::build(&entries);
    println!(
        "\n## Search quality ({} tools: six real servers + forge 200)\n",
        index.len()
    );
    println!("| query set | queries | top-1 | top-5 |");
    println!("|---|---:|---:|---:|");
    for (label, queries) in [
        ("development (queries.json)", queries()),
        ("held-out (queries_holdout.json)", holdout_queries()),
        ("held-out 2 (queries_holdout2.json)", holdout2_queries()),
    ] {
        let (top1, top5, n) = accuracy(&index, &queries);
        println!(
            "| {label} | {n} | {top1} ({:.1}%) | {top5} ({:.1}%) |",
            percent(top1, n),
            percent(top5, n)
        );
    }

    // 3. Latency over 1,000 tools.
    let mut thousand = real_tools();
    let pad = 1000usize.saturating_sub(thousand.len());
    for tool in synthetic_forge_tools(pad) {
        thousand.push((SYNTHETIC_SERVER.to_string(), tool));
    }
    let refs: Vec<(&str, &Value)> = thousand.iter().map(|(s, t)| (s.as_str(), t)).collect();
    let started = Instant::now();
    let big = ToolIndex::build(&refs);
    let build_ms = started.elapsed().as_secs_f64() * 1e3;
    let all_queries: Vec<Query> = queries()
        .into_iter()
        .chain(holdout_queries())
        .chain(holdout2_queries())
        .collect();
    let mut micros = Vec::new();
    let mut found = 0usize;
    for _round in 0..200 {
        for q in &all_queries {
            let t = Instant::now();
            let hits = big.search(&q.query, 5);
            micros.push(t.elapsed().as_secs_f64() * 1e6);
            found += hits.len();
        }
    }
    micros.sort_by(f64::total_cmp);
    println!(
        "\n## Latency ({} tools, {} searches of the {} queries, limit 5)\n",
        big.len(),
        micros.len(),
        all_queries.len()
    );
    println!("| measure | value | target |");
    println!("|---|---:|---:|");
    println!("| build the index | {build_ms:.2} ms | |");
    println!(
        "| search, median | {:.1} µs | ≤ 1 ms |",
        quantile(&micros, 0.5)
    );
    println!(
        "| search, p99 | {:.1} µs | ≤ 1 ms |",
        quantile(&micros, 0.99)
    );
    if found == 0 {
        eprintln!("no search found anything: the fixture is missing?");
    }
}
