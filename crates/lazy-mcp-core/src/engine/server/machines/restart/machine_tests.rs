//! The restart machine alone, without an engine: inputs in, outputs out.

use super::machine::{RestartMachine, RestartOutput, RestartPolicy};

const POLICY: RestartPolicy = RestartPolicy {
    crash_window_ms: 120_000,
    crash_limit: 3,
    backoff_base_ms: 5_000,
    backoff_max_ms: 300_000,
    max_retries: 2,
};

#[test]
fn a_crash_with_a_catalogue_stays_catalogued_until_the_limit() {
    let mut machine = RestartMachine::default();
    machine.handle_failure(0, &POLICY, true);
    assert_eq!(machine.poll_outputs(), [RestartOutput::StayCatalogued]);
    machine.handle_failure(1_000, &POLICY, true);
    assert_eq!(machine.poll_outputs(), [RestartOutput::StayCatalogued]);
    // The third crash within the window: FAILED, retried after the base delay,
    // and the error says how many crashes.
    machine.handle_failure(2_000, &POLICY, true);
    assert_eq!(
        machine.poll_outputs(),
        [
            RestartOutput::ArmRetry { at: 7_000 },
            RestartOutput::Fail {
                retry_at_ms: Some(7_000),
                crashes: Some(3),
                gave_up_after: None,
            },
        ]
    );
}

#[test]
fn failures_back_off_then_give_up_and_a_success_starts_over() {
    let mut machine = RestartMachine::default();
    machine.handle_failure(0, &POLICY, false);
    machine.handle_failure(0, &POLICY, false);
    assert_eq!(
        machine.poll_outputs()[2],
        RestartOutput::ArmRetry { at: 10_000 }
    );
    machine.handle_failure(0, &POLICY, false);
    assert_eq!(
        machine.poll_outputs(),
        [RestartOutput::Fail {
            retry_at_ms: None,
            crashes: None,
            gave_up_after: Some(3),
        }]
    );
    machine.handle_succeeded();
    machine.handle_failure(0, &POLICY, false);
    assert_eq!(
        machine.poll_outputs()[0],
        RestartOutput::ArmRetry { at: 5_000 }
    );
}

#[test]
fn the_retry_timer_fires_or_is_cancelled_by_a_retry_now() {
    let mut machine = RestartMachine::default();
    machine.retry_armed(7);
    assert_eq!(machine.retry_timer(), Some(7));
    machine.handle_retry_now(true);
    assert_eq!(
        machine.poll_outputs(),
        [
            RestartOutput::CancelRetry(7),
            RestartOutput::Retry { background: false },
        ]
    );
    assert_eq!(machine.retry_timer(), None);
    // A server no longer FAILED: nothing to retry.
    machine.retry_armed(8);
    machine.handle_retry_fired(false);
    assert_eq!(machine.poll_outputs(), []);
    assert_eq!(machine.retry_timer(), None);
    machine.retry_armed(9);
    machine.handle_retry_fired(true);
    assert_eq!(
        machine.poll_outputs(),
        [RestartOutput::Retry { background: true }]
    );
}
