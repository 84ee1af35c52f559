//! The hot path: a client's `tools/call` to a server endpoint and the server's
//! answer to it are forwarded with only the `id` rewritten. The envelope is read
//! (`protocol::raw_message`), the payload is validated and spliced as bytes —
//! never built into a `Value` tree and serialized back. Whenever anything is
//! unusual these return `false` and the full reading (gateway.rs, upstream.rs)
//! handles the message exactly as before, errors included.

use crate::engine::clients::context::ClientsContext;
use crate::engine::clients::Clients;
use crate::engine::effects::Effect;
use crate::engine::events::ConnId;
use crate::engine::events::Endpoint;
use crate::engine::router::{Engine, Outlined};
use crate::engine::server::calls::CallParams;
use crate::engine::server::calls::ForwardedCall;
use crate::engine::server::calls::QueuedCall;
use crate::engine::server::Servers;
use crate::protocol::client_handshake::ListKind;
use crate::protocol::methods;
use crate::protocol::outline::outline;
use crate::protocol::raw_message::{splice_response, CallPeek, RawEnvelope, RawOutcome};
use serde_json::Value;
use std::borrow::Cow;

/// Where a raw `tools/call` goes (`Clients::raw_route`).
enum RawRoute<'a> {
    /// The endpoint's own server, the tool's name as the client sent it.
    Own,
    /// The aggregate endpoint's `server__tool`: `server`, by its `original` name.
    Renamed { server: &'a str, original: &'a str },
}

impl Engine {
    /// A `tools/call` from an initialized client for an exposed tool: routed with
    /// its params as the client sent them (on the aggregate endpoint with only the
    /// `server__tool` name spliced back to the server's own name). `read`: what
    /// the caller read of `text` already (anything not read is read here).
    /// Whether it may go raw, and where, is `Clients`' answer (`speaks_on`,
    /// `raw_route`); this reads the message and routes.
    pub(in crate::engine) fn forward_raw_call<'a>(
        &mut self,
        client: &str,
        endpoint: &Endpoint,
        text: &'a str,
        read: Outlined<'a>,
    ) -> bool {
        if !self.clients.speaks_on(client, endpoint) {
            return false;
        }
        if !read.plain && !plain_enough(text) {
            return false;
        }
        let (envelope, call) = match read.envelope {
            Some(read) => (read.envelope, read.call),
            None => match RawEnvelope::read(text) {
                Some(envelope) => (envelope, None),
                None => return false,
            },
        };
        if !envelope.is_version_2() || envelope.method.as_deref() != Some(methods::TOOLS_CALL) {
            return false;
        }
        let (Some(id), Some(params)) = (envelope.plain_id(), envelope.params) else {
            return false;
        };
        let Some(peek) = call.or_else(|| CallPeek::read(params)) else {
            return false;
        };
        // A modern-era (2026-07-28) request has its envelope checked and removed: full reading.
        if peek.is_modern() {
            return false;
        }
        let Some(tool) = peek.name() else {
            return false;
        };
        let (server, text) = match self.clients.raw_route(endpoint, &tool, &self.servers) {
            // The endpoint's own name, borrowed: not copied per call.
            Some(RawRoute::Own) => match endpoint {
                Endpoint::Server { name } => (Cow::Borrowed(name.as_str()), params.get().into()),
                Endpoint::Aggregate => return false,
            },
            Some(RawRoute::Renamed { server, original }) => {
                let Some(renamed) = peek.with_name(original) else {
                    return false;
                };
                (Cow::Owned(server.to_string()), renamed)
            }
            None => return false,
        };
        let progress_token = peek.progress_token();
        self.route_call(
            &server,
            QueuedCall::new(
                client.to_string(),
                id,
                methods::TOOLS_CALL.to_string(),
                CallParams::Raw {
                    text,
                    progress_token,
                    tool: tool.into(),
                },
            ),
        );
        true
    }

    /// A server's answer to a forwarded call: back to its client with the
    /// client's id (`Clients::raw_answer` says whether it may go raw).
    pub(in crate::engine) fn forward_raw_response(&mut self, conn: ConnId, text: &str) -> bool {
        let Some((id, outcome)) = self.clients.raw_answer(conn, text, &self.servers) else {
            return false;
        };
        let Some(call) = self.servers.take_call(conn, id) else {
            return false;
        };
        self.finish_call(conn, *call, |client_id| splice_response(client_id, outcome));
        true
    }

    /// A forwarded call is answered: timer off, stats, the reply to its client
    /// (`Clients::answer_call`).
    pub(in crate::engine) fn finish_call(
        &mut self,
        conn: ConnId,
        call: ForwardedCall,
        answer: impl FnOnce(&Value) -> String,
    ) {
        (self.servers).call_served(&mut self.timers, conn, &call, self.now_ms);
        let (clients, mut ctx) = self.clients_parts();
        clients.answer_call(&mut ctx, call, answer);
    }
}

