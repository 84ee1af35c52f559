//! VS Code stops a server's running connection when the extension's
//! definition for it changes version ("stopped because the definition
//! changed"), and the stop cancels every request in flight on it: a tool call
//! then ends "Canceled". So while a call of the window is under way, a new
//! version of an offered endpoint (or of the tool index's) is held back, and
//! published once the window was quiet (the rule that closes a session that
//! only listed); attached clients still get `list_changed` at once, and an
//! endpoint added, removed or no longer offered still goes out at once.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod engine_support;

use engine_support::*;
use lazy_mcp_core::config::model::ToolExposure;
use lazy_mcp_core::engine::{AggregateEndpoint, Effect, Endpoint, Event, Settings};
use lazy_mcp_core::host_limits::QUIET_BEFORE_STOP_MS;
use serde_json::{json, Value};

const USER_FILE: &str = "/home/u/.copilot/mcp-config.json";

/// VS Code's settings: one definition per server, and the tool index's.
fn vscode() -> Settings {
    Settings {
        aggregate_endpoint: AggregateEndpoint::ToolIndex,
        ..Settings::default()
    }
}

/// The user file's entry of a local server.
fn entry(name: &str) -> String {
    format!(
        r#""{name}": {{ "type": "local", "command": "npx", "args": ["{name}"], "tools": ["*"] }}"#
    )
}

