//! A server's single-flight connect as a state machine, in quinn-proto's shape
//! (as `restart/machine.rs`): it owns (private) the calls waiting for the one
//! connect in flight, whether the cataloguing under way is an automatic retry
//! (`background`), and what it knows of the server's era for the next
//! connection (`reprobe`, `probe_unanswered`). It takes what happened through
//! `handle_*`, decides how the next connection starts
//! ([`ConnectMachine::how_to_start`]) and gives the waiting calls back with
//! [`ConnectMachine::take_waiters`] to forward or fail. The router
//! (`connect.rs`, `era.rs`, …) opens connections, forwards and fails calls,
//! and changes state only through `Engine::transition`.

use crate::engine::events::ConnId;
use crate::engine::server::calls::QueuedCall;
use crate::engine::server::machines::handshake::machine::Handshake;
use crate::engine::state::Trigger;
use crate::protocol::client_discover::Era;
use crate::protocol::methods;

/// One server's connect.
#[derive(Debug, Default)]
pub(in crate::engine) struct ConnectMachine {
    /// The server's current connection: the latest opened (for calls or for
    /// cataloguing), until it is dropped or the server stops.
    conn: Option<ConnId>,
    /// Calls waiting for the single in-flight connect.
    waiters: Vec<QueuedCall>,
    /// The cataloguing under way (PENDING/CATALOGUING) is an automatic retry:
    /// hosts show no progress for it. Any other trigger than the retry's own ends it.
    background: bool,
    /// Ask the server's era again at its next connection (refresh, or an answer
    /// saying the era changed) instead of trusting the catalogue's verdict.
    reprobe: bool,
    /// The era probe of a stdio server got no answer in this run (it timed out,
    /// or the process ended on it): later attempts (retries) go straight to
    /// `initialize`, so a broken server is not spawned twice per attempt. A
    /// refresh or a new launch probes again. Never set for HTTP: a probe costs no process
    /// there, and an HTTP server that was not reachable yet must still be
    /// probed once it is (the handshake machine reports it for stdio only).
    probe_unanswered: bool,
}

impl ConnectMachine {
    // ---- reads -----------------------------------------------------------------

    /// The server's current connection (read on every call: a copy, no lookup).
    #[inline]
    pub(in crate::engine) fn conn(&self) -> Option<ConnId> {
        self.conn
    }

    /// The handshake the next connection starts with. `legacy_transport`: an
    /// explicit legacy SSE transport (it predates the modern era); `verdict`:
    /// the era the server's current catalogue entry records, if any.
    pub(in crate::engine) fn how_to_start(
        &self,
        legacy_transport: bool,
        verdict: Option<Era>,
    ) -> Handshake {
        if legacy_transport {
            return Handshake::Legacy;
        }
        match verdict {
            Some(Era::Legacy) if !self.reprobe => Handshake::Legacy,
            Some(Era::Modern) if !self.reprobe => Handshake::Modern,
            None if self.probe_unanswered && !self.reprobe => Handshake::Legacy,
            _ => Handshake::Probe,
        }
    }

    /// The cataloguing under way is an automatic retry (hosts show no progress).
    pub(in crate::engine) fn is_background(&self) -> bool {
        self.background
    }

    /// The era is to be asked again (a probe was asked for, and the
    /// handshake has not settled it yet): no verdict is trusted.
    pub(in crate::engine) fn asks_era_again(&self) -> bool {
        self.reprobe
    }

    /// Calls wait for the connect.
    pub(in crate::engine) fn has_waiters(&self) -> bool {
        !self.waiters.is_empty()
    }

    /// Whether a waiting call is one of `of`'s.
    pub(in crate::engine) fn waits_for(&self, of: &dyn Fn(&QueuedCall) -> bool) -> bool {
        self.waiters.iter().any(of)
    }

    /// The tool the first waiting `tools/call` wants (named in a sign-in prompt).
    pub(in crate::engine) fn waiting_tool(&self) -> Option<String> {
        self.waiters.iter().find_map(|call| {
            (call.method() == methods::TOOLS_CALL)
                .then(|| call.params().name())
                .flatten()
        })
    }

    // ---- outputs ---------------------------------------------------------------

