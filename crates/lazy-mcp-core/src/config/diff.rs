//! What changed between two normalized server lists (by name), so the
//! lifecycle engine starts, stops and re-catalogues only what changed.
//!
//! `changed`: the fingerprint (launch config) differs, or any of `enabled`,
//! `autoConnect`, `tools`, `timeoutMs`, `toolExposure`, `loadedByVscode` differs. A definition
//! that only moved (another line, another file) is `unchanged`.

use super::model::ServerConfig;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Server names, each list sorted.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigDiff {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<String>,
    pub unchanged: Vec<String>,
}

pub fn diff(previous: &[ServerConfig], next: &[ServerConfig]) -> ConfigDiff {
    let before: BTreeMap<&str, &ServerConfig> =
        previous.iter().map(|s| (s.name.as_str(), s)).collect();
    let after: BTreeMap<&str, &ServerConfig> = next.iter().map(|s| (s.name.as_str(), s)).collect();
    let mut result = ConfigDiff::default();
    for (name, new) in &after {
        match before.get(name) {
            None => result.added.push(name.to_string()),
            Some(old) if launch_or_flags_differ(old, new) => result.changed.push(name.to_string()),
            Some(_) => result.unchanged.push(name.to_string()),
        }
    }
    result.removed = before
        .keys()
        .filter(|name| !after.contains_key(*name))
        .map(|name| name.to_string())
        .collect();
    result
}

fn launch_or_flags_differ(a: &ServerConfig, b: &ServerConfig) -> bool {
    a.fingerprint != b.fingerprint
        || a.enabled != b.enabled
        || a.auto_connect != b.auto_connect
        || a.tools != b.tools
        || a.timeout_ms != b.timeout_ms
        || a.tool_exposure != b.tool_exposure
        || a.loaded_by_vscode != b.loaded_by_vscode
}
