//! The owner's multiplexer sends each server message to the right client (issue
//! 26 item 6): a resource URI is subscribed upstream once for all clients and
//! its updates reach only its subscribers; a server's request goes to the
//! client whose call caused it, never to one of another workspace.
//! docs/shared-servers.md "Multiplexing rules".
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use lazy_mcp_core::shared::launch::SharedLaunch;
use lazy_mcp_core::shared::mux::{Mux, MuxEffect, MuxEvent};
use serde_json::{json, Value};

mod mux_support;
use mux_support::{to_client, to_server};

const URI: &str = "demo://resource/dynamic/text/7";

fn launch(roots: &str) -> SharedLaunch {
    SharedLaunch {
        key: "k".into(),
        roots_key: roots.into(),
        roots_bound: false,
        workspace_cwd: false,
        omit_env: Vec::new(),
        holder: format!("session {roots}"),
        idle_timeout_ms: 0,
        adaptive_idle: false,
        repeatable: Vec::new(),
    }
}

/// Clients 1 and 2 (roots `r1`, `r2`) on process 1, up.
fn two_clients() -> Mux {
    let mut mux = Mux::new();
    for (attach, roots) in [(1, "r1"), (2, "r2")] {
        mux.handle(MuxEvent::Attach {
            attach,
            server: "everything".into(),
            launch: Box::new(launch(roots)),
            transport: json!({"type": "stdio", "command": "node"}),
            cwd: None,
            env: json!({}),
            now_ms: 0,
        });
    }
    mux.handle(MuxEvent::ProcessOpened {
        process: 1,
        pid: None,
    });
    mux
}

fn client(mux: &mut Mux, attach: u64, message: Value) -> Vec<MuxEffect> {
    mux.client_message(attach, &message.to_string())
}

fn server(mux: &mut Mux, message: Value) -> Vec<MuxEffect> {
    mux.server_message(1, &message.to_string())
}

fn request(id: u64, method: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"uri": URI}})
}

fn updated() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": URI}})
}

#[test]
fn a_uri_is_subscribed_upstream_once_and_unsubscribed_when_its_last_subscriber_leaves() {
    let mut mux = two_clients();
    let first = client(&mut mux, 1, request(5, "resources/subscribe"));
    let up = to_server(&first);
    assert_eq!(up.len(), 1, "the first subscribe goes to the server");
    assert_eq!(up[0]["method"], "resources/subscribe");
    let answer = server(
        &mut mux,
        json!({"jsonrpc": "2.0", "id": up[0]["id"], "result": {}}),
    );
    assert_eq!(to_client(&answer, 1)[0]["id"], 5);

    let second = client(&mut mux, 2, request(9, "resources/subscribe"));
    assert!(
        to_server(&second).is_empty(),
        "the server is subscribed already"
    );
    assert_eq!(
        to_client(&second, 2),
        vec![json!({"jsonrpc": "2.0", "id": 9, "result": {}})],
        "answered by the owner"
    );

    let leaves = client(&mut mux, 2, request(10, "resources/unsubscribe"));
    assert!(to_server(&leaves).is_empty(), "client 1 still wants it");
    assert_eq!(to_client(&leaves, 2)[0]["id"], 10);
    // The reviewer's case: client 1 still hears of changes, client 2 no more.
    let update = server(&mut mux, updated());
    assert_eq!(to_client(&update, 1).len(), 1);
    assert!(to_client(&update, 2).is_empty());

    let last = to_server(&client(&mut mux, 1, request(6, "resources/unsubscribe")));
    assert_eq!(
        last.len(),
        1,
        "the last subscriber gone: the server is told"
    );
    assert_eq!(last[0]["method"], "resources/unsubscribe");
    assert_eq!(last[0]["params"]["uri"], URI);
}

