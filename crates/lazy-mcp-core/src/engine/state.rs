//! The one server state enum and the one function that moves between states.
//! The transition table in ARCHITECTURE.md ("Server states") is this function written out.

use serde::{Deserialize, Serialize};

/// Where a server is in its lazy lifecycle.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "SCREAMING_SNAKE_CASE",
    rename_all_fields = "camelCase"
)]
pub enum ServerState {
    /// Disabled in config or for this session: nothing spawned, nothing exposed.
    Disabled,
    /// `autoConnect: false`: nothing spawned, nothing exposed until enabled.
    Dormant,
    /// Needs a catalogue, waiting for a cataloguing slot (declared tools are exposed as stubs).
    Pending,
    /// Connected briefly to list tools, prompts, resources and templates.
    Cataloguing,
    /// "CATALOGUED ONLY": lists known, no process or session.
    Catalogued,
    /// First use: spawning and handshaking; calls wait.
    Connecting,
    /// Live: calls are forwarded.
    Connected,
    /// Cataloguing or connecting failed, or the server crashed repeatedly.
    /// `retry_at_ms`: when the next automatic retry is due; absent once the
    /// automatic retries are used up (it stays FAILED until a user action,
    /// a config edit or a call).
    Failed {
        error: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_at_ms: Option<u64>,
    },
    /// An HTTP server answered 401/403.
    NeedsAuth,
}

impl ServerState {
    /// Upper-case label shown to users (`CATALOGUED` shown as "CATALOGUED ONLY").
    pub fn label(&self) -> &'static str {
        match self {
            ServerState::Disabled => "DISABLED",
            ServerState::Dormant => "DORMANT",
            ServerState::Pending => "PENDING",
            ServerState::Cataloguing => "CATALOGUING",
            ServerState::Catalogued => "CATALOGUED ONLY",
            ServerState::Connecting => "CONNECTING",
            ServerState::Connected => "CONNECTED",
            ServerState::Failed { .. } => "FAILED",
            ServerState::NeedsAuth => "NEEDS AUTH",
        }
    }

    /// Whether the server's endpoint (and its tools) is exposed to clients.
    pub fn is_exposed(&self) -> bool {
        !matches!(self, ServerState::Disabled | ServerState::Dormant)
    }

    /// Whether the engine holds a connection for the server in this state.
    pub fn has_connection(&self) -> bool {
        matches!(
            self,
            ServerState::Cataloguing | ServerState::Connecting | ServerState::Connected
        )
    }
}

/// What happened to a server, as far as its state is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trigger {
    /// The config says disabled, or the user disabled it for the session.
    Disable,
    /// The config says `autoConnect: false`.
    MakeDormant,
    /// Enabled (config or user); `warm` = a catalogue entry matches the fingerprint.
    Enable { warm: bool },
    /// The user enabled a dormant server: always a full handshake.
    Wake,
    /// A matching persisted catalogue entry arrived.
    WarmCatalogueFound,
    /// The catalogue must be (re)built: new/changed config, forced refresh.
    NeedsCatalogue,
    /// A cataloguing slot was granted and the connection opened.
    CatalogueStarted,
    /// All lists fetched and the connection closed.
    CatalogueSucceeded,
    /// A first call (or Connect Now) opens a connection.
    ConnectStarted,
    /// The handshake finished (from CONNECTING, or from CATALOGUING when calls were waiting).
    Connected,
    /// The connection ended without a crash loop: idle, user disconnect, crash, failed connect.
    Stopped,
    /// Failure with backoff: catalogue failed, or crashes within the window reached the limit.
    /// `retry_at_ms: None`: the automatic retries are used up.
    Fail {
        error: String,
        retry_at_ms: Option<u64>,
    },
    /// An HTTP server answered 401/403.
    AuthRequired,
    /// The retry time of a FAILED server passed, or its config was edited;
    /// `warm` = it has a catalogue.
    RetryDue { warm: bool },
}

/// The only place states change. `Err` names the impossible pair (a bug, logged).
pub fn next_state(current: &ServerState, trigger: &Trigger) -> Result<ServerState, String> {
    use ServerState as S;
    use Trigger as T;
    let next = match (current, trigger) {
        (_, T::Disable) => S::Disabled,
        (_, T::MakeDormant) => S::Dormant,
        (S::Disabled | S::Dormant, T::Enable { warm: true }) => S::Catalogued,
        (S::Disabled | S::Dormant, T::Enable { warm: false }) => S::Pending,
        (S::Dormant, T::Wake) => S::Pending,
        (S::Pending | S::Failed { .. }, T::WarmCatalogueFound) => S::Catalogued,
        (
            S::Pending
            | S::Catalogued
            | S::Failed { .. }
            | S::NeedsAuth
            | S::Cataloguing
            | S::Connecting
            | S::Connected,
            T::NeedsCatalogue,
        ) => S::Pending,
        (S::Pending | S::Failed { .. }, T::CatalogueStarted) => S::Cataloguing,
        (S::Cataloguing, T::CatalogueSucceeded) => S::Catalogued,
        (S::Pending | S::Catalogued | S::Failed { .. } | S::NeedsAuth, T::ConnectStarted) => {
            S::Connecting
        }
        (S::Connecting | S::Cataloguing, T::Connected) => S::Connected,
        (S::Connecting | S::Connected | S::Cataloguing, T::Stopped) => S::Catalogued,
        (
            S::Pending | S::Cataloguing | S::Connecting | S::Connected | S::Catalogued,
            T::Fail { error, retry_at_ms },
        ) => S::Failed {
            error: error.clone(),
            retry_at_ms: *retry_at_ms,
        },
        (S::Cataloguing | S::Connecting | S::Connected, T::AuthRequired) => S::NeedsAuth,
        (S::Failed { .. }, T::RetryDue { warm: true }) => S::Catalogued,
        (S::Failed { .. }, T::RetryDue { warm: false }) => S::Pending,
        (current, trigger) => {
            return Err(format!(
                "no transition from {} on {trigger:?}",
                current.label()
            ))
        }
    };
    Ok(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serializes_with_kind_and_camel_case_fields() {
        let failed = ServerState::Failed {
            error: "boom".into(),
            retry_at_ms: Some(5),
        };
        assert_eq!(
            serde_json::to_string(&failed).ok(),
            Some(r#"{"kind":"FAILED","error":"boom","retryAtMs":5}"#.to_string())
        );
        let gave_up = ServerState::Failed {
            error: "boom".into(),
            retry_at_ms: None,
        };
        assert_eq!(
            serde_json::to_string(&gave_up).ok(),
            Some(r#"{"kind":"FAILED","error":"boom"}"#.to_string())
        );
        assert_eq!(
            serde_json::to_string(&ServerState::NeedsAuth).ok(),
            Some(r#"{"kind":"NEEDS_AUTH"}"#.to_string())
        );
    }

    #[test]
    fn impossible_pairs_are_errors_not_panics() {
        assert!(next_state(&ServerState::Dormant, &Trigger::CatalogueSucceeded).is_err());
        assert_eq!(
            next_state(&ServerState::Cataloguing, &Trigger::Connected),
            Ok(ServerState::Connected)
        );
    }
}
