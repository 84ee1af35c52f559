//! The effects' JSON on the hot path, written by hand for the effects every
//! forwarded call makes (`send`, `reply`, `wakeAt` in their usual shape) and by
//! serde for any other: byte for byte what `serde_json::to_string(&effects)`
//! writes (a test holds them equal), with `protocol::json_text`. Also the
//! split form the WASM boundary takes (`split_payloads`), so that the effects'
//! types (effects.rs) never import their wire form. And the hot path's compact
//! form of the usual effects (`compact_effects`), which the host reads without
//! `JSON.parse`.

use crate::engine::effects::Effect;
use crate::protocol::json_text::{push_str, push_u64, push_value};

/// The effects for the WASM boundary without re-escaping payloads: element 0 is
/// the effects as a JSON array in which every `send`, `reply` and `notifyClient`
/// has an empty `message`; the elements after it are those messages, in order.
/// A 10 MB result thus crosses as one string of its own, never as a JSON string
/// inside another JSON document (escaped here, unescaped by the host).
pub fn split_payloads(mut effects: Vec<Effect>) -> Vec<String> {
    split_payloads_of(&mut effects)
}

/// [`split_payloads`] of effects the caller keeps (their messages taken), so
/// that their `Vec` can be used again (`engine/wire.rs`).
pub fn split_payloads_of(effects: &mut [Effect]) -> Vec<String> {
    let mut out = Vec::with_capacity(effects.len() + 1);
    split_payloads_into(&mut out, effects);
    out
}

/// [`split_payloads_of`] appended to `out` (what a POST returns after its
/// routing: one `Vec` for the crossing, not a second one extended into it).
pub(crate) fn split_payloads_into(out: &mut Vec<String>, effects: &mut [Effect]) {
    split_into(out, effects, false);
}

/// [`split_payloads_into`], with the effects in their compact form when they
/// have one ([`compact_effects`]), else as JSON: what the hot path's joined
/// crossings (`clientPost`, `messageReceived`) return.
pub(crate) fn split_compact_into(out: &mut Vec<String>, effects: &mut [Effect]) {
    split_into(out, effects, true);
}

fn split_into(out: &mut Vec<String>, effects: &mut [Effect], compact: bool) {
    let start = out.len();
    out.push(String::new());
    for effect in effects.iter_mut() {
        if let Effect::Send { message, .. }
        | Effect::Reply { message, .. }
        | Effect::NotifyClient { message, .. } = effect
        {
            out.push(std::mem::take(message));
        }
    }
    let head = compact
        .then(|| compact_effects(effects))
        .flatten()
        .unwrap_or_else(|| effects_json(effects));
    if let Some(first) = out.get_mut(start) {
        *first = head;
    }
}

/// The mark that opens a compact part: JSON text never starts with it.
pub const COMPACT_MARK: char = '#';
/// Between a compact part's fields: no part holds it raw (JSON has no raw control
/// character, and a compact part's strings are ones JSON needs no escape for).
pub const COMPACT_FIELD: char = '\u{1f}';

/// The effects of a warm call (only `send`s and `reply`s, in their usual shape:
/// no headers, no stream to open, no HTTP status) in a compact form the host
/// reads with string slices instead of `JSON.parse`: `#`, then per effect two
/// fields, all separated by U+001F: `s<conn>` and the request id (empty for
/// none); `r<client>` and the id ([`push_compact_id`]). `None` for any other
/// effect, or a client or id that JSON would escape: those cross as JSON.
pub(crate) fn compact_effects(effects: &[Effect]) -> Option<String> {
    if effects.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(48 * effects.len());
    out.push(COMPACT_MARK);
    for (at, effect) in effects.iter().enumerate() {
        if at > 0 {
            out.push(COMPACT_FIELD);
        }
        match effect {
            Effect::Send {
                conn,
                headers,
                request_id,
                open_event_stream: false,
                ..
            } if headers.is_empty() => {
                out.push('s');
                push_u64(&mut out, *conn);
                out.push(COMPACT_FIELD);
                if let Some(id) = request_id {
                    push_u64(&mut out, *id);
                }
            }
            Effect::Reply {
                client,
                id,
                http_status: None,
                ..
            } if plain(client) => {
                out.push('r');
                out.push_str(client);
                out.push(COMPACT_FIELD);
                if !push_compact_id(&mut out, id) {
                    return None;
                }
            }
            _ => return None,
        }
    }
    Some(out)
}

