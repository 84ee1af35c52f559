//! The client-facing MCP server: answers `initialize` and the lists from the
//! catalogue without touching any upstream, and routes calls through
//! `ensure_connected` (one endpoint per server, or the aggregate endpoint).

use crate::engine::clients::call_out::CallOut;
use crate::engine::clients::context::ClientsContext;
use crate::engine::clients::Clients;
use crate::engine::effects::LogLevel;
use crate::engine::events::ConnId;
use crate::engine::server::calls::ForwardedCall;
use crate::engine::server::{Servers, Subscriber};
use crate::protocol::jsonrpc::{self, Message};
use crate::protocol::methods;
use crate::protocol::outline::outline;
use serde_json::Value;

mod requests;

/// `notifications/cancelled` of request `upstream_id` to a server (one copy
/// of the message's building for every caller).
pub(in crate::engine) fn cancel_notice(upstream_id: u64, reason: &str) -> Value {
    // Built member by member: a `json!` of it cost the `.wasm` more.
    let mut params = serde_json::Map::new();
    params.insert("requestId".into(), Value::from(upstream_id));
    params.insert("reason".into(), Value::from(reason));
    jsonrpc::notification(
        methods::NOTIFICATIONS_CANCELLED,
        Some(Value::Object(params)),
    )
}

impl Clients {
    /// `client` cancelled its request `id`: a modern request is forgotten;
    /// an open listen ends (`end_listen`: whether it was one, and the
    /// subscriber to remove).
    pub(in crate::engine) fn request_cancelled(
        &mut self,
        client: &str,
        id: &Value,
    ) -> (bool, Option<Subscriber>) {
        self.forget_modern_request(client, id);
        self.end_listen(client, id)
    }

    /// The forwarded call `client`'s cancelled request `id` is, when there
    /// is one: its connection, upstream id, and whether an answer to it is
    /// still owed (a call awaiting its retry answered this id already).
    pub(in crate::engine) fn cancelled_call(
        &self,
        client: &str,
        id: &Value,
        servers: &Servers,
    ) -> Option<(ConnId, u64, bool)> {
        servers
            .calls()
            .into_iter()
            .find_map(|(conn, upstream_id, call)| {
                (call.client() == client && call.client_id() == id)
                    .then(|| (conn, upstream_id, !self.awaits_retry(conn, upstream_id)))
            })
    }

    /// `client` disconnected (`client_closed`): the refusals of the server
    /// requests it was asked, each for its connection; `None` for a client
    /// never seen.
    pub(in crate::engine) fn client_gone(&mut self, client: &str) -> Option<Vec<(ConnId, Value)>> {
        let asked = self.client_closed(client)?;
        let why = "the client that was asked disconnected";
        let mut refusals = Vec::new();
        for id in asked {
            if let Some((conn, upstream_id)) = self.take_server_request(&id) {
                let refusal = jsonrpc::error_response(upstream_id, jsonrpc::INTERNAL_ERROR, why);
                refusals.push((conn, refusal));
            }
        }
        Some(refusals)
    }

    /// The forwarded calls of `client` (gone): a call waiting for a retry
    /// belongs to no client until it comes.
    pub(in crate::engine) fn calls_of(
        &self,
        client: &str,
        servers: &Servers,
    ) -> Vec<(ConnId, u64)> {
        let mut of = Vec::new();
        for (conn, upstream_id, call) in servers.calls() {
            if call.client() == client && !self.awaits_retry(conn, upstream_id) {
                of.push((conn, upstream_id));
            }
        }
        of
    }

    /// The call `upstream_id` on `conn` (of server `name`) got no answer
    /// within `timeout` ms (`own`: its server's `timeout` key, else
    /// `requestTimeoutMs`): its client is answered with an error and the
    /// server told it is cancelled; a call waiting for its client's retry
    /// ends its bridge instead.
    pub(in crate::engine) fn call_timed_out(
        &mut self,
        (conn, upstream_id): (ConnId, u64),
        call: ForwardedCall,
        name: &str,
        (timeout, own): (u64, bool),
    ) -> Vec<CallOut> {
        if self.awaits_retry(conn, upstream_id) {
            let abandoned = self.abandon_bridge(conn, upstream_id, call.method());
            return abandoned.unwrap_or_default();
        }
        let which = if own {
            "its `timeout`"
        } else {
            "requestTimeoutMs"
        };
        let message = format!(
            "MCP server '{name}' did not answer {} within {timeout} ms ({which}); the request was cancelled",
            call.method()
        );
        let (client, client_id) = call.into_reply_target();
        let error = jsonrpc::error_response(client_id, jsonrpc::REQUEST_TIMEOUT, &message);
        let reason = format!("timed out after {timeout} ms");
        vec![
            CallOut::Reply(client, error),
            CallOut::Send(cancel_notice(upstream_id, &reason)),
            CallOut::Log(LogLevel::Warn, message),
        ]
    }

    /// A client answered a server-to-client request (sampling, elicitation)
    /// by the id the gateway gave it: the answer for its server, and the
    /// connection it goes to. Out of line: the raw forwarding's caller stays small.
    #[inline(never)]
    pub(in crate::engine) fn client_answered(
        &mut self,
        id: &Value,
        outcome: Result<Value, Value>,
    ) -> Option<(ConnId, Value)> {
        let (conn, upstream_id) = self.take_server_request(id.as_str()?)?;
        let answer = Message::Response {
            id: upstream_id,
            outcome,
        };
        Some((conn, answer.into_value()))
    }

    /// A message longer than the host's limit: answered (with its id when the head
    /// shows one) without being read further.
    pub(in crate::engine) fn message_too_large(
        &mut self,
        ctx: &mut ClientsContext<'_>,
        client: &str,
        head: &str,
        bytes: u64,
        limit_bytes: u64,
    ) {
        let id = outline(head).id.unwrap_or(Value::Null);
        self.request_read(client);
        self.reply_error(
            ctx,
            client,
            id,
            jsonrpc::INVALID_REQUEST,
            &format!("Lazy MCP did not read a message of {bytes} bytes: the limit is {limit_bytes} bytes"),
        );
    }
}
