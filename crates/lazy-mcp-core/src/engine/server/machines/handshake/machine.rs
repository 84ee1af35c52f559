//! One connection's handshake as a state machine, in quinn-proto's shape (as
//! `auth/machine.rs`): it owns its fields (private), takes what happened
//! through `handle_*` and says what must happen as [`HandshakeOutput`]s the
//! router (`handshake.rs`) drains with [`HandshakeMachine::poll_outputs`] and
//! carries out in order. It decides which era to try (the catalogue's
//! verdict, else a `server/discover` probe), the fallback to `initialize`
//! (on the same stdio process or a fresh connection), the reprobe when a
//! trusted legacy verdict is refused, and what failed and why; the router
//! builds the messages (ids, envelope, headers), opens and drops
//! connections, and changes state only through `Engine::transition`.

use crate::engine::effects::LogLevel;
use crate::engine::server::failure_kind::Failure;
use crate::protocol::client_discover::{self as discover, Era};
use crate::protocol::client_handshake::{self, InitializeOutcome};
use crate::protocol::jsonrpc;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::engine) enum Phase {
    /// `open` sent, waiting for `connectionOpened`.
    Opening,
    /// `server/discover` sent: which era does the server speak?
    Probing,
    /// `initialize` sent.
    Initializing,
    /// Initialized: lists and calls may flow.
    Ready,
}

/// How a connection starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::engine) enum Handshake {
    /// Ask `server/discover` first.
    Probe,
    /// `initialize` (the catalogue says legacy, or the probe failed).
    Legacy,
    /// No handshake: the catalogue says modern (its discover result is reused).
    Modern,
}

/// A handshake message; the router gives it an id, params and headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::engine) enum HandshakeMessage {
    /// The era probe (a modern request: it carries the envelope).
    Discover,
    Initialize,
    /// `notifications/initialized`: after it an HTTP server may open its own stream.
    Initialized,
}

/// What the machine reads of its server at an input.
#[derive(Debug, Clone, Copy)]
pub(in crate::engine) struct HandshakeContext {
    /// The server is a stdio process (alive after answering a probe).
    pub(in crate::engine) stdio: bool,
    /// A reprobe was asked for already (its era is being asked again).
    pub(in crate::engine) reprobed: bool,
}

/// What the machine asks of the router, in the order it must happen.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::engine) enum HandshakeOutput {
    Send(HandshakeMessage),
    Log(LogLevel, String),
    /// The handshake is done in `era` with the server's capabilities and instructions.
    Ready {
        era: Era,
        init: InitializeOutcome,
    },
    /// An unanswered stdio probe: the next connection skips it.
    ProbeUnanswered,
    /// Drop this connection (saying `why` to its calls) and open a fresh one
    /// starting with `handshake` (the server's state does not change).
    Reopen {
        handshake: Handshake,
        why: &'static str,
    },
    /// The trusted legacy verdict was refused: ask the era again on a fresh
    /// connection, saying why (the router does it once per verdict).
    Reprobe(String),
    Failed {
        kind: Failure,
        text: String,
    },
}

/// One connection's handshake.
#[derive(Debug)]
pub(in crate::engine) struct HandshakeMachine {
    /// How it started (decided when the connection was opened).
    kind: Handshake,
    phase: Phase,
    era: Era,
    init: Option<InitializeOutcome>,
    outputs: Vec<HandshakeOutput>,
}

impl HandshakeMachine {
    pub(in crate::engine) fn new(kind: Handshake) -> Self {
        HandshakeMachine {
            kind,
            phase: Phase::Opening,
            era: match kind {
                Handshake::Modern => Era::Modern,
                Handshake::Probe | Handshake::Legacy => Era::Legacy,
            },
            init: None,
            outputs: Vec::new(),
        }
    }

    // ---- outputs and reads ---------------------------------------------------

    /// Everything the inputs so far asked for, in order.
    pub(in crate::engine) fn poll_outputs(&mut self) -> Vec<HandshakeOutput> {
        std::mem::take(&mut self.outputs)
    }

    pub(in crate::engine) fn phase(&self) -> Phase {
        self.phase
    }

    /// How the connection started (a catalogue verdict it trusted, or a probe).
    pub(in crate::engine) fn kind(&self) -> Handshake {
        self.kind
    }

    /// The era requests are spoken in (the probe itself is modern).
    pub(in crate::engine) fn era(&self) -> Era {
        self.era
    }

    /// What the server said in its handshake (its version, capabilities, instructions).
    pub(in crate::engine) fn init(&self) -> Option<&InitializeOutcome> {
        self.init.as_ref()
    }

    fn out(&mut self, output: HandshakeOutput) {
        self.outputs.push(output);
    }

    fn log(&mut self, level: LogLevel, message: String) {
        self.out(HandshakeOutput::Log(level, message));
    }

    // ---- inputs ----------------------------------------------------------------

    /// The host opened the connection. `cached`: the catalogue's discover
    /// result (read only when the connection trusts a modern verdict).
    pub(in crate::engine) fn handle_opened(&mut self, cached: Option<InitializeOutcome>) {
        if self.phase != Phase::Opening {
            return;
        }
        match self.kind {
            Handshake::Legacy => self.send_initialize(),
            Handshake::Probe => self.probe(),
            Handshake::Modern => match cached {
                Some(init) => self.ready(Era::Modern, init),
                // The entry vanished between open and opened: ask.
                None => {
                    self.kind = Handshake::Probe;
                    self.probe();
                }
            },
        }
    }

