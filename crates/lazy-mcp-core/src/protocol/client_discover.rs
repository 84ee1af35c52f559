//! The client side of the MCP 2026-07-28 era towards an upstream server: the
//! `server/discover` probe, the per-request `_meta` envelope, the HTTP headers
//! each request carries, list-result cache hints (`ttlMs`/`cacheScope`), and
//! which answers say a server's era changed. The engine decides when to use them
//! (`engine/server/era.rs`).

use super::client_handshake::InitializeOutcome;
use super::handshake_result::HandshakeResult;
use super::message_fields::{ErrorObject, MessageFields};
use super::params::Params;
use super::result_fields::ResultFields;
use crate::protocol::methods;
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// The modern protocol revision Lazy MCP speaks upstream (no `initialize`, no session).
pub const MODERN: &str = "2026-07-28";

pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
pub const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
pub const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
pub use super::handshake_result::SERVER_INFO_KEY;

/// The spec's "unsupported protocol version" error (a modern-only server answers
/// `initialize` with it; any server answers it to a revision it stopped speaking).
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// Which handshake a server speaks, as decided by the probe.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Era {
    /// `initialize` + sessions (2024-11-05 … 2025-11-25). Entries written before
    /// eras existed were all catalogued with `initialize`: that is the default.
    #[default]
    Legacy,
    /// 2026-07-28: `server/discover`, `_meta` on every request, no session.
    Modern,
}

impl Era {
    pub fn label(self) -> &'static str {
        match self {
            Era::Legacy => "legacy (initialize)",
            Era::Modern => "2026-07-28 (stateless)",
        }
    }
}

/// The `_meta` envelope every modern request carries. Lazy MCP declares `roots`
/// only: it answers a server's `roots/list` input request itself (the workspace
/// folders); other requests for input (`input_required`) are refused with a clear
/// error rather than half-answered, unless the call came from a modern client that
/// declared them ([`envelope_with_input`]; see `docs/protocol-eras.md`).
pub fn envelope(client_name: &str, client_version: &str) -> Map<String, Value> {
    let mut meta = Map::new();
    meta.insert(PROTOCOL_VERSION_KEY.into(), Value::from(MODERN));
    meta.insert(
        CLIENT_INFO_KEY.into(),
        json!({"name": client_name, "version": client_version}),
    );
    meta.insert(CLIENT_CAPABILITIES_KEY.into(), json!({"roots": {}}));
    meta
}

/// [`envelope`] declaring also the input capabilities (`elicitation`, `sampling`)
/// of the modern client whose request is forwarded: that client answers a
/// server's `input_required` for them by retrying (the result reaches it as is).
pub fn envelope_with_input(
    client_name: &str,
    client_version: &str,
    input: &Map<String, Value>,
) -> Map<String, Value> {
    let mut meta = envelope(client_name, client_version);
    if let Some(Value::Object(capabilities)) = meta.get_mut(CLIENT_CAPABILITIES_KEY) {
        for (key, value) in input {
            capabilities.insert(key.clone(), value.clone());
        }
    }
    meta
}

/// `params` with the envelope merged into its `_meta` (a client's own keys such as
/// `progressToken` stay; envelope keys a gateway client sent are replaced by ours,
/// since upstream Lazy MCP is the client).
pub fn with_envelope(params: Option<Value>, envelope: &Map<String, Value>) -> Value {
    let mut params = match params {
        Some(Value::Object(object)) => object,
        _ => Map::new(),
    };
    let mut meta = match params.remove("_meta") {
        Some(Value::Object(meta)) => meta,
        _ => Map::new(),
    };
    for (key, value) in envelope {
        meta.insert(key.clone(), value.clone());
    }
    params.insert("_meta".into(), Value::Object(meta));
    Value::Object(params)
}

