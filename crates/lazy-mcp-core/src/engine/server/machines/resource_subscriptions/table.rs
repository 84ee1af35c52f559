//! One server's subscription table: who wants `resources/updated` for which
//! URI, and what the server's own subscriptions must do to match it (a URI's
//! first subscriber subscribes it upstream, its last one gone unsubscribes
//! it). Its fields are private to this file; `resource_subscriptions.rs`
//! carries out what it says.

use crate::engine::events::ClientId;
use crate::vec_map::{VecMap, VecSet};

/// One subscriber of a resource URI.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(in crate::engine) enum Subscriber {
    /// A legacy client's `resources/subscribe`: told untagged.
    Client(ClientId),
    /// A modern client's listen (its request id as JSON text): told on the
    /// listen, tagged with its id.
    Listen(ClientId, String),
}

impl Subscriber {
    pub(in crate::engine) fn client(&self) -> &str {
        match self {
            Subscriber::Client(client) | Subscriber::Listen(client, _) => client,
        }
    }
}

/// Subscribed resources of one server by URI (legacy clients'
/// `resources/subscribe`, modern clients' listens). Subscribed again after a
/// reconnect; a server with subscriptions is never idle.
#[derive(Debug, Default)]
pub(in crate::engine) struct Subscriptions {
    by_uri: VecMap<String, VecSet<Subscriber>>,
}

/// What the server's own subscriptions must do to match the table.
#[derive(Debug, Default, PartialEq, Eq)]
pub(in crate::engine) struct UpstreamChange {
    /// URIs that gained their first subscriber.
    pub(in crate::engine) subscribe: Vec<String>,
    /// URIs that lost their last.
    pub(in crate::engine) unsubscribe: Vec<String>,
}

impl UpstreamChange {
    pub(in crate::engine) fn is_empty(&self) -> bool {
        self.subscribe.is_empty() && self.unsubscribe.is_empty()
    }
}

impl Subscriptions {
    // ---- inputs --------------------------------------------------------------

    /// `subscriber` wants `uri`.
    pub(in crate::engine) fn handle_subscribe(&mut self, uri: &str, subscriber: Subscriber) {
        self.by_uri
            .entry(uri.to_string())
            .or_default()
            .insert(subscriber);
    }

    /// `subscriber` no longer wants `uri`. With `forget_unwanted`, a URI
    /// nobody wants any more is forgotten at once (else at
    /// [`Subscriptions::handle_forget_unwanted`]). Returns whether others
    /// still want it.
    pub(in crate::engine) fn handle_unsubscribe(
        &mut self,
        uri: &str,
        subscriber: &Subscriber,
        forget_unwanted: bool,
    ) -> bool {
        let others_remain = match self.by_uri.get_mut(uri) {
            Some(subscribers) => {
                subscribers.remove(subscriber);
                !subscribers.is_empty()
            }
            None => false,
        };
        if forget_unwanted && !others_remain {
            self.by_uri.remove(uri);
        }
        others_remain
    }

    /// URIs nobody wants any more are forgotten.
    pub(in crate::engine) fn handle_forget_unwanted(&mut self) {
        self.by_uri.retain(|_, s| !s.is_empty());
    }

    /// The subscribers `gone` says left (their client went away, their listen
    /// ended); URIs nobody wants any more are forgotten.
    pub(in crate::engine) fn handle_subscribers_gone(
        &mut self,
        gone: &dyn Fn(&Subscriber) -> bool,
    ) {
        self.by_uri.retain(|_, subscribers| {
            subscribers.retain(|s| !gone(s));
            !subscribers.is_empty()
        });
    }

    /// The server was withdrawn (disabled, removed, relaunched): every
    /// subscription ends.
    pub(in crate::engine) fn handle_withdrawn(&mut self) {
        self.by_uri.clear();
    }

    // ---- reads ---------------------------------------------------------------

    /// No URI has a subscriber (the server may go idle).
    pub(in crate::engine) fn is_empty(&self) -> bool {
        self.by_uri.is_empty()
    }

    /// Some subscriber is one `gone` says.
    pub(in crate::engine) fn has_subscriber(&self, gone: &dyn Fn(&Subscriber) -> bool) -> bool {
        self.by_uri.values().any(|subs| subs.iter().any(gone))
    }

    /// The URIs with subscribers (to subscribe after a reconnect, to name in
    /// a modern server's listen, to compare with after a change).
    pub(in crate::engine) fn uris(&self) -> VecSet<String> {
        self.by_uri.keys().cloned().collect()
    }

    /// Who to tell of `uri`'s `resources/updated`.
    pub(in crate::engine) fn subscribers_of(&self, uri: &str) -> Vec<Subscriber> {
        self.by_uri
            .get(uri)
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// What the server must subscribe and unsubscribe now that the table
    /// says its URIs are no longer `before`.
    pub(in crate::engine) fn upstream_change(&self, before: &VecSet<String>) -> UpstreamChange {
        let after = self.uris();
        UpstreamChange {
            subscribe: after.difference(before).cloned().collect(),
            unsubscribe: before.difference(&after).cloned().collect(),
        }
    }
}
