//! Approved definitions and what is held: the state `held_definitions.rs`
//! keeps. Apart from that code so that the router names it without importing
//! the code that drives it (no import cycle); its fields stay that file's own.

use crate::engine::trust::approved_definitions::{ApprovedFile, Held};
use crate::vec_map::VecMap;

#[derive(Debug, Default)]
pub(in crate::engine) struct Pins {
    /// The shared baselines file (None: kept in memory only, as in tests).
    pub(super) file: Option<String>,
    pub(super) approved: ApprovedFile,
    /// The file is configured and not read yet: nothing is compared or created.
    pub(super) waiting_for_file: bool,
    /// The file could not be read: nothing is written over it.
    pub(super) file_broken: bool,
    pub(super) held: VecMap<String, Held>,
    /// The held set last announced per server, so each is told once.
    pub(super) announced: VecMap<String, String>,
    pub(super) write_pending: bool,
}
