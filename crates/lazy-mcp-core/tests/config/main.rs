//! Config discovery and normalization (issue 3), as a user of the config files
//! would notice it. One test binary; each file is one concern.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod discovery;
mod errors;
mod formats;
mod merging;
mod oauth;
mod problem_presentation;
mod properties;
mod redaction;

use lazy_mcp_core::config::{
    normalize, DiscoveryInput, FileInput, NormalizeInput, NormalizeResult, ServerConfig,
};
use lazy_mcp_core::vec_map::VecMap;

pub const HOME: &str = "/home/dev";
pub const APP: &str = "/work/app";

/// Secret values used in fixtures: none may appear in redacted output or problems.
pub const SECRETS: &[&str] = &[
    "sk-test-api-key-123456",
    "ghp_testtoken1234567890",
    "fetch-secret-999",
    "github_pat_secret_abc",
    "sentry-secret-xyz",
    "opencode-env-value",
    "context7-file-secret",
    "desktop-brave-secret-1",
];

pub fn env() -> VecMap<String, String> {
    [
        ("HOME", HOME),
        ("API_KEY", "sk-test-api-key-123456"),
        ("GITHUB_TOKEN", "ghp_testtoken1234567890"),
        ("FETCH_TOKEN", "fetch-secret-999"),
        ("GITHUB_PERSONAL_ACCESS_TOKEN", "github_pat_secret_abc"),
        ("SENTRY_TOKEN", "sentry-secret-xyz"),
        ("MY_ENV_VAR", "opencode-env-value"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

pub fn discovery(folders: &[&str]) -> DiscoveryInput {
    DiscoveryInput {
        home: HOME.to_string(),
        workspace_folders: folders.iter().map(|f| f.to_string()).collect(),
        platform: "linux".to_string(),
        env: env(),
        vscode_user_mcp_json: Some(format!("{HOME}/.config/Code/User/mcp.json")),
        sources: None,
    }
}

pub fn fixture(relative: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/config/{relative}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Normalize `files` (path, content) for a workspace of `folders`.
pub fn run(folders: &[&str], files: &[(&str, Option<&str>)]) -> NormalizeResult {
    normalize(&NormalizeInput {
        real_paths: Default::default(),
        discovery: discovery(folders),
        files: files
            .iter()
            .map(|(path, content)| FileInput {
                path: path.to_string(),
                content: content.map(str::to_string),
                ..FileInput::default()
            })
            .collect(),
        extra_files: VecMap::new(),
        unreadable_files: VecMap::new(),
    })
}

pub fn server<'r>(result: &'r NormalizeResult, name: &str) -> &'r ServerConfig {
    result
        .servers
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| {
            panic!(
                "no server {name}; have {:?}; problems {:#?}",
                result.servers.iter().map(|s| &s.name).collect::<Vec<_>>(),
                result.problems
            )
        })
}

pub fn names(result: &NormalizeResult) -> Vec<&str> {
    result.servers.iter().map(|s| s.name.as_str()).collect()
}
