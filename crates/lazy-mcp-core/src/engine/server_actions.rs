//! What a user can do with a server in its current state, and how far along
//! it is: the snapshot carries both, so the VS Code tree, its menus, the
//! Diagnostics links and the CLI render the same answer instead of each
//! deciding from the state.

use crate::engine::auth_contract::AuthSnapshot;
use crate::engine::state::ServerState;
use serde::{Deserialize, Serialize};

/// A user action on one server; each maps to one event (`enable`, `disable`,
/// `connectNow`, `disconnect`, `refreshCatalogue`, `signIn`, `signOut`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ServerAction {
    Enable,
    Disable,
    Connect,
    Disconnect,
    Refresh,
    /// A server that signs in with OAuth and needs it now.
    SignIn,
    /// A server that signs in with OAuth and is signed in.
    SignOut,
}

impl ServerAction {
    /// Every action, in menu order.
    pub const ALL: [ServerAction; 7] = [
        ServerAction::Enable,
        ServerAction::Disable,
        ServerAction::Connect,
        ServerAction::Disconnect,
        ServerAction::Refresh,
        ServerAction::SignIn,
        ServerAction::SignOut,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ServerAction::Enable => "enable",
            ServerAction::Disable => "disable",
            ServerAction::Connect => "connect",
            ServerAction::Disconnect => "disconnect",
            ServerAction::Refresh => "refresh",
            ServerAction::SignIn => "signIn",
            ServerAction::SignOut => "signOut",
        }
    }

    /// The verb of a Diagnostics link (`lazy-mcp://verb?server=…`): lower case,
    /// since it is the link's host part.
    pub fn link_verb(self) -> &'static str {
        match self {
            ServerAction::SignIn => "sign-in",
            ServerAction::SignOut => "sign-out",
            other => other.as_str(),
        }
    }

    /// The action a Diagnostics link's verb names ([`ServerAction::link_verb`]
    /// read back; WASM `serverActionOfLinkVerb`), so hosts keep no copy of the
    /// verbs. `None` for any other verb (`open`, `approve`, ...).
    pub fn from_link_verb(verb: &str) -> Option<ServerAction> {
        ServerAction::ALL
            .into_iter()
            .find(|action| action.link_verb() == verb)
    }

    /// What a link or button says.
    pub fn label(self) -> &'static str {
        match self {
            ServerAction::Enable => "Enable",
            ServerAction::Disable => "Disable",
            ServerAction::Connect => "Connect",
            ServerAction::Disconnect => "Disconnect",
            ServerAction::Refresh => "Refresh",
            ServerAction::SignIn => "Sign in",
            ServerAction::SignOut => "Sign out",
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

/// The actions the state (and, for an OAuth server, its sign-in) allows now, in menu order.
pub fn allowed_actions(state: &ServerState, auth: Option<&AuthSnapshot>) -> Vec<ServerAction> {
    use ServerAction::*;
    let sign_in = match auth {
        Some(a) if a.needs_sign_in && !a.signing_in => Some(SignIn),
        Some(a) if !a.needs_sign_in => Some(SignOut),
        _ => None, // no OAuth, or a sign-in under way
    };
    let mut actions: Vec<ServerAction> = sign_in.into_iter().collect();
    actions.extend(by_state(state));
    actions
}

fn by_state(state: &ServerState) -> Vec<ServerAction> {
    use ServerAction::*;
    match state {
        // Off: nothing to refresh (a dormant server is never started until enabled).
        ServerState::Disabled => vec![Enable],
        ServerState::Dormant => vec![Enable, Disable],
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
    fn every_state_allows_enable_exactly_when_off_and_refresh_exactly_when_on() {
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
            let actions = allowed_actions(state, None);
            // Issue 23: Refresh on a dormant server contradicted "never started until you Enable it".
            assert_eq!(
                actions.contains(&ServerAction::Refresh),
                progress(state) != Progress::Off,
                "{state:?}"
            );
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

    #[test]
    fn a_link_verb_reads_back_as_its_action_and_nothing_else_does() {
        for action in ServerAction::ALL {
            assert_eq!(
                ServerAction::from_link_verb(action.link_verb()),
                Some(action)
            );
        }
        assert_eq!(
            ServerAction::from_link_verb("sign-in"),
            Some(ServerAction::SignIn)
        );
        assert_eq!(
            ServerAction::from_link_verb("sign-out"),
            Some(ServerAction::SignOut)
        );
        assert_eq!(
            ServerAction::from_link_verb("enable"),
            Some(ServerAction::Enable)
        );
        // A link's host part is lower case: the camel-case names are not verbs.
        for other in [
            "signIn",
            "signin",
            "open",
            "approve",
            "review-definitions",
            "",
        ] {
            assert_eq!(ServerAction::from_link_verb(other), None, "{other}");
        }
    }

    #[test]
    fn an_oauth_server_offers_sign_in_while_it_needs_it_else_sign_out() {
        let auth = |needs_sign_in, signing_in| AuthSnapshot {
            needs_sign_in,
            reason: None,
            next_step: None,
            signing_in,
            refreshing: false,
        };
        let state = ServerState::NeedsAuth;
        let first = |a: Option<&AuthSnapshot>| allowed_actions(&state, a).first().copied();
        assert_eq!(first(Some(&auth(true, false))), Some(ServerAction::SignIn));
        assert_eq!(
            first(Some(&auth(false, false))),
            Some(ServerAction::SignOut)
        );
        assert_eq!(first(Some(&auth(true, true))), Some(ServerAction::Connect));
        assert_eq!(first(None), Some(ServerAction::Connect));
    }
}
