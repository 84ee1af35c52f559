//! A server's idle stop as a state machine, in quinn-proto's shape (as
//! `restart/machine.rs`): it owns the idle timer, when the server was last
//! active and its recent calls (private), takes what happened through
//! `handle_*` and says what must happen as [`IdleOutput`]s the router
//! (`idle.rs`) drains with [`IdleMachine::poll_outputs`] and carries out in
//! order. It decides the idle time (the call rate's tier under the user's
//! ceiling, `policy.rs`), when the idle timer is due, re-arming while the
//! server is busy, and when to stop; the router arms and cancels timers and
//! stops the server only through the stop path and `Engine::transition`.

use crate::engine::timers::TimerId;
use crate::idle_tiers::{idle_after_ms, RecentCalls};

/// The user's idle settings, read at each input that needs them.
#[derive(Debug, Clone, Copy)]
pub(in crate::engine) struct IdleCeiling {
    /// `idleTimeoutMs`: the longest idle time; 0 = never stop.
    pub(in crate::engine) idle_timeout_ms: u64,
    /// `adaptiveIdle`: the idle time follows the call rate under the ceiling.
    pub(in crate::engine) adaptive: bool,
}

/// What the machine asks of the router, in the order it must happen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::engine) enum IdleOutput {
    /// Arm a new idle timer at `at`; its id comes back through `idle_armed`.
    ArmIdle { at: u64 },
    /// Move the idle timer to `at` (armed anew, reported through
    /// `idle_armed`, if the timer table no longer holds it).
    Rearm { timer: TimerId, at: u64 },
    /// Cancel this idle timer.
    CancelIdle(TimerId),
    /// The server went `idle_ms` without calls: stop it (it stays catalogued).
    StopIdle { idle_ms: u64 },
}

/// One server's idle stop.
#[derive(Debug)]
pub(in crate::engine) struct IdleMachine {
    timer: Option<TimerId>,
    last_activity_ms: u64,
    /// When its latest calls were forwarded: the idle time follows the rate.
    recent_calls: RecentCalls,
    outputs: Vec<IdleOutput>,
}

impl IdleMachine {
    /// A server configured at `now_ms`.
    pub(in crate::engine) fn new(now_ms: u64) -> Self {
        IdleMachine {
            timer: None,
            last_activity_ms: now_ms,
            recent_calls: RecentCalls::default(),
            outputs: Vec::new(),
        }
    }

    // ---- outputs and reads ---------------------------------------------------

    /// Everything the inputs so far asked for, in order.
    pub(in crate::engine) fn poll_outputs(&mut self) -> Vec<IdleOutput> {
        std::mem::take(&mut self.outputs)
    }

    /// Calls forwarded within the last hour before `now_ms`.
    pub(in crate::engine) fn calls_last_hour(&self, now_ms: u64) -> usize {
        self.recent_calls.in_last_hour(now_ms)
    }

    /// The idle time at `now_ms`: the call rate's tier under the ceiling (0 = never).
    pub(in crate::engine) fn idle_after_ms(&self, now_ms: u64, ceiling: IdleCeiling) -> u64 {
        idle_after_ms(
            ceiling.idle_timeout_ms,
            ceiling.adaptive,
            self.calls_last_hour(now_ms),
        )
    }

    // ---- inputs ----------------------------------------------------------------

    /// A call to the server was forwarded at `now_ms`: it counts toward the rate.
    pub(in crate::engine) fn handle_call_forwarded(&mut self, now_ms: u64) {
        self.last_activity_ms = now_ms;
        self.recent_calls.record(now_ms);
    }

    /// The server answered a call at `now_ms`.
    pub(in crate::engine) fn handle_activity(&mut self, now_ms: u64) {
        self.last_activity_ms = now_ms;
    }

    /// The server became CONNECTED at `now_ms` (its waiting calls forwarded):
    /// the idle timer starts.
    pub(in crate::engine) fn handle_connected(&mut self, now_ms: u64, ceiling: IdleCeiling) {
        self.last_activity_ms = now_ms;
        self.arm(now_ms, ceiling);
    }

    /// The idle settings changed while the server is CONNECTED: its timer
    /// follows them (cancelled at 0, moved otherwise).
    pub(in crate::engine) fn handle_setting_changed(&mut self, now_ms: u64, ceiling: IdleCeiling) {
        if ceiling.idle_timeout_ms == 0 {
            self.cancel();
        } else {
            self.arm(now_ms, ceiling);
        }
    }

    /// The router armed the timer `ArmIdle` (or a `Rearm` of a lost timer) asked for.
    pub(in crate::engine) fn idle_armed(&mut self, timer: TimerId) {
        self.timer = Some(timer);
    }

    /// The idle timer fired at `now_ms`. `connected`: the server is CONNECTED;
    /// `busy`: a call is in flight or someone is subscribed (or listens), so
    /// it is not idle whatever the last activity says.
    pub(in crate::engine) fn handle_timer_fired(
        &mut self,
        now_ms: u64,
        connected: bool,
        busy: bool,
        ceiling: IdleCeiling,
    ) {
        let idle = self.idle_after_ms(now_ms, ceiling);
        if !connected || idle == 0 {
            self.cancel();
            return;
        }
        let due = self.last_activity_ms.saturating_add(idle);
        if busy || due > now_ms {
            let at = if busy {
                now_ms.saturating_add(idle)
            } else {
                due
            };
            if let Some(timer) = self.timer {
                self.outputs.push(IdleOutput::Rearm { timer, at });
            }
            return;
        }
        self.outputs.push(IdleOutput::StopIdle { idle_ms: idle });
    }

    /// The server's connection ended (stopped, closed, crashed): no idle timer.
    pub(in crate::engine) fn handle_stopped(&mut self) {
        self.cancel();
    }

    // ---- decisions ---------------------------------------------------------------

    /// Arms (or moves) the timer for the idle time after the last activity.
    fn arm(&mut self, now_ms: u64, ceiling: IdleCeiling) {
        let idle = self.idle_after_ms(now_ms, ceiling);
        if idle == 0 {
            return;
        }
        let at = self.last_activity_ms.max(now_ms).saturating_add(idle);
        self.outputs.push(match self.timer {
            Some(timer) => IdleOutput::Rearm { timer, at },
            None => IdleOutput::ArmIdle { at },
        });
    }

    fn cancel(&mut self) {
        if let Some(timer) = self.timer.take() {
            self.outputs.push(IdleOutput::CancelIdle(timer));
        }
    }
}
