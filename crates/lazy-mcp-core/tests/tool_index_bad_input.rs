//! Issue 27's "bad input" list against hybrid search with the real embedding
//! table over 2,000 tools: a 1 MB query, an empty one, control characters, a
//! thousand words, non-English text, and tools whose descriptions are huge
//! or empty. Each gets a sensible answer (never nothing while a word of the
//! query means something) within a bound that only a stall would exceed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod tool_index_support;

use lazy_mcp_core::tool_index::{
    render_search_results, tool_vector, EmbeddingModel, SearchHit, ToolIndex,
};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tool_index_support::*;

/// Far above a query's real cost (tens of microseconds in release, a few
/// milliseconds in a debug build on a loaded machine), far below a stall.
const BOUND: Duration = Duration::from_secs(2);

fn model() -> Arc<EmbeddingModel> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/model/tool-embeddings.bin");
    Arc::new(EmbeddingModel::from_bytes(&std::fs::read(path).unwrap()).unwrap())
}

/// The six real servers, two tools with a huge and an empty description, and
/// forge tools up to 2,000.
fn tools() -> Vec<(String, Value)> {
    let mut tools = real_tools();
    tools.push((
        "notes".into(),
        json!({"name": "archive_notes", "description": "Archive old notes. ".repeat(60_000)}),
    ));
    tools.push((
        "notes".into(),
        json!({"name": "purge_trash", "description": ""}),
    ));
    let forge = synthetic_forge_tools(2_000 - tools.len());
    tools.extend(forge.into_iter().map(|t| (SYNTHETIC_SERVER.to_string(), t)));
    tools
}

fn timed_search(index: &ToolIndex, query: &str) -> Vec<SearchHit> {
    let started = Instant::now();
    let hits = index.search(query, 5);
    let took = started.elapsed();
    assert!(took < BOUND, "{} chars took {took:?}", query.len());
    hits
}

#[test]
fn bad_queries_and_descriptions_get_fast_sensible_answers_from_hybrid_search() {
    let model = model();
    let tools = tools();
    assert_eq!(tools.len(), 2_000);
    let entries: Vec<(&str, &Value)> = tools.iter().map(|(s, t)| (s.as_str(), t)).collect();
    let started = Instant::now();
    let index = ToolIndex::build_hybrid(&entries, Some(model.clone()), &|_| None);
    assert!(
        started.elapsed() < BOUND * 10,
        "build took {:?}",
        started.elapsed()
    );
    assert!(index.is_hybrid());
    assert_eq!(index.len(), 2_000);

    // A 1 MB description costs one bounded vector, like any other.
    let started = Instant::now();
    let huge = &tools
        .iter()
        .find(|(_, t)| t["name"] == "archive_notes")
        .unwrap()
        .1;
    assert!(huge["description"].as_str().unwrap().len() > 1_000_000);
    assert!(tool_vector(&model, "notes", huge).is_some());
    assert!(started.elapsed() < BOUND);

    // 1 MB query: only its start is read; it still finds what it asks for.
    let mega = "show the working tree status ".repeat(36_000);
    assert!(mega.len() > 1_000_000);
    let hits = timed_search(&index, &mega);
    assert_eq!(hits[0].qualified_name(), "git/git_status");

    // Empty and whitespace-only queries: nothing to rank, and the answer says why.
    for query in ["", "   ", "\n\t"] {
        let hits = timed_search(&index, query);
        assert!(hits.is_empty(), "{query:?}");
        assert!(render_search_results(query, &hits).contains("The query is empty"));
    }

    // Control characters alone are an empty query; between words they separate them.
    let control: String = (0u8..32).map(char::from).collect();
    let hits = timed_search(&index, &control);
    assert!(render_search_results(&control, &hits).contains("The query is empty"));
    let hits = timed_search(&index, "read\u{0}the\u{7}file\u{1b}[31m contents");
    assert!(
        hits.iter().any(|h| h.server == "filesystem"),
        "{:?}",
        hits.iter()
            .map(SearchHit::qualified_name)
            .collect::<Vec<_>>()
    );

    // A thousand words, most unknown: bounded, and still an answer.
    let thousand: String = (0..1_000).map(|i| format!("word{i} ")).collect();
    assert!(!timed_search(&index, &thousand).is_empty());
    let thousand_real = "commit the staged changes to the repository ".repeat(160);
    assert_eq!(timed_search(&index, &thousand_real).len(), 5);

    // Non-English text does no harm: an answer, marked weak when no word is shared.
    let hits = timed_search(&index, "日本語のクエリ");
    assert_eq!(hits.len(), 5);
    assert!(hits.iter().all(|h| h.weak));
    assert!(render_search_results("日本語のクエリ", &hits).contains("weak match"));
    let hits = timed_search(&index, "quelle heure est-il à Tokyo time");
    assert_eq!(hits[0].server, "time");

    // Tools with a huge or an empty description are found like any other.
    let hits = timed_search(&index, "archive old notes");
    assert_eq!(hits[0].qualified_name(), "notes/archive_notes");
    let hits = timed_search(&index, "purge trash");
    assert_eq!(hits[0].qualified_name(), "notes/purge_trash");
}
