//! The lifecycle engine driven by a simulated host with simulated time: what a
//! user would notice (spawns, answers, errors, states), without sleeping.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::config::model::ToolFilter;
use lazy_mcp_core::engine::{Effect, Endpoint, Event, ServerState, Settings};
use serde_json::{json, Value};

fn catalogued_sim(names: &[&str]) -> Sim {
    let mut sim = Sim::new(Settings::default());
    for name in names {
        sim.fakes
            .insert((*name).into(), FakeServer::with_tools(&["echo", "add"]));
    }
    sim.apply(names.iter().map(|n| config(n)).collect());
    for name in names {
        assert_eq!(sim.state(name), Some(ServerState::Catalogued), "{name}");
    }
    sim
}

fn tool_names(result: &Value) -> Vec<String> {
    result["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn warm_start_spawns_nothing_and_answers_lists_from_the_catalogue() {
    let first = catalogued_sim(&["everything", "memory"]);
    assert!(
        first.live.is_empty(),
        "cataloguing leaves no connection open"
    );
    let blob = first.persisted.clone().expect("catalogue persisted");

    let mut sim = Sim::new(Settings::default())
        .fake("everything", FakeServer::with_tools(&["echo", "add"]))
        .fake("memory", FakeServer::with_tools(&["echo", "add"]));
    sim.send(Event::CatalogueLoaded { blob });
    sim.apply(vec![config("everything"), config("memory")]);
    assert_eq!(sim.opens(), 0, "warm start spawns nothing");
    assert_eq!(sim.state("everything"), Some(ServerState::Catalogued));

    let endpoint = server_endpoint("everything");
    sim.client(
        "vscode",
        endpoint.clone(),
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "vscode"}}}),
    );
    let init = sim.reply_to("vscode", json!(1)).unwrap();
    assert_eq!(init["result"]["serverInfo"]["name"], "everything");
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(init["result"]["capabilities"]["tools"]["listChanged"], true);
    sim.client("vscode", endpoint, request(2, "tools/list"));
    let list = sim.reply_to("vscode", json!(2)).unwrap();
    assert_eq!(tool_names(&list), vec!["echo", "add"]);
    assert_eq!(
        list["result"]["tools"][0]["annotations"]["readOnlyHint"], true,
        "annotations forwarded unchanged"
    );
    assert_eq!(sim.opens(), 0, "lists never spawn");
    sim.client(
        "vscode",
        server_endpoint("everything"),
        request(3, "server/discover"),
    );
    assert_eq!(
        sim.reply_to("vscode", json!(3)).unwrap()["result"]["supportedVersions"],
        json!(["2026-07-28"]),
        "answered from the catalogue too (engine_modern_clients.rs)"
    );
    assert_eq!(sim.opens(), 0, "discover never spawns");
    let endpoints: Vec<_> = sim
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::EndpointsChanged { endpoints, .. } => Some(endpoints.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(endpoints.last().map(Vec::len), Some(2));
}

#[test]
fn cold_catalogue_follows_pagination_skips_absent_lists_and_closes() {
    let mut fake = FakeServer::with_tools(&["a", "b", "c", "d", "e"]);
    fake.page_size = 2;
    fake.capabilities = json!({"tools": {}, "resources": {}});
    fake.resources = vec![json!({"uri": "mem://1", "name": "one"})];
    let mut sim = Sim::new(Settings::default()).fake("paged", fake);
    sim.apply(vec![config("paged")]);

    assert_eq!(sim.state("paged"), Some(ServerState::Catalogued));
    assert_eq!(sim.sent_method("paged", "tools/list"), 3, "three pages");
    assert_eq!(
        sim.sent_method("paged", "prompts/list"),
        0,
        "no prompts capability"
    );
    assert_eq!(sim.sent_method("paged", "notifications/initialized"), 1);
    assert!(sim.live.is_empty(), "closed after cataloguing");
    assert!(sim
        .effects
        .iter()
        .any(|e| matches!(e, Effect::Close { .. })));
    let snapshot = sim.engine.snapshot();
    let server = &snapshot.servers[0];
    assert_eq!((server.tools, server.resources, server.prompts), (5, 1, 0));
    assert!(server.schema_token_estimate > 0);
    assert_eq!(snapshot.totals.catalogued, 1);
}

#[test]
fn cataloguing_respects_the_concurrency_bound() {
    let names = ["s1", "s2", "s3", "s4", "s5"];
    let mut sim = Sim::new(Settings::default());
    for name in names {
        sim.fakes
            .insert(name.into(), FakeServer::with_tools(&["t"]));
    }
    sim.apply(names.iter().map(|n| config(n)).collect());
    assert_eq!(sim.max_live, 2, "default concurrency is 2");
    for name in names {
        assert_eq!(sim.state(name), Some(ServerState::Catalogued));
    }
}

#[test]
fn one_hanging_server_does_not_delay_the_others() {
    let mut hanging = FakeServer::with_tools(&["t"]);
    hanging.behavior = Behavior::Hang;
    let mut sim = Sim::new(Settings::default())
        .fake("a-hangs", hanging)
        .fake("b", FakeServer::with_tools(&["t"]))
        .fake("c", FakeServer::with_tools(&["t"]));
    let mut slow = config("a-hangs");
    slow.timeout_ms = Some(5_000);
    sim.apply(vec![slow, config("b"), config("c")]);
    // No time has passed: b and c are already catalogued.
    assert_eq!(sim.state("b"), Some(ServerState::Catalogued));
    assert_eq!(sim.state("c"), Some(ServerState::Catalogued));
    assert_eq!(sim.state("a-hangs"), Some(ServerState::Cataloguing));

    sim.advance(5_000);
    match sim.state("a-hangs") {
        Some(ServerState::Failed { error, retry_at_ms }) => {
            assert!(
                error.contains("a-hangs") && error.contains("5000 ms"),
                "{error}"
            );
            assert!(retry_at_ms.unwrap() > sim.now);
        }
        other => panic!("expected FAILED, got {other:?}"),
    }
    assert!(sim.live.is_empty(), "the hanging process is closed");
}

