//! The HTTP side of a modern-era request (MCP 2026-07-28, Streamable HTTP): the
//! headers that mirror the body (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`)
//! must be there and agree with it, and the errors of that era carry an HTTP status (400 for a bad
//! envelope or header or a missing client capability, 404 for a method that does not exist).

use super::message_fields::{ErrorObject, MessageFields};
use super::modern_request::{self, EnvelopeError, MODERN_VERSIONS};
use crate::protocol::methods;
use serde::Deserialize;
use serde_json::{json, Value};

/// The spec's error for headers that are malformed or disagree with the body.
pub const HEADER_MISMATCH: i64 = -32020;

/// HTTP status of a method-not-found answer to a modern request.
pub const METHOD_NOT_FOUND_STATUS: u16 = 404;

/// The HTTP status of an answer to a modern request, when the era gives it one
/// (a JSON-RPC error the spec maps to a status; `None`: 200): method not found
/// 404, a missing client capability 400 — whoever answered (Lazy MCP, or the
/// server a request was forwarded to).
pub fn answer_status(answer: &Value) -> Option<u16> {
    use super::missing_capability::{MISSING_CLIENT_CAPABILITY, MISSING_CLIENT_CAPABILITY_STATUS};
    match ErrorObject::read(MessageFields::read(answer).error?).code? {
        super::jsonrpc::METHOD_NOT_FOUND => Some(METHOD_NOT_FOUND_STATUS),
        MISSING_CLIENT_CAPABILITY => Some(MISSING_CLIENT_CAPABILITY_STATUS),
        _ => None,
    }
}

/// The request headers the gateway reads (absent ones are `None`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RequestHeaders {
    pub protocol_version: Option<String>,
    pub method: Option<String>,
    pub name: Option<String>,
}

impl RequestHeaders {
    /// The headers say the modern era (a version the modern era knows, or a later one).
    pub fn claims_modern(&self) -> bool {
        self.protocol_version
            .as_deref()
            .is_some_and(|v| MODERN_VERSIONS.iter().any(|m| v >= *m))
    }
}

/// The error (and its HTTP status) a single request gets before it is served,
/// when it is of the modern era (by its `_meta` or its headers) and something is
/// wrong with its envelope or headers.
pub fn check(
    method: &str,
    params: Option<&Value>,
    headers: &RequestHeaders,
) -> Option<(EnvelopeError, u16)> {
    let claimed = params
        .and_then(|p| {
            p.pointer(&format!(
                "/_meta/{}",
                pointer_escape(modern_request::PROTOCOL_VERSION_KEY)
            ))
        })
        .and_then(Value::as_str);
    if let (Some(header), Some(body)) = (headers.protocol_version.as_deref(), claimed) {
        if header != body {
            return Some((mismatch("MCP-Protocol-Version", header, body), 400));
        }
    }
    let era = modern_request::read_era(method, params);
    let modern = headers.claims_modern() || !matches!(era, Ok(modern_request::Era::Legacy));
    if !modern {
        return None;
    }
    // Headers are read only from HTTP: a request with no headers at all (the
    // host's own tests, stdio) is not held to them.
    if *headers != RequestHeaders::default() {
        match headers.method.as_deref().map(str::trim) {
            None => return Some((missing("Mcp-Method"), 400)),
            Some(header) if header != method => {
                return Some((mismatch("Mcp-Method", header, method), 400))
            }
            Some(_) => {}
        }
        if let Some(error) = name_error(method, params, headers.name.as_deref()) {
            return Some((error, 400));
        }
    }
    match era {
        Err(error) if error.code == super::jsonrpc::METHOD_NOT_FOUND => {
            Some((error, METHOD_NOT_FOUND_STATUS))
        }
        Err(error) => Some((error, 400)),
        // The headers say modern, the body has no envelope.
        Ok(modern_request::Era::Legacy) => Some((
            modern_request::invalid(modern_request::PROTOCOL_VERSION_KEY, "missing"),
            400,
        )),
        Ok(modern_request::Era::Modern(_)) => None,
    }
}

fn mismatch(header: &str, value: &str, body: &str) -> EnvelopeError {
    EnvelopeError {
        code: HEADER_MISMATCH,
        message: format!(
            "Header mismatch: {header} is \"{value}\" but the request body says \"{body}\""
        ),
        data: json!({"header": header}),
    }
}

/// The body field `Mcp-Name` mirrors, for the methods that have one.
fn name_field(method: &str) -> Option<&'static str> {
    match method {
        methods::TOOLS_CALL | methods::PROMPTS_GET => Some("name"),
        methods::RESOURCES_READ => Some("uri"),
        _ => None,
    }
}

