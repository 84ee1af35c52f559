//! The effects' JSON on the hot path, written by hand for the effects every
//! forwarded call makes (`send`, `reply`, `wakeAt` in their usual shape) and by
//! serde for any other: byte for byte what `serde_json::to_string(&effects)`
//! writes (a test holds them equal), without serde's per-token calls that a
//! size-optimized build does not inline (`bench/README.md`, hot path).

use crate::engine::effects::Effect;

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
            push_str_json(out, message);
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
            push_str_json(out, client);
            out.push_str(",\"id\":");
            match id {
                serde_json::Value::Number(n) => match n.as_u64() {
                    Some(n) => push_u64(out, n),
                    None => push_json(out, id),
                },
                serde_json::Value::String(text) => push_str_json(out, text),
                _ => push_json(out, id),
            }
            out.push_str(",\"message\":");
            push_str_json(out, message);
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

fn push_u64(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n;
    loop {
        at -= 1;
        if let Some(d) = digits.get_mut(at) {
            *d = b'0' + (rest % 10) as u8;
        }
        rest /= 10;
        if rest == 0 || at == 0 {
            break;
        }
    }
    out.push_str(std::str::from_utf8(digits.get(at..).unwrap_or_default()).unwrap_or("0"));
}

/// A string as JSON: one with nothing to escape (serde_json escapes only `"`,
/// `\\` and control characters) as it is, any other by serde.
fn push_str_json(out: &mut String, text: &str) {
    if text.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        push_json(out, text);
    } else {
        out.push('"');
        out.push_str(text);
        out.push('"');
    }
}

fn push_json<T: serde::Serialize + ?Sized>(out: &mut String, value: &T) {
    out.push_str(&serde_json::to_string(value).unwrap_or_else(|_| "null".into()));
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
                Effect::Close { conn: 1 },
            ],
        ];
        for effects in cases {
            let expected = serde_json::to_string(&effects).unwrap_or_default();
            assert_eq!(effects_json(&effects), expected);
        }
    }
}
