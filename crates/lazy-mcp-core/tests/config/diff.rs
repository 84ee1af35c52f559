//! Reload diffs: added, removed, changed, unchanged.

use super::*;
use lazy_mcp_core::config::{diff, diff_json, ConfigDiff};

fn servers(vscode_json: &str) -> Vec<ServerConfig> {
    run(&[APP], &[("/work/app/.vscode/mcp.json", Some(vscode_json))]).servers
}

#[test]
fn added_removed_changed_unchanged() {
    let before = servers(
        r#"{"servers": {
        "keep": {"command": "a"},
        "gone": {"command": "b"},
        "args-change": {"command": "c", "args": ["1"]},
        "flag-change": {"command": "d"},
        "tools-change": {"command": "e"}
    }}"#,
    );
    let after = servers(
        r#"{"servers": {
        "new": {"command": "f"},


        "keep": {"command": "a"},
        "args-change": {"command": "c", "args": ["2"]},
        "flag-change": {"command": "d", "autoConnect": false},
        "tools-change": {"command": "e", "tools": ["only_this"]}
    }}"#,
    );
    assert_eq!(
        diff(&before, &after),
        ConfigDiff {
            added: vec!["new".into()],
            removed: vec!["gone".into()],
            changed: vec![
                "args-change".into(),
                "flag-change".into(),
                "tools-change".into()
            ],
            // moved to another line: not a change
            unchanged: vec!["keep".into()],
        }
    );
}

#[test]
fn env_value_change_is_a_change() {
    let before = servers(r#"{"servers": {"s": {"command": "a", "env": {"K": "1"}}}}"#);
    let after = servers(r#"{"servers": {"s": {"command": "a", "env": {"K": "2"}}}}"#);
    assert_eq!(diff(&before, &after).changed, ["s"]);
    assert_eq!(diff(&before, &before).unchanged, ["s"]);
}

#[test]
fn diff_over_json() {
    let before = servers(r#"{"servers": {"s": {"command": "a"}}}"#);
    let input = serde_json::json!({ "previous": before, "next": [] });
    let out: serde_json::Value = serde_json::from_str(&diff_json(&input.to_string())).unwrap();
    assert_eq!(out["removed"], serde_json::json!(["s"]));
}
