//! The HTTP gateway's session policy (the router of
//! `gateway_sessions/table.rs`): clients that vanish without DELETE (the SDK
//! client's `close()` sends none) are reclaimed after `sessionIdleMs` with no
//! request and no open stream, and beyond `maxSessions` the least recently
//! used session ends, so memory stays bounded whatever clients do. The host
//! says what happened (`clientPost`, `clientStreamOpened`/`Closed`, `clientDisconnected`);
//! the engine decides, looks again by one timer in the table, and tells the
//! host to end a session (`closeClient`). The host keeps no clock of its own.

pub(in crate::engine) mod table;

use super::Clients;
use crate::engine::effects::{Effect, LogLevel};
use crate::engine::router::Engine;
use crate::engine::timers::TimerPurpose;

impl Engine {
    /// The gateway took a POST body of `client` (`clientPost`): its session is
    /// used now. One the engine did not know began: the sessions are reviewed
    /// (beyond `maxSessions` the least recently used others end).
    pub(in crate::engine) fn on_gateway_post(&mut self, client: &str) {
        if self
            .clients
            .gateway_sessions
            .handle_post(client, self.now_ms)
        {
            self.review_gateway_sessions(Some(client));
        }
    }

    /// `clientStreamOpened`/`clientStreamClosed`: `client`'s GET stream.
    pub(in crate::engine) fn on_client_stream(&mut self, client: &str, open: bool) {
        self.clients
            .gateway_sessions
            .handle_stream(client, open, self.now_ms);
    }

    /// Its timer fired (the armed one is gone from the table).
    pub(in crate::engine) fn on_gateway_sessions_timer(&mut self) {
        self.clients.gateway_sessions.set_timer(None);
        self.review_gateway_sessions(None);
    }

    /// Ends the sessions idle for `sessionIdleMs` and those beyond
    /// `maxSessions` (never `keep`, the one just begun), one log line for
    /// them; then the timer for the next look.
    #[inline(never)]
    fn review_gateway_sessions(&mut self, keep: Option<&str>) {
        let settings = self.settings();
        let policy = (settings.session_idle_ms, settings.max_sessions);
        let Clients {
            gateway_sessions,
            owed,
            ..
        } = &mut self.clients;
        let (ended, idle) = gateway_sessions.review(self.now_ms, policy, keep, |c| owed.owes(c));
        if !ended.is_empty() {
            let message = format!(
                "gateway: ended {idle} idle session(s) (idle {} ms) and {} beyond the cap of {}",
                policy.0,
                ended.len() - idle,
                policy.1
            );
            self.log(LogLevel::Info, None, message);
            for (at, client) in ended.into_iter().enumerate() {
                let idle = at < idle;
                self.effects.push(Effect::CloseClient { client, idle });
            }
        }
        self.arm_gateway_sessions_timer();
    }

    /// The sessions' timer armed for the next look (`sessionIdleMs` after the
    /// earliest last use), or dropped when none is due (no session, or 0).
    pub(in crate::engine) fn arm_gateway_sessions_timer(&mut self) {
        let idle = self.settings().session_idle_ms;
        let next = self.clients.gateway_sessions.next_look(idle);
        match (self.clients.gateway_sessions.timer(), next) {
            (Some(timer), Some(at)) => self.rearm_timer(timer, at),
            (None, Some(at)) => {
                let timer = self.set_timer(TimerPurpose::GatewaySessions, at);
                self.clients.gateway_sessions.set_timer(Some(timer));
            }
            (armed, None) => {
                self.cancel_timer(armed);
                self.clients.gateway_sessions.set_timer(None);
            }
        }
    }
}
