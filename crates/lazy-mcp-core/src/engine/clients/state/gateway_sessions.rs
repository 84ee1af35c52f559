//! The HTTP gateway's sessions as the engine sees them: when each was last
//! used, in what order, whether its GET stream is open, and the timer that
//! looks at them next. The state `clients/gateway_sessions.rs` drives, apart from it
//! so that `Clients` (`clients/machine.rs`) names it without importing that code
//! (no import cycle). Its fields are private here; it decides which sessions
//! end, the router says so to the host (`closeClient`).

use crate::engine::events::ClientId;
use crate::engine::timers::TimerId;
use crate::vec_map::VecMap;

/// Every session the gateway took a body for and has not said ended.
#[derive(Debug, Default)]
pub(in crate::engine) struct GatewaySessions {
    sessions: VecMap<ClientId, Use>,
    /// Uses counted so far: a session's `order` is its last one's number.
    uses: u64,
    /// The timer armed at [`GatewaySessions::next_look`], while one is.
    timer: Option<TimerId>,
}

#[derive(Debug)]
struct Use {
    /// When it was last used: a body taken, an answer, its stream closed, or
    /// found in use (`review`).
    last_ms: u64,
    /// Which body that was, counted: "least recently used" among sessions
    /// last used in the same millisecond.
    order: u64,
    /// Its GET stream is open: a client still listening (VS Code's).
    streaming: bool,
}

impl GatewaySessions {
    // ---- inputs ------------------------------------------------------------

    /// The gateway took a body of `client` at `now_ms`: its session is used.
    /// Returns whether this began it (a session the engine did not know).
    pub(in crate::engine) fn handle_post(&mut self, client: &str, now_ms: u64) -> bool {
        self.uses += 1;
        if let Some(session) = self.sessions.get_mut(client) {
            session.last_ms = now_ms;
            session.order = self.uses;
            return false;
        }
        let session = Use {
            last_ms: now_ms,
            order: self.uses,
            streaming: false,
        };
        self.sessions.insert(client.to_string(), session);
        true
    }

    /// `client` was answered at `now_ms`: a use (a long call's answer is not
    /// followed at once by its session's end).
    pub(in crate::engine) fn handle_answered(&mut self, client: &str, now_ms: u64) {
        if let Some(session) = self.sessions.get_mut(client) {
            session.last_ms = now_ms;
        }
    }

    /// `client`'s GET stream opened or closed at `now_ms` (a close is its last use).
    pub(in crate::engine) fn handle_stream(&mut self, client: &str, open: bool, now_ms: u64) {
        if let Some(session) = self.sessions.get_mut(client) {
            session.streaming = open;
            if !open {
                session.last_ms = now_ms;
            }
        }
    }

    /// `client`'s session ended (the host said so).
    pub(in crate::engine) fn handle_closed(&mut self, client: &str) {
        self.sessions.remove(client);
    }

    /// The sessions to end now, each removed, and how many of them (the
    /// first ones) were idle: those unused for `idle_ms` (0: never), then
    /// while more than `cap` remain the least recently used, never `keep`
    /// (the one just begun). A session in use (its stream open, or `owes` it
    /// an answer) is used now.
    pub(in crate::engine) fn review(
        &mut self,
        now_ms: u64,
        (idle_ms, cap): (u64, u64),
        keep: Option<&str>,
        owes: impl Fn(&str) -> bool,
    ) -> (Vec<ClientId>, usize) {
        let mut ended = Vec::new();
        for (client, session) in self.sessions.iter_mut() {
            if session.streaming || owes(client) {
                session.last_ms = now_ms;
            } else if idle_ms > 0 && now_ms.saturating_sub(session.last_ms) >= idle_ms {
                ended.push(client.clone());
            }
        }
        for client in &ended {
            self.sessions.remove(client);
        }
        let idle = ended.len();
        while self.sessions.len() as u64 > cap.max(1) {
            // The least recently used (a plain loop: `min_by_key` was twice the code).
            let mut victim: Option<(&ClientId, (u64, u64))> = None;
            for (client, session) in self.sessions.iter() {
                let used = (session.last_ms, session.order);
                if Some(client.as_str()) != keep && victim.is_none_or(|(_, v)| used < v) {
                    victim = Some((client, used));
                }
            }
            let Some(victim) = victim.map(|(client, _)| client.clone()) else {
                break;
            };
            self.sessions.remove(&victim);
            ended.push(victim);
        }
        (ended, idle)
    }

    /// The timer now armed for the next look (none: none armed).
    pub(in crate::engine) fn set_timer(&mut self, timer: Option<TimerId>) -> Option<TimerId> {
        std::mem::replace(&mut self.timer, timer)
    }

    // ---- reads -------------------------------------------------------------

    /// When a session may have been idle for `idle_ms` (0: never ends):
    /// its earliest last use plus that; none without sessions.
    pub(in crate::engine) fn next_look(&self, idle_ms: u64) -> Option<u64> {
        if idle_ms == 0 {
            return None;
        }
        let earliest = self.sessions.values().map(|s| s.last_ms).min()?;
        Some(earliest.saturating_add(idle_ms))
    }

    pub(in crate::engine) fn timer(&self) -> Option<TimerId> {
        self.timer
    }
}
