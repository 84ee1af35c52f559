//! The shared catalogue (issue 26): a shared server one client of the user
//! catalogued is not started again by another client just to catalogue it.
//! Each `Sim` is one client (a VS Code window, a `lazy-mcp serve`); the user's
//! shared catalogue is copied from one to the next.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::config::model::{ConfigScope, ServerConfig, Transport};
use lazy_mcp_core::engine::{Effect, Event, ServerState, Settings};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// A client in `folder`, sharing servers, with the user's shared catalogue so far.
fn client_in(folder: &str, shared: &BTreeMap<String, String>, fake: FakeServer) -> Sim {
    let mut sim = Sim::new(Settings {
        share_servers: true,
        workspace_folders: vec![folder.into()],
        ..Settings::default()
    })
    .fake("memory", fake);
    sim.shared_catalogue = shared.clone();
    sim
}

/// `memory` from the user's own config (shareable across projects).
fn user_memory() -> ServerConfig {
    let mut config = config("memory");
    config.source.scope = ConfigScope::User;
    config.source.file = "/home/u/.claude.json".into();
    config.source.workspace_folder = None;
    config
}

/// `memory` from `folder`'s `.mcp.json`.
fn project_memory(folder: &str) -> ServerConfig {
    let mut config = config("memory");
    config.source.file = format!("{folder}/.mcp.json");
    config.source.workspace_folder = Some(folder.into());
    config
}

