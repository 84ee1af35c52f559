//! Precedence, shadowing, identical duplicates and multi-root workspaces.

use super::*;
use lazy_mcp_core::config::{ConfigFormat, ConfigScope, Transport};

fn command_of(server: &ServerConfig) -> &str {
    match &server.transport {
        Transport::Stdio { command, .. } => command,
        other => panic!("{other:?}"),
    }
}

fn vscode(name: &str, command: &str) -> String {
    format!(r#"{{"servers": {{"{name}": {{"command": "{command}"}}}}}}"#)
}

fn mcp_servers(name: &str, command: &str) -> String {
    format!(r#"{{"mcpServers": {{"{name}": {{"command": "{command}"}}}}}}"#)
}

#[test]
fn project_wins_over_user_across_tools() {
    let result = run(
        &[APP],
        &[
            (
                "/home/dev/.config/Code/User/mcp.json",
                Some(&vscode("s", "user-vscode")),
            ),
            (
                "/work/app/opencode.json",
                Some(r#"{"mcp": {"s": {"type": "local", "command": ["project-opencode"]}}}"#),
            ),
        ],
    );
    let s = server(&result, "s");
    assert_eq!(command_of(s), "project-opencode");
    assert_eq!(result.shadowed.len(), 1);
    assert_eq!(result.shadowed[0].winner.format, ConfigFormat::OpenCode);
    assert_eq!(result.shadowed[0].loser.scope, ConfigScope::User);
}

#[test]
fn same_level_follows_the_tool_order() {
    // VS Code > Claude Code > Copilot CLI > OpenCode > Claude Desktop.
    let result = run(
        &[APP],
        &[
            (
                "/home/dev/.config/Claude/claude_desktop_config.json",
                Some(&mcp_servers("s", "desktop")),
            ),
            (
                "/home/dev/.config/opencode/opencode.json",
                Some(r#"{"mcp": {"s": {"type": "local", "command": "opencode"}}}"#),
            ),
            (
                "/home/dev/.copilot/mcp-config.json",
                Some(&mcp_servers("s", "copilot")),
            ),
            ("/home/dev/.claude.json", Some(&mcp_servers("s", "claude"))),
        ],
    );
    assert_eq!(command_of(server(&result, "s")), "claude");
    let losers: Vec<ConfigFormat> = result.shadowed.iter().map(|s| s.loser.format).collect();
    assert_eq!(
        losers,
        [
            ConfigFormat::CopilotCli,
            ConfigFormat::OpenCode,
            ConfigFormat::ClaudeDesktop
        ]
    );
}

#[test]
fn claude_code_local_beats_project_beats_user() {
    let claude_json = r#"{
  "mcpServers": {"s": {"command": "user"}, "t": {"command": "user"}},
  "projects": {"/work/app/": {"mcpServers": {"s": {"command": "local"}}}}
}"#;
    let result = run(
        &[APP],
        &[
            ("/work/app/.mcp.json", Some(&mcp_servers("s", "project"))),
            ("/home/dev/.claude.json", Some(claude_json)),
            (
                "/work/app/.github/mcp.json",
                Some(&mcp_servers("t", "copilot-project")),
            ),
        ],
    );
    assert_eq!(command_of(server(&result, "s")), "local");
    assert_eq!(server(&result, "s").source.scope, ConfigScope::Local);
    // A project file of another tool still beats Claude Code's user scope.
    assert_eq!(command_of(server(&result, "t")), "copilot-project");
    let shadowed: Vec<(&str, ConfigScope, ConfigScope)> = result
        .shadowed
        .iter()
        .map(|s| (s.name.as_str(), s.winner.scope, s.loser.scope))
        .collect();
    assert_eq!(
        shadowed,
        [
            ("s", ConfigScope::Local, ConfigScope::Project),
            ("s", ConfigScope::Local, ConfigScope::User),
            ("t", ConfigScope::Project, ConfigScope::User),
        ]
    );
}

#[test]
fn copilot_project_files_in_their_order() {
    let result = run(
        &[APP],
        &[
            (
                "/work/app/.github/mcp.json",
                Some(&mcp_servers("s", "github-mcp")),
            ),
            (
                "/work/app/.github/mcp-config.json",
                Some(&mcp_servers("s", "github-mcp-config")),
            ),
            (
                "/work/app/.copilot/mcp-config.json",
                Some(&mcp_servers("s", "copilot-dir")),
            ),
        ],
    );
    assert_eq!(command_of(server(&result, "s")), "copilot-dir");
    assert_eq!(result.shadowed.len(), 2);
}

#[test]
fn identical_duplicates_collapse_silently() {
    let result = run(
        &[APP],
        &[
            ("/work/app/.vscode/mcp.json", Some(&vscode("s", "same"))),
            ("/work/app/.mcp.json", Some(&mcp_servers("s", "same"))),
            (
                "/home/dev/.copilot/mcp-config.json",
                Some(&mcp_servers("s", "same")),
            ),
        ],
    );
    assert_eq!(names(&result), ["s"]);
    assert_eq!(server(&result, "s").source.format, ConfigFormat::VsCode);
    assert!(result.shadowed.is_empty());
}

#[test]
fn a_flag_difference_is_not_identical() {
    let result = run(
        &[APP],
        &[
            ("/work/app/.vscode/mcp.json", Some(&vscode("s", "same"))),
            (
                "/work/app/.mcp.json",
                Some(r#"{"mcpServers": {"s": {"command": "same", "autoConnect": false}}}"#),
            ),
        ],
    );
    assert_eq!(result.shadowed.len(), 1);
}

#[test]
fn multi_root_same_name_different_definitions_stay_two_servers() {
    let result = run(
        &["/work/front", "/work/back"],
        &[
            (
                "/work/front/.vscode/mcp.json",
                Some(&vscode("db", "front-db")),
            ),
            (
                "/work/back/.vscode/mcp.json",
                Some(&vscode("db", "back-db")),
            ),
            (
                "/work/back/.mcp.json",
                Some(&mcp_servers("db", "back-claude")),
            ),
            (
                "/home/dev/.claude.json",
                Some(&mcp_servers("db", "user-db")),
            ),
        ],
    );
    assert_eq!(names(&result), ["db (back)", "db (front)"]);
    assert_eq!(command_of(server(&result, "db (front)")), "front-db");
    assert_eq!(command_of(server(&result, "db (back)")), "back-db");
    assert_eq!(
        server(&result, "db (back)")
            .source
            .workspace_folder
            .as_deref(),
        Some("/work/back")
    );
    // back's .mcp.json loses to back's .vscode; the user definition loses too.
    assert_eq!(result.shadowed.len(), 2);
}

#[test]
fn multi_root_identical_definitions_stay_one_server() {
    let result = run(
        &["/work/front", "/work/back"],
        &[
            ("/work/front/.vscode/mcp.json", Some(&vscode("db", "same"))),
            ("/work/back/.vscode/mcp.json", Some(&vscode("db", "same"))),
        ],
    );
    assert_eq!(names(&result), ["db"]);
    assert_eq!(
        server(&result, "db").source.workspace_folder.as_deref(),
        Some("/work/front")
    );
}

#[test]
fn multi_root_folders_with_the_same_basename_are_still_distinct() {
    let result = run(
        &["/a/app", "/b/app"],
        &[
            ("/a/app/.vscode/mcp.json", Some(&vscode("db", "one"))),
            ("/b/app/.vscode/mcp.json", Some(&vscode("db", "two"))),
        ],
    );
    assert_eq!(names(&result), ["db (app 2)", "db (app)"]);
    assert_eq!(command_of(server(&result, "db (app)")), "one");
}

#[test]
fn merge_result_is_deterministic_whatever_the_file_order() {
    let files = [
        ("/home/dev/.claude.json", mcp_servers("s", "user")),
        ("/work/app/.mcp.json", mcp_servers("s", "project")),
        ("/work/app/.vscode/mcp.json", vscode("t", "x")),
    ];
    let forward: Vec<(&str, Option<&str>)> =
        files.iter().map(|(p, c)| (*p, Some(c.as_str()))).collect();
    let backward: Vec<(&str, Option<&str>)> = forward.iter().rev().cloned().collect();
    let a = run(&[APP], &forward);
    let b = run(&[APP], &backward);
    assert_eq!(a.servers, b.servers);
    assert_eq!(a.shadowed, b.shadowed);
}
