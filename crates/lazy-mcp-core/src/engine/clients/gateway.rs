//! The client-facing MCP server: answers `initialize` and the lists from the
//! catalogue without touching any upstream, and routes calls through
//! `ensure_connected` (one endpoint per server, or the aggregate endpoint).

use crate::engine::clients::call_out::CallOut;
use crate::engine::clients::context::ClientsContext;
use crate::engine::clients::Clients;
use crate::engine::effects::LogLevel;
use crate::engine::events::{ConnId, Endpoint};
use crate::engine::router::{Engine, Outlined};
use crate::engine::server::auth::input::AuthInput;
use crate::engine::server::calls::ForwardedCall;
use crate::engine::server::{Servers, Subscriber};
use crate::protocol::client_message;
use crate::protocol::jsonrpc::{self, Message};
use crate::protocol::methods;
use crate::protocol::outline::outline;
use crate::protocol::params::Params;
use asked::Asked;
use serde_json::{json, Value};

pub(in crate::engine) mod asked;
mod requests;

/// `serverInfo.name` of the aggregate endpoint.
pub const AGGREGATE_SERVER_NAME: &str = "lazy-mcp";

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

impl Engine {
    /// A client's message, of a text the caller may have read already ([`Outlined`]).
    pub(in crate::engine) fn on_client_message_outlined(
        &mut self,
        client: &str,
        endpoint: Endpoint,
        text: &str,
        read: Outlined<'_>,
    ) {
        self.clients.heard(self.now_ms);
        if self.forward_raw_call(client, &endpoint, text, read) {
            self.clients.request_read(client);
            return;
        }
        let message = match client_message::parse_client(text) {
            Ok(message) => message,
            Err(unreadable) => {
                self.clients.request_read(client);
                self.reply_error(
                    client,
                    unreadable.id,
                    unreadable.code,
                    &client_message::client_error_text(&unreadable.reason),
                );
                return;
            }
        };
        self.clients.message_from(client, &endpoint);
        match message {
            Message::Request {
                id,
                method,
                mut params,
            } => {
                self.clients.request_read(client);
                let (clients, mut ctx) = self.clients_parts();
                if clients.begin_request_era(&mut ctx, client, &id, &method, &mut params) {
                    self.on_client_request(client, &endpoint, id, &method, params);
                    self.clients.end_request_era(client);
                }
            }
            Message::Notification { method, params } => {
                self.on_client_notification(client, &method, params)
            }
            Message::Response { id, outcome } => {
                if let Some((conn, answer)) = self.clients.client_answered(&id, outcome) {
                    self.send_upstream(conn, answer);
                }
            }
        }
    }

    /// Out of line: the raw forwarding's caller stays small.
    #[inline(never)]
    fn on_client_request(
        &mut self,
        client: &str,
        endpoint: &Endpoint,
        id: Value,
        method: &str,
        mut params: Option<Value>,
    ) {
        // A modern client answering a request for input (multi round-trip).
        self.restore_input_state(&mut params);
        if self.take_bridged_retry(client, &id, method, params.as_ref()) {
            return;
        }
        let (clients, mut ctx, served) = self.served_parts();
        match clients.client_request(&mut ctx, served, client, endpoint, id, method, params) {
            Asked::Answered => {}
            Asked::Listened(key, change) => self.listen_opened(client, key, change),
            Asked::Call(server, call) => {
                // A subscription the servers' side answers itself (`{}`).
                let (servers, mut ctx) = self.server_parts();
                if servers.client_subscription(&mut ctx, &server, &call) {
                    let answer = jsonrpc::success(call.client_id().clone(), json!({}));
                    self.reply(call.client(), answer);
                } else {
                    self.route_call(&server, call);
                }
            }
        }
    }

