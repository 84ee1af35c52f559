//! Trust, one owner (`machine.rs`, `Trust`): project servers waiting for
//! approval, and listings held against the approved definitions.

pub mod approved_definitions;
mod baseline_json;
pub mod definition_review;
pub mod held_definitions;
pub(super) mod machine;
pub(super) mod project_approvals;
mod server_reads;
