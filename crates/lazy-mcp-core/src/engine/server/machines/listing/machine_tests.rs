//! The listing machine's decisions, without an engine: inputs in, outputs out.

use super::*;
use serde_json::json;

fn tool(name: &str) -> Value {
    json!({ "name": name, "inputSchema": { "type": "object" } })
}

fn requests(outputs: &[ListingOutput]) -> Vec<(ListKind, Option<String>)> {
    outputs
        .iter()
        .filter_map(|o| match o {
            ListingOutput::Request { kind, cursor } => Some((*kind, cursor.clone())),
            _ => None,
        })
        .collect()
}

/// The round's lists and cache hint.
type Round = (VecMap<ListKind, Vec<Value>>, Option<CacheHint>);

fn done(outputs: &[ListingOutput]) -> Option<Round> {
    outputs.iter().find_map(|o| match o {
        ListingOutput::Done { lists, cache } => Some((lists.clone(), cache.clone())),
        _ => None,
    })
}

fn warnings(outputs: &[ListingOutput]) -> Vec<String> {
    outputs
        .iter()
        .filter_map(|o| match o {
            ListingOutput::Log(LogLevel::Warn, text) => Some(text.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn pages_are_followed_by_next_cursor_and_joined() {
    let mut listing = ListingMachine::default();
    listing.handle_start(&[ListKind::Tools, ListKind::Prompts]);
    assert_eq!(
        requests(&listing.poll_outputs()),
        [(ListKind::Tools, None), (ListKind::Prompts, None)]
    );

    let first = json!({ "tools": [tool("a")], "nextCursor": "p2", "ttlMs": 5000 });
    listing.handle_page(ListKind::Tools, &first);
    let outputs = listing.poll_outputs();
    assert_eq!(
        requests(&outputs),
        [(ListKind::Tools, Some("p2".to_string()))]
    );
    assert_eq!(done(&outputs), None);

    listing.handle_page(ListKind::Prompts, &json!({ "prompts": [] }));
    assert_eq!(
        done(&listing.poll_outputs()),
        None,
        "tools still outstanding"
    );

    // An empty cursor means no more pages.
    let last = json!({ "tools": [tool("b")], "nextCursor": "", "ttlMs": 100 });
    listing.handle_page(ListKind::Tools, &last);
    let outputs = listing.poll_outputs();
    assert!(requests(&outputs).is_empty());
    let (lists, cache) = done(&outputs).unwrap_or_default();
    assert_eq!(
        lists.get(&ListKind::Tools),
        Some(&vec![tool("a"), tool("b")])
    );
    assert_eq!(lists.get(&ListKind::Prompts), Some(&Vec::new()));
    // The round's stricter hint.
    assert_eq!(cache.map(|c| c.ttl_ms), Some(100));

    // Nothing left to list: an empty start is done at once, with nothing in it.
    listing.handle_start(&[]);
    let (lists, cache) = done(&listing.poll_outputs()).unwrap_or_default();
    assert!(lists.is_empty() && cache.is_none());
}

#[test]
fn a_server_looping_on_next_cursor_is_cut_at_the_page_limit() {
    let mut listing = ListingMachine::default();
    listing.handle_start(&[ListKind::Tools]);
    listing.poll_outputs();
    let looping = json!({ "tools": [tool("same")], "nextCursor": "again" });
    for page in 1..MAX_LIST_PAGES {
        listing.handle_page(ListKind::Tools, &looping);
        let outputs = listing.poll_outputs();
        assert_eq!(requests(&outputs).len(), 1, "page {page} asks for the next");
    }
    listing.handle_page(ListKind::Tools, &looping);
    let outputs = listing.poll_outputs();
    assert!(requests(&outputs).is_empty());
    assert_eq!(
        warnings(&outputs),
        [format!("tools/list kept returning nextCursor after {MAX_LIST_PAGES} pages; the list was cut there")]
    );
    let (lists, _) = done(&outputs).unwrap_or_default();
    assert_eq!(
        lists.get(&ListKind::Tools).map(Vec::len),
        Some(MAX_LIST_PAGES as usize)
    );
}

#[test]
fn a_failed_list_is_empty_when_cataloguing_and_left_out_when_connected() {
    let refusal = json!({ "code": -32603, "message": "boom" });
    for (cataloguing, expected) in [(true, Some(Vec::new())), (false, None)] {
        let mut listing = ListingMachine::default();
        listing.handle_start(&[ListKind::Tools, ListKind::Resources]);
        listing.poll_outputs();
        listing.handle_page(ListKind::Tools, &json!({ "tools": [tool("a")] }));
        listing.handle_failed(ListKind::Resources, cataloguing, &refusal);
        let outputs = listing.poll_outputs();
        assert_eq!(warnings(&outputs), ["resources/list failed: boom"]);
        let (lists, _) = done(&outputs).unwrap_or_default();
        assert_eq!(lists.get(&ListKind::Tools), Some(&vec![tool("a")]));
        assert_eq!(lists.get(&ListKind::Resources).cloned(), expected);
    }

    // A list the server does not have is empty, without a warning.
    let mut listing = ListingMachine::default();
    listing.handle_start(&[ListKind::Prompts]);
    listing.poll_outputs();
    let missing = json!({ "code": -32601, "message": "Method not found" });
    listing.handle_failed(ListKind::Prompts, false, &missing);
    let outputs = listing.poll_outputs();
    assert!(warnings(&outputs).is_empty());
    let (lists, _) = done(&outputs).unwrap_or_default();
    assert_eq!(lists.get(&ListKind::Prompts), Some(&Vec::new()));
}

#[test]
fn a_kind_changed_while_being_listed_is_listed_again_before_the_round_ends() {
    let mut listing = ListingMachine::default();
    listing.handle_start(&[ListKind::Tools]);
    listing.poll_outputs();
    listing.handle_start(&[ListKind::Tools]);
    assert!(
        listing.poll_outputs().is_empty(),
        "one request per kind in flight"
    );

    listing.handle_page(ListKind::Tools, &json!({ "tools": [tool("old")] }));
    let outputs = listing.poll_outputs();
    assert_eq!(requests(&outputs), [(ListKind::Tools, None)]);
    assert_eq!(done(&outputs), None);

    listing.handle_page(ListKind::Tools, &json!({ "tools": [tool("new")] }));
    let (lists, _) = done(&listing.poll_outputs()).unwrap_or_default();
    assert_eq!(lists.get(&ListKind::Tools), Some(&vec![tool("new")]));
}
