//! Reading what a gateway client sent, defensively: depth is checked before any
//! recursive parse, the JSON-RPC 2.0 envelope is checked strictly (`"jsonrpc":
//! "2.0"`, a string or number `id`), and an unreadable message still yields the
//! id to answer when its top level can be read. The HTTP gateway uses
//! [`client_body_json`] to route replies exactly as the engine will produce them.

use super::jsonrpc::{Message, INVALID_REQUEST, PARSE_ERROR};
use super::message_fields::MessageFields;
use super::modern_http::{self, RequestHeaders};
use super::outline::{outline, Outline, TopLevel, MAX_DEPTH};
use super::params::Params;
use super::raw_message::{CallPeek, MetaOnly, RawEnvelope};
use crate::protocol::methods;
use serde::Serialize;
use serde_json::Value;

/// Why a client message cannot be served, and the id its error answer carries.
#[derive(Debug, Clone, PartialEq)]
pub struct Unreadable {
    /// The request's own id when the top level could be read, else `null`.
    pub id: Value,
    pub code: i64,
    pub reason: String,
}

/// Parses one client message (one JSON-RPC object, not a batch).
pub fn parse_client(text: &str) -> Result<Message, Unreadable> {
    let shape = outline(text);
    let id = shape.id.clone().unwrap_or(Value::Null);
    let unreadable = |code, reason: String| Unreadable {
        id: id.clone(),
        code,
        reason,
    };
    if shape.max_depth > MAX_DEPTH {
        return Err(unreadable(
            INVALID_REQUEST,
            format!(
                "the message nests {} levels deep; Lazy MCP reads at most {MAX_DEPTH}",
                shape.max_depth
            ),
        ));
    }
    let value: Value = serde_json::from_str(text)
        .map_err(|e| unreadable(PARSE_ERROR, format!("not valid JSON: {e}")))?;
    let Some(object) = value.as_object() else {
        let what = if shape.top == TopLevel::Array {
            "a JSON-RPC message must be a JSON object (batches are not supported here)"
        } else {
            "a JSON-RPC message must be a JSON object"
        };
        return Err(unreadable(INVALID_REQUEST, what.into()));
    };
    let fields = MessageFields::of(object);
    if fields.jsonrpc != Some("2.0") {
        return Err(unreadable(
            INVALID_REQUEST,
            "\"jsonrpc\" must be \"2.0\"".into(),
        ));
    }
    if fields.method_member.is_some() {
        if let Some(bad) = fields.id.filter(|id| !is_valid_id(id)) {
            let kind = match bad {
                Value::Null => "null",
                Value::Bool(_) => "a boolean",
                Value::Array(_) => "an array",
                _ => "an object",
            };
            return Err(unreadable(
                INVALID_REQUEST,
                format!("a request \"id\" must be a string or a number, not {kind}"),
            ));
        }
    }
    Message::from_value(value).map_err(|e| unreadable(INVALID_REQUEST, e))
}

fn is_valid_id(id: &Value) -> bool {
    id.is_string() || id.is_number()
}

/// What the gateway needs to route one message of a body and its answer.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientEnvelope {
    /// The message's text when the body is a batch (else the body itself is the message).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The engine will answer this message (a request, or an error for an unreadable one).
    pub expects_reply: bool,
    /// The id of that answer (`null` when the message's id could not be read).
    #[cfg_attr(feature = "ts", ts(type = "string | number | null"))]
    pub id: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// `params._meta.progressToken` of a request: progress is routed with its answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(type = "string | number", optional))]
    pub progress_token: Option<Value>,
    /// The error answer, when the message cannot be served (the engine sends the same).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorShape>,
    /// A modern-era (2026-07-28) request or `server/discover`: served without a session.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "ts", ts(as = "Option<bool>", optional))]
    pub sessionless: bool,
    /// A `notifications/cancelled`: the id of the request it cancels. The
    /// engine answers no cancelled request, so the gateway stops waiting for
    /// that one (the gateway alone owns which answers its POSTs wait for).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(type = "string | number", optional))]
    pub cancels: Option<Value>,
}

/// The error a message gets before it is served.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorShape {
    pub code: i64,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(type = "unknown", optional))]
    pub data: Option<Value>,
    /// Set for a modern-era request's error: the HTTP gateway answers it at once
    /// with this status (the engine would answer the same, without the status).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
}

