//! Bad input: positioned errors, and everything else still loads.

use super::*;
use lazy_mcp_core::config::{normalize_json, Problem, Severity};
use lazy_mcp_core::vec_map::VecMap;

fn at(problem: &Problem) -> (Option<&str>, Option<&str>, u32, u32) {
    (
        problem.server.as_deref(),
        problem.field.as_deref(),
        problem.line,
        problem.column,
    )
}

#[test]
fn bad_entries_are_errors_with_server_field_and_position_and_others_still_load() {
    let content = fixture("errors/bad-entries.mcp.json");
    let result = run(
        &[APP],
        &[
            ("/work/app/.mcp.json", Some(&content)),
            (
                "/work/app/.vscode/mcp.json",
                Some(r#"{"servers": {"ok": {"command": "x"}}}"#),
            ),
        ],
    );
    assert_eq!(names(&result), ["good", "ok"]);
    let found: Vec<_> = result.problems.iter().map(at).collect();
    assert_eq!(
        found,
        [
            (Some("no-command"), Some("command"), 3, 5),
            (Some("bad-type"), Some("type"), 7, 27),
            (Some("bad-args"), Some("args[1]"), 8, 53),
            (Some("bad-args"), Some("args[2]"), 8, 57),
            (Some("bad-url"), Some("url"), 9, 41),
            (Some("missing-var"), Some("env.KEY"), 10, 57),
            (Some("good"), Some("color"), 11, 57),
        ]
    );
    let severities: Vec<Severity> = result.problems.iter().map(|p| p.severity).collect();
    assert_eq!(severities[6], Severity::Info);
    assert!(severities[..6].iter().all(|s| *s == Severity::Error));
    for problem in &result.problems {
        assert_eq!(problem.file, "/work/app/.mcp.json");
    }
    let missing = &result.problems[5];
    assert_eq!(
        missing.message,
        "environment variable `UNSET_SECRET_VAR` is not set (used in `env.KEY`); \
         set it in the environment VS Code starts with, or write `${UNSET_SECRET_VAR:-default}`"
    );
    assert_eq!(result.files[0].server_count, 1);
    assert!(result.files[0].error.is_none());
}

#[test]
fn malformed_jsonc_is_one_positioned_error_and_other_files_still_load() {
    let broken = fixture("errors/missing-comma.mcp.json");
    let result = run(
        &[APP],
        &[
            ("/work/app/.vscode/mcp.json", Some(&broken)),
            (
                "/work/app/.mcp.json",
                Some(r#"{"mcpServers": {"ok": {"command": "x"}}}"#),
            ),
        ],
    );
    assert_eq!(names(&result), ["ok"]);
    assert_eq!(result.problems.len(), 1);
    let problem = &result.problems[0];
    assert_eq!(problem.severity, Severity::Error);
    assert_eq!(problem.file, "/work/app/.vscode/mcp.json");
    // Where VS Code's JSON language service puts it: at `"b"` on line 4, the
    // token that should have followed a comma.
    assert_eq!((problem.line, problem.column), (4, 5));
    assert!(
        problem.message.contains("Expected comma"),
        "{}",
        problem.message
    );
    assert_eq!(result.files[0].error.as_ref(), Some(problem));
    assert_eq!(result.files[0].server_count, 0);
}

#[test]
fn unterminated_and_wrong_shapes() {
    let result = run(
        &[APP],
        &[
            (
                "/work/app/.vscode/mcp.json",
                Some("{\n  \"servers\": {\n    \"a\": {"),
            ),
            ("/work/app/.mcp.json", Some("[1, 2]")),
            ("/work/app/opencode.json", Some("{ \"mcp\": [] }")),
            (
                "/home/dev/.claude.json",
                Some("{ \"mcpServers\": { \"x\": 5 } }"),
            ),
        ],
    );
    assert!(result.servers.is_empty());
    let found: Vec<_> = result
        .problems
        .iter()
        .map(|p| (p.file.as_str(), p.line, p.column, p.message.as_str()))
        .collect();
    assert_eq!(found.len(), 4, "{found:#?}");
    assert!(found[0].3.contains("Unterminated object"), "{found:#?}");
    assert_eq!((found[1].1, found[1].2), (1, 1));
    assert!(found[1].3.contains("must contain a JSON object"));
    assert_eq!((found[2].1, found[2].2), (1, 10));
    assert!(found[2].3.contains("`mcp` must be an object"));
    assert_eq!((found[3].1, found[3].2), (1, 24));
    assert!(found[3].3.contains("must be an object, found a number"));
}

#[test]
fn duplicate_names_in_one_file_the_later_wins() {
    let content =
        "{\"servers\": {\n\"a\": {\"command\": \"first\"},\n\"a\": {\"command\": \"second\"}\n}}";
    let result = run(&[APP], &[("/work/app/.vscode/mcp.json", Some(content))]);
    match &server(&result, "a").transport {
        lazy_mcp_core::config::Transport::Stdio { command, .. } => assert_eq!(command, "second"),
        other => panic!("{other:?}"),
    }
    assert_eq!(at(&result.problems[0]), (Some("a"), None, 2, 1));
    assert_eq!(result.problems[0].severity, Severity::Warning);
}

#[test]
fn wrong_types_for_lazy_keys_are_errors() {
    let content = r#"{"servers": {
  "a": {"command": "x", "autoConnect": "no"},
  "b": {"command": "x", "tools": "all"},
  "c": {"command": "x", "timeout": -5},
  "d": {"command": "x", "enabled": 0},
  "e": {"command": "x", "tools": ["*"], "timeout": 1000, "disabled": false}
}}"#;
    let result = run(&[APP], &[("/work/app/.vscode/mcp.json", Some(content))]);
    assert_eq!(names(&result), ["e"]);
    let fields: Vec<_> = result.problems.iter().map(|p| p.field.as_deref()).collect();
    assert_eq!(
        fields,
        [
            Some("autoConnect"),
            Some("tools"),
            Some("timeout"),
            Some("enabled")
        ]
    );
}

