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
    /// The last step's effects (`effects_out`), reused: no allocation and no
    /// fresh `ArrayBuffer` per message; the owner copies out what it keeps.
    out: Vec<u8>,
}

#[wasm_bindgen]
impl SharedOwner {
    /// `graceMs`: how long a used process waits for a next client after its
    /// last one left (`daemon run --grace-ms`; the core's `HANDOVER_GRACE_MS`
    /// when left out); `lingerMs`: how long an owner holding nothing stays
    /// (`--linger-ms`; the core's `sharedOwner.lingerMs` when left out). One
    /// constructor instead of a setter each: fewer exports in the `.wasm`.
    #[wasm_bindgen(constructor)]
    pub fn new(grace_ms: Option<f64>, linger_ms: Option<f64>) -> SharedOwner {
        let mut mux = Mux::new();
        if let Some(ms) = grace_ms {
            mux.set_handover_grace_ms(ms as u64);
        }
        if let Some(ms) = linger_ms {
            mux.set_linger_ms(ms as u64);
        }
        SharedOwner {
            mux,
            out: Vec::new(),
        }
    }

    /// One `MuxEvent` as JSON at `now_ms` (the owner's clock) → where its
    /// effects lie in `memory` (`effects_out`).
    pub fn handle(&mut self, event_json: &str, now_ms: f64) -> u32 {
        let effects = match lazy_mcp_core::tagged_json::from_tagged_json(event_json) {
            Ok(event) => self.mux.at(now_ms as u64).handle(event),
            Err(_) => Vec::new(),
        };
        self.put(effects)
    }

    /// A client attachment's message, its UTF-8 bytes → where its effects lie (`effects_out`).
    #[wasm_bindgen(js_name = clientMessage)]
    pub fn client_message(&mut self, attach: f64, message: &[u8], now_ms: f64) -> u32 {
        let effects = self
            .mux
            .at(now_ms as u64)
            .client_message(attach as u64, &text(message));
        self.put(effects)
    }

    /// A server process's message, its UTF-8 bytes → where its effects lie (`effects_out`).
    #[wasm_bindgen(js_name = serverMessage)]
    pub fn server_message(&mut self, process: f64, message: &[u8], now_ms: f64) -> u32 {
        let effects = self
            .mux
            .at(now_ms as u64)
            .server_message(process as u64, &text(message));
        self.put(effects)
    }

    /// The module's `WebAssembly.Memory`, where the effects lie.
    #[wasm_bindgen(unchecked_return_type = "{ readonly buffer: ArrayBuffer }")]
    pub fn memory(&self) -> JsValue {
        wasm_bindgen::memory()
    }

    /// When the owner exits (`Mux::owner_exit_in`): -1 while it holds
    /// something (`hostHolds`: the owner's sockets not attached and processes
    /// still closing), else the milliseconds left (0: now).
    #[wasm_bindgen(js_name = ownerExitIn)]
    pub fn owner_exit_in(&mut self, now_ms: f64, host_holds: u32) -> i32 {
        self.mux
            .owner_exit_in(now_ms as u64, host_holds as usize)
            .map_or(-1, |ms| i32::try_from(ms).unwrap_or(i32::MAX))
    }

    /// `lazy-mcp daemon status` at `now_ms`: one row per process, JSON.
    pub fn status(&mut self, now_ms: f64) -> String {
        crate::owner_json::status(&self.mux.at(now_ms as u64).status())
    }

    /// The effects into the reused buffer; its address in memory. The list goes
    /// back to the multiplexer for the next step.
    fn put(&mut self, effects: Vec<MuxEffect>) -> u32 {
        effects_out(&effects, &mut self.out);
        self.mux.recycle(effects);
        self.out.as_ptr() as usize as u32
    }
}

impl Default for SharedOwner {
    fn default() -> Self {
        Self::new(None, None)
    }
}

