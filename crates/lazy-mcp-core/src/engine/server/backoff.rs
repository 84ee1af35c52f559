//! Crash counting and exponential backoff: repeated failures never become a respawn
//! loop, and automatic retries are bounded (then the server stays FAILED).

/// Crash times of one server, and how many failed attempts in a row made it FAILED.
#[derive(Debug, Clone, Default)]
pub struct CrashHistory {
    crashes_ms: Vec<u64>,
    /// Failed attempts since the last success (or config change): never reset by
    /// time passing, so the backoff does not start over and the retries stay bounded.
    failure_streak: u32,
}

impl CrashHistory {
    /// Records a crash; returns how many crashes fall within the window ending now.
    pub fn record_crash(&mut self, now_ms: u64, window_ms: u64) -> usize {
        self.crashes_ms
            .retain(|at| now_ms.saturating_sub(*at) < window_ms);
        self.crashes_ms.push(now_ms);
        self.crashes_ms.len()
    }

    /// A failure that makes the server FAILED: the time of the next automatic
    /// retry, or `None` when `max_retries` retries have already failed.
    pub fn next_retry_at(
        &mut self,
        now_ms: u64,
        base_ms: u64,
        max_ms: u64,
        max_retries: u32,
    ) -> Option<u64> {
        let delay = backoff_delay(self.failure_streak, base_ms, max_ms);
        self.failure_streak = self.failure_streak.saturating_add(1);
        (self.failure_streak <= max_retries).then(|| now_ms.saturating_add(delay))
    }

    /// Failed attempts in a row (the first attempt included).
    pub fn failed_attempts(&self) -> u32 {
        self.failure_streak
    }

    /// A successful catalogue: forget the failure streak (crash times stay).
    pub fn succeeded(&mut self) {
        self.failure_streak = 0;
    }

    /// Forget everything (config changed, user re-enabled).
    pub fn reset(&mut self) {
        *self = CrashHistory::default();
    }
}

/// `base * 2^streak`, capped at `max`.
pub fn backoff_delay(streak: u32, base_ms: u64, max_ms: u64) -> u64 {
    let factor = 1u64.checked_shl(streak.min(32)).unwrap_or(u64::MAX);
    base_ms.saturating_mul(factor).min(max_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delay_doubles_then_caps() {
        assert_eq!(backoff_delay(0, 5_000, 300_000), 5_000);
        assert_eq!(backoff_delay(1, 5_000, 300_000), 10_000);
        assert_eq!(backoff_delay(10, 5_000, 300_000), 300_000);
        assert_eq!(backoff_delay(400, 5_000, 300_000), 300_000);
    }

    #[test]
    fn streak_grows_per_failure_and_retries_are_bounded() {
        let mut history = CrashHistory::default();
        assert_eq!(history.next_retry_at(0, 1_000, 60_000, 2), Some(1_000));
        assert_eq!(history.next_retry_at(0, 1_000, 60_000, 2), Some(2_000));
        assert_eq!(history.next_retry_at(0, 1_000, 60_000, 2), None);
        assert_eq!(history.failed_attempts(), 3);
        history.succeeded();
        assert_eq!(history.next_retry_at(0, 1_000, 60_000, 2), Some(1_000));
    }

    #[test]
    fn time_passing_does_not_restart_the_backoff() {
        let mut history = CrashHistory::default();
        history.record_crash(0, 120_000);
        assert_eq!(history.next_retry_at(0, 5_000, 300_000, 9), Some(5_000));
        // Long after the crash window: the streak (and the delay) continue.
        history.record_crash(500_000, 120_000);
        assert_eq!(
            history.next_retry_at(500_000, 5_000, 300_000, 9),
            Some(510_000)
        );
    }
}
