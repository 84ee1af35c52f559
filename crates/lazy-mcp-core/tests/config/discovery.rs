//! The discovery plan: every location, per platform, in precedence order.

use super::*;
use lazy_mcp_core::config::{discovery_plan, discovery_plan_json, ConfigFormat, ConfigScope};
use lazy_mcp_core::vec_map::VecMap;

fn paths(input: &DiscoveryInput) -> Vec<String> {
    discovery_plan(input).into_iter().map(|c| c.path).collect()
}

#[test]
fn linux_plan_in_precedence_order() {
    let mut input = discovery(&[APP]);
    input.vscode_user_mcp_json = None;
    input.env.clear();
    assert_eq!(
        paths(&input),
        [
            "/work/app/.vscode/mcp.json",
            "/work/app/.mcp.json",
            "/work/app/.copilot/mcp-config.json",
            "/work/app/.github/mcp-config.json",
            "/work/app/.github/mcp.json",
            "/work/app/.opencode/opencode.jsonc",
            "/work/app/.opencode/opencode.json",
            "/work/app/opencode.jsonc",
            "/work/app/opencode.json",
            "/home/dev/.config/Code/User/mcp.json",
            "/home/dev/.claude.json",
            "/home/dev/.claude/.mcp.json",
            "/home/dev/.copilot/mcp-config.json",
            "/home/dev/.github/mcp-config.json",
            "/home/dev/.config/opencode/opencode.jsonc",
            "/home/dev/.config/opencode/opencode.json",
            "/home/dev/.config/Claude/claude_desktop_config.json",
        ]
    );
    let plan = discovery_plan(&input);
    let vscode_loaded: Vec<&str> = plan
        .iter()
        .filter(|c| c.loaded_by_vscode)
        .map(|c| c.path.as_str())
        .collect();
    assert_eq!(
        vscode_loaded,
        [
            "/work/app/.vscode/mcp.json",
            "/work/app/.mcp.json",
            "/home/dev/.config/Code/User/mcp.json"
        ]
    );
    assert!(plan
        .iter()
        .all(|c| (c.scope == ConfigScope::Project) == c.workspace_folder.is_some()));
}

#[test]
fn environment_overrides() {
    let mut input = discovery(&[]);
    input.vscode_user_mcp_json = Some("/profiles/p1/mcp.json".into());
    input
        .env
        .insert("COPILOT_HOME".into(), "/opt/copilot".into());
    input.env.insert("XDG_CONFIG_HOME".into(), "/xdg".into());
    input
        .env
        .insert("OPENCODE_CONFIG".into(), "/custom/oc.json".into());
    assert_eq!(
        paths(&input),
        [
            "/profiles/p1/mcp.json",
            "/home/dev/.claude.json",
            "/home/dev/.claude/.mcp.json",
            "/opt/copilot/mcp-config.json",
            "/home/dev/.github/mcp-config.json",
            "/custom/oc.json",
            "/xdg/opencode/opencode.jsonc",
            "/xdg/opencode/opencode.json",
            "/xdg/Claude/claude_desktop_config.json",
        ]
    );
}

#[test]
fn darwin_locations() {
    let mut input = discovery(&[]);
    input.platform = "darwin".into();
    input.vscode_user_mcp_json = None;
    input.env.clear();
    let plan = paths(&input);
    assert_eq!(
        plan[0],
        "/home/dev/Library/Application Support/Code/User/mcp.json"
    );
    assert_eq!(
        plan.last().map(String::as_str),
        Some("/home/dev/Library/Application Support/Claude/claude_desktop_config.json")
    );
    assert!(plan.contains(&"/home/dev/.config/opencode/opencode.json".to_string()));
}

#[test]
fn win32_locations_use_backslashes_and_appdata() {
    let input = DiscoveryInput {
        home: "C:\\Users\\dev".into(),
        workspace_folders: vec!["C:\\work\\app".into()],
        platform: "win32".into(),
        env: [(
            "APPDATA".to_string(),
            "C:\\Users\\dev\\AppData\\Roaming".to_string(),
        )]
        .into_iter()
        .collect(),
        vscode_user_mcp_json: None,
        sources: Some(vec![ConfigFormat::VsCode, ConfigFormat::ClaudeDesktop]),
    };
    assert_eq!(
        paths(&input),
        [
            "C:\\work\\app\\.vscode\\mcp.json",
            "C:\\Users\\dev\\AppData\\Roaming\\Code\\User\\mcp.json",
            "C:\\Users\\dev\\AppData\\Roaming\\Claude\\claude_desktop_config.json",
        ]
    );
}

