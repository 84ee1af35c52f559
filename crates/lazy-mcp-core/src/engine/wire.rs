//! The hot path's entry points exactly as the WASM facade exposes them: a
//! message as UTF-8 bytes of its own in, `[effectsJson, ...payloads]` out
//! (`effects_json::split_payloads`). Here, not in the facade, so native tests drive
//! the same code production runs, invalid UTF-8 included.

use crate::engine::effects::Effect;
use crate::engine::effects_json::{split_payloads, split_payloads_into};
use crate::engine::events::{ConnId, Endpoint};
use crate::engine::router::{Engine, Outlined};
use crate::protocol::client_message::{client_body_outlined, client_body_text};
use crate::protocol::modern_http::RequestHeaders;
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

impl Engine {
    /// [`split_payloads`], and the effects' `Vec` (room for a few 472-byte
    /// `Effect`s) kept for the next event: one allocation less per crossing.
    fn split_recycled(&mut self, effects: Vec<Effect>) -> Vec<String> {
        let mut out = Vec::with_capacity(effects.len() + 1);
        self.split_recycled_into(&mut out, effects);
        out
    }

    /// [`Engine::split_recycled`] appended to `out`.
    fn split_recycled_into(&mut self, out: &mut Vec<String>, mut effects: Vec<Effect>) {
        split_payloads_into(out, &mut effects);
        effects.clear();
        if self.effects.capacity() == 0 {
            self.effects = effects;
        }
    }

    /// A gateway client's message (WASM `clientMessage`). `endpoint`: the server
    /// name, or `None` for the aggregate endpoint.
    pub fn client_message_bytes(
        &mut self,
        now_ms: u64,
        client: &str,
        endpoint: Option<String>,
        message: &[u8],
    ) -> Vec<String> {
        let endpoint = match endpoint {
            Some(name) => Endpoint::Server { name },
            None => Endpoint::Aggregate,
        };
        let effects = self.handle_client_message(now_ms, client, endpoint, &text_of(message));
        split_payloads(effects)
    }

    /// A gateway client's HTTP POST body (WASM `clientPost`), read and served in
    /// one crossing: element 0 is the body's routing (`ClientBody` JSON: what the
    /// gateway answers and waits for), then what [`Engine::client_message_bytes`]
    /// returns for its messages, in order. The messages are served only when
    /// the gateway will take the body: not refused with an HTTP status (a single
    /// modern-era request's envelope or headers) and either in a session
    /// (`in_session`), starting one (an `initialize`), or sessionless. Otherwise
    /// the effects are empty and the gateway answers from the routing alone.
    pub fn client_post_bytes(
        &mut self,
        now_ms: u64,
        client: &str,
        endpoint: Option<String>,
        body: &[u8],
        headers_json: Option<&str>,
        in_session: bool,
    ) -> Vec<String> {
        let text = text_of(body);
        let headers: RequestHeaders = headers_json
            .and_then(|h| serde_json::from_str(h).ok())
            .unwrap_or_default();
        let outlined = client_body_outlined(&text, &headers);
        let routed = &outlined.body;
        let refused = !routed.batch
            && routed
                .messages
                .first()
                .and_then(|m| m.error.as_ref())
                .is_some_and(|e| e.status.is_some());
        let taken = !refused && (in_session || routed.opens_session || routed.sessionless);
        let mut effects = Vec::new();
        if taken {
            // The session's use: part of the event its first message makes.
            self.now_ms = now_ms;
            self.on_gateway_post(client);
            let endpoint = match endpoint {
                Some(name) => Endpoint::Server { name },
                None => Endpoint::Aggregate,
            };
            if routed.batch {
                for message in &routed.messages {
                    let text = message.text.as_deref().unwrap_or_default();
                    effects.extend(self.handle_client_message(
                        now_ms,
                        client,
                        endpoint.clone(),
                        text,
                    ));
                }
            } else {
                let read = Outlined {
                    plain: outlined.plain,
                    envelope: outlined.envelope,
                };
                effects =
                    self.handle_client_message_outlined(now_ms, client, endpoint, &text, read);
            }
            if routed.messages.is_empty() {
                effects = self.finish_event();
            }
        }
        let mut out = Vec::with_capacity(effects.len() + 2);
        out.push(client_body_text(&outlined.body));
        self.split_recycled_into(&mut out, effects);
        out
    }

    /// What upstream connection `conn` received (WASM `messageReceived`).
    pub fn message_received_bytes(
        &mut self,
        now_ms: u64,
        conn: ConnId,
        message: &[u8],
    ) -> Vec<String> {
        let effects = self.handle_message_received(now_ms, conn, &text_of(message));
        self.split_recycled(effects)
    }

    /// HTTP: what upstream connection `conn` received on the reply to request
    /// `request_id`'s POST (WASM `messageReceived` with `reply_of`), handled as
    /// [`Engine::message_received_bytes`]. Element 0 says whether that request
    /// still awaits its answer after it: `"1"`, and the host reports the
    /// reply's end (`replyEnded`); `""`, and that end is nothing to the engine,
    /// so a warm call over HTTP crosses twice (its client's message, this).
    /// Then what `message_received_bytes` returns.
    pub fn reply_message_bytes(
        &mut self,
        now_ms: u64,
        conn: ConnId,
        request_id: u64,
        message: &[u8],
    ) -> Vec<String> {
        let mut out = self.message_received_bytes(now_ms, conn, message);
        let awaited = self.servers.reply_awaited(&self.clients, conn, request_id);
        out.insert(0, if awaited { "1" } else { "" }.to_string());
        out
    }

    /// The persisted catalogue (WASM `catalogueLoaded`) as the bytes of its file:
    /// it is JSON, so escaped inside an event's JSON it doubled its quotes and
    /// the core unescaped it again.
    pub fn catalogue_loaded_bytes(&mut self, now_ms: u64, blob: &[u8]) -> Vec<String> {
        let blob = text_of(blob).into_owned();
        let effects = self.handle(
            now_ms,
            crate::engine::events::Event::CatalogueLoaded { blob },
        );
        split_payloads(effects)
    }
}
