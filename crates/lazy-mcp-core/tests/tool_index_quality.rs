//! Search quality of the tool index on the six real servers' tools with a
//! synthetic 200-tool forge API mixed in, over the user queries of
//! tests/fixtures/tool_index/queries.json.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod tool_index_support;

use lazy_mcp_core::tool_index::{render_compact_index, ToolIndex};
use serde_json::Value;
use std::collections::BTreeSet;
use tool_index_support::*;

fn mixed_entries() -> Vec<(String, Value)> {
    let mut entries = real_tools();
    for tool in synthetic_forge_tools(200) {
        entries.push((SYNTHETIC_SERVER.to_string(), tool));
    }
    entries
}

#[test]
fn synthetic_forge_has_200_distinct_realistic_tools() {
    let tools = synthetic_forge_tools(200);
    assert_eq!(tools.len(), 200);
    let names: BTreeSet<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 200, "names repeat within the first 200");
    assert!(names.contains("merge_pull_request"));
    assert!(names.contains("list_issues"));
    assert_eq!(synthetic_forge_tools(200), tools, "not deterministic");
}

#[test]
fn fixture_has_the_six_real_servers() {
    let servers: BTreeSet<String> = real_tools().into_iter().map(|(s, _)| s).collect();
    let expected: BTreeSet<String> = [
        "everything",
        "filesystem",
        "memory",
        "sequential-thinking",
        "time",
        "git",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(servers, expected);
}

/// Top-1 and top-5 hits of `queries` over the mixed index; prints the misses.
fn accuracy(index: &ToolIndex, queries: &[Query], label: &str) -> (usize, usize) {
    let (mut top1, mut top5) = (0, 0);
    for q in queries {
        let hits: Vec<String> = index
            .search(&q.query, 5)
            .iter()
            .map(|h| h.qualified_name())
            .collect();
        let rank = hits.iter().position(|h| q.accept.contains(h));
        top1 += usize::from(rank == Some(0));
        top5 += usize::from(rank.is_some());
        if rank != Some(0) {
            eprintln!(
                "  {label}: {:?} → {} at {}, got {hits:?}",
                q.query,
                q.accept[0],
                rank.map_or("—".to_string(), |r| (r + 1).to_string())
            );
        }
    }
    let n = queries.len() as f64;
    eprintln!(
        "{label}: top-1 {top1}/{} = {:.1}%, top-5 {top5}/{} = {:.1}%",
        queries.len(),
        100.0 * top1 as f64 / n,
        queries.len(),
        100.0 * top5 as f64 / n
    );
    (top1, top5)
}

/// Floors of the second held-out set (what the ranking reaches on it).
const HOLDOUT2_TOP5: usize = 44;
const HOLDOUT2_TOP1: usize = 35;

fn mixed_index() -> ToolIndex {
    let entries = mixed_entries();
    let refs: Vec<(&str, &Value)> = entries.iter().map(|(s, t)| (s.as_str(), t)).collect();
    ToolIndex::build(&refs)
}

/// The product target is top-5 ≥ 95%. On the development set the index reaches
/// 49/53 (92.5%): the four misses need knowledge no lexical index has ("notes"
/// are observations, "dump" means read all, "add 7 and 35" is a sum, "clean or
/// uncommitted" is a status). The assertion holds what is reached, so a
/// regression fails; docs/tool-index.md reports the gap.
#[test]
fn top5_accuracy_on_the_development_queries() {
    let queries = queries();
    assert!(queries.len() >= 40);
    let (top1, top5) = accuracy(&mixed_index(), &queries, "development");
    assert!(top5 >= 49, "top-5 fell to {top5}/{}", queries.len());
    assert!(top1 >= 32, "top-1 fell to {top1}/{}", queries.len());
}

#[test]
fn top5_accuracy_on_the_held_out_queries() {
    let queries = holdout_queries();
    assert!(queries.len() >= 20);
    let (top1, top5) = accuracy(&mixed_index(), &queries, "held-out");
    assert!(
        top5 as f64 / queries.len() as f64 >= 0.95,
        "top-5 {top5}/{}",
        queries.len()
    );
    assert!(top1 >= 20, "top-1 fell to {top1}/{}", queries.len());
}

/// Written before the search-quality changes and never used to tune them; it
/// also asks for forge tools. The floor holds what is reached.
#[test]
fn top5_accuracy_on_the_second_held_out_queries() {
    let queries = holdout2_queries();
    assert!(queries.len() >= 30);
    let (top1, top5) = accuracy(&mixed_index(), &queries, "held-out 2");
    assert!(
        top5 >= HOLDOUT2_TOP5,
        "top-5 fell to {top5}/{}",
        queries.len()
    );
    assert!(
        top1 >= HOLDOUT2_TOP1,
        "top-1 fell to {top1}/{}",
        queries.len()
    );
}

#[test]
fn every_expected_tool_exists_in_the_fixture() {
    let names: BTreeSet<String> = mixed_entries()
        .iter()
        .map(|(s, t)| format!("{s}/{}", t["name"].as_str().unwrap()))
        .collect();
    let all = queries()
        .into_iter()
        .chain(holdout_queries())
        .chain(holdout2_queries());
    for q in &all.collect::<Vec<_>>() {
        for name in &q.accept {
            assert!(names.contains(name), "{:?} expects unknown {name}", q.query);
        }
    }
}

#[test]
fn compact_index_lists_every_tool_once_under_its_server() {
    let entries = mixed_entries();
    let refs: Vec<(&str, &Value)> = entries.iter().map(|(s, t)| (s.as_str(), t)).collect();
    let index = render_compact_index(&refs);
    let headings: Vec<&str> = index.lines().filter(|l| l.starts_with("# ")).collect();
    assert_eq!(
        headings,
        [
            "# everything",
            "# filesystem",
            "# memory",
            "# sequential-thinking",
            "# time",
            "# git",
            "# forge"
        ]
    );
    assert_eq!(index.lines().count(), entries.len() + headings.len());
    assert!(index.contains("\ngit_status — Shows the working tree status\n"));
    assert!(index.lines().all(|l| l.chars().count() <= 64 + 3 + 80));
}

#[test]
fn search_over_a_thousand_tools_finds_the_real_tool_among_copies() {
    let mut entries = real_tools();
    for copy in 0..5 {
        for tool in synthetic_forge_tools(200) {
            entries.push((format!("{SYNTHETIC_SERVER}-{copy}"), tool));
        }
    }
    let refs: Vec<(&str, &Value)> = entries.iter().map(|(s, t)| (s.as_str(), t)).collect();
    let index = ToolIndex::build(&refs);
    assert_eq!(index.len(), 1051);
    let hits = index.search("current time in Tokyo", 3);
    assert_eq!(hits[0].qualified_name(), "time/get_current_time");
    let hits = index.search("merge a pull request", 5);
    assert!(
        hits.iter().all(|h| h.tool == "merge_pull_request"),
        "{hits:?}"
    );
}
