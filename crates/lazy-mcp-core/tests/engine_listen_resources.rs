//! Resource subscriptions of MCP 2026-07-28 clients (`resourceSubscriptions` on
//! a `subscriptions/listen`) through the simulated host: the acknowledgement
//! lists the URIs honoured (those of enabled servers whose catalogue says they
//! support subscriptions), a subscription never starts a server, Lazy MCP
//! subscribes upstream once per URI (a legacy server with `resources/subscribe`,
//! a modern one in its own listen), the server's `resources/updated` reaches the
//! listen tagged with the client's id, and the last listener leaving (cancel or
//! disconnect) unsubscribes upstream.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::engine::{Endpoint, Event, ServerState, Settings};
use proptest::prelude::*;
use serde_json::{json, Value};

const NOTES: &str = "file:///notes.md";
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

fn with_resources(era: EraBehavior, subscribe: bool) -> FakeServer {
    FakeServer {
        era,
        capabilities: json!({"tools": {}, "resources": {"subscribe": subscribe, "listChanged": true}}),
        resources: vec![json!({"uri": NOTES, "name": "notes"})],
        ..FakeServer::with_tools(&["edit"])
    }
}

/// "files" (legacy, subscriptions), "plain" (legacy, resources without
/// subscriptions) and "modern" (2026-07-28, subscriptions), all catalogued.
fn sim() -> Sim {
    let mut plain = with_resources(EraBehavior::Legacy, false);
    plain.resources = vec![json!({"uri": "plain://readme", "name": "readme"})];
    let mut modern = with_resources(EraBehavior::Modern { ttl_ms: 0 }, true);
    modern.resources = vec![json!({"uri": "modern://notes", "name": "notes"})];
    let mut sim = Sim::new(Settings::default())
        .fake("files", with_resources(EraBehavior::Legacy, true))
        .fake("plain", plain)
        .fake("modern", modern);
    sim.apply(vec![config("files"), config("plain"), config("modern")]);
    for name in ["files", "plain", "modern"] {
        assert_eq!(sim.state(name), Some(ServerState::Catalogued), "{name}");
    }
    sim
}

fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "watcher", "version": "1"},
    })
}

fn listen(id: &str, uris: &[&str]) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": {
        "notifications": {"toolsListChanged": true, "resourceSubscriptions": uris},
        "_meta": envelope(),
    }})
}

fn cancel(id: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}})
}

fn modern_call(id: u64, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": {}, "_meta": envelope()}})
}

fn to(sim: &Sim, client: &str, method: &str) -> Vec<Value> {
    sim.notifications
        .iter()
        .filter(|(c, m)| c == client && m["method"] == method)
        .map(|(_, m)| m.clone())
        .collect()
}

fn ack(sim: &Sim, client: &str) -> Value {
    to(sim, client, "notifications/subscriptions/acknowledged")
        .pop()
        .unwrap()
}

/// The server tells Lazy MCP that `uri` changed (a modern server on its listen).
fn updated(sim: &mut Sim, server: &str, uri: &str) {
    let mut params = json!({ "uri": uri });
    if let Some(listen) = sim
        .sent
        .iter()
        .rfind(|(s, m)| s == server && m["method"] == "subscriptions/listen")
        .map(|(_, m)| m["id"].clone())
    {
        params["_meta"] = json!({ SUBSCRIPTION_ID: listen });
    }
    let conn = sim.conn_of(server).unwrap();
    sim.send(Event::MessageReceived {
        conn,
        message:
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": params})
                .to_string(),
    });
}

fn sent_with_uri(sim: &Sim, server: &str, method: &str) -> Vec<String> {
    sim.sent
        .iter()
        .filter(|(s, m)| s == server && m["method"] == method)
        .map(|(_, m)| m["params"]["uri"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_listen_is_acknowledged_with_the_uris_honoured_and_starts_nothing() {
    let mut sim = sim();
    let opens = sim.opens();
    sim.client(
        "m",
        Endpoint::Aggregate,
        listen("L", &[NOTES, "plain://readme", "nobody://knows"]),
    );
    let ack = ack(&sim, "m");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true, "resourceSubscriptions": [NOTES]}),
        "only the URI of a server that supports subscriptions"
    );
    assert_eq!(ack["params"]["_meta"][SUBSCRIPTION_ID], "L");
    assert_eq!(sim.opens(), opens, "a subscription starts no server");
    assert!(
        sim.reply_to("m", json!("L")).is_none(),
        "the listen stays open"
    );

    // On a per-server endpoint the URI is that server's.
    sim.client(
        "p",
        server_endpoint("plain"),
        listen("P", &["plain://readme"]),
    );
    assert_eq!(ack_of(&sim, "p"), json!({"toolsListChanged": true}));
    sim.client(
        "f",
        server_endpoint("files"),
        listen("F", &["file:///other.md"]),
    );
    assert_eq!(
        ack_of(&sim, "f")["resourceSubscriptions"],
        json!(["file:///other.md"])
    );
    // A disabled server's resources are not honoured.
    sim.send(Event::Disable {
        server: "files".into(),
    });
    sim.client("m2", Endpoint::Aggregate, listen("L2", &[NOTES]));
    assert_eq!(ack_of(&sim, "m2"), json!({"toolsListChanged": true}));
    assert_eq!(sim.opens(), opens);
}

