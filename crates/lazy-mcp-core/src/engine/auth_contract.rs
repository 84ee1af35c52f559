//! The OAuth types of the host contract: what an `open` carries to run OAuth
//! (`OAuthBinding`), how a sign-in or refresh ended (events), and a server's
//! sign-in as the snapshot shows it. Apart from `auth.rs` (the decisions), so
//! events and effects depend on these types only, never on the engine.

use crate::config::model::OAuthConfig;
use serde::{Deserialize, Serialize};

/// What the host needs to run OAuth for one server: the URL the tokens are bound
/// to, the `oauth` config key and where discovery starts. Never a token.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuthBinding {
    pub url: String,
    #[serde(default)]
    pub config: OAuthConfig,
    /// The protected resource metadata URL the server's 401 advertised
    /// (`WWW-Authenticate: … resource_metadata="…"`, RFC 9728 §5.1); absent
    /// until one was seen: discovery then tries the well-known paths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_metadata_url: Option<String>,
}

/// How a sign-in ended (`signInFinished`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SignInOutcome {
    Ok,
    Cancelled,
    Failed,
}

/// How a refresh ended (`refreshFinished`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RefreshOutcome {
    Ok,
    /// The authorization server refused the refresh token (`invalid_grant`).
    InvalidGrant,
    Failed,
}

/// A server's sign-in as Diagnostics shows it (only for servers that use OAuth).
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthSnapshot {
    /// Sign-in is needed before the server can be used.
    pub needs_sign_in: bool,
    /// Why (not signed in, the sign-in expired, cancelled, failed: …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What the user does next, in the host's words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_step: Option<String>,
    pub signing_in: bool,
    pub refreshing: bool,
}
