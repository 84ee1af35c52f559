//! The handshake machine's decisions, without an engine: inputs in, outputs out.

use super::*;
use serde_json::json;

const STDIO: HandshakeContext = HandshakeContext {
    stdio: true,
    reprobed: false,
};
const HTTP: HandshakeContext = HandshakeContext {
    stdio: false,
    reprobed: false,
};

fn sends(outputs: &[HandshakeOutput]) -> Vec<HandshakeMessage> {
    outputs
        .iter()
        .filter_map(|o| match o {
            HandshakeOutput::Send(m) => Some(*m),
            _ => None,
        })
        .collect()
}

fn initialize_result() -> Value {
    json!({
        "protocolVersion": "2025-06-18",
        "capabilities": { "tools": { "listChanged": true } },
        "serverInfo": { "name": "echo", "version": "1" },
        "instructions": "Use echo."
    })
}

fn ready_init(outputs: &[HandshakeOutput]) -> Option<(Era, InitializeOutcome)> {
    outputs.iter().find_map(|o| match o {
        HandshakeOutput::Ready { era, init } => Some((*era, init.clone())),
        _ => None,
    })
}

#[test]
fn a_probe_refused_on_stdio_falls_back_to_initialize_on_the_same_process() {
    let mut hs = HandshakeMachine::new(Handshake::Probe);
    hs.handle_opened(None);
    assert_eq!(sends(&hs.poll_outputs()), [HandshakeMessage::Discover]);
    // The probe is a modern request (it carries the envelope).
    assert_eq!((hs.phase(), hs.era()), (Phase::Probing, Era::Modern));

    let refusal = json!({ "code": -32601, "message": "Method not found" });
    hs.handle_answer(STDIO, HandshakeMessage::Discover, Err(refusal));
    let outputs = hs.poll_outputs();
    assert_eq!(sends(&outputs), [HandshakeMessage::Initialize]);
    assert!(outputs.iter().any(|o| matches!(o,
        HandshakeOutput::Log(LogLevel::Info, text) if text.starts_with("speaks the legacy protocol")
            && !text.contains("fresh connection"))));
    assert_eq!((hs.phase(), hs.era()), (Phase::Initializing, Era::Legacy));

    hs.handle_answer(STDIO, HandshakeMessage::Initialize, Ok(initialize_result()));
    let outputs = hs.poll_outputs();
    // The initialized notification goes before the listing the success starts.
    assert_eq!(sends(&outputs), [HandshakeMessage::Initialized]);
    assert!(matches!(
        outputs.as_slice(),
        [HandshakeOutput::Send(_), HandshakeOutput::Ready { .. }]
    ));
    let (era, init) = ready_init(&outputs).unwrap_or_default();
    assert_eq!(era, Era::Legacy);
    assert_eq!(init.protocol_version, "2025-06-18");
    assert_eq!(init.instructions.as_deref(), Some("Use echo."));
    assert_eq!(hs.phase(), Phase::Ready);
    assert_eq!(
        hs.init().map(|i| i.protocol_version.as_str()),
        Some("2025-06-18")
    );
}

#[test]
fn a_probe_refused_over_http_reopens_a_fresh_legacy_connection() {
    let mut hs = HandshakeMachine::new(Handshake::Probe);
    hs.handle_opened(None);
    hs.poll_outputs();
    let refusal = json!({ "code": -32601, "message": "Method not found" });
    hs.handle_answer(HTTP, HandshakeMessage::Discover, Err(refusal));
    let outputs = hs.poll_outputs();
    assert!(sends(&outputs).is_empty());
    assert_eq!(
        outputs.last(),
        Some(&HandshakeOutput::Reopen {
            handshake: Handshake::Legacy,
            why: "the era probe ended"
        })
    );
}

#[test]
fn an_unanswered_stdio_probe_is_remembered_and_never_fails_the_server() {
    let mut hs = HandshakeMachine::new(Handshake::Probe);
    hs.handle_opened(None);
    hs.poll_outputs();
    hs.handle_timeout(STDIO, 30_000);
    let outputs = hs.poll_outputs();
    assert_eq!(outputs.first(), Some(&HandshakeOutput::ProbeUnanswered));
    assert!(outputs.iter().any(|o| matches!(o,
        HandshakeOutput::Log(_, text) if text.contains("within 30000 ms"))));
    assert!(!outputs
        .iter()
        .any(|o| matches!(o, HandshakeOutput::Failed { .. })));

    // Over HTTP the next connection probes again (the server may not have been up).
    let mut hs = HandshakeMachine::new(Handshake::Probe);
    hs.handle_opened(None);
    hs.poll_outputs();
    hs.handle_closed(HTTP, "connection refused");
    let outputs = hs.poll_outputs();
    assert!(!outputs.contains(&HandshakeOutput::ProbeUnanswered));
    assert!(matches!(
        outputs.last(),
        Some(HandshakeOutput::Reopen {
            handshake: Handshake::Legacy,
            ..
        })
    ));
}

