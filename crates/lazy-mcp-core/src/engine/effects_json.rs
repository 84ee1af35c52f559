//! The effects' JSON on the hot path, written by hand for the effects every
//! forwarded call makes (`send`, `reply`, `wakeAt` in their usual shape) and by
//! serde for any other: byte for byte what `serde_json::to_string(&effects)`
//! writes (a test holds them equal), with `protocol::json_text`. Also the
//! split form the WASM boundary takes (`split_payloads`), so that the effects'
//! types (effects.rs) never import their wire form.

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
    let json = effects_json(effects);
    if let Some(first) = out.get_mut(start) {
        *first = json;
    }
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
                Err(_) => return serde_json::to_string(effects).unwrap_or_else(|_| "[]".into()),
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