fn ack_of(sim: &Sim, client: &str) -> Value {
    ack(sim, client)["params"]["notifications"].clone()
}

#[test]
fn a_legacy_server_is_subscribed_when_it_connects_and_its_updates_reach_the_listen_tagged() {
    let mut sim = sim();
    sim.client("m", Endpoint::Aggregate, listen("L", &[NOTES]));
    // Other clients of the same endpoint: a legacy one and a modern one not listening.
    sim.client(
        "vscode",
        Endpoint::Aggregate,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}),
    );
    sim.client("other", Endpoint::Aggregate, modern_call(1, "files__edit"));
    assert_eq!(sim.state("files"), Some(ServerState::Connected));
    assert_eq!(
        sent_with_uri(&sim, "files", "resources/subscribe"),
        vec![NOTES],
        "subscribed as it connected"
    );

    updated(&mut sim, "files", NOTES);
    let heard = to(&sim, "m", "notifications/resources/updated");
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert_eq!(heard[0]["params"]["uri"], NOTES);
    assert_eq!(heard[0]["params"]["_meta"][SUBSCRIPTION_ID], "L");
    assert!(to(&sim, "vscode", "notifications/resources/updated").is_empty());
    assert!(to(&sim, "other", "notifications/resources/updated").is_empty());

    // Subscribed, the server stays connected past its idle time.
    sim.advance(Settings::default().idle_timeout_ms * 3);
    assert_eq!(sim.state("files"), Some(ServerState::Connected));

    sim.client("m", Endpoint::Aggregate, cancel("L"));
    assert_eq!(
        sent_with_uri(&sim, "files", "resources/unsubscribe"),
        vec![NOTES]
    );
    assert!(
        sim.reply_to("m", json!("L")).is_none(),
        "a cancelled listen gets no answer"
    );
    updated(&mut sim, "files", NOTES);
    assert_eq!(to(&sim, "m", "notifications/resources/updated").len(), 1);
}

#[test]
fn one_upstream_subscription_for_many_listeners_ended_by_the_last_one_to_go() {
    let mut sim = sim();
    sim.client("c", server_endpoint("files"), modern_call(1, "edit"));
    assert_eq!(sim.state("files"), Some(ServerState::Connected));
    sim.client("a", Endpoint::Aggregate, listen("A", &[NOTES]));
    assert_eq!(
        sent_with_uri(&sim, "files", "resources/subscribe"),
        vec![NOTES],
        "a connected server is subscribed at once"
    );
    sim.client("b", server_endpoint("files"), listen("B", &[NOTES]));
    sim.client("b", server_endpoint("files"), listen("B2", &[NOTES]));
    assert_eq!(sent_with_uri(&sim, "files", "resources/subscribe").len(), 1);

    updated(&mut sim, "files", NOTES);
    let ids: Vec<Value> = ["a", "b"]
        .iter()
        .flat_map(|c| to(&sim, c, "notifications/resources/updated"))
        .map(|m| m["params"]["_meta"][SUBSCRIPTION_ID].clone())
        .collect();
    assert_eq!(
        ids,
        vec![json!("A"), json!("B"), json!("B2")],
        "each listen, tagged"
    );

    sim.client("a", Endpoint::Aggregate, cancel("A"));
    assert!(sent_with_uri(&sim, "files", "resources/unsubscribe").is_empty());
    sim.send(Event::ClientDisconnected { client: "b".into() });
    assert_eq!(
        sent_with_uri(&sim, "files", "resources/unsubscribe"),
        vec![NOTES],
        "the last listener went away"
    );
}

