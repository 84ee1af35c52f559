//! When a host looks again at something that gives it no event, and when it
//! gives up (WASM `nextTry`). A file lock or a socket that is not there yet
//! has no "ready" callback, so the host must look again; how soon and for how
//! long is policy, decided here from `host_limits.rs`' numbers. The host
//! carries it out in one place (`host/coreWaits.ts`) and keeps no schedule of
//! its own.

use crate::host_limits::{
    OTHER_SIGN_IN_POLL_MS, OWNER_BUSY_JITTER_MS, OWNER_BUSY_PAUSE_MS, OWNER_START_POLL_MS,
    OWNER_START_WAIT_MS, SIGN_IN_BROWSER_WAIT_MS,
};

/// What a host is waiting for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// The owner of shared servers' listen queue is full for a moment.
    OwnerBusy,
    /// The owner is being started (by this process or another): its start
    /// lock is held or its socket is not listening yet.
    OwnerStarting,
    /// This process started the owner (or saw it start): connect again now.
    OwnerStarted,
    /// Another process holds this server's sign-in lock.
    OtherSignIn,
}

impl Wait {
    /// The number the host passes (`host/coreWaits.ts` `WAIT_CODES`: a number
    /// crosses into the `.wasm` with no string code); `None` for any other.
    pub fn from_code(code: u32) -> Option<Wait> {
        match code {
            0 => Some(Wait::OwnerBusy),
            1 => Some(Wait::OwnerStarting),
            2 => Some(Wait::OwnerStarted),
            3 => Some(Wait::OtherSignIn),
            _ => None,
        }
    }
}

/// After waiting `elapsed_ms` for `wait`: look again after the returned
/// milliseconds, or give up (`None`). `random` (any `u32`, uniformly drawn)
/// spreads the clients that found the owner's queue full, so they do not come
/// back together. Integers only: no float code in the `.wasm` for it.
pub fn next_try(wait: Wait, elapsed_ms: u64, random: u32) -> Option<u64> {
    let (limit, pause) = match wait {
        Wait::OwnerBusy => (
            OWNER_START_WAIT_MS,
            OWNER_BUSY_PAUSE_MS + u64::from(random) % OWNER_BUSY_JITTER_MS,
        ),
        Wait::OwnerStarting => (OWNER_START_WAIT_MS, OWNER_START_POLL_MS),
        Wait::OwnerStarted => (OWNER_START_WAIT_MS, 0),
        Wait::OtherSignIn => (SIGN_IN_BROWSER_WAIT_MS, OTHER_SIGN_IN_POLL_MS),
    };
    (elapsed_ms <= limit).then_some(pause)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host_limits::host_limits;

    #[test]
    fn the_owner_is_waited_for_at_its_poll_until_the_start_wait_then_given_up() {
        let owner = host_limits().shared_owner;
        assert_eq!(
            next_try(Wait::OwnerStarting, 0, 7),
            Some(owner.start_poll_ms)
        );
        assert_eq!(
            next_try(Wait::OwnerStarting, owner.start_wait_ms, 7),
            Some(owner.start_poll_ms)
        );
        assert_eq!(
            next_try(Wait::OwnerStarting, owner.start_wait_ms + 1, 7),
            None
        );
        // A start that finished: connect again at once, within the same bound.
        assert_eq!(next_try(Wait::OwnerStarted, 10, 7), Some(0));
        assert_eq!(
            next_try(Wait::OwnerStarted, owner.start_wait_ms + 1, 7),
            None
        );
    }

    #[test]
    fn a_full_listen_queue_pauses_with_jitter_so_clients_spread_out() {
        let owner = host_limits().shared_owner;
        let pauses: Vec<u64> = (0..1_000u32)
            .map(|i| next_try(Wait::OwnerBusy, 0, i.wrapping_mul(2_654_435_761)).unwrap_or(0))
            .collect();
        let (least, most) = (
            pauses.iter().min().copied().unwrap_or(0),
            pauses.iter().max().copied().unwrap_or(0),
        );
        assert_eq!(least, owner.busy_pause_ms);
        assert_eq!(most, owner.busy_pause_ms + owner.busy_jitter_ms - 1);
        assert_eq!(
            next_try(Wait::OwnerBusy, 0, u32::MAX).map(|p| p <= most),
            Some(true)
        );
        assert_eq!(next_try(Wait::OwnerBusy, owner.start_wait_ms + 1, 0), None);
    }

    #[test]
    fn another_sign_in_is_waited_for_as_long_as_a_browser_sign_in_may_take() {
        let sign_in = host_limits().sign_in;
        assert_eq!(
            next_try(Wait::OtherSignIn, 1_000, 0),
            Some(sign_in.other_sign_in_poll_ms)
        );
        assert_eq!(
            next_try(Wait::OtherSignIn, sign_in.browser_wait_ms + 1, 0),
            None
        );
    }

    #[test]
    fn waits_are_numbered_as_the_host_passes_them() {
        for (code, wait) in [
            (0, Wait::OwnerBusy),
            (1, Wait::OwnerStarting),
            (2, Wait::OwnerStarted),
            (3, Wait::OtherSignIn),
        ] {
            assert_eq!(Wait::from_code(code), Some(wait));
        }
        assert_eq!(Wait::from_code(4), None);
    }
}