#[test]
fn a_discover_answer_makes_the_connection_modern_without_initialize() {
    let mut hs = HandshakeMachine::new(Handshake::Probe);
    hs.handle_opened(None);
    hs.poll_outputs();
    let result = json!({
        "supportedVersions": [discover::MODERN],
        "capabilities": { "tools": {} },
        "serverInfo": { "name": "modern", "version": "2" }
    });
    hs.handle_answer(STDIO, HandshakeMessage::Discover, Ok(result));
    let outputs = hs.poll_outputs();
    assert!(sends(&outputs).is_empty(), "{outputs:?}");
    assert_eq!(ready_init(&outputs).map(|(era, _)| era), Some(Era::Modern));
    assert_eq!((hs.phase(), hs.era()), (Phase::Ready, Era::Modern));
}

#[test]
fn a_trusted_modern_verdict_needs_no_message_and_a_vanished_one_probes() {
    let mut hs = HandshakeMachine::new(Handshake::Modern);
    hs.handle_opened(Some(InitializeOutcome::default()));
    let outputs = hs.poll_outputs();
    assert!(sends(&outputs).is_empty());
    assert_eq!(ready_init(&outputs).map(|(era, _)| era), Some(Era::Modern));

    let mut hs = HandshakeMachine::new(Handshake::Modern);
    hs.handle_opened(None);
    assert_eq!(sends(&hs.poll_outputs()), [HandshakeMessage::Discover]);
    assert_eq!(hs.kind(), Handshake::Probe);
    // A second `connectionOpened` is ignored.
    hs.handle_opened(None);
    assert!(hs.poll_outputs().is_empty());
}

#[test]
fn a_trusted_legacy_verdict_refused_as_unsupported_is_probed_again_once() {
    let refusal = json!({
        "code": discover::UNSUPPORTED_PROTOCOL_VERSION,
        "message": "Unsupported protocol version",
        "data": { "supported": [discover::MODERN] }
    });
    let mut hs = HandshakeMachine::new(Handshake::Legacy);
    hs.handle_opened(None);
    assert_eq!(sends(&hs.poll_outputs()), [HandshakeMessage::Initialize]);
    hs.handle_answer(HTTP, HandshakeMessage::Initialize, Err(refusal.clone()));
    assert!(matches!(
        hs.poll_outputs().as_slice(),
        [HandshakeOutput::Reprobe(_)]
    ));

    // Already asked again: the refusal fails the connection.
    let reprobed = HandshakeContext {
        reprobed: true,
        ..HTTP
    };
    let mut hs = HandshakeMachine::new(Handshake::Legacy);
    hs.handle_opened(None);
    hs.poll_outputs();
    hs.handle_answer(reprobed, HandshakeMessage::Initialize, Err(refusal));
    assert!(matches!(
        hs.poll_outputs().as_slice(),
        [HandshakeOutput::Failed { kind: Failure::Crash, text }] if text.starts_with("it refused initialize")
    ));
}

#[test]
fn failures_say_their_kind_and_what_did_not_happen() {
    // An unsupported protocol version is a protocol failure, not a crash.
    let mut hs = HandshakeMachine::new(Handshake::Legacy);
    hs.handle_opened(None);
    hs.poll_outputs();
    let result = json!({ "protocolVersion": "1999-01-01", "capabilities": {} });
    hs.handle_answer(STDIO, HandshakeMessage::Initialize, Ok(result));
    assert!(matches!(
        hs.poll_outputs().as_slice(),
        [HandshakeOutput::Failed {
            kind: Failure::Protocol,
            ..
        }]
    ));

    let mut hs = HandshakeMachine::new(Handshake::Legacy);
    hs.handle_timeout(STDIO, 500);
    assert_eq!(
        hs.poll_outputs(),
        [HandshakeOutput::Failed {
            kind: Failure::Crash,
            text: "the process/session did not open within 500 ms (timeout)".to_string()
        }]
    );
    hs.handle_opened(None);
    hs.poll_outputs();
    hs.handle_closed(STDIO, "exited with code 3");
    assert_eq!(
        hs.poll_outputs(),
        [HandshakeOutput::Failed {
            kind: Failure::Crash,
            text: "exited with code 3".to_string()
        }]
    );
}
