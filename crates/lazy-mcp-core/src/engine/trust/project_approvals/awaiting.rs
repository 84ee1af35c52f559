//! Project servers waiting for the user's approval: the state
//! `project_approvals.rs` keeps, a part of `Trust` (`trust/machine.rs`). Apart
//! from that code so that `Trust` names it without importing the code that
//! drives it (no import cycle). Its fields
//! are its own: one input (`arrived`), reads for the snapshot and calls.

use crate::config::host_policy::ApprovalRequest;
use crate::engine::aggregate_names::SEPARATOR;
use crate::vec_map::VecSet;

#[derive(Debug, Default)]
pub(in crate::engine) struct AwaitingApproval {
    requests: Vec<ApprovalRequest>,
    /// (project, name, fingerprint) already announced: a changed launch is new.
    announced: VecSet<(String, String, String)>,
}

impl AwaitingApproval {
    /// A config load's requests replace the last ones; returns the positions of
    /// those never announced before (now marked announced).
    pub(in crate::engine) fn arrived(&mut self, requests: Vec<ApprovalRequest>) -> Vec<usize> {
        let key = |r: &ApprovalRequest| (r.project.clone(), r.name.clone(), r.fingerprint.clone());
        let new: Vec<usize> = (0..requests.len())
            .filter(|&at| {
                requests
                    .get(at)
                    .is_some_and(|r| !self.announced.contains(&key(r)))
            })
            .collect();
        for r in &requests {
            self.announced.insert(key(r));
        }
        self.requests = requests;
        new
    }

    /// The servers waiting now (the snapshot's `needsApproval`).
    pub(in crate::engine) fn requests(&self) -> &[ApprovalRequest] {
        &self.requests
    }

    /// For a call to `server__tool` (or `server`) of a server that waits for
    /// approval: why it fails.
    pub(in crate::engine) fn refusal_for(&self, exposed: &str) -> Option<String> {
        self.requests.iter().find_map(|r| {
            let prefix = format!("{}{SEPARATOR}", r.name);
            (exposed == r.name || exposed.starts_with(&prefix)).then(|| {
                format!(
                    "MCP server '{}' is defined in {} and needs your approval before it runs: {}",
                    r.name, r.source.file, r.action
                )
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::model::{ConfigFormat, ConfigScope, SourceRef};

    fn request(name: &str, fingerprint: &str) -> ApprovalRequest {
        ApprovalRequest {
            name: name.into(),
            source: SourceRef {
                format: ConfigFormat::ClaudeCode,
                scope: ConfigScope::Project,
                file: "/p/.mcp.json".into(),
                line: 1,
                column: 1,
                workspace_folder: Some("/p".into()),
            },
            project: "/p".into(),
            fingerprint: fingerprint.into(),
            command_line: "node a.js".into(),
            reads_outside_project: Vec::new(),
            changed: false,
            action: "approve".into(),
        }
    }

    #[test]
    fn a_definition_is_new_once_and_again_when_its_launch_changes() {
        let mut awaiting = AwaitingApproval::default();
        assert_eq!(
            awaiting.arrived(vec![request("a", "1"), request("b", "1")]),
            vec![0, 1]
        );
        assert_eq!(
            awaiting.arrived(vec![request("a", "1"), request("b", "2")]),
            vec![1]
        );
        assert_eq!(awaiting.requests().len(), 2);
        assert_eq!(awaiting.arrived(Vec::new()), Vec::<usize>::new());
        assert!(awaiting.requests().is_empty());
    }

    #[test]
    fn a_call_to_a_server_waiting_for_approval_says_where_it_is_defined() {
        let mut awaiting = AwaitingApproval::default();
        awaiting.arrived(vec![request("a", "1")]);
        let why = "MCP server 'a' is defined in /p/.mcp.json and needs your approval before it runs: approve";
        assert_eq!(awaiting.refusal_for("a__search").as_deref(), Some(why));
        assert_eq!(awaiting.refusal_for("a").as_deref(), Some(why));
        assert_eq!(awaiting.refusal_for("ab__search"), None);
        assert_eq!(awaiting.refusal_for("b__search"), None);
    }
}
