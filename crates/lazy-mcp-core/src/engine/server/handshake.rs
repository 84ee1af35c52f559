//! A connection's handshake: `Servers` finds the connection, hands its
//! [`HandshakeMachine`] (`machines/handshake/machine.rs`) an input with what it reads
//! ([`HandshakeContext`]), and carries out the machine's outputs in order:
//! builds and sends the messages (ids, envelope, headers), logs. The
//! machine's last output, when it reaches beyond the servers, is the
//! router's: on success the first listing round, else a connection dropped
//! and reopened, or failed.

pub(in crate::engine) mod reopening;

use crate::config::model::Transport;
use crate::engine::events::ConnId;
use crate::engine::server::connection_end::ConnectionFailed;
use crate::engine::server::ctx::ServerCtx;
use crate::engine::server::machines::handshake::input::HandshakeInput;
use crate::engine::server::machines::handshake::machine::{
    Handshake, HandshakeContext, HandshakeMessage, HandshakeOutput, Phase,
};
use crate::engine::server::pending::Pending;
use crate::engine::server::Servers;
use crate::protocol::client_handshake;
use crate::protocol::client_handshake::{InitializeOutcome, ListKind};
use crate::protocol::jsonrpc;
use crate::protocol::methods;
use reopening::Reopening;

/// What a handshake input leaves the router to do once `Servers` sent the
/// machine's messages and wrote its log lines: the machine's last output,
/// when it reaches beyond the servers (listing, reopening, failing).
pub(in crate::engine) enum HandshakeNext {
    /// Done: the first listing round (calls flow once it is back).
    List(Vec<ListKind>),
    Reopen(Reopening),
    /// Failed: dropped already; the router carries out the failure.
    Failed(ConnectionFailed),
}

impl Servers {
    /// Hands `conn`'s handshake machine `input`, then carries out its
    /// outputs in order: the messages it sends, its log lines, a probe to
    /// skip next time. Its last output, when the router's, is returned with
    /// the server's name (the machine asks for at most one, last); a
    /// failure drops the connection first (`Servers::connection_failed`).
    pub(in crate::engine) fn with_handshake(
        &mut self,
        ctx: &mut ServerCtx,
        conn: ConnId,
        input: HandshakeInput,
    ) -> Option<(String, HandshakeNext)> {
        let cached = match input {
            HandshakeInput::Opened => self.opened_with(ctx, conn)?,
            _ => None,
        };
        let detail = match input {
            HandshakeInput::Closed { detail, .. } => detail,
            _ => "",
        };
        let (connection, server) = self.conn_and_server_mut(conn)?;
        let name = connection.server().clone();
        let cx = match server {
            Some(server) => HandshakeContext {
                stdio: matches!(server.config().transport, Transport::Stdio { .. }),
                reprobed: server.connect().asks_era_again(),
            },
            None => HandshakeContext {
                stdio: false,
                reprobed: false,
            },
        };
        let outputs = connection.handle_handshake(cx, input, cached);
        let mut next = None;
        for output in outputs {
            let step = match output {
                HandshakeOutput::Send(message) => {
                    self.send_handshake(ctx, conn, message);
                    continue;
                }
                HandshakeOutput::Log(level, text) => {
                    self.log(level, Some(&name), text);
                    continue;
                }
                HandshakeOutput::ProbeUnanswered => {
                    if let Some(server) = self.server_mut(&name) {
                        server.connect_mut().handle_probe_unanswered();
                    }
                    continue;
                }
                HandshakeOutput::Ready { init, .. } => {
                    self.handshake_done(conn);
                    HandshakeNext::List(ListKind::offered_by(&init.capabilities))
                }
                HandshakeOutput::Reopen { handshake, why } => {
                    let Some(connection) = self.conn(conn) else {
                        continue;
                    };
                    let (purpose, interactive) = connection.reopen_as();
                    HandshakeNext::Reopen(Reopening {
                        handshake,
                        why,
                        purpose,
                        interactive,
                    })
                }
                // Once per verdict: nothing for the router when asked already.
                HandshakeOutput::Reprobe(why) => match self.reprobe(conn, &why) {
                    Some((_, reopen)) => HandshakeNext::Reopen(reopen),
                    None => continue,
                },
                HandshakeOutput::Failed { kind, text } => {
                    match self.connection_failed(ctx, conn, &text, detail, kind) {
                        Some(failed) => HandshakeNext::Failed(failed),
                        None => continue,
                    }
                }
            };
            next = Some(step);
        }
        next.map(|next| (name, next))
    }
}

impl Servers {
    /// Sends a message the handshake machine asked for (one call site of
    /// `send_request` for both requests: a smaller `.wasm`).
    fn send_handshake(&mut self, ctx: &mut ServerCtx, conn: ConnId, message: HandshakeMessage) {
        let (method, params, pending) = match message {
            HandshakeMessage::Discover => (methods::SERVER_DISCOVER, None, Pending::Discover),
            HandshakeMessage::Initialize => {
                let params = client_handshake::initialize_params(
                    &ctx.settings.client_name,
                    &ctx.settings.client_version,
                );
                (methods::INITIALIZE, Some(params), Pending::Initialize)
            }
            HandshakeMessage::Initialized => {
                // After it, an HTTP server may send on a stream of its own
                // (its `send` says so: `Servers::send_text`).
                let message = jsonrpc::notification(methods::NOTIFICATIONS_INITIALIZED, None);
                self.send(ctx, conn, message);
                return;
            }
        };
        self.send_request(ctx, conn, method, params, pending);
    }
}

impl Servers {
    /// What `conn`'s handshake starts from: a connection trusting a modern
    /// verdict reuses the catalogue's discover result (None inside: it asks).
    /// None: no such connection.
    fn opened_with(&self, ctx: &ServerCtx, conn: ConnId) -> Option<Option<InitializeOutcome>> {
        let connection = self.conn(conn)?;
        Some(match connection.handshake().kind() {
            Handshake::Modern => self
                .current_entry(ctx, connection.server())
                .map(|e| e.initialize.clone()),
            Handshake::Probe | Handshake::Legacy => None,
        })
    }

    /// `conn` is waiting for `connectionOpened`.
    pub(in crate::engine) fn is_opening(&self, conn: ConnId) -> bool {
        self.conn(conn)
            .is_some_and(|c| c.handshake().phase() == Phase::Opening)
    }
}