#[test]
fn ten_concurrent_first_calls_open_once_and_all_get_answers() {
    let mut sim = catalogued_sim(&["everything"]);
    let opens_before = sim.opens();
    let inits_before = sim.sent_method("everything", "initialize");
    for i in 0..10 {
        sim.client_queued(
            &format!("client{i}"),
            server_endpoint("everything"),
            call(7, "echo"),
        );
    }
    sim.run();
    assert_eq!(sim.opens() - opens_before, 1, "exactly one spawn");
    assert_eq!(
        sim.sent_method("everything", "initialize") - inits_before,
        1
    );
    for i in 0..10 {
        let reply = sim.reply_to(&format!("client{i}"), json!(7)).unwrap();
        assert_eq!(
            reply["result"]["content"][0]["text"], "everything:echo:{\"text\":\"hi\"}",
            "client{i} got its own answer under its own id"
        );
    }
    assert_eq!(sim.state("everything"), Some(ServerState::Connected));
    let snapshot = sim.engine.snapshot();
    assert_eq!(snapshot.servers[0].calls_served, 10);
    assert!(snapshot.servers[0].pid.is_some());
    assert_eq!(snapshot.totals.connected, 1);
}

#[test]
fn a_failed_connect_gives_every_waiter_the_same_error_naming_the_server() {
    let mut sim = catalogued_sim(&["github"]);
    sim.fakes.get_mut("github").unwrap().behavior = Behavior::SpawnFails;
    for i in 0..3 {
        sim.client_queued(&format!("c{i}"), server_endpoint("github"), call(1, "echo"));
    }
    sim.run();
    let errors: Vec<String> = (0..3)
        .map(|i| {
            sim.reply_to(&format!("c{i}"), json!(1)).unwrap()["error"]["message"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(errors.iter().all(|e| e == &errors[0]), "{errors:?}");
    assert!(
        errors[0].contains("'github'") && errors[0].contains("ENOENT"),
        "{}",
        errors[0]
    );
    assert_eq!(
        sim.state("github"),
        Some(ServerState::Catalogued),
        "tools stay visible"
    );
}

#[test]
fn a_crash_mid_handshake_fails_with_the_cause_and_backs_off() {
    let mut crashing = FakeServer::with_tools(&["t"]);
    crashing.behavior = Behavior::CrashOnInitialize;
    let mut sim = Sim::new(Settings::default()).fake("broken", crashing);
    sim.apply(vec![config("broken")]);
    let Some(ServerState::Failed { error, retry_at_ms }) = sim.state("broken") else {
        panic!("expected FAILED");
    };
    assert!(
        error.contains("exit code 1") && error.contains("cannot find module"),
        "{error}"
    );
    assert_eq!(retry_at_ms, Some(sim.now + 5_000));
    assert_eq!(sim.opens(), 1);

    sim.advance(5_000);
    assert_eq!(sim.opens(), 2, "retried once at the retry time");
    let Some(ServerState::Failed {
        retry_at_ms: second,
        ..
    }) = sim.state("broken")
    else {
        panic!("expected FAILED again");
    };
    assert_eq!(second, Some(sim.now + 10_000), "backoff doubled");
    sim.advance(9_000);
    assert_eq!(sim.opens(), 2, "no respawn before the retry time");
}

#[test]
fn a_crash_with_calls_in_flight_fails_them_at_once_and_the_next_call_reconnects() {
    let mut sim = catalogued_sim(&["memory"]);
    sim.fakes.get_mut("memory").unwrap().behavior = Behavior::CallHangs;
    sim.client("c", server_endpoint("memory"), call(1, "echo"));
    sim.client("c", server_endpoint("memory"), call(2, "echo"));
    assert!(sim.reply_to("c", json!(1)).is_none());
    let conn = sim.conn_of("memory").unwrap();
    sim.live.remove(&conn);
    sim.send(Event::ConnectionClosed {
        conn,
        reason: "the process exited".into(),
        exit_code: Some(137),
        stderr_tail: Some("Killed".into()),
    });
    for id in [1, 2] {
        let error = sim.reply_to("c", json!(id)).unwrap()["error"]["message"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            error.contains("'memory'") && error.contains("exit code 137"),
            "{error}"
        );
    }
    assert_eq!(sim.state("memory"), Some(ServerState::Catalogued));

    sim.fakes.get_mut("memory").unwrap().behavior = Behavior::Normal;
    let opens = sim.opens();
    sim.client("c", server_endpoint("memory"), call(3, "add"));
    assert_eq!(sim.opens(), opens + 1, "reconnected on the next call");
    assert!(sim.reply_to("c", json!(3)).unwrap()["result"].is_object());
}

#[test]
fn a_crash_loop_becomes_failed_with_backoff_instead_of_respawning() {
    let mut sim = catalogued_sim(&["flaky"]);
    sim.fakes.get_mut("flaky").unwrap().behavior = Behavior::CrashOnCall;
    for id in 1..=3 {
        sim.client("c", server_endpoint("flaky"), call(id, "echo"));
        assert!(sim.reply_to("c", json!(id)).unwrap()["error"].is_object());
        sim.advance(1_000);
    }
    let Some(ServerState::Failed { error, retry_at_ms }) = sim.state("flaky") else {
        panic!(
            "expected FAILED after 3 crashes, got {:?}",
            sim.state("flaky")
        );
    };
    assert!(error.contains("3 failures"), "{error}");
    let retry_at_ms = retry_at_ms.unwrap();
    let opens = sim.opens();
    sim.advance(retry_at_ms - sim.now - 1);
    assert_eq!(sim.opens(), opens, "no automatic respawn while backing off");

    sim.advance(1);
    assert_eq!(sim.state("flaky"), Some(ServerState::Catalogued));
    // Still crashing: the next failure backs off twice as long.
    sim.client("c", server_endpoint("flaky"), call(40, "echo"));
    let Some(ServerState::Failed { retry_at_ms, .. }) = sim.state("flaky") else {
        panic!("expected FAILED again, got {:?}", sim.state("flaky"));
    };
    let retry_at_ms = retry_at_ms.unwrap();
    assert_eq!(retry_at_ms, sim.now + 10_000);
    sim.advance(retry_at_ms - sim.now);
    sim.fakes.get_mut("flaky").unwrap().behavior = Behavior::Normal;
    sim.client("c", server_endpoint("flaky"), call(5, "echo"));
    assert!(sim.reply_to("c", json!(5)).unwrap()["result"].is_object());
}

#[test]
fn an_idle_server_is_stopped_and_stays_catalogued() {
    let mut sim = Sim::new(Settings {
        idle_timeout_ms: 1_000,
        ..Settings::default()
    })
    .fake("time", FakeServer::with_tools(&["now"]));
    sim.apply(vec![config("time")]);
    sim.client("c", server_endpoint("time"), call(1, "now"));
    assert_eq!(sim.state("time"), Some(ServerState::Connected));
    sim.advance(500);
    sim.client("c", server_endpoint("time"), call(2, "now"));
    sim.advance(900);
    assert_eq!(
        sim.state("time"),
        Some(ServerState::Connected),
        "the last call was 900 ms ago"
    );
    sim.advance(200);
    assert_eq!(sim.state("time"), Some(ServerState::Catalogued));
    assert!(sim.live.is_empty(), "process stopped");
}

#[test]
fn config_diff_touches_only_what_changed() {
    let mut sim = catalogued_sim(&["keep", "remove", "change", "quiet"]);
    sim.client("c", server_endpoint("keep"), call(1, "echo"));
    let keep_conn = sim.conn_of("keep").unwrap();
    sim.fakes
        .insert("added".into(), FakeServer::with_tools(&["new"]));
    let effects_before = sim.effects.len();

    let mut changed = config("change");
    changed.fingerprint = "fp-change-2".into();
    sim.apply(vec![
        config("keep"),
        changed,
        config("quiet"),
        config("added"),
    ]);
    let new_effects = &sim.effects[effects_before..];

    assert_eq!(sim.state("keep"), Some(ServerState::Connected));
    assert!(
        sim.live.contains_key(&keep_conn),
        "unchanged server not restarted"
    );
    assert!(!new_effects
        .iter()
        .any(|e| matches!(e, Effect::Close { conn, .. } if *conn == keep_conn)));
    assert_eq!(sim.state("remove"), None);
    assert!(new_effects
        .iter()
        .any(|e| matches!(e, Effect::ServerRemoved { server } if server == "remove")));
    let opened: Vec<&str> = new_effects
        .iter()
        .filter_map(|e| match e {
            Effect::Open { server, .. } => Some(server.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        opened,
        vec!["change", "added"],
        "only the changed and the added are catalogued"
    );
    assert_eq!(sim.state("change"), Some(ServerState::Catalogued));
    assert_eq!(sim.state("added"), Some(ServerState::Catalogued));
    assert_eq!(sim.state("quiet"), Some(ServerState::Catalogued));
    let blob = sim.persisted.clone().unwrap();
    assert!(
        !blob.contains("\"remove\""),
        "removed server's tools withdrawn from the catalogue"
    );
}

#[test]
fn disable_withdraws_and_stops_enable_brings_back_dormant_waits() {
    let mut sim = catalogued_sim(&["a", "b"]);
    sim.fakes
        .insert("sleepy".into(), FakeServer::with_tools(&["z"]));
    let mut sleepy = config("sleepy");
    sleepy.auto_connect = false;
    sim.apply(vec![config("a"), config("b"), sleepy.clone()]);
    assert_eq!(sim.state("sleepy"), Some(ServerState::Dormant));
    assert_eq!(sim.opens_of("sleepy"), 0, "dormant: nothing spawned");
    assert!(!sim.engine.endpoints().iter().any(|e| e.server == "sleepy"));

    sim.client("agg", Endpoint::Aggregate, request(1, "initialize"));
    sim.client("c", server_endpoint("a"), call(1, "echo"));
    assert!(sim.conn_of("a").is_some());
    sim.send(Event::Disable { server: "a".into() });
    assert_eq!(sim.state("a"), Some(ServerState::Disabled));
    assert!(sim.conn_of("a").is_none(), "stopped");
    assert!(!sim.engine.endpoints().iter().any(|e| e.server == "a"));
    assert!(sim
        .notifications
        .iter()
        .any(|(c, m)| c == "agg" && m["method"] == "notifications/tools/list_changed"));
    sim.client("agg", Endpoint::Aggregate, request(2, "tools/list"));
    let names = tool_names(&sim.reply_to("agg", json!(2)).unwrap());
    assert_eq!(names, vec!["b__echo", "b__add"]);
    sim.client("c", server_endpoint("a"), call(2, "echo"));
    assert!(sim.reply_to("c", json!(2)).unwrap()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("disabled"));

    let opens = sim.opens();
    sim.send(Event::Enable { server: "a".into() });
    assert_eq!(sim.state("a"), Some(ServerState::Catalogued));
    assert_eq!(sim.opens(), opens, "warm: enabling spawns nothing");

    sim.send(Event::Enable {
        server: "sleepy".into(),
    });
    assert_eq!(
        sim.opens_of("sleepy"),
        1,
        "enabling a dormant server runs the handshake"
    );
    assert_eq!(sim.state("sleepy"), Some(ServerState::Catalogued));
}

#[test]
fn a_corrupt_or_old_catalogue_is_ignored_with_one_log_line_and_rebuilt() {
    for blob in [
        r#"{"format":"lazy-mcp-catalogue","version":1,"entries":{"a":{"fingerp"#.to_string(),
        r#"{"format":"lazy-mcp-catalogue","version":0,"entries":{}}"#.to_string(),
        "garbage".to_string(),
    ] {
        let mut sim = Sim::new(Settings::default()).fake("a", FakeServer::with_tools(&["t"]));
        sim.send(Event::CatalogueLoaded { blob });
        let logs = sim.logs();
        assert_eq!(logs.len(), 1, "{logs:?}");
        assert!(logs[0].contains("rebuilt"), "{}", logs[0]);
        sim.apply(vec![config("a")]);
        assert_eq!(sim.state("a"), Some(ServerState::Catalogued));
        assert_eq!(sim.opens(), 1);
        assert!(sim.persisted.is_some(), "rebuilt and persisted");
    }
}

#[test]
fn a_stale_fingerprint_in_the_catalogue_is_recatalogued() {
    let first = catalogued_sim(&["a"]);
    let mut sim = Sim::new(Settings::default()).fake("a", FakeServer::with_tools(&["t"]));
    sim.send(Event::CatalogueLoaded {
        blob: first.persisted.unwrap(),
    });
    let mut changed = config("a");
    changed.fingerprint = "fp-a-2".into();
    sim.apply(vec![changed]);
    assert_eq!(sim.opens(), 1);
}

#[test]
fn upstream_list_changed_relists_updates_the_catalogue_and_tells_clients() {
    let mut sim = catalogued_sim(&["everything"]);
    sim.client(
        "vscode",
        server_endpoint("everything"),
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}),
    );
    sim.client("vscode", server_endpoint("everything"), call(2, "echo"));
    let persisted_before = sim.persisted.clone();
    sim.fakes
        .get_mut("everything")
        .unwrap()
        .tools
        .push(tool("brand_new"));
    let conn = sim.conn_of("everything").unwrap();
    sim.send(Event::MessageReceived {
        conn,
        message: json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            .to_string(),
    });
    // An added tool is held until the user approves it (issue 24).
    sim.send(Event::ApproveDefinitions {
        server: "everything".into(),
        items: vec!["brand_new".into()],
    });
    assert!(sim
        .notifications
        .iter()
        .any(|(c, m)| c == "vscode" && m["method"] == "notifications/tools/list_changed"));
    assert_ne!(sim.persisted, persisted_before, "catalogue updated");
    sim.client(
        "vscode",
        server_endpoint("everything"),
        request(3, "tools/list"),
    );
    assert!(
        tool_names(&sim.reply_to("vscode", json!(3)).unwrap()).contains(&"brand_new".to_string())
    );
}

#[test]
fn connecting_compares_live_lists_with_the_catalogue() {
    let mut sim = catalogued_sim(&["s"]);
    sim.client("c", server_endpoint("s"), request(1, "initialize"));
    sim.fakes.get_mut("s").unwrap().tools.push(tool("grown"));
    sim.client("c", server_endpoint("s"), call(2, "echo"));
    // An added tool is held until the user approves it (issue 24).
    sim.send(Event::ApproveDefinitions {
        server: "s".into(),
        items: vec!["grown".into()],
    });
    assert!(sim
        .notifications
        .iter()
        .any(|(c, m)| c == "c" && m["method"] == "notifications/tools/list_changed"));
    assert!(sim.persisted.clone().unwrap().contains("grown"));
}

#[test]
fn declared_tools_are_stubs_until_the_first_list_and_missing_ones_are_reported() {
    let mut sim =
        Sim::new(Settings::default()).fake("gh", FakeServer::with_tools(&["echo", "add"]));
    let mut declared = config("gh");
    declared.tools = ToolFilter::Only(vec!["echo".into(), "not_there".into()]);
    sim.hold_opens = true;
    sim.apply(vec![declared]);
    sim.client("c", server_endpoint("gh"), request(1, "tools/list"));
    let stubs = sim.reply_to("c", json!(1)).unwrap();
    assert_eq!(
        tool_names(&stubs),
        vec!["echo", "not_there"],
        "stubs before any connection"
    );
    assert!(sim.engine.snapshot().servers[0].tools_are_declared_stubs);

    sim.release_opens();
    sim.client("c", server_endpoint("gh"), request(2, "tools/list"));
    let live = sim.reply_to("c", json!(2)).unwrap();
    assert_eq!(
        tool_names(&live),
        vec!["echo"],
        "filtered live list replaces stubs"
    );
    assert_eq!(live["result"]["tools"][0]["description"], "the echo tool");
    let snapshot = sim.engine.snapshot();
    assert_eq!(
        snapshot.servers[0].dropped_declared_tools,
        vec!["not_there"]
    );
    assert!(sim.logs().iter().any(|l| l.contains("not_there")));
    assert!(sim
        .notifications
        .iter()
        .any(|(c, m)| c == "c" && m["method"] == "notifications/tools/list_changed"));
    // A tool outside the filter cannot be called through the gateway.
    sim.client("c", server_endpoint("gh"), call(3, "add"));
    assert!(sim.reply_to("c", json!(3)).unwrap()["error"].is_object());
}

#[test]
fn older_protocol_versions_are_accepted_unknown_ones_rejected() {
    let mut old = FakeServer::with_tools(&["t"]);
    old.protocol_version = "2024-11-05".into();
    let mut future = FakeServer::with_tools(&["t"]);
    future.protocol_version = "2099-01-01".into();
    let mut sim = Sim::new(Settings::default())
        .fake("old", old)
        .fake("future", future);
    sim.apply(vec![config("old"), config("future")]);
    assert_eq!(sim.state("old"), Some(ServerState::Catalogued));
    let offered = sim
        .sent
        .iter()
        .find(|(s, m)| s == "old" && m["method"] == "initialize")
        .map(|(_, m)| m["params"]["protocolVersion"].clone());
    assert_eq!(offered, Some(json!("2025-11-25")));
    let snapshot = sim.engine.snapshot();
    let old = snapshot.servers.iter().find(|s| s.name == "old").unwrap();
    assert_eq!(old.protocol_version.as_deref(), Some("2024-11-05"));
    let Some(ServerState::Failed { error, .. }) = sim.state("future") else {
        panic!("expected FAILED");
    };
    assert!(
        error.contains("2099-01-01") && error.contains("'future'"),
        "{error}"
    );
    assert!(sim.live.is_empty());
}

#[test]
fn aggregate_endpoint_names_are_valid_stable_and_route_back() {
    let long_server = "a-server-with-a-really-long-name-for-testing";
    let long_tool = "and_a_tool_name_that_is_also_rather_long_indeed";
    let mut github = FakeServer::with_tools(&["create_issue", "search"]);
    github.instructions = Some("Use search before creating issues.".into());
    let mut sim = Sim::new(Settings::default())
        .fake("github", github)
        .fake(long_server, FakeServer::with_tools(&[long_tool]));
    sim.apply(vec![config("github"), config(long_server)]);
    sim.client("cli", Endpoint::Aggregate, request(0, "initialize"));
    let init = sim.reply_to("cli", json!(0)).unwrap();
    assert_eq!(init["result"]["serverInfo"]["name"], "lazy-mcp");
    assert_eq!(
        init["result"]["instructions"],
        "## github\nUse search before creating issues."
    );
    sim.client("cli", server_endpoint("github"), request(0, "initialize"));
    let init = sim.reply_to("cli", json!(0)).unwrap();
    assert_eq!(
        init["result"]["instructions"],
        "Use search before creating issues."
    );
    sim.client("cli", Endpoint::Aggregate, request(1, "tools/list"));
    let names = tool_names(&sim.reply_to("cli", json!(1)).unwrap());
    assert!(names.contains(&"github__create_issue".to_string()));
    let long = names
        .iter()
        .find(|n| n.starts_with("a-server"))
        .unwrap()
        .clone();
    assert!(
        long.len() <= 64
            && long
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    );
    sim.client("cli", Endpoint::Aggregate, request(2, "tools/list"));
    assert_eq!(
        tool_names(&sim.reply_to("cli", json!(2)).unwrap()),
        names,
        "stable"
    );

    sim.client(
        "cli",
        Endpoint::Aggregate,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": long, "arguments": {}}}),
    );
    let text = sim.reply_to("cli", json!(3)).unwrap()["result"]["content"][0]["text"].clone();
    assert_eq!(text, json!(format!("{long_server}:{long_tool}:{{}}")));
    assert_eq!(
        sim.opens_of("github"),
        1,
        "only the called server was connected again"
    );
}

#[test]
fn a_request_that_times_out_errors_and_is_cancelled_upstream() {
    let mut sim = Sim::new(Settings {
        request_timeout_ms: 2_000,
        ..Settings::default()
    })
    .fake("slow", FakeServer::with_tools(&["t"]));
    sim.apply(vec![config("slow")]);
    sim.fakes.get_mut("slow").unwrap().behavior = Behavior::CallHangs;
    sim.client("c", server_endpoint("slow"), call(9, "t"));
    sim.advance(2_000);
    let error = sim.reply_to("c", json!(9)).unwrap()["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        error.contains("'slow'") && error.contains("2000 ms"),
        "{error}"
    );
    assert_eq!(sim.sent_method("slow", "notifications/cancelled"), 1);
    assert_eq!(sim.state("slow"), Some(ServerState::Connected));
}

#[test]
fn server_to_client_requests_roots_sampling_and_progress() {
    let mut sim = Sim::new(Settings {
        workspace_folders: vec!["/work/project".into()],
        ..Settings::default()
    })
    .fake("fs", FakeServer::with_tools(&["read"]));
    sim.apply(vec![config("fs")]);
    sim.fakes.get_mut("fs").unwrap().behavior = Behavior::CallHangs;
    sim.client(
        "plain",
        server_endpoint("fs"),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "read", "_meta": {"progressToken": "tok"}}}),
    );
    let conn = sim.conn_of("fs").unwrap();
    let inject = |sim: &mut Sim, message: Value| {
        sim.send(Event::MessageReceived {
            conn,
            message: message.to_string(),
        })
    };
    inject(
        &mut sim,
        json!({"jsonrpc": "2.0", "id": "r1", "method": "roots/list"}),
    );
    let roots = sim
        .sent
        .iter()
        .rev()
        .find(|(_, m)| m["id"] == "r1")
        .unwrap()
        .1
        .clone();
    assert_eq!(roots["result"]["roots"][0]["uri"], "file:///work/project");

    inject(
        &mut sim,
        json!({"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage", "params": {}}),
    );
    let refusal = sim
        .sent
        .iter()
        .rev()
        .find(|(_, m)| m["id"] == "s1")
        .unwrap()
        .1
        .clone();
    assert!(refusal["error"]["message"]
        .as_str()
        .unwrap()
        .contains("sampling"));

    inject(
        &mut sim,
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "tok", "progress": 1}}),
    );
    assert!(sim
        .notifications
        .iter()
        .any(|(c, m)| c == "plain" && m["params"]["progress"] == 1));

    sim.client(
        "able",
        server_endpoint("fs"),
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {"sampling": {}}}}),
    );
    inject(
        &mut sim,
        json!({"jsonrpc": "2.0", "id": "s2", "method": "sampling/createMessage", "params": {"messages": []}}),
    );
    let (_, forwarded) = sim
        .notifications
        .iter()
        .rev()
        .find(|(c, m)| c == "able" && m["method"] == "sampling/createMessage")
        .unwrap()
        .clone();
    sim.client(
        "able",
        server_endpoint("fs"),
        json!({"jsonrpc": "2.0", "id": forwarded["id"], "result": {"content": {"type": "text", "text": "ok"}}}),
    );
    let answered = sim
        .sent
        .iter()
        .rev()
        .find(|(_, m)| m["id"] == "s2")
        .unwrap()
        .1
        .clone();
    assert_eq!(answered["result"]["content"]["text"], "ok");
}

