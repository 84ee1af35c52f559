//! The client-facing MCP server: answers `initialize` and the lists from the
//! catalogue without touching any upstream, and routes calls through
//! `ensure_connected` (one endpoint per server, or the aggregate endpoint).

use crate::engine::clients::context::ClientsContext;
use crate::engine::clients::Clients;
use crate::engine::effects::LogLevel;
use crate::engine::events::{ConnId, Endpoint};
use crate::engine::router::{Engine, Outlined};
use crate::engine::server::calls::QueuedCall;
use crate::engine::server::Subscriber;
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
    let params = json!({"requestId": upstream_id, "reason": reason});
    jsonrpc::notification(methods::NOTIFICATIONS_CANCELLED, Some(params))
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
                if !self.track_subscription(&server, &call) {
                    self.route_call(&server, call);
                }
            }
        }
    }

    /// Records `resources/subscribe` / `unsubscribe`. Returns true when the request
    /// was answered here: an unsubscribe while other clients still subscribe, or
    /// either for a connected modern server (its listen is opened again instead).
    fn track_subscription(&mut self, name: &str, call: &QueuedCall) -> bool {
        let Some(uri) =
            crate::engine::server::connect::subscription_uri(call.params()).map(str::to_string)
        else {
            return false;
        };
        if !self.servers.contains_key(name) {
            return false;
        }
        let client = call.client();
        let subscriber = Subscriber::Client(client.to_string());
        let answered_here = match call.method() {
            methods::RESOURCES_SUBSCRIBE => {
                self.servers.subscribe(name, &uri, subscriber);
                false
            }
            // Other clients still subscribe: nothing goes upstream.
            methods::RESOURCES_UNSUBSCRIBE => {
                self.servers.unsubscribe(name, &uri, &subscriber, true)
            }
            _ => return false,
        };
        // Else a connected modern server's listen is opened again instead.
        if !answered_here {
            let (servers, mut ctx) = self.server_parts();
            if !servers.relisten(&mut ctx, name) {
                return false;
            }
        }
        self.reply(
            client,
            jsonrpc::success(call.client_id().clone(), json!({})),
        );
        true
    }

    fn on_client_notification(&mut self, client: &str, method: &str, params: Option<Value>) {
        if method != methods::NOTIFICATIONS_CANCELLED {
            return;
        }
        let Some(request_id) = Params::read(params.as_ref()).request_id.cloned() else {
            return;
        };
        self.clients.forget_modern_request(client, &request_id);
        // Whether a request that would still be answered was dropped: it is
        // owed no more (the HTTP gateway stops waiting for it on its own: the
        // body's routing names what a cancellation cancels, `ClientEnvelope::cancels`).
        let (mut dropped, unsubscribe) = self.clients.end_listen(client, &request_id);
        if let Some(subscriber) = unsubscribe {
            let (servers, mut ctx) = self.server_parts();
            servers.remove_subscribers(&mut ctx, &|s| *s == subscriber);
        }
        // Still waiting for the connect: just drop it.
        dropped |= self
            .servers
            .drop_waiters(&|w| w.client() == client && *w.client_id() == request_id);
        let found = self
            .servers
            .calls()
            .into_iter()
            .find_map(|(conn, upstream_id, call)| {
                (call.client() == client && *call.client_id() == request_id)
                    // A call awaiting its retry answered this id already.
                    .then(|| {
                        let answered = self.clients.awaits_retry(conn, upstream_id);
                        (conn, upstream_id, call.timer(), !answered)
                    })
            });
        if dropped || matches!(found, Some((_, _, _, true))) {
            self.clients.request_dropped(client);
        }
        if let Some((conn, upstream_id, timer, _)) = found {
            self.servers.take_call(conn, upstream_id);
            self.timers.cancel_armed(Some(timer));
            let mut params = params.unwrap_or_else(|| json!({}));
            if let Some(object) = params.as_object_mut() {
                object.insert("requestId".into(), Value::from(upstream_id));
            }
            self.send_upstream(conn, jsonrpc::notification(method, Some(params)));
        }
    }

    pub(in crate::engine) fn on_client_disconnected(&mut self, client: &str) {
        let Some(asked) = self.clients.client_closed(client) else {
            return;
        };
        self.servers.drop_waiters(&|w| w.client() == client);
        // Its subscriptions and listens end; resources nobody else wants are
        // unsubscribed upstream.
        let (servers, mut ctx) = self.server_parts();
        servers.remove_subscribers(&mut ctx, &|s| match s {
            Subscriber::Client(c) | Subscriber::Listen(c, _) => c == client,
        });
        let abandoned: Vec<(u64, u64, u64)> = self
            .servers
            .calls()
            .into_iter()
            // A call waiting for a retry belongs to no client until it comes.
            .filter(|(conn, upstream_id, call)| {
                call.client() == client && !self.clients.awaits_retry(*conn, *upstream_id)
            })
            .map(|(conn, upstream_id, call)| (conn, upstream_id, call.timer()))
            .collect();
        for (conn, upstream_id, timer) in abandoned {
            self.servers.take_call(conn, upstream_id);
            self.timers.cancel_armed(Some(timer));
            self.send_upstream(conn, cancel_notice(upstream_id, "the client disconnected"));
        }
        for id in asked {
            let Some((conn, upstream_id)) = self.clients.take_server_request(&id) else {
                continue;
            };
            self.send_upstream(
                conn,
                jsonrpc::error_response(
                    upstream_id,
                    jsonrpc::INTERNAL_ERROR,
                    "the client that was asked disconnected",
                ),
            );
        }
        self.log(
            LogLevel::Debug,
            None,
            format!("client {client} disconnected"),
        );
    }

    /// A forwarded request got no answer in time: error to the client, cancel upstream.
    pub(in crate::engine) fn on_request_timer(
        &mut self,
        conn: crate::engine::events::ConnId,
        upstream_id: u64,
    ) {
        // A call held for a sign-in asked for it (a 401/403 mid-session): its
        // timeout ends the wait and that sign-in (auth.rs).
        if self.servers.call_awaits_sign_in(conn) && self.sign_in_wait_expired(conn) {
            return;
        }
        let Some(name) = self.servers.server_of(conn).map(str::to_string) else {
            return;
        };
        let Some(call) = self.servers.take_call(conn, upstream_id) else {
            return;
        };
        self.timers.handle_cancel(call.timer());
        if self.clients.awaits_retry(conn, upstream_id) {
            let abandoned = self
                .clients
                .abandon_bridge(conn, upstream_id, call.method());
            self.carry_out_bridge(conn, upstream_id, abandoned.unwrap_or_default(), None);
            return;
        }
        let timeout = self.request_timeout_ms(&name);
        let which = if self
            .servers
            .get(&name)
            .is_some_and(|s| s.config().timeout_ms.is_some())
        {
            "its `timeout`"
        } else {
            "requestTimeoutMs"
        };
        let message = format!(
            "MCP server '{name}' did not answer {} within {timeout} ms ({which}); the request was cancelled",
            call.method()
        );
        let (client, client_id) = call.into_reply_target();
        self.reply_error(&client, client_id, jsonrpc::REQUEST_TIMEOUT, &message);
        self.send_upstream(
            conn,
            cancel_notice(upstream_id, &format!("timed out after {timeout} ms")),
        );
        self.log(crate::engine::effects::LogLevel::Warn, Some(&name), message);
    }
}

impl Clients {
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
