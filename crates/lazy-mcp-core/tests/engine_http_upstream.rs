//! What an HTTP connection is told, so the host never reads a message it carries:
//! each `send` names its request id and whether the server's own stream may open
//! after it, and what a server sends is split and read in the core (batches,
//! empty bodies). The end of each reply: engine_http_transport_owner.rs.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::engine::{Effect, Event, ServerState, Settings};
use serde_json::{json, Value};

/// `web` over HTTP and `pipe` over stdio, both legacy, both called once.
fn called(behavior: Behavior) -> Sim {
    let fake = || FakeServer {
        behavior: behavior.clone(),
        ..FakeServer::with_tools(&["echo"])
    };
    let mut sim = Sim::new(Settings::default())
        .fake("web", fake())
        .fake("pipe", fake());
    sim.oauth.public.insert("web".into()); // a remote server without sign-in
    sim.apply(vec![http_config("web"), config("pipe")]);
    for (id, server) in [(1, "web"), (2, "pipe")] {
        sim.client("c", server_endpoint(server), call(id, "echo"));
    }
    sim
}

/// Every `send` with what the connection is told about it, per connection.
fn sends(sim: &Sim) -> Vec<(u64, Value, Option<u64>, bool)> {
    sim.effects
        .iter()
        .filter_map(|e| match e {
            Effect::Send {
                conn,
                message,
                request_id,
                open_event_stream,
                ..
            } => Some((
                *conn,
                serde_json::from_str(message).unwrap(),
                *request_id,
                *open_event_stream,
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn every_send_names_its_request_id_and_only_the_handshakes_last_message_opens_the_servers_stream() {
    let sim = called(Behavior::Normal);
    assert!(sim.reply_to("c", json!(1)).unwrap()["result"].is_object());
    let web = sim.conns_opened("web");
    let all = sends(&sim);
    assert!(all.len() > 6, "{all:?}");
    for (conn, message, request_id, open_event_stream) in &all {
        let is_request = message.get("method").is_some() && message.get("id").is_some();
        let expected = is_request.then(|| message["id"].as_u64().unwrap());
        assert_eq!(*request_id, expected, "{message}");
        let initialized = message["method"] == "notifications/initialized";
        assert_eq!(
            *open_event_stream,
            initialized && web.contains(conn),
            "only HTTP's initialized opens the stream: {message}"
        );
    }
    assert!(all
        .iter()
        .any(|(conn, _, _, open)| *open && web.contains(conn)));
}

#[test]
fn a_batch_from_a_server_is_split_and_each_message_read() {
    for server in ["web", "pipe"] {
        let mut sim = called(Behavior::CallHangs);
        let conn = sim.conn_of(server).unwrap();
        let call = sends(&sim)
            .into_iter()
            .find(|(c, m, ..)| *c == conn && m["method"] == "tools/call")
            .map(|(_, m, ..)| m["id"].clone())
            .unwrap();
        let client_id = if server == "web" { 1 } else { 2 };
        let batch = format!(
            " [{}, {} ]\n",
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "from the batch"}}),
            json!({"jsonrpc": "2.0", "id": call, "result": {"content": [{"type": "text", "text": "batched"}]}})
        );
        sim.send(Event::MessageReceived {
            conn,
            message: batch,
        });
        let reply = sim.reply_to("c", json!(client_id)).unwrap();
        assert_eq!(reply["result"]["content"][0]["text"], "batched", "{server}");
        assert!(
            sim.logs().iter().any(|l| l.contains("from the batch")),
            "{server}: {:?}",
            sim.logs()
        );
        assert_eq!(sim.state(server), Some(ServerState::Connected));
    }
}

#[test]
fn an_empty_reply_body_is_nothing_and_no_warning() {
    let mut sim = called(Behavior::Normal);
    let conn = sim.conn_of("web").unwrap();
    let logs = sim.logs().len();
    for empty in ["", "  \r\n", "\n"] {
        sim.send(Event::MessageReceived {
            conn,
            message: empty.into(),
        });
    }
    assert_eq!(sim.logs().len(), logs, "{:?}", sim.logs());
    // Text that is not a message is still reported.
    sim.send(Event::MessageReceived {
        conn,
        message: "[]".into(),
    });
    assert_eq!(sim.logs().len(), logs + 1, "{:?}", sim.logs());
}

#[test]
fn every_open_carries_the_message_size_limit_of_the_settings() {
    let limits = |sim: &Sim| -> Vec<u64> {
        sim.effects
            .iter()
            .filter_map(|e| match e {
                Effect::Open {
                    max_message_bytes, ..
                } => Some(*max_message_bytes),
                _ => None,
            })
            .collect()
    };
    let sim = called(Behavior::Normal);
    let defaults = limits(&sim);
    assert!(!defaults.is_empty());
    assert!(
        defaults.iter().all(|&l| l == 64 * 1024 * 1024),
        "{defaults:?}"
    );

    let mut sim = Sim::new(Settings {
        max_message_bytes: 1_000,
        ..Settings::default()
    })
    .fake("web", FakeServer::with_tools(&["echo"]));
    sim.oauth.public.insert("web".into());
    sim.apply(vec![http_config("web")]);
    let set = limits(&sim);
    assert!(!set.is_empty());
    assert!(set.iter().all(|&l| l == 1_000), "{set:?}");
}