/// A server's request waiting at a client: a cancel from the server reaches
/// the client under the id the client saw (and a late answer goes nowhere); a
/// client that disconnects instead gets the server an error answer at once.
#[test]
fn a_servers_request_at_a_client_is_cancelled_through_or_refused_when_the_client_leaves() {
    let mut sim = Sim::new(Settings::default()).fake("fs", FakeServer::with_tools(&["read"]));
    sim.apply(vec![config("fs")]);
    sim.fakes.get_mut("fs").unwrap().behavior = Behavior::CallHangs;
    sim.client(
        "able",
        server_endpoint("fs"),
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {"sampling": {}}}}),
    );
    sim.client(
        "able",
        server_endpoint("fs"),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "read"}}),
    );
    let conn = sim.conn_of("fs").unwrap();
    let asked = |sim: &mut Sim, upstream_id: &str| {
        sim.send(Event::MessageReceived {
            conn,
            message: json!({"jsonrpc": "2.0", "id": upstream_id, "method": "sampling/createMessage", "params": {"messages": []}}).to_string(),
        });
        sim.notifications
            .iter()
            .rev()
            .find(|(c, m)| c == "able" && m["method"] == "sampling/createMessage")
            .unwrap()
            .1["id"]
            .clone()
    };
    let answers_to = |sim: &Sim, upstream_id: &str| {
        sim.sent
            .iter()
            .filter(|(_, m)| m["id"] == upstream_id && m.get("method").is_none())
            .map(|(_, m)| m.clone())
            .collect::<Vec<Value>>()
    };

    let first = asked(&mut sim, "s1");
    sim.send(Event::MessageReceived {
        conn,
        message: json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "s1", "reason": "enough"}}).to_string(),
    });
    let cancel = sim
        .notifications
        .iter()
        .rev()
        .find(|(c, m)| c == "able" && m["method"] == "notifications/cancelled")
        .unwrap()
        .1
        .clone();
    assert_eq!(cancel["params"]["requestId"], first);
    assert_eq!(cancel["params"]["reason"], "enough");
    sim.client(
        "able",
        server_endpoint("fs"),
        json!({"jsonrpc": "2.0", "id": first, "result": {"content": {"type": "text", "text": "late"}}}),
    );
    assert!(
        answers_to(&sim, "s1").is_empty(),
        "{:?}",
        answers_to(&sim, "s1")
    );

    let second = asked(&mut sim, "s2");
    assert_ne!(second, first, "each request gets its own id");
    sim.send(Event::ClientDisconnected {
        client: "able".into(),
    });
    let refused = answers_to(&sim, "s2");
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(
        refused[0]["error"]["message"],
        "the client that was asked disconnected"
    );
}

