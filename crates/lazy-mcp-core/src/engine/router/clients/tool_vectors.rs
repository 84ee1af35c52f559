//! The host's embedding model for hybrid tool search (`clients/tool_vectors.rs`):
//! offered and loaded through `Clients`; a loaded model makes the registry
//! compute every catalogue entry's tool vectors again.

use crate::engine::effects::Effect;
use crate::engine::router::Engine;

impl Engine {
    /// The host's `offerEmbeddingModel`: it ships a table and hands its bytes
    /// over (`loadEmbeddingModel`) when the engine asks (`readEmbeddingTable`).
    pub fn offer_embedding_model(&mut self, now_ms: u64) -> Vec<Effect> {
        self.clock(now_ms);
        self.clients.search_model_offered();
        self.finish_event()
    }

    /// The host's `loadEmbeddingModel`: the table's bytes, read from `source`
    /// (a path, for messages). Empty bytes: the host found no table there, and
    /// search stays lexical. Either way one log line says which.
    pub fn load_embedding_model(&mut self, now_ms: u64, source: &str, bytes: &[u8]) -> Vec<Effect> {
        self.clock(now_ms);
        if self
            .with_served(|clients, ctx, served| clients.embedding_table(ctx, served, source, bytes))
        {
            // Every entry's vectors are made again by the loaded model.
            self.registry.model_changed();
        }
        self.finish_event()
    }

    /// Whether search has its semantic side (for tests and diagnostics).
    pub fn has_embedding_model(&self) -> bool {
        self.clients.search_model().model().is_some()
    }
}
