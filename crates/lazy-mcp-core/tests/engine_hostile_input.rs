//! Whatever arrives — broken event JSON, garbage from a server, odd JSON-RPC from
//! a client — the engine answers with effects and never panics (a WASM panic would
//! kill the extension's core).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::engine::{Effect, Endpoint, Engine, Event, Settings};
use proptest::prelude::*;
use serde_json::{json, Value};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (0u64..5).prop_map(Value::from),
        "[a-z/_]{0,12}".prop_map(Value::from),
        prop_oneof![
            Just("tools/list"),
            Just("tools/call"),
            Just("initialize"),
            Just("roots/list"),
            Just("sampling/createMessage"),
            Just("notifications/progress"),
            Just("notifications/cancelled"),
            Just("notifications/tools/list_changed"),
            Just("resources/subscribe"),
            Just("2025-11-25"),
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(
                prop_oneof![
                    Just("jsonrpc".to_string()),
                    Just("id".to_string()),
                    Just("method".to_string()),
                    Just("params".to_string()),
                    Just("result".to_string()),
                    Just("error".to_string()),
                    Just("tools".to_string()),
                    Just("nextCursor".to_string()),
                    Just("name".to_string()),
                    Just("uri".to_string()),
                    Just("requestId".to_string()),
                    Just("progressToken".to_string()),
                    Just("protocolVersion".to_string()),
                    Just("capabilities".to_string()),
                    Just("_meta".to_string()),
                ],
                inner,
                0..5
            )
            .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_event_text_never_panics(text in ".{0,200}") {
        let mut engine = Engine::new(Settings::default());
        let out: Vec<Effect> = serde_json::from_str(&engine.handle_json(0, &text)).unwrap();
        prop_assert!(out.len() <= 1);
    }

    #[test]
    fn arbitrary_messages_from_servers_and_clients_never_panic(
        messages in prop::collection::vec((any::<bool>(), any::<bool>(), json_value()), 1..30)
    ) {
        let mut sim = Sim::new(Settings::default());
        let mut fake = FakeServer::with_tools(&["echo"]);
        fake.behavior = Behavior::CallHangs;
        sim.fakes.insert("s".into(), fake);
        sim.apply(vec![config("s")]);
        sim.client("c", server_endpoint("s"), json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {"sampling": {}}}}));
        sim.client("c", server_endpoint("s"), call(2, "echo"));
        for (from_server, aggregate, message) in messages {
            if from_server {
                if let Some(conn) = sim.conn_of("s") {
                    sim.send(Event::MessageReceived { conn, message: message.to_string() });
                }
            } else {
                let endpoint = if aggregate { Endpoint::Aggregate } else { server_endpoint("s") };
                sim.client("c", endpoint, message);
            }
        }
        sim.advance(1_000_000);
        prop_assert!(!sim.logs().iter().any(|l| l.contains("engine bug")));
    }
}
