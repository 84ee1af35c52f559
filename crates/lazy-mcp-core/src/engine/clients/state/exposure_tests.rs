//! What clients were shown, alone, without an engine: inputs in, reads out.

use super::Exposure;
use crate::config::model::ToolExposure;
use crate::engine::clients::state::exposure_plan::ExposurePlan;
use crate::engine::effects::EndpointInfo;
use crate::protocol::client_handshake::ListKind;
use crate::protocol::methods;
use crate::tool_index::ToolIndex;
use crate::vec_map::{VecMap, VecSet};
use serde_json::{json, Value};

fn lists(entries: &[(&str, ListKind, u64)]) -> VecMap<(String, ListKind), u64> {
    let mut lists = VecMap::new();
    for (server, kind, hash) in entries {
        lists.insert((server.to_string(), *kind), *hash);
    }
    lists
}

fn pair(server: &str, tool: &str) -> (String, String) {
    (server.to_string(), tool.to_string())
}

/// A plan with `indexed` in `index` mode and `full` in `full` mode, and one meta-tool.
fn plan(indexed: &str, full: &str) -> ExposurePlan {
    let mut plan = ExposurePlan::default();
    plan.modes.insert(indexed.to_string(), ToolExposure::Index);
    plan.modes.insert(full.to_string(), ToolExposure::Full);
    plan.meta_tools = vec![json!({"name": "search_tools", "inputSchema": {"type": "object"}})];
    plan
}

#[test]
fn a_list_changed_goes_out_only_for_a_list_whose_hash_changed_or_went_away() {
    let mut exposure = Exposure::default();
    let first = exposure.lists_hashed(lists(&[
        ("a", ListKind::Tools, 1),
        ("a", ListKind::Prompts, 2),
    ]));
    assert_eq!(first.len(), 2, "a first publication announces every list");
    let same = exposure.lists_hashed(lists(&[
        ("a", ListKind::Tools, 1),
        ("a", ListKind::Prompts, 2),
    ]));
    assert!(same.is_empty(), "nothing changed, nothing announced");
    let changed = exposure.lists_hashed(lists(&[
        ("a", ListKind::Tools, 9),
        ("a", ListKind::Prompts, 2),
    ]));
    let expected: VecSet<(String, &str)> =
        [("a".to_string(), methods::NOTIFICATIONS_TOOLS_LIST_CHANGED)]
            .into_iter()
            .collect();
    assert_eq!(changed, expected);
    let gone = exposure.lists_hashed(lists(&[]));
    assert_eq!(
        gone.len(),
        2,
        "a server no longer exposed: its lists changed too"
    );
}

#[test]
fn the_aggregate_and_the_endpoints_are_announced_once_per_change() {
    let mut exposure = Exposure::default();
    assert!(exposure.aggregate_versioned("v1"));
    assert!(!exposure.aggregate_versioned("v1"));
    assert!(exposure.aggregate_versioned("v2"));

    // Nothing exposed and no aggregate: hosts were told nothing, nothing to tell.
    assert!(!exposure.endpoints_published(&[], &None));
    let endpoints = [EndpointInfo {
        server: "a".into(),
        version: "1".into(),
        offered: true,
    }];
    assert!(exposure.endpoints_published(&endpoints, &None));
    assert!(!exposure.endpoints_published(&endpoints, &None));
    assert!(exposure.endpoints_published(&endpoints, &Some("v2".into())));
    assert!(!exposure.endpoints_published(&endpoints, &Some("v2".into())));
}

#[test]
fn an_aggregate_name_routes_to_its_server_and_back() {
    let mut exposure = Exposure::default();
    exposure.aggregate_items(
        vec![pair("a", "echo"), pair("b", "echo")],
        vec![pair("a", "greet")],
    );
    let route = exposure.aggregate_route(ListKind::Tools, "b__echo");
    assert_eq!(route, Some(&("b".to_string(), Value::from("echo"))));
    assert_eq!(
        exposure
            .aggregate_name(ListKind::Tools, "a", "echo")
            .map(String::as_str),
        Some("a__echo")
    );
    assert_eq!(
        exposure.aggregate_route(ListKind::Prompts, "a__greet"),
        Some(&("a".to_string(), Value::from("greet")))
    );
    assert_eq!(exposure.aggregate_route(ListKind::Prompts, "a__echo"), None);
    // The next publication replaces the names: a tool gone has no route.
    exposure.aggregate_items(vec![pair("a", "echo")], Vec::new());
    assert_eq!(exposure.aggregate_route(ListKind::Tools, "b__echo"), None);
}

#[test]
fn a_client_sees_an_index_servers_tool_only_once_it_loaded_it() {
    let mut exposure = Exposure::default();
    exposure.plan_chosen(plan("idx", "fullsrv"));
    exposure.tools_loaded("code", &[pair("idx", "find"), pair("fullsrv", "x")], true);
    let loaded = exposure.loaded_by("code").cloned().unwrap_or_default();
    assert!(exposure.aggregate_shows(&loaded, "idx", "find", false));
    assert!(!exposure.aggregate_shows(&loaded, "idx", "other", true));
    // A `full` server's tools: on the aggregate exactly when it lists everything.
    assert!(exposure.aggregate_shows(&loaded, "fullsrv", "y", true));
    assert!(!exposure.aggregate_shows(&loaded, "fullsrv", "x", false));
    assert_eq!(
        exposure.loaded_listed(&loaded),
        1,
        "only the index server's tool adds one"
    );
    assert!(exposure.meta_tool("search_tools").is_some());
    assert!(exposure.meta_tool("load_tools").is_none());

    exposure.tools_loaded("code", &[pair("idx", "find")], false);
    assert_eq!(exposure.loaded_by("code").map(VecSet::len), Some(1));
}

#[test]
fn unloading_a_server_or_a_tool_forgets_it_for_every_client() {
    let mut exposure = Exposure::default();
    exposure.tools_loaded("one", &[pair("a", "t"), pair("b", "u")], true);
    exposure.tools_loaded("two", &[pair("b", "u")], true);
    exposure.tools_loaded("three", &[], true);
    assert_eq!(exposure.server_unloaded("a"), vec!["one".to_string()]);
    assert_eq!(exposure.all_loaded().len(), 1);
    exposure.tool_gone(&pair("b", "u"));
    assert!(exposure.all_loaded().is_empty());
    // An identity stays known with nothing loaded: it counts against a cap.
    assert!(!exposure.is_new_identity_over("three", "t", 1));
    assert!(exposure.is_new_identity_over("tom", "t", 2));
    assert!(!exposure.is_new_identity_over("tom", "t", 3));
}

#[test]
fn a_publication_clears_the_change_and_a_new_plan_drops_the_search_index() {
    let mut exposure = Exposure::default();
    exposure.changed();
    assert!(exposure.is_dirty());
    exposure.plan_chosen(plan("idx", "fullsrv"));
    exposure.search_index_built(ToolIndex::default());
    assert!(exposure.search_index().is_some());
    let previous = exposure.publishing();
    assert!(!exposure.is_dirty());
    assert!(
        previous.is_indexed("idx"),
        "the plan in force is handed over"
    );
    exposure.plan_chosen(previous);
    assert!(exposure.search_index().is_none());
    exposure.search_index_built(ToolIndex::default());
    exposure.search_inputs_changed();
    assert!(exposure.search_index().is_none());
}
