//! What an HTTP status from an upstream MCP server means for its connection.
//! The host's HTTP connection (`host/connections/httpConnection.ts`) moves
//! bytes and asks here (WASM `httpStatusVerdict`) what each answer's status
//! means, so no status rule lives in the host: holding requests for an OAuth
//! sign-in (401/403), an expired session (404), a server without a GET stream
//! (405). Which transport a connection speaks is the engine's
//! ([`transport_after_first_post`], `engine/server/http_transport.rs`): the
//! legacy HTTP+SSE fallback (the spec's backward-compatibility section: a
//! first POST answered 400, 404 or 405).
//!
//! The verdict depends only on its inputs, so the host may keep each one it
//! got (a warm call never crosses into WASM for it).

use serde::{Deserialize, Serialize};

/// Which exchange of a connection a status answers.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum HttpExchange {
    /// A Streamable HTTP POST carrying a message.
    Post,
    /// A POST to the legacy transport's `endpoint`.
    LegacyPost,
    /// The optional Streamable HTTP GET stream (server → client messages).
    EventStream,
    /// The legacy transport's SSE stream (its `endpoint` event, then messages).
    LegacyStream,
}

impl HttpExchange {
    /// The exchange a host names (`Post`'s `post`, ...); `None` for anything else.
    pub fn from_name(name: &str) -> Option<HttpExchange> {
        match name {
            "post" => Some(HttpExchange::Post),
            "legacyPost" => Some(HttpExchange::LegacyPost),
            "eventStream" => Some(HttpExchange::EventStream),
            "legacyStream" => Some(HttpExchange::LegacyStream),
            _ => None,
        }
    }
}

/// One answer's status and what the connection knows when it arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpAnswer {
    pub exchange: HttpExchange,
    pub status: u16,
    /// The engine signs this server in with OAuth (the `open` effect's `oauth`).
    pub oauth: bool,
    /// The server gave the connection an `Mcp-Session-Id`.
    pub session: bool,
}

/// What the connection does with the answer.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum HttpVerdict {
    /// Read the reply (a POST), or the stream (a GET: when its content type is SSE).
    Accept,
    /// A POST accepted with no body (202, 204): any answer comes on another stream.
    NoReply,
    /// OAuth, 401: the request is sent again at once when the token changed
    /// since it was sent (a refresh raced it), else held like [`HttpVerdict::HoldForSignIn`].
    ResendOrHoldForSignIn,
    /// OAuth, 403 (or a 401 with the current token): hold the request until
    /// the engine resumes the connection, and report the challenge (`authRequired`).
    HoldForSignIn,
    /// OAuth on the GET stream: skip it; the next `openEventStream` message opens it again.
    EventStreamLater,
    /// 401 without OAuth: the connection ends ("requires authentication").
    RequiresAuthentication,
    /// 403 without OAuth: the connection ends ("refused access").
    RefusedAccess,
    /// 404 on a session: the connection ends ("session expired").
    SessionExpired,
    /// 405 on the GET stream: the server offers none; the connection goes on.
    NoEventStream,
    /// Any other status: the request fails naming it (a POST), the optional
    /// stream is not available (a GET), the legacy connection cannot open.
    Failed,
}

/// The transport an HTTP connection speaks, as the engine decides it (the
/// `httpTransport` effect; the host POSTs and streams accordingly).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum HttpMode {
    /// Streamable HTTP, not settled yet: the next POST probes it.
    Probing,
    /// Streamable HTTP: the server took a POST.
    Streamable,
    /// The legacy HTTP+SSE transport (2024-11-05): configured as `sse`, or
    /// the fallback when the first POST was refused.
    Legacy,
}

/// What the status of a connection's first POST settles (`modern`: that POST
/// was an MCP 2026-07-28 request; `oauth`: the engine signs the server in).
/// A POST held for a sign-in probed nothing: the one sent again probes.
pub fn transport_after_first_post(status: u16, modern: bool, oauth: bool) -> HttpMode {
    if falls_back(status, modern) {
        HttpMode::Legacy
    } else if oauth && matches!(status, 401 | 403) {
        // As [`http_status_verdict`]'s `ResendOrHoldForSignIn`/`HoldForSignIn` on a POST.
        HttpMode::Probing
    } else {
        HttpMode::Streamable
    }
}

/// The spec's backward compatibility: a client that POSTs `initialize` first and
/// gets 400, 404 or 405 tries the legacy transport (2024 messages only: never
/// for a `modern` request, whose error status is its answer).
fn falls_back(status: u16, modern: bool) -> bool {
    !modern && matches!(status, 400 | 404 | 405)
}

/// The rule, one answer at a time.
pub fn http_status_verdict(answer: HttpAnswer) -> HttpVerdict {
    let HttpAnswer {
        exchange,
        status,
        oauth,
        session,
    } = answer;
    use HttpExchange::*;
    use HttpVerdict::*;
    // What a connection's first POST answered 400, 404 or 405 speaks is the
    // engine's ([`transport_after_first_post`]): here such a status only fails.
    if exchange == EventStream && status == 405 {
        return NoEventStream;
    }
    match (status, oauth, exchange) {
        (401 | 403, true, EventStream) => return EventStreamLater,
        (401, true, Post | LegacyPost) => return ResendOrHoldForSignIn,
        (403, true, Post | LegacyPost) => return HoldForSignIn,
        (401, _, _) => return RequiresAuthentication,
        (403, _, _) => return RefusedAccess,
        _ => {}
    }
    // A legacy POST is always within the SSE stream's session.
    if status == 404 && (session || exchange == LegacyPost) {
        return SessionExpired;
    }
    match exchange {
        Post | LegacyPost if matches!(status, 202 | 204) => NoReply,
        Post | LegacyPost if (200..300).contains(&status) => Accept,
        EventStream | LegacyStream if status == 200 => Accept,
        _ => Failed,
    }
}

/// [`http_status_verdict`] as the host reads it: the verdict's name
/// (`"accept"`, ...); an unknown exchange reads as `"failed"`.
pub fn http_status_verdict_name(
    exchange: &str,
    status: u16,
    oauth: bool,
    session: bool,
) -> &'static str {
    let Some(exchange) = HttpExchange::from_name(exchange) else {
        return "failed";
    };
    match http_status_verdict(HttpAnswer {
        exchange,
        status,
        oauth,
        session,
    }) {
        HttpVerdict::Accept => "accept",
        HttpVerdict::NoReply => "noReply",
        HttpVerdict::ResendOrHoldForSignIn => "resendOrHoldForSignIn",
        HttpVerdict::HoldForSignIn => "holdForSignIn",
        HttpVerdict::EventStreamLater => "eventStreamLater",
        HttpVerdict::RequiresAuthentication => "requiresAuthentication",
        HttpVerdict::RefusedAccess => "refusedAccess",
        HttpVerdict::SessionExpired => "sessionExpired",
        HttpVerdict::NoEventStream => "noEventStream",
        HttpVerdict::Failed => "failed",
    }
}
