//! Who of a shared process's attachments subscribed to which resource URI
//! (`resources/subscribe`), so the server is subscribed once for all of them:
//! a URI's first subscriber subscribes it upstream, its last one gone (an
//! unsubscribe, a detach) unsubscribes it, and `resources/updated` reaches only
//! its subscribers. The engine's own table (engine/server/resource_subscriptions)
//! does the same for one client's sessions; this is the owner's, over clients.

/// An attachment's id (`mux::AttachId`; not imported: mux.rs imports this file).
type AttachId = u64;
use crate::vec_map::VecMap;

#[derive(Debug, Clone, Default)]
pub struct Subscribers {
    by_uri: VecMap<String, Vec<AttachId>>,
}

impl Subscribers {
    /// `attach` subscribes to `uri`: whether the server must be asked (the URI's first subscriber).
    pub fn subscribe(&mut self, uri: &str, attach: AttachId) -> bool {
        let subscribers = self.by_uri.entry(uri.to_string()).or_default();
        if subscribers.contains(&attach) {
            return false;
        }
        subscribers.push(attach);
        subscribers.len() == 1
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

    /// `attach` left: the URIs it was the last subscriber of (to unsubscribe upstream).
    pub fn detach(&mut self, attach: AttachId) -> Vec<String> {
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

    /// The attachments subscribed to `uri`, in subscription order (empty when none).
    pub fn of(&self, uri: &str) -> &[AttachId] {
        self.by_uri.get(uri).map(Vec::as_slice).unwrap_or_default()
    }
}
