//! The engine with `shareServers` (issue 26): which connections it asks the
//! host to attach to the per-user owner, and how Diagnostics shows them.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::engine::{Effect, Event, Settings};

fn connected_memory(share_servers: bool) -> Sim {
    let mut sim = Sim::new(Settings {
        share_servers,
        ..Settings::default()
    })
    .fake("memory", FakeServer::with_tools(&["read_graph"]));
    sim.apply(vec![config("memory")]);
    sim.client("chat", server_endpoint("memory"), call(1, "read_graph"));
    assert!(
        sim.reply_to("chat", 1.into()).is_some(),
        "the call is answered"
    );
    sim
}

fn report(sim: &Sim) -> String {
    lazy_mcp_core::diagnostics::render_markdown(&Default::default(), Some(&sim.engine.snapshot()))
}

#[test]
fn a_shared_connection_is_attached_by_key_and_diagnostics_says_shared() {
    let sim = connected_memory(true);
    let opens: Vec<_> = sim
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Open { shared, .. } => Some(shared.clone()),
            _ => None,
        })
        .collect();
    assert!(
        !opens.is_empty() && opens.iter().all(Option::is_some),
        "every open attaches to the owner: {opens:?}"
    );
    let memory = &sim.engine.snapshot().servers[0];
    assert!(memory.shared && memory.pid.is_some());
    let pid = memory.pid.unwrap();
    assert!(
        report(&sim).contains(&format!("| {pid} (shared) |")),
        "{}",
        report(&sim)
    );
}

#[test]
fn without_sharing_the_process_is_this_clients_own() {
    let sim = connected_memory(false);
    let memory = &sim.engine.snapshot().servers[0];
    assert!(!memory.shared && memory.pid.is_some());
    assert!(!report(&sim).contains("(shared)"));
}

#[test]
fn diagnostics_says_how_many_clients_share_the_process() {
    let mut sim = connected_memory(true);
    sim.advance(30_000);
    let conn = sim.conn_of("memory").unwrap();
    let holder = |label: &str, since_ms| lazy_mcp_core::shared::launch::SharedHolder {
        label: label.into(),
        since_ms,
    };
    sim.send(Event::ConnectionShared {
        conn,
        clients: 3,
        holders: vec![
            holder("VS Code window · alpha", sim.now - 30_000),
            holder("lazy-mcp serve --stdio (pid 42) · beta", sim.now - 10_000),
        ],
    });
    let memory = &sim.engine.snapshot().servers[0];
    assert_eq!(memory.shared_clients, Some(3));
    let pid = memory.pid.unwrap();
    assert!(
        report(&sim).contains(&format!("| {pid} (shared by 3 clients) |")),
        "{}",
        report(&sim)
    );
    assert!(
        report(&sim).contains(&format!("- memory (pid {pid}): VS Code window · alpha (for 30 s), lazy-mcp serve --stdio (pid 42) · beta (for 10 s)")),
        "Diagnostics names who holds it: {}",
        report(&sim)
    );
    sim.send(Event::ConnectionShared {
        conn: conn + 100,
        clients: 9,
        holders: Vec::new(),
    });
    assert_eq!(
        sim.engine.snapshot().servers[0].shared_clients,
        Some(3),
        "another connection's count is ignored"
    );
}

#[test]
fn an_attachment_tells_the_owner_this_clients_idle_ceiling_for_the_server() {
    let settings = Settings {
        share_servers: true,
        idle_timeout_ms: 600_000,
        adaptive_idle: false,
        idle_timeout_by_server: "memory=120000".into(),
        ..Settings::default()
    };
    let mut sim = Sim::new(settings).fake("memory", FakeServer::with_tools(&["read_graph"]));
    sim.apply(vec![config("memory")]);
    sim.client("chat", server_endpoint("memory"), call(1, "read_graph"));
    let launches: Vec<_> = sim
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Open {
                shared: Some(launch),
                ..
            } => Some((launch.idle_timeout_ms, launch.adaptive_idle)),
            _ => None,
        })
        .collect();
    assert!(!launches.is_empty());
    assert!(
        launches.iter().all(|l| *l == (120_000, false)),
        "{launches:?}"
    );
}