fn tools_listed(sim: &mut Sim) -> Vec<String> {
    sim.client("chat", server_endpoint("memory"), request(7, "tools/list"));
    let list = sim.reply_to("chat", json!(7)).expect("tools/list answered");
    list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

/// The first client catalogues `config` in `folder`: one process, its entry shared.
fn first_client(folder: &str, config: ServerConfig, fake: FakeServer) -> Sim {
    let mut first = client_in(folder, &BTreeMap::new(), fake);
    first.apply(vec![config]);
    assert_eq!(
        first.opens_of("memory"),
        1,
        "the first client catalogues it"
    );
    assert_eq!(first.state("memory"), Some(ServerState::Catalogued));
    assert_eq!(
        first.shared_catalogue.len(),
        1,
        "its entry is stored for the others"
    );
    first
}

#[test]
fn a_server_another_client_catalogued_is_not_started_again() {
    let fake = FakeServer::with_tools(&["read_graph", "create_entities"]);
    let first = first_client("/work/alpha", user_memory(), fake.clone());

    // Another project, its own (empty) catalogue: the user-level server's entry is taken.
    let mut second = client_in("/work/beta", &first.shared_catalogue, fake.clone());
    second.apply(vec![user_memory()]);
    assert_eq!(second.opens(), 0, "no process started, no attach");
    assert_eq!(second.state("memory"), Some(ServerState::Catalogued));
    assert_eq!(tools_listed(&mut second), ["read_graph", "create_entities"]);
    assert!(
        second
            .logs()
            .iter()
            .any(|l| l.contains("taken from the shared catalogue")),
        "{:?}",
        second.logs()
    );
    // Its own catalogue has it now: the next start is warm without the shared one.
    let own = second.persisted.clone().expect("own catalogue persisted");
    assert!(own.contains("read_graph"));

    // Without the shared catalogue the same client catalogues it itself.
    let mut alone = client_in("/work/beta", &BTreeMap::new(), fake);
    alone.apply(vec![user_memory()]);
    assert_eq!(alone.opens_of("memory"), 1);
}

#[test]
fn a_call_still_starts_the_server_after_its_catalogue_came_from_another_client() {
    let fake = FakeServer::with_tools(&["read_graph"]);
    let first = first_client("/work/alpha", user_memory(), fake.clone());
    let mut second = client_in("/work/beta", &first.shared_catalogue, fake);
    second.apply(vec![user_memory()]);
    second.client("chat", server_endpoint("memory"), call(1, "read_graph"));
    let answer = second.reply_to("chat", json!(1)).unwrap();
    assert!(answer.get("result").is_some(), "{answer}");
    assert_eq!(second.opens_of("memory"), 1, "the call's own connection");
}

#[test]
fn a_project_server_is_reused_in_the_same_project_only() {
    let fake = FakeServer::with_tools(&["read_graph"]);
    let first = first_client("/work/alpha", project_memory("/work/alpha"), fake.clone());

    let mut other_project = client_in("/work/beta", &first.shared_catalogue, fake.clone());
    other_project.apply(vec![project_memory("/work/beta")]);
    assert_eq!(
        other_project.opens_of("memory"),
        1,
        "project beta catalogues its own server"
    );

    let mut same_project = client_in("/work/alpha", &first.shared_catalogue, fake);
    same_project.apply(vec![project_memory("/work/alpha")]);
    assert_eq!(same_project.opens(), 0, "another window of project alpha");
}

#[test]
fn a_server_that_asked_for_roots_is_reused_under_the_same_roots_only() {
    let fake = FakeServer {
        asks_roots: true,
        ..FakeServer::with_tools(&["list_directory"])
    };
    let first = first_client("/work/alpha", user_memory(), fake.clone());
    assert!(
        first.shared_catalogue.keys().all(|k| k.contains('-')),
        "stored under the roots' key: {:?}",
        first.shared_catalogue.keys()
    );

    let mut other_roots = client_in("/work/beta", &first.shared_catalogue, fake.clone());
    other_roots.apply(vec![user_memory()]);
    assert_eq!(other_roots.opens_of("memory"), 1, "other roots: catalogued");

    let mut same_roots = client_in("/work/alpha", &first.shared_catalogue, fake.clone());
    same_roots.apply(vec![user_memory()]);
    assert_eq!(same_roots.opens(), 0, "the same roots: taken");

    // Attached to the process the first client started, it is not asked for
    // roots again: its listing is still stored under the roots' key only.
    let mut attached = client_in(
        "/work/alpha",
        &first.shared_catalogue,
        FakeServer {
            asks_roots: false,
            ..fake
        },
    );
    attached.apply(vec![user_memory()]);
    attached.client("chat", server_endpoint("memory"), call(1, "list_directory"));
    assert!(attached.reply_to("chat", json!(1)).is_some());
    assert_eq!(attached.opens_of("memory"), 1);
    assert!(
        attached.shared_catalogue.keys().all(|k| k.contains('-')),
        "never under the key alone: {:?}",
        attached.shared_catalogue.keys()
    );
}

#[test]
fn a_changed_definition_is_catalogued_anew() {
    let fake = FakeServer::with_tools(&["read_graph"]);
    let first = first_client("/work/alpha", user_memory(), fake.clone());
    let mut changed = user_memory();
    changed.transport = Transport::Stdio {
        command: "fake-mcp-server".into(),
        args: vec!["memory".into(), "--v2".into()],
        env: Default::default(),
        cwd: None,
        env_file: None,
    };
    changed.fingerprint = "fp-memory-2".into();
    let mut second = client_in("/work/beta", &first.shared_catalogue, fake);
    second.apply(vec![changed]);
    assert_eq!(second.opens_of("memory"), 1);
    assert_eq!(
        second.shared_catalogue.len(),
        2,
        "the new definition's entry is stored beside the old one"
    );
}

#[test]
fn a_damaged_file_is_ignored_naming_it_and_the_server_is_catalogued() {
    let fake = FakeServer::with_tools(&["read_graph"]);
    let first = first_client("/work/alpha", user_memory(), fake.clone());
    let mut damaged = first.shared_catalogue.clone();
    let key = damaged.keys().next().unwrap().clone();
    let text = damaged[&key].clone();
    damaged.insert(key.clone(), text[..text.len() / 2].to_string());
    let mut second = client_in("/work/beta", &damaged, fake.clone());
    second.apply(vec![user_memory()]);
    assert_eq!(second.opens_of("memory"), 1);
    assert_eq!(second.state("memory"), Some(ServerState::Catalogued));
    let file = format!("/shared/{key}.json");
    assert!(
        second
            .logs()
            .iter()
            .any(|l| l.contains(&file) && l.contains("corrupt")),
        "{:?}",
        second.logs()
    );
    // And rewritten whole by the client that catalogued it.
    assert!(serde_json::from_str::<Value>(&second.shared_catalogue[&key]).is_ok());

    // Another format version is ignored the same way.
    let mut newer: Value = serde_json::from_str(&text).unwrap();
    newer["version"] = json!(99);
    let mut third = client_in(
        "/work/beta",
        &BTreeMap::from([(key, newer.to_string())]),
        fake,
    );
    third.apply(vec![user_memory()]);
    assert_eq!(third.opens_of("memory"), 1);
    assert!(third.logs().iter().any(|l| l.contains("version 99")));
}

#[test]
fn secrets_never_reach_the_shared_catalogue() {
    let fake = FakeServer::with_tools(&["read_graph"]);
    let mut config = user_memory();
    config.transport = Transport::Stdio {
        command: "fake-mcp-server".into(),
        args: vec!["memory".into()],
        env: [("API_TOKEN".to_string(), "sk-live-0123456789".to_string())]
            .into_iter()
            .collect(),
        cwd: None,
        env_file: None,
    };
    config.secret_values = vec!["sk-live-0123456789".into()];
    let first = first_client("/work/alpha", config, fake);
    for blob in first.shared_catalogue.values() {
        assert!(!blob.contains("sk-live"), "{blob}");
        assert!(!blob.contains("API_TOKEN"), "{blob}");
    }
}

#[test]
fn without_sharing_nothing_is_read_or_written() {
    let mut sim = Sim::new(Settings::default()).fake("memory", FakeServer::with_tools(&["t"]));
    sim.apply(vec![user_memory()]);
    assert_eq!(sim.opens_of("memory"), 1);
    assert!(!sim.effects.iter().any(|e| matches!(
        e,
        Effect::ReadSharedCatalogue { .. } | Effect::WriteSharedCatalogue { .. }
    )));
}

#[test]
fn refresh_catalogue_starts_the_server_even_with_a_shared_entry() {
    let fake = FakeServer::with_tools(&["read_graph"]);
    let first = first_client("/work/alpha", user_memory(), fake.clone());
    let mut second = client_in("/work/beta", &first.shared_catalogue, fake);
    second.apply(vec![user_memory()]);
    assert_eq!(second.opens(), 0);
    second.send(Event::RefreshCatalogue {
        server: Some("memory".into()),
        recatalogue: true,
    });
    assert_eq!(second.opens_of("memory"), 1, "the user asked: listed anew");
    assert_eq!(second.state("memory"), Some(ServerState::Catalogued));
}

#[test]
fn a_lookup_answered_after_a_call_started_the_server_changes_nothing() {
    let fake = FakeServer::with_tools(&["read_graph"]);
    let first = first_client("/work/alpha", user_memory(), fake.clone());
    let mut second = client_in("/work/beta", &first.shared_catalogue, fake);
    second.hold_shared_reads = Some(Vec::new());
    second.apply(vec![user_memory()]);
    assert_eq!(second.state("memory"), Some(ServerState::Pending));
    assert_eq!(second.opens(), 0, "waiting for the lookup, nothing started");
    second.client("chat", server_endpoint("memory"), call(1, "read_graph"));
    assert!(second
        .reply_to("chat", json!(1))
        .unwrap()
        .get("result")
        .is_some());
    assert_eq!(second.state("memory"), Some(ServerState::Connected));
    for answer in second.hold_shared_reads.take().unwrap() {
        second.send(answer);
    }
    assert_eq!(second.state("memory"), Some(ServerState::Connected));
    assert_eq!(second.opens_of("memory"), 1);
}

#[test]
fn a_server_disabled_while_its_lookup_was_out_looks_again_when_enabled() {
    let fake = FakeServer::with_tools(&["read_graph"]);
    let first = first_client("/work/alpha", user_memory(), fake.clone());
    let mut second = client_in("/work/beta", &first.shared_catalogue, fake);
    second.hold_shared_reads = Some(Vec::new());
    second.apply(vec![user_memory()]);
    second.send(Event::Disable {
        server: "memory".into(),
    });
    for answer in second.hold_shared_reads.take().unwrap() {
        second.send(answer);
    }
    assert_eq!(second.state("memory"), Some(ServerState::Disabled));
    second.send(Event::Enable {
        server: "memory".into(),
    });
    assert_eq!(second.state("memory"), Some(ServerState::Catalogued));
    assert_eq!(
        second.opens(),
        0,
        "taken from the shared catalogue after all"
    );
}

#[test]
fn an_answer_to_an_older_lookup_is_ignored_and_the_newer_one_decides() {
    let fake = FakeServer::with_tools(&["read_graph"]);
    let first = first_client("/work/alpha", user_memory(), fake.clone());
    let mut second = client_in("/work/beta", &first.shared_catalogue, fake);
    second.hold_shared_reads = Some(Vec::new());
    second.apply(vec![user_memory()]);
    // The definition changes while the lookup is out: a second lookup, for the new key.
    let mut changed = user_memory();
    changed.transport = Transport::Stdio {
        command: "fake-mcp-server".into(),
        args: vec!["memory".into(), "--v2".into()],
        env: Default::default(),
        cwd: None,
        env_file: None,
    };
    changed.fingerprint = "fp-memory-2".into();
    second.apply(vec![changed]);
    let held = second.hold_shared_reads.take().unwrap();
    assert_eq!(held.len(), 2);
    let mut held = held.into_iter();
    second.send(held.next().unwrap());
    assert_eq!(
        second.state("memory"),
        Some(ServerState::Pending),
        "the old key's entry is not taken for the new definition"
    );
    assert_eq!(second.opens(), 0);
    second.send(held.next().unwrap());
    assert_eq!(
        second.opens_of("memory"),
        1,
        "a miss for the new key: catalogued"
    );
    assert_eq!(second.state("memory"), Some(ServerState::Catalogued));
}
