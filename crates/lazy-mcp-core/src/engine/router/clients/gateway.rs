//! A client's message, routed (`clients/gateway.rs`): the raw forwarding
//! first, else the full reading; a request goes to `Clients`, and what it
//! asks of the servers' side (a call routed, a subscription answered, a
//! listen followed) is carried out here, as are a cancellation, a client gone
//! and a call's timeout (each touches the servers' calls and connections).

use crate::engine::clients::asked::Asked;
use crate::engine::clients::context::ClientsContext;
use crate::engine::clients::gateway::cancel_notice;
use crate::engine::clients::Clients;
use crate::engine::effects::LogLevel;
use crate::engine::events::{ConnId, Endpoint};
use crate::engine::router::{Engine, Outlined};
use crate::engine::server::auth::input::AuthInput;
use crate::engine::server::Subscriber;
use crate::protocol::client_message;
use crate::protocol::jsonrpc::{self, Message};
use crate::protocol::methods;
use crate::protocol::params::Params;
use serde_json::{json, Value};

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
                let era = |clients: &mut Clients, ctx: &mut ClientsContext<'_>| {
                    clients.begin_request_era(ctx, client, &id, &method, &mut params)
                };
                if self.with_clients(era) {
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
        let asked = self.with_served(|clients, ctx, served| {
            clients.client_request(ctx, served, client, endpoint, id, method, params)
        });
        match asked {
            Asked::Answered => {}
            Asked::Listened(key, change) => self.listen_opened(client, key, change),
            Asked::Call(server, call) => {
                // A subscription the servers' side answers itself (`{}`).
                if self
                    .with_servers(|servers, ctx| servers.client_subscription(ctx, &server, &call))
                {
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
            self.with_servers(|servers, ctx| {
                servers.remove_subscribers(ctx, &|s| *s == subscriber)
            });
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
        self.with_servers(|servers, ctx| {
            servers.remove_subscribers(ctx, &|s| match s {
                Subscriber::Client(c) | Subscriber::Listen(c, _) => c == client,
            })
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
