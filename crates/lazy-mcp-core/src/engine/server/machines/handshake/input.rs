//! The inputs of a connection's handshake, named: what the router hands
//! `Servers::with_handshake` (a file of its own: the router, the timers and
//! the answers' dispatch name it without importing the servers' code).

use crate::engine::server::machines::handshake::machine::HandshakeMessage;
use serde_json::Value;

pub(in crate::engine) enum HandshakeInput<'a> {
    /// The host opened the connection: it starts (a modern verdict's
    /// discover result is read from the catalogue by `Servers`).
    Opened,
    /// The answer to `server/discover` or `initialize`.
    Answer(HandshakeMessage, Result<Value, Value>),
    /// Its timer fired: the bound (ms) that passed.
    Timeout(u64),
    /// It closed before it went live (`detail`: the stderr tail, for the log
    /// only), or (`close`: the engine closes it) its first HTTP exchange got
    /// no answer in time.
    Closed {
        cause: &'a str,
        detail: &'a str,
        close: bool,
    },
}

impl<'a> HandshakeInput<'a> {
    pub(in crate::engine) fn closed(cause: &'a str, detail: &'a str, close: bool) -> Self {
        HandshakeInput::Closed {
            cause,
            detail,
            close,
        }
    }
}
