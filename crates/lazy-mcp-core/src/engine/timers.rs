//! The engine's timers, quinn-proto style: one table (`TimerTable`, id →
//! purpose and deadline, owning its fields) and one deadline the host waits
//! for. Arming, re-arming and cancelling stay inside the table (no crossing);
//! the host holds a single timer, armed by the `wakeAt` effect, and says
//! `timeout` when it fires: every due timer then goes to its owner
//! (the router's `on_timer`, `router/timers.rs`), in deadline order. Times
//! are the host's wall clock in ms (`Event` `nowMs`, see ARCHITECTURE.md).
//!
//! `wakeAt` goes out only when the earliest deadline is earlier than the one
//! the host already waits for: a cancelled or later deadline leaves the host's
//! timer to fire early and find nothing due (the engine then names its next
//! deadline). So a warm call, which arms its request timer later than the
//! previous call's, costs no timer effect.

use crate::engine::effects::Effect;
use crate::engine::events::ConnId;
use crate::vec_map::{VecMap, VecSet};

/// Engine-assigned id of one timer (inside the engine only: the host sees deadlines).
pub(in crate::engine) type TimerId = u64;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum TimerPurpose {
    Handshake {
        conn: ConnId,
    },
    /// An HTTP connection's first exchange (`server/http_transport.rs`).
    Connect {
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
    /// A definition is asked to start again, or its quiet time ended (`definition_starts.rs`).
    DefinitionStarts,
    /// A held endpoint version is published once the window is quiet (`endpoint_versions.rs`).
    EndpointVersions,
    /// The HTTP gateway's sessions are looked at: idle ones end (`gateway_sessions.rs`).
    GatewaySessions,
}

#[derive(Debug)]
struct Armed {
    purpose: TimerPurpose,
    /// `None`: an idle timer that fired and waits for its server to re-arm or cancel it.
    due_ms: Option<u64>,
}

/// The one timer table: which purpose each armed timer serves and when it is
/// due. Its fields are its own: the engine arms, re-arms, cancels and reads
/// timers only through these methods.
#[derive(Debug)]
pub(in crate::engine) struct TimerTable {
    // Sorted vectors, not B-trees: ids only grow and a warm call's deadline is
    // usually the latest, so inserts append; the B-tree code cost the .wasm more.
    armed: VecMap<TimerId, Armed>,
    /// Every pending deadline, earliest first (ties: the older timer first).
    deadlines: VecSet<(u64, TimerId)>,
    next: TimerId,
    /// The periodic refresh's timer while it is armed.
    refresh: Option<TimerId>,
    /// The deadline the host's one timer is armed at (the last `wakeAt`), until it fires.
    host_wake_ms: Option<u64>,
}

impl Default for TimerTable {
    fn default() -> Self {
        TimerTable {
            armed: VecMap::default(),
            deadlines: VecSet::default(),
            next: 1,
            refresh: None,
            host_wake_ms: None,
        }
    }
}

impl TimerTable {
    /// A new timer for `purpose`, due at `at_ms`.
    pub(in crate::engine) fn handle_set(&mut self, purpose: TimerPurpose, at_ms: u64) -> TimerId {
        let timer = self.next;
        self.next += 1;
        self.armed.insert(
            timer,
            Armed {
                purpose,
                due_ms: Some(at_ms),
            },
        );
        self.deadlines.insert((at_ms, timer));
        timer
    }

    /// The same timer due at another time, while it is armed.
    pub(in crate::engine) fn handle_rearm(&mut self, timer: TimerId, at_ms: u64) {
        let Some(armed) = self.armed.get_mut(&timer) else {
            return;
        };
        if let Some(old) = armed.due_ms.replace(at_ms) {
            self.deadlines.remove(&(old, timer));
        }
        self.deadlines.insert((at_ms, timer));
    }

    /// Drops an armed timer: it never fires.
    /// `handle_cancel` of a timer that may not be armed (an owner's `Option`).
    pub(in crate::engine) fn cancel_armed(&mut self, timer: Option<TimerId>) {
        if let Some(timer) = timer {
            self.handle_cancel(timer);
        }
    }

    pub(in crate::engine) fn handle_cancel(&mut self, timer: TimerId) {
        if let Some(Armed {
            due_ms: Some(due), ..
        }) = self.armed.remove(&timer)
        {
            self.deadlines.remove(&(due, timer));
        }
    }

    pub(in crate::engine) fn is_armed(&self, timer: TimerId) -> bool {
        self.armed.contains_key(&timer)
    }

    /// The earliest deadline of an armed timer (quinn-proto's `poll_timeout`).
    pub(in crate::engine) fn poll_timeout(&self) -> Option<u64> {
        self.deadlines.first().map(|(due, _)| *due)
    }

    /// The timers due at `now_ms`, in deadline order: what one `timeout` fires.
    pub(in crate::engine) fn due(&self, now_ms: u64) -> Vec<TimerId> {
        self.deadlines
            .iter()
            .take_while(|(due, _)| *due <= now_ms)
            .map(|(_, timer)| *timer)
            .collect()
    }

    /// Fires `timer` if it is still due at `now_ms` (an earlier timer of the
    /// same `timeout` may have cancelled or re-armed it): its purpose. It
    /// leaves the table, except an idle timer, which stays armed (with no
    /// deadline) until its server re-arms or cancels it.
    pub(in crate::engine) fn handle_fired(
        &mut self,
        timer: TimerId,
        now_ms: u64,
    ) -> Option<TimerPurpose> {
        let armed = self.armed.get_mut(&timer)?;
        let due = armed.due_ms.filter(|due| *due <= now_ms)?;
        self.deadlines.remove(&(due, timer));
        if matches!(armed.purpose, TimerPurpose::Idle { .. }) {
            armed.due_ms = None;
            return Some(armed.purpose.clone());
        }
        self.armed.remove(&timer).map(|armed| armed.purpose)
    }

    /// The periodic refresh's timer kept as `interval_ms` asks: armed when it
    /// is not, dropped first when the interval is 0 or `restart` (a settings
    /// change starts the interval afresh).
    pub(in crate::engine) fn keep_refresh(&mut self, interval_ms: u64, restart: bool, now_ms: u64) {
        if restart || interval_ms == 0 {
            let armed = self.refresh.take();
            self.cancel_armed(armed);
        }
        if interval_ms > 0 && self.refresh.is_none() {
            let at = now_ms.saturating_add(interval_ms);
            self.refresh = Some(self.handle_set(TimerPurpose::Refresh, at));
        }
    }

    /// The periodic refresh's timer fired (it left the table): the next
    /// `keep_refresh` arms it again.
    pub(in crate::engine) fn refresh_fired(&mut self) {
        self.refresh = None;
    }

    /// The host's timer fired: it waits for nothing until told again.
    pub(in crate::engine) fn handle_host_woke(&mut self) {
        self.host_wake_ms = None;
    }

    /// The `wakeAt` the host needs, if any: only when the earliest deadline is
    /// earlier than the one its timer waits for (or it waits for none).
    pub(in crate::engine) fn poll_wake(&mut self) -> Option<Effect> {
        let due = self.poll_timeout()?;
        if self.host_wake_ms.is_some_and(|armed| armed <= due) {
            return None;
        }
        self.host_wake_ms = Some(due);
        Some(Effect::WakeAt { at_ms: due })
    }
}
