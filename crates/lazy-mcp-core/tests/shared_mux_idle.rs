//! A shared process's idle stop (issue 26 item 5): the owner counts the
//! process's calls from every client and keeps it after its last client left
//! until nobody has used it for the idle time of that rate, under the largest
//! ceiling its holders gave, never less than the handover grace; after clients
//! that ended (no idle stop) only the grace.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use lazy_mcp_core::shared::launch::SharedLaunch;
use lazy_mcp_core::shared::mux::{Mux, MuxEffect, MuxEvent, HANDOVER_GRACE_MS};
use serde_json::json;

mod mux_support;
use mux_support::{attach_at, idle_launch, to_server};

const MINUTE: u64 = 60_000;

fn launch(ceiling_ms: u64, adaptive: bool) -> SharedLaunch {
    idle_launch(ceiling_ms, adaptive)
}

fn attach(mux: &mut Mux, attach: u64, launch: SharedLaunch, now_ms: u64) -> Vec<MuxEffect> {
    attach_at(mux, attach, "memory", launch, now_ms)
}

/// Clients 1 and 2 (these settings) on process 1, up and initialized at 0.
fn two_clients(first: SharedLaunch, second: SharedLaunch) -> Mux {
    let mut mux = Mux::new();
    attach(&mut mux, 1, first, 0);
    attach(&mut mux, 2, second, 0);
    mux.handle(MuxEvent::ProcessOpened {
        process: 1,
        pid: Some(42),
    });
    let init = mux.client_message(
        1,
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#,
    );
    let id = to_server(&init)[0]["id"].clone();
    mux.server_message(
        1,
        &json!({"jsonrpc": "2.0", "id": id, "result": {}}).to_string(),
    );
    mux
}

/// `client` calls a tool at `at` and the server answers at once.
fn call(mux: &mut Mux, client: u64, at: u64) {
    let sent = mux.at(at).client_message(
        client,
        r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"read_graph"}}"#,
    );
    let id = to_server(&sent)[0]["id"].clone();
    mux.at(at).server_message(
        1,
        &json!({"jsonrpc": "2.0", "id": id, "result": {}}).to_string(),
    );
}

fn lingers(effects: &[MuxEffect]) -> Vec<u64> {
    effects
        .iter()
        .filter_map(|e| match e {
            MuxEffect::Linger { ms, .. } => Some(*ms),
            _ => None,
        })
        .collect()
}

fn stops(effects: &[MuxEffect]) -> bool {
    effects
        .iter()
        .any(|e| matches!(e, MuxEffect::StopProcess { process: 1 }))
}

#[test]
fn two_clients_calling_alternately_keep_the_process_for_its_own_rates_tier() {
    let ten = launch(10 * MINUTE, true);
    let mut mux = two_clients(ten.clone(), ten);
    // 11 calls each (each client alone: the 3-min tier), 22 for the process: 5 min.
    for i in 0..22 {
        call(&mut mux, 1 + i % 2, (i + 1) * MINUTE);
    }
    let last = 22 * MINUTE;
    let status = &mux.at(last).status()[0];
    assert_eq!((status.calls_last_hour, status.idle_ms), (22, 5 * MINUTE));
    assert_eq!(status.stops_at_ms, None);
    // Each client idles out after its own 3 min; the process stays 5 min after its last use.
    mux.at(last + 3 * MINUTE).handle(MuxEvent::Detach {
        attach: 1,
        idle: true,
    });
    let left = mux.at(last + 3 * MINUTE).handle(MuxEvent::Detach {
        attach: 2,
        idle: true,
    });
    assert_eq!(lingers(&left), [2 * MINUTE]);
    assert!(!stops(&left));
    assert_eq!(
        mux.at(last + 4 * MINUTE).status()[0].stops_at_ms,
        Some(last + 5 * MINUTE)
    );
    // A process waiting out its idle time is held: the owner does not exit under it.
    assert_eq!(mux.owner_exit_in(last + 4 * MINUTE, 0), None);
    let ended = mux
        .at(last + 5 * MINUTE)
        .handle(MuxEvent::LingerEnded { process: 1 });
    assert!(stops(&ended), "{ended:?}");
}

