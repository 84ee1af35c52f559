//! JSON text written by hand on the hot path, byte for byte as serde_json's
//! compact writer writes it (its callers' tests hold them equal): a size-optimized
//! build does not inline serde's per-token calls (`bench/README.md`, hot path).

use serde_json::Value;

/// An unsigned integer, as serde_json writes it (with the same `itoa`).
pub(crate) fn push_u64(out: &mut String, n: u64) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// A string: one with nothing to escape (serde_json escapes only `"`, `\\` and
/// control characters) as it is, any other by serde.
pub(crate) fn push_str(out: &mut String, text: &str) {
    if text.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        push_serde(out, text);
    } else {
        out.push('"');
        out.push_str(text);
        out.push('"');
    }
}

/// A JSON-RPC id (or any value): the usual unsigned integer or string by hand.
pub(crate) fn push_value(out: &mut String, value: &Value) {
    match value {
        Value::Number(n) => match n.as_u64() {
            Some(n) => push_u64(out, n),
            None => push_serde(out, value),
        },
        Value::String(text) => push_str(out, text),
        _ => push_serde(out, value),
    }
}

pub(crate) fn push_serde<T: serde::Serialize + ?Sized>(out: &mut String, value: &T) {
    out.push_str(&serde_json::to_string(value).unwrap_or_else(|_| "null".into()));
}