#[test]
fn unknown_file_without_format_is_a_warning_not_a_crash() {
    let result = run(&[APP], &[("/somewhere/else.json", Some("{}"))]);
    assert!(result.files.is_empty());
    assert_eq!(result.problems[0].severity, Severity::Warning);
}

#[test]
fn invalid_input_json_is_a_problem_not_a_panic() {
    let out: serde_json::Value = serde_json::from_str(&normalize_json("{ not json")).unwrap();
    assert_eq!(out["servers"], serde_json::json!([]));
    assert_eq!(out["problems"][0]["severity"], "error");
    let out: serde_json::Value =
        serde_json::from_str(&normalize_json(r#"{"home": 5, "secretValue": "hunter2"}"#)).unwrap();
    let message = out["problems"][0]["message"].as_str().unwrap();
    assert!(message.contains("expected shape"), "{message}");
    assert!(!out.to_string().contains("hunter2"));
}

#[test]
fn normalize_json_round_trip() {
    let input = serde_json::json!({
        "home": "/home/dev",
        "workspaceFolders": ["/work/app"],
        "platform": "linux",
        "env": {},
        "files": [
            { "path": "/work/app/.vscode/mcp.json", "content": "{\"servers\":{\"a\":{\"command\":\"x\"}}}" },
            { "path": "/work/app/.mcp.json", "content": null }
        ]
    });
    let out: serde_json::Value = serde_json::from_str(&normalize_json(&input.to_string())).unwrap();
    assert_eq!(out["servers"][0]["name"], "a");
    assert_eq!(out["servers"][0]["autoConnect"], true);
    assert_eq!(out["files"][1]["found"], false);
    assert_eq!(out["needsFiles"], serde_json::json!([]));
}

#[test]
fn columns_count_characters_and_crlf_is_one_line_break() {
    let result = run(
        &[APP],
        &[
            (
                "/work/app/.vscode/mcp.json",
                Some("{\"servers\": {\"ünïcode\": 5}}"),
            ),
            (
                "/work/app/.mcp.json",
                Some("\u{feff}{\r\n  \"mcpServers\": {\r\n    \"x\": 5\r\n  }\r\n}"),
            ),
        ],
    );
    let positions: Vec<(u32, u32)> = result.problems.iter().map(|p| (p.line, p.column)).collect();
    assert_eq!(positions, [(1, 25), (3, 10)]);
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep_arrays = "[".repeat(100_000);
    let deep_objects = "{\"a\":".repeat(5_000);
    let result = run(
        &[APP],
        &[
            ("/work/app/.vscode/mcp.json", Some(&deep_arrays)),
            ("/work/app/.mcp.json", Some(&deep_objects)),
        ],
    );
    assert_eq!(result.problems.len(), 2);
    assert!(result
        .problems
        .iter()
        .all(|p| p.severity == Severity::Error));
}

#[test]
fn another_tools_key_is_a_warning_with_a_hint() {
    let result = run(
        &[APP],
        &[(
            "/work/app/opencode.json",
            Some(
                r#"{"mcp": {"x": {"type": "local", "command": ["run"], "args": ["a"], "env": {"K": "v"}}}}"#,
            ),
        )],
    );
    assert_eq!(names(&result), ["x"]);
    let messages: Vec<(Severity, &str)> = result
        .problems
        .iter()
        .map(|p| (p.severity, p.message.as_str()))
        .collect();
    assert_eq!(
        messages,
        [
            (
                Severity::Warning,
                "`args` ignored: this format puts arguments in the `command` array"
            ),
            (
                Severity::Warning,
                "`env` ignored: this format calls it `environment`"
            ),
        ]
    );
}

#[test]
fn all_problems_of_an_entry_are_reported_in_one_pass() {
    let content = r#"{"servers": {"x": {"type": "tcp", "autoConnect": 1, "timeout": "soon"}}}"#;
    let result = run(&[APP], &[("/work/app/.vscode/mcp.json", Some(content))]);
    let fields: Vec<_> = result.problems.iter().map(|p| p.field.as_deref()).collect();
    assert_eq!(fields, [Some("type"), Some("autoConnect"), Some("timeout")]);
    assert_eq!(
        result.problems[0].message,
        "unknown server `type`; expected one of: stdio, http, sse"
    );
}

/// A config path that is a directory, a FIFO, a loop (what the host found) is
/// an error naming the file and what it is, never "not found"; the same for
/// a `{file:...}` reference.
#[test]
fn unreadable_config_paths_and_file_references_say_what_the_path_is() {
    let input = lazy_mcp_core::config::NormalizeInput {
        real_paths: Default::default(),
        discovery: discovery(&[APP]),
        files: vec![
            FileInput {
                path: "/work/app/.mcp.json".into(),
                unreadable: Some("is a directory".into()),
                ..FileInput::default()
            },
            FileInput {
                path: "/tmp/odd-name".into(),
                unreadable: Some("is a FIFO (named pipe)".into()),
                ..FileInput::default()
            },
            FileInput {
                path: "/work/app/opencode.json".into(),
                content: Some(
                    r#"{"mcp": {"s": {"type": "local", "command": ["x", "{file:k}"]}}}"#.into(),
                ),
                ..FileInput::default()
            },
        ],
        extra_files: VecMap::new(),
        unreadable_files: VecMap::from([(
            "/work/app/k".to_string(),
            "is a symbolic link loop".to_string(),
        )]),
    };
    let result = lazy_mcp_core::config::normalize(&input);
    let text = |file: &str| {
        result
            .problems
            .iter()
            .filter(|p| p.file == file && p.severity == lazy_mcp_core::config::Severity::Error)
            .map(|p| p.message.clone())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        text("/work/app/.mcp.json").contains("is a directory"),
        "{:#?}",
        result.problems
    );
    assert!(
        text("/tmp/odd-name").contains("FIFO"),
        "{:#?}",
        result.problems
    );
    let opencode = text("/work/app/opencode.json");
    assert!(
        opencode.contains("/work/app/k") && opencode.contains("symbolic link loop"),
        "{opencode}"
    );
    let report = result
        .files
        .iter()
        .find(|f| f.path == "/work/app/.mcp.json")
        .unwrap();
    assert!(report.found && report.error.is_some());
    assert!(result.servers.is_empty());
}