#[test]
fn an_http_401_means_needs_auth_and_cataloguing_is_never_interactive() {
    let mut auth = FakeServer::with_tools(&["t"]);
    auth.behavior = Behavior::Unauthorized;
    let mut sim = Sim::new(Settings::default()).fake("remote", auth);
    sim.apply(vec![config("remote")]);
    assert_eq!(sim.state("remote"), Some(ServerState::NeedsAuth));
    assert!(sim.effects.iter().any(|e| matches!(
        e,
        Effect::Open {
            interactive: false,
            ..
        }
    )));
    assert_eq!(sim.engine.snapshot().totals.needs_auth, 1);
}

#[test]
fn refresh_relists_only_connected_servers() {
    let mut sim = catalogued_sim(&["live", "idle"]);
    sim.client("c", server_endpoint("live"), call(1, "echo"));
    let opens = sim.opens();
    let lists = sim.sent_method("live", "tools/list");
    sim.send(Event::RefreshCatalogue {
        server: None,
        recatalogue: false,
    });
    assert_eq!(sim.opens(), opens, "catalogued servers are not spawned");
    assert_eq!(sim.sent_method("live", "tools/list"), lists + 1);
}

#[test]
fn bad_event_json_is_one_log_effect_never_a_panic() {
    let mut engine = lazy_mcp_core::engine::Engine::new(Settings::default());
    for bad in [
        "",
        "{",
        r#"{"type":"noSuchEvent"}"#,
        r#"{"type":"httpStatus","conn":1}"#,
    ] {
        let out: Vec<Effect> = serde_json::from_str(&engine.handle_json(0, bad)).unwrap();
        assert!(
            matches!(out.as_slice(), [Effect::Log { .. }]),
            "{bad}: {out:?}"
        );
    }
}

