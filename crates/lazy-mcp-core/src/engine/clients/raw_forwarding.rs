//! The hot path: a client's `tools/call` to a server endpoint and the server's
//! answer to it are forwarded with only the `id` rewritten. The envelope is read
//! (`protocol::raw_message`), the payload is validated and spliced as bytes —
//! never built into a `Value` tree and serialized back. Whenever anything is
//! unusual these return `false` and the full reading (gateway.rs, upstream.rs)
//! handles the message exactly as before, errors included. Here `Clients`'
//! answers (whether a message may go raw, where, and its reply); the router's
//! reading and routing of it are `router/clients/raw_forwarding.rs`.

use crate::engine::clients::context::ClientsContext;
use crate::engine::clients::Clients;
use crate::engine::effects::Effect;
use crate::engine::events::ConnId;
use crate::engine::events::Endpoint;
use crate::engine::server::calls::ForwardedCall;
use crate::engine::server::Servers;
use crate::protocol::client_handshake::ListKind;
use crate::protocol::raw_message::{RawEnvelope, RawOutcome};
use serde_json::Value;

/// Where a raw `tools/call` goes (`Clients::raw_route`).
pub(in crate::engine) enum RawRoute<'a> {
    /// The endpoint's own server, the tool's name as the client sent it.
    Own,
    /// The aggregate endpoint's `server__tool`: `server`, by its `original` name.
    Renamed { server: &'a str, original: &'a str },
}

impl Clients {
    /// Whether a server's answer on `conn` may go back raw: the forwarded
    /// call's upstream id and the answer's outcome, read from `text`. None:
    /// the full reading.
    #[inline]
    pub(in crate::engine) fn raw_answer<'t>(
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
    pub(in crate::engine) fn speaks_on(&self, client: &str, endpoint: &Endpoint) -> bool {
        self.sessions().get(client).map(|s| s.endpoint()) == Some(endpoint)
    }

    /// Where a raw `tools/call` of `tool` on `endpoint` goes: the endpoint's
    /// own server when it exposes the tool, or on the aggregate endpoint the
    /// server the `server__tool` name stands for, with its own name. `None`:
    /// the full reading (an endpoint or tool not exposed; a meta-tool, or a
    /// loaded tool of an `index` server: their arguments are read).
    #[inline]
    pub(in crate::engine) fn raw_route<'a>(
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
        self.outbox().push(Effect::Reply {
            client,
            id,
            http_status: None,
            message,
        });
    }
}
