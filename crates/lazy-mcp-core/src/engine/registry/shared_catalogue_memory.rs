//! What the engine remembers about the shared catalogue between events, and
//! the decisions over it: which keys a lookup reads, whether an answer is the
//! one awaited, whether a file's key holds for this definition and roots, and
//! under which key a listed server is written. A part of `Registry`
//! (`registry/machine.rs`), apart from `shared_catalogue.rs`'s code (which
//! carries them out) so that `Registry` names it without importing the code
//! that drives it (no import cycle); its fields are this file's own.

use crate::shared::launch::SharedLaunch;
use crate::vec_map::{VecMap, VecSet};

/// What the engine remembers about the shared catalogue between events.
#[derive(Debug, Default)]
pub(in crate::engine) struct SharedCatalogue {
    /// Per server, the key of its last lookup: one lookup per definition, key
    /// and roots (after a miss the server is catalogued as before).
    looked_up: VecMap<String, String>,
    /// Servers listed in this event, whose entry goes to the shared catalogue
    /// at its end (with the vectors made then).
    to_write: VecSet<String>,
    /// Servers known to ask for roots (seen here, or the entry taken said so):
    /// written under the roots' key even from a connection that was not asked
    /// (attached to a shared process whose roots another client answered).
    asks_roots: VecSet<String>,
    /// Of those, the ones catalogued as never asking that asked later: their
    /// entry under the key alone is overwritten too.
    asked_late: VecSet<String>,
}

/// The key of an entry that holds only for the client's workspace roots.
fn roots_slot(launch: &SharedLaunch) -> String {
    format!("{}-{}", launch.key, launch.roots_key)
}

impl SharedCatalogue {
    /// The keys to read for server `name` under `launch`, best first; None
    /// when this definition and these roots were looked up already.
    pub(in crate::engine) fn look_up(
        &mut self,
        name: &str,
        launch: SharedLaunch,
    ) -> Option<Vec<String>> {
        let slot = roots_slot(&launch);
        if self.looked_up.get(name) == Some(&slot) {
            return None;
        }
        self.looked_up.insert(name.to_string(), slot.clone());
        // A project server's entry holds only for the same roots; another's, for
        // any roots unless it asked for them (then under the roots' key too).
        Some(if launch.roots_bound {
            vec![slot]
        } else {
            vec![slot, launch.key]
        })
    }

    /// Whether `key` answers server `name`'s last lookup (a newer one's answer decides).
    pub(in crate::engine) fn answers_last_lookup(&self, name: &str, key: &str) -> bool {
        self.looked_up.get(name).is_some_and(|slot| {
            slot == key
                || slot
                    .strip_prefix(key)
                    .is_some_and(|rest| rest.starts_with('-'))
        })
    }

    /// The answer came when the server no longer waited: the next need of a
    /// catalogue (after a Disable, say) looks again.
    pub(in crate::engine) fn forget_lookup(&mut self, name: &str) {
        self.looked_up.remove(name);
    }

    /// Whether a file under `key` holds for this definition and roots (`launch`).
    pub(in crate::engine) fn key_holds(launch: &SharedLaunch, key: &str) -> bool {
        key == roots_slot(launch) || (!launch.roots_bound && key == launch.key)
    }

    /// Server `name`'s entry (saying `entry_asks_roots`) was taken from the
    /// file under `key`. False: the entry is not to be used, because it is the
    /// key alone's and says the server asked for roots (a client of other
    /// roots saw it ask after it was shared). One under the roots' key of a
    /// launch not bound to roots says the server asks for roots, so it is
    /// written under that key from now on.
    pub(in crate::engine) fn entry_taken(
        &mut self,
        name: &str,
        launch: &SharedLaunch,
        key: &str,
        entry_asks_roots: Option<bool>,
    ) -> bool {
        let by_roots = key == roots_slot(launch);
        if !by_roots && entry_asks_roots == Some(true) {
            self.asks_roots.insert(name.to_string());
            return false;
        }
        if !launch.roots_bound && by_roots {
            self.asks_roots.insert(name.to_string());
        }
        true
    }

    /// Server `name` was listed: its entry goes to the shared catalogue at
    /// the event's end.
    pub(in crate::engine) fn listed(&mut self, name: &str) {
        self.to_write.insert(name.to_string());
    }

    /// Server `name` asked for roots; `was_known_free`: its entry went out
    /// saying it never asks (so the key alone's file is overwritten too).
    /// True when this is news.
    pub(in crate::engine) fn asks_roots(&mut self, name: &str, was_known_free: bool) -> bool {
        if was_known_free {
            self.asked_late.insert(name.to_string());
        }
        self.asks_roots.insert(name.to_string())
    }

    /// Whether `name` was seen asking for roots in this engine.
    pub(in crate::engine) fn known_to_ask_roots(&self, name: &str) -> bool {
        self.asks_roots.contains(name)
    }

    /// Whether `name` asked for roots after an entry saying it never asks went out.
    pub(in crate::engine) fn asked_late(&self, name: &str) -> bool {
        self.asked_late.contains(name)
    }

    /// Whether some server was listed in this event (most events list none).
    pub(in crate::engine) fn any_listed(&self) -> bool {
        !self.to_write.is_empty()
    }

    /// The servers listed in this event, once.
    pub(in crate::engine) fn take_listed(&mut self) -> VecSet<String> {
        std::mem::take(&mut self.to_write)
    }

    /// The key a server's entry is written under: the roots' key when its
    /// launch is bound to roots or it asks for them (`asks_roots`).
    pub(in crate::engine) fn write_key(launch: &SharedLaunch, asks_roots: bool) -> String {
        if launch.roots_bound || asks_roots {
            roots_slot(launch)
        } else {
            launch.key.clone()
        }
    }
}

#[cfg(test)]
#[path = "shared_catalogue_memory_tests.rs"]
mod tests;
