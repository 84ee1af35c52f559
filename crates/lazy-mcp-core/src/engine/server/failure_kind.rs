//! Why a connection attempt failed: the handshake machine says it, and how
//! a connection ends (`connection_end.rs`) reads it for the state it leaves
//! the server in. A leaf, so neither imports the other.

/// Why a connection attempt failed, for the state decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::engine) enum Failure {
    /// Exited, broke its pipe, refused, answered garbage, timed out.
    Crash,
    /// The server speaks a protocol version we do not (retrying will not help soon).
    Protocol,
}
