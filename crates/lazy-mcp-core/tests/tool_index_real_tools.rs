//! The tool index on the six real servers' tool lists as captured from them
//! (tests/fixtures/tool_index/real_tools.json): summaries, argument checks and
//! name errors a model would meet.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod tool_index_support;

use lazy_mcp_core::tool_index::{
    one_line_summary, validate_arguments, ToolIndex, SUMMARY_MAX_CHARS,
};
use serde_json::{json, Value};
use tool_index_support::real_tools;

fn tool(server: &str, name: &str) -> Value {
    real_tools()
        .into_iter()
        .find(|(s, t)| s == server && t["name"] == name)
        .map(|(_, t)| t)
        .unwrap_or_else(|| panic!("{server}/{name} not in the fixture"))
}

fn schema(server: &str, name: &str) -> Value {
    tool(server, name)["inputSchema"].clone()
}

#[test]
fn every_real_tool_has_a_short_one_line_summary() {
    for (server, tool) in real_tools() {
        let summary = one_line_summary(&tool);
        let name = &tool["name"];
        assert!(!summary.is_empty(), "{server}/{name}");
        assert!(!summary.contains('\n'), "{server}/{name}: {summary}");
        assert!(
            summary.chars().count() <= SUMMARY_MAX_CHARS,
            "{server}/{name}: {summary}"
        );
        assert!(!summary.ends_with('.'), "{server}/{name}: {summary}");
    }
    assert_eq!(
        one_line_summary(&tool("sequential-thinking", "sequentialthinking")),
        "A detailed tool for dynamic and reflective problem-solving through thoughts"
    );
    assert_eq!(
        one_line_summary(&tool("git", "git_status")),
        "Shows the working tree status"
    );
}

#[test]
fn real_schemas_accept_what_their_servers_accept() {
    let ok = [
        (
            "filesystem",
            "edit_file",
            json!({"path": "a.txt", "edits": [{"oldText": "a", "newText": "b"}], "dryRun": true}),
        ),
        (
            "filesystem",
            "list_directory_with_sizes",
            json!({"path": "/tmp", "sortBy": "size"}),
        ),
        (
            "time",
            "convert_time",
            json!({"source_timezone": "Europe/Paris", "time": "09:00", "target_timezone": "Australia/Sydney"}),
        ),
        (
            "git",
            "git_log",
            json!({"repo_path": "/r", "max_count": 5, "start_timestamp": null}),
        ),
        ("everything", "get-sum", json!({"a": 1.5, "b": 2})),
        ("memory", "read_graph", json!({})),
    ];
    for (server, name, args) in ok {
        assert_eq!(
            validate_arguments(&schema(server, name), &args),
            Ok(()),
            "{server}/{name}"
        );
    }
}

#[test]
fn malformed_arguments_get_the_schemas_complaint() {
    let cases = [
        (
            "filesystem",
            "edit_file",
            json!({"path": "a.txt", "edits": [{"oldText": "a"}]}),
            "arguments.edits[0] is missing required property \"newText\"",
        ),
        (
            "filesystem",
            "list_directory_with_sizes",
            json!({"path": "/tmp", "sortBy": "date"}),
            "arguments.sortBy must be one of \"name\", \"size\", got \"date\"",
        ),
        (
            "time",
            "convert_time",
            json!({"time": "09:00"}),
            "arguments is missing required properties \"source_timezone\", \"target_timezone\"",
        ),
        (
            "git",
            "git_log",
            json!({"repo_path": "/r", "max_count": "5"}),
            "arguments.max_count must be integer, got string \"5\"",
        ),
        (
            "git",
            "git_log",
            json!({"repo_path": "/r", "start_timestamp": 20240115}),
            "arguments.start_timestamp must be string or null, got integer 20240115",
        ),
        (
            "everything",
            "get-sum",
            json!({"a": "1", "b": 2}),
            "arguments.a must be number, got string \"1\"",
        ),
    ];
    for (server, name, args, complaint) in cases {
        assert_eq!(
            validate_arguments(&schema(server, name), &args),
            Err(complaint.to_string()),
            "{server}/{name}"
        );
    }
}

#[test]
fn unknown_real_names_suggest_the_right_tool() {
    let tools = real_tools();
    let refs: Vec<(&str, &Value)> = tools.iter().map(|(s, t)| (s.as_str(), t)).collect();
    let index = ToolIndex::build(&refs);
    assert_eq!(
        index.resolve("read_text_file"),
        Ok(("filesystem", "read_text_file"))
    );
    let err = index.resolve("filesystem/read_txt_file").unwrap_err();
    assert!(
        err.starts_with(
            "Unknown tool \"filesystem/read_txt_file\". Closest: filesystem/read_text_file"
        ),
        "{err}"
    );
    let err = index.resolve("git_stat").unwrap_err();
    assert!(err.contains("git/git_status"), "{err}");
    let err = index.resolve("memory/create_entity").unwrap_err();
    assert!(err.contains("Closest: memory/create_entities"), "{err}");
}