#[test]
fn garbage_from_a_server_is_logged_and_ignored() {
    let mut sim = catalogued_sim(&["noisy"]);
    sim.client("c", server_endpoint("noisy"), call(1, "echo"));
    let conn = sim.conn_of("noisy").unwrap();
    sim.send(Event::MessageReceived {
        conn,
        message: "Starting server on stdio...".into(),
    });
    assert_eq!(sim.state("noisy"), Some(ServerState::Connected));
    assert!(sim
        .logs()
        .iter()
        .any(|l| l.contains("not a JSON-RPC message")));
}

#[test]
fn a_call_during_cataloguing_reuses_that_connection() {
    let mut sim = Sim::new(Settings::default()).fake("s", FakeServer::with_tools(&["echo"]));
    sim.hold_opens = true;
    sim.apply(vec![config("s")]);
    assert_eq!(sim.state("s"), Some(ServerState::Cataloguing));
    sim.client("c", server_endpoint("s"), call(1, "echo"));
    sim.release_opens();
    assert_eq!(sim.opens(), 1, "no second spawn");
    assert!(sim.reply_to("c", json!(1)).unwrap()["result"].is_object());
    assert_eq!(
        sim.state("s"),
        Some(ServerState::Connected),
        "kept, not closed"
    );
    assert!(sim.conn_of("s").is_some());
}

