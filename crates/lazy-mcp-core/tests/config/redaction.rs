//! Display form and problem messages never contain a secret value.

use super::*;
use lazy_mcp_core::config::{Severity, Transport, MASK};
use lazy_mcp_core::vec_map::VecMap;

fn all_fixtures_with_secrets() -> NormalizeResult {
    let mut input = lazy_mcp_core::config::NormalizeInput {
        real_paths: Default::default(),
        discovery: discovery(&[APP]),
        files: vec![
            FileInput {
                path: "/work/app/.mcp.json".into(),
                content: Some(fixture("claude-code/project.mcp.json")),
                ..FileInput::default()
            },
            FileInput {
                path: "/work/app/.vscode/mcp.json".into(),
                content: Some(fixture("vscode/mcp.json")),
                ..FileInput::default()
            },
            FileInput {
                path: "/home/dev/.copilot/mcp-config.json".into(),
                content: Some(fixture("copilot-cli/mcp-config.json")),
                ..FileInput::default()
            },
            FileInput {
                path: "/work/app/opencode.jsonc".into(),
                content: Some(fixture("opencode/opencode-v1.jsonc")),
                ..FileInput::default()
            },
            FileInput {
                path: "/home/dev/.claude.json".into(),
                content: Some(fixture("claude-code/claude.json")),
                ..FileInput::default()
            },
            FileInput {
                path: "/home/dev/.config/Claude/claude_desktop_config.json".into(),
                content: Some(fixture("claude-desktop/claude_desktop_config.json")),
                ..FileInput::default()
            },
        ],
        extra_files: VecMap::new(),
        unreadable_files: VecMap::new(),
    };
    input.extra_files.insert(
        "/work/app/secrets/context7.key".into(),
        Some("context7-file-secret".into()),
    );
    normalize(&input)
}

#[test]
fn redacted_servers_contain_no_secret_but_keep_keys() {
    let result = all_fixtures_with_secrets();
    let raw = serde_json::to_string(&result.servers).unwrap();
    // The secrets really are in the normalized (launchable) form ...
    assert!(raw.contains("fetch-secret-999"));
    let redacted: Vec<ServerConfig> = result.servers.iter().map(ServerConfig::redacted).collect();
    let shown = serde_json::to_string(&redacted).unwrap();
    // ... and nowhere in the display form.
    for secret in SECRETS {
        assert!(!shown.contains(secret), "{secret} visible in {shown}");
    }
    assert!(shown.contains("\"TOKEN\":\"••••\""));
    assert!(shown.contains("SENTRY_ACCESS_TOKEN"));
    // Fingerprints are unchanged by redaction.
    for (a, b) in result.servers.iter().zip(&redacted) {
        assert_eq!(a.fingerprint, b.fingerprint);
        assert_eq!(a.name, b.name);
    }
}

#[test]
fn url_credentials_and_token_query_parameters_are_masked() {
    let content = r#"{"servers": {"s": {"type": "http",
      "url": "https://alice:pa55word@mcp.example.com/v1?apiKey=k-123-secret&team=core",
      "headers": {"X-Api-Key": "hdr-secret-1"}}}}"#;
    let result = run(&[APP], &[("/work/app/.vscode/mcp.json", Some(content))]);
    match &server(&result, "s").redacted().transport {
        Transport::Http { url, headers } => {
            assert_eq!(
                url,
                &format!("https://{MASK}@mcp.example.com/v1?apiKey={MASK}&team=core")
            );
            assert_eq!(headers["X-Api-Key"], MASK);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn problems_never_echo_secret_values() {
    let secret = "ghp_PROBLEMSECRET0000000";
    let content = format!(
        r#"{{"mcpServers": {{
  "bad-url": {{"type": "http", "url": "https://{secret}@ not a url"}},
  "bad-type": {{"type": "{secret}", "url": "https://x"}},
  "bad-env": {{"command": "x", "env": {{"K": 12345}}, "args": [{{"token": "{secret}"}}]}},
  "unset": {{"command": "x", "env": {{"K": "{secret}${{MISSING_VAR}}"}}}}
}}}}"#
    );
    let result = run(&[APP], &[("/work/app/.mcp.json", Some(&content))]);
    assert!(result.servers.is_empty());
    assert!(result.problems.len() >= 4, "{:#?}", result.problems);
    let problems = serde_json::to_string(&result.problems).unwrap();
    assert!(!problems.contains(secret), "{problems}");
    assert!(!problems.contains("12345"), "{problems}");
}

#[test]
fn broken_file_problem_does_not_echo_content() {
    let content = r#"{"mcpServers": {"s": {"env": {"K": "tok-SECRET-42" "oops"}}}}"#;
    let result = run(&[APP], &[("/work/app/.mcp.json", Some(content))]);
    let problems = serde_json::to_string(&result.problems).unwrap();
    assert!(!problems.contains("tok-SECRET-42"), "{problems}");
    assert_eq!(result.problems.len(), 1);
}

