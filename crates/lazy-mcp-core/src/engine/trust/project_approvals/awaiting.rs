//! Project servers waiting for the user's approval: the state
//! `project_approvals.rs` keeps. Apart from that code so that the router names
//! it without importing the code that drives it (no import cycle).

use crate::config::host_policy::ApprovalRequest;
use crate::vec_map::VecSet;

#[derive(Debug, Default)]
pub(in crate::engine) struct AwaitingApproval {
    pub(in crate::engine) requests: Vec<ApprovalRequest>,
    /// (project, name, fingerprint) already announced: a changed launch is new.
    pub(super) announced: VecSet<(String, String, String)>,
}
