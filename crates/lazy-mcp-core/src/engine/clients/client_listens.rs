//! `subscriptions/listen` from clients of MCP 2026-07-28: the era's one channel
//! for change notifications (it replaced the HTTP GET stream and
//! `resources/subscribe`). A listen names the notifications it wants; the
//! gateway acknowledges the subset it honours (list changes, and the resource
//! URIs whose server supports subscriptions), then sends only those, each
//! tagged with the listen's request id. The request stays open until the
//! client cancels it or goes away; over HTTP its messages ride that request's
//! own stream (the `notifyClient` effect's `request`). Subscribing upstream for
//! the URIs is `resource_subscriptions.rs`'s: it never starts a server.

use super::state::listen::Listen;
use crate::engine::clients::context::ClientsContext;
use crate::engine::clients::exposure::view::ServedView;
use crate::engine::clients::Clients;
use crate::engine::effects::Effect;
use crate::engine::events::Endpoint;
use crate::engine::server::Subscriber;
use crate::protocol::jsonrpc;
use crate::protocol::listen_tag::{listen_notification, SUBSCRIPTION_ID_KEY};
use crate::protocol::methods;
use crate::protocol::params::Params;
use crate::vec_map::VecSet;
use serde_json::{json, Map, Value};

/// At most this many open listens per client: each is kept until the client
/// cancels it, so a client cannot grow the gateway's memory without bound.
pub(in crate::engine) const MAX_LISTENS_PER_CLIENT: usize = 8;

/// At most this many resource URIs honoured per listen (the rest are left out
/// of the acknowledgement, as the spec allows for anything not honoured): with
/// [`MAX_LISTENS_PER_CLIENT`] this bounds what one client can make Lazy MCP keep.
pub(in crate::engine) const MAX_RESOURCES_PER_LISTEN: usize = 100;

/// The filter keys the gateway honours, and the notification each stands for.
const HONOURED: [(&str, &str); 3] = [
    (
        "toolsListChanged",
        methods::NOTIFICATIONS_TOOLS_LIST_CHANGED,
    ),
    (
        "promptsListChanged",
        methods::NOTIFICATIONS_PROMPTS_LIST_CHANGED,
    ),
    (
        "resourcesListChanged",
        methods::NOTIFICATIONS_RESOURCES_LIST_CHANGED,
    ),
];

/// A listen opened: the (server, URI) pairs a listen of the same id named
/// before, and those this one names.
pub(in crate::engine) type ListenChange = (VecSet<(String, String)>, Vec<(String, String)>);

/// What a listen asks for.
struct Filter {
    list_changes: VecSet<&'static str>,
    resources: Vec<String>,
}

/// `method` with `params` to listen `id` of `client`, tagged with its id.
pub(in crate::engine) fn listen_notice(
    client: &str,
    id: &Value,
    method: &str,
    params: Option<Value>,
) -> Effect {
    on_listen_stream(client, id, listen_notification(id, method, params))
}

/// `message` on listen `id`'s own stream.
fn on_listen_stream(client: &str, id: &Value, message: Value) -> Effect {
    Effect::NotifyClient {
        client: client.to_string(),
        progress_token: None,
        request: Some(Box::new(id.clone())),
        message: message.to_string(),
    }
}

/// What a listen asks for, or why its filter is malformed.
fn read_filter(params: Option<&Value>) -> Result<Filter, String> {
    let Some(filter) = Params::read(params).notifications else {
        return Err(
            "subscriptions/listen needs params.notifications (a SubscriptionFilter object)".into(),
        );
    };
    let Some(filter) = filter.as_object() else {
        return Err("params.notifications must be an object".into());
    };
    let mut list_changes = VecSet::new();
    for (key, method) in HONOURED {
        match filter.get(key) {
            None | Some(Value::Bool(false)) => {}
            Some(Value::Bool(true)) => {
                list_changes.insert(method);
            }
            Some(_) => return Err(format!("params.notifications.{key} must be a boolean")),
        }
    }
    let resources = match filter.get("resourceSubscriptions") {
        None => Vec::new(),
        Some(Value::Array(uris)) => uris
            .iter()
            .map(|uri| uri.as_str().map(str::to_string))
            .collect::<Option<Vec<String>>>()
            .ok_or_else(not_uris)?,
        Some(_) => return Err(not_uris()),
    };
    Ok(Filter {
        list_changes,
        resources,
    })
}

fn not_uris() -> String {
    "params.notifications.resourceSubscriptions must be an array of URI strings".into()
}

impl Clients {
    /// The client cancelled request `id`: when it was an open listen, it
    /// ends (no answer). Returns whether it was one, and the subscriber to
    /// remove when it named resources (those only it wanted are unsubscribed
    /// upstream).
    pub(in crate::engine) fn end_listen(
        &mut self,
        client: &str,
        id: &Value,
    ) -> (bool, Option<Subscriber>) {
        let key = id.to_string();
        let ended = self.listen_ended(client, &key);
        let was_open = ended.is_some();
        let named_resources = ended.is_some_and(|listen| !listen.resources().is_empty());
        let subscriber = named_resources.then(|| Subscriber::Listen(client.to_string(), key));
        (was_open, subscriber)
    }

