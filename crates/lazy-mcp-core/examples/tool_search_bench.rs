//! `cargo run --release --example tool_search_bench [-- --dev | --corpus DIR] [--typos] [--misses]`
//! (`npm run bench:search` runs it on bench/search/).
//!
//! Hybrid tool search (issue 27) side by side, in one run, with today's
//! lexical search (BM25F, stemming, synonyms: `Fusion::LEXICAL`) and plain
//! Okapi BM25 (no stemming, no synonyms) over the same tool texts:
//!
//! - `--dev`: the development sets (six real servers + forge 200: the three
//!   sets the lexical index was tuned on and the development step
//!   descriptions, tests/fixtures/tool_index/queries_dev_steps.json), with a
//!   grid of fusion weights: where the default weights come from;
//! - `--corpus DIR` (default bench/search): the held-out corpus
//!   (`DIR/corpus.json`, real tool lists of many servers) and its query sets
//!   (`DIR/queries-*.json`): top-1/top-5, search latency at 500 and 2,000
//!   tools, the time to compute 500 tool vectors, and the model's size.
//!
//! The model is read from assets/model/tool-embeddings.bin (or
//! `LAZY_MCP_EMBEDDINGS`).
// A benchmark stops loudly on a missing or damaged input, and indexes what it built.
#![allow(clippy::indexing_slicing, clippy::panic)]

#[path = "../tests/tool_index_support/mod.rs"]
mod tool_index_support;

use lazy_mcp_core::tool_index::{tool_vector, EmbeddingModel, Fusion, ToolIndex};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;
use tool_index_support::*;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load_model() -> Arc<EmbeddingModel> {
    let path = std::env::var("LAZY_MCP_EMBEDDINGS").map_or_else(
        |_| repo_root().join("assets/model/tool-embeddings.bin"),
        PathBuf::from,
    );
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Arc::new(EmbeddingModel::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}")))
}

/// Plain Okapi BM25 (k1 1.2, b 0.75): lower-cased alphanumeric words, no
/// stemming, no stopwords, no synonyms, one field of name + title +
/// description + parameter names and descriptions.
struct PlainBm25 {
    docs: Vec<HashMap<String, f32>>,
    lens: Vec<f32>,
    df: HashMap<String, f32>,
    avg: f32,
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn plain_text(tool: &Value) -> String {
    let s = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
    let mut out = format!(
        "{} {} {}",
        s(tool.get("name")),
        s(tool.get("title")),
        s(tool.get("description"))
    );
    if let Some(props) = tool
        .get("inputSchema")
        .and_then(|i| i.get("properties"))
        .and_then(Value::as_object)
    {
        for (k, v) in props {
            out.push(' ');
            out.push_str(k);
            out.push(' ');
            out.push_str(&s(v.get("description")));
        }
    }
    out
}

impl PlainBm25 {
    fn build(tools: &[(String, Value)]) -> PlainBm25 {
        let mut docs = Vec::new();
        let mut lens = Vec::new();
        let mut df: HashMap<String, f32> = HashMap::new();
        for (_, tool) in tools {
            let mut tf: HashMap<String, f32> = HashMap::new();
            let w = words(&plain_text(tool));
            lens.push(w.len() as f32);
            for word in w {
                *tf.entry(word).or_default() += 1.0;
            }
            for word in tf.keys() {
                *df.entry(word.clone()).or_default() += 1.0;
            }
            docs.push(tf);
        }
        let avg = lens.iter().sum::<f32>() / lens.len().max(1) as f32;
        PlainBm25 {
            docs,
            lens,
            df,
            avg,
        }
    }

    fn search(&self, query: &str, limit: usize) -> Vec<usize> {
        let n = self.docs.len() as f32;
        let mut q = words(query);
        q.sort();
        q.dedup();
        let mut scored: Vec<(usize, f32)> = self
            .docs
            .iter()
            .enumerate()
            .map(|(i, tf)| {
                let score = q
                    .iter()
                    .map(|w| {
                        let f = tf.get(w).copied().unwrap_or(0.0);
                        let df = self.df.get(w).copied().unwrap_or(0.0);
                        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                        idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * self.lens[i] / self.avg))
                    })
                    .sum::<f32>();
                (i, score)
            })
            .filter(|(_, s)| *s > 0.0)
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.into_iter().take(limit).map(|(i, _)| i).collect()
    }
}