/// A client's HTTP body (or stdin line) as the engine will read it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientBody {
    pub batch: bool,
    pub messages: Vec<ClientEnvelope>,
    /// The body may start a session: it holds an `initialize`. A body without a
    /// session that does not is refused (400), unless it is `sessionless`.
    pub opens_session: bool,
    /// A body with no `initialize` and a sessionless request: the HTTP gateway
    /// serves it without a session (and starts none).
    pub sessionless: bool,
}

/// The envelope of one message, as the engine will read it.
pub fn envelope(text: &str) -> ClientEnvelope {
    envelope_with(text, None)
}

/// [`envelope`], checking a single HTTP request against its headers too.
fn envelope_with(text: &str, headers: Option<&RequestHeaders>) -> ClientEnvelope {
    envelope_of(text, &outline(text), headers)
}

/// [`envelope_with`] of a text already outlined (the body of a POST is outlined once).
fn envelope_of(text: &str, shape: &Outline, headers: Option<&RequestHeaders>) -> ClientEnvelope {
    envelope_read(text, shape, headers).0
}

/// [`envelope_of`], and the raw envelope when the common case read it (the
/// engine's raw forwarding reuses it instead of reading the text again).
fn envelope_read<'a>(
    text: &'a str,
    shape: &Outline,
    headers: Option<&RequestHeaders>,
) -> (ClientEnvelope, Option<RawRead<'a>>) {
    envelope_read_from(text, shape, headers, None)
}

/// [`envelope_read`] with the raw envelope when it was read already.
fn envelope_read_from<'a>(
    text: &'a str,
    shape: &Outline,
    headers: Option<&RequestHeaders>,
    read: Option<RawEnvelope<'a>>,
) -> (ClientEnvelope, Option<RawRead<'a>>) {
    let legacy_headers = headers.is_none_or(|h| !h.claims_modern());
    match legacy_headers
        .then(|| raw_envelope(text, shape, read))
        .flatten()
    {
        Some((envelope, raw)) => (envelope, Some(raw)),
        None => (full_envelope(text, headers), None),
    }
}

/// The common case read without building the payload: a valid legacy-era
/// request or notification with a plain envelope. `None` sends anything else
/// (a modern-era envelope included) to the full reading.
fn raw_envelope<'a>(
    text: &'a str,
    shape: &Outline,
    read: Option<RawEnvelope<'a>>,
) -> Option<(ClientEnvelope, RawRead<'a>)> {
    if shape.max_depth > MAX_DEPTH || shape.unusual_number || shape.top != TopLevel::Object {
        return None;
    }
    let raw = read.or_else(|| RawEnvelope::read(text))?;
    if !raw.is_version_2() {
        return None;
    }
    let method = raw.method.as_deref()?.to_string();
    if method == methods::SERVER_DISCOVER {
        return None;
    }
    let id = raw.plain_id();
    if shape.has_id && id.is_none() {
        return None; // a null or odd id: the full reading says why
    }
    if method == methods::NOTIFICATIONS_CANCELLED {
        return None; // the full reading names the request it cancels
    }
    let Some(id) = id else {
        let envelope = ClientEnvelope {
            text: None,
            expects_reply: false,
            id: Value::Null,
            method: Some(method),
            progress_token: None,
            error: None,
            sessionless: false,
            cancels: None,
        };
        return Some((
            envelope,
            RawRead {
                envelope: raw,
                call: None,
            },
        ));
    };
    // A `tools/call`'s params are peeked as the raw forwarding will (its name and
    // `_meta`), once: when that reading fails, only `_meta` is read, as for any request.
    let call = raw
        .params
        .filter(|_| method == methods::TOOLS_CALL)
        .and_then(CallPeek::read);
    let meta = match (&call, raw.params) {
        (Some(peek), _) => peek.meta.clone(),
        (None, Some(params)) => MetaOnly::read(params)?.meta,
        (None, None) => None,
    };
    if meta.as_ref().is_some_and(|m| m.is_modern()) {
        return None;
    }
    let progress_token = meta.and_then(|m| m.progress_token).filter(is_valid_id);
    let envelope = ClientEnvelope {
        text: None,
        expects_reply: true,
        id,
        method: Some(method),
        progress_token,
        error: None,
        sessionless: false,
        cancels: None,
    };
    Some((
        envelope,
        RawRead {
            envelope: raw,
            call,
        },
    ))
}

