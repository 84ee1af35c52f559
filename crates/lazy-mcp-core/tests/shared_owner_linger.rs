//! When the owner of shared servers exits (`Mux::owner_exit_in`): after holding
//! nothing (no process, no attachment, nothing the host still holds) for its
//! linger, counted from when it began to hold nothing; anything held meanwhile
//! starts the count again.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use lazy_mcp_core::host_limits::host_limits;
use lazy_mcp_core::shared::mux::{Mux, MuxEvent};

mod mux_support;
use mux_support::{attach_at, idle_launch};

fn attach(mux: &mut Mux, attach: u64) {
    attach_at(mux, attach, "memory", idle_launch(0, false), 0);
}

#[test]
fn an_owner_holding_nothing_exits_after_the_cores_linger() {
    let linger = host_limits().shared_owner.linger_ms;
    let mut mux = Mux::new();
    assert_eq!(mux.owner_exit_in(1_000, 0), Some(linger));
    assert_eq!(
        mux.owner_exit_in(1_000 + linger / 2, 0),
        Some(linger - linger / 2)
    );
    assert_eq!(mux.owner_exit_in(1_000 + linger, 0), Some(0));
    assert_eq!(mux.owner_exit_in(5_000 + linger, 0), Some(0));
}

#[test]
fn anything_held_keeps_the_owner_and_starts_its_linger_again() {
    let mut mux = Mux::new();
    mux.set_linger_ms(300);
    assert_eq!(mux.owner_exit_in(0, 0), Some(300));
    // A socket accepted, not attached yet: the host holds it.
    assert_eq!(mux.owner_exit_in(200, 1), None);
    assert_eq!(
        mux.owner_exit_in(250, 0),
        Some(300),
        "counted again from 250"
    );
    // An attachment (and its process) keeps the owner whatever the time.
    attach(&mut mux, 1);
    assert_eq!(mux.owner_exit_in(10_000, 0), None);
    mux.handle(MuxEvent::Detach {
        attach: 1,
        idle: false,
    });
    // The process still runs until it closes (the host's stop): still held.
    assert_eq!(mux.owner_exit_in(10_100, 1), None);
    mux.handle(MuxEvent::ProcessClosed {
        process: 1,
        reason: "stopped".into(),
        exit_code: Some(0),
        stderr_tail: String::new(),
    });
    assert_eq!(mux.owner_exit_in(10_200, 0), Some(300));
    assert_eq!(mux.owner_exit_in(10_500, 0), Some(0));
}
