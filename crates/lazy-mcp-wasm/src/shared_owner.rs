//! The shared-server owner's multiplexer (core `shared/mux.rs`) for `lazy-mcp
//! daemon`. Messages cross as bytes both ways, never inside JSON: a client's or
//! a server's message goes in as a `Uint8Array`; the effects come out as one
//! `Uint8Array` (`effects_out`) whose messages the owner writes as they lie.
//! No logic.

use lazy_mcp_core::shared::mux::{Mux, MuxEffect};
use std::borrow::Cow;
use wasm_bindgen::prelude::*;

/// The client ↔ owner wire version (the owner's socket name carries it).
#[wasm_bindgen(js_name = sharedProtocol)]
pub fn shared_protocol() -> u32 {
    lazy_mcp_core::shared::SHARED_PROTOCOL
}

#[wasm_bindgen]
pub struct SharedOwner {
    mux: Mux,
}

#[wasm_bindgen]
impl SharedOwner {
    #[wasm_bindgen(constructor)]
    pub fn new() -> SharedOwner {
        SharedOwner { mux: Mux::new() }
    }

    /// How long a used process waits for a next client after its last one
    /// left (`daemon run --grace-ms`; the core's `HANDOVER_GRACE_MS` otherwise).
    #[wasm_bindgen(js_name = setHandoverGraceMs)]
    pub fn set_handover_grace_ms(&mut self, ms: f64) {
        self.mux.set_handover_grace_ms(ms as u64);
    }

    /// One `MuxEvent` as JSON → its effects (`effects_out`).
    pub fn handle(&mut self, event_json: &str) -> Vec<u8> {
        let effects = match lazy_mcp_core::tagged_json::from_tagged_json(event_json) {
            Ok(event) => self.mux.handle(event),
            Err(_) => Vec::new(),
        };
        effects_out(effects)
    }

    /// A client attachment's message, its UTF-8 bytes → its effects (`effects_out`).
    #[wasm_bindgen(js_name = clientMessage)]
    pub fn client_message(&mut self, attach: f64, message: &[u8]) -> Vec<u8> {
        effects_out(self.mux.client_message(attach as u64, &text(message)))
    }

    /// A server process's message, its UTF-8 bytes → its effects (`effects_out`).
    #[wasm_bindgen(js_name = serverMessage)]
    pub fn server_message(&mut self, process: f64, message: &[u8]) -> Vec<u8> {
        effects_out(self.mux.server_message(process as u64, &text(message)))
    }

    /// No process and no attachment held (the owner may exit after a while).
    #[wasm_bindgen(js_name = isIdle)]
    pub fn is_idle(&self) -> bool {
        self.mux.is_idle()
    }

    /// `lazy-mcp daemon status`: one row per process, JSON.
    pub fn status(&self) -> String {
        serde_json::to_string(&self.mux.status()).unwrap_or_else(|_| "[]".into())
    }
}

impl Default for SharedOwner {
    fn default() -> Self {
        Self::new()
    }
}

/// Invalid UTF-8 is read with replacement characters, as the host's decoding did.
fn text(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// The effects as bytes: every message (`M`, its bytes, a newline: a message
/// has none of its own, the client's frame and the server's line split on them),
/// then the effects as a JSON
/// array, then that JSON's length (u32, little-endian). A message effect reads
/// `{"type":"toServer","process":P,"at":A,"end":E}` (or `toClient` with
/// `attach`): its message is `bytes[A..E]`, so `[A-1..E+1]` is the frame to a
/// client and `[A..E+1]` the line to a server, written without a copy. (JSON
/// written by hand: a serde type for it costs the `.wasm` kilobytes.)
fn effects_out(effects: Vec<MuxEffect>) -> Vec<u8> {
    let size: usize = effects
        .iter()
        .map(|e| match e {
            MuxEffect::ToServer { message, .. } | MuxEffect::ToClient { message, .. } => {
                message.len() + 2
            }
            _ => 0,
        })
        .sum();
    let mut out = Vec::with_capacity(size + 64 * effects.len() + 4);
    let mut json = String::from("[");
    for effect in &effects {
        if json.len() > 1 {
            json.push(',');
        }
        let (kind, who, id, message) = match effect {
            MuxEffect::ToServer { process, message } => ("toServer", "process", process, message),
            MuxEffect::ToClient { attach, message } => ("toClient", "attach", attach, message),
            other => {
                json.push_str(&serde_json::to_string(other).unwrap_or_else(|_| "null".into()));
                continue;
            }
        };
        out.push(b'M');
        let at = out.len();
        out.extend_from_slice(message.as_bytes());
        let end = out.len();
        out.push(b'\n');
        for part in [
            "{\"type\":\"",
            kind,
            "\",\"",
            who,
            "\":",
            &id.to_string(),
            ",\"at\":",
            &at.to_string(),
            ",\"end\":",
            &end.to_string(),
            "}",
        ] {
            json.push_str(part);
        }
    }
    json.push(']');
    out.extend_from_slice(json.as_bytes());
    out.extend_from_slice(&u32::try_from(json.len()).unwrap_or(0).to_le_bytes());
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn messages_lie_framed_in_the_bytes_and_the_rest_is_json() {
        let out = effects_out(vec![
            MuxEffect::ToServer {
                process: 1,
                message: "{\"a\": 1}".into(),
            },
            MuxEffect::StopProcess { process: 2 },
            MuxEffect::ToClient {
                attach: 3,
                message: "{}".into(),
            },
        ]);
        let len = u32::from_le_bytes(out[out.len() - 4..].try_into().unwrap()) as usize;
        let json: Value = serde_json::from_slice(&out[out.len() - 4 - len..out.len() - 4]).unwrap();
        assert_eq!(json[0]["type"], "toServer");
        let (at, end) = (
            json[0]["at"].as_u64().unwrap() as usize,
            json[0]["end"].as_u64().unwrap() as usize,
        );
        assert_eq!(&out[at..=end], b"{\"a\": 1}\n");
        assert_eq!(
            json[1],
            serde_json::json!({"type": "stopProcess", "process": 2})
        );
        let (at, end) = (
            json[2]["at"].as_u64().unwrap() as usize,
            json[2]["end"].as_u64().unwrap() as usize,
        );
        assert_eq!(
            (json[2]["attach"].as_u64(), &out[at - 1..=end]),
            (Some(3), &b"M{}\n"[..])
        );
    }
}
