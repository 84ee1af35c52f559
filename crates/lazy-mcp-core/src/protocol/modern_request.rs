//! Reading a client request of the modern era (MCP 2026-07-28): no handshake,
//! no session; every request carries its protocol version, the client's
//! capabilities and (optionally) the client's info in `params._meta`. A request
//! is modern when its `_meta` claims a protocol version; anything else is a
//! legacy (initialize-era) request, served exactly as before.

use super::handshake_result::Implementation;
use super::jsonrpc::INVALID_PARAMS;
use super::params::Params;
use crate::protocol::methods;
use serde_json::{json, Value};

/// `_meta` key of the request's protocol version.
pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client's capabilities (required on every modern request).
pub const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the client's name and version (optional).
pub const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key of the server's name and version on a `server/discover` result.
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// The modern revisions the gateway answers (newest first).
pub const MODERN_VERSIONS: [&str; 1] = ["2026-07-28"];

/// The spec's error for a request whose protocol version the server does not
/// speak; `data.supported` lists the versions it does.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// A modern request's envelope, read from its `_meta`.
#[derive(Debug, Clone, PartialEq)]
pub struct ModernEnvelope {
    pub version: String,
    pub capabilities: Value,
    /// `name@version` of `clientInfo`, when the client sent one: the only thing a
    /// modern client sends that stays the same from one request to the next.
    pub client_identity: Option<String>,
}

/// Which era a request belongs to.
#[derive(Debug, Clone, PartialEq)]
pub enum Era {
    Legacy,
    Modern(ModernEnvelope),
}

/// Why a modern request cannot be served: the JSON-RPC error it gets.
#[derive(Debug, Clone, PartialEq)]
pub struct EnvelopeError {
    pub code: i64,
    pub message: String,
    pub data: Value,
}

/// Methods the modern era removed: a modern request for one is -32601.
pub const REMOVED_METHODS: [&str; 5] = [
    methods::INITIALIZE,
    methods::PING,
    methods::LOGGING_SET_LEVEL,
    methods::RESOURCES_SUBSCRIBE,
    methods::RESOURCES_UNSUBSCRIBE,
];

/// Reads the era of a request: a `_meta` that is not an object, a version that
/// is not a string, missing or malformed capabilities, or a malformed
/// `clientInfo` are -32602; a version the gateway does not speak is -32022; a
/// method the modern era removed is -32601.
pub fn read_era(method: &str, params: Option<&Value>) -> Result<Era, EnvelopeError> {
    let era = read_envelope(params)?;
    if era != Era::Legacy && REMOVED_METHODS.contains(&method) {
        return Err(EnvelopeError {
            code: super::jsonrpc::METHOD_NOT_FOUND,
            message: format!(
                "Method not found: {method} (protocol revision {} has no such method)",
                MODERN_VERSIONS.join(", ")
            ),
            data: Value::Null,
        });
    }
    Ok(era)
}

fn read_envelope(params: Option<&Value>) -> Result<Era, EnvelopeError> {
    let meta = match Params::read(params).meta {
        None => return Ok(Era::Legacy),
        Some(Value::Object(meta)) => meta,
        Some(_) => return Err(invalid("_meta", "must be an object")),
    };
    let Some(version) = meta.get(PROTOCOL_VERSION_KEY) else {
        return Ok(Era::Legacy);
    };
    let Some(version) = version.as_str() else {
        return Err(invalid(PROTOCOL_VERSION_KEY, "must be a string"));
    };
    if !MODERN_VERSIONS.contains(&version) {
        return Err(unsupported_version(version));
    }
    let capabilities = match meta.get(CLIENT_CAPABILITIES_KEY) {
        Some(capabilities @ Value::Object(_)) => capabilities.clone(),
        Some(_) => return Err(invalid(CLIENT_CAPABILITIES_KEY, "must be an object")),
        None => return Err(invalid(CLIENT_CAPABILITIES_KEY, "missing")),
    };
    let client_identity = match meta.get(CLIENT_INFO_KEY) {
        None => None,
        Some(info @ Value::Object(_)) => Some(identity_of(info)?),
        Some(_) => return Err(invalid(CLIENT_INFO_KEY, "must be an object")),
    };
    Ok(Era::Modern(ModernEnvelope {
        version: version.to_string(),
        capabilities,
        client_identity,
    }))
}

/// The request needs no session: it is of the modern era (or claims to be,
/// and gets that era's error), or it is `server/discover`.
pub fn is_sessionless(method: &str, params: Option<&Value>) -> bool {
    method == methods::SERVER_DISCOVER || read_era(method, params) != Ok(Era::Legacy)
}

fn identity_of(info: &Value) -> Result<String, EnvelopeError> {
    let info = Implementation::read(info);
    let Some(name) = info.name else {
        return Err(invalid(CLIENT_INFO_KEY, "needs a string \"name\""));
    };
    match info.version_member {
        None => Ok(name.to_string()),
        Some(Value::String(version)) => Ok(format!("{name}@{version}")),
        Some(_) => Err(invalid(CLIENT_INFO_KEY, "\"version\" must be a string")),
    }
}

