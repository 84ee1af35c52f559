//! The hot path, routed (`clients/raw_forwarding.rs`): a client's `tools/call`
//! read as its envelope and sent to its server with only the `id` rewritten,
//! and the server's answer spliced back to the client. `Clients` says whether
//! a message may go raw and where (`speaks_on`, `raw_route`, `raw_answer`);
//! this reads the text and carries the call through the servers' side.
//! Whenever anything is unusual these return `false` and the full reading
//! (`gateway.rs`, `server/upstream.rs`) handles the message.

use crate::engine::clients::raw_forwarding::RawRoute;
use crate::engine::events::{ConnId, Endpoint};
use crate::engine::router::{Engine, Outlined};
use crate::engine::server::calls::{CallParams, ForwardedCall, QueuedCall};
use crate::protocol::methods;
use crate::protocol::outline::outline;
use crate::protocol::raw_message::{splice_response, CallPeek, RawEnvelope};
use serde_json::Value;
use std::borrow::Cow;

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
        self.with_clients(|clients, ctx| clients.answer_call(ctx, call, answer));
    }
}

/// Depth first, as for every message (deeper input is refused by the full reading),
/// and no number the full reading might refuse as out of range (`1e999`): the raw
/// path validates syntax, serde_json's `Value` also the range of numbers.
fn plain_enough(text: &str) -> bool {
    outline(text).is_plain()
}
