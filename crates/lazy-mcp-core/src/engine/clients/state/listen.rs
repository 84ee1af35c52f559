//! A client's open listens, the state `clients/client_listens.rs` keeps per session.
//! Apart from that code so that `Clients` (`clients/machine.rs`) names it without
//! importing the code that drives it (no import cycle). A listen's fields are
//! private here: it is opened with what it asks for and read after.

use crate::vec_map::{VecMap, VecSet};
use serde_json::Value;

/// One open listen of a client.
#[derive(Debug)]
pub(in crate::engine) struct Listen {
    /// Its request id (the `subscriptionId` of everything sent on it).
    id: Value,
    /// The `list_changed` notifications it wants.
    methods: VecSet<&'static str>,
    /// The resources it subscribed to: (server, URI).
    resources: VecSet<(String, String)>,
}

impl Listen {
    /// Request `id` opened a listen for `methods` and `resources` (server, URI).
    pub(in crate::engine) fn opened(
        id: Value,
        methods: VecSet<&'static str>,
        resources: VecSet<(String, String)>,
    ) -> Listen {
        Listen {
            id,
            methods,
            resources,
        }
    }

    /// Its request id: the `subscriptionId` of everything sent on it.
    pub(in crate::engine) fn id(&self) -> &Value {
        &self.id
    }

    /// Whether it asked for the `list_changed` notification `method`.
    pub(in crate::engine) fn wants(&self, method: &str) -> bool {
        self.methods.contains(method)
    }

    /// The resources it subscribed to: (server, URI).
    pub(in crate::engine) fn resources(&self) -> &VecSet<(String, String)> {
        &self.resources
    }

    /// It ended (replaced or cancelled): the resources it held.
    pub(in crate::engine) fn into_resources(self) -> VecSet<(String, String)> {
        self.resources
    }
}

/// A client's open listens by request id (as JSON text).
pub(in crate::engine) type Listens = VecMap<String, Listen>;

#[cfg(test)]
mod tests {
    use super::Listen;
    use serde_json::json;

    #[test]
    fn a_listen_answers_only_for_what_it_asked() {
        let methods = ["notifications/tools/list_changed"].into_iter().collect();
        let resources = [("s".to_string(), "file:///a".to_string())]
            .into_iter()
            .collect();
        let listen = Listen::opened(json!(7), methods, resources);
        assert_eq!(listen.id(), &json!(7));
        assert!(listen.wants("notifications/tools/list_changed"));
        assert!(!listen.wants("notifications/prompts/list_changed"));
        assert_eq!(listen.resources().len(), 1);
        assert_eq!(listen.into_resources().len(), 1);
    }
}
