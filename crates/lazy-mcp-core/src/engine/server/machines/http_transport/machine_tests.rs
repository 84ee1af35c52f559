use super::*;
use crate::vec_map::VecMap;

fn http() -> HttpTransport {
    HttpTransport::new(&Transport::Http {
        url: "http://x/mcp".into(),
        headers: VecMap::new(),
    })
}

#[test]
fn the_first_posts_status_settles_streamable_http_or_the_legacy_fallback() {
    for (status, mode) in [
        (200, HttpMode::Streamable),
        (202, HttpMode::Streamable),
        (500, HttpMode::Streamable),
        (400, HttpMode::Legacy),
        (404, HttpMode::Legacy),
        (405, HttpMode::Legacy),
    ] {
        let mut t = http();
        assert_eq!(t.handle_started(7), None);
        let answered = t.handle_answered(status, false, false);
        assert_eq!(answered.deadline, Some(7), "{status}");
        assert_eq!(answered.mode, Some(mode), "{status}");
        // Settled: a later answer settles nothing.
        assert_eq!(t.handle_answered(404, false, false).mode, None);
    }
}

#[test]
fn a_modern_request_or_a_sign_in_settles_no_fallback() {
    let mut t = http();
    assert_eq!(
        t.handle_answered(404, true, false).mode,
        Some(HttpMode::Streamable)
    );
    // Held for a sign-in: the POST sent again probes.
    let mut t = http();
    assert_eq!(
        t.handle_answered(401, false, true).mode,
        Some(HttpMode::Probing)
    );
    assert_eq!(
        t.handle_answered(405, false, true).mode,
        Some(HttpMode::Legacy)
    );
}

#[test]
fn the_deadline_names_what_got_no_answer_while_it_bounds_the_first_exchange() {
    let mut t = http();
    assert_eq!(t.handle_started(1), None);
    assert_eq!(t.handle_started(2), Some(1));
    assert_eq!(t.handle_deadline(1), None);
    assert_eq!(t.handle_deadline(2), Some("the first POST got no answer"));
    let mut t = HttpTransport::new(&Transport::Sse {
        url: "http://x/sse".into(),
        headers: VecMap::new(),
    });
    assert!(t.connects());
    t.handle_started(3);
    assert_eq!(t.handle_answered(200, false, false).mode, None);
    assert!(!t.connects() || t.handle_deadline(3).is_none());
}