/// Reads a `server/discover` result. `Ok` when the server speaks [`MODERN`]: its
/// capabilities, server info and instructions in the shape the catalogue keeps.
/// `Err` names the versions it offers instead (the caller falls back to `initialize`).
pub fn parse_discover_result(result: &Value) -> Result<InitializeOutcome, String> {
    let read = HandshakeResult::read(result);
    let supported = read.supported_versions();
    if !supported.contains(&MODERN) {
        return Err(format!(
            "server/discover offered {} but not {MODERN}",
            if supported.is_empty() {
                "no protocol version".to_string()
            } else {
                supported.join(", ")
            }
        ));
    }
    Ok(InitializeOutcome {
        protocol_version: MODERN.to_string(),
        capabilities: read
            .capabilities
            .filter(|c| c.is_object())
            .cloned()
            .unwrap_or_else(|| json!({})),
        server_info: read
            .meta_server_info
            .or(read.server_info)
            .cloned()
            .unwrap_or(Value::Null),
        instructions: read.instructions.map(str::to_string),
    })
}

/// The cache hint of a modern list result: how long it may be reused, and for whom.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheHint {
    pub ttl_ms: u64,
    /// `public` or `private` (anything else is kept as `private`).
    pub cache_scope: String,
}

/// `ttlMs`/`cacheScope` of one list result, when it has a `ttlMs`.
pub fn cache_hint(result: &Value) -> Option<CacheHint> {
    let read = ResultFields::read(result);
    let ttl_ms = read.ttl_ms?;
    let cache_scope = match read.cache_scope {
        Some("public") => "public",
        _ => "private",
    };
    Some(CacheHint {
        ttl_ms,
        cache_scope: cache_scope.to_string(),
    })
}

/// The shorter-lived of two hints (a catalogue entry is as fresh as its stalest list).
pub fn stricter(a: Option<CacheHint>, b: Option<CacheHint>) -> Option<CacheHint> {
    match (a, b) {
        (Some(a), Some(b)) => Some(CacheHint {
            ttl_ms: a.ttl_ms.min(b.ttl_ms),
            cache_scope: if a.cache_scope == "private" || b.cache_scope == "private" {
                "private".to_string()
            } else {
                "public".to_string()
            },
        }),
        (a, b) => a.or(b),
    }
}

/// Whether a modern result asks the client for more input (multi round trip).
pub fn asks_for_input(result: &Value) -> bool {
    ResultFields::read(result).result_type == Some("input_required")
}

/// Whether an error answer says the server no longer speaks the era we used
/// (re-probe it): the spec's unsupported-version error.
pub fn says_era_changed(error: &Value) -> bool {
    ErrorObject::read(error).code == Some(UNSUPPORTED_PROTOCOL_VERSION)
}

/// Whether an error answer to a modern request says the server speaks only the
/// legacy era now: the spec's unsupported-version error, or a legacy server's
/// refusal of requests before `initialize` (the TypeScript SDK v1 over HTTP: 400
/// "Server not initialized", "Mcp-Session-Id header is required" or
/// "Unsupported protocol version", which the host passes on in the message).
pub fn says_legacy_only(error: &Value) -> bool {
    let read = ErrorObject::read(error);
    if read.code == Some(UNSUPPORTED_PROTOCOL_VERSION) {
        return true;
    }
    let message = read.message.unwrap_or_default().to_ascii_lowercase();
    [
        "not initialized",
        "mcp-session-id header is required",
        "unsupported protocol version",
    ]
    .iter()
    .any(|sign| message.contains(sign))
}

/// The HTTP headers a modern request POST must carry (SEP-2243): the protocol
/// version, the method, and for methods naming a target the name or URI.
pub fn http_headers(message: &Value) -> VecMap<String, String> {
    let mut headers = VecMap::new();
    headers.insert("mcp-protocol-version".to_string(), MODERN.to_string());
    let read = MessageFields::read(message);
    let Some(method) = read.method() else {
        return headers;
    };
    headers.insert("mcp-method".to_string(), header_value(method));
    let params = Params::read(read.params);
    let name = match method {
        methods::TOOLS_CALL | methods::PROMPTS_GET => params.name,
        methods::RESOURCES_READ => params.uri,
        _ => None,
    };
    if let Some(name) = name {
        headers.insert("mcp-name".to_string(), header_value(name));
    }
    headers
}

