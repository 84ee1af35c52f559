//! A shared process and the workspace roots (issue 26 item 2,
//! docs/shared-servers.md "Roots"): clients of one launch and one set of roots
//! share a process whatever each knows about the server asking for roots, and
//! a process held by two workspaces that asks for roots is split: the clients
//! of the roots asked keep it, the others move to a process of their own
//! roots, with no other workspace's roots; a moved client's call in flight is
//! sent again to its new process only when repeating it is safe.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use lazy_mcp_core::shared::launch::SharedLaunch;
use lazy_mcp_core::shared::mux::{Mux, MuxEffect, MuxEvent};
use serde_json::json;

mod mux_support;
use mux_support::{attach_at, client, server, spawns, to_client, to_process, to_server};

/// `roots_bound`: the client knows the server asks for roots (or it is new to it).
fn launch(roots: &str, roots_bound: bool) -> SharedLaunch {
    SharedLaunch {
        key: "k".into(),
        roots_key: roots.into(),
        roots_bound,
        workspace_cwd: false,
        omit_env: Vec::new(),
        holder: format!("session {roots}"),
        idle_timeout_ms: 0,
        adaptive_idle: false,
        // server-everything's tools its catalogue marks read-only or
        // idempotent (as the real ones are): safe to send again after a move.
        repeatable: vec!["echo".into(), "get-roots-list".into()],
    }
}

fn attach(mux: &mut Mux, attach: u64, roots: &str, roots_bound: bool) -> Vec<MuxEffect> {
    attach_at(mux, attach, "everything", launch(roots, roots_bound), 0)
}

/// Process `process` opened and initialized by `first` (the others' initialize answered from it).
fn up(mux: &mut Mux, process: u64, first: u64, others: &[u64]) {
    mux.handle(MuxEvent::ProcessOpened {
        process,
        pid: Some(100 + process as u32),
    });
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {"roots": {}}, "clientInfo": {"name": "lazy-mcp", "version": "1"}}});
    let sent = to_server(&client(mux, first, init.clone()));
    assert_eq!(sent.len(), 1);
    for other in others {
        client(mux, *other, init.clone());
    }
    server(
        mux,
        process,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"protocolVersion": "2025-06-18"}}),
    );
    for who in std::iter::once(&first).chain(others) {
        client(
            mux,
            *who,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        );
    }
}

fn clients_per_process(mux: &Mux) -> Vec<(u64, usize)> {
    mux.status()
        .iter()
        .map(|p| (p.process, p.clients))
        .collect()
}

/// Issue 26, A: two sessions of one project, one of which learnt that the
/// server asks for roots (its catalogue says so) and one that did not: the
/// same launch and the same roots, one process, in either order.
#[test]
fn clients_of_the_same_roots_share_a_process_whatever_each_knows_of_the_roots_ask() {
    for (first, second) in [(true, false), (false, true)] {
        let mut mux = Mux::new();
        assert_eq!(spawns(&attach(&mut mux, 1, "A", first)), vec![1]);
        assert!(
            spawns(&attach(&mut mux, 2, "A", second)).is_empty(),
            "a client {} and one {}: one process",
            if first { "knowing" } else { "not knowing" },
            if second { "knowing" } else { "not knowing" },
        );
        assert_eq!(clients_per_process(&mux), vec![(1, 2)]);
    }
}

#[test]
fn a_client_that_needs_its_roots_never_joins_a_process_of_other_roots() {
    let mut mux = Mux::new();
    attach(&mut mux, 1, "A", false);
    assert_eq!(
        spawns(&attach(&mut mux, 2, "B", true)),
        vec![2],
        "held by A: B's client that knows the server asks gets its own"
    );
    assert!(
        spawns(&attach(&mut mux, 3, "C", false)).is_empty(),
        "a client that knows nothing of an ask shares across roots, as before"
    );
    // A process keyed by its launch's roots that asks: a client of other roots
    // not knowing it asks gets a process of its own roots, not the unbound one.
    let mut mux = Mux::new();
    attach(&mut mux, 1, "A", true);
    up(&mut mux, 1, 1, &[]);
    server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}),
    );
    assert_eq!(spawns(&attach(&mut mux, 2, "B", false)), vec![2]);
    assert!(
        spawns(&attach(&mut mux, 3, "B", false)).is_empty(),
        "and the next of B joins it"
    );
    assert!(spawns(&attach(&mut mux, 4, "A", false)).is_empty());
    assert_eq!(clients_per_process(&mux), vec![(1, 2), (2, 2)]);
}