pub(crate) fn invalid(key: &str, problem: &str) -> EnvelopeError {
    EnvelopeError {
        code: INVALID_PARAMS,
        message: format!(
            "Invalid _meta envelope for protocol revision {}: {key}: {problem}",
            MODERN_VERSIONS.join(", ")
        ),
        data: json!({"envelope": {"key": key, "problem": problem}}),
    }
}

/// The -32022 error for `requested`, listing what the gateway speaks.
pub fn unsupported_version(requested: &str) -> EnvelopeError {
    EnvelopeError {
        code: UNSUPPORTED_PROTOCOL_VERSION,
        message: format!(
            "Unsupported protocol version: {requested} (Lazy MCP speaks {} without a handshake, and 2024-11-05 to 2025-11-25 through initialize)",
            MODERN_VERSIONS.join(", ")
        ),
        data: json!({"supported": MODERN_VERSIONS, "requested": requested}),
    }
}

/// The JSON-RPC error response for an envelope error.
pub fn error_response(id: Value, error: &EnvelopeError) -> Value {
    let mut body = json!({"code": error.code, "message": error.message});
    if let (false, Some(object)) = (error.data.is_null(), body.as_object_mut()) {
        object.insert("data".into(), error.data.clone());
    }
    json!({"jsonrpc": "2.0", "id": id, "error": body})
}

/// A modern result says what kind it is (`resultType`, required in 2026-07-28);
/// everything the gateway answers is complete. A result that already says
/// (forwarded from a modern server) is left alone.
pub fn stamp_complete(response: &mut Value) {
    if let Some(result) = response.get_mut("result").and_then(Value::as_object_mut) {
        if !result.contains_key("resultType") {
            result.insert("resultType".into(), Value::from("complete"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(meta: Value) -> Value {
        json!({ "_meta": meta })
    }

    #[test]
    fn legacy_unless_meta_claims_a_version() {
        assert_eq!(read_era("tools/list", None), Ok(Era::Legacy));
        let progress = meta(json!({"progressToken": 1}));
        assert_eq!(read_era("tools/list", Some(&progress)), Ok(Era::Legacy));
        let claims = meta(json!({PROTOCOL_VERSION_KEY: "2026-07-28", CLIENT_CAPABILITIES_KEY: {}}));
        let removed = read_era("initialize", Some(&claims)).err().map(|e| e.code);
        assert_eq!(removed, Some(super::super::jsonrpc::METHOD_NOT_FOUND));
        let initialize = json!({"protocolVersion": "2025-11-25", "capabilities": {}});
        assert_eq!(read_era("initialize", Some(&initialize)), Ok(Era::Legacy));
    }

    #[test]
    fn a_modern_envelope_gives_its_identity() {
        let params = meta(json!({
            PROTOCOL_VERSION_KEY: "2026-07-28",
            CLIENT_CAPABILITIES_KEY: {"sampling": {}},
            CLIENT_INFO_KEY: {"name": "probe", "version": "0.1"},
        }));
        let Ok(Era::Modern(envelope)) = read_era("tools/list", Some(&params)) else {
            panic!("not modern");
        };
        assert_eq!(envelope.client_identity.as_deref(), Some("probe@0.1"));
        assert_eq!(envelope.capabilities, json!({"sampling": {}}));
    }

    #[test]
    fn bad_envelopes_get_the_specs_errors() {
        let code = |params: Value| read_era("tools/list", Some(&params)).err().map(|e| e.code);
        assert_eq!(code(json!({"_meta": "x"})), Some(INVALID_PARAMS));
        assert_eq!(
            code(meta(json!({PROTOCOL_VERSION_KEY: 5}))),
            Some(INVALID_PARAMS)
        );
        assert_eq!(
            code(meta(json!({PROTOCOL_VERSION_KEY: "2026-07-28"}))),
            Some(INVALID_PARAMS)
        );
        assert_eq!(
            code(meta(
                json!({PROTOCOL_VERSION_KEY: "2026-07-28", CLIENT_CAPABILITIES_KEY: {}, CLIENT_INFO_KEY: {"version": "1"}})
            )),
            Some(INVALID_PARAMS)
        );
        let unsupported = read_era(
            "tools/list",
            Some(&meta(
                json!({PROTOCOL_VERSION_KEY: "2099-01-01", CLIENT_CAPABILITIES_KEY: {}}),
            )),
        )
        .err();
        assert_eq!(
            unsupported.map(|e| (e.code, e.data)),
            Some((
                UNSUPPORTED_PROTOCOL_VERSION,
                json!({"supported": ["2026-07-28"], "requested": "2099-01-01"})
            ))
        );
    }
}
