//! Hybrid tool search in the engine (issue 27): the embedding model the host
//! hands over when the first search needs it (`search_model.rs`), and each catalogue entry's tool
//! vectors, computed when the entry is catalogued and persisted with it,
//! keyed by the model version (and the recipe of a tool's text) and the
//! tools they were made from. A warm start
//! reuses them; another model version or changed tools recompute them once.

use crate::engine::clients::context::ClientsContext;
use crate::engine::clients::exposure::view::ServedView;
use crate::engine::clients::Clients;
use crate::engine::effects::LogLevel;
use crate::engine::registry::catalogue::{Catalogue, CatalogueEntry};
use crate::tool_index::{tool_vector, vector_from_hex, vector_to_hex, vectors_key, EmbeddingModel};
use std::sync::Arc;

use super::state::search_model::SearchModel;

impl SearchModel {
    /// Computes the vectors of every entry whose vectors are missing or stale;
    /// at the end of an event that changed the catalogue or the model. True
    /// when some changed (the search index is built again).
    pub(in crate::engine) fn update_vectors(&self, catalogue: &mut Catalogue) -> bool {
        let Some(model) = self.model() else {
            return false;
        };
        let key = vectors_key(model);
        catalogue.update_tool_vectors(&key, |server, tool| {
            tool_vector(model, server, tool).map_or_else(String::new, |v| vector_to_hex(&v))
        })
    }

    /// The cached vector of the tool at `position` in a server's current
    /// catalogue `entry`, when made by the loaded model.
    pub(in crate::engine) fn cached_vector(
        &self,
        entry: Option<&CatalogueEntry>,
        position: usize,
    ) -> Option<Vec<i8>> {
        let model = self.model()?;
        let hex = entry?.tool_vector_hex(&vectors_key(model), position)?;
        vector_from_hex(hex).filter(|v| v.len() == model.dims())
    }
}

impl Clients {
    /// The host's embedding table, read from `source` (a path, for messages;
    /// empty `bytes`: no table there, and search stays lexical; one log line
    /// says which): the searches that waited for it are answered now. True
    /// when a model was loaded.
    pub(in crate::engine) fn embedding_table(
        &mut self,
        ctx: &mut ClientsContext<'_>,
        served: ServedView<'_>,
        source: &str,
        bytes: &[u8],
    ) -> bool {
        let mut loaded = None;
        if bytes.is_empty() {
            self.log(
                LogLevel::Warn,
                format!("Tool search: no embedding table at {source}; search_tools ranks by words only. Reinstall Lazy MCP to restore semantic search."),
            );
        } else {
            match EmbeddingModel::from_bytes(bytes) {
                Ok(model) => {
                    self.log(
                        LogLevel::Info,
                        format!(
                            "Tool search: embedding table {} loaded from {source} ({} tokens, {} dimensions).",
                            model.version(),
                            model.vocab_len(),
                            model.dims()
                        ),
                    );
                    loaded = Some(Arc::new(model));
                    self.search_inputs_changed();
                }
                Err(why) => self.log(
                    LogLevel::Warn,
                    format!("Tool search: the embedding table {source} cannot be used ({why}); search_tools ranks by words only. Reinstall Lazy MCP to restore it."),
                ),
            }
        }
        let model_loaded = loaded.is_some();
        for w in self.search_model_arrived(loaded) {
            self.search_tools(ctx, served, &w.client, &w.id, &w.arguments);
        }
        model_loaded
    }
}