#[test]
fn a_crash_during_the_first_call_handshake_fails_the_waiters_and_keeps_the_tools() {
    let mut sim = catalogued_sim(&["s"]);
    sim.fakes.get_mut("s").unwrap().behavior = Behavior::CrashOnInitialize;
    sim.client_queued("a", server_endpoint("s"), call(1, "echo"));
    sim.client_queued("b", server_endpoint("s"), call(1, "echo"));
    sim.run();
    let a = sim.reply_to("a", json!(1)).unwrap();
    let b = sim.reply_to("b", json!(1)).unwrap();
    assert_eq!(a["error"], b["error"]);
    // The server's stderr is for the log and Diagnostics, not for clients.
    let message = a["error"]["message"].as_str().unwrap();
    assert!(message.contains("'s'"), "{message}");
    assert!(!message.contains("cannot find module"), "{message}");
    assert!(sim.logs().iter().any(|l| l.contains("cannot find module")));
    assert_eq!(sim.state("s"), Some(ServerState::Catalogued));
    sim.client("a", server_endpoint("s"), request(2, "tools/list"));
    assert_eq!(
        tool_names(&sim.reply_to("a", json!(2)).unwrap()),
        vec!["echo", "add"]
    );
}

#[test]
fn client_cancellation_and_disconnect_cancel_upstream() {
    let mut sim = catalogued_sim(&["s"]);
    sim.fakes.get_mut("s").unwrap().behavior = Behavior::CallHangs;
    sim.client("a", server_endpoint("s"), call(1, "echo"));
    sim.client(
        "a",
        server_endpoint("s"),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1, "reason": "user"}}),
    );
    let cancelled: Vec<Value> = sim
        .sent
        .iter()
        .filter(|(_, m)| m["method"] == "notifications/cancelled")
        .map(|(_, m)| m.clone())
        .collect();
    assert_eq!(cancelled.len(), 1);
    assert_eq!(cancelled[0]["params"]["reason"], "user");
    let forwarded_id = sim
        .sent
        .iter()
        .find(|(_, m)| m["method"] == "tools/call")
        .map(|(_, m)| m["id"].clone())
        .unwrap();
    assert_eq!(
        cancelled[0]["params"]["requestId"], forwarded_id,
        "upstream id, not the client's"
    );

    sim.client("b", server_endpoint("s"), call(1, "echo"));
    sim.send(Event::ClientDisconnected { client: "b".into() });
    assert_eq!(sim.sent_method("s", "notifications/cancelled"), 2);
    assert!(sim.reply_to("b", json!(1)).is_none());
}

#[test]
fn missing_list_methods_count_as_empty_and_unknown_notifications_are_ignored() {
    let mut fake = FakeServer::with_tools(&["t"]);
    // Declares prompts but answers prompts/list with -32601.
    fake.capabilities = json!({"tools": {}, "prompts": {}});
    fake.missing_methods = vec!["prompts/list".into()];
    let mut sim = Sim::new(Settings::default()).fake("s", fake);
    sim.apply(vec![config("s")]);
    assert_eq!(sim.state("s"), Some(ServerState::Catalogued));
    assert_eq!(sim.engine.snapshot().servers[0].prompts, 0);
    assert_eq!(sim.sent_method("s", "prompts/list"), 1);
    assert!(!sim.logs().iter().any(|l| l.contains("prompts/list failed")));

    sim.client("c", server_endpoint("s"), call(1, "t"));
    let conn = sim.conn_of("s").unwrap();
    sim.send(Event::MessageReceived {
        conn,
        message: json!({"jsonrpc": "2.0", "method": "notifications/something_new"}).to_string(),
    });
    sim.send(Event::MessageReceived {
        conn,
        message: json!({"jsonrpc": "2.0", "id": 77, "method": "ping"}).to_string(),
    });
    let pong = sim
        .sent
        .iter()
        .rev()
        .find(|(_, m)| m["id"] == 77)
        .unwrap()
        .1
        .clone();
    assert_eq!(pong["result"], json!({}));
    assert_eq!(sim.state("s"), Some(ServerState::Connected));
}

