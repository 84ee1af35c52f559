//! Project servers that wait for the user's approval (config/project_approval.rs
//! decides which; host_policy.rs keeps them unmanaged): never spawned,
//! catalogued or connected. The engine keeps the list for the snapshot, tells
//! the user once per definition (one announcement for all the new ones, never
//! one per server), and answers a call naming one of them with how to approve.

use crate::config::host_policy::{approval_action, ApprovalRequest, ApprovalVia};
use crate::engine::effects::{AnnounceAction, Effect, LogLevel};

pub(in crate::engine) mod awaiting;

use awaiting::AwaitingApproval;

impl AwaitingApproval {
    /// A config load finished: these project servers wait for approval. The
    /// new ones (never announced) get one announcement for all of them.
    pub(in crate::engine) fn handle_requests(
        &mut self,
        requests: Vec<ApprovalRequest>,
        via: ApprovalVia,
    ) -> Option<Effect> {
        let arrived = self.arrived(requests);
        let requests = self.requests();
        let new: Vec<&ApprovalRequest> =
            arrived.iter().filter_map(|&at| requests.get(at)).collect();
        if new.is_empty() {
            return None;
        }
        let names: Vec<&str> = new.iter().map(|r| r.name.as_str()).collect();
        let message = approval_message(&new, via);
        let servers = names.iter().map(|n| n.to_string()).collect();
        Some(Effect::Announce {
            level: LogLevel::Warn,
            server: match names.as_slice() {
                [one] => Some(one.to_string()),
                _ => None,
            },
            message,
            actions: vec![
                AnnounceAction::Allow,
                AnnounceAction::Review,
                AnnounceAction::Dismiss,
            ],
            servers,
        })
    }
}

/// "This folder defines 3 MCP servers: a, b, c" with what each would run is
/// in the review; the message says what to do.
fn approval_message(new: &[&ApprovalRequest], via: ApprovalVia) -> String {
    let names: Vec<&str> = new.iter().map(|r| r.name.as_str()).collect();
    let changed = new.iter().filter(|r| r.changed).count();
    let what = match (names.len(), changed) {
        (1, 1) => format!("The launch of MCP server {} changed since you approved it", names.join(", ")),
        (1, _) => format!("This folder defines an MCP server: {}", names.join(", ")),
        (n, 0) => format!("This folder defines {n} MCP servers: {}", names.join(", ")),
        (n, c) => format!(
            "This folder defines {n} MCP servers that need approval ({c} changed since approved): {}",
            names.join(", ")
        ),
    };
    match via {
        ApprovalVia::VsCode => format!("{what}. Nothing of it runs until you allow it."),
        ApprovalVia::Cli => {
            // One command for all of them (the same project in the CLI).
            let project = new.first().map(|r| r.project.as_str()).unwrap_or_default();
            format!(
                "{what}. Defined in this project's files, so not started until you approve: to approve, {}",
                approval_action(via, project, &names)
            )
        }
    }
}
