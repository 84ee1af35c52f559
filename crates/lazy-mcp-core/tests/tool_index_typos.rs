//! Issue 27's "typos are tolerated" with the real embedding table over 2,000
//! tools (the six real servers, a BMI calculator, forge tools): slipped
//! queries find the tool a person meant, because each slip is corrected to
//! the catalogue's (or the table's) word before either side of the hybrid
//! ranks; real words, names, file names and other scripts are left as typed;
//! and slip correction stays bounded on a 1 MB or thousand-word query.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod tool_index_support;

use lazy_mcp_core::tool_index::{EmbeddingModel, SearchHit, ToolIndex};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tool_index_support::*;

/// Far above a query's real cost, far below a stall (as tool_index_bad_input.rs).
const BOUND: Duration = Duration::from_secs(2);

fn index() -> ToolIndex {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/model/tool-embeddings.bin");
    let model = Arc::new(EmbeddingModel::from_bytes(&std::fs::read(path).unwrap()).unwrap());
    let mut tools = real_tools();
    tools.push((
        "health".into(),
        json!({"name": "calculate_bmi", "description": "Calculate the body mass index from weight in kilograms and height in metres."}),
    ));
    let forge = synthetic_forge_tools(2_000 - tools.len());
    tools.extend(forge.into_iter().map(|t| (SYNTHETIC_SERVER.to_string(), t)));
    let entries: Vec<(&str, &Value)> = tools.iter().map(|(s, t)| (s.as_str(), t)).collect();
    let index = ToolIndex::build_hybrid(&entries, Some(model), &|_| None);
    assert_eq!(index.len(), 2_000);
    index
}

fn top(index: &ToolIndex, query: &str) -> Vec<String> {
    let started = Instant::now();
    let hits = index.search(query, 5);
    assert!(
        started.elapsed() < BOUND,
        "{query:?} took {:?}",
        started.elapsed()
    );
    hits.iter().map(SearchHit::qualified_name).collect()
}

#[test]
fn slipped_queries_find_the_tool_that_was_meant() {
    let index = index();
    for (query, meant, searched) in [
        (
            "caculate the bmi",
            "health/calculate_bmi",
            "calculate the bmi",
        ),
        ("serch fles", "filesystem/search_files", "search files"),
        (
            "shwo the workng tree staus",
            "git/git_status",
            "show the working tree status",
        ),
        (
            "lsit the contnets of a directroy",
            "filesystem/list_directory",
            "list the contents of a directory",
        ),
        (
            "craete a new foldder",
            "filesystem/create_directory",
            "create a new folder",
        ),
    ] {
        assert_eq!(index.corrected_query(query), searched, "{query}");
        let hits = top(&index, query);
        assert_eq!(
            hits.first().map(String::as_str),
            Some(meant),
            "{query}: {hits:?}"
        );
        // Slips are not a weak match: words of the tool were found.
        assert!(!index.search(query, 1)[0].weak, "{query}");
    }
}

#[test]
fn real_words_names_files_and_other_scripts_are_searched_as_typed() {
    let index = index();
    for query in [
        "how many dollars is 100 euros",
        "read config.yaml and src/main.rs",
        "link Alice to Acme",
        "call get_file_info on notes.txt",
        "ファイルを検索",
        "quelle heure est-il à Tokyo",
        "wie spät ist es in Tokyo",
        "café naïve straße",
        "",
    ] {
        assert_eq!(index.corrected_query(query), query, "{query}");
    }
    // Non-English words around an English need still find the tool (a
    // query without accents is not known to be foreign: its words may be
    // read as slips, `bitte` → `bit`, and still the tool comes first).
    assert_eq!(
        top(&index, "ファイルを検索 search files")[0],
        "filesystem/search_files"
    );
    assert_eq!(
        top(&index, "bitte list the directory contents danke")[0],
        "filesystem/list_directory"
    );
}

#[test]
fn without_the_table_queries_are_searched_as_typed() {
    // Only the table tells a real word the catalogue lacks from a slip; the
    // lexical side's own typo lookup still finds the tool.
    let tools = real_tools();
    let entries: Vec<(&str, &Value)> = tools.iter().map(|(s, t)| (s.as_str(), t)).collect();
    let index = ToolIndex::build(&entries);
    assert_eq!(
        index.corrected_query("serch fles for pictures"),
        "serch fles for pictures"
    );
    assert_eq!(
        index.search("serch for files by name", 1)[0].qualified_name(),
        "filesystem/search_files"
    );
}

#[test]
fn slip_correction_is_bounded_on_huge_and_wordy_queries() {
    let index = index();
    // 1 MB of slips: only the query's start is read, a few words corrected.
    let mega = "serch fles ".repeat(100_000);
    assert!(mega.len() > 1_000_000);
    let started = Instant::now();
    let searched = index.corrected_query(&mega);
    assert!(started.elapsed() < BOUND);
    assert!(searched.starts_with("search files search files"));
    assert!(
        searched.len() <= 2_000 + 100,
        "only the first 2,000 characters are read"
    );
    assert_eq!(top(&index, &mega)[0], "filesystem/search_files");
    // A thousand distinct unknown words of letters: at most a few are looked up.
    let letters = |i: usize| -> String {
        (0..6)
            .map(|k| char::from(b'a' + ((i / 26usize.pow(k)) % 26) as u8))
            .collect()
    };
    let thousand: Vec<String> = (0..1_000).map(|i| format!("q{}", letters(i))).collect();
    let thousand = thousand.join(" ");
    let started = Instant::now();
    assert!(!top(&index, &thousand).is_empty());
    assert!(started.elapsed() < BOUND);
}
