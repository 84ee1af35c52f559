//! The engine's timers: one table (`Engine::timers`, id → purpose), armed and
//! cancelled through `setTimer`/`cancelTimer` effects, and one entry point
//! (`on_timer`, the host's `timerFired`) that sends each to its owner. Times
//! are the host's wall clock in ms (`Event` `nowMs`, see ARCHITECTURE.md).

use crate::engine::effects::Effect;
use crate::engine::events::{ConnId, TimerId};
use crate::engine::router::Engine;

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
}

impl Engine {
    pub(super) fn set_timer(&mut self, purpose: TimerPurpose, at_ms: u64) -> TimerId {
        let timer = self.next_timer;
        self.next_timer += 1;
        self.timers.insert(timer, purpose);
        self.effects.push(Effect::SetTimer { timer, at_ms });
        timer
    }

    pub(super) fn rearm_timer(&mut self, timer: TimerId, at_ms: u64) {
        if self.timers.contains_key(&timer) {
            self.effects.push(Effect::SetTimer { timer, at_ms });
        }
    }

    pub(super) fn cancel_timer(&mut self, timer: Option<TimerId>) {
        if let Some(timer) = timer {
            if self.timers.remove(&timer).is_some() {
                self.effects.push(Effect::CancelTimer { timer });
            }
        }
    }

    pub(super) fn on_timer(&mut self, timer: TimerId) {
        let Some(purpose) = self.timers.get(&timer).cloned() else {
            return;
        };
        if !matches!(purpose, TimerPurpose::Idle { .. }) {
            self.timers.remove(&timer);
        }
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
        }
    }
}
