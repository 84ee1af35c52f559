//! A client's modern-era requests, the state `clients/modern_clients.rs` keeps per
//! session. Apart from that code so that `Clients` (`clients/machine.rs`) names it
//! without importing the code that drives it (no import cycle). Its fields
//! are private here: a request begins, is handled, answered or forgotten
//! (named inputs), and the rest is read.

use crate::vec_map::VecMap;
use serde_json::{Map, Value};

/// A client's modern requests: those not answered yet, and the one being read now.
#[derive(Debug, Default)]
pub(in crate::engine) struct ModernRequests {
    /// Modern requests still to be answered, by id (as JSON text).
    pending: VecMap<String, PendingModern>,
    /// The request being handled is modern.
    active: bool,
    /// The client has sent a modern request: change notifications reach it
    /// only through its `subscriptions/listen` requests.
    seen: bool,
    /// Its `clientInfo` as `name@version`, when it sent one.
    identity: Option<String>,
}

/// A modern request not answered yet.
#[derive(Debug, Default)]
struct PendingModern {
    /// The answer gets cache hints (`resources/read`: lists have them already).
    cache_hints: bool,
    /// The client's `elicitation`/`sampling` capabilities from its envelope: a
    /// modern server may ask for that input (`input_required`) and the client
    /// answers it by sending the request again (multi round-trip).
    input_capabilities: Map<String, Value>,
}

impl ModernRequests {
    // ---- inputs ------------------------------------------------------------

    /// A modern request `id` (as JSON text) is being handled: its answer gets
    /// cache hints or not, its client may be asked for `input_capabilities`,
    /// and it names its client as `identity` (when it does).
    pub(in crate::engine) fn began(
        &mut self,
        id: String,
        cache_hints: bool,
        input_capabilities: Map<String, Value>,
        identity: Option<String>,
    ) {
        self.pending.insert(
            id,
            PendingModern {
                cache_hints,
                input_capabilities,
            },
        );
        self.active = true;
        self.seen = true;
        self.identity = identity;
    }

    /// The request being handled has been handled (answered, or sent on upstream).
    pub(in crate::engine) fn handled(&mut self) {
        self.active = false;
        self.identity = None;
    }

    /// The client cancelled request `id` (as JSON text): it will not be answered.
    pub(in crate::engine) fn forget(&mut self, id: &str) {
        self.pending.remove(id);
    }

    /// Request `id` (as JSON text) is answered: `Some(whether the answer gets
    /// cache hints)` when it was a modern request still to be answered.
    pub(in crate::engine) fn answered(&mut self, id: &str) -> Option<bool> {
        self.pending.remove(id).map(|pending| pending.cache_hints)
    }

    // ---- reads -------------------------------------------------------------

    /// The request being handled carries the modern envelope.
    pub(in crate::engine) fn is_active(&self) -> bool {
        self.active
    }

    /// The client has spoken the modern era.
    pub(in crate::engine) fn seen(&self) -> bool {
        self.seen
    }

    /// The `clientInfo` (`name@version`) of the request being handled, when it sent one.
    pub(in crate::engine) fn identity(&self) -> Option<&str> {
        self.identity.as_deref()
    }

    /// Whether `id` is a modern request still to be answered.
    pub(in crate::engine) fn is_pending(&self, id: &Value) -> bool {
        // Checked empty first: the id's text is written only when some are pending.
        !self.pending.is_empty() && self.pending.contains_key(&id.to_string())
    }

    /// The input capabilities request `id` declared, when it declared any.
    pub(in crate::engine) fn input_capabilities(&self, id: &Value) -> Option<&Map<String, Value>> {
        let pending = self.pending.get(&id.to_string())?;
        (!pending.input_capabilities.is_empty()).then_some(&pending.input_capabilities)
    }
}

#[cfg(test)]
mod tests {
    use super::ModernRequests;
    use serde_json::{json, Map, Value};

    #[test]
    fn a_modern_request_is_pending_until_answered_or_forgotten() {
        let mut requests = ModernRequests::default();
        assert!(!requests.is_pending(&json!(1)));
        let mut input = Map::new();
        input.insert("elicitation".into(), json!({}));
        requests.began("1".into(), true, input, Some("code@1".into()));
        requests.began("2".into(), false, Map::new(), None);
        assert!(requests.is_active() && requests.seen());
        assert!(requests.is_pending(&json!(1)) && requests.is_pending(&json!(2)));
        assert!(requests.input_capabilities(&json!(1)).is_some());
        assert!(
            requests.input_capabilities(&json!(2)).is_none(),
            "none declared"
        );
        requests.handled();
        assert!(!requests.is_active() && requests.seen(), "seen stays");
        assert_eq!(requests.identity(), None);
        assert_eq!(requests.answered("1"), Some(true));
        assert_eq!(requests.answered("1"), None, "answered once");
        requests.forget("2");
        assert!(!requests.is_pending(&Value::from(2)));
    }
}