#[test]
fn updates_reach_only_the_subscribers_and_list_changes_reach_everyone() {
    let mut mux = two_clients();
    client(&mut mux, 2, request(1, "resources/subscribe"));
    let update = server(&mut mux, updated());
    assert!(
        to_client(&update, 1).is_empty(),
        "client 1 never subscribed"
    );
    assert_eq!(to_client(&update, 2)[0]["params"]["uri"], URI);
    let changed = server(
        &mut mux,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"}),
    );
    assert_eq!(to_client(&changed, 1).len(), 1);
    assert_eq!(to_client(&changed, 2).len(), 1);
}

#[test]
fn a_detaching_subscriber_unsubscribes_the_server_only_when_it_was_the_last() {
    let mut mux = two_clients();
    let up = to_server(&client(&mut mux, 1, request(1, "resources/subscribe")));
    server(
        &mut mux,
        json!({"jsonrpc": "2.0", "id": up[0]["id"], "result": {}}),
    );
    client(&mut mux, 2, request(1, "resources/subscribe"));
    let first_gone = mux.handle(MuxEvent::Detach {
        attach: 1,
        idle: false,
    });
    assert!(to_server(&first_gone).is_empty(), "client 2 still wants it");
    assert_eq!(to_client(&server(&mut mux, updated()), 2).len(), 1);

    let last_gone = to_server(&mux.handle(MuxEvent::Detach {
        attach: 2,
        idle: false,
    }));
    assert_eq!(last_gone.len(), 1);
    assert_eq!(last_gone[0]["method"], "resources/unsubscribe");
    assert_eq!(last_gone[0]["params"]["uri"], URI);
    // Its answer belongs to no client.
    let answer = server(
        &mut mux,
        json!({"jsonrpc": "2.0", "id": last_gone[0]["id"], "result": {}}),
    );
    assert!(answer
        .iter()
        .all(|e| !matches!(e, MuxEffect::ToClient { .. })));
}

#[test]
fn a_server_request_goes_to_the_call_whose_progress_token_it_names() {
    let mut mux = two_clients();
    let call = |id: u64, token: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "x", "_meta": {"progressToken": token}}})
    };
    let twos = to_server(&client(&mut mux, 2, call(1, json!("t2"))));
    client(&mut mux, 1, call(1, json!("t1")));
    let token = twos[0]["params"]["_meta"]["progressToken"].clone();
    let ask = server(
        &mut mux,
        json!({"jsonrpc": "2.0", "id": 50, "method": "elicitation/create",
            "params": {"message": "?", "_meta": {"progressToken": token}}}),
    );
    assert!(
        to_client(&ask, 1).is_empty(),
        "not the newest call's client"
    );
    assert_eq!(to_client(&ask, 2)[0]["method"], "elicitation/create");
}

#[test]
fn a_process_shared_across_roots_that_asks_keeps_one_workspace_and_asks_only_it() {
    let mut mux = two_clients();
    // Clients of two workspaces hold the process when it asks for roots: each is
    // told (so each records that it asks); the oldest keeps the process and
    // answers, the other moves to a process of its own roots
    // (`shared_mux_roots.rs`).
    let ask = server(
        &mut mux,
        json!({"jsonrpc": "2.0", "id": 1, "method": "roots/list"}),
    );
    assert_eq!(to_client(&ask, 1).len(), 1);
    assert_eq!(to_client(&ask, 2).len(), 1);
    assert!(to_server(&ask).is_empty(), "no error: {ask:?}");
    let asked = to_client(&ask, 1)[0]["id"].clone();
    let roots = |id: &Value, w: &str| json!({"jsonrpc": "2.0", "id": id, "result": {"roots": [{"uri": w}]}});
    assert!(
        to_server(&client(&mut mux, 2, roots(&asked, "file:///w2"))).is_empty(),
        "the other workspace's roots never reach it"
    );
    assert_eq!(
        to_server(&client(&mut mux, 1, roots(&asked, "file:///w1"))),
        vec![roots(&json!(1), "file:///w1")]
    );
    // Its later requests go to its own workspace's client only.
    let elicit = server(
        &mut mux,
        json!({"jsonrpc": "2.0", "id": 2, "method": "elicitation/create", "params": {"message": "?"}}),
    );
    assert!(to_client(&elicit, 2).is_empty());
    assert_eq!(to_client(&elicit, 1)[0]["method"], "elicitation/create");
}

