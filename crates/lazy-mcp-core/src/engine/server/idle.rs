//! A server's idle stop, router side: finds the server, hands its
//! [`IdleMachine`] (`idle/machine.rs`) an input with what it reads (the
//! user's ceiling, whether the server is CONNECTED and busy), and carries out
//! the machine's outputs in order: arms, moves and cancels the idle timer in
//! the timer table, and stops an idle server through `stop_server` and
//! `Engine::transition`.

pub(in crate::engine) mod machine;
#[cfg(test)]
mod machine_tests;
pub(in crate::engine) mod policy;

use crate::engine::effects::LogLevel;
use crate::engine::router::Engine;
use crate::engine::server::state::{ServerState, Trigger};
use crate::engine::timers::TimerPurpose;
use machine::{IdleCeiling, IdleMachine, IdleOutput};

impl Engine {
    /// `name`'s idle settings: its own ceiling, else the user's.
    pub(in crate::engine) fn idle_ceiling(&self, name: &str) -> IdleCeiling {
        policy::server_ceiling(self.settings(), name)
    }

    /// The server's idle time now: its call rate's tier under its ceiling.
    pub(in crate::engine) fn idle_after_ms(&self, name: &str) -> u64 {
        let ceiling = self.idle_ceiling(name);
        self.servers
            .by_name
            .get(name)
            .map_or(0, |s| s.idle.idle_after_ms(self.now_ms, ceiling))
    }

    /// Hands `name`'s idle machine an input, then carries out its outputs.
    pub(in crate::engine) fn with_idle(
        &mut self,
        name: &str,
        input: &mut dyn FnMut(&mut IdleMachine, IdleCeiling),
    ) {
        let ceiling = self.idle_ceiling(name);
        let Some(server) = self.servers.by_name.get_mut(name) else {
            return;
        };
        input(&mut server.idle, ceiling);
        let outputs = server.idle.poll_outputs();
        self.carry_out_idle(name, outputs);
    }

    /// Does what `name`'s idle machine asked, in its order.
    fn carry_out_idle(&mut self, name: &str, outputs: Vec<IdleOutput>) {
        for output in outputs {
            match output {
                IdleOutput::Rearm { timer, at } if self.timers.is_armed(timer) => {
                    self.rearm_timer(timer, at)
                }
                IdleOutput::ArmIdle { at } | IdleOutput::Rearm { at, .. } => {
                    let purpose = TimerPurpose::Idle {
                        server: name.to_string(),
                    };
                    let timer = self.set_timer(purpose, at);
                    if let Some(server) = self.servers.by_name.get_mut(name) {
                        server.idle.idle_armed(timer);
                    }
                }
                IdleOutput::CancelIdle(timer) => self.cancel_timer(Some(timer)),
                IdleOutput::StopIdle { idle_ms } => {
                    self.log(
                        LogLevel::Info,
                        Some(name),
                        format!("stopped after {idle_ms} ms without calls; it stays catalogued"),
                    );
                    self.stop_server_as(name, "it was stopped after being idle", true);
                    self.transition(name, Trigger::Stopped);
                }
            }
        }
    }

    /// `name`'s idle timer fired.
    pub(in crate::engine) fn on_idle_timer(&mut self, name: &str) {
        let Some(server) = self.servers.by_name.get(name) else {
            return;
        };
        let connected = server.state == ServerState::Connected;
        // A call in flight, a subscription or a listen: not idle.
        let busy = !server.subscriptions.is_empty()
            || server
                .connect
                .conn()
                .and_then(|conn| self.servers.conns.get(&conn))
                .is_some_and(|c| c.has_calls_in_flight());
        let now = self.now_ms;
        self.with_idle(name, &mut |idle, ceiling| {
            idle.handle_timer_fired(now, connected, busy, ceiling)
        });
    }

    /// The idle setting may have changed: every connected server's idle timer
    /// follows it (cancelled at 0, re-armed otherwise).
    pub(in crate::engine) fn idle_setting_changed(&mut self) {
        let connected: Vec<String> = self
            .servers
            .by_name
            .iter()
            .filter(|(_, s)| s.state == ServerState::Connected)
            .map(|(name, _)| name.clone())
            .collect();
        let now = self.now_ms;
        for name in connected {
            self.with_idle(&name, &mut |idle, ceiling| {
                idle.handle_setting_changed(now, ceiling)
            });
        }
    }
}
