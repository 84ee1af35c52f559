//! Which server endpoints the engine tells hosts to offer (one MCP definition each in
//! VS Code): only those with something to list. VS Code shows every definition it was
//! given as a server, "Running" once its gateway session is up, so an empty FAILED or
//! NEEDS AUTH server would look healthy there while listing nothing. The endpoint
//! itself stays (a client configured with its URL keeps working).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::config::model::ToolFilter;
use lazy_mcp_core::engine::{Effect, ServerState, Settings};
use std::collections::BTreeSet;

/// Every server ever offered in an `endpointsChanged` effect so far, and the last offered set.
fn offered(sim: &Sim) -> (BTreeSet<String>, Vec<String>) {
    let mut ever = BTreeSet::new();
    let mut last = Vec::new();
    for effect in &sim.effects {
        if let Effect::EndpointsChanged { endpoints, .. } = effect {
            last = endpoints
                .iter()
                .filter(|e| e.offered)
                .map(|e| e.server.clone())
                .collect();
            ever.extend(last.iter().cloned());
        }
    }
    (ever, last)
}

#[test]
fn failed_and_needs_auth_servers_with_nothing_to_list_are_never_offered() {
    let mut broken = FakeServer::with_tools(&["t"]);
    broken.behavior = Behavior::CrashOnInitialize;
    let mut remote = FakeServer::with_tools(&["t"]);
    remote.behavior = Behavior::Unauthorized;
    let mut sim = Sim::new(Settings::default())
        .fake("good", FakeServer::with_tools(&["t"]))
        .fake("broken", broken)
        .fake("remote", remote);
    sim.apply(vec![config("good"), config("broken"), config("remote")]);
    assert_eq!(sim.state("good"), Some(ServerState::Catalogued));
    assert!(matches!(
        sim.state("broken"),
        Some(ServerState::Failed { .. })
    ));
    assert_eq!(sim.state("remote"), Some(ServerState::NeedsAuth));

    let (ever, last) = offered(&sim);
    assert_eq!(last, ["good"]);
    assert_eq!(
        ever,
        BTreeSet::from(["good".to_string()]),
        "never offered, not even while cataloguing"
    );
    let endpoints: Vec<_> = sim
        .engine
        .endpoints()
        .into_iter()
        .map(|e| (e.server, e.offered))
        .collect();
    assert_eq!(
        endpoints,
        [
            ("broken".to_string(), false),
            ("good".to_string(), true),
            ("remote".to_string(), false)
        ],
        "their endpoints still answer, they are just not offered"
    );
}

#[test]
fn a_failed_server_with_declared_tools_stays_offered() {
    let mut broken = FakeServer::with_tools(&["t"]);
    broken.behavior = Behavior::CrashOnInitialize;
    let mut declared = config("declared");
    declared.tools = ToolFilter::Only(vec!["t".into()]);
    let mut sim = Sim::new(Settings::default()).fake("declared", broken);
    sim.apply(vec![declared]);
    assert!(matches!(
        sim.state("declared"),
        Some(ServerState::Failed { .. })
    ));
    assert_eq!(
        offered(&sim).1,
        ["declared"],
        "its declared tools stay visible; a call retries it"
    );
}

#[test]
fn a_server_is_offered_once_it_has_a_catalogue_and_kept_when_it_fails_later() {
    let mut sim = Sim::new(Settings::default()).fake("flaky", FakeServer::with_tools(&["t"]));
    sim.hold_opens = true;
    sim.apply(vec![config("flaky")]);
    assert_eq!(
        offered(&sim).0,
        BTreeSet::new(),
        "nothing offered while cataloguing"
    );
    sim.release_opens();
    sim.run();
    assert_eq!(sim.state("flaky"), Some(ServerState::Catalogued));
    assert_eq!(offered(&sim).1, ["flaky"]);

    // Connecting now fails: the catalogue keeps the server's tools, and its definition.
    sim.fakes.get_mut("flaky").unwrap().behavior = Behavior::SpawnFails;
    sim.client("vscode", server_endpoint("flaky"), call(1, "t"));
    assert!(sim.reply_to("vscode", serde_json::json!(1)).unwrap()["error"].is_object());
    assert_eq!(offered(&sim).1, ["flaky"]);
}
