//! The router of `state/held_versions.rs`: VS Code stops a server's
//! running connection when its definition's version changes, and the stop
//! cancels every request in flight on it (a tool call ends "Canceled"). A
//! server's lists can change while the very call that started it is in
//! flight (its live listing differs from the catalogue), so while a call of
//! the window is under way a new version of an offered endpoint (or of the
//! tool index's) is held back, and published once the window is quiet by the
//! rule that closes a session that only listed (`definition_starts.rs`): no
//! client sent or was answered anything for the quiet time, no call under way.
//! Only a host that offers one definition per server holds (`hold`: the
//! aggregate endpoint is the tool index); no other host acts on a version.
//! Attached clients still get their `list_changed` at once.

use super::state::held_versions::{keep_published, quiet_at};
use crate::engine::clients::context::ClientsContext;
use crate::engine::clients::Clients;
use crate::engine::effects::EndpointInfo;
use crate::engine::server::Servers;
use crate::engine::timers::TimerPurpose;
use crate::host_limits::QUIET_BEFORE_STOP_MS;

impl Clients {
    /// The versions hosts may be told now (`publish`): while a call of the
    /// window is under way, or a version is held and the window not quiet
    /// yet, changed versions keep what hosts were told, and a timer looks
    /// again; otherwise all goes out.
    pub(super) fn hold_versions(
        &mut self,
        hold: bool,
        endpoints: &mut [EndpointInfo],
        aggregate: &mut Option<String>,
        servers: &Servers,
        ctx: &mut ClientsContext<'_>,
    ) {
        let quiet = quiet_at(self.starts().heard_at());
        let busy = hold
            && (self.call_under_way(servers)
                || (self.held_versions().is_holding() && ctx.now_ms < quiet));
        let held = busy && keep_published(self.exposure().published(), endpoints, aggregate);
        let look = held.then(|| next_look(quiet, ctx.now_ms));
        let armed = self.held_versions().timer();
        let timer = ctx.keep_timer(armed, TimerPurpose::EndpointVersions, look);
        self.versions_held(timer);
    }
}

/// When to look again: when the window is quiet, or while a call runs past
/// it (its answer starts the quiet time afresh), a quiet time later.
fn next_look(quiet: u64, now_ms: u64) -> u64 {
    if now_ms < quiet {
        quiet
    } else {
        now_ms.saturating_add(QUIET_BEFORE_STOP_MS)
    }
}
