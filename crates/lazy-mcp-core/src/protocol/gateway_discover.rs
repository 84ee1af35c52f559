//! The gateway's answers of the modern era (MCP 2026-07-28) that have no
//! legacy counterpart: the `server/discover` result and the cache hints every
//! list result carries.

use super::modern_request::{MODERN_VERSIONS, SERVER_INFO_KEY};
use serde_json::{json, Map, Value};

/// How long a client may reuse a list result. 0: the gateway's lists follow
/// its catalogue and the tool index's loaded tools, which change without the
/// client asking; a modern client hears of changes only if it listens
/// (`subscriptions/listen`), so one that does not must ask again each time.
pub const LIST_TTL_MS: u64 = 0;

/// Who may share a cached list: `private`, because the gateway belongs to one
/// user (its bearer token) and the aggregate tool list differs per client.
pub const LIST_CACHE_SCOPE: &str = "private";

/// Adds `ttlMs` and `cacheScope` to a list (or discover) result.
pub fn add_cache_hints(result: &mut Map<String, Value>) {
    result.insert("ttlMs".into(), Value::from(LIST_TTL_MS));
    result.insert("cacheScope".into(), Value::from(LIST_CACHE_SCOPE));
}

/// The `server/discover` result: the versions the gateway answers without a
/// handshake, the same capabilities `initialize` declares, and the server's
/// name and version under `_meta`.
pub fn discover_result(
    server_name: &str,
    server_version: &str,
    capabilities: Value,
    instructions: Option<&str>,
) -> Value {
    let mut result = Map::new();
    result.insert("supportedVersions".into(), json!(MODERN_VERSIONS));
    result.insert("capabilities".into(), capabilities);
    if let Some(instructions) = instructions {
        result.insert("instructions".into(), Value::from(instructions));
    }
    add_cache_hints(&mut result);
    result.insert(
        "_meta".into(),
        json!({ SERVER_INFO_KEY: {"name": server_name, "version": server_version} }),
    );
    Value::Object(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discover_lists_the_modern_versions_and_server_info() {
        let result = discover_result("lazy-mcp", "1.2.3", json!({"tools": {}}), Some("hi"));
        assert_eq!(result["supportedVersions"], json!(["2026-07-28"]));
        assert_eq!(result["_meta"][SERVER_INFO_KEY]["name"], "lazy-mcp");
        assert_eq!(result["cacheScope"], "private");
        assert_eq!(result["ttlMs"], 0);
        assert_eq!(result["instructions"], "hi");
    }
}
