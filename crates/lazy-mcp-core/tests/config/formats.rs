//! Each format read with its own tool's semantics, from fixtures written after
//! each tool's documentation; plus a golden file of the whole normalized result.

use super::*;
use lazy_mcp_core::config::{
    ConfigFormat, ConfigScope, NormalizeInput, Severity, ToolFilter, Transport,
};
use lazy_mcp_core::vec_map::VecMap;

fn stdio(server: &ServerConfig) -> (&str, Vec<&str>, &VecMap<String, String>, Option<&str>) {
    match &server.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
            ..
        } => (
            command.as_str(),
            args.iter().map(String::as_str).collect(),
            env,
            cwd.as_deref(),
        ),
        other => panic!("{} is not stdio: {other:?}", server.name),
    }
}

fn remote(server: &ServerConfig) -> (&str, &str, &VecMap<String, String>) {
    match &server.transport {
        Transport::Http { url, headers } => ("http", url.as_str(), headers),
        Transport::Sse { url, headers } => ("sse", url.as_str(), headers),
        other => panic!("{} is not remote: {other:?}", server.name),
    }
}

#[test]
fn claude_code_project_file() {
    let content = fixture("claude-code/project.mcp.json");
    let result = run(&[APP], &[("/work/app/.mcp.json", Some(&content))]);
    assert_eq!(
        names(&result),
        ["api-server", "filesystem", "legacy-events", "no-type"]
    );
    assert!(result.problems.is_empty(), "{:#?}", result.problems);

    let fs = server(&result, "filesystem");
    let (command, args, env, _) = stdio(fs);
    assert_eq!(command, "npx");
    // ${PROJECT_DIR:-/tmp}: unset, so the default.
    assert_eq!(
        args,
        ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]
    );
    assert_eq!(env.get("LOG_LEVEL").map(String::as_str), Some("debug"));
    assert_eq!(fs.source.format, ConfigFormat::ClaudeCode);
    assert_eq!(fs.source.scope, ConfigScope::Project);
    assert_eq!(fs.source.workspace_folder.as_deref(), Some(APP));
    assert_eq!((fs.source.line, fs.source.column), (6, 5));
    assert!(
        fs.loaded_by_vscode,
        "workspace-root .mcp.json is loaded by VS Code"
    );
    assert!(fs.enabled && fs.auto_connect);
    assert_eq!(fs.tools, ToolFilter::All);

    let api = server(&result, "api-server");
    let (kind, url, headers) = remote(api);
    assert_eq!((kind, url), ("http", "https://api.example.com/mcp"));
    assert_eq!(headers["Authorization"], "Bearer sk-test-api-key-123456");
    assert_eq!(remote(server(&result, "legacy-events")).0, "sse");
    // No `type` but a `command`: stdio; ${HOME} from the host's environment.
    assert_eq!(stdio(server(&result, "no-type")).0, "/home/dev/bin/server");
}

#[test]
fn claude_json_user_and_local_scopes() {
    let content = fixture("claude-code/claude.json");
    let result = run(&[APP], &[("/home/dev/.claude.json", Some(&content))]);
    assert_eq!(names(&result), ["api-server", "filesystem", "github"]);
    let api = server(&result, "api-server");
    assert_eq!(api.source.scope, ConfigScope::Local);
    assert_eq!(api.source.workspace_folder.as_deref(), Some(APP));
    assert_eq!((api.source.line, api.source.column), (19, 9));
    assert_eq!(server(&result, "github").source.scope, ConfigScope::User);
    assert!(!server(&result, "github").loaded_by_vscode);
    // Entries of projects that are not open are not read.
    assert!(result.servers.iter().all(|s| s.name != "unrelated"));
}

#[test]
fn claude_desktop_has_no_variable_expansion() {
    let content = fixture("claude-desktop/claude_desktop_config.json");
    let path = "/home/dev/.config/Claude/claude_desktop_config.json";
    let result = run(&[APP], &[(path, Some(&content))]);
    assert_eq!(names(&result), ["literal", "sqlite"]);
    assert_eq!(stdio(server(&result, "literal")).1, ["${NOT_EXPANDED}"]);
    assert_eq!(
        server(&result, "sqlite").source.format,
        ConfigFormat::ClaudeDesktop
    );
    assert!(result.problems.is_empty(), "{:#?}", result.problems);
}

