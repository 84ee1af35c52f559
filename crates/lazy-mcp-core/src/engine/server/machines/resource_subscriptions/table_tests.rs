//! The subscription table alone, without an engine: which URIs the server
//! must subscribe or unsubscribe upstream as subscribers come and go.

use super::table::{Subscriber, Subscriptions, UpstreamChange};

fn client(name: &str) -> Subscriber {
    Subscriber::Client(name.to_string())
}

fn listen(name: &str, key: &str) -> Subscriber {
    Subscriber::Listen(name.to_string(), key.to_string())
}

fn change(subscribe: &[&str], unsubscribe: &[&str]) -> UpstreamChange {
    UpstreamChange {
        subscribe: subscribe.iter().map(|u| u.to_string()).collect(),
        unsubscribe: unsubscribe.iter().map(|u| u.to_string()).collect(),
    }
}

#[test]
fn a_uris_first_subscriber_subscribes_it_upstream_the_second_does_not() {
    let mut table = Subscriptions::default();
    let before = table.uris();
    table.handle_subscribe("file:///a", client("c1"));
    assert_eq!(table.upstream_change(&before), change(&["file:///a"], &[]));
    assert!(!table.is_empty());

    let before = table.uris();
    table.handle_subscribe("file:///a", listen("c2", "7"));
    assert!(table.upstream_change(&before).is_empty());
    assert_eq!(
        table.subscribers_of("file:///a"),
        [client("c1"), listen("c2", "7")]
    );
}

#[test]
fn the_last_subscriber_gone_unsubscribes_upstream_one_of_two_does_not() {
    let mut table = Subscriptions::default();
    table.handle_subscribe("file:///a", client("c1"));
    table.handle_subscribe("file:///a", client("c2"));

    let before = table.uris();
    assert!(table.handle_unsubscribe("file:///a", &client("c1"), true));
    assert!(table.upstream_change(&before).is_empty());

    assert!(!table.handle_unsubscribe("file:///a", &client("c2"), true));
    assert_eq!(table.upstream_change(&before), change(&[], &["file:///a"]));
    assert!(table.is_empty());
    // Nobody subscribed: nothing remains, nothing to tell.
    assert!(!table.handle_unsubscribe("file:///b", &client("c2"), true));
    assert!(table.subscribers_of("file:///a").is_empty());
}

#[test]
fn a_listen_replaced_with_other_uris_moves_only_the_difference_upstream() {
    // A listen's URIs are swapped as one step: unsubscribed without
    // forgetting, subscribed, then the unwanted forgotten.
    let mut table = Subscriptions::default();
    table.handle_subscribe("file:///a", listen("c1", "1"));
    table.handle_subscribe("file:///b", listen("c1", "1"));
    let before = table.uris();
    for uri in ["file:///a", "file:///b"] {
        table.handle_unsubscribe(uri, &listen("c1", "1"), false);
    }
    for uri in ["file:///b", "file:///c"] {
        table.handle_subscribe(uri, listen("c1", "1"));
    }
    table.handle_forget_unwanted();
    assert_eq!(
        table.upstream_change(&before),
        change(&["file:///c"], &["file:///a"])
    );
}

#[test]
fn a_client_gone_leaves_every_uri_and_only_its_own_are_unsubscribed() {
    let mut table = Subscriptions::default();
    table.handle_subscribe("file:///a", client("c1"));
    table.handle_subscribe("file:///b", listen("c1", "3"));
    table.handle_subscribe("file:///b", client("c2"));
    let gone = |s: &Subscriber| s.client() == "c1";
    assert!(table.has_subscriber(&gone));

    let before = table.uris();
    table.handle_subscribers_gone(&gone);
    assert!(!table.has_subscriber(&gone));
    assert_eq!(table.upstream_change(&before), change(&[], &["file:///a"]));
    assert_eq!(table.subscribers_of("file:///b"), [client("c2")]);
}

#[test]
fn a_withdrawn_server_forgets_every_subscription() {
    let mut table = Subscriptions::default();
    table.handle_subscribe("file:///a", client("c1"));
    table.handle_withdrawn();
    assert!(table.is_empty());
    assert!(table.uris().is_empty());
}
