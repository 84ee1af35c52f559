//! A server asking the user for input during a call (elicitation, sampling),
//! with the simulated host, for clients of the 2026-07-28 era, which answer the
//! era's way: an `input_required` result, then the same request again with
//! `inputResponses` and the `requestState`.
//! - A modern server's `input_required` goes to a modern client that declared
//!   the capability (roots asked with it are answered by Lazy MCP itself).
//! - A legacy server's JSON-RPC request mid-call is turned into `input_required`
//!   for a modern client, the upstream call kept pending, and the client's retry
//!   answers the server and gets the call's real result.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::config::model::ToolExposure;
use lazy_mcp_core::engine::{Endpoint, Event, ServerState, Settings};
use serde_json::{json, Value};

const MODERN: EraBehavior = EraBehavior::Modern { ttl_ms: 60_000 };

fn envelope(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "modern", "version": "1"},
    })
}

/// A modern client's `tools/call` of `tool` (extra params merged in).
fn modern_call(id: u64, tool: &str, capabilities: Value, extra: Value) -> Value {
    let mut params = json!({"name": tool, "arguments": {}, "_meta": envelope(capabilities)});
    for (key, value) in extra.as_object().unwrap() {
        params[key] = value.clone();
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

fn replies_to(sim: &Sim, client: &str, id: u64) -> usize {
    sim.replies
        .iter()
        .filter(|(c, m)| c == client && m["id"] == json!(id))
        .count()
}

fn text(reply: &Value) -> String {
    reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn modern_asker(asks_roots: bool) -> Sim {
    let server = FakeServer {
        era: MODERN,
        asks_input: true,
        asks_roots,
        ..FakeServer::with_tools(&["echo"])
    };
    let mut sim = Sim::new(Settings {
        workspace_folders: vec!["/work/project".into()],
        ..Settings::default()
    })
    .fake("asker", server);
    sim.apply(vec![config("asker")]);
    sim
}

fn legacy_asker(asks: &str) -> Sim {
    let server = FakeServer {
        asks_client: Some(asks.into()),
        ..FakeServer::with_tools(&["echo"])
    };
    let mut sim = Sim::new(Settings::default()).fake("old", server);
    sim.apply(vec![config("old")]);
    assert_eq!(sim.state("old"), Some(ServerState::Catalogued));
    sim
}

// ---- modern servers ------------------------------------------------------------

#[test]
fn a_modern_client_that_declared_elicitation_gets_the_servers_input_request_and_its_retry_goes_through(
) {
    let mut sim = modern_asker(false);
    let elicitation = json!({"elicitation": {"form": {}}});
    sim.client(
        "c",
        server_endpoint("asker"),
        modern_call(1, "echo", elicitation.clone(), json!({})),
    );
    let reply = sim.reply_to("c", json!(1)).unwrap();
    assert_eq!(reply["result"]["resultType"], "input_required", "{reply}");
    assert_eq!(
        reply["result"]["inputRequests"]["q"]["method"], "elicitation/create",
        "{reply}"
    );
    // The server was told this call's client takes elicitation (and roots, which
    // Lazy MCP answers itself), never sampling it did not declare.
    let (_, upstream_call) = sim
        .sent
        .iter()
        .rfind(|(s, m)| s == "asker" && m["method"] == "tools/call")
        .unwrap();
    let declared = &upstream_call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"];
    assert_eq!(
        declared,
        &json!({"roots": {}, "elicitation": {"form": {}}}),
        "{upstream_call}"
    );
    // The client answers by sending the call again: forwarded with its answers.
    let answers = json!({"inputResponses": {"q": {"action": "accept", "content": {}}}});
    sim.client(
        "c",
        server_endpoint("asker"),
        modern_call(2, "echo", elicitation, answers),
    );
    let reply = sim.reply_to("c", json!(2)).unwrap();
    assert_eq!(
        text(&reply),
        "answers {\"q\":{\"action\":\"accept\",\"content\":{}}} state null",
        "{reply}"
    );
    // A legacy client of the same server still gets the clear refusal.
    sim.client("legacy", server_endpoint("asker"), call(3, "echo"));
    let refused = sim.reply_to("legacy", json!(3)).unwrap();
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("input_required"), "{refused}");
}

#[test]
fn a_modern_result_asking_for_input_is_refused_with_a_clear_error_or_the_specs_32021() {
    let mut sim = modern_asker(false);
    sim.client("c", server_endpoint("asker"), call(1, "echo"));
    let reply = sim.reply_to("c", json!(1)).unwrap();
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("asker")
            && message.contains("input_required")
            && message.contains("elicitation/create"),
        "{reply}"
    );
    // A modern client that declared sampling only cannot answer elicitation.
    let sampling = json!({"sampling": {}});
    sim.client(
        "m",
        server_endpoint("asker"),
        modern_call(2, "echo", sampling, json!({})),
    );
    let reply = sim.reply_to("m", json!(2)).unwrap();
    assert!(reply["error"]["message"]
        .as_str()
        .unwrap()
        .contains("input_required"));
    assert_eq!(reply["error"]["code"], -32021, "the spec's error: {reply}");
    assert_eq!(
        reply["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {"form": {}}})
    );
    assert_eq!(sim.answer_status("m", 2), Some(400));
    // Declaring only URL-mode elicitation does not cover a form request.
    sim.client(
        "m",
        server_endpoint("asker"),
        modern_call(3, "echo", json!({"elicitation": {"url": {}}}), json!({})),
    );
    let reply = sim.reply_to("m", json!(3)).unwrap();
    assert_eq!(reply["error"]["code"], -32021, "{reply}");
    assert_eq!(
        sim.state("asker"),
        Some(ServerState::Connected),
        "the server stays usable"
    );
}

#[test]
fn roots_asked_with_elicitation_are_answered_by_lazy_mcp_and_merged_into_the_clients_retry() {
    let mut sim = modern_asker(true);
    let elicitation = json!({"elicitation": {}});
    sim.client(
        "c",
        server_endpoint("asker"),
        modern_call(1, "echo", elicitation.clone(), json!({})),
    );
    let reply = sim.reply_to("c", json!(1)).unwrap();
    let requests = reply["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(
        requests.keys().collect::<Vec<_>>(),
        ["q"],
        "only what the client answers: {reply}"
    );
    let state = reply["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    // The client echoes the state and answers its part (as the SDK v2 client does).
    let answers = json!({"inputResponses": {"q": {"action": "accept", "content": {"ok": true}}}, "requestState": state});
    sim.client(
        "c",
        server_endpoint("asker"),
        modern_call(2, "echo", elicitation, answers),
    );
    let forwarded = sim.last_sent("tools/call");
    assert_eq!(
        forwarded["params"]["requestState"], "state-1",
        "the server gets its own state back: {forwarded}"
    );
    assert_eq!(
        forwarded["params"]["inputResponses"]["r"],
        json!({"roots": [{"uri": "file:///work/project", "name": "project"}]}),
        "{forwarded}"
    );
    assert_eq!(
        forwarded["params"]["inputResponses"]["q"]["action"],
        "accept"
    );
    let reply = sim.reply_to("c", json!(2)).unwrap();
    assert!(text(&reply).starts_with("answers "), "{reply}");
}

#[test]
fn a_retry_through_call_tool_carries_the_clients_answers() {
    let mut sim = Sim::new(Settings {
        tool_exposure: ToolExposure::Index,
        ..Settings::default()
    })
    .fake(
        "asker",
        FakeServer {
            era: MODERN,
            asks_input: true,
            ..FakeServer::with_tools(&["echo"])
        },
    );
    sim.apply(vec![config("asker")]);
    let elicitation = json!({"elicitation": {}});
    let call_tool = |id: u64, extra: Value| {
        let mut message = modern_call(id, "call_tool", elicitation.clone(), extra);
        message["params"]["arguments"] = json!({"name": "asker/echo", "arguments": {}});
        message
    };
    sim.client("c", Endpoint::Aggregate, call_tool(1, json!({})));
    let reply = sim.reply_to("c", json!(1)).unwrap();
    assert_eq!(reply["result"]["resultType"], "input_required", "{reply}");
    let answers = json!({"inputResponses": {"q": {"action": "decline"}}});
    sim.client("c", Endpoint::Aggregate, call_tool(2, answers));
    let reply = sim.reply_to("c", json!(2)).unwrap();
    assert_eq!(
        text(&reply),
        "answers {\"q\":{\"action\":\"decline\"}} state null",
        "{reply}"
    );
    assert_eq!(sim.sent_method("asker", "tools/call"), 2, "asked once");
}

// ---- legacy servers, modern clients -------------------------------------------

#[test]
fn a_legacy_servers_elicitation_reaches_a_modern_client_as_input_required_and_its_retry_gets_the_result(
) {
    let mut sim = legacy_asker("elicitation/create");
    let elicitation = json!({"elicitation": {"form": {}}});
    // Over HTTP each request of the era is a client of its own, gone once answered.
    sim.client(
        "post-1",
        server_endpoint("old"),
        modern_call(1, "echo", elicitation.clone(), json!({})),
    );
    let reply = sim.reply_to("post-1", json!(1)).unwrap();
    assert_eq!(reply["result"]["resultType"], "input_required", "{reply}");
    let requests = reply["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{reply}");
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["message"], "Sure?");
    let state = reply["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    sim.send(Event::ClientDisconnected {
        client: "post-1".into(),
    });
    assert_eq!(
        sim.sent_method("old", "notifications/cancelled"),
        0,
        "the call waits for the retry"
    );
    assert!(
        sim.sent.iter().all(|(_, m)| m["id"] != "ask-2"),
        "nothing answered the server yet"
    );

    let answers = json!({"inputResponses": {key.clone(): {"action": "accept", "content": {"sure": true}}}, "requestState": state});
    sim.client(
        "post-2",
        server_endpoint("old"),
        modern_call(2, "echo", elicitation, answers),
    );
    let (_, answered) = sim
        .sent
        .iter()
        .find(|(_, m)| m["id"].as_str().is_some_and(|id| id.starts_with("ask-")))
        .unwrap();
    assert_eq!(
        answered["result"],
        json!({"action": "accept", "content": {"sure": true}})
    );
    let reply = sim.reply_to("post-2", json!(2)).unwrap();
    assert_eq!(
        text(&reply),
        "answered {\"action\":\"accept\",\"content\":{\"sure\":true}}",
        "{reply}"
    );
    assert_eq!(reply["result"]["resultType"], "complete");
    assert_eq!(
        sim.sent_method("old", "tools/call"),
        1,
        "one upstream call for both rounds"
    );
    assert_eq!(replies_to(&sim, "post-1", 1), 1, "one answer per request");
}

#[test]
fn a_legacy_servers_sampling_request_is_bridged_on_one_stdio_client_too() {
    let mut sim = legacy_asker("sampling/createMessage");
    let sampling = json!({"sampling": {}});
    sim.client(
        "c",
        server_endpoint("old"),
        modern_call(1, "echo", sampling.clone(), json!({})),
    );
    let reply = sim.reply_to("c", json!(1)).unwrap();
    let (key, request) = reply["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .iter()
        .next()
        .map(|(k, v)| (k.clone(), v.clone()))
        .unwrap();
    assert_eq!(request["method"], "sampling/createMessage");
    let state = reply["result"]["requestState"].clone();
    let message =
        json!({"role": "assistant", "content": {"type": "text", "text": "yes"}, "model": "m"});
    let answers = json!({"inputResponses": {key: message.clone()}, "requestState": state});
    sim.client(
        "c",
        server_endpoint("old"),
        modern_call(2, "echo", sampling, answers),
    );
    let reply = sim.reply_to("c", json!(2)).unwrap();
    assert_eq!(text(&reply), format!("answered {message}"));
    assert_eq!(replies_to(&sim, "c", 1), 1);
}

#[test]
fn a_modern_client_that_did_not_declare_the_capability_gets_the_specs_missing_capability_error() {
    let mut sim = legacy_asker("elicitation/create");
    sim.client(
        "c",
        server_endpoint("old"),
        modern_call(1, "echo", json!({"sampling": {}}), json!({})),
    );
    // MCP 2026-07-28: -32021 naming what to declare, HTTP 400, at once.
    let reply = sim.reply_to("c", json!(1)).unwrap();
    assert_eq!(reply["error"]["code"], -32021, "{reply}");
    assert_eq!(
        reply["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {"form": {}}}),
        "{reply}"
    );
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("'old'") && message.contains("elicitation"),
        "{reply}"
    );
    assert_eq!(sim.answer_status("c", 1), Some(400));
    assert_eq!(replies_to(&sim, "c", 1), 1, "answered once");
    // Upstream: the server's request refused, its call cancelled.
    let refusal = sim
        .sent
        .iter()
        .find(|(s, m)| s == "old" && m["id"].as_str().is_some_and(|id| id.starts_with("ask-")))
        .map(|(_, m)| m.clone())
        .unwrap();
    assert!(refusal["error"]["message"]
        .as_str()
        .unwrap()
        .contains("did not declare elicitation"));
    assert_eq!(sim.sent_method("old", "notifications/cancelled"), 1);
    // Declared, the same call goes through (the client retries the spec's way).
    sim.client(
        "c",
        server_endpoint("old"),
        modern_call(2, "echo", json!({"elicitation": {}}), json!({})),
    );
    let asked = sim.reply_to("c", json!(2)).unwrap();
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    assert_eq!(sim.state("old"), Some(ServerState::Connected));
}

#[test]
fn a_client_that_never_retries_leaves_nothing_waiting_after_the_request_timeout() {
    let timeout = Settings::default().request_timeout_ms;
    let mut sim = legacy_asker("elicitation/create");
    let elicitation = json!({"elicitation": {}});
    sim.client(
        "c",
        server_endpoint("old"),
        modern_call(1, "echo", elicitation.clone(), json!({})),
    );
    let state = sim.reply_to("c", json!(1)).unwrap()["result"]["requestState"].clone();
    sim.advance(timeout - 1);
    assert_eq!(sim.sent_method("old", "notifications/cancelled"), 0);
    sim.advance(1);
    // The server hears that nobody answered, and the call is cancelled.
    assert_eq!(sim.sent_method("old", "notifications/cancelled"), 1);
    assert!(sim.sent.iter().any(|(_, m)| m["id"]
        .as_str()
        .is_some_and(|id| id.starts_with("ask-"))
        && m["error"]["message"] == "the client did not answer in time"));
    assert_eq!(replies_to(&sim, "c", 1), 1, "no second answer to request 1");
    // A late retry is told so, not forwarded as a new call.
    let answers = json!({"inputResponses": {}, "requestState": state});
    sim.client(
        "c",
        server_endpoint("old"),
        modern_call(2, "echo", elicitation, answers),
    );
    let reply = sim.reply_to("c", json!(2)).unwrap();
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no call waiting"),
        "{reply}"
    );
    assert_eq!(sim.sent_method("old", "tools/call"), 1);
}

#[test]
fn a_result_that_comes_before_the_retry_is_given_to_the_retry() {
    let mut sim = legacy_asker("elicitation/create");
    let elicitation = json!({"elicitation": {}});
    sim.client(
        "c",
        server_endpoint("old"),
        modern_call(1, "echo", elicitation.clone(), json!({})),
    );
    let state = sim.reply_to("c", json!(1)).unwrap()["result"]["requestState"].clone();
    // The server gave up waiting on its own and answered the call.
    let call_id = sim
        .sent
        .iter()
        .find(|(_, m)| m["method"] == "tools/call")
        .map(|(_, m)| m["id"].clone())
        .unwrap();
    let conn = sim.conn_of("old").unwrap();
    sim.send(Event::MessageReceived {
        conn,
        message: json!({"jsonrpc": "2.0", "id": call_id, "result": {"content": [{"type": "text", "text": "timed out asking"}]}}).to_string(),
    });
    assert_eq!(
        replies_to(&sim, "c", 1),
        1,
        "request 1 was answered already"
    );
    let answers = json!({"inputResponses": {}, "requestState": state});
    sim.client(
        "c",
        server_endpoint("old"),
        modern_call(2, "echo", elicitation, answers),
    );
    assert_eq!(
        text(&sim.reply_to("c", json!(2)).unwrap()),
        "timed out asking"
    );
}

#[test]
fn calls_their_clients_cancelled_while_waiting_no_longer_count_against_the_waiting_limit() {
    // 64 calls may wait for their clients' answers at once. Each of these is
    // cancelled by its client while it waits: none of them waits any more, so
    // the next call's client is asked, not refused.
    let mut sim = legacy_asker("elicitation/create");
    let elicitation = json!({"elicitation": {}});
    for id in 1..=64 {
        sim.client(
            "c",
            server_endpoint("old"),
            modern_call(id, "echo", elicitation.clone(), json!({})),
        );
        let asked = sim.reply_to("c", json!(id)).unwrap();
        assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
        sim.client(
            "c",
            server_endpoint("old"),
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}}),
        );
    }
    assert_eq!(sim.sent_method("old", "notifications/cancelled"), 64);
    sim.client(
        "c",
        server_endpoint("old"),
        modern_call(65, "echo", elicitation, json!({})),
    );
    let asked = sim.reply_to("c", json!(65)).unwrap();
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    assert!(
        !sim.sent.iter().any(|(_, m)| m["error"]["message"]
            .as_str()
            .is_some_and(|t| t.contains("calls already wait"))),
        "no request for input was refused"
    );
}

