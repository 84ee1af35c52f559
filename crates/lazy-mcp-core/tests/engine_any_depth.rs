//! JSON of any depth or shape, from a client or from a server, never panics or
//! overflows the stack (these tests run on a 2 MiB test thread), and every
//! request gets exactly one answer carrying its own id when its top level is
//! readable. Also: the strict JSON-RPC envelope, the oversized-message event, and
//! a server's stderr staying out of the errors clients see.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::engine::{Endpoint, Event, ServerState, Settings};
use lazy_mcp_core::protocol::client_message::client_body;
use lazy_mcp_core::protocol::outline::MAX_DEPTH;
use proptest::prelude::*;
use serde_json::{json, Value};

/// `depth` levels of arrays/objects (kinds picked by `pattern`), with a leaf.
fn nest(depth: usize, pattern: u64) -> String {
    let mut open = String::with_capacity(depth * 6);
    let mut close = String::with_capacity(depth);
    for level in 0..depth {
        if (pattern >> (level % 64)) & 1 == 0 {
            open.push('[');
            close.push(']');
        } else {
            open.push_str("{\"k\":");
            close.push('}');
        }
    }
    close = close.chars().rev().collect();
    format!("{open}1{close}")
}

fn replies_of(sim: &Sim, client: &str) -> Vec<Value> {
    sim.replies
        .iter()
        .filter(|(c, _)| c == client)
        .map(|(_, m)| m.clone())
        .collect()
}

