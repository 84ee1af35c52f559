//! Tool exposure (docs/tool-index.md): which servers list their tool schemas in
//! full and which only in the compact index behind the meta-tools, what that
//! costs in tokens, and each client's loaded tools.
//!
//! The plan is recomputed by `publish_changes` whenever exposure may have
//! changed; requests read it. The search index is built on the first search
//! after a change.

use super::state::exposure_plan::LoadedTool;
use crate::engine::clients::Clients;
use crate::engine::effects::Effect;
use crate::engine::stable_hash::Fnv1a64Writer;
use crate::protocol::jsonrpc;
use crate::protocol::methods;
use crate::vec_map::VecSet;
use serde_json::Value;

/// FNV-1a of the items' JSON, written straight into the hasher.
pub(in crate::engine) fn items_hash(items: &[Value]) -> u64 {
    let mut hasher = Fnv1a64Writer::default();
    // Writing into a hasher cannot fail; a failure would only weaken the hash.
    let _ = serde_json::to_writer(&mut hasher, items);
    hasher.finish()
}

impl Clients {
    /// Whether the search index is built (it is dropped when what it indexes changes).
    pub(super) fn has_search_index(&self) -> bool {
        self.exposure().search_index().is_some()
    }

    /// Forgets a server's loaded tools (it was disabled or removed): the
    /// `list_changed` notices to the clients that had some are yielded.
    pub(in crate::engine) fn unload_server(&mut self, server: &str) {
        for identity in self.server_unloaded(server) {
            self.tools_changed_notices(&identity);
        }
    }

    /// `notifications/tools/list_changed` to every aggregate session of a
    /// client, yielded.
    pub(in crate::engine) fn tools_changed_notices(&mut self, identity: &str) {
        let (sessions, out) = self.sessions_and_outbox();
        for (client, session) in sessions {
            if session.identity() == identity && session.is_aggregate() {
                let notice = jsonrpc::notification(methods::NOTIFICATIONS_TOOLS_LIST_CHANGED, None);
                out.push(Effect::NotifyClient {
                    client: client.clone(),
                    progress_token: None,
                    request: None,
                    message: notice.to_string(),
                });
            }
        }
    }

    /// Who a client is for its loaded set: its `clientInfo.name`, so a client that
    /// reconnects (VS Code restarting a definition) keeps what it loaded.
    /// A modern-era request is keyed by its own `clientInfo` (`modern_clients.rs`).
    pub(super) fn identity_of(&self, client: &str) -> String {
        if let Some(modern) = self.modern_request_identity(client) {
            return modern;
        }
        self.sessions()
            .get(client)
            .map(|s| s.identity().to_string())
            .unwrap_or_else(|| client.to_string())
    }

    pub(super) fn loaded_of(&self, client: &str) -> VecSet<LoadedTool> {
        self.exposure()
            .loaded_by(&self.identity_of(client))
            .cloned()
            .unwrap_or_default()
    }

    /// Every loaded tool over all clients (for diagnostics).
    pub(in crate::engine) fn all_loaded(&self) -> VecSet<LoadedTool> {
        self.exposure().all_loaded()
    }
}
