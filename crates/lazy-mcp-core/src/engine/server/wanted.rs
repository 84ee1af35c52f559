//! What the config and the session's Enable/Disable want of a server, and
//! what its endpoint exposes: decisions over one server's own state that the
//! reconcile (`router/registry/config_diff.rs`) and the clients' side ask for.

use crate::config::model::ToolFilter;
use crate::engine::aggregate_names::SEPARATOR;
use crate::engine::effects::Effect;
use crate::engine::events::Endpoint;
use crate::engine::registry::catalogue::CatalogueEntry;
use crate::engine::server::ctx::ServerCtx;
use crate::engine::server::{Server, Servers};
use crate::engine::state::{ServerState, Trigger};
use crate::protocol::params::name_of;
use crate::vec_map::VecSet;

/// What the config and the session's Enable/Disable ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::engine) enum Wanted {
    Disabled,
    Dormant,
    Active,
}

impl Server {
    /// The session's Enable/Disable wins over the config's `enabled`; a
    /// server with `autoConnect: false` stays dormant until enabled.
    pub(in crate::engine) fn wanted(&self) -> Wanted {
        let enabled = self.session_enabled().unwrap_or(self.config().enabled);
        if !enabled {
            Wanted::Disabled
        } else if !self.config().auto_connect && self.session_enabled() != Some(true) {
            Wanted::Dormant
        } else {
            Wanted::Active
        }
    }

    /// Declared tool names (`tools: [...]` in config) its catalogue `entry` does not offer.
    pub(in crate::engine) fn dropped_declared_tools(&self, entry: &CatalogueEntry) -> Vec<String> {
        let ToolFilter::Only(names) = &self.config().tools else {
            return Vec::new();
        };
        let offered: VecSet<&str> = entry.tools.iter().filter_map(name_of).collect();
        names
            .iter()
            .filter(|n| !offered.contains(n.as_str()))
            .cloned()
            .collect()
    }

    /// Whether the server's endpoint exposes tool `tool` (any tool when not filtered).
    pub(in crate::engine) fn exposes_tool(&self, tool: &str) -> bool {
        match &self.config().tools {
            ToolFilter::Only(names) => names.iter().any(|n| n == tool),
            ToolFilter::All => true,
        }
    }
}

impl Servers {
    /// Whether `endpoint` is exposed now: the aggregate always, a server's own
    /// while its state exposes it.
    pub(in crate::engine) fn is_exposed_endpoint(&self, endpoint: &Endpoint) -> bool {
        match endpoint {
            Endpoint::Aggregate => true,
            Endpoint::Server { name } => self.get(name).is_some_and(|s| s.state().is_exposed()),
        }
    }

    /// "server X is disabled" for an aggregate name `X__…` of a server that is
    /// configured but not exposed (disabled or dormant).
    pub(in crate::engine) fn switched_off_refusal(&self, exposed: &str) -> Option<String> {
        self.iter().find_map(|(name, server)| {
            let prefix = format!("{name}{SEPARATOR}");
            (!server.state().is_exposed() && exposed.starts_with(&prefix)).then(|| {
                format!(
                    "MCP server '{name}' is {}; enable it to use '{exposed}'",
                    server.state().label().to_lowercase()
                )
            })
        })
    }
}

#[cfg(test)]
#[path = "wanted_tests.rs"]
mod tests;

/// What the router carries out for a server whose launch changed
/// (`Servers::relaunched`).
pub(in crate::engine) enum Relaunched {
    /// Catalogued again: it went to PENDING (its new state, to tell, when it
    /// changed) and joined the cataloguing queue.
    CatalogueAgain(Option<ServerState>),
    /// Not wanted active, or DISABLED / DORMANT: the registry reconciles it.
    Reconcile,
}

impl Servers {
    /// `name` was just added (`Servers::add`: DISABLED). When it is wanted
    /// disabled it stays so, and the host is told that first state here.
    /// This is not a state change (nothing leaves or enters a state, so it
    /// does not go through `next_state`): it is the new server's first
    /// `stateChanged`, so the host lists it. `None`: the registry reconciles it.
    pub(in crate::engine) fn first_state(&self, name: &str) -> Option<Effect> {
        let server = self.get(name)?;
        (server.wanted() == Wanted::Disabled).then(|| Effect::StateChanged {
            server: name.to_string(),
            state: ServerState::Disabled,
        })
    }

    /// `name`'s launch changed (withdrawn, its new config in): a server
    /// wanted active that was not DISABLED or DORMANT is catalogued again.
    pub(in crate::engine) fn relaunched(&mut self, ctx: &mut ServerCtx, name: &str) -> Relaunched {
        let Some(server) = self.get(name) else {
            return Relaunched::Reconcile;
        };
        if server.wanted() != Wanted::Active
            || matches!(server.state(), ServerState::Disabled | ServerState::Dormant)
        {
            return Relaunched::Reconcile;
        }
        let next = self.transition(ctx, name, &Trigger::NeedsCatalogue);
        self.enqueue_catalogue(name);
        Relaunched::CatalogueAgain(next)
    }
}