    /// The answer to a handshake request (`Discover` or `Initialize`).
    pub(in crate::engine) fn handle_answer(
        &mut self,
        cx: HandshakeContext,
        to: HandshakeMessage,
        outcome: Result<Value, Value>,
    ) {
        match to {
            HandshakeMessage::Discover => self.discover_answered(cx, outcome),
            HandshakeMessage::Initialize => self.initialize_answered(cx, outcome),
            HandshakeMessage::Initialized => {}
        }
    }

    /// The handshake timer fired before the connection went live.
    pub(in crate::engine) fn handle_timeout(&mut self, cx: HandshakeContext, timeout_ms: u64) {
        if self.phase == Phase::Probing {
            let what = format!("it did not answer server/discover within {timeout_ms} ms");
            self.probe_interrupted(cx, &what);
            return;
        }
        let what = match self.phase {
            Phase::Opening => "the process/session did not open",
            Phase::Probing => "it did not answer server/discover",
            Phase::Initializing => "it did not answer initialize",
            Phase::Ready => "it did not finish listing its tools, prompts and resources",
        };
        self.out(HandshakeOutput::Failed {
            kind: Failure::Crash,
            text: format!("{what} within {timeout_ms} ms (timeout)"),
        });
    }

    /// The connection closed before it went live; `cause` says how.
    pub(in crate::engine) fn handle_closed(&mut self, cx: HandshakeContext, cause: &str) {
        if self.phase == Phase::Probing {
            let what = format!("server/discover ended the connection: {cause}");
            self.probe_interrupted(cx, &what);
            return;
        }
        self.out(HandshakeOutput::Failed {
            kind: Failure::Crash,
            text: cause.to_string(),
        });
    }

    // ---- decisions ---------------------------------------------------------------

    fn probe(&mut self) {
        self.phase = Phase::Probing;
        // The probe itself carries the envelope (it is a modern request).
        self.era = Era::Modern;
        self.log(
            LogLevel::Debug,
            "probing its protocol era with server/discover".to_string(),
        );
        self.out(HandshakeOutput::Send(HandshakeMessage::Discover));
    }

    /// The legacy handshake: `initialize` (then `notifications/initialized`).
    fn send_initialize(&mut self) {
        self.phase = Phase::Initializing;
        self.era = Era::Legacy;
        self.out(HandshakeOutput::Send(HandshakeMessage::Initialize));
    }

    fn ready(&mut self, era: Era, init: InitializeOutcome) {
        self.phase = Phase::Ready;
        self.era = era;
        self.init = Some(init.clone());
        if era == Era::Legacy {
            // The legacy handshake's last message.
            self.out(HandshakeOutput::Send(HandshakeMessage::Initialized));
        }
        self.out(HandshakeOutput::Ready { era, init });
    }

    fn discover_answered(&mut self, cx: HandshakeContext, outcome: Result<Value, Value>) {
        let why = match outcome {
            Ok(result) => match discover::parse_discover_result(&result) {
                Ok(init) => {
                    self.log(
                        LogLevel::Info,
                        format!("speaks MCP {} (server/discover)", discover::MODERN),
                    );
                    self.ready(Era::Modern, init);
                    return;
                }
                Err(why) => why,
            },
            Err(error) => format!(
                "server/discover was refused: {}",
                jsonrpc::error_message(&error)
            ),
        };
        // The process is alive and answered: on stdio go on with `initialize` on it.
        self.fall_back_to_initialize(&why, !cx.stdio, true);
    }

    fn initialize_answered(&mut self, cx: HandshakeContext, outcome: Result<Value, Value>) {
        if let Err(error) = &outcome {
            // Trusted the catalogue's legacy verdict: the server moved to the modern era.
            if self.kind == Handshake::Legacy && discover::says_era_changed(error) && !cx.reprobed {
                self.out(HandshakeOutput::Reprobe(
                    "it refused initialize as an unsupported protocol version".to_string(),
                ));
                return;
            }
        }
        let parsed = match outcome {
            Ok(result) => client_handshake::parse_initialize_result(&result)
                .map_err(|cause| (cause, Failure::Protocol)),
            Err(error) => Err((
                format!("it refused initialize: {}", jsonrpc::error_message(&error)),
                Failure::Crash,
            )),
        };
        match parsed {
            Ok(init) => self.ready(Era::Legacy, init),
            Err((text, kind)) => self.out(HandshakeOutput::Failed { kind, text }),
        }
    }

    /// The probe did not find a modern server: use `initialize`, on a fresh
    /// connection when `fresh` (the probed one exited, hung, or is HTTP).
    /// `answered`: the server answered the probe (so it speaks the legacy era);
    /// otherwise its era is unknown (it may not have been reachable at all).
    fn fall_back_to_initialize(&mut self, why: &str, fresh: bool, answered: bool) {
        let fresh_text = if fresh { " on a fresh connection" } else { "" };
        let message = if answered {
            format!("speaks the legacy protocol ({why}); using initialize{fresh_text}")
        } else {
            format!("its era is unknown ({why}); trying initialize{fresh_text}")
        };
        self.log(LogLevel::Info, message);
        if fresh {
            self.out(HandshakeOutput::Reopen {
                handshake: Handshake::Legacy,
                why: "the era probe ended",
            });
        } else {
            self.send_initialize();
        }
    }

    /// The probing connection closed or timed out: not a failure of the server.
    fn probe_interrupted(&mut self, cx: HandshakeContext, what: &str) {
        // Only a stdio retry saves a process by skipping the probe. Over HTTP
        // an unanswered probe is as likely a server not listening yet, and
        // once it is up, a skipped probe would record a modern server as legacy.
        if cx.stdio {
            self.out(HandshakeOutput::ProbeUnanswered);
        }
        self.fall_back_to_initialize(what, true, false);
    }
}

#[cfg(test)]
#[path = "machine_tests.rs"]
mod tests;
