//! The engine's timers: one table (`TimerTable`, id → purpose, owning its fields), armed and
//! cancelled through `setTimer`/`cancelTimer` effects, and one entry point
//! (`on_timer`, the host's `timerFired`) that sends each to its owner. Times
//! are the host's wall clock in ms (`Event` `nowMs`, see ARCHITECTURE.md).

use crate::engine::effects::Effect;
use crate::engine::events::{ConnId, TimerId};
use crate::engine::router::Engine;
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum TimerPurpose {
    Handshake {
        conn: ConnId,
    },
    Request {
        conn: ConnId,
        upstream_id: u64,
    },
    Idle {
        server: String,
    },
    /// Let a server finish applying the roots it asked for before the first call.
    RootsSettle {
        conn: ConnId,
    },
    Retry {
        server: String,
    },
    /// The periodic refresh of connected servers (`Settings::refresh_interval_ms`).
    Refresh,
}

/// The one timer table: which purpose each armed timer serves. Its fields are
/// its own: the engine arms, re-arms, cancels and reads timers only through
/// these methods, which return the effect the host carries out.
#[derive(Debug)]
pub(in crate::engine) struct TimerTable {
    purposes: BTreeMap<TimerId, TimerPurpose>,
    next: TimerId,
    /// The periodic refresh's timer while it is armed.
    refresh: Option<TimerId>,
}

impl Default for TimerTable {
    fn default() -> Self {
        TimerTable {
            purposes: BTreeMap::new(),
            next: 1,
            refresh: None,
        }
    }
}

impl TimerTable {
    /// A new timer for `purpose`, due at `at_ms`: its id and the `setTimer`.
    pub(in crate::engine) fn handle_set(
        &mut self,
        purpose: TimerPurpose,
        at_ms: u64,
    ) -> (TimerId, Effect) {
        let timer = self.next;
        self.next += 1;
        self.purposes.insert(timer, purpose);
        (timer, Effect::SetTimer { timer, at_ms })
    }

    /// The same timer due at another time, while it is armed.
    pub(in crate::engine) fn handle_rearm(&self, timer: TimerId, at_ms: u64) -> Option<Effect> {
        self.purposes
            .contains_key(&timer)
            .then_some(Effect::SetTimer { timer, at_ms })
    }

    /// Drops an armed timer: the `cancelTimer` for the host.
    pub(in crate::engine) fn handle_cancel(&mut self, timer: TimerId) -> Option<Effect> {
        self.purposes
            .remove(&timer)
            .map(|_| Effect::CancelTimer { timer })
    }

    /// Forgets a timer without telling the host: should it fire, it is ignored.
    pub(in crate::engine) fn forget(&mut self, timer: TimerId) {
        self.purposes.remove(&timer);
    }

    pub(in crate::engine) fn is_armed(&self, timer: TimerId) -> bool {
        self.purposes.contains_key(&timer)
    }

    /// A timer fired: its purpose. It leaves the table, except an idle timer,
    /// which stays armed until its server re-arms or cancels it.
    pub(in crate::engine) fn handle_fired(&mut self, timer: TimerId) -> Option<TimerPurpose> {
        let purpose = self.purposes.get(&timer).cloned()?;
        if !matches!(purpose, TimerPurpose::Idle { .. }) {
            self.purposes.remove(&timer);
        }
        Some(purpose)
    }
}

impl Engine {
    pub(super) fn set_timer(&mut self, purpose: TimerPurpose, at_ms: u64) -> TimerId {
        let (timer, effect) = self.timers.handle_set(purpose, at_ms);
        self.effects.push(effect);
        timer
    }

    pub(super) fn rearm_timer(&mut self, timer: TimerId, at_ms: u64) {
        self.effects.extend(self.timers.handle_rearm(timer, at_ms));
    }

    pub(super) fn cancel_timer(&mut self, timer: Option<TimerId>) {
        if let Some(timer) = timer {
            self.effects.extend(self.timers.handle_cancel(timer));
        }
    }

    pub(super) fn on_timer(&mut self, timer: TimerId) {
        let Some(purpose) = self.timers.handle_fired(timer) else {
            return;
        };
        match purpose {
            TimerPurpose::Handshake { conn } => {
                if !self.sign_in_wait_expired(conn) {
                    self.on_handshake_timer(conn)
                }
            }
            TimerPurpose::Request { conn, upstream_id } => self.on_request_timer(conn, upstream_id),
            TimerPurpose::Idle { server } => self.on_idle_timer(&server),
            TimerPurpose::Retry { server } => self.on_retry_timer(&server),
            TimerPurpose::RootsSettle { conn } => self.on_roots_settled(conn),
            TimerPurpose::Refresh => {
                self.timers.refresh = None;
                self.on_refresh(None, false);
            }
        }
    }

    /// The periodic refresh runs while `refresh_interval_ms` asks for one:
    /// armed (after an event, `finish_event`) when it is not, dropped when the
    /// setting is 0. `restart`: a settings change starts the interval afresh.
    pub(super) fn keep_refresh_armed(&mut self, restart: bool) {
        let interval = self.settings.refresh_interval_ms;
        if restart || interval == 0 {
            let armed = self.timers.refresh.take();
            self.cancel_timer(armed);
        }
        if interval > 0 && self.timers.refresh.is_none() {
            let at = self.now_ms.saturating_add(interval);
            self.timers.refresh = Some(self.set_timer(TimerPurpose::Refresh, at));
        }
    }
}
