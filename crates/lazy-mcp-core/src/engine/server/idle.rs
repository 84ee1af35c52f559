//! A server's idle stop: `Servers` finds the server, hands its
//! [`IdleMachine`] (`machines/idle/machine.rs`) an input with what it reads (the
//! user's ceiling, whether the server is CONNECTED and busy), and carries out
//! the machine's outputs in order: arms, moves and cancels the idle timer in
//! the timer table. An idle server is stopped by the router
//! (`Engine::on_idle_timer`: `stop_server` and `Engine::transition`).

pub(in crate::engine) mod policy;

use crate::engine::effects::LogLevel;
use crate::engine::server::ctx::ServerCtx;
use crate::engine::server::machines::idle::machine::{IdleCeiling, IdleMachine, IdleOutput};
use crate::engine::server::Servers;
use crate::engine::settings::Settings;
use crate::engine::state::ServerState;
use crate::engine::timers::TimerPurpose;

impl Servers {
    /// The server's idle time now: its call rate's tier under its ceiling.
    pub(in crate::engine) fn idle_after_ms(
        &self,
        settings: &Settings,
        name: &str,
        now_ms: u64,
    ) -> u64 {
        let ceiling = policy::server_ceiling(settings, name);
        self.get(name)
            .map_or(0, |s| s.idle().idle_after_ms(now_ms, ceiling))
    }

    /// Hands `name`'s idle machine an input, then carries out its outputs.
    /// Returns how long it was idle when the machine says to stop it (the
    /// router stops it: stopping reaches the clients).
    pub(in crate::engine) fn with_idle(
        &mut self,
        ctx: &mut ServerCtx,
        name: &str,
        input: &mut dyn FnMut(&mut IdleMachine, IdleCeiling),
    ) -> Option<u64> {
        let ceiling = policy::server_ceiling(ctx.settings, name);
        let server = self.server_mut(name)?;
        input(server.idle_mut(), ceiling);
        let mut stop = None;
        for output in server.idle_mut().poll_outputs() {
            match output {
                IdleOutput::Rearm { timer, at } if ctx.timers.is_armed(timer) => {
                    ctx.timers.handle_rearm(timer, at)
                }
                IdleOutput::ArmIdle { at } | IdleOutput::Rearm { at, .. } => {
                    let purpose = TimerPurpose::Idle {
                        server: name.to_string(),
                    };
                    let timer = ctx.timers.handle_set(purpose, at);
                    server.idle_mut().idle_armed(timer);
                }
                IdleOutput::CancelIdle(timer) => ctx.timers.cancel_armed(Some(timer)),
                IdleOutput::StopIdle { idle_ms } => stop = Some(idle_ms),
            }
        }
        stop
    }

    /// `name`'s idle timer fired: whether it is to stop (logged here, with
    /// how long it was idle).
    pub(in crate::engine) fn idle_timer_fired(&mut self, ctx: &mut ServerCtx, name: &str) -> bool {
        let Some(idle_ms) = self.idle_for(ctx, name) else {
            return false;
        };
        let message = format!("stopped after {idle_ms} ms without calls; it stays catalogued");
        self.log(LogLevel::Info, Some(name), message);
        true
    }

    /// [`Servers::idle_timer_fired`]: how long it was idle, when it is to stop.
    fn idle_for(&mut self, ctx: &mut ServerCtx, name: &str) -> Option<u64> {
        let server = self.get(name)?;
        let connected = *server.state() == ServerState::Connected;
        // A call in flight, a subscription or a listen: not idle.
        let busy = !server.subscriptions().is_empty()
            || server
                .connect()
                .conn()
                .and_then(|conn| self.conn(conn))
                .is_some_and(|c| c.has_calls_in_flight());
        let now = ctx.now_ms;
        self.with_idle(ctx, name, &mut |idle, ceiling| {
            idle.handle_timer_fired(now, connected, busy, ceiling)
        })
    }

    /// The idle setting may have changed: every connected server's idle timer
    /// follows it (cancelled at 0, re-armed otherwise).
    pub(in crate::engine) fn idle_setting_changed(&mut self, ctx: &mut ServerCtx) {
        let connected: Vec<String> = self
            .iter()
            .filter(|(_, s)| *s.state() == ServerState::Connected)
            .map(|(name, _)| name.clone())
            .collect();
        let now = ctx.now_ms;
        for name in connected {
            self.with_idle(ctx, &name, &mut |idle, ceiling| {
                idle.handle_setting_changed(now, ceiling)
            });
        }
    }
}
