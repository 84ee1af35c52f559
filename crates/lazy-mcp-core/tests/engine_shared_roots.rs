//! Which shared launches are keyed by the workspace roots (issue 26 item 2,
//! docs/shared-servers.md "Roots"): a server not known never to ask for roots
//! is; one catalogued without asking is shared across roots; one seen asking
//! (while catalogued or later, in a call) is again, for good, and the clients
//! of other roots that take its shared entry learn it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::config::model::{ConfigScope, ServerConfig};
use lazy_mcp_core::engine::{Effect, Settings};
use serde_json::json;
use std::collections::BTreeMap;

fn client_in(folder: &str, shared: &BTreeMap<String, String>, fake: FakeServer) -> Sim {
    let mut sim = Sim::new(Settings {
        share_servers: true,
        workspace_folders: vec![folder.into()],
        ..Settings::default()
    })
    .fake("everything", fake);
    sim.shared_catalogue = shared.clone();
    sim
}

/// `everything` from the user's own config (one launch in every project).
fn user_everything() -> ServerConfig {
    let mut config = config("everything");
    config.source.scope = ConfigScope::User;
    config.source.file = "/home/u/.claude.json".into();
    config.source.workspace_folder = None;
    config
}

/// Per `open` of the server so far: whether it was keyed by the roots.
fn roots_bound_opens(sim: &Sim) -> Vec<bool> {
    sim.effects
        .iter()
        .filter_map(|e| match e {
            Effect::Open { server, shared, .. } if server == "everything" => {
                shared.as_ref().map(|s| s.roots_bound)
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_server_is_keyed_by_roots_until_catalogued_without_asking_and_again_once_it_asks() {
    let fake = FakeServer::with_tools(&["get-roots-list"]);
    let mut alpha = client_in("/work/alpha", &BTreeMap::new(), fake.clone());
    alpha.apply(vec![user_everything()]);
    assert_eq!(
        roots_bound_opens(&alpha),
        [true],
        "not catalogued yet: its cataloguing process is this workspace's"
    );
    assert!(alpha
        .persisted
        .as_deref()
        .unwrap()
        .contains(r#""asksRoots":false"#));
    assert!(
        alpha.shared_catalogue.keys().all(|k| !k.contains('-')),
        "shared for every roots: {:?}",
        alpha.shared_catalogue.keys()
    );

    alpha.client(
        "chat",
        server_endpoint("everything"),
        call(1, "get-roots-list"),
    );
    assert!(alpha.reply_to("chat", json!(1)).is_some());
    assert_eq!(
        roots_bound_opens(&alpha),
        [true, false],
        "catalogued without asking: shared across roots"
    );

    // Later, in a call, it asks after all (server-everything's get-roots-list).
    let conn = alpha.conn_of("everything").unwrap();
    alpha.respond(
        conn,
        json!({"jsonrpc": "2.0", "id": "late", "method": "roots/list"}),
    );
    alpha.run();
    assert!(
        alpha
            .logs()
            .iter()
            .any(|l| l.contains("asked for the workspace roots")),
        "{:?}",
        alpha.logs()
    );
    assert!(alpha
        .persisted
        .as_deref()
        .unwrap()
        .contains(r#""asksRoots":true"#));
    assert!(
        alpha.shared_catalogue.keys().any(|k| k.contains('-')),
        "now also under the roots' key: {:?}",
        alpha.shared_catalogue.keys()
    );

    // Another project's client takes nothing that would share it across roots:
    // it catalogues by its own roots and its call's process is keyed by them.
    let mut beta = client_in("/work/beta", &alpha.shared_catalogue, fake.clone());
    beta.apply(vec![user_everything()]);
    beta.client(
        "chat",
        server_endpoint("everything"),
        call(1, "get-roots-list"),
    );
    assert!(beta.reply_to("chat", json!(1)).is_some());
    assert_eq!(roots_bound_opens(&beta), [true, true]);

    // A client of alpha's roots takes alpha's entry: keyed by roots as well.
    let mut again = client_in("/work/alpha", &alpha.shared_catalogue, fake);
    again.apply(vec![user_everything()]);
    assert_eq!(again.opens(), 0, "the entry is taken");
    again.client(
        "chat",
        server_endpoint("everything"),
        call(1, "get-roots-list"),
    );
    assert!(again.reply_to("chat", json!(1)).is_some());
    assert_eq!(roots_bound_opens(&again), [true]);
}

#[test]
fn a_server_that_asks_while_catalogued_is_never_shared_across_roots() {
    let fake = FakeServer {
        asks_roots: true,
        ..FakeServer::with_tools(&["list_directory"])
    };
    let mut alpha = client_in("/work/alpha", &BTreeMap::new(), fake);
    alpha.apply(vec![user_everything()]);
    alpha.client(
        "chat",
        server_endpoint("everything"),
        call(1, "list_directory"),
    );
    alpha.advance(1_000); // the roots settle before the first call
    assert!(alpha.reply_to("chat", json!(1)).is_some());
    assert_eq!(roots_bound_opens(&alpha), [true, true]);
    assert!(alpha
        .persisted
        .as_deref()
        .unwrap()
        .contains(r#""asksRoots":true"#));
}
