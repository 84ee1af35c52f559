//! The HTTP gateway's session policy (the router of
//! `state/gateway_sessions.rs`): clients that vanish without DELETE (the SDK
//! client's `close()` sends none) are reclaimed after `sessionIdleMs` with no
//! request and no open stream, and beyond `maxSessions` the least recently
//! used session ends, so memory stays bounded whatever clients do. The host
//! says what happened (`clientPost`, `clientStreamOpened`/`Closed`, `clientDisconnected`);
//! the engine decides, looks again by one timer in the table, and tells the
//! host to end a session (`closeClient`). The host keeps no clock of its own.

use super::context::ClientsContext;
use super::Clients;
use crate::engine::effects::{Effect, LogLevel};
use crate::engine::settings::Settings;
use crate::engine::timers::TimerPurpose;
use crate::protocol::client_message::ClientBody;

/// The sessions' policy: (`sessionIdleMs`, `maxSessions`).
pub(in crate::engine) fn session_policy(settings: &Settings) -> (u64, u64) {
    (settings.session_idle_ms, settings.max_sessions)
}

impl Clients {
    /// Whether the gateway takes a POST body (`clientPost`): not refused with
    /// an HTTP status (a single modern-era request's envelope or headers),
    /// and in a session (`in_session`), opening one (an `initialize`), or
    /// sessionless. Not taken: the gateway answers from the routing alone.
    #[inline]
    pub(in crate::engine) fn takes_post(&self, body: &ClientBody, in_session: bool) -> bool {
        let refused = !body.batch
            && (body.messages.first())
                .and_then(|m| m.error.as_ref())
                .is_some_and(|e| e.status.is_some());
        !refused && (in_session || body.opens_session || body.sessionless)
    }

    /// `clientPost`: `client`'s session is used now; one not known before
    /// began, and the sessions are reviewed.
    pub(in crate::engine) fn gateway_post(
        &mut self,
        client: &str,
        policy: (u64, u64),
        ctx: &mut ClientsContext<'_>,
    ) {
        if self.gateway_posted(client, ctx.now_ms) {
            self.review_gateway_sessions(Some(client), policy, ctx);
        }
    }

    /// Its timer fired (the armed one is gone from the table).
    pub(in crate::engine) fn gateway_sessions_timer(
        &mut self,
        policy: (u64, u64),
        ctx: &mut ClientsContext<'_>,
    ) {
        self.gateway_sessions_timer_set(None);
        self.review_gateway_sessions(None, policy, ctx);
    }

    /// Ends the sessions idle for `sessionIdleMs` and those beyond
    /// `maxSessions` (never `keep`, the one just begun), one log line for
    /// them; then the timer for the next look.
    #[inline(never)]
    fn review_gateway_sessions(
        &mut self,
        keep: Option<&str>,
        policy: (u64, u64),
        ctx: &mut ClientsContext<'_>,
    ) {
        let (ended, idle) = self.gateway_sessions_ended(ctx.now_ms, policy, keep);
        if !ended.is_empty() {
            let message = format!(
                "gateway: ended {idle} idle session(s) (idle {} ms) and {} beyond the cap of {}",
                policy.0,
                ended.len() - idle,
                policy.1
            );
            self.log(LogLevel::Info, message);
            for (at, client) in ended.into_iter().enumerate() {
                let idle = at < idle;
                self.outbox().push(Effect::CloseClient { client, idle });
            }
        }
        self.arm_gateway_sessions_timer(policy.0, ctx);
    }

    /// The sessions' timer armed for the next look (`idle_ms`, `sessionIdleMs`,
    /// after the earliest last use), or dropped when none is due (no session, or 0).
    pub(in crate::engine) fn arm_gateway_sessions_timer(
        &mut self,
        idle_ms: u64,
        ctx: &mut ClientsContext<'_>,
    ) {
        let sessions = self.gateway_sessions();
        let (next, armed) = (sessions.next_look(idle_ms), sessions.timer());
        let timer = ctx.keep_timer(armed, TimerPurpose::GatewaySessions, next);
        self.gateway_sessions_timer_set(timer);
    }
}
