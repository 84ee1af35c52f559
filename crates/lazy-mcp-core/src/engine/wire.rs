//! What the hot path's byte entries (`router/wire.rs`, the entry points exactly
//! as the WASM facade exposes them) share with the facade: a message's bytes
//! read as text as Node would ([`text_of`]), and a POST's routing in the
//! compact form the host reads without `JSON.parse` ([`compact_routing`]).

use crate::engine::effects_json::{push_compact_id, COMPACT_FIELD, COMPACT_MARK};
use crate::protocol::client_message::ClientBody;
use std::borrow::Cow;

/// Bytes in, text out: invalid UTF-8 becomes U+FFFD, exactly as Node's
/// `buffer.toString('utf8')` did when the host decoded it.
pub fn text_of(bytes: &[u8]) -> Cow<'_, str> {
    // Valid UTF-8 (every usual message) by the word-at-a-time check; only
    // invalid input takes the chunked, replacing reading.
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// A POST's routing in the compact form, for the usual body (one message, not
/// a batch, no error or cancellation, an id and progress token the compact form
/// holds): `#`, one character `@` + bits (1 the message expects a reply, 2 it
/// is sessionless, 4 the body opens a session, 8 the body is sessionless, 16 a
/// progress token follows), then the id (`effects_json::push_compact_id`), then
/// U+001F and the progress token in the same form. The method is left out: the
/// gateway routes by the rest. `None`: the routing crosses as JSON.
pub fn compact_routing(body: &ClientBody) -> Option<String> {
    let [m] = body.messages.as_slice() else {
        return None;
    };
    if body.batch || m.text.is_some() || m.error.is_some() || m.cancels.is_some() {
        return None;
    }
    let bits = u8::from(m.expects_reply)
        | u8::from(m.sessionless) << 1
        | u8::from(body.opens_session) << 2
        | u8::from(body.sessionless) << 3
        | u8::from(m.progress_token.is_some()) << 4;
    let mut out = String::with_capacity(32);
    out.push(COMPACT_MARK);
    out.push(char::from(b'@' + bits));
    if !push_compact_id(&mut out, &m.id) {
        return None;
    }
    if let Some(token) = &m.progress_token {
        out.push(COMPACT_FIELD);
        // A token is a string or a number; null is not one (it would read back as none).
        if token.is_null() || !push_compact_id(&mut out, token) {
            return None;
        }
    }
    Some(out)
}
