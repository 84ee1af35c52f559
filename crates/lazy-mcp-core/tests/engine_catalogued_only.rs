//! The snapshot's `cataloguedOnly` flag: the core's word for "a client session
//! that only listed this server may be closed" (VS Code's controller closes its
//! listing session by it, so "MCP: List Servers" says Stopped, never Running,
//! for a server nobody used; a server a client started using stays Running).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::engine::{ServerState, Settings};
use serde_json::json;

#[test]
fn a_catalogued_server_is_catalogued_only_until_a_client_uses_it() {
    let mut sim = Sim::new(Settings::default()).fake("memory", FakeServer::with_tools(&["echo"]));
    sim.apply(vec![config("memory")]);
    assert_eq!(sim.state("memory"), Some(ServerState::Catalogued));
    let snapshot = sim.engine.snapshot();
    assert!(snapshot.servers[0].catalogued_only);
    let json = serde_json::to_value(&snapshot).unwrap();
    assert_eq!(json["servers"][0]["cataloguedOnly"], true);

    sim.client("vscode", server_endpoint("memory"), call(7, "echo"));
    assert!(
        sim.reply_to("vscode", json!(7)).is_some(),
        "the call is answered"
    );
    assert_eq!(sim.state("memory"), Some(ServerState::Connected));
    let snapshot = sim.engine.snapshot();
    assert!(
        !snapshot.servers[0].catalogued_only,
        "in use: its session stays"
    );
    let json = serde_json::to_value(&snapshot).unwrap();
    assert!(json["servers"][0].get("cataloguedOnly").is_none());
}