#[test]
fn connect_now_and_disconnect_commands() {
    let mut sim = catalogued_sim(&["s"]);
    sim.send(Event::ConnectNow { server: "s".into() });
    assert_eq!(sim.state("s"), Some(ServerState::Connected));
    let open = sim
        .effects
        .iter()
        .rev()
        .find_map(|e| match e {
            Effect::Open { interactive, .. } => Some(*interactive),
            _ => None,
        })
        .unwrap();
    assert!(open, "a user-requested connect may sign in");
    sim.send(Event::Disconnect { server: "s".into() });
    assert_eq!(sim.state("s"), Some(ServerState::Catalogued));
    assert!(sim.live.is_empty());
}

#[test]
fn aggregate_resources_and_prompts_route_to_their_server() {
    let mut with_resources = FakeServer::with_tools(&["t"]);
    with_resources.capabilities = json!({"tools": {}, "resources": {}, "prompts": {}});
    with_resources.resources = vec![json!({"uri": "memory://graph", "name": "graph"})];
    with_resources.templates = vec![json!({"uriTemplate": "memory://node/{id}", "name": "node"})];
    with_resources.prompts = vec![json!({"name": "summarize"})];
    let mut sim = Sim::new(Settings::default())
        .fake("memory", with_resources)
        .fake("other", FakeServer::with_tools(&["t"]));
    sim.apply(vec![config("memory"), config("other")]);
    sim.client("cli", Endpoint::Aggregate, request(1, "prompts/list"));
    let prompts = sim.reply_to("cli", json!(1)).unwrap();
    assert_eq!(prompts["result"]["prompts"][0]["name"], "memory__summarize");
    for (id, uri) in [(2, "memory://graph"), (3, "memory://node/42")] {
        sim.client(
            "cli",
            Endpoint::Aggregate,
            json!({"jsonrpc": "2.0", "id": id, "method": "resources/read", "params": {"uri": uri}}),
        );
        let read = sim.reply_to("cli", json!(id)).unwrap();
        assert_eq!(
            read["result"]["contents"][0]["text"], "memory content",
            "{uri}"
        );
    }
    sim.client(
        "cli",
        Endpoint::Aggregate,
        json!({"jsonrpc": "2.0", "id": 4, "method": "prompts/get", "params": {"name": "memory__summarize"}}),
    );
    let prompt = sim.reply_to("cli", json!(4)).unwrap();
    assert_eq!(
        prompt["result"]["messages"][0]["content"]["text"],
        "memory:\"summarize\""
    );
    assert_eq!(
        sim.opens_of("other"),
        1,
        "only cataloguing touched the other server"
    );
}

#[test]
fn a_list_change_announced_during_cataloguing_is_listed_again() {
    let mut fake = FakeServer::with_tools(&["first"]);
    fake.grow_on_first_list = Some(tool("registered_later"));
    let mut sim = Sim::new(Settings::default()).fake("everything", fake);
    sim.apply(vec![config("everything")]);
    assert_eq!(sim.state("everything"), Some(ServerState::Catalogued));
    assert_eq!(sim.sent_method("everything", "tools/list"), 2);
    sim.client("c", server_endpoint("everything"), request(1, "tools/list"));
    assert_eq!(
        tool_names(&sim.reply_to("c", json!(1)).unwrap()),
        vec!["first", "registered_later"]
    );
}

#[test]
fn settings_changes_apply_without_restarting_anything() {
    let mut sim = catalogued_sim(&["s"]);
    sim.client("c", server_endpoint("s"), call(1, "echo"));
    let opens = sim.opens();
    sim.send(Event::SettingsChanged {
        settings: Settings {
            idle_timeout_ms: 2_000,
            workspace_folders: vec!["/other".into()],
            ..Settings::default()
        },
    });
    assert_eq!(sim.sent_method("s", "notifications/roots/list_changed"), 1);
    assert_eq!(sim.state("s"), Some(ServerState::Connected));
    sim.advance(2_000);
    assert_eq!(
        sim.state("s"),
        Some(ServerState::Catalogued),
        "new idle timeout applies"
    );
    assert_eq!(sim.opens(), opens);
}

#[test]
fn resource_subscriptions_survive_a_reconnect_and_keep_the_server_awake() {
    let mut memory = FakeServer::with_tools(&["t"]);
    memory.capabilities = json!({"tools": {}, "resources": {"subscribe": true}});
    memory.resources = vec![json!({"uri": "memory://graph", "name": "graph"})];
    let mut sim = Sim::new(Settings {
        idle_timeout_ms: 1_000,
        ..Settings::default()
    })
    .fake("memory", memory);
    sim.apply(vec![config("memory")]);
    let subscribe = |id: u64| json!({"jsonrpc": "2.0", "id": id, "method": "resources/subscribe", "params": {"uri": "memory://graph"}});
    sim.client("a", server_endpoint("memory"), subscribe(1));
    sim.client("b", server_endpoint("memory"), subscribe(1));
    sim.client("c", server_endpoint("memory"), request(1, "initialize"));
    assert!(sim.reply_to("a", json!(1)).unwrap()["result"].is_object());
    sim.advance(5_000);
    assert_eq!(
        sim.state("memory"),
        Some(ServerState::Connected),
        "subscribed: not idle"
    );

    // A crash, then the next use reconnects and subscribes again by itself.
    let conn = sim.conn_of("memory").unwrap();
    sim.live.remove(&conn);
    sim.send(Event::ConnectionClosed {
        conn,
        reason: "exited".into(),
        exit_code: Some(1),
        stderr_tail: None,
    });
    sim.client("c", server_endpoint("memory"), call(2, "t"));
    assert_eq!(sim.sent_method("memory", "resources/subscribe"), 3);
    let conn = sim.conn_of("memory").unwrap();
    sim.send(Event::MessageReceived {
        conn,
        message: json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "memory://graph"}}).to_string(),
    });
    let told: Vec<&str> = sim
        .notifications
        .iter()
        .filter(|(_, m)| m["method"] == "notifications/resources/updated")
        .map(|(c, _)| c.as_str())
        .collect();
    assert_eq!(told, vec!["a", "b"], "only subscribers are told");

    let unsubscribe = json!({"jsonrpc": "2.0", "id": 3, "method": "resources/unsubscribe", "params": {"uri": "memory://graph"}});
    sim.client("b", server_endpoint("memory"), unsubscribe);
    assert!(sim.reply_to("b", json!(3)).unwrap()["result"].is_object());
    assert_eq!(
        sim.sent_method("memory", "resources/unsubscribe"),
        0,
        "a still subscribes"
    );
    sim.send(Event::ClientDisconnected { client: "a".into() });
    assert_eq!(sim.sent_method("memory", "resources/unsubscribe"), 1);
    sim.advance(1_000);
    assert_eq!(
        sim.state("memory"),
        Some(ServerState::Catalogued),
        "idle again without subscribers"
    );
}

