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
    lazy_mcp_core::diagnostics::engine_report(&Default::default(), &sim.engine)
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

/// Issue 26: the owner moved this client to a process of its own roots
/// (`shared/mux/roots.rs`) and says so with another `opened` (the host's
/// `connectionOpened` again, with that process's pid): Diagnostics show the
/// process that serves the client now, not the one it left.
#[test]
fn a_client_moved_to_another_shared_process_shows_that_processs_pid() {
    let mut sim = connected_memory(true);
    let conn = sim.conn_of("memory").unwrap();
    let first = sim.engine.snapshot().servers[0].pid.unwrap();
    let moved_to = first + 777;
    let (opens, handshakes) = (
        sim.opens_of("memory"),
        sim.sent_method("memory", "initialize"),
    );
    sim.send(Event::ConnectionOpened {
        conn,
        pid: Some(moved_to),
    });
    let memory = &sim.engine.snapshot().servers[0];
    assert_eq!(
        memory.pid,
        Some(moved_to),
        "the pid of the process serving it"
    );
    assert!(
        report(&sim).contains(&format!("| {moved_to} (shared) |")),
        "{}",
        report(&sim)
    );
    assert!(!report(&sim).contains(&format!("| {first} ")));
    // The same connection, no handshake again: the move is not a new connect.
    assert_eq!(sim.opens_of("memory"), opens);
    assert_eq!(sim.sent_method("memory", "initialize"), handshakes);
    sim.client("chat", server_endpoint("memory"), call(2, "read_graph"));
    assert!(sim.reply_to("chat", 2.into()).is_some(), "calls go on");
    // Another connection's word changes nothing.
    sim.send(Event::ConnectionOpened {
        conn: conn + 100,
        pid: Some(1),
    });
    assert_eq!(sim.engine.snapshot().servers[0].pid, Some(moved_to));
}

/// Issue 26: should the owner move this client's workspace to a process of
/// its own roots mid-call, it sends a call again only for a tool this
/// client's catalogue marks `readOnlyHint` or `idempotentHint`; the attach
/// says which. Before the server is catalogued it names none (the safe side).
#[test]
fn an_attachment_names_the_tools_the_catalogue_marks_safe_to_run_twice() {
    let mut memory = FakeServer::with_tools(&[
        "read_graph",
        "create_entities",
        "delete_entities",
        "open_nodes",
    ]);
    memory.tools[0]["annotations"] = serde_json::json!({"readOnlyHint": true});
    memory.tools[1]["annotations"] =
        serde_json::json!({"readOnlyHint": false, "idempotentHint": false});
    memory.tools[2]["annotations"] =
        serde_json::json!({"destructiveHint": true, "idempotentHint": true});
    // Unannotated: the spec's defaults (not read-only, not idempotent).
    memory.tools[3]
        .as_object_mut()
        .unwrap()
        .remove("annotations");
    let settings = Settings {
        share_servers: true,
        idle_timeout_ms: 60_000,
        adaptive_idle: false,
        ..Settings::default()
    };
    let mut sim = Sim::new(settings).fake("memory", memory);
    sim.apply(vec![config("memory")]);
    sim.client(
        "chat",
        server_endpoint("memory"),
        call(1, "create_entities"),
    );
    assert!(sim.reply_to("chat", 1.into()).is_some());
    sim.advance(120_000);
    sim.client(
        "chat",
        server_endpoint("memory"),
        call(2, "create_entities"),
    );
    assert!(sim.reply_to("chat", 2.into()).is_some());
    let launches: Vec<_> = sim
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Open {
                shared: Some(launch),
                ..
            } => Some(launch.repeatable.clone()),
            _ => None,
        })
        .collect();
    let safe = vec!["read_graph".to_string(), "delete_entities".to_string()];
    assert!(launches.len() >= 2, "{launches:?}");
    assert!(
        launches[0].is_empty() && launches[1..].iter().all(|l| *l == safe),
        "not catalogued at the first attach; at the next ones, the read-only and the idempotent tool: {launches:?}"
    );
}