/// The server's error for the subscribe it was sent (`up`).
fn refused(up: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": up["id"], "error": {"code": -32602, "message": "no such resource"}})
}

#[test]
fn a_subscribe_while_the_first_is_unanswered_gets_the_first_ones_answer_an_error_too() {
    let mut mux = two_clients();
    let up = to_server(&client(&mut mux, 1, request(5, "resources/subscribe")));
    assert_eq!(up.len(), 1, "the first subscribe goes to the server");
    let second = client(&mut mux, 2, request(9, "resources/subscribe"));
    assert!(to_server(&second).is_empty(), "asked once for both");
    assert!(
        to_client(&second, 2).is_empty(),
        "not told it worked before the server said so"
    );

    let answer = server(&mut mux, refused(&up[0]));
    for (who, id) in [(1, 5), (2, 9)] {
        let got = to_client(&answer, who);
        assert_eq!(got.len(), 1, "client {who}: {got:?}");
        assert_eq!(got[0]["id"], id);
        assert_eq!(got[0]["error"]["message"], "no such resource");
    }
    // Nobody is subscribed: an update of the URI is no subscriber's, so every holder hears it.
    let update = server(&mut mux, updated());
    assert_eq!(to_client(&update, 1).len(), 1);
    assert_eq!(to_client(&update, 2).len(), 1);
}

#[test]
fn a_refused_subscribe_records_nobody_so_the_next_one_asks_the_server_again() {
    let mut mux = two_clients();
    let up = to_server(&client(&mut mux, 1, request(5, "resources/subscribe")));
    server(&mut mux, refused(&up[0]));

    let again = to_server(&client(&mut mux, 2, request(9, "resources/subscribe")));
    assert_eq!(
        again.len(),
        1,
        "asked again, not answered from the failed one"
    );
    assert_eq!(again[0]["method"], "resources/subscribe");
    let ok = server(
        &mut mux,
        json!({"jsonrpc": "2.0", "id": again[0]["id"], "result": {}}),
    );
    assert_eq!(
        to_client(&ok, 2),
        vec![json!({"jsonrpc": "2.0", "id": 9, "result": {}})]
    );
    let update = server(&mut mux, updated());
    assert!(
        to_client(&update, 1).is_empty(),
        "client 1's subscribe failed"
    );
    assert_eq!(to_client(&update, 2).len(), 1);
    // Client 1 never got subscribed: its unsubscribe keeps client 2's subscription upstream.
    let leaves = client(&mut mux, 1, request(6, "resources/unsubscribe"));
    assert!(to_server(&leaves).is_empty(), "client 2 still wants it");
}

#[test]
fn a_waiting_subscriber_still_gets_the_answer_when_the_first_one_detached() {
    let mut mux = two_clients();
    let up = to_server(&client(&mut mux, 1, request(5, "resources/subscribe")));
    client(&mut mux, 2, request(9, "resources/subscribe"));
    let gone = mux.handle(MuxEvent::Detach {
        attach: 1,
        idle: false,
    });
    assert!(
        to_server(&gone).is_empty(),
        "neither cancelled nor unsubscribed: client 2 waits for it"
    );
    let answer = server(
        &mut mux,
        json!({"jsonrpc": "2.0", "id": up[0]["id"], "result": {}}),
    );
    assert_eq!(
        to_client(&answer, 2),
        vec![json!({"jsonrpc": "2.0", "id": 9, "result": {}})]
    );
    assert!(to_client(&answer, 1).is_empty(), "client 1 left");
}