#[test]
fn a_legacy_client_still_gets_the_servers_request_as_a_request() {
    let mut sim = legacy_asker("elicitation/create");
    sim.client(
        "vscode",
        server_endpoint("old"),
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "vscode"}}}),
    );
    sim.client("vscode", server_endpoint("old"), call(1, "echo"));
    let asked = sim
        .notifications
        .iter()
        .find(|(c, m)| c == "vscode" && m["method"] == "elicitation/create")
        .map(|(_, m)| m.clone())
        .unwrap();
    sim.client(
        "vscode",
        server_endpoint("old"),
        json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "decline"}}),
    );
    let reply = sim.reply_to("vscode", json!(1)).unwrap();
    assert_eq!(text(&reply), "answered {\"action\":\"decline\"}");
}

mod random_histories {
    use super::*;
    use lazy_mcp_core::engine::Effect;
    use proptest::prelude::*;

    const SERVERS: [(&str, &str); 2] = [
        ("asks", "elicitation/create"),
        ("samples", "sampling/createMessage"),
    ];
    const CLIENTS: [&str; 3] = ["a", "b", "c"];

    #[derive(Debug, Clone)]
    enum Action {
        /// A 2026-07-28 client's call; `capabilities`: bit 0 elicitation, bit 1 sampling.
        Call {
            server: usize,
            client: usize,
            capabilities: u8,
        },
        /// A legacy client's call (the server's request goes to it, or is refused).
        LegacyCall {
            server: usize,
            client: usize,
        },
        /// A retry with the `n`th `requestState` seen (any client: HTTP has no
        /// session), answering every request of that round or none.
        Retry {
            client: usize,
            state: usize,
            answer: bool,
        },
        /// A retry naming a state Lazy MCP never gave.
        BogusRetry {
            client: usize,
        },
        Advance {
            ms: u64,
        },
        Crash {
            server: usize,
        },
        ClientGone {
            client: usize,
        },
    }