    /// The waiting calls, taken: the router forwards them (connected) or fails
    /// them (the connect failed or the server stopped).
    pub(in crate::engine) fn take_waiters(&mut self) -> Vec<QueuedCall> {
        std::mem::take(&mut self.waiters)
    }

    // ---- inputs ----------------------------------------------------------------

    /// A connection to the server was opened: the current one now.
    pub(in crate::engine) fn handle_connection_opened(&mut self, conn: ConnId) {
        self.conn = Some(conn);
    }

    /// `conn` was dropped: no longer current, when it was.
    pub(in crate::engine) fn handle_connection_dropped(&mut self, conn: ConnId) {
        if self.conn == Some(conn) {
            self.conn = None;
        }
    }

    /// The server stops: its current connection, taken (the router drops it).
    pub(in crate::engine) fn handle_stopped(&mut self) -> Option<ConnId> {
        self.conn.take()
    }

    /// A call waits for the connect (the router then makes sure one is in flight).
    pub(in crate::engine) fn handle_call_waiting(&mut self, call: QueuedCall) {
        self.waiters.push(call);
    }

    /// Waiting calls `gone` says are no longer wanted (their client cancelled
    /// them or left) are dropped. Returns whether any was.
    pub(in crate::engine) fn handle_calls_gone(
        &mut self,
        gone: &dyn Fn(&QueuedCall) -> bool,
    ) -> bool {
        let before = self.waiters.len();
        self.waiters.retain(|w| !gone(w));
        self.waiters.len() != before
    }

    /// The server's state is about to change by `trigger`: any other trigger
    /// than the retry's own (`RetryDue`, then `CatalogueStarted`) ends a
    /// background retry.
    pub(in crate::engine) fn handle_trigger(&mut self, trigger: &Trigger) {
        if !matches!(
            trigger,
            Trigger::RetryDue { .. } | Trigger::CatalogueStarted
        ) {
            self.background = false;
        }
    }

    /// A retry starts: `background`, the automatic one (the retry timer), else a
    /// user action or a config edit. `warm`: the server has a catalogue (it goes
    /// back to CATALOGUED; nothing is catalogued, so nothing runs in the
    /// background).
    pub(in crate::engine) fn handle_retry_started(&mut self, background: bool, warm: bool) {
        if !background {
            self.background = false;
        } else if !warm {
            self.background = true;
        }
    }

    /// The user acted on the server (Connect Now, Refresh Catalogue): what is
    /// under way is no longer a background retry.
    pub(in crate::engine) fn handle_user_action(&mut self) {
        self.background = false;
    }

    /// A connection or a cataloguing failed: its retry, if it was one, ended.
    pub(in crate::engine) fn handle_connect_failed(&mut self) {
        self.background = false;
    }

    /// A refresh: the era is asked again at the next connection, even of a
    /// stdio server whose probe went unanswered.
    pub(in crate::engine) fn handle_refresh(&mut self) {
        self.reprobe = true;
        self.probe_unanswered = false;
    }

    /// The server's launch changed (command, args, env, cwd): a new runtime,
    /// whose era is asked, not guessed from the old process's silence.
    pub(in crate::engine) fn handle_relaunched(&mut self) {
        self.probe_unanswered = false;
    }

    /// A stdio server's era probe went unanswered: later attempts go straight
    /// to `initialize`.
    pub(in crate::engine) fn handle_probe_unanswered(&mut self) {
        self.probe_unanswered = true;
    }

    /// An answer said the server's era changed: it is asked again at the next
    /// connection.
    pub(in crate::engine) fn handle_era_changed(&mut self) {
        self.reprobe = true;
    }

    /// A connection's verdict was refused: probe on a fresh connection, once
    /// per verdict. Returns false when a probe was asked for already.
    pub(in crate::engine) fn handle_verdict_refused(&mut self) -> bool {
        if self.reprobe {
            return false;
        }
        self.reprobe = true;
        true
    }

    /// A handshake finished: the era is known (probed, or taken from a
    /// catalogue that was right).
    pub(in crate::engine) fn handle_era_known(&mut self) {
        self.reprobe = false;
    }
}

#[cfg(test)]
#[path = "machine_tests.rs"]
mod tests;
