//! Issue 23: config problems in an editor host, through the JSON entry the VS Code
//! host calls (`presentProblems`). A broken file must never look fixed, the
//! notification names every file as Diagnostics does, and an unchanged problem is
//! never announced twice.

use super::{APP, HOME};
use lazy_mcp_core::config::{normalize, NormalizeInput};
use lazy_mcp_core::problem_presentation::present_problems_json;
use serde_json::{json, Value};

/// Two files both named `mcp-config.json` (the workspace's and the user's), both broken.
fn load(user_broken: bool) -> Value {
    let mut files = vec![
        json!({"path": format!("{APP}/.copilot/mcp-config.json"), "content": "{\"mcpServers\": {\"a\": {\"command\": \"x\"}\n \"b\": {}}}"}),
    ];
    files.push(
        json!({"path": format!("{HOME}/.copilot/mcp-config.json"), "content": if user_broken {
            "{\"mcpServers\": {\"u\": {\"command\": \"x\" \"args\": []}}}"
        } else {
            "{\"mcpServers\": {\"u\": {\"command\": \"x\"}}}"
        }}),
    );
    let input: NormalizeInput = serde_json::from_value(json!({
        "home": HOME, "workspaceFolders": [APP], "platform": "linux", "env": {}, "files": files,
    }))
    .unwrap();
    serde_json::to_value(normalize(&input)).unwrap()
}

fn present(result: &Value, previous: &Value, open: Value) -> Value {
    let input = json!({
        "problems": result["problems"], "files": result["files"], "openDocuments": open,
        "previous": previous, "home": HOME, "workspaceFolders": [APP],
    });
    serde_json::from_str(&present_problems_json(&input.to_string())).unwrap()
}

fn files_of(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|p| p["file"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn same_named_files_are_both_named_and_a_fix_of_one_announces_nothing_about_the_other() {
    let both = load(true);
    let first = present(&both, &json!([]), json!([]));
    let text = first["notification"].as_str().unwrap();
    assert!(text.contains("~/.copilot/mcp-config.json:"), "{text}");
    assert!(
        text.contains("; .copilot/mcp-config.json:")
            || text.contains(": .copilot/mcp-config.json:"),
        "{text}"
    );
    assert!(!text.contains("more)"), "{text}");
    let logged: Vec<&str> = first["log"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["message"].as_str().unwrap())
        .collect();
    assert_eq!(logged.len(), 2, "{logged:?}");

    let fixed = load(false);
    let after = present(&fixed, &first["known"], json!([]));
    assert!(after["notification"].is_null(), "{after}");
    assert!(after["notify"].as_array().unwrap().is_empty());
    assert_eq!(after["log"][0]["level"], "info");
    assert!(after["log"][0]["message"]
        .as_str()
        .unwrap()
        .starts_with("config problem gone: ~/.copilot/mcp-config.json"));

    // Sync Config: the same problems read again.
    let again = present(&fixed, &after["known"], json!([]));
    assert!(again["notification"].is_null());
    assert!(again["log"].as_array().unwrap().is_empty());
}

#[test]
fn a_syntax_error_is_the_editors_only_while_a_tab_shows_the_file() {
    let result = load(false);
    let file = format!("{APP}/.copilot/mcp-config.json");
    let in_tab = present(
        &result,
        &json!([]),
        json!([{"path": file, "languageId": "jsonc", "inTab": true}]),
    );
    assert!(!files_of(&in_tab["squiggles"]).contains(&file), "{in_tab}");
    assert!(
        in_tab["notification"].is_null(),
        "no toast for a file being edited"
    );
    // The tab closed; VS Code keeps the document loaded, its JSON checker drops the file.
    let closed = present(
        &result,
        &in_tab["known"],
        json!([{"path": file, "languageId": "jsonc", "inTab": false}]),
    );
    assert!(files_of(&closed["squiggles"]).contains(&file), "{closed}");
}