    fn on_client_notification(&mut self, client: &str, method: &str, params: Option<Value>) {
        if method != methods::NOTIFICATIONS_CANCELLED {
            return;
        }
        let Some(request_id) = Params::read(params.as_ref()).request_id.cloned() else {
            return;
        };
        // Whether a request that would still be answered was dropped: it is
        // owed no more (the HTTP gateway stops waiting for it on its own: the
        // body's routing names what a cancellation cancels, `ClientEnvelope::cancels`).
        let (listened, unsubscribe) = self.clients.request_cancelled(client, &request_id);
        if let Some(subscriber) = unsubscribe {
            let (servers, mut ctx) = self.server_parts();
            servers.remove_subscribers(&mut ctx, &|s| *s == subscriber);
        }
        // Still waiting for the connect: just drop it.
        let waited =
            (self.servers).drop_waiters(&|w| w.client() == client && *w.client_id() == request_id);
        let found = (self.clients).cancelled_call(client, &request_id, &self.servers);
        if listened || waited || found.is_some_and(|(_, _, owed)| owed) {
            self.clients.request_dropped(client);
        }
        if let Some((conn, upstream_id, _)) = found {
            self.cancel_call(conn, upstream_id, cancelled_upstream(params, upstream_id));
        }
    }

    pub(in crate::engine) fn on_client_disconnected(&mut self, client: &str) {
        let Some(refusals) = self.clients.client_gone(client) else {
            return;
        };
        self.servers.drop_waiters(&|w| w.client() == client);
        // Its subscriptions and listens end; resources nobody else wants are
        // unsubscribed upstream.
        let (servers, mut ctx) = self.server_parts();
        servers.remove_subscribers(&mut ctx, &|s| match s {
            Subscriber::Client(c) | Subscriber::Listen(c, _) => c == client,
        });
        for (conn, upstream_id) in self.clients.calls_of(client, &self.servers) {
            let notice = cancel_notice(upstream_id, "the client disconnected");
            self.cancel_call(conn, upstream_id, notice);
        }
        for (conn, refusal) in refusals {
            self.send_upstream(conn, refusal);
        }
        let line = format!("client {client} disconnected");
        self.log(LogLevel::Debug, None, line);
    }

    /// The call `upstream_id` on `conn` leaves its connection (its timer off)
    /// and its server is told with `notice`.
    fn cancel_call(&mut self, conn: ConnId, upstream_id: u64, notice: Value) {
        self.servers.end_call(&mut self.timers, conn, upstream_id);
        self.send_upstream(conn, notice);
    }

    /// A forwarded request got no answer in time: error to the client, cancel upstream.
    pub(in crate::engine) fn on_request_timer(
        &mut self,
        conn: crate::engine::events::ConnId,
        upstream_id: u64,
    ) {
        // A call held for a sign-in asked for it (a 401/403 mid-session): its
        // timeout ends the wait and that sign-in (auth.rs).
        if self.servers.call_awaits_sign_in(conn)
            && self.on_auth(None, AuthInput::WaitExpired(conn))
        {
            return;
        }
        let Some(name) = self.servers.server_of(conn).map(str::to_string) else {
            return;
        };
        let Some(call) = self.servers.end_call(&mut self.timers, conn, upstream_id) else {
            return;
        };
        let timeout = self.request_timeout_ms(&name);
        let own = (self.servers.get(&name)).is_some_and(|s| s.config().timeout_ms.is_some());
        let out = self
            .clients
            .call_timed_out((conn, upstream_id), *call, &name, (timeout, own));
        self.carry_out_call(conn, upstream_id, out, None);
    }
}

/// A client's `notifications/cancelled` (its `params`) for the server, of
/// the forwarded call `upstream_id`.
fn cancelled_upstream(params: Option<Value>, upstream_id: u64) -> Value {
    let mut params = params.unwrap_or_else(|| json!({}));
    if let Some(object) = params.as_object_mut() {
        object.insert("requestId".into(), Value::from(upstream_id));
    }
    jsonrpc::notification(methods::NOTIFICATIONS_CANCELLED, Some(params))
}

impl Clients {
    /// `client` cancelled its request `id`: a modern request is forgotten;
    /// an open listen ends (`end_listen`: whether it was one, and the
    /// subscriber to remove).
    fn request_cancelled(&mut self, client: &str, id: &Value) -> (bool, Option<Subscriber>) {
        self.forget_modern_request(client, id);
        self.end_listen(client, id)
    }

    /// The forwarded call `client`'s cancelled request `id` is, when there
    /// is one: its connection, upstream id, and whether an answer to it is
    /// still owed (a call awaiting its retry answered this id already).
    fn cancelled_call(
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
    fn client_gone(&mut self, client: &str) -> Option<Vec<(ConnId, Value)>> {
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
    fn calls_of(&self, client: &str, servers: &Servers) -> Vec<(ConnId, u64)> {
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
