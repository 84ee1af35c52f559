//! What is held and why, without an engine: listings in, decisions out.

use super::{Approval, Compared, FileReadOutcome, Pins};
use crate::config::load::FileRead;
use crate::engine::registry::catalogue::CatalogueEntry;
use crate::engine::server::calls::CallParams;
use crate::protocol::client_handshake::{InitializeOutcome, ListKind};
use crate::protocol::methods;
use serde_json::json;

fn entry(tools: &[(&str, &str)], instructions: Option<&str>) -> CatalogueEntry {
    CatalogueEntry {
        fingerprint: "f".into(),
        catalogued_at_ms: 1,
        era: Default::default(),
        initialize: InitializeOutcome {
            instructions: instructions.map(str::to_string),
            ..InitializeOutcome::default()
        },
        cache: None,
        tools: tools
            .iter()
            .map(|(name, description)| json!({"name": name, "description": description}))
            .collect(),
        prompts: vec![],
        resources: vec![],
        resource_templates: vec![],
        resource_metadata_url: None,
        tool_vectors: None,
        asks_roots: None,
    }
}

fn calling(tool: &str) -> CallParams {
    CallParams::Parsed(Some(json!({"name": tool})))
}

fn read(content: Option<&str>, unreadable: Option<&str>) -> FileRead {
    FileRead {
        path: "/a.json".into(),
        content: content.map(str::to_string),
        unreadable: unreadable.map(str::to_string),
        real_path: None,
    }
}

#[test]
fn a_first_listing_is_the_baseline_and_a_change_to_it_is_held_and_announced_once() {
    let mut pins = Pins::default();
    let first = entry(&[("search", "Search")], None);
    assert_eq!(
        pins.check("a", "a k", Some(&first), false, 5),
        Compared::default()
    );
    assert!(!pins.any_held());
    assert_eq!(pins.baseline("a k").and_then(|b| b.approved_at_ms), Some(5));

    let changed = entry(
        &[("search", "Search everything"), ("delete", "Delete")],
        None,
    );
    let compared = pins.check("a", "a k", Some(&changed), false, 6);
    assert!(compared.exposure_changed);
    assert_eq!(
        compared.announce.as_deref(),
        Some("a changed 2 tools (delete, search) — held until you review them")
    );
    assert!(pins.is_held("a", ListKind::Tools, "search"));
    assert!(pins.holds_kind("a", ListKind::Tools));
    assert!(!pins.holds_kind("a", ListKind::Prompts));
    assert_eq!(pins.held_count(), 2);
    // The same listing again: nothing new to show or say.
    assert_eq!(
        pins.check("a", "a k", Some(&changed), false, 7),
        Compared::default()
    );
    // No current catalogue: nothing is held any more.
    assert_eq!(
        pins.check("a", "a k", None, false, 8),
        Compared {
            exposure_changed: true,
            announce: None
        }
    );
    assert!(!pins.any_held());
}

#[test]
fn hold_new_tools_holds_a_new_servers_whole_listing() {
    let mut pins = Pins::default();
    let listing = entry(&[("search", "Search")], Some("Be nice"));
    let compared = pins.check("a", "a k", Some(&listing), true, 5);
    assert!(compared.exposure_changed);
    assert_eq!(
        compared.announce.as_deref(),
        Some("a changed 1 tool and its instructions (search) — held until you review them")
    );
    assert!(pins.held_instructions("a"));
    assert_eq!(pins.baseline("a k").and_then(|b| b.approved_at_ms), None);
}

#[test]
fn a_held_call_is_refused_by_its_name_in_every_spelling() {
    let mut pins = Pins::default();
    pins.check("a", "a k", Some(&entry(&[("t", "old")], None)), false, 1);
    pins.check(
        "a",
        "a k",
        Some(&entry(&[("t", "new"), ("u", "ok")], None)),
        false,
        2,
    );
    let refusal = pins
        .call_refusal("a", methods::TOOLS_CALL, &calling("t"))
        .unwrap_or_default();
    assert!(refusal.starts_with("Tool 't' of MCP server 'a' is held: its description changed"));
    assert!(refusal.contains("`lazy-mcp tools diff a t`"));
    assert_eq!(
        pins.call_refusal("a", methods::PROMPTS_GET, &calling("t")),
        None
    );
    assert_eq!(
        pins.call_refusal("b", methods::TOOLS_CALL, &calling("t")),
        None
    );
    assert!(pins
        .call_refusal("a", methods::TOOLS_CALL, &calling("u"))
        .is_some_and(|why| why.contains("it was added")));
    assert_eq!(
        pins.aggregate_refusal(ListKind::Tools, "a__t"),
        Some(refusal.clone())
    );
    assert_eq!(pins.aggregate_refusal(ListKind::Tools, "b__t"), None);
    assert_eq!(pins.slash_refusal("a/t"), Some(refusal));
    assert_eq!(pins.slash_refusal("a"), None);
}

