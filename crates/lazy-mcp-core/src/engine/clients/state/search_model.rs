//! The embedding model's life in one engine. A host that ships the table
//! offers it (`offerEmbeddingModel`); the engine asks for its bytes
//! (`readEmbeddingTable`) only when a `search_tools` call first needs them,
//! and that call (and any that come meanwhile) waits for them. An engine
//! whose clients never search never reads the 4 MB table nor holds the
//! parsed model (about 12 MB of WASM memory): warm starts and CLI sessions
//! stay small. A host may also hand the table over at once
//! (`loadEmbeddingModel` without an offer), as the native tests do.

use crate::tool_index::EmbeddingModel;
use serde_json::Value;
use std::sync::Arc;

/// A `search_tools` call waiting for the table's bytes.
#[derive(Debug)]
pub(in crate::engine) struct WaitingSearch {
    pub(in crate::engine) client: String,
    pub(in crate::engine) id: Value,
    pub(in crate::engine) arguments: Value,
}

#[derive(Debug, Default)]
pub(in crate::engine) enum SearchModel {
    /// No table offered, or none usable: search ranks by words.
    #[default]
    Absent,
    /// The host has a table; not read yet.
    Offered,
    /// Its bytes were asked for; these searches wait for them.
    Requested(Vec<WaitingSearch>),
    Loaded(Arc<EmbeddingModel>),
}

impl SearchModel {
    pub(in crate::engine) fn model(&self) -> Option<&Arc<EmbeddingModel>> {
        match self {
            SearchModel::Loaded(model) => Some(model),
            _ => None,
        }
    }

    /// The host has a table to hand over when asked (a loaded model stays).
    pub(in crate::engine) fn offer(&mut self) {
        if matches!(self, SearchModel::Absent) {
            *self = SearchModel::Offered;
        }
    }

    /// A search that must wait for the table: `Some(true)` when the engine
    /// must ask for it now (the first), `Some(false)` when it was asked
    /// already, `None` when the search can run now (loaded, or no table).
    /// `search` is made only when the search waits (a loaded model copies nothing).
    pub(in crate::engine) fn wait(
        &mut self,
        search: impl FnOnce() -> WaitingSearch,
    ) -> Option<bool> {
        match self {
            SearchModel::Offered => {
                *self = SearchModel::Requested(vec![search()]);
                Some(true)
            }
            SearchModel::Requested(waiting) => {
                waiting.push(search());
                Some(false)
            }
            SearchModel::Absent | SearchModel::Loaded(_) => None,
        }
    }

    /// The table arrived (`None`: absent or unusable); the searches that
    /// waited for it, to answer now.
    pub(in crate::engine) fn arrived(
        &mut self,
        model: Option<Arc<EmbeddingModel>>,
    ) -> Vec<WaitingSearch> {
        let next = model.map_or(SearchModel::Absent, SearchModel::Loaded);
        match std::mem::replace(self, next) {
            SearchModel::Requested(waiting) => waiting,
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn search(id: u64) -> WaitingSearch {
        WaitingSearch {
            client: "c".into(),
            id: json!(id),
            arguments: json!({}),
        }
    }

    #[test]
    fn the_first_search_asks_once_and_later_ones_wait_with_it() {
        let mut model = SearchModel::default();
        assert_eq!(
            model.wait(|| search(1)),
            None,
            "no table offered: search now"
        );
        model.offer();
        assert_eq!(model.wait(|| search(1)), Some(true));
        assert_eq!(model.wait(|| search(2)), Some(false));
        let waiting = model.arrived(None);
        assert_eq!(waiting.len(), 2);
        assert_eq!(
            model.wait(|| search(3)),
            None,
            "no usable table: search now"
        );
    }
}
