//! The hot path's entry points exactly as the WASM facade exposes them: a
//! message as UTF-8 bytes of its own in, `[effectsJson, ...payloads]` out
//! (`effects_json::split_payloads`). Here, not in the facade, so native tests drive
//! the same code production runs, invalid UTF-8 included. The facade's joined
//! crossings (`clientPost`, `clientMessage`, `messageReceived`) take the
//! `*_compact` forms: the same parts, with the routing and the effects of a
//! warm call in the compact form the host reads without `JSON.parse`
//! (`effects_json::compact_effects`, `wire::compact_routing`). In the router's
//! folder because they hand the bytes to the router's own entries.

use crate::engine::effects::Effect;
use crate::engine::effects_json::{split_compact_into, split_payloads, split_payloads_into};
use crate::engine::events::{ConnId, Endpoint};
use crate::engine::router::{Engine, Outlined};
use crate::engine::wire::{compact_routing, text_of};
use crate::protocol::client_message::{client_body_outlined, client_body_text};
use crate::protocol::modern_http::RequestHeaders;

impl Engine {
    /// [`split_payloads`], and the effects' `Vec` (room for a few 472-byte
    /// `Effect`s) kept for the next event: one allocation less per crossing.
    fn split_recycled(&mut self, effects: Vec<Effect>, compact: bool) -> Vec<String> {
        let mut out = Vec::with_capacity(effects.len() + 1);
        self.split_recycled_into(&mut out, effects, compact);
        out
    }

    /// [`Engine::split_recycled`] appended to `out`; `compact`: the effects in
    /// their compact form when they have one (`split_compact_into`).
    fn split_recycled_into(
        &mut self,
        out: &mut Vec<String>,
        mut effects: Vec<Effect>,
        compact: bool,
    ) {
        if compact {
            split_compact_into(out, &mut effects);
        } else {
            split_payloads_into(out, &mut effects);
        }
        effects.clear();
        if self.effects.capacity() == 0 {
            self.effects = effects;
        }
    }

    /// A gateway client's message, its effects as JSON. `endpoint`: the server
    /// name, or `None` for the aggregate endpoint.
    pub fn client_message_bytes(
        &mut self,
        now_ms: u64,
        client: &str,
        endpoint: Option<String>,
        message: &[u8],
    ) -> Vec<String> {
        self.client_message_split(now_ms, client, endpoint, message, false)
    }

    /// [`Engine::client_message_bytes`] as the facade's `clientMessage` (the
    /// crossing of each `serve --stdio` line) returns it: the effects in their
    /// compact form when they have one, else as JSON.
    pub fn client_message_compact(
        &mut self,
        now_ms: u64,
        client: &str,
        endpoint: Option<String>,
        message: &[u8],
    ) -> Vec<String> {
        self.client_message_split(now_ms, client, endpoint, message, true)
    }

    /// Both entries above: the message served, its effects split (`compact`:
    /// in their compact form when they have one).
    fn client_message_split(
        &mut self,
        now_ms: u64,
        client: &str,
        endpoint: Option<String>,
        message: &[u8],
        compact: bool,
    ) -> Vec<String> {
        let endpoint = endpoint_of(endpoint);
        let effects = self.handle_client_message(now_ms, client, endpoint, &text_of(message));
        self.split_recycled(effects, compact)
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
        let headers: RequestHeaders = headers_json
            .and_then(|h| serde_json::from_str(h).ok())
            .unwrap_or_default();
        let post = (client, endpoint, body, headers, in_session);
        self.client_post_parts(now_ms, post, false)
    }

    /// [`Engine::client_post_bytes`] as the facade's `clientPost` returns it:
    /// the headers as values of their own (no JSON to write and read per call),
    /// the routing ([`compact_routing`]) and the effects in their compact form
    /// when they have one, else as JSON.
    pub fn client_post_compact(
        &mut self,
        now_ms: u64,
        client: &str,
        endpoint: Option<String>,
        body: &[u8],
        headers: RequestHeaders,
        in_session: bool,
    ) -> Vec<String> {
        let post = (client, endpoint, body, headers, in_session);
        self.client_post_parts(now_ms, post, true)
    }

    fn client_post_parts(&mut self, now_ms: u64, post: Post<'_>, compact: bool) -> Vec<String> {
        let (client, endpoint, body, headers, in_session) = post;
        let text = text_of(body);
        let outlined = client_body_outlined(&text, &headers);
        let routed = &outlined.body;
        let mut effects = Vec::new();
        if self.clients.takes_post(routed, in_session) {
            // The session's use: part of the event its first message makes.
            self.clock(now_ms);
            self.on_gateway_post(client);
            let endpoint = endpoint_of(endpoint);
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
        let routing = compact.then(|| compact_routing(&outlined.body)).flatten();
        out.push(routing.unwrap_or_else(|| client_body_text(&outlined.body)));
        self.split_recycled_into(&mut out, effects, compact);
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
        self.split_recycled(effects, false)
    }

    /// [`Engine::message_received_bytes`] with the effects in their compact
    /// form when they have one (the facade's `messageReceived`).
    pub fn message_received_compact(
        &mut self,
        now_ms: u64,
        conn: ConnId,
        message: &[u8],
    ) -> Vec<String> {
        let effects = self.handle_message_received(now_ms, conn, &text_of(message));
        self.split_recycled(effects, true)
    }

    /// HTTP: what upstream connection `conn` received on the reply to request
    /// `request_id`'s POST (WASM `messageReceived` with `reply_of`), handled as
    /// [`Engine::message_received_bytes`]. Element 0 says whether that request
    /// still awaits its answer after it: `"1"`, and the host reports the
    /// reply's end (`replyEnded`); `""`, and that end is nothing to the engine,
    /// so a warm call over HTTP crosses twice (its client's message, this).
    /// Then what `message_received_compact` returns (the facade's form).
    pub fn reply_message_bytes(
        &mut self,
        now_ms: u64,
        conn: ConnId,
        request_id: u64,
        message: &[u8],
    ) -> Vec<String> {
        let mut out = self.message_received_compact(now_ms, conn, message);
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

/// The endpoint the facade names: a server's, or `None` for the aggregate one.
fn endpoint_of(name: Option<String>) -> Endpoint {
    match name {
        Some(name) => Endpoint::Server { name },
        None => Endpoint::Aggregate,
    }
}

/// A POST as the gateway hands it over: client, endpoint, body, its MCP
/// headers, whether it came in a session.
type Post<'a> = (&'a str, Option<String>, &'a [u8], RequestHeaders, bool);