/// Issue 26, B: two workspaces' first calls reached one process of a server
/// catalogued as never asking for roots, which then asks.
#[test]
fn a_process_of_two_workspaces_that_asks_for_roots_is_split_into_one_per_workspace() {
    let mut mux = Mux::new();
    assert_eq!(spawns(&attach(&mut mux, 1, "r1", false)), vec![1]);
    assert!(spawns(&attach(&mut mux, 2, "r2", false)).is_empty());
    up(&mut mux, 1, 1, &[2]);
    // Client 2's call is in flight; client 1's is the newest when the server asks.
    let call2 = client(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "echo"}}),
    );
    let up2 = to_server(&call2)[0]["id"].clone();
    client(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "get-roots-list"}}),
    );
    let ask = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 9, "method": "roots/list"}),
    );
    // Under the mux's own id (the server's 9 could be another process's too).
    let asked = to_client(&ask, 1)[0]["id"].clone();
    for who in [1, 2] {
        assert_eq!(
            to_client(&ask, who),
            vec![json!({"jsonrpc": "2.0", "id": asked, "method": "roots/list"})],
            "holder {who} is told, so its client records that the server asks"
        );
    }
    assert_eq!(spawns(&ask), vec![2], "r2 gets a process of its own");
    let to_first = to_process(&ask, 1);
    assert_eq!(
        to_first,
        vec![
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": up2,
            "reason": "its client moved to a process of its own workspace roots"}})
        ],
        "no error to the server, only r2's call taken back: {ask:?}"
    );
    let from_1 =
        json!({"jsonrpc": "2.0", "id": asked, "result": {"roots": [{"uri": "file:///r1"}]}});
    assert_eq!(
        to_process(&client(&mut mux, 1, from_1), 1),
        vec![json!({"jsonrpc": "2.0", "id": 9, "result": {"roots": [{"uri": "file:///r1"}]}})]
    );
    let from_2 =
        json!({"jsonrpc": "2.0", "id": asked, "result": {"roots": [{"uri": "file:///r2"}]}});
    assert!(
        to_server(&client(&mut mux, 2, from_2)).is_empty(),
        "r2's roots never reach r1's process"
    );
    assert_eq!(clients_per_process(&mux), vec![(1, 1), (2, 1)]);

    // An answer to client 2's call from the first process (it may hold r1's roots) is dropped.
    let answer = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": up2, "result": {"content": [{"type": "text", "text": "r1"}]}}),
    );
    assert!(to_client(&answer, 2).is_empty(), "{answer:?}");
    // Its next call waits for the new process's handshake, which the owner does.
    let next = client(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "get-roots-list"}}),
    );
    assert!(to_server(&next).is_empty(), "held: {next:?}");
    let opened = mux.handle(MuxEvent::ProcessOpened {
        process: 2,
        pid: Some(202),
    });
    let init = to_process(&opened, 2);
    assert_eq!(init.len(), 1);
    assert_eq!(init[0]["method"], "initialize");
    assert_eq!(init[0]["params"]["clientInfo"]["name"], "lazy-mcp");
    assert!(
        to_client(&opened, 2).is_empty(),
        "the client's engine did its handshake already"
    );
    assert!(
        opened.contains(&MuxEffect::Opened {
            attach: 2,
            pid: Some(202)
        }),
        "the moved client learns the pid of the process serving it now (its Diagnostics show it): {opened:?}"
    );
    let done = server(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": "2025-06-18"}}),
    );
    let sent = to_process(&done, 2);
    assert_eq!(sent[0]["method"], "notifications/initialized");
    assert_eq!(
        (&sent[1]["params"]["name"], &sent[2]["params"]["name"]),
        (&json!("echo"), &json!("get-roots-list")),
        "the call taken back, then the held one"
    );
    assert!(to_client(&done, 2).is_empty());
    // The new process asks: client 2 answers with its own roots.
    let ask = server(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}),
    );
    assert_eq!(to_client(&ask, 2).len(), 1);
    assert!(to_client(&ask, 1).is_empty());
    let asked = to_client(&ask, 2)[0]["id"].clone();
    let from_2 =
        json!({"jsonrpc": "2.0", "id": asked, "result": {"roots": [{"uri": "file:///r2"}]}});
    assert_eq!(
        to_process(&client(&mut mux, 2, from_2), 2),
        vec![json!({"jsonrpc": "2.0", "id": 0, "result": {"roots": [{"uri": "file:///r2"}]}})]
    );
    for (upstream, theirs) in [(&sent[1]["id"], 5), (&sent[2]["id"], 7)] {
        let answer = server(
            &mut mux,
            2,
            json!({"jsonrpc": "2.0", "id": upstream, "result": {"content": []}}),
        );
        assert_eq!(to_client(&answer, 2)[0]["id"], theirs);
    }
    // Later clients go to the process of their roots.
    assert!(spawns(&attach(&mut mux, 3, "r2", false)).is_empty());
    assert!(spawns(&attach(&mut mux, 4, "r1", false)).is_empty());
    assert_eq!(clients_per_process(&mux), vec![(1, 2), (2, 2)]);
}

