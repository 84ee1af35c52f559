//! The `oauth` key of remote servers, in every format: read with Claude Code's
//! names, bad values positioned, `clientSecret` masked like any secret.

use super::*;
use lazy_mcp_core::config::model::OAuthConfig;
use lazy_mcp_core::config::Severity;

const OAUTH: &str = r#"{"clientId": "lazy-linear", "clientSecret": "oauth-client-secret-77", "scopes": ["read", "write"], "callbackPort": 33418, "authServerMetadataUrl": "https://auth.example.com/.well-known/oauth-authorization-server", "clientMetadataUrl": "https://lazy-mcp.example/client.json"}"#;

fn expected() -> OAuthConfig {
    OAuthConfig {
        client_id: Some("lazy-linear".into()),
        client_secret: Some("oauth-client-secret-77".into()),
        scopes: vec!["read".into(), "write".into()],
        callback_port: Some(33418),
        auth_server_metadata_url: Some(
            "https://auth.example.com/.well-known/oauth-authorization-server".into(),
        ),
        client_metadata_url: Some("https://lazy-mcp.example/client.json".into()),
    }
}

#[test]
fn every_format_reads_the_oauth_key() {
    let files = [
        (
            "/work/app/.mcp.json",
            format!(
                r#"{{"mcpServers": {{"linear": {{"type": "http", "url": "https://mcp.linear.app/mcp", "oauth": {OAUTH}}}}}}}"#
            ),
        ),
        (
            "/work/app/.vscode/mcp.json",
            format!(
                r#"{{"servers": {{"linear": {{"type": "http", "url": "https://mcp.linear.app/mcp", "oauth": {OAUTH}}}}}}}"#
            ),
        ),
        (
            "/work/app/opencode.json",
            format!(
                r#"{{"mcp": {{"linear": {{"type": "remote", "url": "https://mcp.linear.app/mcp", "oauth": {OAUTH}}}}}}}"#
            ),
        ),
        (
            "/home/dev/.copilot/mcp-config.json",
            format!(
                r#"{{"mcpServers": {{"linear": {{"type": "http", "url": "https://mcp.linear.app/mcp", "oauth": {OAUTH}}}}}}}"#
            ),
        ),
    ];
    for (path, content) in &files {
        let result = run(&[APP], &[(path, Some(content.as_str()))]);
        let linear = server(&result, "linear");
        assert_eq!(linear.oauth, Some(expected()), "{path}");
        assert!(
            result
                .problems
                .iter()
                .all(|p| p.severity != Severity::Error),
            "{path}: {:?}",
            result.problems
        );
        let shown = serde_json::to_string(&linear.redacted()).unwrap();
        assert!(!shown.contains("oauth-client-secret-77"), "{shown}");
        assert!(shown.contains(r#""clientSecret":"••••""#), "{shown}");
        assert!(shown.contains(r#""clientId":"lazy-linear""#), "{shown}");
    }
}

#[test]
fn scope_as_a_string_and_oauth_false_are_accepted() {
    let content = r#"{"mcpServers": {
  "a": {"type": "http", "url": "https://a/mcp", "oauth": {"scope": "read write"}},
  "b": {"type": "http", "url": "https://b/mcp", "oauth": false}
}}"#;
    let result = run(&[APP], &[("/work/app/.mcp.json", Some(content))]);
    assert_eq!(
        server(&result, "a").oauth.as_ref().unwrap().scopes,
        ["read", "write"]
    );
    assert_eq!(server(&result, "b").oauth, None);
}

#[test]
fn bad_oauth_values_are_positioned_errors_and_the_others_still_load() {
    let content = r#"{"mcpServers": {
  "ok": {"type": "http", "url": "https://ok/mcp"},
  "port": {"type": "http", "url": "https://p/mcp", "oauth": {"callbackPort": 70000}},
  "shape": {"type": "http", "url": "https://s/mcp", "oauth": "yes"},
  "meta": {"type": "http", "url": "https://m/mcp", "oauth": {"authServerMetadataUrl": "not a url", "clientId": 5}},
  "cimd": {"type": "http", "url": "https://c/mcp", "oauth": {"clientMetadataUrl": "http://lazy-mcp.example/client.json"}}
}}"#;
    let result = run(&[APP], &[("/work/app/.mcp.json", Some(content))]);
    assert_eq!(names(&result), ["ok"]);
    let found: Vec<_> = result
        .problems
        .iter()
        .map(|p| {
            (
                p.server.as_deref(),
                p.field.as_deref(),
                p.line,
                p.column,
                p.message.as_str(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (Some("port"), Some("oauth.callbackPort"), 3, 78, "`oauth.callbackPort` must be a port number from 1 to 65535"),
            (Some("shape"), Some("oauth"), 4, 62, "`oauth` must be an object like {\"clientId\": \"…\", \"scopes\": [\"…\"]}, found a string"),
            (Some("meta"), Some("oauth.authServerMetadataUrl"), 5, 87, "`oauth.authServerMetadataUrl` is not an absolute http(s) URL"),
            (Some("meta"), Some("oauth.clientId"), 5, 112, "`oauth.clientId` must be a string, found a number"),
            (Some("cimd"), Some("oauth.clientMetadataUrl"), 6, 83, "`oauth.clientMetadataUrl` must be an https URL with a path (where the client's metadata document is served)"),
        ]
    );
    assert!(result
        .problems
        .iter()
        .all(|p| p.file == "/work/app/.mcp.json"));
}
