//! Whatever a server sends or a model asks, the tool index answers without
//! panicking (a panic in wasm kills the whole core), and its summaries keep
//! their shape.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use lazy_mcp_core::tool_index::{
    closest_names, estimate_tokens, one_line_summary, render_compact_index, render_names_index,
    tokenize, validate_arguments, ToolIndex, SUMMARY_MAX_CHARS,
};
use proptest::prelude::*;
use serde_json::{json, Value};

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[a-zA-Z_ .\\-\n]{0,12}".prop_map(Value::from),
        prop_oneof![
            Just("type"),
            Just("object"),
            Just("string"),
            Just("integer"),
            Just("array"),
            Just("properties"),
            Just("required"),
            Just("items"),
            Just("enum"),
            Just("anyOf"),
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::from),
            prop::collection::btree_map(
                prop_oneof![
                    Just("type".to_string()),
                    Just("properties".to_string()),
                    Just("required".to_string()),
                    Just("items".to_string()),
                    Just("enum".to_string()),
                    Just("anyOf".to_string()),
                    Just("additionalProperties".to_string()),
                    Just("minimum".to_string()),
                    Just("maxLength".to_string()),
                    "[a-z]{1,4}",
                ],
                inner,
                0..5,
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn text_functions_take_any_string(text in "\\PC{0,200}") {
        let _ = tokenize(&text);
        let _ = estimate_tokens(&text);
        let summary = one_line_summary(&json!({"name": "t", "description": text}));
        prop_assert!(summary.chars().count() <= SUMMARY_MAX_CHARS);
        prop_assert!(!summary.contains('\n'));
        let _ = closest_names(&text, &["git/git_status", "a"], 3);
    }

    #[test]
    fn any_tool_objects_index_render_and_search(tools in prop::collection::vec(any_json(), 0..8), query in "\\PC{0,40}") {
        let entries: Vec<(&str, &Value)> = tools.iter().map(|t| ("s", t)).collect();
        let index = ToolIndex::build(&entries);
        let hits = index.search(&query, 5);
        prop_assert!(hits.len() <= 5);
        prop_assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
        let _ = index.resolve(&query);
        let _ = render_compact_index(&entries);
        let _ = render_names_index(&entries);
    }

    #[test]
    fn any_schema_checks_any_arguments(schema in any_json(), args in any_json()) {
        let _ = validate_arguments(&schema, &args);
    }
}