/// Split while client 2 holds a subscription: it is made again on its new
/// process, and the first process is unsubscribed (client 2 was its only subscriber).
#[test]
fn a_moved_client_keeps_its_subscription() {
    let mut mux = Mux::new();
    attach(&mut mux, 1, "r1", false);
    attach(&mut mux, 2, "r2", false);
    up(&mut mux, 1, 1, &[2]);
    let uri = "demo://resource/7";
    let sub = to_server(&client(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": 3, "method": "resources/subscribe", "params": {"uri": uri}}),
    ));
    server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": sub[0]["id"], "result": {}}),
    );
    client(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "echo"}}),
    );
    let ask = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 9, "method": "roots/list"}),
    );
    let unsubscribed = to_process(&ask, 1);
    assert_eq!(unsubscribed.len(), 1, "{ask:?}");
    assert_eq!(unsubscribed[0]["method"], "resources/unsubscribe");
    let opened = mux.handle(MuxEvent::ProcessOpened {
        process: 2,
        pid: None,
    });
    let init = to_process(&opened, 2);
    let done = server(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {}}),
    );
    let sent = to_process(&done, 2);
    assert_eq!(sent[1]["method"], "resources/subscribe");
    assert_eq!(sent[1]["params"]["uri"], uri);
    assert!(
        to_client(
            &server(
                &mut mux,
                2,
                json!({"jsonrpc": "2.0", "id": sent[1]["id"], "result": {}})
            ),
            2
        )
        .is_empty(),
        "the owner's own subscribe is not answered to the client"
    );
    let updated = server(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}}),
    );
    assert_eq!(to_client(&updated, 2).len(), 1);
}

/// Split while client 2's subscribe waits for the first subscriber's answer:
/// it is still answered (from the first process), and made on its new one.
#[test]
fn a_moved_clients_subscribe_still_unanswered_is_answered() {
    let mut mux = Mux::new();
    attach(&mut mux, 1, "r1", false);
    attach(&mut mux, 2, "r2", false);
    up(&mut mux, 1, 1, &[2]);
    let uri = "demo://resource/7";
    let subscribe = |id| json!({"jsonrpc": "2.0", "id": id, "method": "resources/subscribe", "params": {"uri": uri}});
    let sub = to_server(&client(&mut mux, 1, subscribe(3)));
    assert!(
        to_server(&client(&mut mux, 2, subscribe(4))).is_empty(),
        "waits for the first"
    );
    client(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "echo"}}),
    );
    server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 9, "method": "roots/list"}),
    );
    let answered = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": sub[0]["id"], "result": {}}),
    );
    assert_eq!(to_client(&answered, 1)[0]["id"], 3);
    assert_eq!(to_client(&answered, 2)[0]["id"], 4, "{answered:?}");
    let opened = mux.handle(MuxEvent::ProcessOpened {
        process: 2,
        pid: None,
    });
    let init = to_process(&opened, 2);
    let done = server(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {}}),
    );
    assert_eq!(to_process(&done, 2)[1]["method"], "resources/subscribe");
}