fn full_envelope(text: &str, headers: Option<&RequestHeaders>) -> ClientEnvelope {
    let mut envelope = ClientEnvelope {
        text: None,
        expects_reply: false,
        id: Value::Null,
        method: None,
        progress_token: None,
        error: None,
        sessionless: false,
        cancels: None,
    };
    match parse_client(text) {
        Ok(Message::Request { id, method, params }) => {
            envelope.expects_reply = true;
            envelope.id = id;
            envelope.progress_token = Params::read(params.as_ref())
                .meta()
                .progress_token
                .filter(|token| is_valid_id(token))
                .cloned();
            envelope.sessionless = super::modern_request::is_sessionless(&method, params.as_ref())
                || headers.is_some_and(RequestHeaders::claims_modern);
            if let Some((error, status)) =
                headers.and_then(|h| modern_http::check(&method, params.as_ref(), h))
            {
                envelope.error = Some(ErrorShape {
                    code: error.code,
                    message: error.message,
                    data: Some(error.data).filter(|d| !d.is_null()),
                    status: Some(status),
                });
            }
            envelope.method = Some(method);
        }
        Ok(Message::Notification { method, params }) => {
            if method == methods::NOTIFICATIONS_CANCELLED {
                envelope.cancels = Params::read(params.as_ref())
                    .request_id
                    .filter(|id| is_valid_id(id))
                    .cloned();
            }
            envelope.method = Some(method);
        }
        Ok(Message::Response { .. }) => {}
        Err(unreadable) => {
            envelope.expects_reply = true;
            envelope.id = unreadable.id;
            envelope.error = Some(ErrorShape {
                code: unreadable.code,
                message: client_error_text(&unreadable.reason),
                data: None,
                status: None,
            });
        }
    }
    envelope
}

/// The error message a client gets for an unreadable message.
pub fn client_error_text(reason: &str) -> String {
    format!("Lazy MCP could not read the message: {reason}")
}

/// An HTTP body: one message, or a batch split into its messages (each checked alone).
pub fn client_body(body: &str) -> ClientBody {
    client_body_with(body, &RequestHeaders::default())
}

/// [`client_body`] for a POST with these headers: a single modern-era request
/// is also checked against them (batches do not exist in that era).
pub fn client_body_with(body: &str, headers: &RequestHeaders) -> ClientBody {
    client_body_outlined(body, headers).body
}

/// A body as [`client_body_with`] reads it, with what the engine's raw forwarding
/// can reuse rather than read the same text again (the gateway's POST).
pub struct OutlinedBody<'a> {
    pub body: ClientBody,
    /// The body as a whole is plain enough for the raw path (`Outline::is_plain`).
    pub plain: bool,
    /// A single message's raw envelope, when the common case read one.
    pub envelope: Option<RawRead<'a>>,
}

/// What the common case read of one message: its raw envelope and, for a
/// `tools/call` whose params have a string `name`, their peek.
pub struct RawRead<'a> {
    pub envelope: RawEnvelope<'a>,
    pub call: Option<CallPeek<'a>>,
}

/// [`client_body_with`] with what it read on the way ([`OutlinedBody`]).
pub fn client_body_outlined<'a>(body: &'a str, headers: &RequestHeaders) -> OutlinedBody<'a> {
    // One object the hand reading takes is plain (not too deep, no unusual
    // number: `RawEnvelope::read_if_plain`): read once, with no outline of it.
    if let Some((raw, has_id)) = RawEnvelope::read_plain_keyed(body) {
        let shape = Outline {
            top: TopLevel::Object,
            max_depth: 1,
            id: None,
            has_id,
            elements: Vec::new(),
            unusual_number: false,
        };
        let (envelope, read) = envelope_read_from(body, &shape, Some(headers), Some(raw));
        return OutlinedBody {
            body: with_session_need(false, vec![envelope]),
            plain: true,
            envelope: read,
        };
    }
    client_body_outlined_in_full(body, headers)
}

/// [`client_body_outlined`] from the body's outline.
fn client_body_outlined_in_full<'a>(body: &'a str, headers: &RequestHeaders) -> OutlinedBody<'a> {
    let shape = outline(body);
    let plain = shape.is_plain();
    let (body, envelope) = client_body_of(body, &shape, headers);
    OutlinedBody {
        body,
        plain,
        envelope,
    }
}

fn client_body_of<'a>(
    body: &'a str,
    shape: &Outline,
    headers: &RequestHeaders,
) -> (ClientBody, Option<RawRead<'a>>) {
    let elements: Vec<&str> = shape
        .elements
        .iter()
        .filter_map(|&(start, end)| body.get(start..end))
        .collect();
    if shape.top != TopLevel::Array || elements.is_empty() {
        let (envelope, raw) = envelope_read(body, shape, Some(headers));
        return (with_session_need(false, vec![envelope]), raw);
    }
    let messages = elements
        .into_iter()
        .map(|text| ClientEnvelope {
            text: Some(text.trim().to_string()),
            ..envelope(text)
        })
        .collect();
    (with_session_need(true, messages), None)
}

