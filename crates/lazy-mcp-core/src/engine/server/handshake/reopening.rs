//! A connection to open again, as the servers decide it (a handshake that
//! falls back, or an era that changed under it), for the router to carry
//! out. Kept beside the handshake it starts with: `era.rs` and `listing.rs`
//! hand one on, and `handshake.rs` imports neither.

use crate::engine::server::machines::handshake::machine::Handshake;
use crate::engine::server::purpose::Purpose;

/// A connection to drop (`why`) and open again for the same purpose with
/// `handshake` (the router does both).
pub(in crate::engine) struct Reopening {
    pub(in crate::engine::server) handshake: Handshake,
    pub(in crate::engine::server) why: &'static str,
    pub(in crate::engine::server) purpose: Purpose,
    pub(in crate::engine::server) interactive: bool,
}

impl Reopening {
    /// Taken apart for the router: why the connection is dropped, and the
    /// handshake, purpose and interactivity it is opened again with.
    pub(in crate::engine) fn into_parts(self) -> (&'static str, Handshake, Purpose, bool) {
        (self.why, self.handshake, self.purpose, self.interactive)
    }
}
