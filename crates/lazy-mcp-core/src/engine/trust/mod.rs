//! Trust, one owner (`machine.rs`, `Trust`): project servers waiting for
//! approval, and listings held against the approved definitions.
//!
//! Order of the rooms, top to bottom: `held_definitions` (decides over
//! `Trust`) → `machine` (`Trust`), `server_reads` → `pins`,
//! `project_approvals`, `baseline_json` → `approved_definitions` →
//! `definition_review`.

pub mod approved_definitions;
mod baseline_json;
pub mod definition_review;
pub mod held_definitions;
pub(super) mod machine;
pub(super) mod pins;
pub(super) mod project_approvals;
mod server_reads;
