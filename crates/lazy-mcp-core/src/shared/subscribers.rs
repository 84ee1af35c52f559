//! Who of a shared process's attachments subscribed to which resource URI
//! (`resources/subscribe`), so the server is subscribed once for all of them:
//! a URI's first subscriber subscribes it upstream, its last one gone (an
//! unsubscribe, a detach) unsubscribes it, and `resources/updated` reaches only
//! its subscribers. The engine's own table (engine/server/resource_subscriptions)
//! does the same for one client's sessions; this is the owner's, over clients.
//!
//! Until the server answers a URI's first subscribe, later subscribers to it
//! wait for that answer and get the same (an error too): none is told "done"
//! before the server said so, and a refused subscribe leaves nobody recorded,
//! so the next subscriber asks the server again.

/// An attachment's id (`mux::AttachId`; not imported: mux.rs imports this file).
type AttachId = u64;
use crate::vec_map::VecMap;
use serde_json::Value;

/// Who waits for a subscribe's answer: each attachment with its request's id.
pub type Waiters = Vec<(AttachId, Value)>;

/// What the multiplexer does with a client's `resources/subscribe`.
#[derive(Debug)]
pub enum Subscribe {
    /// Not the table's (an unsubscribe that was the URI's last, a request without
    /// a URI): the server is asked as for any call.
    Forward,
    /// The URI's first: send it upstream under the id given to `subscribe`.
    Ask,
    /// The server's answer to an earlier one is still to come: it answers this one too.
    Wait,
    /// Subscribed upstream already: answer `{}` here.
    Answer,
}

#[derive(Debug, Clone, Default)]
pub struct Subscribers {
    by_uri: VecMap<String, Vec<AttachId>>,
    /// Subscribes sent upstream and not answered yet: (upstream id, URI, who waits).
    asking: Vec<(u64, String, Waiters)>,
}

impl Subscribers {
    /// `attach` subscribes to `uri` (its request `id`; `upstream`: the id it would go to the server with).
    pub fn subscribe(
        &mut self,
        uri: &str,
        attach: AttachId,
        id: Value,
        upstream: u64,
    ) -> Subscribe {
        let subscribers = self.by_uri.entry(uri.to_string()).or_default();
        let first = subscribers.is_empty();
        if !subscribers.contains(&attach) {
            subscribers.push(attach);
        }
        if first {
            self.asking
                .push((upstream, uri.to_string(), vec![(attach, id)]));
            return Subscribe::Ask;
        }
        match self.asking.iter_mut().rev().find(|(_, u, _)| u == uri) {
            Some((_, _, waiters)) => {
                waiters.push((attach, id));
                Subscribe::Wait
            }
            None => Subscribe::Answer,
        }
    }

    /// The server answered `upstream`: who waits for it, when it was a subscribe of
    /// [`Subscribe::Ask`]. A refused one (`ok` false) leaves none of them subscribed.
    pub fn answered(&mut self, upstream: u64, ok: bool) -> Option<Waiters> {
        let at = self.asking.iter().position(|(u, _, _)| *u == upstream)?;
        let (_, uri, waiters) = self.asking.remove(at);
        if !ok {
            for (attach, _) in &waiters {
                self.unsubscribe(&uri, *attach);
            }
        }
        Some(waiters)
    }

    /// `attach` unsubscribes from `uri`: whether the server must be told (it was the last).
    pub fn unsubscribe(&mut self, uri: &str, attach: AttachId) -> bool {
        let Some(subscribers) = self.by_uri.get_mut(uri) else {
            return false;
        };
        if !subscribers.contains(&attach) {
            return false;
        }
        subscribers.retain(|a| *a != attach);
        let last = subscribers.is_empty();
        if last {
            self.by_uri.remove(uri);
        }
        last
    }

    /// `attach` left: the URIs it was the last subscriber of (to unsubscribe
    /// upstream). `waiting`: it still waits for the answers to its subscribes
    /// in flight here (it moved to another process, where they are made again).
    pub fn detach(&mut self, attach: AttachId, waiting: bool) -> Vec<String> {
        if !waiting {
            for (_, _, waiters) in &mut self.asking {
                waiters.retain(|(a, _)| *a != attach);
            }
        }
        let mut unwanted = Vec::new();
        self.by_uri.retain(|uri, subscribers| {
            subscribers.retain(|a| *a != attach);
            if subscribers.is_empty() {
                unwanted.push(uri.clone());
            }
            !subscribers.is_empty()
        });
        unwanted
    }

    /// The URIs `attach` subscribed to.
    pub fn uris_of(&self, attach: AttachId) -> Vec<String> {
        self.by_uri
            .iter()
            .filter(|(_, subscribers)| subscribers.contains(&attach))
            .map(|(uri, _)| uri.clone())
            .collect()
    }

    /// `attach` holds `uri` subscribed already (it moved here from another
    /// process): whether it is the first, so the server must be subscribed.
    pub fn adopt(&mut self, uri: &str, attach: AttachId) -> bool {
        let subscribers = self.by_uri.entry(uri.to_string()).or_default();
        let first = subscribers.is_empty();
        if !subscribers.contains(&attach) {
            subscribers.push(attach);
        }
        first
    }

    /// The attachments subscribed to `uri`, in subscription order (empty when none).
    pub fn of(&self, uri: &str) -> &[AttachId] {
        self.by_uri.get(uri).map(Vec::as_slice).unwrap_or_default()
    }
}
