//! The inputs of a server's auth machine, named: what the router hands
//! `Servers::handle_auth` (a file of its own: the router and the timers
//! name it without importing the servers' code).

use crate::engine::auth_contract::{RefreshOutcome, SignInOutcome};
use crate::engine::events::ConnId;

/// An input for a server's auth machine, named (`Servers::handle_auth`
/// hands it over with what the machine reads).
pub(in crate::engine) enum AuthInput<'a> {
    /// `conn` met a challenge (`had_token`, the `WWW-Authenticate` header).
    Challenge {
        conn: ConnId,
        status: u16,
        had_token: bool,
        challenge: Option<&'a str>,
    },
    RefreshFinished(RefreshOutcome, &'a str),
    SignInFinished(SignInOutcome, &'a str, u32),
    /// Another window or process stored tokens for its URL.
    TokensStoredElsewhere,
    /// Its state changed (a Sign In asked for while cataloguing starts).
    StateChanged,
    /// The user commands Sign In, Cancel and Sign Out.
    SignIn,
    CancelSignIn,
    SignOut,
    /// The bound of the calls waiting on `conn` passed.
    WaitExpired(ConnId),
}

impl AuthInput<'_> {
    /// The connection the input names (else the server's current one).
    pub(in crate::engine) fn conn(&self) -> Option<ConnId> {
        match self {
            AuthInput::Challenge { conn, .. } | AuthInput::WaitExpired(conn) => Some(*conn),
            _ => None,
        }
    }
}
