//! What a [`Clients`](super::Clients) input is lent besides its own state
//! (quinn-proto's shape: the owner takes an input with a context, and yields
//! its effects through its own outbox): the one timer table, the event's
//! time. The router builds one from its own fields for each input
//! (`Engine::with_clients`).

use crate::engine::timers::{TimerId, TimerPurpose, TimerTable};

pub(in crate::engine) struct ClientsContext<'a> {
    pub(in crate::engine) timers: &'a mut TimerTable,
    pub(in crate::engine) now_ms: u64,
}

impl ClientsContext<'_> {
    /// `armed` moved to `at_ms`, armed for `purpose` when none was, or
    /// dropped (`at_ms` None): the timer now armed.
    pub(in crate::engine) fn keep_timer(
        &mut self,
        armed: Option<TimerId>,
        purpose: TimerPurpose,
        at_ms: Option<u64>,
    ) -> Option<TimerId> {
        match (armed, at_ms) {
            (Some(timer), Some(at)) => {
                self.timers.handle_rearm(timer, at);
                Some(timer)
            }
            (None, Some(at)) => Some(self.timers.handle_set(purpose, at)),
            (armed, None) => {
                if let Some(timer) = armed {
                    self.timers.handle_cancel(timer);
                }
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_timer_is_armed_moved_and_dropped_in_the_one_table() {
        let mut timers = TimerTable::default();
        let mut ctx = ClientsContext {
            timers: &mut timers,
            now_ms: 0,
        };
        let purpose = TimerPurpose::GatewaySessions;
        let armed = ctx.keep_timer(None, purpose.clone(), Some(100));
        assert!(armed.is_some());
        assert_eq!(ctx.timers.poll_timeout(), Some(100));
        // Moved, not armed twice: the same timer, the new deadline.
        assert_eq!(ctx.keep_timer(armed, purpose.clone(), Some(50)), armed);
        assert_eq!(ctx.timers.poll_timeout(), Some(50));
        assert_eq!(ctx.keep_timer(armed, purpose, None), None);
        assert_eq!(ctx.timers.poll_timeout(), None);
    }
}
