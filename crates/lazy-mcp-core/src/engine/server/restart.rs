//! A server's restarts: `Servers` finds the server, hands its
//! [`RestartMachine`] (`machines/restart/machine.rs`) an input, and carries out the
//! machine's outputs in order: arms and cancels the retry timer, words the
//! error, logs; the state change it asks for (last) is the router's, through
//! `Engine::transition`.

pub(in crate::engine) mod input;

use crate::engine::effects::LogLevel;
use crate::engine::server::ctx::ServerCtx;
use crate::engine::server::machines::restart::machine::{
    RestartMachine, RestartOutput, RestartPolicy,
};
use crate::engine::server::Servers;
use crate::engine::state::{ServerState, Trigger};
use crate::engine::timers::TimerPurpose;
use input::RestartInput;

/// What a restart input leaves the router to do, after the machine's timers
/// and log lines: the state change, and (a cold retry) queueing the cataloguing.
pub(in crate::engine) struct RestartNext {
    trigger: Trigger,
    enqueue: bool,
}

impl RestartNext {
    /// Taken apart for the router: the state change, and whether the
    /// cataloguing is queued after it.
    pub(in crate::engine) fn into_parts(self) -> (Trigger, bool) {
        (self.trigger, self.enqueue)
    }
}

impl Servers {
    /// `name`'s restart machine takes `input`; the state change it asks for.
    pub(in crate::engine) fn restart(
        &mut self,
        ctx: &mut ServerCtx,
        name: &str,
        input: RestartInput,
    ) -> Option<RestartNext> {
        let now = match input {
            RestartInput::Failed {
                error,
                may_stay_catalogued,
            } => return self.failed(ctx, name, error, may_stay_catalogued),
            RestartInput::RetryFired => false,
            RestartInput::RetryNow => true,
        };
        // One closure for both retries: one copy in the `.wasm`.
        self.with_restart(ctx, name, String::new(), &mut |machine, failed| match now {
            true => machine.handle_retry_now(failed),
            false => machine.handle_retry_fired(failed),
        })
    }

    /// A connection of `name` failed with `error`: noted for Diagnostics,
    /// the connect machine told, and the restart machine decides: back to
    /// CATALOGUED when allowed and not crash-looping, else FAILED with an
    /// exponential-backoff retry time. After `maxRetries` automatic retries
    /// failed the server stays FAILED (no retry timer) until a user action, a
    /// config edit or a call.
    fn failed(
        &mut self,
        ctx: &mut ServerCtx,
        name: &str,
        error: String,
        may_stay_catalogued: bool,
    ) -> Option<RestartNext> {
        let settings = ctx.settings;
        let policy = RestartPolicy {
            crash_window_ms: settings.crash_window_ms,
            crash_limit: settings.crash_limit,
            backoff_base_ms: settings.backoff_base_ms,
            backoff_max_ms: settings.backoff_max_ms,
            max_retries: settings.max_retries,
        };
        let server = self.server_mut(name)?;
        server.last_error(Some(error.clone()));
        server.connect_mut().handle_connect_failed();
        let now = ctx.now_ms;
        self.with_restart(ctx, name, error, &mut |machine, _| {
            machine.handle_failure(now, &policy, may_stay_catalogued)
        })
    }

    /// Hands `name`'s restart machine an input (with whether it is FAILED),
    /// then carries out its outputs in order; `error` words a failure. The
    /// state change its last output asks for is returned (the machine asks
    /// for at most one, last).
    fn with_restart(
        &mut self,
        ctx: &mut ServerCtx,
        name: &str,
        mut error: String,
        input: &mut dyn FnMut(&mut RestartMachine, bool),
    ) -> Option<RestartNext> {
        let server = self.server_mut(name)?;
        let failed = matches!(server.state(), ServerState::Failed { .. });
        input(server.restart_mut(), failed);
        let mut next = None;
        for output in server.restart_mut().poll_outputs() {
            let trigger = match output {
                RestartOutput::StayCatalogued => Trigger::Stopped,
                RestartOutput::ArmRetry { at } => {
                    let purpose = TimerPurpose::Retry {
                        server: name.to_string(),
                    };
                    let timer = ctx.timers.handle_set(purpose, at);
                    if let Some(server) = self.server_mut(name) {
                        server.restart_mut().retry_armed(timer);
                    }
                    continue;
                }
                RestartOutput::CancelRetry(timer) => {
                    ctx.timers.cancel_armed(Some(timer));
                    continue;
                }
                RestartOutput::Fail {
                    retry_at_ms,
                    crashes,
                    gave_up_after,
                } => {
                    if let Some(crashes) = crashes {
                        error.push_str(&format!(
                            " ({} within {} ms)",
                            crate::wording::count(crashes, "failure"),
                            ctx.settings.crash_window_ms
                        ));
                    }
                    if let Some(attempts) = gave_up_after {
                        error.push_str(&format!(
                            ". Lazy MCP gave up after {}; fix the cause (see the error above and the server's log), then use Connect Now or Refresh, or edit its configuration, to try again (calling one of its tools also tries once more)",
                            crate::wording::count(attempts as usize, "attempt")
                        ));
                        self.log(
                            LogLevel::Warn,
                            Some(name),
                            format!(
                                "gave up after {}; no more automatic retries",
                                crate::wording::count(attempts as usize, "failed attempt")
                            ),
                        );
                    }
                    let error = std::mem::take(&mut error);
                    Trigger::Fail { error, retry_at_ms }
                }
                RestartOutput::Retry { background } => {
                    let warm = self.current_entry(ctx, name).is_some();
                    if let Some(server) = self.server_mut(name) {
                        server.connect_mut().handle_retry_started(background, warm);
                    }
                    next = Some(RestartNext {
                        trigger: Trigger::RetryDue { warm },
                        enqueue: !warm,
                    });
                    continue;
                }
            };
            next = Some(RestartNext {
                trigger,
                enqueue: false,
            });
        }
        next
    }
}
