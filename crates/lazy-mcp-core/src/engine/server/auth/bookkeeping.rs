//! The sign-in bookkeeping `server/auth.rs` keeps: per server, per
//! connection, and the session's announcements. Apart from `auth.rs`'s
//! `impl Engine` so that the servers' state (`server/mod.rs`) and the router
//! name these types without importing the code that drives them (no import
//! cycle); their fields stay `auth.rs`'s own.

use crate::vec_map::VecSet;

/// Per-server sign-in bookkeeping.
#[derive(Debug, Default)]
pub(in crate::engine) struct ServerAuth {
    pub(super) refreshing: bool,
    pub(super) signing_in: bool,
    /// The current (or last) sign-in's number, echoed by `signInFinished`.
    pub(super) attempt: u32,
    /// The sign-in under way was started for waiting calls (it ends with them).
    pub(super) for_calls: bool,
    /// Why sign-in is needed, while it is.
    pub(super) needs_sign_in: Option<String>,
    /// Scopes a 403 `insufficient_scope` challenge asked for (step-up), for the next sign-in.
    pub(super) step_up_scope: Option<String>,
    /// The sign-in under way is a step-up: the connection it resumes must not ask again.
    pub(super) stepping_up: bool,
    /// RFC 9728: the protected resource metadata URL the last challenge advertised.
    pub(super) resource_metadata_url: Option<String>,
    /// Sign In was asked for while the server was being catalogued (`lazy-mcp
    /// auth login` right after start): it starts once that ends, with what its
    /// challenge said, and the NEEDS AUTH it meets is not announced: the user
    /// is signing in already.
    pub(super) sign_in_requested: bool,
}

/// Per-connection: requests held by the host after a challenge.
#[derive(Debug, Default)]
pub(in crate::engine) struct ConnAuth {
    pub held: bool,
    /// A refresh already ran for this connection: another 401 means sign-in.
    pub refreshed: bool,
    /// A step-up sign-in already ran for this connection: another
    /// `insufficient_scope` fails the calls instead of asking again.
    pub stepped_up: bool,
}

/// Session-wide: which servers were announced or dismissed.
#[derive(Debug, Default)]
pub(in crate::engine) struct SignInAnnouncements {
    pub(super) announced: VecSet<String>,
    pub(super) dismissed: VecSet<String>,
    pub(super) batch: VecSet<String>,
}