#[test]
fn the_process_is_never_kept_less_than_the_grace_nor_above_its_holders_ceilings() {
    // The last use was long ago: only the grace.
    let mut mux = two_clients(launch(10 * MINUTE, true), launch(10 * MINUTE, true));
    call(&mut mux, 1, 0);
    mux.at(9 * MINUTE).handle(MuxEvent::Detach {
        attach: 1,
        idle: true,
    });
    let left = mux.at(9 * MINUTE).handle(MuxEvent::Detach {
        attach: 2,
        idle: true,
    });
    assert_eq!(lingers(&left), [HANDOVER_GRACE_MS]);

    // The largest of the holders' settings: a fixed 8 min beside an adaptive 2 min.
    let mut mux = two_clients(launch(2 * MINUTE, true), launch(8 * MINUTE, false));
    call(&mut mux, 1, 0);
    assert_eq!(mux.at(0).status()[0].idle_ms, 8 * MINUTE);
    // Under a 2-min ceiling alone the busiest tier is cut to 2 min.
    let mut mux = two_clients(launch(2 * MINUTE, true), launch(2 * MINUTE, true));
    for i in 0..30 {
        call(&mut mux, 1 + i % 2, i * 1_000);
    }
    assert_eq!(mux.at(30_000).status()[0].idle_ms, 2 * MINUTE);
    mux.at(40_000).handle(MuxEvent::Detach {
        attach: 1,
        idle: true,
    });
    let left = mux.at(40_000).handle(MuxEvent::Detach {
        attach: 2,
        idle: true,
    });
    assert_eq!(lingers(&left), [29_000 + 2 * MINUTE - 40_000]);
}

#[test]
fn a_holder_that_never_stops_servers_keeps_it_only_while_it_holds_it() {
    // `idleTimeoutMinutes: 0`: never stopped while held; once left, the rate's tier.
    let mut mux = two_clients(launch(0, true), launch(0, true));
    call(&mut mux, 1, 0);
    mux.at(0).handle(MuxEvent::Detach {
        attach: 1,
        idle: true,
    });
    let left = mux.at(0).handle(MuxEvent::Detach {
        attach: 2,
        idle: true,
    });
    assert_eq!(lingers(&left), [MINUTE]);
}

#[test]
fn an_earlier_wait_ending_does_not_stop_a_process_used_since() {
    let ten = launch(10 * MINUTE, true);
    let mut mux = two_clients(ten.clone(), ten.clone());
    call(&mut mux, 1, 0);
    mux.at(0).handle(MuxEvent::Detach {
        attach: 1,
        idle: true,
    });
    assert_eq!(
        lingers(&mux.at(0).handle(MuxEvent::Detach {
            attach: 2,
            idle: true
        })),
        [MINUTE]
    );
    // Another client comes at 30 s, calls, and leaves: kept 1 min after its call.
    attach(&mut mux, 3, ten, 30_000);
    call(&mut mux, 3, 30_000);
    let left = mux.at(30_000).handle(MuxEvent::Detach {
        attach: 3,
        idle: true,
    });
    assert_eq!(lingers(&left), [MINUTE]);
    // The first wait ends at 60 s: not stopped, it waits on until 90 s.
    let early = mux.at(MINUTE).handle(MuxEvent::LingerEnded { process: 1 });
    assert!(!stops(&early));
    assert_eq!(lingers(&early), [30_000]);
    assert!(stops(
        &mux.at(90_000).handle(MuxEvent::LingerEnded { process: 1 })
    ));
}

#[test]
fn clients_that_ended_leave_the_process_only_the_grace() {
    // The same busy process as above, but its clients' sessions exit (a plain
    // detach, no idle stop): nobody is left whose calls the idle time follows.
    let ten = launch(10 * MINUTE, true);
    let mut mux = two_clients(ten.clone(), ten);
    for i in 0..22 {
        call(&mut mux, 1 + i % 2, (i + 1) * MINUTE);
    }
    let last = 22 * MINUTE;
    mux.at(last).handle(MuxEvent::Detach {
        attach: 1,
        idle: false,
    });
    let left = mux.at(last).handle(MuxEvent::Detach {
        attach: 2,
        idle: false,
    });
    assert_eq!(lingers(&left), [HANDOVER_GRACE_MS]);
    assert_eq!(
        mux.at(last).status()[0].stops_at_ms,
        Some(last + HANDOVER_GRACE_MS)
    );
    let ended = mux
        .at(last + HANDOVER_GRACE_MS)
        .handle(MuxEvent::LingerEnded { process: 1 });
    assert!(stops(&ended), "{ended:?}");
}
