//! A server's measurements alone, without an engine.

use super::ServerStats;

#[test]
fn a_new_connection_forgets_the_old_process_but_not_the_last_connect() {
    let mut stats = ServerStats::default();
    stats.handle_opening(false);
    stats.handle_process_started(Some(41));
    stats.handle_measured(1_000);
    stats.handle_connected(120);
    stats.handle_call_served();
    stats.handle_last_error(Some("it crashed".into()));

    stats.handle_connection_ended();
    assert_eq!((stats.pid(), stats.rss_bytes()), (None, None));
    // What Diagnostics say of the last connect and the calls stays.
    assert_eq!(stats.connect_latency_ms(), Some(120));
    assert_eq!(stats.calls_served(), 1);
    assert_eq!(stats.last_error().map(String::as_str), Some("it crashed"));

    stats.handle_shared(2, Vec::new());
    stats.handle_opening(true);
    assert!(stats.shared());
    assert_eq!(stats.shared_clients(), None);
}

#[test]
fn dropped_declared_tools_are_news_only_when_they_change() {
    let mut stats = ServerStats::default();
    let dropped = vec!["search".to_string()];
    assert!(stats.handle_dropped_declared_tools(&dropped));
    assert!(!stats.handle_dropped_declared_tools(&dropped));
    assert_eq!(stats.dropped_declared_tools(), dropped.as_slice());
    assert!(stats.handle_dropped_declared_tools(&[]));

    stats.handle_last_error(Some("x".into()));
    stats.handle_relaunched();
    assert_eq!(stats.last_error(), None);
}
