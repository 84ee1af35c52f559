//! A server's restarts as a state machine, in quinn-proto's shape (as
//! `auth/machine.rs`): it owns the crash history, the backoff's failure
//! streak and the retry timer (private), takes what happened through
//! `handle_*` and says what must happen as [`RestartOutput`]s the router
//! (`restart.rs`) drains with [`RestartMachine::poll_outputs`] and carries out
//! in order. It decides whether a failure leaves the server CATALOGUED or
//! FAILED, when the next automatic retry is due and when to give up; the
//! router arms and cancels timers, words the error and changes state only
//! through `Engine::transition`.

use crate::engine::server::backoff::CrashHistory;
use crate::engine::timers::TimerId;

/// The user's restart settings, read at each failure.
#[derive(Debug, Clone, Copy)]
pub(in crate::engine) struct RestartPolicy {
    pub(in crate::engine) crash_window_ms: u64,
    /// Crashes within the window that turn a server FAILED (at least 1).
    pub(in crate::engine) crash_limit: usize,
    pub(in crate::engine) backoff_base_ms: u64,
    pub(in crate::engine) backoff_max_ms: u64,
    pub(in crate::engine) max_retries: u32,
}

/// What the machine asks of the router, in the order it must happen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::engine) enum RestartOutput {
    /// Back to CATALOGUED (`Trigger::Stopped`): a crash with a catalogue, not looping.
    StayCatalogued,
    /// Arm the retry timer at `at`; its id comes back through `retry_armed`.
    ArmRetry { at: u64 },
    /// Cancel this retry timer.
    CancelRetry(TimerId),
    /// FAILED (`Trigger::Fail`) with the next retry time, if any. The error
    /// says `crashes` failures within the window when the limit was reached,
    /// and that Lazy MCP gave up after `gave_up_after` attempts when it did.
    Fail {
        retry_at_ms: Option<u64>,
        crashes: Option<usize>,
        gave_up_after: Option<u32>,
    },
    /// Try again now (`Trigger::RetryDue`); `background`: the automatic retry.
    Retry { background: bool },
}

/// One server's restarts.
#[derive(Debug, Default)]
pub(in crate::engine) struct RestartMachine {
    crashes: CrashHistory,
    retry_timer: Option<TimerId>,
    outputs: Vec<RestartOutput>,
}

impl RestartMachine {
    // ---- outputs and reads ---------------------------------------------------

    /// Everything the inputs so far asked for, in order.
    pub(in crate::engine) fn poll_outputs(&mut self) -> Vec<RestartOutput> {
        std::mem::take(&mut self.outputs)
    }

    pub(in crate::engine) fn crashes(&self) -> &CrashHistory {
        &self.crashes
    }

    /// The armed retry timer, if any (cancelling it is the reader's job).
    pub(in crate::engine) fn retry_timer(&self) -> Option<TimerId> {
        self.retry_timer
    }

    // ---- inputs ----------------------------------------------------------------

    /// A connection or a cataloguing failed at `now_ms`. `may_stay_catalogued`:
    /// a crash of a server with a catalogue (it may go back to CATALOGUED).
    pub(in crate::engine) fn handle_failure(
        &mut self,
        now_ms: u64,
        policy: &RestartPolicy,
        may_stay_catalogued: bool,
    ) {
        let limit = policy.crash_limit.max(1);
        let crashes = self.crashes.record_crash(now_ms, policy.crash_window_ms);
        if may_stay_catalogued && crashes < limit {
            self.outputs.push(RestartOutput::StayCatalogued);
            return;
        }
        let retry_at_ms = self.crashes.next_retry_at(
            now_ms,
            policy.backoff_base_ms,
            policy.backoff_max_ms,
            policy.max_retries,
        );
        if let Some(at) = retry_at_ms {
            self.outputs.push(RestartOutput::ArmRetry { at });
        }
        self.outputs.push(RestartOutput::Fail {
            retry_at_ms,
            crashes: may_stay_catalogued.then_some(crashes),
            gave_up_after: retry_at_ms
                .is_none()
                .then(|| self.crashes.failed_attempts()),
        });
    }

    /// The router armed the retry timer `ArmRetry` asked for.
    pub(in crate::engine) fn retry_armed(&mut self, timer: TimerId) {
        self.retry_timer = Some(timer);
    }

    /// The retry timer fired; `failed`: the server is still FAILED.
    pub(in crate::engine) fn handle_retry_fired(&mut self, failed: bool) {
        self.retry_timer = None;
        if failed {
            self.outputs.push(RestartOutput::Retry { background: true });
        }
    }

    /// A user action or a config edit asks a FAILED (`failed`) server to try
    /// again now: the pending retry is cancelled.
    pub(in crate::engine) fn handle_retry_now(&mut self, failed: bool) {
        if !failed {
            return;
        }
        if let Some(timer) = self.retry_timer.take() {
            self.outputs.push(RestartOutput::CancelRetry(timer));
        }
        self.outputs
            .push(RestartOutput::Retry { background: false });
    }

    /// A connection is being opened or the server withdrawn: the retry timer is
    /// the caller's to cancel now.
    pub(in crate::engine) fn take_retry_timer(&mut self) -> Option<TimerId> {
        self.retry_timer.take()
    }

    /// A catalogue completed: the failure streak ends (crash times stay).
    pub(in crate::engine) fn handle_succeeded(&mut self) {
        self.crashes.succeeded();
    }

    /// Config changed or the user re-enabled: start over.
    pub(in crate::engine) fn handle_reset(&mut self) {
        self.crashes.reset();
    }
}