#[test]
fn secret_arguments_are_masked() {
    let content = r#"{"servers": {"s": {"command": "srv", "args": ["--api-key", "arg-secret-1", "--token=arg-secret-2", "--port", "8080"]}}}"#;
    let result = run(&[APP], &[("/work/app/.vscode/mcp.json", Some(content))]);
    let shown = serde_json::to_string(&server(&result, "s").redacted()).unwrap();
    assert!(!shown.contains("arg-secret"), "{shown}");
    assert!(shown.contains("8080"));
}

/// Values from `{file:}`, `{env:}` and `${VAR}` are secret by origin: masked
/// wherever they land, in every format, while the launch keeps them.
#[test]
fn secrets_by_origin_are_masked_wherever_they_land() {
    let opencode = r#"{"mcp": {"oc": {"type": "local",
      "command": ["node", "{file:secrets/token.txt}", "--x={env:MY_TOKEN}", "https://h/{env:MY_TOKEN}/mcp"]}}}"#;
    let claude = r#"{"mcpServers": {"cl": {"command": "srv", "args": ["${MY_TOKEN}", "pre-${MY_TOKEN}"],
      "cwd": "/srv/${MY_TOKEN}"},
      "web": {"type": "http", "url": "https://h/p/${MY_TOKEN}/mcp"}}}"#;
    let vscode = r#"{"servers": {"vs": {"command": "srv", "args": ["plain ${env:MY_TOKEN}"]}}}"#;
    let copilot = r#"{"mcpServers": {"co": {"type": "local", "command": "srv", "args": [],
      "env": {"K": "$MY_TOKEN"}}}}"#;
    let mut input = lazy_mcp_core::config::NormalizeInput {
        real_paths: Default::default(),
        discovery: discovery(&[APP]),
        files: [
            ("/work/app/opencode.json", opencode),
            ("/work/app/.mcp.json", claude),
            ("/work/app/.vscode/mcp.json", vscode),
            ("/home/dev/.copilot/mcp-config.json", copilot),
        ]
        .iter()
        .map(|(path, content)| FileInput {
            path: path.to_string(),
            content: Some(content.to_string()),
            ..FileInput::default()
        })
        .collect(),
        extra_files: VecMap::new(),
        unreadable_files: VecMap::new(),
    };
    input
        .discovery
        .env
        .insert("MY_TOKEN".into(), "origin-env-secret".into());
    input.extra_files.insert(
        "/work/app/secrets/token.txt".into(),
        Some("file secret words\n".into()),
    );
    let result = normalize(&input);
    assert_eq!(result.servers.len(), 5, "{:#?}", result.problems);
    let raw = serde_json::to_string(&result.servers).unwrap();
    assert!(raw.contains("origin-env-secret") && raw.contains("file secret words"));
    let fingerprints: Vec<&str> = result
        .servers
        .iter()
        .map(|s| s.fingerprint.as_str())
        .collect();
    let redacted: Vec<ServerConfig> = result.servers.iter().map(ServerConfig::redacted).collect();
    let shown = serde_json::to_string(&redacted).unwrap();
    for secret in ["origin-env-secret", "file secret words", "secret words"] {
        assert!(!shown.contains(secret), "{secret} visible in {shown}");
    }
    assert!(shown.contains("pre-••••"), "{shown}");
    assert!(shown.contains("https://h/p/••••/mcp"), "{shown}");
    let after: Vec<&str> = redacted.iter().map(|s| s.fingerprint.as_str()).collect();
    assert_eq!(fingerprints, after);
}

#[test]
fn file_references_to_system_secrets_and_outside_the_project_are_problems() {
    let content = "{\"mcp\": {\n  \"shadow\": {\"type\": \"local\", \"command\": [\"srv\", \"{file:../../etc/shadow}\"]},\n  \"outside\": {\"type\": \"local\", \"command\": [\"srv\", \"{file:/opt/keys/k}\"]}\n}}";
    let mut input = lazy_mcp_core::config::NormalizeInput {
        real_paths: Default::default(),
        discovery: discovery(&[APP]),
        files: vec![FileInput {
            path: "/work/app/opencode.json".into(),
            content: Some(content.into()),
            ..FileInput::default()
        }],
        extra_files: VecMap::new(),
        unreadable_files: VecMap::new(),
    };
    input
        .extra_files
        .insert("/opt/keys/k".into(), Some("outside-secret".into()));
    let result = normalize(&input);
    // /etc/shadow is never asked for, and its server is not loaded.
    assert!(!result.needs_files.iter().any(|p| p.contains("shadow")));
    let shadow = result
        .problems
        .iter()
        .find(|p| p.server.as_deref() == Some("shadow"))
        .unwrap();
    assert_eq!(
        (shadow.severity, shadow.line, shadow.column),
        (Severity::Error, 2, 50)
    );
    assert!(shadow.message.contains("/etc/shadow"), "{}", shadow.message);
    let outside = result
        .problems
        .iter()
        .find(|p| p.server.as_deref() == Some("outside"))
        .unwrap();
    assert_eq!((outside.severity, outside.line), (Severity::Warning, 3));
    assert!(
        outside.message.contains("/opt/keys/k"),
        "{}",
        outside.message
    );
    assert_eq!(result.servers.len(), 1);
    assert_eq!(result.servers[0].name, "outside");
}