fn name_error(method: &str, params: Option<&Value>, header: Option<&str>) -> Option<EnvelopeError> {
    let field = name_field(method)?;
    let body = params.and_then(|p| p.get(field)).and_then(Value::as_str)?;
    let Some(header) = header.map(str::trim) else {
        return Some(missing("Mcp-Name"));
    };
    let decoded = match header
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    {
        Some(encoded) => base64_text(encoded),
        None => Some(header.to_string()),
    };
    (decoded.as_deref() != Some(body)).then(|| mismatch("Mcp-Name", header, body))
}

/// Standard base64 (padding optional) to UTF-8 text; `None` when it is not.
fn base64_text(encoded: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(encoded.len() * 3 / 4);
    let (mut buffer, mut bits) = (0u32, 0u32);
    for c in encoded.trim_end_matches('=').bytes() {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        buffer = (buffer << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            bytes.push(((buffer >> bits) & 0xff) as u8);
        }
    }
    String::from_utf8(bytes).ok()
}

fn missing(header: &str) -> EnvelopeError {
    EnvelopeError {
        code: HEADER_MISMATCH,
        message: format!("Missing header: {header} is required on a 2026-07-28 request"),
        data: json!({"header": header}),
    }
}

/// JSON-pointer escaping of one path segment (`/` in the `_meta` keys).
fn pointer_escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(version: Option<&str>, method: Option<&str>) -> RequestHeaders {
        RequestHeaders {
            protocol_version: version.map(str::to_string),
            method: method.map(str::to_string),
            name: None,
        }
    }

    fn envelope(version: &str) -> Value {
        json!({"_meta": {
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
        }})
    }

    fn code(method: &str, params: Option<Value>, h: RequestHeaders) -> Option<(i64, u16)> {
        check(method, params.as_ref(), &h).map(|(e, status)| (e.code, status))
    }

    #[test]
    fn headers_must_agree_with_the_body() {
        let good = envelope("2026-07-28");
        assert_eq!(
            code(
                "tools/list",
                Some(good.clone()),
                headers(Some("2026-07-28"), Some("tools/list"))
            ),
            None
        );
        assert_eq!(
            code(
                "tools/list",
                Some(good.clone()),
                headers(Some("2099-01-01"), None)
            ),
            Some((HEADER_MISMATCH, 400))
        );
        assert_eq!(
            code(
                "tools/list",
                Some(good.clone()),
                headers(None, Some("tools/call"))
            ),
            Some((HEADER_MISMATCH, 400))
        );
        assert_eq!(
            code("tools/list", Some(good), headers(Some("2026-07-28"), None)),
            Some((HEADER_MISMATCH, 400)),
            "Mcp-Method is required"
        );
        let mut call = envelope("2026-07-28");
        call["name"] = json!("échø");
        let with_name = |name: Option<&str>| RequestHeaders {
            name: name.map(str::to_string),
            ..headers(Some("2026-07-28"), Some("tools/call"))
        };
        assert_eq!(
            code(
                "tools/call",
                Some(call.clone()),
                with_name(Some("=?base64?w6ljaMO4?="))
            ),
            None
        );
        assert_eq!(
            code("tools/call", Some(call.clone()), with_name(Some("other"))),
            Some((HEADER_MISMATCH, 400))
        );
        assert_eq!(
            code("tools/call", Some(call), with_name(None)),
            Some((HEADER_MISMATCH, 400))
        );
    }

    #[test]
    fn a_modern_header_without_an_envelope_is_invalid_and_removed_methods_are_404() {
        assert_eq!(
            code(
                "tools/list",
                None,
                headers(Some("2026-07-28"), Some("tools/list"))
            ),
            Some((super::super::jsonrpc::INVALID_PARAMS, 400))
        );
        assert_eq!(
            code("ping", Some(envelope("2026-07-28")), headers(None, None)),
            Some((super::super::jsonrpc::METHOD_NOT_FOUND, 404))
        );
        assert_eq!(
            code(
                "tools/list",
                Some(envelope("2099-01-01")),
                headers(None, None)
            ),
            Some((modern_request::UNSUPPORTED_PROTOCOL_VERSION, 400))
        );
        // Legacy traffic (a session's own version header included) is untouched.
        assert_eq!(
            code("tools/list", None, headers(Some("2025-11-25"), None)),
            None
        );
        assert_eq!(
            code(
                "initialize",
                Some(json!({"protocolVersion": "2025-11-25"})),
                headers(None, None)
            ),
            None
        );
    }
}