fn write_user_file(sim: &mut Sim, names: &[&str]) {
    let entries: Vec<String> = names.iter().map(|n| entry(n)).collect();
    let text = format!(r#"{{ "mcpServers": {{ {} }} }}"#, entries.join(", "));
    sim.disk.insert(USER_FILE.into(), text);
}

/// A trusted VS Code window whose user file defines `fakes`, loaded (each
/// catalogued) and listed by VS Code on each endpoint.
fn window(settings: Settings, fakes: Vec<(&str, FakeServer)>) -> Sim {
    let mut sim = Sim::new(settings);
    let names: Vec<&str> = fakes.iter().map(|(n, _)| *n).collect();
    for (name, fake) in fakes {
        sim = sim.fake(name, fake);
    }
    write_user_file(&mut sim, &names);
    let sources = json!({
        "discovery": { "home": "/home/u", "workspaceFolders": [], "platform": "linux", "env": { "HOME": "/home/u" } },
        "explicitFiles": [],
        "policy": { "workspaceTrusted": true, "vscodeNative": "alsoManage" },
    });
    sim.send(Event::ConfigSources {
        sources: serde_json::from_value(sources).unwrap(),
    });
    for name in names {
        sim.client("vscode", server_endpoint(name), request(1, "tools/list"));
    }
    sim
}

/// A server with one tool and one resource.
fn with_a_resource() -> FakeServer {
    let mut fake = FakeServer::with_tools(&["echo"]);
    fake.capabilities = json!({"tools": {}, "resources": {"listChanged": true}});
    fake.resources = vec![json!({"uri": "memory://notes", "name": "notes"})];
    fake
}

/// The fake's live listing gains a resource the catalogue does not have.
fn gain_a_resource(sim: &mut Sim, name: &str) {
    let resource = json!({"uri": "memory://todo", "name": "todo"});
    sim.fakes.get_mut(name).unwrap().resources.push(resource);
}

/// (server, version) of each endpoint hosts were told.
type Versions = Vec<(String, String)>;

/// Every `endpointsChanged` from effect `from` on: its index, the endpoints'
/// versions, the tool index's.
fn publications(sim: &Sim, from: usize) -> Vec<(usize, Versions, Option<String>)> {
    let effects = sim.effects.iter().enumerate().skip(from);
    effects
        .filter_map(|(at, e)| match e {
            Effect::EndpointsChanged {
                endpoints,
                aggregate,
            } => {
                let versions = endpoints
                    .iter()
                    .map(|e| (e.server.clone(), e.version.clone()))
                    .collect();
                Some((at, versions, aggregate.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The versions VS Code was last told: (endpoints, the tool index's).
fn published(sim: &Sim) -> (Versions, Option<String>) {
    let last = publications(sim, 0)
        .pop()
        .expect("endpoints were published");
    (last.1, last.2)
}

fn version_of(versions: &[(String, String)], server: &str) -> Option<String> {
    versions
        .iter()
        .find(|(s, _)| s == server)
        .map(|(_, v)| v.clone())
}

/// The version of `server` VS Code was last told.
fn told(sim: &Sim, server: &str) -> Option<String> {
    version_of(&published(sim).0, server)
}

/// The index of the `reply` effect answering `client`'s request `id`.
fn reply_at(sim: &Sim, client: &str, id: u64) -> Option<usize> {
    sim.effects.iter().position(
        |e| matches!(e, Effect::Reply { client: c, id: i, .. } if c == client && *i == json!(id)),
    )
}

fn start_asked(sim: &Sim, from: usize, endpoint: &Endpoint, version: &str) -> bool {
    sim.effects.iter().skip(from).any(|e| {
        matches!(e, Effect::StartDefinition { endpoint: p, version: v } if p == endpoint && v == version)
    })
}

fn notified(sim: &Sim, client: &str, method: &str) -> usize {
    sim.notifications
        .iter()
        .filter(|(c, m)| c == client && m["method"] == method)
        .count()
}

#[test]
fn a_call_that_starts_a_server_whose_lists_changed_is_not_canceled_by_a_new_version() {
    // Catalogued with one resource; VS Code listed it, and its quiet time passed.
    let mut sim = window(vscode(), vec![("memory", with_a_resource())]);
    sim.advance(10_000);
    let before = told(&sim, "memory").unwrap();
    let from = sim.effects.len();
    gain_a_resource(&mut sim, "memory");
    // The call starts the server: its live listing has two resources.
    sim.client("vscode", server_endpoint("memory"), call(2, "echo"));
    let answered_at = sim.now;
    let reply = reply_at(&sim, "vscode", 2).expect("the call is answered");
    assert!(sim.reply_to("vscode", json!(2)).unwrap()["result"].is_object());
    let new = sim.engine.endpoints()[0].version.clone();
    assert_ne!(new, before, "the server's lists changed: a new version");
    let early: Vec<_> = publications(&sim, from)
        .into_iter()
        .filter(|(at, versions, _)| {
            *at < reply && version_of(versions, "memory") != Some(before.clone())
        })
        .collect();
    assert!(
        early.is_empty(),
        "no new version before the call's reply (VS Code would cancel it): {early:?}"
    );
    // The live session stays current at once.
    assert_eq!(
        notified(&sim, "vscode", "notifications/resources/list_changed"),
        1,
        "the attached client hears of the new resource at once"
    );
    // Held while the window is not quiet: the next call of the turn may come.
    sim.advance_to(answered_at + QUIET_BEFORE_STOP_MS - 1);
    assert_eq!(
        told(&sim, "memory"),
        Some(before.clone()),
        "within the quiet time"
    );
    sim.advance_to(answered_at + QUIET_BEFORE_STOP_MS + 1);
    assert_eq!(
        told(&sim, "memory"),
        Some(new.clone()),
        "published once the window was quiet"
    );
    // VS Code is asked to start the new version, to list it.
    assert!(start_asked(&sim, from, &server_endpoint("memory"), &new));
}

#[test]
fn a_server_added_or_removed_is_published_at_once_while_a_call_is_in_flight() {
    let mut memory = with_a_resource();
    memory.behavior = Behavior::CallHangs;
    let mut sim = window(vscode(), vec![("memory", memory)]);
    sim.advance(10_000);
    let before = told(&sim, "memory").unwrap();
    gain_a_resource(&mut sim, "memory");
    sim.client("vscode", server_endpoint("memory"), call(2, "echo"));
    assert!(sim.reply_to("vscode", json!(2)).is_none(), "in flight");
    assert_ne!(sim.engine.endpoints()[0].version, before);
    // A server added to the config: published at once, memory's version held.
    sim = sim.fake("everything", FakeServer::with_tools(&["echo"]));
    write_user_file(&mut sim, &["memory", "everything"]);
    let from = sim.effects.len();
    sim.send(Event::ConfigFilesChanged {
        paths: vec![USER_FILE.into()],
    });
    let added = publications(&sim, from);
    assert!(
        added
            .iter()
            .any(|(_, versions, _)| version_of(versions, "everything").is_some()),
        "the new server is offered at once: {added:?}"
    );
    assert_eq!(
        told(&sim, "memory"),
        Some(before.clone()),
        "memory's call is still in flight"
    );
    assert!(sim.reply_to("vscode", json!(2)).is_none());
    // Removed again: gone at once too.
    write_user_file(&mut sim, &["memory"]);
    sim.send(Event::ConfigFilesChanged {
        paths: vec![USER_FILE.into()],
    });
    assert_eq!(
        version_of(&published(&sim).0, "everything"),
        None,
        "removed at once"
    );
    assert_eq!(told(&sim, "memory"), Some(before));
}

#[test]
fn a_version_change_publishes_at_once_when_the_window_is_quiet_and_waits_while_a_call_is_under_way()
{
    let mut everything = FakeServer::with_tools(&["echo"]);
    everything.behavior = Behavior::CallHangs;
    let mut sim = window(
        vscode(),
        vec![("memory", with_a_resource()), ("everything", everything)],
    );
    sim.advance(10_000);
    let refresh = |sim: &mut Sim| {
        sim.send(Event::RefreshCatalogue {
            server: Some("memory".into()),
            recatalogue: true,
        })
    };
    // Quiet, nothing in flight: at once.
    let before = told(&sim, "memory").unwrap();
    gain_a_resource(&mut sim, "memory");
    refresh(&mut sim);
    let quiet_version = told(&sim, "memory").unwrap();
    assert_ne!(
        quiet_version, before,
        "a quiet window gets the new version at once"
    );
    // A call of the window under way (another server's): memory's next change waits.
    sim.advance(10_000);
    sim.client("vscode", server_endpoint("everything"), call(2, "echo"));
    sim.fakes.get_mut("memory").unwrap().resources.pop();
    refresh(&mut sim);
    let changed = sim
        .engine
        .endpoints()
        .iter()
        .find(|e| e.server == "memory")
        .unwrap()
        .version
        .clone();
    assert_ne!(changed, quiet_version);
    assert_eq!(
        told(&sim, "memory"),
        Some(quiet_version.clone()),
        "held while the call runs"
    );
    sim.advance(QUIET_BEFORE_STOP_MS * 3);
    assert_eq!(
        told(&sim, "memory"),
        Some(quiet_version),
        "the call still runs"
    );
    // VS Code cancels its call: answered, and the window goes quiet.
    sim.client(
        "vscode",
        server_endpoint("everything"),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}),
    );
    let heard = sim.now;
    sim.advance_to(heard + QUIET_BEFORE_STOP_MS + 1);
    assert_eq!(told(&sim, "memory"), Some(changed), "published once quiet");
}

#[test]
fn the_tool_index_version_waits_for_a_call_through_it_too() {
    let settings = Settings {
        tool_exposure: ToolExposure::Index,
        ..vscode()
    };
    // Catalogued with two tools; the live server has only `echo`: `other`
    // is withdrawn at once, and the tool index's version changes.
    let mut memory = FakeServer::with_tools(&["echo", "other"]);
    let mut sim = window(settings, vec![("memory", memory.clone())]);
    sim.client("vscode", Endpoint::Aggregate, request(1, "tools/list"));
    sim.advance(10_000);
    let (_, before) = published(&sim);
    let before = before.expect("the tool index is offered");
    memory.tools.pop();
    sim.fakes.insert("memory".into(), memory);
    let from = sim.effects.len();
    sim.client(
        "vscode",
        Endpoint::Aggregate,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "call_tool", "arguments": {"name": "memory/echo", "arguments": {}}}}),
    );
    let answered_at = sim.now;
    let reply = reply_at(&sim, "vscode", 2).expect("answered");
    let answer: &Value = &sim.reply_to("vscode", json!(2)).unwrap();
    assert!(answer["result"].is_object(), "{answer}");
    let early: Vec<_> = publications(&sim, from)
        .into_iter()
        .filter(|(at, _, aggregate)| *at < reply && aggregate.as_ref() != Some(&before))
        .collect();
    assert!(
        early.is_empty(),
        "no new tool index version before the reply: {early:?}"
    );
    sim.advance_to(answered_at + QUIET_BEFORE_STOP_MS - 1);
    assert_eq!(published(&sim).1, Some(before.clone()));
    sim.advance_to(answered_at + QUIET_BEFORE_STOP_MS + 1);
    let after = published(&sim).1.unwrap();
    assert_ne!(after, before, "published once quiet");
    assert!(start_asked(&sim, from, &Endpoint::Aggregate, &after));
}