fn qualified(tools: &[(String, Value)], i: usize) -> String {
    format!(
        "{}/{}",
        tools[i].0,
        tools[i].1["name"].as_str().unwrap_or("")
    )
}

/// (top-1, top-5) counts; misses printed to stderr when `verbose`.
fn score(
    queries: &[Query],
    run: &dyn Fn(&str) -> Vec<String>,
    label: &str,
    verbose: bool,
) -> (usize, usize) {
    let (mut top1, mut top5) = (0, 0);
    for q in queries {
        let hits = run(&q.query);
        let rank = hits.iter().take(5).position(|h| q.accept.contains(h));
        top1 += usize::from(rank == Some(0));
        top5 += usize::from(rank.is_some());
        if verbose && rank != Some(0) {
            eprintln!(
                "  {label}: {:?} → {} at {}, got {:?}",
                q.query,
                q.accept[0],
                rank.map_or("—".into(), |r| (r + 1).to_string()),
                &hits[..hits.len().min(3)]
            );
        }
    }
    (top1, top5)
}

fn pct(n: usize, of: usize) -> String {
    format!("{n}/{of} ({:.1}%)", 100.0 * n as f64 / of.max(1) as f64)
}

fn build(tools: &[(String, Value)], model: Option<Arc<EmbeddingModel>>) -> ToolIndex {
    let entries: Vec<(&str, &Value)> = tools.iter().map(|(s, t)| (s.as_str(), t)).collect();
    ToolIndex::build_hybrid(&entries, model, &|_| None)
}

fn compare(
    tools: &[(String, Value)],
    sets: &[(String, Vec<Query>)],
    model: &Arc<EmbeddingModel>,
    fusions: &[(String, Fusion)],
    verbose: bool,
) {
    let hybrid = build(tools, Some(model.clone()));
    let plain = PlainBm25::build(tools);
    if verbose {
        for (_, queries) in sets {
            for q in queries {
                let searched = hybrid.corrected_query(&q.query);
                if searched != q.query {
                    eprintln!("  corrected: {:?} → {searched:?}", q.query);
                }
            }
        }
    }
    println!(
        "| query set | queries | {} | today's lexical top-1 / top-5 | plain BM25 top-1 / top-5 |",
        fusions
            .iter()
            .map(|(l, _)| format!("{l} top-1 / top-5"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("|---|---:|{}---|---|", "---|".repeat(fusions.len()));
    for (name, queries) in sets {
        let n = queries.len();
        let mut cells = Vec::new();
        for (label, fusion) in fusions {
            let (t1, t5) = score(
                queries,
                &|q| {
                    hybrid
                        .search_with(q, 5, *fusion)
                        .iter()
                        .map(|h| h.qualified_name())
                        .collect()
                },
                &format!("{name} {label}"),
                verbose && label == &fusions[0].0,
            );
            cells.push(format!("{} / {}", pct(t1, n), pct(t5, n)));
        }
        let (l1, l5) = score(
            queries,
            &|q| {
                hybrid
                    .search_with(q, 5, Fusion::LEXICAL)
                    .iter()
                    .map(|h| h.qualified_name())
                    .collect()
            },
            "lexical",
            false,
        );
        let (b1, b5) = score(
            queries,
            &|q| {
                plain
                    .search(q, 5)
                    .into_iter()
                    .map(|i| qualified(tools, i))
                    .collect()
            },
            "bm25",
            false,
        );
        println!(
            "| {name} | {n} | {} | {} / {} | {} / {} |",
            cells.join(" | "),
            pct(l1, n),
            pct(l5, n),
            pct(b1, n),
            pct(b5, n)
        );
    }
}

fn load_queries(path: &Path) -> Vec<Query> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    doc["queries"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|q| Query {
            query: q["query"].as_str().unwrap_or("").to_string(),
            accept: std::iter::once(q["tool"].clone())
                .chain(q["alsoAccept"].as_array().cloned().unwrap_or_default())
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
        })
        .collect()
}

fn load_corpus(dir: &Path) -> Vec<(String, Value)> {
    let path = dir.join("corpus.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    for server in doc["servers"].as_array().into_iter().flatten() {
        let name = server["server"].as_str().unwrap_or("").to_string();
        for tool in server["tools"].as_array().into_iter().flatten() {
            out.push((name.clone(), tool.clone()));
        }
    }
    out
}

/// `--typos`: the query with synthetic typing slips, deterministic per query
/// (an FNV hash of it seeds a xorshift): each ASCII word of four letters or
/// more gets, with probability one half (at least one word per query), one
/// slip after its first letter: a letter dropped, two adjacent letters
/// swapped, a letter doubled, or a letter replaced by its keyboard neighbour.
fn with_typos(query: &str) -> String {
    let mut state = query.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    }) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    const NEIGHBOUR: &[u8; 26] = b"snvfrghjoklknmpowtdyibecux";
    let words: Vec<String> = query.split(' ').map(str::to_string).collect();
    let eligible: Vec<usize> = (0..words.len())
        .filter(|i| words[*i].len() >= 4 && words[*i].bytes().all(|b| b.is_ascii_alphabetic()))
        .collect();
    if eligible.is_empty() {
        return query.to_string();
    }
    let forced = eligible[(next() % eligible.len() as u64) as usize];
    let mut out = words.clone();
    for &i in &eligible {
        if i != forced && next() % 2 == 0 {
            continue;
        }
        let mut w: Vec<u8> = words[i].bytes().collect();
        let at = 1 + (next() % (w.len() as u64 - 1)) as usize;
        match next() % 4 {
            0 => {
                w.remove(at);
            }
            1 if at + 1 < w.len() => w.swap(at, at + 1),
            1 => w.swap(at - 1, at),
            2 => w.insert(at, w[at]),
            _ => {
                let c = w[at].to_ascii_lowercase();
                w[at] = NEIGHBOUR[usize::from(c - b'a')];
            }
        }
        out[i] = String::from_utf8(w).unwrap_or_default();
    }
    out.join(" ")
}