#[test]
fn copilot_cli_local_type_tools_and_timeout() {
    let content = fixture("copilot-cli/mcp-config.json");
    let result = run(
        &[APP],
        &[("/home/dev/.copilot/mcp-config.json", Some(&content))],
    );
    assert!(result.problems.is_empty(), "{:#?}", result.problems);
    let playwright = server(&result, "playwright");
    assert_eq!(stdio(playwright).0, "npx", "`local` is stdio");
    assert_eq!(playwright.tools, ToolFilter::All, "[\"*\"] is all tools");
    let github = server(&result, "github");
    assert_eq!(
        github.tools,
        ToolFilter::Only(vec!["get_issue".into(), "list_pull_requests".into()])
    );
    assert_eq!(
        remote(github).2["Authorization"],
        "Bearer github_pat_secret_abc"
    );
    let sentry = server(&result, "sentry");
    let (_, args, env, cwd) = stdio(sentry);
    // Copilot CLI expands variables in `env` (and headers) only.
    assert_eq!(
        args,
        [
            "@sentry/mcp-server@latest",
            "--host=${SENTRY_HOST:-sentry.io}"
        ]
    );
    assert_eq!(env["SENTRY_ACCESS_TOKEN"], "sentry-secret-xyz");
    assert_eq!(env["SENTRY_HOST"], "sentry.io");
    assert_eq!(env["USER_HOME"], "/home/dev", "shell-style $VAR");
    assert_eq!(cwd, Some("/work/app"));
    assert_eq!(sentry.timeout_ms, Some(30000));
}

#[test]
fn copilot_home_moves_the_user_file() {
    let mut input = NormalizeInput {
        real_paths: Default::default(),
        discovery: discovery(&[APP]),
        files: vec![FileInput {
            path: "/opt/copilot/mcp-config.json".into(),
            content: Some(fixture("copilot-cli/mcp-config.json")),
            ..FileInput::default()
        }],
        extra_files: VecMap::new(),
        unreadable_files: VecMap::new(),
    };
    input
        .discovery
        .env
        .insert("COPILOT_HOME".into(), "/opt/copilot".into());
    let result = normalize(&input);
    assert_eq!(result.servers.len(), 3);
    assert_eq!(result.files[0].format, ConfigFormat::CopilotCli);
}

#[test]
fn opencode_v1_with_comments_string_command_and_file_reference() {
    let content = fixture("opencode/opencode-v1.jsonc");
    let path = "/work/app/opencode.jsonc";
    let first = run(&[APP], &[(path, Some(&content))]);
    // {file:./secrets/context7.key} is relative to the config file's folder;
    // the host has not read it yet.
    assert_eq!(first.needs_files, ["/work/app/secrets/context7.key"]);
    assert_eq!(names(&first), ["everything", "string-command"]);

    let mut input = NormalizeInput {
        real_paths: Default::default(),
        discovery: discovery(&[APP]),
        files: vec![FileInput {
            path: path.into(),
            content: Some(content),
            ..FileInput::default()
        }],
        extra_files: VecMap::new(),
        unreadable_files: VecMap::new(),
    };
    input.extra_files.insert(
        "/work/app/secrets/context7.key".into(),
        Some("context7-file-secret\n".into()),
    );
    let result = normalize(&input);
    assert!(result.needs_files.is_empty());
    assert!(result.problems.is_empty(), "{:#?}", result.problems);
    assert_eq!(names(&result), ["context7", "everything", "string-command"]);

    let everything = server(&result, "everything");
    let (command, args, env, _) = stdio(everything);
    assert_eq!(
        (command, args),
        ("npx", vec!["-y", "@modelcontextprotocol/server-everything"])
    );
    assert_eq!(env["MY_ENV_VAR"], "opencode-env-value");
    let (command, args, _, _) = stdio(server(&result, "string-command"));
    assert_eq!(
        (command, args),
        ("uvx", vec!["mcp-server-time", "--local-timezone=UTC"]),
        "a string command is split on whitespace"
    );
    assert_eq!(server(&result, "string-command").timeout_ms, Some(5000));
    let context7 = server(&result, "context7");
    assert!(!context7.enabled);
    assert_eq!(
        remote(context7).2["CONTEXT7_API_KEY"],
        "context7-file-secret"
    );
    assert_eq!(remote(context7).0, "http", "`remote` is streamable HTTP");
}

