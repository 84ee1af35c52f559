//! What the engine remembers about the shared catalogue between events.
//! Apart from `shared_catalogue.rs`'s code so that the router names it without
//! importing the code that drives it (no import cycle); its fields stay that
//! file's own.

use crate::vec_map::{VecMap, VecSet};

/// What the engine remembers about the shared catalogue between events.
#[derive(Debug, Default)]
pub(in crate::engine) struct SharedCatalogue {
    /// Per server, the key of its last lookup: one lookup per definition, key
    /// and roots (after a miss the server is catalogued as before).
    pub(super) looked_up: VecMap<String, String>,
    /// Servers listed in this event, whose entry goes to the shared catalogue
    /// at its end (with the vectors made then).
    pub(super) to_write: VecSet<String>,
    /// Servers known to ask for roots (seen here, or the entry taken said so):
    /// written under the roots' key even from a connection that was not asked
    /// (attached to a shared process whose roots another client answered).
    pub(super) asks_roots: VecSet<String>,
    /// Of those, the ones catalogued as never asking that asked later: their
    /// entry under the key alone is overwritten too.
    pub(super) asked_late: VecSet<String>,
}
