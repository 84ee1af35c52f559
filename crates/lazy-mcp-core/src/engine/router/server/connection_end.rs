//! The router's part of a connection's end (`server/connection_end.rs`,
//! `server/restart.rs`, `server/idle.rs`): `Servers` decides what a close, a
//! stop, an HTTP 401/403, a missed first-exchange deadline or an idle stop
//! does to its state; the clients owed an answer are answered here, the
//! failure logged, and the restart's state change told.

use crate::engine::effects::{Effect, LogLevel};
use crate::engine::events::ConnId;
use crate::engine::router::Engine;
use crate::engine::server::connection_end::{Closed, ConnectionFailed, FailureParts, Owed};
use crate::engine::server::idle::policy;
use crate::engine::server::machines::handshake::input::HandshakeInput;
use crate::engine::server::machines::idle::machine::IdleCeiling;
use crate::engine::server::restart::input::RestartInput;
use crate::engine::state::Trigger;
use crate::engine::timers::TimerId;
use crate::protocol::jsonrpc;

impl Engine {
    /// Ends the server's connection (if any), failing in-flight and waiting calls
    /// with an error saying `why`. Does not change the state.
    pub(in crate::engine) fn stop_server(&mut self, name: &str, why: &str) {
        self.stop_server_as(name, why, false);
    }

    /// [`Engine::stop_server`]; `idle`: by the idle stop, which the `close`
    /// effect says (a shared process is kept for its idle time only then).
    pub(in crate::engine) fn stop_server_as(&mut self, name: &str, why: &str, idle: bool) {
        if let Some(conn) = self.with_servers(|servers, ctx| servers.stop(ctx, name)) {
            let message = format!("MCP server '{name}' is no longer connected: {why}");
            self.drop_connection(conn, &message, false);
            self.effects.push(Effect::Close { conn, idle });
        }
        let message = format!("MCP server '{name}' could not take the call: {why}");
        self.fail_waiters(name, &message);
    }

    /// Forgets a connection: cancels its timers, fails its in-flight calls with
    /// `message`, and closes it when `close` (the host already knows otherwise).
    pub(in crate::engine) fn drop_connection(&mut self, conn: ConnId, message: &str, close: bool) {
        if let Some(owed) = self.with_servers(|servers, ctx| servers.drop_connection(ctx, conn)) {
            self.answer_dropped(conn, owed, message, close);
        }
    }

    /// A dropped connection's calls answered with `message`; closed when `close`.
    fn answer_dropped(&mut self, conn: ConnId, owed: Owed, message: &str, close: bool) {
        for (client, client_id) in owed {
            self.reply_error(&client, client_id, jsonrpc::SERVER_UNAVAILABLE, message);
        }
        self.clients.connection_dropped(conn);
        if close {
            self.effects.push(Effect::Close { conn, idle: false });
        }
    }

    pub(in crate::engine) fn fail_waiters(&mut self, name: &str, message: &str) {
        for call in self.servers.take_waiters(name) {
            let (client, client_id) = call.into_reply_target();
            self.reply_error(&client, client_id, jsonrpc::SERVER_UNAVAILABLE, message);
        }
    }

    /// A failed connection's calls and waiters answered, the failure logged,
    /// and the state after it decided (`on_restart`); `close`: the engine
    /// closes the connection.
    pub(super) fn carry_out_failure(
        &mut self,
        conn: ConnId,
        failed: ConnectionFailed,
        close: bool,
    ) {
        let FailureParts {
            server,
            error,
            detail,
            owed,
            waiters,
            log_level,
            may_stay_catalogued,
        } = failed.into_parts();
        self.answer_dropped(conn, owed, &error, close);
        for call in waiters {
            let (client, client_id) = call.into_reply_target();
            self.reply_error(&client, client_id, jsonrpc::SERVER_UNAVAILABLE, &error);
        }
        let error = format!("{error}{detail}");
        self.log(log_level, Some(&server), error.clone());
        self.note_failure(&server, &error, false);
        self.on_restart(&server, RestartInput::failed(error, may_stay_catalogued));
    }

    pub(in crate::engine) fn on_connection_closed(
        &mut self,
        conn: ConnId,
        reason: &str,
        exit_code: Option<i32>,
        stderr_tail: Option<&str>,
    ) {
        match self.with_servers(|servers, ctx| {
            servers.connection_closed(ctx, conn, reason, exit_code, stderr_tail)
        }) {
            None => {}
            Some(Closed::InHandshake { cause, detail }) => {
                self.on_handshake(conn, HandshakeInput::closed(&cause, &detail, false))
            }
            Some(Closed::Live(failed)) => self.carry_out_failure(conn, failed, false),
        }
    }

    pub(in crate::engine) fn on_http_status(&mut self, conn: ConnId, status: u16) {
        let Some((name, error)) = self.with_servers(|servers, _| servers.http_status(conn, status))
        else {
            return;
        };
        self.stop_server(
            &name,
            &format!("it requires authentication (HTTP {status})"),
        );
        self.note_failure(&name, &error, true);
        self.log(LogLevel::Warn, Some(&name), error);
        self.transition(&name, Trigger::AuthRequired);
    }

    /// Deadline `timer` of `conn`'s first exchange came: the connection fails
    /// as if it closed saying so, and is closed.
    pub(in crate::engine) fn on_connect_deadline(&mut self, conn: ConnId, timer: TimerId) {
        if let Some(cause) = self.servers.connect_deadline(conn, timer) {
            self.on_handshake(conn, HandshakeInput::closed(&cause, "", true));
        }
    }

    /// `name`'s restarts take `input` (`Servers::restart`; a failure was
    /// told first, `note_failure`), then the state change it asks for, and
    /// (a cold retry) the cataloguing queued.
    pub(in crate::engine) fn on_restart(&mut self, name: &str, input: RestartInput) {
        let Some(next) = self.with_servers(|servers, ctx| servers.restart(ctx, name, input)) else {
            return;
        };
        let (trigger, enqueue) = next.into_parts();
        self.transition(name, trigger);
        if enqueue {
            self.servers.enqueue_catalogue(name);
        }
    }

    pub(in crate::engine) fn retry_now(&mut self, name: &str) {
        self.on_restart(name, RestartInput::RetryNow);
    }

    /// `name`'s idle settings: its own ceiling, else the user's.
    pub(in crate::engine) fn idle_ceiling(&self, name: &str) -> IdleCeiling {
        policy::server_ceiling(self.settings(), name)
    }

    /// `name`'s idle timer fired: an idle server is stopped.
    pub(in crate::engine) fn on_idle_timer(&mut self, name: &str) {
        if !self.with_servers(|servers, ctx| servers.idle_timer_fired(ctx, name)) {
            return;
        }
        self.stop_server_as(name, "it was stopped after being idle", true);
        self.transition(name, Trigger::Stopped);
    }
}