#[test]
fn opencode_v2_servers_and_disabled() {
    let content = fixture("opencode/opencode-v2.json");
    let mut input = NormalizeInput {
        real_paths: Default::default(),
        discovery: discovery(&[APP]),
        files: vec![FileInput {
            path: "/home/dev/.config/opencode/opencode.json".into(),
            content: Some(content),
            ..FileInput::default()
        }],
        extra_files: VecMap::new(),
        unreadable_files: VecMap::new(),
    };
    input
        .extra_files
        .insert("/home/dev/.secrets/jira".into(), Some("jira-token".into()));
    let result = normalize(&input);
    assert!(result.problems.is_empty(), "{:#?}", result.problems);
    assert_eq!(names(&result), ["jira", "sentry"]);
    let jira = server(&result, "jira");
    assert!(!jira.enabled, "disabled: true");
    assert_eq!(jira.timeout_ms, Some(60000), "the request timeout");
    assert_eq!(
        stdio(jira).2["JIRA_TOKEN"],
        "jira-token",
        "~/ is the home folder"
    );
    assert_eq!(jira.source.scope, ConfigScope::User);
    assert_eq!(
        stdio(jira).3,
        Some("/work/app"),
        "OpenCode: a relative cwd is relative to the workspace"
    );
    assert!(server(&result, "sentry").enabled);
}

#[test]
fn opencode_unset_env_is_empty_with_a_warning() {
    let content = r#"{ "mcp": { "x": { "type": "local", "command": ["run"], "environment": { "K": "{env:NOT_SET_ANYWHERE}" } } } }"#;
    let result = run(&[APP], &[("/work/app/opencode.json", Some(content))]);
    assert_eq!(stdio(server(&result, "x")).2["K"], "");
    assert_eq!(result.problems.len(), 1);
    assert_eq!(result.problems[0].severity, Severity::Warning);
    assert_eq!(result.problems[0].field.as_deref(), Some("environment.K"));
}

#[test]
fn vscode_variables_inputs_env_file_and_lazy_keys() {
    let content = fixture("vscode/mcp.json");
    let result = run(&[APP], &[("/work/app/.vscode/mcp.json", Some(&content))]);
    assert!(result.problems.is_empty(), "{:#?}", result.problems);
    assert_eq!(names(&result), ["fetch", "github", "perplexity"]);
    let perplexity = server(&result, "perplexity");
    assert_eq!(
        stdio(perplexity).2["PERPLEXITY_API_KEY"],
        "${input:perplexity-key}",
        "inputs are resolved by the host at connect time"
    );
    assert!(perplexity.loaded_by_vscode);
    let fetch = server(&result, "fetch");
    let (_, args, env, cwd) = stdio(fetch);
    assert_eq!(
        args,
        [
            "mcp-server-fetch",
            "--cache=/work/app/.cache",
            "--home=/home/dev"
        ]
    );
    assert_eq!(env["TOKEN"], "fetch-secret-999");
    assert_eq!(cwd, Some("/work/app"));
    match &fetch.transport {
        Transport::Stdio { env_file, .. } => {
            assert_eq!(env_file.as_deref(), Some("/work/app/.env"))
        }
        other => panic!("{other:?}"),
    }
    assert!(!fetch.auto_connect, "autoConnect: false = dormant");
    assert_eq!(fetch.tools, ToolFilter::Only(vec!["fetch".into()]));
}

#[test]
fn unknown_keys_are_info_and_never_fatal() {
    let content = r#"{ "servers": { "x": { "command": "run", "colour": "red" } } }"#;
    let result = run(&[APP], &[("/work/app/.vscode/mcp.json", Some(content))]);
    assert_eq!(names(&result), ["x"]);
    assert_eq!(result.problems.len(), 1);
    let problem = &result.problems[0];
    assert_eq!(problem.severity, Severity::Info);
    assert_eq!((problem.line, problem.column), (1, 41));
    assert_eq!(problem.field.as_deref(), Some("colour"));
}

