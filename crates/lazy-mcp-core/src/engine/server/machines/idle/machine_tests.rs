//! The idle machine alone, without an engine: inputs in, outputs out.

use super::machine::{IdleCeiling, IdleMachine, IdleOutput};

const MINUTE: u64 = 60_000;

const TEN_MINUTES: IdleCeiling = IdleCeiling {
    idle_timeout_ms: 10 * MINUTE,
    adaptive: true,
};

/// A machine connected at `now_ms` after `calls` forwarded calls, its timer armed as 7.
fn connected(calls: u64, now_ms: u64, ceiling: IdleCeiling) -> (IdleMachine, Vec<IdleOutput>) {
    let mut machine = IdleMachine::new(0);
    for i in 0..calls {
        machine.handle_call_forwarded((i + 1) * 1_000);
    }
    machine.handle_connected(now_ms, ceiling);
    let outputs = machine.poll_outputs();
    machine.idle_armed(7);
    (machine, outputs)
}

#[test]
fn the_timer_is_armed_for_the_rate_tier_under_the_ceiling() {
    let at = |calls, ceiling| connected(calls, 100_000, ceiling).1;
    // Fewer than 5 calls in the last hour: 1 min; 6: 3 min; 21: 5 min.
    assert_eq!(at(1, TEN_MINUTES), [IdleOutput::ArmIdle { at: 160_000 }]);
    assert_eq!(at(6, TEN_MINUTES), [IdleOutput::ArmIdle { at: 280_000 }]);
    assert_eq!(at(21, TEN_MINUTES), [IdleOutput::ArmIdle { at: 400_000 }]);
    // The ceiling wins; `adaptiveIdle: false` keeps it; 0 never arms.
    let two_minutes = IdleCeiling {
        idle_timeout_ms: 2 * MINUTE,
        adaptive: true,
    };
    assert_eq!(at(21, two_minutes), [IdleOutput::ArmIdle { at: 220_000 }]);
    let fixed = IdleCeiling {
        adaptive: false,
        ..TEN_MINUTES
    };
    assert_eq!(at(1, fixed), [IdleOutput::ArmIdle { at: 700_000 }]);
    let never = IdleCeiling {
        idle_timeout_ms: 0,
        adaptive: true,
    };
    assert_eq!(at(21, never), []);
    let (machine, _) = connected(6, 100_000, TEN_MINUTES);
    assert_eq!(machine.calls_last_hour(100_000), 6);
    assert_eq!(machine.idle_after_ms(100_000, TEN_MINUTES), 3 * MINUTE);
}

#[test]
fn activity_pushes_the_deadline_and_the_server_stops_when_due() {
    let (mut machine, _) = connected(0, 0, TEN_MINUTES);
    machine.handle_activity(30_000);
    // Due at 60 s by the connect, but the answer at 30 s moved it to 90 s.
    machine.handle_timer_fired(60_000, true, false, TEN_MINUTES);
    assert_eq!(
        machine.poll_outputs(),
        [IdleOutput::Rearm {
            timer: 7,
            at: 90_000
        }]
    );
    machine.handle_timer_fired(90_000, true, false, TEN_MINUTES);
    assert_eq!(
        machine.poll_outputs(),
        [IdleOutput::StopIdle { idle_ms: MINUTE }]
    );
}

#[test]
fn a_busy_server_is_rearmed_a_full_idle_time_from_now() {
    let (mut machine, _) = connected(0, 0, TEN_MINUTES);
    // Long past due, but a call is in flight (or someone listens).
    machine.handle_timer_fired(200_000, true, true, TEN_MINUTES);
    assert_eq!(
        machine.poll_outputs(),
        [IdleOutput::Rearm {
            timer: 7,
            at: 260_000
        }]
    );
    // Busy no more: stopped.
    machine.handle_timer_fired(260_000, true, false, TEN_MINUTES);
    assert_eq!(
        machine.poll_outputs(),
        [IdleOutput::StopIdle { idle_ms: MINUTE }]
    );
}

#[test]
fn the_timer_is_cancelled_on_stop_off_connected_or_at_a_zero_setting() {
    let (mut machine, _) = connected(0, 0, TEN_MINUTES);
    machine.handle_stopped();
    assert_eq!(machine.poll_outputs(), [IdleOutput::CancelIdle(7)]);
    machine.handle_stopped();
    assert_eq!(machine.poll_outputs(), []);

    // Fired while the server is no longer CONNECTED: cancelled, not stopped.
    let (mut machine, _) = connected(0, 0, TEN_MINUTES);
    machine.handle_timer_fired(60_000, false, false, TEN_MINUTES);
    assert_eq!(machine.poll_outputs(), [IdleOutput::CancelIdle(7)]);

    // The setting moves the timer, and 0 cancels it.
    let (mut machine, _) = connected(0, 0, TEN_MINUTES);
    let fixed = IdleCeiling {
        adaptive: false,
        ..TEN_MINUTES
    };
    machine.handle_setting_changed(1_000, fixed);
    assert_eq!(
        machine.poll_outputs(),
        [IdleOutput::Rearm {
            timer: 7,
            at: 601_000
        }]
    );
    let never = IdleCeiling {
        idle_timeout_ms: 0,
        adaptive: true,
    };
    machine.handle_setting_changed(2_000, never);
    assert_eq!(machine.poll_outputs(), [IdleOutput::CancelIdle(7)]);
}