#[test]
fn approving_releases_what_was_named_and_says_what_is_unknown() {
    let mut pins = Pins::default();
    pins.check("a", "a k", Some(&entry(&[("t", "old")], None)), false, 1);
    let _ = pins.take_write();
    let live = entry(&[("t", "new"), ("u", "ok")], None);
    pins.check("a", "a k", Some(&live), false, 2);
    let approval = pins.approve("a", "a k", &live, &["t".into(), "nope".into()], 3);
    assert_eq!(
        approval,
        Approval {
            approved: vec!["t".into()],
            unknown: vec!["nope".into()]
        }
    );
    // Written only with a file configured.
    assert_eq!(pins.take_write(), None);
    assert!(
        pins.check("a", "a k", Some(&live), false, 4)
            .exposure_changed
    );
    assert!(!pins.is_held("a", ListKind::Tools, "t"));
    assert!(pins.is_held("a", ListKind::Tools, "u"));
    // Nothing named: everything held.
    let all = pins.approve("a", "a k", &live, &[], 5);
    assert_eq!(all.approved, ["u"]);
    assert!(
        pins.check("a", "a k", Some(&live), false, 6)
            .exposure_changed
    );
    assert!(!pins.any_held());
}

#[test]
fn the_file_is_waited_for_merged_and_never_written_over_when_broken() {
    let mut pins = Pins::default();
    pins.set_file(Some("/a.json".into()));
    let listing = entry(&[("t", "d")], None);
    // Nothing is compared or created before the file is read.
    assert_eq!(
        pins.check("a", "a k", Some(&listing), false, 1),
        Compared::default()
    );
    assert!(pins.baseline("a k").is_none());
    assert_eq!(
        pins.file_read(Some(&read(None, None))),
        FileReadOutcome::Recheck { error: None }
    );
    pins.check("a", "a k", Some(&listing), false, 1);
    let (path, ours) = pins.take_write().unwrap_or_default();
    assert_eq!(path, "/a.json");
    // Another process wrote the file from an older copy: ours is kept and written back.
    let theirs = r#"{"format":"lazy-mcp-approved-definitions","version":1,"servers":{}}"#;
    assert_eq!(
        pins.file_read(Some(&read(Some(theirs), None))),
        FileReadOutcome::Recheck { error: None }
    );
    assert_eq!(pins.take_write().map(|(_, text)| text), Some(ours.clone()));
    // The same baselines again: nothing to compare.
    assert_eq!(
        pins.file_read(Some(&read(Some(&ours), None))),
        FileReadOutcome::Unchanged
    );
    // A damaged file is said once and never written over.
    let broken = pins.file_read(Some(&read(Some("{"), None)));
    assert!(
        matches!(broken, FileReadOutcome::Recheck { error: Some(why) } if why.starts_with("/a.json: cannot read"))
    );
    assert_eq!(
        pins.file_read(Some(&read(Some("{"), None))),
        FileReadOutcome::Recheck { error: None }
    );
    pins.approve("a", "a k", &listing, &[], 2);
    assert_eq!(pins.take_write(), None);
    // No file configured: a read changes nothing.
    pins.set_file(None);
    assert_eq!(
        pins.file_read(Some(&read(Some(theirs), None))),
        FileReadOutcome::Unchanged
    );
}

#[test]
fn gone_servers_hold_nothing() {
    let mut pins = Pins::default();
    pins.check("a", "a k", Some(&entry(&[], None)), true, 1);
    pins.check("a", "a k", Some(&entry(&[("t", "d")], None)), true, 1);
    assert!(pins.held("a").is_some());
    pins.retain_servers(|name| name != "a");
    assert!(pins.held("a").is_none());
}
