//! [`Trust`], the owner of what the user trusts: the project servers waiting
//! for approval and the approved definitions (what is held). Its fields are
//! private to this file; the router feeds it through the named inputs below
//! (`held_definitions.rs` decides a check's and an approval's outcome on them)
//! and carries out what they return (`router/trust.rs`); the rest of the
//! engine reads it through `pins()` and `awaiting()`. What its inputs tell
//! the host (a notice, a refusal, a log line) waits in its outbox until the
//! router drains it (`poll_effects`).

use crate::config::host_policy::{ApprovalRequest, ApprovalVia};
use crate::config::load::FileRead;
use crate::engine::effects::Effect;
use crate::engine::outbox::Outbox;
use crate::engine::registry::catalogue::Catalogue;
use crate::engine::server::Servers;
use crate::engine::trust::pins::{FileReadOutcome, Pins};
use crate::engine::trust::project_approvals::awaiting::AwaitingApproval;

/// Approvals and held definitions, one owner.
#[derive(Debug, Default)]
pub(in crate::engine) struct Trust {
    /// Project servers waiting for the user's approval (`project_approvals.rs`).
    awaiting: AwaitingApproval,
    /// Approved definitions and what is held (`pins.rs`).
    pins: Pins,
    /// The effects its inputs yielded, until the router drains them.
    outbox: Outbox,
}

/// What a trust input reads of the rest of the engine (the servers, the
/// catalogue, the settings' `holdNewTools`, the time; `Engine::with_trust`,
/// `router/trust.rs`).
pub(in crate::engine) struct TrustCtx<'a> {
    pub(in crate::engine) servers: &'a Servers,
    pub(in crate::engine) catalogue: &'a Catalogue,
    pub(in crate::engine) hold_new_tools: bool,
    pub(in crate::engine) now_ms: u64,
}

impl Trust {
    /// The approved definitions and what is held, to read.
    pub(in crate::engine) fn pins(&self) -> &Pins {
        &self.pins
    }

    /// The project servers waiting for approval, to read.
    pub(in crate::engine) fn awaiting(&self) -> &AwaitingApproval {
        &self.awaiting
    }

    /// The baselines file the host's config sources name.
    pub(in crate::engine) fn set_file(&mut self, path: Option<String>) {
        self.pins.set_file(path);
    }

    /// The baselines file as a config round read it.
    pub(in crate::engine) fn file_read(&mut self, read: Option<&FileRead>) -> FileReadOutcome {
        self.pins.file_read(read)
    }

    /// A config load finished: these project servers wait for approval; the
    /// announcement of the new ones, if any.
    pub(in crate::engine) fn approvals_requested(
        &mut self,
        requests: Vec<ApprovalRequest>,
        via: ApprovalVia,
    ) -> Option<Effect> {
        self.awaiting.handle_requests(requests, via)
    }

    /// Before every server is compared again: what is held of servers that
    /// are gone is forgotten. The names to compare.
    pub(in crate::engine) fn recheck(&mut self, servers: &Servers) -> Vec<String> {
        self.pins.retain_servers(|name| servers.contains_key(name));
        servers.keys().cloned().collect()
    }

    /// At the event's end: the baselines file to write, when due.
    pub(in crate::engine) fn take_write(&mut self) -> Option<Effect> {
        let (path, content) = self.pins.take_write()?;
        Some(Effect::WriteApprovedDefinitions { path, content })
    }

    /// What its inputs yielded since the last drain, moved to the end of
    /// the event's `effects` (the router, right after each input).
    pub(in crate::engine) fn poll_effects(&mut self, effects: &mut Vec<Effect>) {
        self.outbox.drain_into(effects);
    }

    /// Nothing yielded is left undrained (checked at each event's end).
    pub(in crate::engine) fn outbox_is_empty(&self) -> bool {
        self.outbox.is_empty()
    }

    /// `held_definitions.rs`, to decide over the pins.
    pub(super) fn pins_mut(&mut self) -> &mut Pins {
        &mut self.pins
    }

    /// `held_definitions.rs`, to yield what an input tells the host.
    pub(super) fn outbox(&mut self) -> &mut Outbox {
        &mut self.outbox
    }
}
