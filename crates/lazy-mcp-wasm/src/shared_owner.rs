//! The shared-server owner's multiplexer (core `shared/mux.rs`) for `lazy-mcp
//! daemon`. Messages cross as bytes both ways, never inside JSON: a client's or
//! a server's message goes in as a `Uint8Array`; the effects come out as one
//! `Uint8Array` (`effects_out`) whose messages the owner writes as they lie.
//! No logic.

use lazy_mcp_core::shared::mux::{Mux, MuxEffect};
use serde::Serialize;
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

/// A message effect as the owner reads it: its message is `bytes[at..end]`,
/// preceded by the `M` of a client frame and followed by a newline, so
/// `[at-1..end+1]` is the frame to a client and `[at..end+1]` the line to a
/// server: written without a copy.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
enum Placed<'a> {
    ToServer {
        process: u64,
        at: usize,
        end: usize,
    },
    ToClient {
        attach: u64,
        at: usize,
        end: usize,
    },
    #[serde(untagged)]
    Other(&'a MuxEffect),
}

/// The effects as bytes: every message (`M`, its bytes with raw line breaks —
/// only whitespace in JSON — as spaces, a newline), then the effects as a JSON
/// array (messages `Placed`), then that JSON's length (u32, little-endian).
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
    let mut place = |message: &str| {
        out.push(b'M');
        let at = out.len();
        out.extend(message.bytes().map(|b| match b {
            b'\n' | b'\r' => b' ',
            b => b,
        }));
        let end = out.len();
        out.push(b'\n');
        (at, end)
    };
    let placed: Vec<Placed> = effects
        .iter()
        .map(|effect| match effect {
            MuxEffect::ToServer { process, message } => {
                let (at, end) = place(message);
                Placed::ToServer {
                    process: *process,
                    at,
                    end,
                }
            }
            MuxEffect::ToClient { attach, message } => {
                let (at, end) = place(message);
                Placed::ToClient {
                    attach: *attach,
                    at,
                    end,
                }
            }
            other => Placed::Other(other),
        })
        .collect();
    let json = serde_json::to_vec(&placed).unwrap_or_else(|_| b"[]".to_vec());
    out.extend_from_slice(&json);
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
                message: "{\"a\":\n1}".into(),
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