impl Clients {
    /// Whether a server's answer on `conn` may go back raw: the forwarded
    /// call's upstream id and the answer's outcome, read from `text`. None:
    /// the full reading.
    #[inline]
    fn raw_answer<'t>(
        &self,
        conn: ConnId,
        text: &'t str,
        servers: &Servers,
    ) -> Option<(u64, RawOutcome<'t>)> {
        // Plain (`plain_enough`) and read in one pass when the hand reading takes it.
        let envelope = RawEnvelope::read_if_plain(text)?;
        let outcome = envelope.response()?;
        // Our ids are integers; tolerate a server that echoes them as strings.
        let id = envelope.plain_id().and_then(|id| {
            id.as_u64()
                .or_else(|| id.as_str().and_then(|t| t.parse().ok()))
        })?;
        // A modern server's answer may ask for input or say the era changed: full reading.
        if servers.is_modern(conn) {
            return None;
        }
        // A call bridged to a modern client's input answers (`input_bridge.rs`): full reading.
        if servers.call(conn, id).is_none() || self.is_bridged(conn, id) {
            return None;
        }
        Some((id, outcome))
    }

    /// Whether `client`'s session speaks on `endpoint` (its calls there may go raw).
    #[inline]
    fn speaks_on(&self, client: &str, endpoint: &Endpoint) -> bool {
        self.sessions().get(client).map(|s| s.endpoint()) == Some(endpoint)
    }

    /// Where a raw `tools/call` of `tool` on `endpoint` goes: the endpoint's
    /// own server when it exposes the tool, or on the aggregate endpoint the
    /// server the `server__tool` name stands for, with its own name. `None`:
    /// the full reading (an endpoint or tool not exposed; a meta-tool, or a
    /// loaded tool of an `index` server: their arguments are read).
    #[inline]
    fn raw_route<'a>(
        &'a self,
        endpoint: &Endpoint,
        tool: &str,
        servers: &Servers,
    ) -> Option<RawRoute<'a>> {
        if !servers.is_exposed_endpoint(endpoint) {
            return None;
        }
        match endpoint {
            Endpoint::Server { name } => servers
                .get(name)
                .is_some_and(|s| s.exposes_tool(tool))
                .then_some(RawRoute::Own),
            Endpoint::Aggregate => {
                let exposure = self.exposure();
                let Some((server, Value::String(original))) =
                    exposure.aggregate_route(ListKind::Tools, tool)
                else {
                    return None;
                };
                if exposure.meta_tool(tool).is_some() || exposure.is_indexed(server) {
                    return None;
                }
                Some(RawRoute::Renamed { server, original })
            }
        }
    }

    /// A forwarded call is answered: the reply to its client, built only when
    /// that client is still there.
    pub(in crate::engine) fn answer_call(
        &mut self,
        ctx: &mut ClientsContext<'_>,
        call: ForwardedCall,
        answer: impl FnOnce(&Value) -> String,
    ) {
        if !self.is_attached(call.client()) {
            return;
        }
        let message = answer(call.client_id());
        // A modern-era request's answer is stamped (`resultType`): rare, and
        // the only case that reads the answer back.
        if self.is_modern_request(call.client(), call.client_id()) {
            if let Ok(value) = serde_json::from_str(&message) {
                self.reply(ctx, call.client(), value);
                return;
            }
        }
        self.answered(ctx.now_ms);
        let (client, id) = call.into_reply_target();
        ctx.effects.push(Effect::Reply {
            client,
            id,
            http_status: None,
            message,
        });
    }
}

/// Depth first, as for every message (deeper input is refused by the full reading),
/// and no number the full reading might refuse as out of range (`1e999`): the raw
/// path validates syntax, serde_json's `Value` also the range of numbers.
fn plain_enough(text: &str) -> bool {
    outline(text).is_plain()
}
