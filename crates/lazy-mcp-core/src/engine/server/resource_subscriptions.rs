//! Who wants `notifications/resources/updated` for a server's resource, and
//! keeping the server's own subscriptions in step with that.
//!
//! Two kinds of subscriber share one table per server (URI → subscribers): a
//! legacy client's `resources/subscribe` (`gateway.rs`) and a modern client's
//! `subscriptions/listen` naming the URI in `resourceSubscriptions`
//! (`client_listens.rs`). Lazy MCP subscribes upstream once per URI, however
//! many subscribers it has: on a connected legacy server with
//! `resources/subscribe`, on a modern one in its own `subscriptions/listen`
//! (`era.rs`); a server that is not connected is subscribed when it next
//! connects (`connect.rs`) — a subscription never starts a server. When the
//! last subscriber of a URI goes, the server is unsubscribed. The table and
//! those decisions are `Subscriptions`' (`machines/resource_subscriptions/table.rs`);
//! this file carries them out.

use crate::engine::effects::Effect;
use crate::engine::server::calls::QueuedCall;
use crate::engine::server::connect::subscription_uri;
use crate::engine::server::ctx::ServerCtx;
use crate::engine::server::pending::Pending;
use crate::engine::server::{Servers, Subscriber};
use crate::engine::state::ServerState;
use crate::protocol::jsonrpc;
use crate::protocol::listen_tag::listen_notification;
use crate::protocol::methods;
use crate::protocol::params::Params;
use crate::vec_map::VecSet;
use serde_json::{json, Value};

impl Servers {
    /// A client's request `call` for `name`, when it is a `resources/subscribe`
    /// or `unsubscribe`: the client's subscription is recorded. Returns true
    /// when it is answered here with `{}` (the router replies) rather than
    /// routed to the server: an unsubscribe while other clients still
    /// subscribe (nothing goes upstream), or either for a connected modern
    /// server (its listen is opened again instead).
    pub(in crate::engine) fn client_subscription(
        &mut self,
        ctx: &mut ServerCtx,
        name: &str,
        call: &QueuedCall,
    ) -> bool {
        let Some(uri) = subscription_uri(call.params()) else {
            return false;
        };
        if !self.contains_key(name) {
            return false;
        }
        let uri = uri.to_string();
        let subscriber = Subscriber::Client(call.client().to_string());
        let answered_here = match call.method() {
            methods::RESOURCES_SUBSCRIBE => {
                self.subscribe(name, &uri, subscriber);
                false
            }
            // Other clients still subscribe: nothing goes upstream.
            methods::RESOURCES_UNSUBSCRIBE => self.unsubscribe(name, &uri, &subscriber, true),
            _ => return false,
        };
        // Else a connected modern server's listen is opened again instead.
        answered_here || self.relisten(ctx, name)
    }

    /// Removes the subscribers `gone` says, on every server; the servers whose
    /// subscribed URIs changed are brought in step.
    pub(in crate::engine) fn remove_subscribers(
        &mut self,
        ctx: &mut ServerCtx,
        gone: &dyn Fn(&Subscriber) -> bool,
    ) {
        // Only servers with such a subscriber (a modern HTTP client goes away
        // after each request: this costs nothing when it subscribed to nothing).
        let names: Vec<String> = self
            .iter()
            .filter(|(_, s)| s.subscriptions().has_subscriber(gone))
            .map(|(name, _)| name.clone())
            .collect();
        for name in names {
            let before = self.subscribed_uris(&name);
            let Some(server) = self.server_mut(&name) else {
                continue;
            };
            server.subscribers_gone(gone);
            self.sync_upstream_subscriptions(ctx, &name, &before);
        }
    }

    /// Subscribes a connected server to the URIs that gained their first
    /// subscriber since `before`, and unsubscribes it from those that lost
    /// their last: a legacy server with `resources/subscribe`/`unsubscribe`, a
    /// modern one by listening again with the new URIs. A server that is not
    /// connected gets them when it connects.
    pub(in crate::engine) fn sync_upstream_subscriptions(
        &mut self,
        ctx: &mut ServerCtx,
        name: &str,
        before: &VecSet<String>,
    ) {
        let Some(server) = self.get(name) else {
            return;
        };
        let change = server.subscriptions().upstream_change(before);
        if change.is_empty() {
            return;
        }
        let conn = match server.state() {
            ServerState::Connected => server.connect().conn(),
            _ => None,
        };
        let Some(conn) = conn else {
            return;
        };
        if self.is_modern(conn) {
            self.listen_for_changes(ctx, conn);
            return;
        }
        let subscribe = change
            .subscribe
            .into_iter()
            .map(|uri| (methods::RESOURCES_SUBSCRIBE, uri));
        let unsubscribe = change
            .unsubscribe
            .into_iter()
            .map(|uri| (methods::RESOURCES_UNSUBSCRIBE, uri));
        for (method, uri) in subscribe.chain(unsubscribe) {
            let params = Some(json!({ "uri": uri }));
            self.send_request(ctx, conn, method, params, Pending::Internal);
        }
    }

    /// `notifications/resources/updated` from `name` (without the upstream
    /// listen's tag): to each subscriber of its URI, a listen tagged with its
    /// id. With no subscriber (a server that tells anyway) it goes to the
    /// server's legacy clients, as before; a modern client gets only what its
    /// listens asked for.
    pub(in crate::engine) fn deliver_resource_updated(
        &mut self,
        ctx: &mut ServerCtx,
        name: &str,
        params: Option<Value>,
    ) {
        let method = methods::NOTIFICATIONS_RESOURCES_UPDATED;
        let uri = Params::read(params.as_ref()).uri;
        let subscribers: Vec<Subscriber> = uri
            .and_then(|uri| Some(self.get(name)?.subscriptions().subscribers_of(uri)))
            .unwrap_or_default();
        // As `Engine::notify_client` writes it (no progress token: not a progress notice).
        let notify = |client: &str| Effect::NotifyClient {
            client: client.to_string(),
            progress_token: None,
            request: None,
            message: jsonrpc::notification(method, params.clone()).to_string(),
        };
        if subscribers.is_empty() {
            for client in ctx.clients.of_server(name) {
                if !ctx.clients.is_modern_client(&client) {
                    self.outbox().push(notify(&client));
                }
            }
            return;
        }
        for subscriber in subscribers {
            match &subscriber {
                Subscriber::Client(client) => self.outbox().push(notify(client)),
                Subscriber::Listen(client, key) => {
                    let id = ctx.clients.listen_id(subscriber.client(), key);
                    if let Some(id) = id {
                        // On the listen's own stream, as `clients/client_listens.rs` sends.
                        let message = listen_notification(&id, method, params.clone());
                        self.outbox().push(Effect::NotifyClient {
                            client: client.to_string(),
                            progress_token: None,
                            request: Some(Box::new(id)),
                            message: message.to_string(),
                        });
                    }
                }
            }
        }
    }

    /// The URIs of `name` that have subscribers now.
    pub(in crate::engine) fn subscribed_uris(&self, name: &str) -> VecSet<String> {
        self.get(name)
            .map(|s| s.subscriptions().uris())
            .unwrap_or_default()
    }
}