fn median_p99(mut samples: Vec<f64>) -> (f64, f64) {
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.99))
}

/// This thread's CPU time so far, in µs (`CLOCK_THREAD_CPUTIME_ID`): a
/// query's wall time on a shared machine also counts the time the thread
/// waited for a core, which says nothing about the code.
fn on_cpu_us() -> Option<f64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the call's duration.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then(|| ts.tv_sec as f64 * 1e6 + ts.tv_nsec as f64 / 1e3)
}

fn latency(tools: &[(String, Value)], model: &Arc<EmbeddingModel>, queries: &[Query]) {
    let index = build(tools, Some(model.clone()));
    let lexical = build(tools, None);
    let mut hybrid_us = Vec::new();
    let mut hybrid_cpu_us = Vec::new();
    let mut lexical_us = Vec::new();
    let mut spelling_us = Vec::new();
    for _ in 0..5 {
        for q in queries {
            let cpu = on_cpu_us();
            let t = Instant::now();
            std::hint::black_box(index.search(&q.query, 5));
            hybrid_us.push(t.elapsed().as_secs_f64() * 1e6);
            if let (Some(before), Some(after)) = (cpu, on_cpu_us()) {
                hybrid_cpu_us.push(after - before);
            }
            let t = Instant::now();
            std::hint::black_box(lexical.search(&q.query, 5));
            lexical_us.push(t.elapsed().as_secs_f64() * 1e6);
            let t = Instant::now();
            std::hint::black_box(index.corrected_query(&q.query));
            spelling_us.push(t.elapsed().as_secs_f64() * 1e6);
        }
    }
    let off_cpu = hybrid_us
        .iter()
        .zip(&hybrid_cpu_us)
        .filter(|(wall, cpu)| *wall - *cpu > 1_000.0)
        .count();
    let samples = hybrid_us.len();
    let (hm, hp) = median_p99(hybrid_us);
    let (lm, lp) = median_p99(lexical_us);
    let (sm, sp) = median_p99(spelling_us);
    let cpu = if hybrid_cpu_us.is_empty() {
        "n/a".to_string()
    } else {
        let (cm, cp) = median_p99(hybrid_cpu_us);
        format!("{cm:.0} µs / {cp:.0} µs")
    };
    println!(
        "| {} | {hm:.0} µs / {hp:.0} µs | {cpu} | {off_cpu} of {samples} | {lm:.0} µs / {lp:.0} µs | {sm:.1} µs / {sp:.0} µs |",
        tools.len()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let t = Instant::now();
    let model = load_model();
    let load_ms = t.elapsed().as_secs_f64() * 1e3;
    let verbose = args.iter().any(|a| a == "--misses");
    let typos = args.iter().any(|a| a == "--typos");
    let slip = |sets: Vec<(String, Vec<Query>)>| -> Vec<(String, Vec<Query>)> {
        if !typos {
            return sets;
        }
        sets.into_iter()
            .map(|(name, queries)| {
                let queries = queries
                    .into_iter()
                    .map(|q| Query {
                        query: with_typos(&q.query),
                        accept: q.accept,
                    })
                    .collect();
                (format!("{name}, typos"), queries)
            })
            .collect()
    };
    if args.iter().any(|a| a == "--dev") {
        let mut tools = real_tools();
        for tool in synthetic_forge_tools(200) {
            tools.push((SYNTHETIC_SERVER.to_string(), tool));
        }
        let sets = vec![
            ("development".to_string(), queries()),
            ("held-out".to_string(), holdout_queries()),
            ("held-out 2".to_string(), holdout2_queries()),
            ("dev steps".to_string(), dev_step_queries()),
        ];
        let sets = slip(sets);
        let names: std::collections::HashSet<String> =
            (0..tools.len()).map(|i| qualified(&tools, i)).collect();
        for (set, queries) in &sets {
            for q in queries {
                for name in &q.accept {
                    assert!(names.contains(name), "{set}: {name} is not a tool");
                }
            }
        }
        let mut fusions = vec![("default".to_string(), Fusion::DEFAULT)];
        for (lexical, rrf_k) in [(0.0, 0.0), (0.35, 0.0), (1.0, 0.0), (1.0, 60.0)] {
            fusions.push((
                format!("lex {lexical} rrf {rrf_k}"),
                Fusion {
                    lexical,
                    semantic: 1.0,
                    rrf_k,
                },
            ));
        }
        println!(
            "## Development sets (six real servers + forge 200: {} tools)\n",
            tools.len()
        );
        compare(&tools, &sets, &model, &fusions, verbose);
        return;
    }
    let dir = args
        .iter()
        .position(|a| a == "--corpus")
        .and_then(|i| args.get(i + 1))
        .map_or_else(|| repo_root().join("bench/search"), PathBuf::from);
    let tools = load_corpus(&dir);
    let servers: std::collections::BTreeSet<&str> = tools.iter().map(|(s, _)| s.as_str()).collect();
    let mut sets = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    for path in files {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(set) = name
            .strip_prefix("queries-")
            .and_then(|n| n.strip_suffix(".json"))
        {
            sets.push((set.to_string(), load_queries(&path)));
        }
    }
    let sets = slip(sets);
    println!(
        "## Held-out corpus: {} tools from {} servers ({})\n",
        tools.len(),
        servers.len(),
        dir.display()
    );
    compare(
        &tools,
        &sets,
        &model,
        &[("hybrid".to_string(), Fusion::DEFAULT)],
        verbose,
    );
    let all_queries: Vec<Query> = sets
        .iter()
        .flat_map(|(_, qs)| qs.iter())
        .map(|q| Query {
            query: q.query.clone(),
            accept: q.accept.clone(),
        })
        .collect();
    println!(
        "\n## Search latency (median / p99 of 5 passes over the {} queries, limit 5)\n",
        all_queries.len()
    );
    println!("| tools | hybrid, wall | hybrid, thread CPU time | queries > 1 ms off CPU | lexical only, wall | slip correction alone, wall |\n|---:|---:|---:|---:|---:|---:|");
    let first500: Vec<(String, Value)> = tools.iter().take(500).cloned().collect();
    latency(&first500, &model, &all_queries);
    let mut big = tools.clone();
    let forge = synthetic_forge_tools(2000usize.saturating_sub(tools.len()));
    big.extend(forge.into_iter().map(|t| (SYNTHETIC_SERVER.to_string(), t)));
    latency(&big, &model, &all_queries);
    // Catalogue time: the vectors of 500 tools.
    let t = Instant::now();
    let vectors: usize = first500
        .iter()
        .filter_map(|(server, tool)| tool_vector(&model, server, tool))
        .count();
    let vec_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    std::hint::black_box(build(&first500, None));
    let lex_ms = t.elapsed().as_secs_f64() * 1e3;
    println!("\n## Cost\n");
    println!("| measure | value |\n|---|---:|");
    println!(
        "| vectors for {} tools ({vectors} embedded) | {vec_ms:.1} ms |",
        first500.len()
    );
    println!("| lexical index build, same tools | {lex_ms:.1} ms |");
    println!(
        "| model load (parse {} tokens × {} dims) | {load_ms:.1} ms |",
        model.vocab_len(),
        model.dims()
    );
    println!("| model: {} | |", model.version());
}