    /// A `subscriptions/listen` request `id` of `client` (`modern`: with the
    /// era's envelope): refused, or opened and acknowledged. Returns the
    /// resources a listen of the same id named before and those this one
    /// names, for the servers' subscriptions to follow; `None` when refused.
    pub(in crate::engine) fn listen(
        &mut self,
        ctx: &mut ClientsContext<'_>,
        served: ServedView<'_>,
        client: &str,
        id: &Value,
        params: Option<&Value>,
        modern: bool,
    ) -> Option<ListenChange> {
        if !modern {
            let why = "Method not found: subscriptions/listen is a request of protocol revision 2026-07-28 (send it with the _meta envelope)";
            self.reply_error(ctx, client, id.clone(), jsonrpc::METHOD_NOT_FOUND, why);
            return None;
        }
        let filter = match self.listen_filter(client, id, params) {
            Ok(filter) => filter,
            Err((code, why)) => {
                self.reply_error(ctx, client, id.clone(), code, &why);
                return None;
            }
        };
        let resources = self.honoured_resources(client, &filter.resources, served);
        let (ack, replaced) = self.open_listen(client, id, filter, &resources);
        self.outbox().push(ack);
        let old = replaced.map(Listen::into_resources).unwrap_or_default();
        Some((old, resources))
    }

    /// What `client`'s listen `id` (a modern request) asks for; `Err` is the
    /// error to answer it with (its modern request forgotten): a malformed
    /// filter, or one listen too many.
    fn listen_filter(
        &mut self,
        client: &str,
        id: &Value,
        params: Option<&Value>,
    ) -> Result<Filter, (i64, String)> {
        let filter = match read_filter(params) {
            Ok(filter) => filter,
            Err(why) => {
                self.forget_modern_request(client, id);
                return Err((jsonrpc::INVALID_PARAMS, why));
            }
        };
        let open = self.sessions().get(client).map_or(0, |s| s.listens().len());
        if open >= MAX_LISTENS_PER_CLIENT && !self.is_listening(client, id) {
            self.forget_modern_request(client, id);
            let why = format!(
                "Too many open subscriptions/listen requests (at most {MAX_LISTENS_PER_CLIENT} per client): cancel one first"
            );
            return Err((jsonrpc::INVALID_REQUEST, why));
        }
        Ok(filter)
    }

    /// Opens `client`'s listen `id` on its `filter`'s list changes and the
    /// `resources` the gateway honours: its acknowledgement, and the listen
    /// of the same id it replaced.
    fn open_listen(
        &mut self,
        client: &str,
        id: &Value,
        filter: Filter,
        resources: &[(String, String)],
    ) -> (Effect, Option<Listen>) {
        let mut honoured: Map<String, Value> = HONOURED
            .iter()
            .filter(|(_, method)| filter.list_changes.contains(method))
            .map(|(key, _)| ((*key).to_string(), Value::Bool(true)))
            .collect();
        if !resources.is_empty() {
            let uris: Vec<&str> = resources.iter().map(|(_, uri)| uri.as_str()).collect();
            honoured.insert("resourceSubscriptions".into(), json!(uris));
        }
        let listen = Listen::opened(
            id.clone(),
            filter.list_changes,
            resources.iter().cloned().collect(),
        );
        let replaced = self.listen_began(client, id.to_string(), listen);
        // Built member by member: a `json!` of it cost the `.wasm` more.
        let mut meta = Map::new();
        meta.insert(SUBSCRIPTION_ID_KEY.into(), id.clone());
        let mut params = Map::new();
        params.insert("notifications".into(), Value::Object(honoured));
        params.insert("_meta".into(), Value::Object(meta));
        let ack = jsonrpc::notification(
            methods::NOTIFICATIONS_SUBSCRIPTIONS_ACKNOWLEDGED,
            Some(Value::Object(params)),
        );
        (on_listen_stream(client, id, ack), replaced)
    }

    /// The (server, URI) pairs of `uris` the gateway honours for `client`: a
    /// URI of its endpoint's server (the aggregate endpoint: the server whose
    /// resources or templates have it, as for `resources/subscribe`) when that
    /// server is enabled and its catalogue says it supports subscriptions.
    /// Whether it runs does not matter: it is subscribed when it connects.
    fn honoured_resources(
        &self,
        client: &str,
        uris: &[String],
        served: ServedView<'_>,
    ) -> Vec<(String, String)> {
        let Some(endpoint) = self.sessions().get(client).map(|s| s.endpoint().clone()) else {
            return Vec::new();
        };
        let mut honoured: Vec<(String, String)> = Vec::new();
        for uri in uris {
            if honoured.len() >= MAX_RESOURCES_PER_LISTEN {
                break;
            }
            let server = match &endpoint {
                Endpoint::Server { name } => Some(name.clone()),
                Endpoint::Aggregate => served.server_for_resource(uri),
            };
            let Some(server) = server.filter(|name| served.supports_subscriptions(name)) else {
                continue;
            };
            if !honoured.iter().any(|(_, u)| u == uri) {
                honoured.push((server, uri.clone()));
            }
        }
        honoured
    }

    /// A list changed for `client`: a client of the modern era gets it on each
    /// listen that asked for it (tagged), and nothing else (the era has no other
    /// channel for it); a legacy client as before.
    pub(in crate::engine) fn list_changed_notices(&mut self, client: &str, method: &'static str) {
        let (sessions, out) = self.sessions_and_outbox();
        let Some(session) = sessions.get(client).filter(|s| s.is_modern()) else {
            out.push(Effect::NotifyClient {
                client: client.to_string(),
                progress_token: None,
                request: None,
                message: jsonrpc::notification(method, None).to_string(),
            });
            return;
        };
        for listen in session.listens().values().filter(|l| l.wants(method)) {
            out.push(listen_notice(client, listen.id(), method, None));
        }
    }

    fn is_listening(&self, client: &str, id: &Value) -> bool {
        self.sessions()
            .get(client)
            .is_some_and(|s| s.listens().contains_key(&id.to_string()))
    }

    /// A client that has spoken the modern era (or listens): change
    /// notifications reach it only through its listens.
    pub(in crate::engine) fn is_modern_client(&self, client: &str) -> bool {
        self.sessions().get(client).is_some_and(|s| s.is_modern())
    }
}