#[test]
fn a_moved_client_answers_a_request_of_its_old_process_and_detaching_ends_its_new_one() {
    let mut mux = Mux::new();
    attach(&mut mux, 1, "r1", false);
    attach(&mut mux, 2, "r2", false);
    up(&mut mux, 1, 1, &[2]);
    // Client 2 is the only caller: a sampling request of process 1 goes to it.
    client(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "sample"}}),
    );
    let sampling = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 30, "method": "sampling/createMessage", "params": {}}),
    );
    assert_eq!(to_client(&sampling, 2).len(), 1);
    let asked = to_client(&sampling, 2)[0]["id"].clone();
    client(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "echo"}}),
    );
    server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 9, "method": "roots/list"}),
    );
    // Its answer still reaches process 1, which asked, with the id it asked with.
    let answer = |id| json!({"jsonrpc": "2.0", "id": id, "result": {"content": {"type": "text", "text": "hi"}}});
    assert_eq!(
        to_process(&client(&mut mux, 2, answer(asked)), 1),
        vec![answer(json!(30))]
    );
    let left = mux.handle(MuxEvent::Detach {
        attach: 2,
        idle: false,
    });
    assert!(
        left.iter()
            .any(|e| matches!(e, MuxEffect::StopProcess { process: 2 })),
        "its new process, never called there, stops: {left:?}"
    );
    assert_eq!(clients_per_process(&mux), vec![(1, 1), (2, 0)]);
}

/// Clients 1 (r1) and 2 (r2) of one process up, client 2's `request` in
/// flight, then client 1's call, the newest, when the server asks for roots:
/// client 2 moves to process 2. Returns the ask's effects and the upstream id
/// of client 2's request on process 1.
fn split_with_call_of_2(
    mux: &mut Mux,
    repeatable_of_2: Vec<String>,
    request: serde_json::Value,
) -> (Vec<MuxEffect>, serde_json::Value) {
    attach(mux, 1, "r1", false);
    let mut launch_2 = launch("r2", false);
    launch_2.repeatable = repeatable_of_2;
    attach_at(mux, 2, "everything", launch_2, 0);
    up(mux, 1, 1, &[2]);
    let upstream = to_server(&client(mux, 2, request))[0]["id"].clone();
    client(
        mux,
        1,
        json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "get-roots-list"}}),
    );
    let ask = server(
        mux,
        1,
        json!({"jsonrpc": "2.0", "id": 9, "method": "roots/list"}),
    );
    assert_eq!(spawns(&ask), vec![2], "r2 gets a process of its own");
    (ask, upstream)
}

/// Process 2 (the moved client's) opened and its handshake done by the owner:
/// what it was sent after `notifications/initialized`.
fn new_process_up(mux: &mut Mux) -> Vec<serde_json::Value> {
    let opened = mux.handle(MuxEvent::ProcessOpened {
        process: 2,
        pid: Some(202),
    });
    let init = to_process(&opened, 2);
    let done = server(
        mux,
        2,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": "2025-06-18"}}),
    );
    let sent = to_process(&done, 2);
    assert_eq!(sent[0]["method"], "notifications/initialized");
    sent[1..].to_vec()
}

/// A cancel is advisory: the first process may have run the call already. A
/// call of a tool not marked read-only or idempotent (server-everything's
/// `toggle-simulated-logging`: a second run turns the logging off again) is
/// cancelled there and answered at once with an error saying what happened,
/// never run a second time on the new process; a later answer from the first
/// process is dropped.
#[test]
fn a_moved_clients_call_of_a_tool_not_safe_to_repeat_is_answered_with_an_error_not_sent_again() {
    for repeatable in [vec![], vec!["echo".to_string()]] {
        let mut mux = Mux::new();
        let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": {"name": "toggle-simulated-logging", "arguments": {}}});
        let (ask, upstream) = split_with_call_of_2(&mut mux, repeatable.clone(), call);
        assert_eq!(
            to_process(&ask, 1),
            vec![
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": upstream,
                "reason": "its client moved to a process of its own workspace roots"}})
            ],
            "still cancelled on the first process"
        );
        let answers: Vec<_> = to_client(&ask, 2)
            .into_iter()
            .filter(|m| m.get("method").is_none())
            .collect();
        assert_eq!(answers.len(), 1, "answered at once: {ask:?}");
        assert_eq!(answers[0]["id"], 5);
        assert_eq!(answers[0]["error"]["code"], -32603);
        assert_eq!(
            answers[0]["error"]["message"],
            "'everything' began using workspace roots while this call was running, so this workspace was moved to a process of its own; the call was cancelled on the first process and not sent again because 'toggle-simulated-logging' is not marked read-only or idempotent (it may have run once). Call it again if it should run.",
            "catalogue known: {repeatable:?}"
        );
        let late = server(
            &mut mux,
            1,
            json!({"jsonrpc": "2.0", "id": upstream, "result": {"content": [{"type": "text", "text": "r1"}]}}),
        );
        assert!(to_client(&late, 2).is_empty(), "{late:?}");
        assert!(
            new_process_up(&mut mux).is_empty(),
            "the call is not run a second time"
        );
    }
}