/// `body` as JSON, byte for byte what `serde_json::to_string` writes: the usual
/// message (no `text`, no `error`) written by hand (`json_text`), any other by serde.
pub fn client_body_text(body: &ClientBody) -> String {
    use super::json_text::{push_serde, push_str, push_value};
    let flag = |on: bool| if on { "true" } else { "false" };
    let mut out = String::with_capacity(128);
    out.push_str("{\"batch\":");
    out.push_str(flag(body.batch));
    out.push_str(",\"messages\":[");
    for (at, message) in body.messages.iter().enumerate() {
        if at > 0 {
            out.push(',');
        }
        // A cancellation (rare) is written by serde too.
        if message.text.is_some() || message.error.is_some() || message.cancels.is_some() {
            push_serde(&mut out, message);
            continue;
        }
        out.push_str("{\"expectsReply\":");
        out.push_str(flag(message.expects_reply));
        out.push_str(",\"id\":");
        push_value(&mut out, &message.id);
        if let Some(method) = &message.method {
            out.push_str(",\"method\":");
            push_str(&mut out, method);
        }
        if let Some(token) = &message.progress_token {
            out.push_str(",\"progressToken\":");
            push_value(&mut out, token);
        }
        if message.sessionless {
            out.push_str(",\"sessionless\":true");
        }
        out.push('}');
    }
    out.push_str("],\"opensSession\":");
    out.push_str(flag(body.opens_session));
    out.push_str(",\"sessionless\":");
    out.push_str(flag(body.sessionless));
    out.push('}');
    out
}

fn with_session_need(batch: bool, messages: Vec<ClientEnvelope>) -> ClientBody {
    let opens_session = messages
        .iter()
        .any(|m| m.method.as_deref() == Some(methods::INITIALIZE));
    let sessionless = !opens_session && messages.iter().any(|m| m.sessionless);
    ClientBody {
        batch,
        messages,
        opens_session,
        sessionless,
    }
}