/// A JSON-RPC id in a compact part: `n` and an unsigned integer's digits, `s`
/// and a string JSON would not escape, or `z` for null; `false` (the part
/// crosses as JSON) for any other.
pub(crate) fn push_compact_id(out: &mut String, id: &serde_json::Value) -> bool {
    use serde_json::Value;
    match id {
        Value::Number(n) => match n.as_u64() {
            Some(n) => {
                out.push('n');
                push_u64(out, n);
                true
            }
            None => false,
        },
        Value::String(text) if plain(text) => {
            out.push('s');
            out.push_str(text);
            true
        }
        Value::Null => {
            out.push('z');
            true
        }
        _ => false,
    }
}

/// Text JSON writes as it is (nothing to escape: no `"`, `\\` or control character).
fn plain(text: &str) -> bool {
    !text.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20)
}

/// `effects` as a JSON array, exactly as `serde_json::to_string` writes it.
pub(crate) fn effects_json(effects: &[Effect]) -> String {
    let mut out = String::with_capacity(64 * effects.len() + 2);
    out.push('[');
    for (at, effect) in effects.iter().enumerate() {
        if at > 0 {
            out.push(',');
        }
        if !write_usual(&mut out, effect) {
            match serde_json::to_string(effect) {
                Ok(json) => out.push_str(&json),
                // What serializing the whole array gives then (it fails on the same effect).
                Err(_) => return "[]".into(),
            }
        }
    }
    out.push(']');
    out
}

/// Writes the usual shapes of the hot path's effects; `false` (nothing written) for any other.
fn write_usual(out: &mut String, effect: &Effect) -> bool {
    match effect {
        Effect::Send {
            conn,
            message,
            headers,
            request_id,
            open_event_stream: false,
        } if headers.is_empty() => {
            out.push_str("{\"type\":\"send\",\"conn\":");
            push_u64(out, *conn);
            out.push_str(",\"message\":");
            push_str(out, message);
            if let Some(id) = request_id {
                out.push_str(",\"requestId\":");
                push_u64(out, *id);
            }
            out.push('}');
            true
        }
        Effect::Reply {
            client,
            id,
            http_status: None,
            message,
        } => {
            out.push_str("{\"type\":\"reply\",\"client\":");
            push_str(out, client);
            out.push_str(",\"id\":");
            push_value(out, id);
            out.push_str(",\"message\":");
            push_str(out, message);
            out.push('}');
            true
        }
        Effect::WakeAt { at_ms } => {
            out.push_str("{\"type\":\"wakeAt\",\"atMs\":");
            push_u64(out, *at_ms);
            out.push('}');
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vec_map::VecMap;
    use serde_json::json;

    #[test]
    fn writes_what_serde_writes() {
        let mut headers = VecMap::new();
        headers.insert("Mcp-Method".to_string(), "tools/call".to_string());
        let cases = vec![
            vec![],
            vec![Effect::WakeAt { at_ms: 0 }],
            vec![
                Effect::WakeAt { at_ms: u64::MAX },
                Effect::Send {
                    conn: 2,
                    message: String::new(),
                    headers: VecMap::new(),
                    request_id: Some(5004),
                    open_event_stream: false,
                },
                Effect::Send {
                    conn: 18,
                    message: "{\"a\":\"é\\n\"}".into(),
                    headers: VecMap::new(),
                    request_id: None,
                    open_event_stream: false,
                },
                Effect::Send {
                    conn: 3,
                    message: String::new(),
                    headers,
                    request_id: Some(1),
                    open_event_stream: true,
                },
                Effect::Reply {
                    client: "c".into(),
                    id: json!(7),
                    http_status: None,
                    message: String::new(),
                },
                Effect::Reply {
                    client: "s\"1\u{1}é".into(),
                    id: json!("x\\\"y"),
                    http_status: None,
                    message: "m".into(),
                },
                Effect::Reply {
                    client: "c".into(),
                    id: json!(-3),
                    http_status: None,
                    message: String::new(),
                },
                Effect::Reply {
                    client: "c".into(),
                    id: json!(1.5),
                    http_status: None,
                    message: String::new(),
                },
                Effect::Reply {
                    client: "c".into(),
                    id: json!(u64::MAX),
                    http_status: None,
                    message: String::new(),
                },
                Effect::Reply {
                    client: "c".into(),
                    id: serde_json::Value::Null,
                    http_status: Some(404),
                    message: String::new(),
                },
                Effect::Close {
                    conn: 1,
                    idle: false,
                },
            ],
        ];
        for effects in cases {
            let expected = serde_json::to_string(&effects).unwrap_or_default();
            assert_eq!(effects_json(&effects), expected);
        }
    }
}
