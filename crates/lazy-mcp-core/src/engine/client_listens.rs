//! `subscriptions/listen` from clients of MCP 2026-07-28: the era's one channel
//! for change notifications (it replaced the HTTP GET stream). A listen names
//! the notifications it wants; the gateway acknowledges the subset it honours
//! (list changes; not resource subscriptions), then sends only those, each
//! tagged with the listen's request id. The request stays open until the
//! client cancels it or goes away; over HTTP its messages ride that request's
//! own stream (the `notifyClient` effect's `request`).

use super::Engine;
use crate::protocol::jsonrpc;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The `_meta` key that ties a message to its listen.
pub const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";

/// At most this many open listens per client: each is kept until the client
/// cancels it, so a client cannot grow the gateway's memory without bound.
pub(super) const MAX_LISTENS_PER_CLIENT: usize = 8;

/// A client's open listens: request id (as JSON text) → (the id, the
/// `list_changed` notifications it wants).
pub(super) type Listens = BTreeMap<String, (Value, BTreeSet<&'static str>)>;

/// The filter keys the gateway honours, and the notification each stands for.
const HONOURED: [(&str, &str); 3] = [
    ("toolsListChanged", "notifications/tools/list_changed"),
    ("promptsListChanged", "notifications/prompts/list_changed"),
    (
        "resourcesListChanged",
        "notifications/resources/list_changed",
    ),
];

impl Engine {
    /// A `subscriptions/listen` request. `modern`: it came with the era's envelope.
    pub(super) fn on_listen(
        &mut self,
        client: &str,
        id: Value,
        params: Option<&Value>,
        modern: bool,
    ) {
        if !modern {
            let why = "Method not found: subscriptions/listen is a request of protocol revision 2026-07-28 (send it with the _meta envelope)";
            self.reply_error(client, id, jsonrpc::METHOD_NOT_FOUND, why);
            return;
        }
        let filter = match read_filter(params) {
            Ok(filter) => filter,
            Err(why) => {
                self.forget_modern_request(client, &id);
                self.reply_error(client, id, jsonrpc::INVALID_PARAMS, &why);
                return;
            }
        };
        let open = self.clients.get(client).map_or(0, |s| s.listens.len());
        if open >= MAX_LISTENS_PER_CLIENT && !self.is_listening(client, &id) {
            self.forget_modern_request(client, &id);
            let why = format!(
                "Too many open subscriptions/listen requests (at most {MAX_LISTENS_PER_CLIENT} per client): cancel one first"
            );
            self.reply_error(client, id, jsonrpc::INVALID_REQUEST, &why);
            return;
        }
        let honoured: Map<String, Value> = filter
            .iter()
            .map(|key| ((*key).to_string(), Value::Bool(true)))
            .collect();
        let methods: BTreeSet<&'static str> = HONOURED
            .iter()
            .filter(|(key, _)| filter.contains(key))
            .map(|(_, method)| *method)
            .collect();
        if let Some(session) = self.clients.get_mut(client) {
            session
                .listens
                .insert(id.to_string(), (id.clone(), methods));
        }
        let ack = jsonrpc::notification(
            "notifications/subscriptions/acknowledged",
            Some(json!({ "notifications": honoured, "_meta": { SUBSCRIPTION_ID_KEY: id } })),
        );
        self.notify_listen(client, &id, ack);
    }

    fn is_listening(&self, client: &str, id: &Value) -> bool {
        self.clients
            .get(client)
            .is_some_and(|s| s.listens.contains_key(&id.to_string()))
    }

    /// The client cancelled a request: when it was a listen, it ends (no answer).
    /// True when it was an open listen.
    pub(super) fn end_listen(&mut self, client: &str, id: &Value) -> bool {
        self.clients
            .get_mut(client)
            .is_some_and(|session| session.listens.remove(&id.to_string()).is_some())
    }

    /// A list changed for `client`: a client of the modern era gets it on each
    /// listen that asked for it (tagged), and nothing else (the era has no other
    /// channel for it); a legacy client as before.
    pub(super) fn notify_list_changed(&mut self, client: &str, method: &'static str) {
        let listens: Option<Vec<Value>> = self.clients.get(client).and_then(|s| {
            (s.modern.seen() || !s.listens.is_empty()).then(|| {
                s.listens
                    .values()
                    .filter(|(_, methods)| methods.contains(method))
                    .map(|(id, _)| id.clone())
                    .collect()
            })
        });
        let Some(listens) = listens else {
            self.notify_client(client, jsonrpc::notification(method, None));
            return;
        };
        for id in listens {
            let message = jsonrpc::notification(
                method,
                Some(json!({ "_meta": { SUBSCRIPTION_ID_KEY: id } })),
            );
            self.notify_listen(client, &id, message);
        }
    }

    fn notify_listen(&mut self, client: &str, id: &Value, message: Value) {
        self.effects.push(super::Effect::NotifyClient {
            client: client.to_string(),
            progress_token: None,
            request: Some(id.clone()),
            message: message.to_string(),
        });
    }
}

/// The honoured keys a listen asks for, or why its filter is malformed.
fn read_filter(params: Option<&Value>) -> Result<BTreeSet<&'static str>, String> {
    let Some(filter) = params.and_then(|p| p.get("notifications")) else {
        return Err(
            "subscriptions/listen needs params.notifications (a SubscriptionFilter object)".into(),
        );
    };
    let Some(filter) = filter.as_object() else {
        return Err("params.notifications must be an object".into());
    };
    let mut wanted = BTreeSet::new();
    for (key, _) in HONOURED {
        match filter.get(key) {
            None | Some(Value::Bool(false)) => {}
            Some(Value::Bool(true)) => {
                wanted.insert(key);
            }
            Some(_) => return Err(format!("params.notifications.{key} must be a boolean")),
        }
    }
    match filter.get("resourceSubscriptions") {
        None => {}
        Some(Value::Array(uris)) if uris.iter().all(Value::is_string) => {}
        Some(_) => {
            return Err(
                "params.notifications.resourceSubscriptions must be an array of URI strings".into(),
            )
        }
    }
    Ok(wanted)
}