/// [`client_body_with`] as JSON, for the host's gateway; `headers_json` is a
/// [`RequestHeaders`] object (unreadable or absent: no headers).
pub fn client_body_json(body: &str, headers_json: Option<&str>) -> String {
    let headers: RequestHeaders = headers_json
        .and_then(|h| serde_json::from_str(h).ok())
        .unwrap_or_default();
    client_body_text(&client_body_with(body, &headers))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a body read gives the gateway and the raw forwarding, comparable.
    fn read_of(read: OutlinedBody<'_>) -> (ClientBody, bool, Option<(String, bool)>) {
        let raw = read
            .envelope
            .map(|r| (format!("{:?}", r.envelope), r.call.is_some()));
        (read.body, read.plain, raw)
    }

    const BODIES: &[&str] = &[
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"m":"\u00e9"}}}"#,
        r#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":null,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":true,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"server/discover"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"e","_meta":{"progressToken":"p"}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"e","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"e","arguments":{"n":1e3}}}"#,
        r#"{"jsonrpc":"1.0","id":6,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":7,"result":{}}"#,
        r#"[{"jsonrpc":"2.0","id":8,"method":"ping"}]"#,
        r#"{"jsonrpc":"2.0","id":9,"method":"ping","params":[]}"#,
        "",
    ];

    #[test]
    fn a_body_read_by_hand_reads_as_its_outline_would() {
        let modern = RequestHeaders {
            protocol_version: Some("2026-07-28".into()),
            method: Some("tools/call".into()),
            name: None,
        };
        for body in BODIES {
            for headers in [RequestHeaders::default(), modern.clone()] {
                assert_eq!(
                    read_of(client_body_outlined(body, &headers)),
                    read_of(client_body_outlined_in_full(body, &headers)),
                    "{body}"
                );
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn a_mutated_body_read_by_hand_reads_as_its_outline_would(
            base in 0..BODIES.len(),
            edits in proptest::collection::vec((0usize..160, proptest::sample::select(&[
                "\"", "\\", ",", ":", "{", "}", "[", "]", " ", "null", "1", "-", "e", "\\u0041",
                "\"id\":", "\"method\":", "\"params\":", "\"_meta\":", "\"name\":", "\u{1}", "é", "\"\"",
            ][..])), 1..4),
        ) {
            let body = crate::protocol::mutated_text::with_inserts(
                BODIES.get(base).copied().unwrap_or_default(),
                &edits,
            );
            let headers = RequestHeaders::default();
            proptest::prop_assert_eq!(
                read_of(client_body_outlined(&body, &headers)),
                read_of(client_body_outlined_in_full(&body, &headers))
            );
        }
    }
    use serde_json::json;

    fn error_of(text: &str) -> (Value, i64) {
        match parse_client(text) {
            Err(u) => (u.id, u.code),
            Ok(m) => (json!(format!("accepted: {m:?}")), 0),
        }
    }

    #[test]
    fn too_deep_is_refused_with_the_requests_own_id() {
        let deep = |depth: usize| {
            format!(
                r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"t","arguments":{{"a":{}{}}}}}}}"#,
                "[".repeat(depth),
                "]".repeat(depth)
            )
        };
        assert!(parse_client(&deep(MAX_DEPTH - 3)).is_ok());
        for depth in [MAX_DEPTH - 2, 129, 1000, 5000, 100_000] {
            assert_eq!(
                error_of(&deep(depth)),
                (json!(5), INVALID_REQUEST),
                "{depth}"
            );
        }
    }

    #[test]
    fn strict_envelope() {
        assert_eq!(
            error_of(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#),
            (json!(1), INVALID_REQUEST)
        );
        assert_eq!(
            error_of(r#"{"id":1,"method":"ping"}"#),
            (json!(1), INVALID_REQUEST)
        );
        for id in ["null", "true", "{}", "[1]"] {
            let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            assert_eq!(error_of(&text), (Value::Null, INVALID_REQUEST), "{id}");
        }
        assert_eq!(error_of("{nope"), (Value::Null, PARSE_ERROR));
        assert_eq!(
            error_of(r#"{"jsonrpc":"2.0","id":"k","method":"ping","params":{"#),
            (json!("k"), PARSE_ERROR)
        );
        assert!(parse_client(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#).is_ok());
    }

    #[test]
    fn only_a_body_with_initialize_may_open_a_session() {
        let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
        let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
        let discover = r#"{"jsonrpc":"2.0","id":3,"method":"server/discover"}"#;
        let opens = |body: &str| {
            let body = client_body(body);
            (body.opens_session, body.sessionless)
        };
        assert_eq!(opens(initialize), (true, false));
        assert_eq!(opens(&format!("[{list},{initialize}]")), (true, false));
        assert_eq!(opens(list), (false, false));
        assert_eq!(opens(discover), (false, true));
        assert_eq!(opens(&format!("[{discover},{initialize}]")), (true, false));
        assert_eq!(opens("{nope"), (false, false));
    }

    #[test]
    fn a_batch_is_split_and_each_message_routed() {
        let body = format!(
            r#"[{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"_meta":{{"progressToken":"p"}}}}}},{{"jsonrpc":"2.0","id":2,"method":"x","params":{}{}}},{{"jsonrpc":"2.0","method":"notifications/initialized"}}]"#,
            "[".repeat(5000),
            "]".repeat(5000)
        );
        let parsed = client_body(&body);
        assert!(parsed.batch);
        let routes: Vec<(bool, Value, Option<&str>, bool)> = parsed
            .messages
            .iter()
            .map(|m| {
                (
                    m.expects_reply,
                    m.id.clone(),
                    m.method.as_deref(),
                    m.error.is_some(),
                )
            })
            .collect();
        assert_eq!(
            routes,
            vec![
                (true, json!(1), Some("initialize"), false),
                (true, json!(2), None, true),
                (false, Value::Null, Some("notifications/initialized"), false),
            ]
        );
        assert_eq!(
            parsed
                .messages
                .first()
                .and_then(|m| m.progress_token.clone()),
            Some(json!("p"))
        );
    }

    #[test]
    fn the_routing_json_is_what_serde_writes() {
        let bodies = [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":"a\"b\\c/é","method":"tools/call","params":{"_meta":{"progressToken":"p\n1"}}}"#,
            r#"{"jsonrpc":"2.0","id":-3,"method":"m\u0001","params":{"_meta":{"progressToken":12}}}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"}]"#,
            r#"{"jsonrpc":"1.0","id":4,"method":"ping"}"#,
            r#"{"id":5,"#,
            "",
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
        ];
        let modern = RequestHeaders {
            protocol_version: Some("2026-07-28".into()),
            method: Some("tools/call".into()),
            name: None,
        };
        for body in bodies {
            for headers in [RequestHeaders::default(), modern.clone()] {
                let read = client_body_with(body, &headers);
                let expected = serde_json::to_string(&read).unwrap_or_default();
                assert_eq!(client_body_text(&read), expected, "{body}");
            }
        }
    }
}