    fn action() -> impl Strategy<Value = Action> {
        let s = 0..SERVERS.len();
        let c = 0..CLIENTS.len();
        prop_oneof![
            6 => (s.clone(), c.clone(), 0u8..4).prop_map(|(server, client, capabilities)| Action::Call { server, client, capabilities }),
            1 => (s.clone(), c.clone()).prop_map(|(server, client)| Action::LegacyCall { server, client }),
            6 => (c.clone(), 0usize..8, any::<bool>()).prop_map(|(client, state, answer)| Action::Retry { client, state, answer }),
            1 => c.clone().prop_map(|client| Action::BogusRetry { client }),
            3 => (0u64..150_000).prop_map(|ms| Action::Advance { ms }),
            1 => s.prop_map(|server| Action::Crash { server }),
            1 => c.prop_map(|client| Action::ClientGone { client }),
        ]
    }

    fn capabilities(bits: u8) -> Value {
        let mut declared = serde_json::Map::new();
        if bits & 1 != 0 {
            declared.insert("elicitation".into(), json!({}));
        }
        if bits & 2 != 0 {
            declared.insert("sampling".into(), json!({}));
        }
        Value::Object(declared)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

        /// Whatever the clients and servers do, every request gets exactly one
        /// answer (at most one when its client went away), nothing panics, and
        /// no server keeps two connections.
        #[test]
        fn requests_for_input_across_the_eras_answer_every_request_once(actions in prop::collection::vec(action(), 1..40)) {
            let mut sim = Sim::new(Settings::default());
            for (name, asks) in SERVERS {
                let fake = FakeServer { asks_client: Some(asks.into()), ..FakeServer::with_tools(&["echo"]) };
                sim.fakes.insert(name.into(), fake);
            }
            sim.apply(SERVERS.iter().map(|(n, _)| config(n)).collect());
            let mut asked: Vec<(String, u64, bool)> = Vec::new();
            let mut next_id = 1u64;
            let mut legacy_ready: Vec<String> = Vec::new();
            for action in actions {
                match action {
                    Action::Call { server, client, capabilities: bits } => {
                        let client = CLIENTS[client].to_string();
                        asked.push((client.clone(), next_id, false));
                        sim.client(&client, server_endpoint(SERVERS[server].0), modern_call(next_id, "echo", capabilities(bits), json!({})));
                        next_id += 1;
                    }
                    Action::LegacyCall { server, client } => {
                        let client = format!("legacy-{}", CLIENTS[client]);
                        if !legacy_ready.contains(&client) {
                            sim.client(&client, server_endpoint(SERVERS[server].0), json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": client}}}));
                            legacy_ready.push(client.clone());
                        }
                        asked.push((client.clone(), next_id, false));
                        sim.client(&client, server_endpoint(SERVERS[server].0), call(next_id, "echo"));
                        next_id += 1;
                    }
                    Action::Retry { client, state, answer } => {
                        let rounds: Vec<Value> = sim
                            .replies
                            .iter()
                            .filter(|(_, m)| m["result"]["resultType"] == "input_required")
                            .map(|(_, m)| m["result"].clone())
                            .collect();
                        let Some(round) = rounds.get(state % rounds.len().max(1)).cloned() else {
                            continue;
                        };
                        let mut responses = serde_json::Map::new();
                        if answer {
                            for key in round["inputRequests"].as_object().unwrap().keys() {
                                responses.insert(key.clone(), json!({"action": "accept", "content": {}}));
                            }
                        }
                        let client = CLIENTS[client].to_string();
                        asked.push((client.clone(), next_id, false));
                        let retry = json!({"inputResponses": responses, "requestState": round["requestState"]});
                        sim.client(&client, server_endpoint(SERVERS[0].0), modern_call(next_id, "echo", capabilities(3), retry));
                        next_id += 1;
                    }
                    Action::BogusRetry { client } => {
                        let client = CLIENTS[client].to_string();
                        asked.push((client.clone(), next_id, false));
                        let retry = json!({"inputResponses": {}, "requestState": "lazy-mcp-input:999999"});
                        sim.client(&client, server_endpoint(SERVERS[1].0), modern_call(next_id, "echo", capabilities(3), retry));
                        next_id += 1;
                    }
                    Action::Advance { ms } => sim.advance(ms),
                    Action::Crash { server } => {
                        if let Some(conn) = sim.conn_of(SERVERS[server].0) {
                            sim.live.remove(&conn);
                            sim.send(Event::ConnectionClosed { conn, reason: "killed".into(), exit_code: Some(9), stderr_tail: None });
                        }
                    }
                    Action::ClientGone { client } => {
                        for (asker, _, abandoned) in asked.iter_mut() {
                            if asker == CLIENTS[client] {
                                *abandoned = true;
                            }
                        }
                        sim.send(Event::ClientDisconnected { client: CLIENTS[client].into() });
                    }
                }
                for (name, _) in SERVERS {
                    let live = sim.live.values().filter(|s| s.as_str() == name).count();
                    prop_assert!(live <= 1, "{} has {} live connections", name, live);
                }
            }
            for _ in 0..10 {
                sim.advance(600_000);
            }
            let bug = sim.effects.iter().any(|e| matches!(e, Effect::Log { message, .. } if message.contains("engine bug")));
            prop_assert!(!bug, "an engine bug was logged");
            for (client, id, abandoned) in asked {
                let answers = replies_to(&sim, &client, id);
                if abandoned {
                    prop_assert!(answers <= 1, "{} #{} answered {} times", client, id, answers);
                } else {
                    prop_assert_eq!(answers, 1, "{} #{} answered {} times", client, id, answers);
                }
            }
        }
    }
}
