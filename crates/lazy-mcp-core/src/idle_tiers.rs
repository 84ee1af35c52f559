//! How long a connected server may go without calls before it is stopped: the
//! idle time follows the server's recent call rate (issue 26, after avelino/mcp's
//! tiers), with the user's `idleTimeoutMs` (or the server's own setting) as the
//! ceiling. A server called often stays up between bursts; one called once an
//! hour gives its memory back soon. A leaf: each engine runs it for its own
//! calls (`engine/server/machines/idle/`), the owner of shared servers for a process's
//! calls from every client (`shared/mux.rs`).

use std::collections::VecDeque;

/// The window the call rate is counted over.
const RATE_WINDOW_MS: u64 = 60 * 60_000;

/// Call-rate tiers, busiest first: more than `above` calls in the last hour →
/// this idle time. Fewer than every `above` → [`QUIET_IDLE_MS`].
const TIERS: [(usize, u64); 2] = [(20, 5 * 60_000), (4, 3 * 60_000)];
/// The idle time of a server with fewer than 5 calls in the last hour.
const QUIET_IDLE_MS: u64 = 60_000;

/// More than the busiest tier needs: the count saturates there, so a busy
/// server costs a fixed amount of memory.
const KEPT_CALLS: usize = 32;

/// When the server's latest calls were forwarded (at most [`KEPT_CALLS`]).
#[derive(Debug, Default, Clone)]
pub struct RecentCalls {
    at_ms: VecDeque<u64>,
}

impl RecentCalls {
    pub fn record(&mut self, now_ms: u64) {
        if self.at_ms.len() == KEPT_CALLS {
            self.at_ms.pop_front();
        }
        self.at_ms.push_back(now_ms);
    }

    /// Calls forwarded within the last hour before `now_ms`.
    pub fn in_last_hour(&self, now_ms: u64) -> usize {
        let since = now_ms.saturating_sub(RATE_WINDOW_MS);
        self.at_ms.iter().filter(|&&at| at > since).count()
    }
}

/// The idle time for a server with `calls_last_hour` recent calls: the tier's,
/// never above `ceiling_ms` (the user's setting; 0 = never stop). `adaptive`
/// false keeps the ceiling itself (`lazyMcp.adaptiveIdle: false`).
pub fn idle_after_ms(ceiling_ms: u64, adaptive: bool, calls_last_hour: usize) -> u64 {
    if ceiling_ms == 0 || !adaptive {
        return ceiling_ms;
    }
    let tier = TIERS
        .iter()
        .find(|(above, _)| calls_last_hour > *above)
        .map_or(QUIET_IDLE_MS, |(_, idle)| *idle);
    tier.min(ceiling_ms)
}

/// How long a shared process is kept after its last use, for one holder's
/// setting: [`idle_after_ms`] at the process's own call rate, except that a
/// holder that never stops a server (`0`) keeps it only while it holds it, so
/// the uncapped tier applies once it has left (never forever: nobody is there).
pub fn kept_after_ms(ceiling_ms: u64, adaptive: bool, calls_last_hour: usize) -> u64 {
    match idle_after_ms(ceiling_ms, adaptive, calls_last_hour) {
        0 => idle_after_ms(u64::MAX, true, calls_last_hour),
        ms => ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiers_follow_the_call_rate_under_the_ceiling() {
        let ten_min = 600_000;
        assert_eq!(idle_after_ms(ten_min, true, 0), 60_000);
        assert_eq!(idle_after_ms(ten_min, true, 4), 60_000);
        assert_eq!(idle_after_ms(ten_min, true, 5), 180_000);
        assert_eq!(idle_after_ms(ten_min, true, 20), 180_000);
        assert_eq!(idle_after_ms(ten_min, true, 21), 300_000);
        // The ceiling wins; 0 still means never; fixed keeps the setting.
        assert_eq!(idle_after_ms(2_000, true, 50), 2_000);
        assert_eq!(idle_after_ms(0, true, 50), 0);
        assert_eq!(idle_after_ms(ten_min, false, 0), ten_min);
        // A shared process after its last holder left: "never" is the tier.
        assert_eq!(kept_after_ms(0, true, 50), 300_000);
        assert_eq!(kept_after_ms(0, false, 0), 60_000);
        assert_eq!(kept_after_ms(ten_min, false, 0), ten_min);
    }

    #[test]
    fn only_the_last_hour_counts_and_memory_is_bounded() {
        let mut calls = RecentCalls::default();
        for i in 0..100 {
            calls.record(i * 1_000);
        }
        assert_eq!(calls.in_last_hour(100_000), KEPT_CALLS);
        assert_eq!(calls.in_last_hour(99_000 + RATE_WINDOW_MS), 0);
        assert_eq!(calls.in_last_hour(90_000 + RATE_WINDOW_MS), 9);
    }
}
