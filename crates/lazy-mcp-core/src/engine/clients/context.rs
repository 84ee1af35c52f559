//! What a [`Clients`](super::Clients) input writes besides its own state
//! (quinn-proto's shape: the owner takes an input with a context and its
//! outputs land there): the event's effects, the one timer table, the
//! event's time. The router builds one from its own fields for each input.

use crate::engine::effects::{Effect, LogLevel};
use crate::engine::timers::{TimerId, TimerPurpose, TimerTable};

pub(in crate::engine) struct ClientsContext<'a> {
    pub(in crate::engine) effects: &'a mut Vec<Effect>,
    pub(in crate::engine) timers: &'a mut TimerTable,
    pub(in crate::engine) now_ms: u64,
}

impl ClientsContext<'_> {
    /// A log line about no server (one naming a server is the router's: it
    /// masks that server's secrets).
    pub(in crate::engine) fn log(&mut self, level: LogLevel, message: String) {
        self.effects.push(Effect::Log {
            level,
            server: None,
            message,
        });
    }

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
        let (mut effects, mut timers) = (Vec::new(), TimerTable::default());
        let mut ctx = ClientsContext {
            effects: &mut effects,
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