#[test]
fn a_modern_server_is_subscribed_in_its_own_listen() {
    let mut sim = sim();
    sim.client("c", server_endpoint("modern"), modern_call(1, "edit"));
    assert_eq!(sim.state("modern"), Some(ServerState::Connected));
    let listens_before = sim.sent_method("modern", "subscriptions/listen");
    sim.client("m", server_endpoint("modern"), listen("L", &[NOTES]));
    assert_eq!(ack_of(&sim, "m")["resourceSubscriptions"], json!([NOTES]));
    assert_eq!(sim.sent_method("modern", "resources/subscribe"), 0);
    assert_eq!(
        sim.sent_method("modern", "subscriptions/listen"),
        listens_before + 1
    );
    let upstream = sim
        .sent
        .iter()
        .rfind(|(s, m)| s == "modern" && m["method"] == "subscriptions/listen")
        .map(|(_, m)| m.clone())
        .unwrap();
    assert_eq!(
        upstream["params"]["notifications"]["resourceSubscriptions"],
        json!([NOTES])
    );

    updated(&mut sim, "modern", NOTES);
    let heard = to(&sim, "m", "notifications/resources/updated");
    assert_eq!(heard.len(), 1);
    assert_eq!(
        heard[0]["params"]["_meta"][SUBSCRIPTION_ID], "L",
        "the client's listen id, not Lazy MCP's upstream one"
    );

    sim.send(Event::ClientDisconnected { client: "m".into() });
    let last = sim
        .sent
        .iter()
        .rfind(|(s, m)| s == "modern" && m["method"] == "subscriptions/listen")
        .map(|(_, m)| m.clone())
        .unwrap();
    assert!(
        last["params"]["notifications"]
            .get("resourceSubscriptions")
            .is_none(),
        "listened again without the URI: {last}"
    );
    assert_eq!(sim.sent_method("modern", "resources/unsubscribe"), 0);
}

#[derive(Debug, Clone)]
enum Action {
    Listen {
        client: usize,
        id: usize,
        uris: Vec<usize>,
    },
    Cancel {
        client: usize,
        id: usize,
    },
    Disconnect {
        client: usize,
    },
}

fn any_action() -> impl Strategy<Value = Action> {
    prop_oneof![
        (
            0..3usize,
            0..3usize,
            proptest::collection::vec(0..3usize, 0..3)
        )
            .prop_map(|(client, id, uris)| Action::Listen { client, id, uris }),
        (0..3usize, 0..3usize).prop_map(|(client, id)| Action::Cancel { client, id }),
        (0..3usize).prop_map(|client| Action::Disconnect { client }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any history of listens, cancels and disconnects: the legacy server is
    /// subscribed to a URI only while some listen names it, never twice, and
    /// is left with no subscription once every client is gone; the modern
    /// server's last listen names no URI.
    #[test]
    fn upstream_subscriptions_follow_the_listens(actions in proptest::collection::vec(any_action(), 1..24)) {
        const URIS: [&str; 3] = [NOTES, "file:///b.md", "modern://notes"];
        let mut sim = sim();
        sim.client("c", server_endpoint("files"), modern_call(1, "edit"));
        sim.client("c", server_endpoint("modern"), modern_call(2, "edit"));
        for action in &actions {
            match action {
                Action::Listen { client, id, uris } => {
                    let uris: Vec<&str> = uris.iter().map(|u| URIS[*u]).collect();
                    let endpoint = if *client == 2 { server_endpoint("files") } else { Endpoint::Aggregate };
                    sim.client(&format!("m{client}"), endpoint, listen(&format!("L{id}"), &uris));
                }
                Action::Cancel { client, id } => {
                    let endpoint = if *client == 2 { server_endpoint("files") } else { Endpoint::Aggregate };
                    sim.client(&format!("m{client}"), endpoint, cancel(&format!("L{id}")));
                }
                Action::Disconnect { client } => sim.send(Event::ClientDisconnected { client: format!("m{client}") }),
            }
        }
        for client in 0..3 {
            sim.send(Event::ClientDisconnected { client: format!("m{client}") });
        }
        let mut subscribed = std::collections::BTreeSet::new();
        for (server, message) in &sim.sent {
            let uri = message["params"]["uri"].as_str().map(str::to_string);
            match (server.as_str(), message["method"].as_str(), uri) {
                ("files", Some("resources/subscribe"), Some(uri)) => prop_assert!(subscribed.insert(uri), "subscribed twice"),
                ("files", Some("resources/unsubscribe"), Some(uri)) => prop_assert!(subscribed.remove(&uri), "unsubscribed while not subscribed"),
                _ => {}
            }
        }
        prop_assert!(subscribed.is_empty(), "left subscribed: {:?}", subscribed);
        let last = sim.sent.iter().rfind(|(s, m)| s == "modern" && m["method"] == "subscriptions/listen").map(|(_, m)| m.clone()).unwrap();
        prop_assert!(last["params"]["notifications"].get("resourceSubscriptions").is_none(), "{}", last);
        prop_assert_eq!(sim.state("files"), Some(ServerState::Connected));
    }
}