fn sim_with_server() -> Sim {
    let mut sim = Sim::new(Settings::default()).fake("s", FakeServer::with_tools(&["echo"]));
    sim.apply(vec![config("s")]);
    sim
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_client_message_of_any_depth_gets_one_answer_with_its_id(
        depth in prop_oneof![0usize..300, 300usize..200_000],
        pattern in any::<u64>(),
        id_first in any::<bool>(),
        in_arguments in any::<bool>(),
        cut in prop::option::of(0usize..400_000),
        aggregate in any::<bool>(),
    ) {
        let mut sim = sim_with_server();
        let deep = nest(depth, pattern);
        let params = if in_arguments {
            format!(r#"{{"name":"s__echo","arguments":{{"text":{deep}}}}}"#)
        } else {
            format!(r#"{{"name":"s__echo","arguments":{{}},"extra":{deep}}}"#)
        };
        let mut text = if id_first {
            format!(r#"{{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{params}}}"#)
        } else {
            format!(r#"{{"jsonrpc":"2.0","method":"tools/call","params":{params},"id":77}}"#)
        };
        let full_len = text.len();
        if let Some(cut) = cut {
            let mut at = cut.min(text.len());
            while !text.is_char_boundary(at) { at -= 1; }
            text.truncate(at);
        }
        let endpoint = if aggregate { Endpoint::Aggregate } else { server_endpoint("s") };
        sim.send(Event::ClientMessage { client: "c".into(), endpoint, message: text.clone() });
        sim.advance(1_000_000);
        let replies = replies_of(&sim, "c");
        prop_assert_eq!(replies.len(), 1, "exactly one answer: {:?}", replies);
        // `{"jsonrpc":"2.0","id":77,` is 25 bytes: a head that long shows the id.
        let readable_id = text.len() == full_len || (id_first && text.len() >= 25);
        if readable_id {
            prop_assert_eq!(&replies[0]["id"], &json!(77));
        }
        // The same routing as the HTTP gateway will use.
        let routed = client_body(&text);
        prop_assert_eq!(routed.messages.len(), 1);
        prop_assert_eq!(&routed.messages[0].id, &replies[0]["id"]);
        let envelope_levels = if in_arguments { 3 } else { 2 };
        if depth + envelope_levels > MAX_DEPTH {
            prop_assert!(replies[0]["error"].is_object());
        }
    }

    #[test]
    fn a_server_reply_of_any_depth_ends_the_call(
        depth in prop_oneof![0usize..300, 300usize..200_000],
        pattern in any::<u64>(),
    ) {
        let mut sim = sim_with_server();
        sim.fakes.get_mut("s").unwrap().behavior = Behavior::CallHangs;
        sim.client("c", server_endpoint("s"), call(1, "echo"));
        let conn = sim.conn_of("s").unwrap();
        let upstream_id = sim.sent.iter().rev().find(|(_, m)| m["method"] == "tools/call").unwrap().1["id"].clone();
        let deep = nest(depth, pattern);
        sim.send(Event::MessageReceived {
            conn,
            message: format!(r#"{{"jsonrpc":"2.0","id":{upstream_id},"result":{{"content":[],"structuredContent":{deep}}}}}"#),
        });
        let reply = sim.reply_to("c", json!(1)).expect("the call is answered at once");
        // `{"result":{"structuredContent":…}}`: two levels around the nesting.
        if depth + 2 > MAX_DEPTH {
            prop_assert!(reply["error"]["message"].as_str().unwrap().contains("cannot read"));
        } else {
            prop_assert!(reply["result"].is_object());
        }
    }

    #[test]
    fn any_bytes_as_a_batch_body_are_routed_without_panicking(body in ".{0,300}") {
        let routed = client_body(&body);
        prop_assert!(!routed.messages.is_empty());
    }
}

#[test]
fn strict_envelope_jsonrpc_version_and_id_types() {
    let mut sim = sim_with_server();
    sim.client(
        "c",
        Endpoint::Aggregate,
        json!({"jsonrpc": "1.0", "id": 1, "method": "tools/list"}),
    );
    let reply = sim.reply_to("c", json!(1)).unwrap();
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    for id in [json!(null), json!(true), json!({"a": 1}), json!([1])] {
        let before = replies_of(&sim, "d").len();
        sim.client(
            "d",
            Endpoint::Aggregate,
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}),
        );
        let replies = replies_of(&sim, "d");
        assert_eq!(replies.len(), before + 1, "{id}");
        let reply = replies.last().unwrap();
        assert_eq!(
            (reply["id"].clone(), reply["error"]["code"].clone()),
            (json!(null), json!(-32600)),
            "{id}"
        );
    }
}

#[test]
fn an_oversized_message_is_answered_with_the_id_of_its_head() {
    let mut sim = sim_with_server();
    sim.send(Event::ClientMessageTooLarge {
        client: "c".into(),
        head: r#"{"jsonrpc":"2.0","id":"big-1","method":"tools/call","params":{"name":"x","arguments":{"t":"aaaa"#.into(),
        bytes: 200_000_000,
        limit_bytes: 16_777_216,
    });
    let reply = sim.reply_to("c", json!("big-1")).unwrap();
    assert_eq!(reply["error"]["code"], -32600);
    assert!(reply["error"]["message"]
        .as_str()
        .unwrap()
        .contains("16777216"));
}

#[test]
fn a_crashing_servers_stderr_reaches_the_log_and_diagnostics_but_not_the_client() {
    let mut sim = sim_with_server();
    sim.fakes.get_mut("s").unwrap().behavior = Behavior::CallHangs;
    sim.client("c", server_endpoint("s"), call(1, "echo"));
    let conn = sim.conn_of("s").unwrap();
    sim.live.remove(&conn);
    sim.send(Event::ConnectionClosed {
        conn,
        reason: "the process exited".into(),
        exit_code: Some(1),
        stderr_tail: Some("Error: /home/me/secret-path token=abc123".into()),
    });
    let error = sim.reply_to("c", json!(1)).unwrap()["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(error.contains("exit code 1"), "{error}");
    assert!(
        !error.contains("abc123") && !error.contains("stderr"),
        "{error}"
    );
    assert!(sim.logs().iter().any(|l| l.contains("token=abc123")));
    let snapshot = serde_json::to_string(&sim.engine.snapshot()).unwrap();
    assert!(
        snapshot.contains("token=abc123"),
        "Diagnostics keep the tail"
    );
    assert_eq!(sim.state("s"), Some(ServerState::Catalogued));
}
