//! The tool-exposure plan `tool_exposure.rs` decides: each exposed server's
//! mode, token estimates, the meta-tools. Apart from that code so that
//! `Clients` (`clients/mod.rs`) names it without importing the code that
//! drives it (no import cycle).

use crate::config::model::ToolExposure;
use crate::vec_map::VecMap;
use serde_json::Value;

/// A loaded tool: (server, original tool name).
pub(in crate::engine) type LoadedTool = (String, String);

/// What clients are shown now, decided from the settings and the catalogue.
#[derive(Debug, Default)]
pub(in crate::engine) struct ExposurePlan {
    /// Mode of every exposed server: `Full` or `Index`, never `Auto`.
    pub modes: VecMap<String, ToolExposure>,
    /// Estimated tokens of each exposed server's tool definitions (its `full` cost).
    pub full_tokens: VecMap<String, usize>,
    /// Hash of each exposed server's tool list: an unchanged list keeps its
    /// `full_tokens` from the previous plan instead of being estimated again
    /// (at 100 servers that estimate was a third of a config edit's time).
    pub tool_hashes: VecMap<String, u64>,
    /// Estimated tokens of each `index`-mode server's lines in the index.
    pub index_tokens: VecMap<String, usize>,
    /// The meta-tools, the index riding in `load_tools`; empty when no server is
    /// in `index` mode.
    pub meta_tools: Vec<Value>,
    pub meta_tokens: usize,
    /// Hash of `meta_tools` (part of the aggregate endpoint's version).
    pub meta_hash: u64,
    /// What the index above was rendered from (the `index`-mode servers, their
    /// tools, the budget): the same key reuses it instead of rendering again.
    pub(super) index_key: Option<u64>,
}

impl ExposurePlan {
    pub fn mode(&self, server: &str) -> ToolExposure {
        self.modes
            .get(server)
            .copied()
            .unwrap_or(ToolExposure::Full)
    }

    pub fn is_indexed(&self, server: &str) -> bool {
        self.mode(server) == ToolExposure::Index
    }
}
