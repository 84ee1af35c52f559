//! What each HTTP status from an upstream server means for its connection
//! (`http_status.rs`, asked by host/connections/httpConnection.ts): the rules
//! the host used to hold as literals, one assertion per input.

use lazy_mcp_core::http_status::{
    http_status_verdict, http_status_verdict_name, transport_after_first_post, HttpAnswer,
    HttpExchange, HttpMode, HttpVerdict,
};
use HttpExchange::*;
use HttpVerdict::*;

fn answer(exchange: HttpExchange, status: u16) -> HttpAnswer {
    HttpAnswer {
        exchange,
        status,
        oauth: false,
        session: false,
    }
}

fn verdict(a: HttpAnswer) -> HttpVerdict {
    http_status_verdict(a)
}

#[test]
fn a_first_2024_post_answered_400_404_or_405_falls_back_to_legacy_sse() {
    // The engine reads the connection's first POST (`connectAnswered`); the
    // connection's verdict on any POST never falls back: such a status fails it.
    for status in [400, 404, 405] {
        assert_eq!(
            transport_after_first_post(status, false, false),
            HttpMode::Legacy
        );
        assert_eq!(verdict(answer(Post, status)), Failed, "{status}");
        // A 2026-07-28 request's error is its answer: no fallback.
        assert_eq!(
            transport_after_first_post(status, true, false),
            HttpMode::Streamable
        );
    }
    for status in [200, 202, 406, 415, 500, 502] {
        assert_eq!(
            transport_after_first_post(status, false, false),
            HttpMode::Streamable
        );
    }
    // Refused for a sign-in (OAuth): nothing settled, the POST sent again probes.
    for status in [401, 403] {
        assert_eq!(
            transport_after_first_post(status, false, true),
            HttpMode::Probing
        );
        assert_eq!(
            transport_after_first_post(status, false, false),
            HttpMode::Streamable
        );
    }
}

#[test]
fn a_post_answered_2xx_is_read_and_anything_else_fails_its_request() {
    for status in [200, 201, 203, 206, 299] {
        assert_eq!(verdict(answer(Post, status)), Accept, "{status}");
        assert_eq!(verdict(answer(LegacyPost, status)), Accept, "{status}");
    }
    // Accepted without a body: the answer comes on another stream.
    for status in [202, 204] {
        assert_eq!(verdict(answer(Post, status)), NoReply, "{status}");
        assert_eq!(verdict(answer(LegacyPost, status)), NoReply, "{status}");
    }
    for status in [0, 100, 199, 300, 302, 400, 405, 409, 429, 500, 503] {
        assert_eq!(verdict(answer(Post, status)), Failed, "{status}");
    }
}

#[test]
fn with_oauth_401_and_403_hold_the_request_for_sign_in_and_without_it_end_the_connection() {
    let oauth = |exchange, status| HttpAnswer {
        oauth: true,
        ..answer(exchange, status)
    };
    for exchange in [Post, LegacyPost] {
        assert_eq!(verdict(oauth(exchange, 401)), ResendOrHoldForSignIn);
        assert_eq!(verdict(oauth(exchange, 403)), HoldForSignIn);
    }
    for exchange in [Post, LegacyPost, EventStream, LegacyStream] {
        assert_eq!(verdict(answer(exchange, 401)), RequiresAuthentication);
        assert_eq!(verdict(answer(exchange, 403)), RefusedAccess);
    }
    // The optional GET stream waits for the POSTs' sign-in.
    assert_eq!(verdict(oauth(EventStream, 401)), EventStreamLater);
    assert_eq!(verdict(oauth(EventStream, 403)), EventStreamLater);
    // The legacy stream cannot be held: it ends the connection.
    assert_eq!(verdict(oauth(LegacyStream, 401)), RequiresAuthentication);
    assert_eq!(verdict(oauth(LegacyStream, 403)), RefusedAccess);
}

#[test]
fn a_404_ends_a_session_and_is_an_ordinary_failure_without_one() {
    let in_session = |exchange| HttpAnswer {
        session: true,
        ..answer(exchange, 404)
    };
    for exchange in [Post, LegacyPost, EventStream, LegacyStream] {
        assert_eq!(
            verdict(in_session(exchange)),
            SessionExpired,
            "{exchange:?}"
        );
    }
    // A legacy POST always belongs to its SSE stream's session.
    assert_eq!(verdict(answer(LegacyPost, 404)), SessionExpired);
    assert_eq!(verdict(answer(Post, 404)), Failed);
    assert_eq!(verdict(answer(EventStream, 404)), Failed);
    assert_eq!(verdict(answer(LegacyStream, 404)), Failed);
}

#[test]
fn the_get_streams_open_on_200_only_and_405_means_the_server_offers_none() {
    for exchange in [EventStream, LegacyStream] {
        assert_eq!(verdict(answer(exchange, 200)), Accept);
        for status in [201, 202, 204, 400, 500] {
            assert_eq!(verdict(answer(exchange, status)), Failed, "{status}");
        }
    }
    assert_eq!(verdict(answer(EventStream, 405)), NoEventStream);
    let oauth_session = HttpAnswer {
        oauth: true,
        session: true,
        ..answer(EventStream, 405)
    };
    assert_eq!(verdict(oauth_session), NoEventStream);
    assert_eq!(verdict(answer(LegacyStream, 405)), Failed);
}

#[test]
fn the_host_reads_each_verdict_by_its_contract_name() {
    let name = |exchange: &str, status, oauth, session| {
        http_status_verdict_name(exchange, status, oauth, session)
    };
    assert_eq!(name("post", 200, false, false), "accept");
    assert_eq!(name("post", 202, false, false), "noReply");
    assert_eq!(name("post", 401, true, false), "resendOrHoldForSignIn");
    assert_eq!(name("legacyPost", 403, true, false), "holdForSignIn");
    assert_eq!(name("eventStream", 403, true, false), "eventStreamLater");
    assert_eq!(
        name("legacyStream", 401, false, false),
        "requiresAuthentication"
    );
    assert_eq!(name("post", 403, false, false), "refusedAccess");
    assert_eq!(name("post", 404, false, true), "sessionExpired");
    assert_eq!(name("eventStream", 405, false, false), "noEventStream");
    assert_eq!(name("post", 500, false, false), "failed");
    assert_eq!(name("somethingElse", 200, false, false), "failed");
    // The names are the contract type's serde names.
    for (exchange, status, oauth, session) in [
        (Post, 200, false, false),
        (Post, 204, false, false),
        (Post, 401, true, false),
        (Post, 403, true, false),
        (EventStream, 401, true, false),
        (Post, 401, false, false),
        (Post, 403, false, false),
        (Post, 404, false, true),
        (EventStream, 405, false, false),
        (Post, 500, false, false),
    ] {
        let exchange_name = serde_json::to_value(exchange).unwrap();
        let v = verdict(HttpAnswer {
            oauth,
            session,
            ..answer(exchange, status)
        });
        assert_eq!(
            serde_json::to_value(v).unwrap(),
            http_status_verdict_name(exchange_name.as_str().unwrap(), status, oauth, session)
        );
    }
}