#[test]
fn a_server_asking_for_roots_gets_time_to_apply_them_before_the_first_call() {
    let mut filesystem = FakeServer::with_tools(&["list_allowed_directories"]);
    filesystem.asks_roots = true;
    let mut sim = Sim::new(Settings {
        workspace_folders: vec!["/work/project".into()],
        ..Settings::default()
    })
    .fake("filesystem", filesystem);
    sim.apply(vec![config("filesystem")]);
    sim.client(
        "c",
        server_endpoint("filesystem"),
        call(1, "list_allowed_directories"),
    );
    let answered_roots = sim.sent.iter().any(|(_, m)| {
        m["id"] == "roots-1" && m["result"]["roots"][0]["uri"] == "file:///work/project"
    });
    assert!(answered_roots);
    assert_eq!(
        sim.sent_method("filesystem", "tools/call"),
        0,
        "not yet: roots settling"
    );
    assert_eq!(sim.state("filesystem"), Some(ServerState::Connecting));
    sim.advance(100);
    assert_eq!(sim.sent_method("filesystem", "tools/call"), 1);
    assert!(sim.reply_to("c", json!(1)).unwrap()["result"].is_object());
}

#[test]
fn diagnostics_tell_what_each_server_is_doing() {
    let mut broken = FakeServer::with_tools(&["t"]);
    broken.behavior = Behavior::CrashOnInitialize;
    let mut sim = Sim::new(Settings::default())
        .fake("live", FakeServer::with_tools(&["a", "b"]))
        .fake("idle", FakeServer::with_tools(&["a"]))
        .fake("broken", broken)
        .fake("sleepy", FakeServer::with_tools(&["z"]))
        .fake("off", FakeServer::with_tools(&["z"]));
    let mut sleepy = config("sleepy");
    sleepy.auto_connect = false;
    let mut off = config("off");
    off.enabled = false;
    sim.apply(vec![
        config("live"),
        config("idle"),
        config("broken"),
        sleepy,
        off,
    ]);
    sim.advance(60_000);
    sim.client("c", server_endpoint("live"), call(1, "a"));
    sim.send(Event::ProcessStats {
        server: "live".into(),
        rss_bytes: 64 << 20,
    });

    let snapshot = sim.engine.snapshot();
    let by_name = |name: &str| snapshot.servers.iter().find(|s| s.name == name).unwrap();
    let live = by_name("live");
    assert_eq!(live.state_label, "CONNECTED");
    assert!(live.pid.is_some());
    assert_eq!(live.rss_bytes, Some(64 << 20));
    assert_eq!((live.tools, live.calls_served), (2, 1));
    assert!(live.connect_latency_ms.is_some());
    // Connecting re-listed and found the catalogue current: its age restarts.
    assert_eq!(live.cache_age_ms, Some(0));
    assert_eq!(by_name("idle").cache_age_ms, Some(60_000));
    assert_eq!(live.transport, "stdio");
    assert_eq!(live.source.line, 3);
    let idle = by_name("idle");
    assert_eq!(idle.state_label, "CATALOGUED ONLY");
    assert_eq!((idle.pid, idle.rss_bytes), (None, None));
    assert!(by_name("broken")
        .last_error
        .as_deref()
        .unwrap()
        .contains("'broken'"));
    assert_eq!(by_name("sleepy").tools, 0, "dormant: nothing exposed");
    assert_eq!(by_name("off").state_label, "DISABLED");
    let totals = &snapshot.totals;
    assert_eq!(
        (
            totals.connected,
            totals.catalogued,
            totals.failed,
            totals.dormant,
            totals.disabled
        ),
        (1, 1, 1, 1, 1)
    );
    assert_eq!(totals.tools, 3);
    assert!(totals.schema_token_estimate > 0);
    let json: Value = serde_json::from_str(&sim.engine.snapshot_json()).unwrap();
    assert!(json["servers"][0]["stateSinceMs"].is_u64());
}

/// Server `memory` dies with `reason` and `stderr` while client "c" waits for a
/// call: what the client, the log and the snapshot then show.
fn crash_during_a_call(sim: &mut Sim, reason: &str, stderr: &str) -> [String; 3] {
    sim.fakes.get_mut("memory").unwrap().behavior = Behavior::CallHangs;
    sim.client("c", server_endpoint("memory"), call(1, "echo"));
    let conn = sim.conn_of("memory").unwrap();
    sim.live.remove(&conn);
    sim.send(Event::ConnectionClosed {
        conn,
        reason: reason.into(),
        exit_code: Some(1),
        stderr_tail: Some(stderr.into()),
    });
    [
        sim.reply_to("c", json!(1)).unwrap().to_string(),
        sim.logs().join("\n"),
        serde_json::to_string(&sim.engine.snapshot()).unwrap(),
    ]
}

#[test]
fn secret_values_echoed_by_a_server_are_masked_in_errors_logs_and_snapshot() {
    let mut sim = Sim::new(Settings::default());
    sim.fakes
        .insert("memory".into(), FakeServer::with_tools(&["echo"]));
    let mut server = config("memory");
    server.secret_values = vec!["planted-origin-secret".into()];
    sim.apply(vec![server]);
    let [reply, logs, snapshot] = crash_during_a_call(
        &mut sim,
        "spawn /opt/planted-origin-secret ENOENT",
        "started with --key planted-origin-secret",
    );
    for shown in [&reply, &logs, &snapshot] {
        assert!(!shown.contains("planted-origin-secret"), "{shown}");
    }
    assert!(reply.contains("••••"), "{reply}");
}

#[test]
fn input_values_resolved_at_connect_time_are_masked_like_config_secrets() {
    use lazy_mcp_core::config::Transport;
    let mut sim = Sim::new(Settings::default());
    sim.fakes
        .insert("memory".into(), FakeServer::with_tools(&["echo"]));
    sim.apply(vec![config("memory")]);
    let stdio = |arg: &str| Transport::Stdio {
        command: "srv".into(),
        args: vec![arg.into()],
        env: Default::default(),
        cwd: None,
        env_file: None,
    };
    sim.send(Event::TransportResolved {
        server: "memory".into(),
        original: stdio("--key=${input:api}"),
        resolved: stdio("--key=typed-input-secret"),
    });
    let [reply, logs, snapshot] =
        crash_during_a_call(&mut sim, "exited", "bad key typed-input-secret");
    for shown in [&reply, &logs, &snapshot] {
        assert!(!shown.contains("typed-input-secret"), "{shown}");
    }
    // The stderr tail stays in Diagnostics and logs (not in the client's error), masked.
    assert!(snapshot.contains("bad key ••••"), "{snapshot}");
}
