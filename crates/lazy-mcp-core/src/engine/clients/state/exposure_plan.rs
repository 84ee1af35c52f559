//! The tool-exposure plan `clients/tool_exposure.rs` decides: each exposed server's
//! mode, token estimates, the meta-tools. Apart from that code so that
//! `Clients` (`clients/machine.rs`) names it without importing the code that
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
    pub(in crate::engine::clients) index_key: Option<u64>,
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

    /// The `auto` servers (their cost in tokens, tool count, name) move to
    /// `index`, biggest first (then by name), until what stays listed in full
    /// (`tokens`, `tools`) fits `token_budget` and `max_tools`.
    pub(in crate::engine) fn fit_auto(
        &mut self,
        mut auto: Vec<(usize, usize, String)>,
        (mut tokens, mut tools): (usize, usize),
        token_budget: usize,
        max_tools: usize,
    ) {
        crate::sorting::sort_by(&mut auto, |a, b| b.0.cmp(&a.0).then_with(|| a.2.cmp(&b.2)));
        for (cost, count, name) in auto {
            if tokens <= token_budget && tools <= max_tools {
                break;
            }
            self.modes.insert(name, ToolExposure::Index);
            tokens -= cost;
            tools -= count;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ExposurePlan;
    use crate::config::model::ToolExposure;

    fn planned(auto: &[(usize, usize, &str)], budget: usize, max_tools: usize) -> Vec<String> {
        let mut plan = ExposurePlan::default();
        let (tokens, tools) = auto.iter().fold((0, 0), |(t, n), a| (t + a.0, n + a.1));
        let auto = auto
            .iter()
            .map(|(c, n, name)| (*c, *n, name.to_string()))
            .collect();
        plan.fit_auto(auto, (tokens, tools), budget, max_tools);
        plan.modes
            .iter()
            .filter(|(_, mode)| **mode == ToolExposure::Index)
            .map(|(name, _)| name.clone())
            .collect()
    }

    #[test]
    fn auto_servers_move_to_the_index_biggest_first_until_it_fits() {
        let servers = [(500, 5, "small"), (5_000, 20, "big"), (2_000, 10, "mid")];
        assert!(planned(&servers, 10_000, 128).is_empty());
        assert_eq!(planned(&servers, 3_000, 128), ["big"]);
        assert_eq!(planned(&servers, 1_000, 128), ["big", "mid"]);
        // The tool limit too; a tie in cost goes by name.
        assert_eq!(planned(&servers, 10_000, 20), ["big"]);
        assert_eq!(planned(&[(10, 1, "b"), (10, 1, "a")], 10, 128), ["a"]);
    }
}