/// Invalid UTF-8 is read with replacement characters, as the host's decoding did.
fn text(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// A message effect's kind in the binary table.
const TO_SERVER: u32 = 1;
const TO_CLIENT: u32 = 2;

/// The effects as bytes into `out` (cleared first): the whole length (u32,
/// little-endian, these 4 bytes included); every message (`M`, its bytes, a
/// newline: a message has none of its own, the client's frame and the server's
/// line split on them); then the effects' table; then the table's JSON length
/// (u32 LE). Offsets count from the start of `out`.
///
/// The usual step gives only messages: its table is binary, no JSON to write or
/// parse — per message 4 × u32 LE (`1` toServer / `2` toClient, the process or
/// attachment, `at`, `end`), then their count (u32 LE), then a JSON length of 0.
/// Any other effect in the step: the whole table as a JSON array instead, a
/// message effect reading `{"type":"toServer","process":P,"at":A,"end":E}` (or
/// `toClient` with `attach`). Either way a message is `out[A..E]`, so
/// `[A-1..E+1]` is the frame to a client and `[A..E+1]` the line to a server.
/// (JSON written by hand: a serde type for it costs the `.wasm` kilobytes.)
fn effects_out(effects: &[MuxEffect], out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(&[0; 4]);
    for (_, _, message) in effects.iter().filter_map(as_message) {
        out.push(b'M');
        out.extend_from_slice(message.as_bytes());
        out.push(b'\n');
    }
    // The messages' places, walked again (no list of them kept): `M` at `at - 1`, the newline at `end`.
    let mut next = 4;
    let mut places = effects
        .iter()
        .filter_map(as_message)
        .map(|(kind, who, message)| {
            let at = next + 1;
            next = at + message.len() + 1;
            (kind, who, offset(at), offset(at + message.len()))
        });
    let binary = effects
        .iter()
        .all(|e| as_message(e).is_some_and(|(_, who, _)| who <= u64::from(u32::MAX)));
    if binary {
        for (kind, who, at, end) in places {
            for n in [kind, who as u32, at, end] {
                out.extend_from_slice(&n.to_le_bytes());
            }
        }
        out.extend_from_slice(&offset(effects.len()).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
    } else {
        let mut json = String::from("[");
        let messages = &mut places;
        for effect in effects {
            if json.len() > 1 {
                json.push(',');
            }
            let key = match effect {
                MuxEffect::ToServer { .. } => "toServer\",\"process",
                MuxEffect::ToClient { .. } => "toClient\",\"attach",
                other => {
                    crate::owner_json::effect(&mut json, other);
                    continue;
                }
            };
            let Some((_, who, at, end)) = messages.next() else {
                continue;
            };
            json.push_str(&format!(
                "{{\"type\":\"{key}\":{who},\"at\":{at},\"end\":{end}}}"
            ));
        }
        json.push(']');
        out.extend_from_slice(json.as_bytes());
        out.extend_from_slice(&offset(json.len()).to_le_bytes());
    }
    let total = offset(out.len()).to_le_bytes();
    if let Some(head) = out.get_mut(..4) {
        head.copy_from_slice(&total);
    }
}

/// A message effect: its kind in the table, its process or attachment, its message.
fn as_message(effect: &MuxEffect) -> Option<(u32, u64, &str)> {
    match effect {
        MuxEffect::ToServer { process, message } => Some((TO_SERVER, *process, message)),
        MuxEffect::ToClient { attach, message } => Some((TO_CLIENT, *attach, message)),
        _ => None,
    }
}

/// An offset or a length in memory (wasm32: it fits).
fn offset(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn u32_at(out: &[u8], at: usize) -> usize {
        u32::from_le_bytes(out[at..at + 4].try_into().unwrap()) as usize
    }

    #[test]
    fn messages_lie_framed_in_the_bytes_and_the_rest_is_json() {
        let mut out = Vec::new();
        effects_out(
            &[
                MuxEffect::ToServer {
                    process: 1,
                    message: "{\"a\": 1}".into(),
                },
                MuxEffect::StopProcess { process: 2 },
                MuxEffect::ToClient {
                    attach: 3,
                    message: "{}".into(),
                },
            ],
            &mut out,
        );
        assert_eq!(u32_at(&out, 0), out.len());
        let len = u32_at(&out, out.len() - 4);
        let json: Value = serde_json::from_slice(&out[out.len() - 4 - len..out.len() - 4]).unwrap();
        assert_eq!(json[0]["type"], "toServer");
        assert_eq!(json[0]["process"], 1);
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

    #[test]
    fn a_step_of_only_messages_has_a_binary_table_and_no_json() {
        let mut out = vec![9; 100];
        effects_out(
            &[
                MuxEffect::ToClient {
                    attach: 7,
                    message: "{\"id\":1}".into(),
                },
                MuxEffect::ToServer {
                    process: 2,
                    message: "{}".into(),
                },
            ],
            &mut out,
        );
        assert_eq!(u32_at(&out, 0), out.len());
        assert_eq!(u32_at(&out, out.len() - 4), 0);
        let count = u32_at(&out, out.len() - 8);
        assert_eq!(count, 2);
        let table = out.len() - 8 - 16 * count;
        let row = |i: usize| {
            (0..4)
                .map(|k| u32_at(&out, table + 16 * i + 4 * k))
                .collect::<Vec<_>>()
        };
        let (first, second) = (row(0), row(1));
        assert_eq!((first[0], first[1]), (2, 7));
        assert_eq!(&out[first[2] - 1..=first[3]], b"M{\"id\":1}\n");
        assert_eq!((second[0], second[1]), (1, 2));
        assert_eq!(&out[second[2]..=second[3]], b"{}\n");
        effects_out(&[], &mut out);
        assert_eq!(out, [12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    }
}
