//! Random histories of calls, crashes, hangs, timeouts, config changes and user
//! commands: the engine never panics, never holds two connections for one server,
//! never keeps a process for a server that should have none, and every client
//! request gets exactly one answer, or (cancelled by its client) at most one;
//! in the end the engine owes no client an answer (each answered or dropped,
//! `clientSettled`'s count).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::engine::{Effect, Event, ServerState, Settings};
use proptest::prelude::*;
use serde_json::json;
use std::collections::BTreeMap;

const SERVERS: [&str; 3] = ["alpha", "beta", "gamma"];
const CLIENTS: [&str; 2] = ["c0", "c1"];

#[derive(Debug, Clone)]
enum Action {
    Call {
        server: usize,
        client: usize,
    },
    Subscribe {
        server: usize,
        client: usize,
        on: bool,
    },
    Crash {
        server: usize,
    },
    Advance {
        ms: u64,
    },
    Behave {
        server: usize,
        behavior: usize,
    },
    Disable {
        server: usize,
    },
    Enable {
        server: usize,
    },
    ChangeConfig {
        server: usize,
    },
    Remove {
        server: usize,
    },
    ConnectNow {
        server: usize,
    },
    Disconnect {
        server: usize,
    },
    Refresh,
    Garbage {
        server: usize,
    },
    ClientGone {
        client: usize,
    },
    /// `client` cancels one of the latest requests (`back` requests ago; it may be
    /// another client's, which cancels nothing).
    Cancel {
        client: usize,
        back: u64,
    },
}

fn action() -> impl Strategy<Value = Action> {
    let s = 0..SERVERS.len();
    let c = 0..CLIENTS.len();
    prop_oneof![
        6 => (s.clone(), c.clone()).prop_map(|(server, client)| Action::Call { server, client }),
        2 => s.clone().prop_map(|server| Action::Crash { server }),
        4 => (0u64..40_000).prop_map(|ms| Action::Advance { ms }),
        2 => (s.clone(), 0usize..6).prop_map(|(server, behavior)| Action::Behave { server, behavior }),
        1 => s.clone().prop_map(|server| Action::Disable { server }),
        1 => s.clone().prop_map(|server| Action::Enable { server }),
        1 => s.clone().prop_map(|server| Action::ChangeConfig { server }),
        1 => s.clone().prop_map(|server| Action::Remove { server }),
        1 => s.clone().prop_map(|server| Action::ConnectNow { server }),
        1 => s.clone().prop_map(|server| Action::Disconnect { server }),
        2 => (s.clone(), c.clone(), any::<bool>()).prop_map(|(server, client, on)| Action::Subscribe { server, client, on }),
        1 => Just(Action::Refresh),
        1 => s.prop_map(|server| Action::Garbage { server }),
        1 => c.clone().prop_map(|client| Action::ClientGone { client }),
        2 => (c, 0u64..3).prop_map(|(client, back)| Action::Cancel { client, back }),
    ]
}

fn behavior(index: usize) -> Behavior {
    match index {
        0 => Behavior::Normal,
        1 => Behavior::Hang,
        2 => Behavior::CrashOnInitialize,
        3 => Behavior::CrashOnCall,
        4 => Behavior::CallHangs,
        _ => Behavior::SpawnFails,
    }
}

