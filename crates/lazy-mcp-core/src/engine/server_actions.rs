//! What a user can do with a server in its current state, and how far along
//! it is: the snapshot carries both, so the VS Code tree, its menus, the
//! Diagnostics links and the CLI render the same answer instead of each
//! deciding from the state.

use super::ServerState;
use serde::{Deserialize, Serialize};

/// A user action on one server; each maps to one event (`enable`, `disable`,
/// `connectNow`, `disconnect`, `refreshCatalogue`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ServerAction {
    Enable,
    Disable,
    Connect,
    Disconnect,
    Refresh,
}

impl ServerAction {
    pub fn as_str(self) -> &'static str {
        match self {
            ServerAction::Enable => "enable",
            ServerAction::Disable => "disable",
            ServerAction::Connect => "connect",
            ServerAction::Disconnect => "disconnect",
            ServerAction::Refresh => "refresh",
        }
    }
}

/// Where a server stands, for hosts that wait or summarize (the CLI).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Progress {
    /// The engine leaves this state on its own (PENDING, CATALOGUING, CONNECTING).
    Busy,
    /// Its lists are known (CATALOGUED, CONNECTED).
    Ready,
    /// FAILED or NEEDS AUTH.
    Failed,
    /// DISABLED or DORMANT.
    Off,
}

/// The actions the state allows now, in menu order.
pub fn allowed_actions(state: &ServerState) -> Vec<ServerAction> {
    use ServerAction::*;
    match state {
        ServerState::Disabled => vec![Enable, Refresh],
        ServerState::Dormant => vec![Enable, Disable, Refresh],
        ServerState::Pending
        | ServerState::Catalogued
        | ServerState::Failed { .. }
        | ServerState::NeedsAuth => vec![Connect, Disable, Refresh],
        ServerState::Cataloguing => vec![Disable, Refresh],
        ServerState::Connecting | ServerState::Connected => vec![Disconnect, Disable, Refresh],
    }
}

pub fn progress(state: &ServerState) -> Progress {
    match state {
        ServerState::Pending | ServerState::Cataloguing | ServerState::Connecting => Progress::Busy,
        ServerState::Catalogued | ServerState::Connected => Progress::Ready,
        ServerState::Failed { .. } | ServerState::NeedsAuth => Progress::Failed,
        ServerState::Disabled | ServerState::Dormant => Progress::Off,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_state_allows_refresh_and_enable_exactly_when_off() {
        let states = [
            ServerState::Disabled,
            ServerState::Dormant,
            ServerState::Pending,
            ServerState::Cataloguing,
            ServerState::Catalogued,
            ServerState::Connecting,
            ServerState::Connected,
            ServerState::Failed {
                error: "x".into(),
                retry_at_ms: None,
            },
            ServerState::NeedsAuth,
        ];
        for state in &states {
            let actions = allowed_actions(state);
            assert!(actions.contains(&ServerAction::Refresh), "{state:?}");
            assert_eq!(
                actions.contains(&ServerAction::Enable),
                progress(state) == Progress::Off,
                "{state:?}"
            );
            assert_eq!(
                actions.contains(&ServerAction::Disable),
                *state != ServerState::Disabled,
                "{state:?}"
            );
            assert!(
                !(actions.contains(&ServerAction::Connect)
                    && actions.contains(&ServerAction::Disconnect)),
                "{state:?}"
            );
        }
    }
}