/// A request that is not `tools/call` (a read, a listing) is safe to repeat:
/// sent again to the new process even when the client's catalogue is not known.
#[test]
fn a_moved_clients_read_is_sent_again_whatever_its_catalogue() {
    let mut mux = Mux::new();
    let read = json!({"jsonrpc": "2.0", "id": 5, "method": "resources/read",
        "params": {"uri": "demo://resource/static/document/architecture.md"}});
    let (ask, upstream) = split_with_call_of_2(&mut mux, Vec::new(), read);
    assert_eq!(to_process(&ask, 1).len(), 1, "cancelled there: {ask:?}");
    assert!(
        to_client(&ask, 2).iter().all(|m| m.get("error").is_none()),
        "no error: {ask:?}"
    );
    let late = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": upstream, "result": {"contents": []}}),
    );
    assert!(to_client(&late, 2).is_empty(), "{late:?}");
    let sent = new_process_up(&mut mux);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["method"], "resources/read");
    let answer = server(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"contents": []}}),
    );
    assert_eq!(
        to_client(&answer, 2)[0]["id"],
        5,
        "answered from the new process"
    );
}

/// The end-to-end hang (`tests/node/cli.sharedRootsRepeat.test.mjs`): a moved
/// client still owes its first process a sampling answer (id 0 there, its call
/// answered with an error) when its new process asks for roots, also with id 0
/// (each server counts its requests from 0). Each request reaches the client
/// under an id of its own and each answer goes back to the process that
/// asked: before, the roots answer went to the first process as the sampling
/// answer (another workspace's roots to it) and the new process waited forever.
#[test]
fn a_moved_client_asked_by_both_processes_with_one_id_answers_each_process() {
    let mut mux = Mux::new();
    attach(&mut mux, 1, "r1", false);
    let mut launch_2 = launch("r2", false);
    launch_2.repeatable = Vec::new();
    attach_at(&mut mux, 2, "everything", launch_2, 0);
    up(&mut mux, 1, 1, &[2]);
    client(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "trigger-sampling-request"}}),
    );
    let sampling = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 0, "method": "sampling/createMessage", "params": {}}),
    );
    let sampling_id = to_client(&sampling, 2)[0]["id"].clone();
    client(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "trigger-sampling-request"}}),
    );
    let ask = server(
        &mut mux,
        1,
        json!({"jsonrpc": "2.0", "id": 2, "method": "roots/list"}),
    );
    assert_eq!(spawns(&ask), vec![2], "r2 gets a process of its own");
    assert!(
        to_client(&ask, 2)
            .iter()
            .any(|m| m["id"] == 7 && m.get("error").is_some()),
        "its call is refused: {ask:?}"
    );
    client(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "get-roots-list"}}),
    );
    assert_eq!(
        new_process_up(&mut mux)[0]["params"]["name"],
        "get-roots-list"
    );
    let roots = server(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}),
    );
    let roots_id = to_client(&roots, 2)[0]["id"].clone();
    assert_ne!(roots_id, sampling_id, "two requests it owes, two ids");
    let answer = client(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": roots_id, "result": {"roots": [{"uri": "file:///r2"}]}}),
    );
    assert!(
        to_process(&answer, 1).is_empty(),
        "r2's roots never reach r1's process: {answer:?}"
    );
    assert_eq!(
        to_process(&answer, 2),
        vec![json!({"jsonrpc": "2.0", "id": 0, "result": {"roots": [{"uri": "file:///r2"}]}})],
        "the new process gets its answer, with its own id"
    );
    let sampled = client(
        &mut mux,
        2,
        json!({"jsonrpc": "2.0", "id": sampling_id, "result": {"model": "m", "role": "assistant", "content": {"type": "text", "text": "hi"}}}),
    );
    assert!(to_process(&sampled, 2).is_empty(), "{sampled:?}");
    assert_eq!(
        to_process(&sampled, 1)[0]["id"],
        0,
        "the sampling answer reaches the process that asked"
    );
}