#[test]
fn win32_normalize_matches_paths_case_insensitively() {
    let input = lazy_mcp_core::config::NormalizeInput {
        real_paths: Default::default(),
        discovery: DiscoveryInput {
            home: "C:\\Users\\dev".into(),
            workspace_folders: vec!["C:\\work\\app".into()],
            platform: "win32".into(),
            env: [("Api_Key".to_string(), "k".to_string())]
                .into_iter()
                .collect(),
            vscode_user_mcp_json: None,
            sources: None,
        },
        files: vec![FileInput {
            path: "c:/work/app/.vscode/mcp.json".into(),
            content: Some(
                r#"{"servers": {"a": {"command": "x", "env": {"K": "${env:API_KEY}"}}}}"#.into(),
            ),
            ..FileInput::default()
        }],
        extra_files: VecMap::new(),
        unreadable_files: VecMap::new(),
    };
    let result = normalize(&input);
    assert!(result.problems.is_empty(), "{:#?}", result.problems);
    assert_eq!(result.servers[0].source.format, ConfigFormat::VsCode);
    assert_eq!(
        result.servers[0].source.workspace_folder.as_deref(),
        Some("C:\\work\\app")
    );
}

#[test]
fn sources_filter_and_json_entry_point() {
    let json = r#"{"home": "/home/dev", "workspaceFolders": ["/w"], "platform": "linux", "sources": ["open-code"]}"#;
    let plan: serde_json::Value = serde_json::from_str(&discovery_plan_json(json)).unwrap();
    let plan = plan.as_array().unwrap();
    assert_eq!(plan.len(), 6);
    assert_eq!(plan[0]["format"], "open-code");
    assert_eq!(plan[0]["workspaceFolder"], "/w");
    assert_eq!(plan[0]["loadedByVscode"], false);
    let bad: serde_json::Value = serde_json::from_str(&discovery_plan_json("[")).unwrap();
    assert_eq!(bad["error"]["severity"], "error");
}

#[test]
fn normalize_skips_formats_left_out_of_sources() {
    let mut input = lazy_mcp_core::config::NormalizeInput {
        real_paths: Default::default(),
        discovery: discovery(&[APP]),
        files: vec![
            FileInput {
                path: "/work/app/.vscode/mcp.json".into(),
                content: Some(r#"{"servers": {"a": {"command": "x"}}}"#.into()),
                ..FileInput::default()
            },
            FileInput {
                path: "/work/app/.mcp.json".into(),
                content: Some(r#"{"mcpServers": {"b": {"command": "x"}}}"#.into()),
                ..FileInput::default()
            },
        ],
        extra_files: VecMap::new(),
        unreadable_files: VecMap::new(),
    };
    input.discovery.sources = Some(vec![ConfigFormat::ClaudeCode]);
    let result = normalize(&input);
    assert_eq!(names(&result), ["b"]);
    assert_eq!(result.files.len(), 1);
}

/// A file outside the plan with no `format` (the CLI's `--config FILE`): the
/// format comes from its name or top-level keys; otherwise it is reported, not read.
#[test]
fn files_outside_the_plan_get_an_inferred_format() {
    let result = run(
        &[APP],
        &[
            (
                "/etc/team/servers.json",
                Some(r#"{"servers": {"a": {"command": "x"}}}"#),
            ),
            (
                "/etc/team/opencode.json",
                Some(r#"{"mcp": {"b": {"type": "local", "command": ["y"]}}}"#),
            ),
            (
                "/etc/team/copilot.json",
                Some(r#"{"mcpServers": {"c": {"type": "local", "command": "z"}}}"#),
            ),
            ("/etc/team/odd.json", Some(r#"{"whatever": {}}"#)),
        ],
    );
    let format_of = |name: &str| server(&result, name).source.format;
    assert_eq!(format_of("a"), ConfigFormat::VsCode);
    assert_eq!(format_of("b"), ConfigFormat::OpenCode);
    assert_eq!(format_of("c"), ConfigFormat::CopilotCli);
    assert_eq!(server(&result, "a").source.scope, ConfigScope::User);
    assert!(!result.files.iter().any(|f| f.path == "/etc/team/odd.json"));
    assert!(result
        .problems
        .iter()
        .any(|p| p.file == "/etc/team/odd.json" && p.message.contains("give its `format`")));
}