/// A header value as the spec encodes it: as is when it is non-empty visible
/// ASCII (tabs allowed) without surrounding whitespace, else `=?base64?<utf-8 as base64>?=`.
pub(crate) fn header_value(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b == b'\t' || (0x20..0x7f).contains(&b))
        && text.trim() == text
        && !(text.starts_with("=?base64?") && text.ends_with("?="));
    if plain {
        text.to_string()
    } else {
        format!("=?base64?{}?=", base64(text.as_bytes()))
    }
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let symbol = |index: u32| {
        ALPHABET
            .get((index & 63) as usize)
            .map_or('=', |b| char::from(*b))
    };
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b0 = u32::from(chunk.first().copied().unwrap_or(0));
        let b1 = u32::from(chunk.get(1).copied().unwrap_or(0));
        let b2 = u32::from(chunk.get(2).copied().unwrap_or(0));
        let n = (b0 << 16) | (b1 << 8) | b2;
        out.push(symbol(n >> 18));
        out.push(symbol(n >> 12));
        out.push(if chunk.len() > 1 { symbol(n >> 6) } else { '=' });
        out.push(if chunk.len() > 2 { symbol(n) } else { '=' });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discover_result_of_a_modern_server_becomes_an_outcome() {
        let result = json!({
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {"listChanged": true}},
            "ttlMs": 0, "cacheScope": "private",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "m", "version": "1"}}
        });
        let outcome = parse_discover_result(&result);
        assert_eq!(
            outcome.as_ref().map(|o| o.server_info["name"].clone()),
            Ok(json!("m"))
        );
        assert_eq!(outcome.map(|o| o.protocol_version), Ok(MODERN.to_string()));
        let older = parse_discover_result(&json!({"supportedVersions": ["2030-01-01"]}));
        assert!(older.is_err_and(|e| e.contains("2030-01-01")));
        assert!(parse_discover_result(&json!("garbage")).is_err());
    }

    #[test]
    fn envelope_keeps_the_clients_own_meta_and_replaces_its_envelope() {
        let env = envelope("lazy", "1");
        let params = with_envelope(
            Some(json!({"name": "t", "_meta": {"progressToken": 7, PROTOCOL_VERSION_KEY: "1999"}})),
            &env,
        );
        assert_eq!(params["_meta"]["progressToken"], json!(7));
        assert_eq!(params["_meta"][PROTOCOL_VERSION_KEY], json!(MODERN));
        assert_eq!(params["name"], json!("t"));
        assert_eq!(
            with_envelope(Some(json!([1])), &env)["_meta"][CLIENT_INFO_KEY]["name"],
            json!("lazy")
        );
    }

    #[test]
    fn headers_name_the_method_and_target() {
        let headers = http_headers(&json!({"method": "tools/call", "params": {"name": "café"}}));
        assert_eq!(
            headers.get("mcp-method").map(String::as_str),
            Some("tools/call")
        );
        assert_eq!(
            headers.get("mcp-name").map(String::as_str),
            Some("=?base64?Y2Fmw6k=?=")
        );
        assert_eq!(
            headers.get("mcp-protocol-version").map(String::as_str),
            Some(MODERN)
        );
        let list = http_headers(&json!({"method": "tools/list"}));
        assert!(!list.contains_key("mcp-name"));
    }

    #[test]
    fn cache_hints_keep_the_stricter() {
        let a = cache_hint(&json!({"ttlMs": 5000, "cacheScope": "public"}));
        let b = cache_hint(&json!({"ttlMs": 100}));
        assert_eq!(
            stricter(a, b),
            Some(CacheHint {
                ttl_ms: 100,
                cache_scope: "private".into()
            })
        );
        assert_eq!(cache_hint(&json!({"tools": []})), None);
        assert!(says_era_changed(&json!({"code": -32022})));
        assert!(asks_for_input(&json!({"resultType": "input_required"})));
    }
}