#[test]
fn every_file_looked_at_is_reported_found_or_not() {
    let result = run(
        &[APP],
        &[
            ("/work/app/.vscode/mcp.json", None),
            (
                "/work/app/.mcp.json",
                Some(&fixture("claude-code/project.mcp.json")),
            ),
            ("/home/dev/.claude.json", Some("")),
        ],
    );
    let found: Vec<(bool, usize)> = result
        .files
        .iter()
        .map(|f| (f.found, f.server_count))
        .collect();
    assert_eq!(found, [(false, 0), (true, 4), (true, 0)]);
    assert_eq!(result.files[0].format, ConfigFormat::VsCode);
    assert_eq!(result.files[2].scope, ConfigScope::User);
}

#[test]
fn golden_all_formats() {
    let mut input = NormalizeInput {
        real_paths: Default::default(),
        discovery: discovery(&[APP]),
        files: [
            ("/work/app/.vscode/mcp.json", "vscode/mcp.json"),
            ("/work/app/.mcp.json", "claude-code/project.mcp.json"),
            ("/work/app/opencode.jsonc", "opencode/opencode-v1.jsonc"),
            (
                "/home/dev/.config/Code/User/mcp.json",
                "vscode/user-mcp.json",
            ),
            ("/home/dev/.claude.json", "claude-code/claude.json"),
            (
                "/home/dev/.claude/.mcp.json",
                "claude-code/dot-claude.mcp.json",
            ),
            (
                "/home/dev/.copilot/mcp-config.json",
                "copilot-cli/mcp-config.json",
            ),
            (
                "/home/dev/.config/opencode/opencode.json",
                "opencode/opencode-v2.json",
            ),
            (
                "/home/dev/.config/Claude/claude_desktop_config.json",
                "claude-desktop/claude_desktop_config.json",
            ),
        ]
        .iter()
        .map(|(path, fixture_path)| FileInput {
            path: path.to_string(),
            content: Some(fixture(fixture_path)),
            ..FileInput::default()
        })
        .collect(),
        extra_files: VecMap::new(),
        unreadable_files: VecMap::new(),
    };
    input.extra_files.insert(
        "/work/app/secrets/context7.key".into(),
        Some("context7-file-secret".into()),
    );
    input
        .extra_files
        .insert("/home/dev/.secrets/jira".into(), Some("jira-token".into()));
    let mut result = normalize(&input);
    // The golden file holds the display (redacted) form.
    result.servers = result.servers.iter().map(ServerConfig::redacted).collect();
    let actual = serde_json::to_string_pretty(&result).unwrap() + "\n";
    let golden_path = format!(
        "{}/tests/fixtures/config/golden/all-formats.json",
        env!("CARGO_MANIFEST_DIR")
    );
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(std::path::Path::new(&golden_path).parent().unwrap()).unwrap();
        std::fs::write(&golden_path, &actual).unwrap();
    }
    let expected = std::fs::read_to_string(&golden_path)
        .unwrap_or_else(|_| panic!("missing {golden_path}; run with UPDATE_GOLDEN=1"));
    if let Some((line, (a, e))) = actual
        .lines()
        .zip(expected.lines())
        .enumerate()
        .find(|(_, (a, e))| a != e)
    {
        panic!(
            "golden file differs at line {}: got `{a}`, expected `{e}`; \
             review and run with UPDATE_GOLDEN=1",
            line + 1
        );
    }
    assert_eq!(
        actual.lines().count(),
        expected.lines().count(),
        "golden file length differs; review and run with UPDATE_GOLDEN=1"
    );
    for secret in SECRETS {
        assert!(!actual.contains(secret), "secret {secret} in golden output");
    }
}

#[test]
fn workspace_folder_in_a_user_file_means_the_only_folder_or_stays_verbatim() {
    let content = r#"{"servers": {"s": {"command": "run", "args": ["${workspaceFolder}"]}}}"#;
    let user_file = "/home/dev/.config/Code/User/mcp.json";
    let single = run(&[APP], &[(user_file, Some(content))]);
    assert_eq!(stdio(server(&single, "s")).1, ["/work/app"]);
    assert!(single.problems.is_empty());

    let multi = run(&[APP, "/work/other"], &[(user_file, Some(content))]);
    assert_eq!(stdio(server(&multi, "s")).1, ["${workspaceFolder}"]);
    assert_eq!(multi.problems.len(), 1);
    assert_eq!(multi.problems[0].severity, Severity::Info);
    assert_eq!(multi.problems[0].field.as_deref(), Some("args[0]"));
}