fn check_connections(sim: &Sim) {
    for name in SERVERS {
        let live = sim.live.values().filter(|s| s.as_str() == name).count();
        assert!(live <= 1, "{name} has {live} live connections");
        match sim.state(name) {
            Some(ServerState::Connected | ServerState::Connecting | ServerState::Cataloguing) => {}
            state => assert_eq!(live, 0, "{name} is {state:?} but keeps a connection"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_histories_keep_the_invariants(actions in prop::collection::vec(action(), 1..50)) {
        let mut sim = Sim::new(Settings { idle_timeout_ms: 20_000, ..Settings::default() });
        for name in SERVERS {
            let mut fake = FakeServer::with_tools(&["echo"]);
            fake.asks_roots = name == "beta";
            sim.fakes.insert(name.into(), fake);
        }
        let mut configs: BTreeMap<&str, _> = SERVERS.iter().map(|n| (*n, config(n))).collect();
        sim.apply(configs.values().cloned().collect());
        // (client, id, abandoned: the client disconnected after asking) of every request.
        let mut asked: Vec<(String, u64, bool)> = Vec::new();
        let mut next_id = 1;
        // (client, id) of every cancellation sent.
        let mut cancelled: Vec<(String, u64)> = Vec::new();
        for action in actions {
            match action {
                Action::Call { server, client } => {
                    let client = CLIENTS[client].to_string();
                    asked.push((client.clone(), next_id, false));
                    sim.client(&client, server_endpoint(SERVERS[server]), call(next_id, "echo"));
                    next_id += 1;
                }
                Action::Subscribe { server, client, on } => {
                    let client = CLIENTS[client].to_string();
                    asked.push((client.clone(), next_id, false));
                    let method = if on { "resources/subscribe" } else { "resources/unsubscribe" };
                    sim.client(
                        &client,
                        server_endpoint(SERVERS[server]),
                        json!({"jsonrpc": "2.0", "id": next_id, "method": method, "params": {"uri": "x://1"}}),
                    );
                    next_id += 1;
                }
                Action::Crash { server } => {
                    if let Some(conn) = sim.conn_of(SERVERS[server]) {
                        sim.live.remove(&conn);
                        sim.send(Event::ConnectionClosed {
                            conn,
                            reason: "killed".into(),
                            exit_code: Some(9),
                            stderr_tail: None,
                        });
                    }
                }
                Action::Advance { ms } => sim.advance(ms),
                Action::Behave { server, behavior: b } => {
                    sim.fakes.get_mut(SERVERS[server]).unwrap().behavior = behavior(b);
                }
                Action::Disable { server } => sim.send(Event::Disable { server: SERVERS[server].into() }),
                Action::Enable { server } => sim.send(Event::Enable { server: SERVERS[server].into() }),
                Action::ChangeConfig { server } => {
                    let config = configs.get_mut(SERVERS[server]).unwrap();
                    config.fingerprint.push('+');
                    sim.apply(configs.values().cloned().collect());
                }
                Action::Remove { server } => {
                    let without: Vec<_> = configs
                        .iter()
                        .filter(|(n, _)| **n != SERVERS[server])
                        .map(|(_, c)| c.clone())
                        .collect();
                    sim.apply(without);
                    sim.apply(configs.values().cloned().collect());
                }
                Action::ConnectNow { server } => sim.send(Event::ConnectNow { server: SERVERS[server].into() }),
                Action::Disconnect { server } => sim.send(Event::Disconnect { server: SERVERS[server].into() }),
                Action::Refresh => sim.send(Event::RefreshCatalogue { server: None, recatalogue: false }),
                Action::Garbage { server } => {
                    if let Some(conn) = sim.conn_of(SERVERS[server]) {
                        sim.send(Event::MessageReceived { conn, message: "\u{1b}[31mnot json".into() });
                    }
                }
                Action::ClientGone { client } => {
                    for (asker, _, abandoned) in asked.iter_mut() {
                        if asker == CLIENTS[client] {
                            *abandoned = true;
                        }
                    }
                    sim.send(Event::ClientDisconnected { client: CLIENTS[client].into() });
                }
                Action::Cancel { client, back } => {
                    let id = next_id.saturating_sub(1 + back);
                    cancelled.push((CLIENTS[client].to_string(), id));
                    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}});
                    sim.client(CLIENTS[client], server_endpoint(SERVERS[0]), cancel);
                }
            }
            check_connections(&sim);
        }
        // Let every timeout and retry run out.
        for _ in 0..20 {
            sim.advance(600_000);
        }
        check_connections(&sim);
        assert!(!sim.effects.iter().any(|e| matches!(e, Effect::Log { message, .. } if message.contains("engine bug"))));
        for client in CLIENTS {
            prop_assert_eq!(sim.engine.answers_owed(client), 0, "{} is still owed answers", client);
        }
        for (client, id, abandoned) in asked {
            let answers = sim
                .replies
                .iter()
                .filter(|(c, m)| c == &client && m["id"] == json!(id))
                .count();
            if abandoned || cancelled.contains(&(client.clone(), id)) {
                prop_assert!(answers <= 1, "{client} #{id} answered {answers} times");
            } else {
                prop_assert_eq!(answers, 1, "{} #{} answered {} times", client, id, answers);
            }
        }
    }
}
