//! Every way a connection ends: cataloguing done, idle, user stop, crash, failed
//! handshake, timeout, HTTP 401/403 — and the state each leaves the server in
//! (back to CATALOGUED, or FAILED with an exponential-backoff retry time).

use crate::engine::effects::Effect;
use crate::engine::effects::LogLevel;
use crate::engine::events::ConnId;
use crate::engine::router::Engine;
use crate::engine::server::calls::{ForwardedCall, QueuedCall};
use crate::engine::server::ctx::ServerCtx;
use crate::engine::server::handshake::machine::Failure;
use crate::engine::server::state::Trigger;
use crate::engine::server::Servers;
use crate::protocol::jsonrpc;

impl Servers {
    /// Forgets `conn`: its timers cancelled, its server told. Returns the
    /// calls in flight on it (the router cancels their timers and answers
    /// their clients), None when there was no such connection.
    fn drop_connection(
        &mut self,
        ctx: &mut ServerCtx,
        conn: ConnId,
    ) -> Option<Vec<(u64, Box<ForwardedCall>)>> {
        let mut connection = self.conns.remove(&conn)?;
        let closed = connection.close();
        ctx.timers.cancel_armed(closed.handshake_timer);
        ctx.timers.cancel_armed(closed.connect_deadline);
        if let Some(server) = self.by_name.get_mut(&connection.server) {
            server.connect.handle_connection_dropped(conn);
            server.stats.handle_connection_ended();
        }
        Some(closed.calls)
    }

    /// The calls waiting for `name`'s connect leave it (the router fails them).
    fn take_waiters(&mut self, name: &str) -> Vec<QueuedCall> {
        match self.by_name.get_mut(name) {
            Some(server) => server.connect.take_waiters(),
            None => Vec::new(),
        }
    }
}

impl Engine {
    /// Ends the server's connection (if any), failing in-flight and waiting calls
    /// with an error saying `why`. Does not change the state.
    pub(in crate::engine) fn stop_server(&mut self, name: &str, why: &str) {
        self.stop_server_as(name, why, false);
    }

    /// [`Engine::stop_server`]; `idle`: by the idle stop, which the `close`
    /// effect says (a shared process is kept for its idle time only then).
    pub(in crate::engine) fn stop_server_as(&mut self, name: &str, why: &str, idle: bool) {
        let Some(server) = self.servers.by_name.get_mut(name) else {
            return;
        };
        let conn = server.connect.handle_stopped();
        let (servers, mut ctx) = self.server_parts();
        servers.with_idle(&mut ctx, name, &mut |idle, _| idle.handle_stopped());
        if let Some(conn) = conn {
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
        let (servers, mut ctx) = self.server_parts();
        let Some(calls) = servers.drop_connection(&mut ctx, conn) else {
            return;
        };
        for (upstream_id, call) in calls {
            self.timers.cancel_armed(Some(call.timer()));
            // A call waiting for a retry: its client was answered already.
            if self.clients.is_attached(call.client())
                && !self.clients.awaits_retry(conn, upstream_id)
            {
                let (client, client_id) = call.into_reply_target();
                self.reply_error(&client, client_id, jsonrpc::SERVER_UNAVAILABLE, message);
            }
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

    /// Opening, handshake or cataloguing failed: every waiter gets the same
    /// error; `detail` (a stderr tail) is for the log and Diagnostics only,
    /// not for the clients whose calls fail.
    pub(in crate::engine) fn connection_failed_with_detail(
        &mut self,
        conn: ConnId,
        cause: &str,
        detail: &str,
        failure: Failure,
        close: bool,
    ) {
        let Some(connection) = self.servers.conns.get(&conn) else {
            return;
        };
        let name = connection.server.clone();
        let error = format!(
            "{}{cause}",
            crate::engine::announce::connect_failure_prefix(&name)
        );
        self.drop_connection(conn, &error, close);
        self.fail_waiters(&name, &error);
        let error = format!("{error}{detail}");
        self.log(LogLevel::Error, Some(&name), error.clone());
        let has_catalogue = self.current_entry(&name).is_some();
        self.after_failure(&name, error, has_catalogue && failure == Failure::Crash);
    }

    pub(in crate::engine) fn on_handshake_timer(&mut self, conn: ConnId) {
        let Some(connection) = self.servers.conns.get_mut(&conn) else {
            return;
        };
        if !connection.handshake_timer_fired() {
            return;
        }
        let name = connection.server.clone();
        let timeout = self.handshake_timeout_ms(&name);
        self.handshake_timed_out(conn, timeout);
    }

    pub(in crate::engine) fn on_connection_closed(
        &mut self,
        conn: ConnId,
        reason: &str,
        exit_code: Option<i32>,
        stderr_tail: Option<&str>,
    ) {
        let Some(connection) = self.servers.conns.get(&conn) else {
            return;
        };
        let name = connection.server.clone();
        let in_handshake = !connection.is_live();
        let mut cause = if reason.is_empty() {
            "the connection closed".to_string()
        } else {
            reason.to_string()
        };
        // Said once: the host's reason usually names the code already
        // ("server process "node" exited with code 3").
        if let Some(code) = exit_code.filter(|code| !cause.contains(&format!("code {code}"))) {
            cause.push_str(&format!(" (exit code {code})"));
        }
        // The stderr tail goes to the log and Diagnostics (the user's), never to
        // clients: it can hold paths, tokens or anything else the server printed.
        let detail = stderr_tail
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(|tail| {
                let tail: String = tail
                    .chars()
                    .rev()
                    .take(400)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                format!("; stderr: {tail}")
            })
            .unwrap_or_default();
        if in_handshake {
            self.handshake_closed(conn, &cause, &detail, false);
            return;
        }
        let error = format!("MCP server '{name}' closed the connection: {cause}");
        self.drop_connection(conn, &error, false);
        let (servers, mut ctx) = self.server_parts();
        servers.with_idle(&mut ctx, &name, &mut |idle, _| idle.handle_stopped());
        let error = format!("{error}{detail}");
        self.log(LogLevel::Warn, Some(&name), error.clone());
        let has_catalogue = self.current_entry(&name).is_some();
        self.after_failure(&name, error, has_catalogue);
    }

    pub(in crate::engine) fn on_http_status(&mut self, conn: ConnId, status: u16) {
        let Some(connection) = self.servers.conns.get(&conn) else {
            return;
        };
        let name = connection.server.clone();
        if status != 401 && status != 403 {
            self.log(
                LogLevel::Debug,
                Some(&name),
                format!("HTTP status {status}"),
            );
            return;
        }
        // Static credentials (or a transport without OAuth): no sign-in flow
        // applies; say what is true and how to configure a token.
        let error = format!(
            "MCP server '{name}' requires authentication (HTTP {status}) and uses static \
             credentials, so Lazy MCP does not sign in with OAuth: check the token in its \
             definition's headers, e.g. \
             \"headers\": {{\"Authorization\": \"Bearer ${{input:token}}\"}}, then use Connect Now"
        );
        self.stop_server(
            &name,
            &format!("it requires authentication (HTTP {status})"),
        );
        self.fail_waiters(&name, &error);
        if let Some(server) = self.servers.by_name.get_mut(&name) {
            server.stats.handle_last_error(Some(error.clone()));
        }
        self.note_failure(&name, &error, true);
        self.log(LogLevel::Warn, Some(&name), error);
        self.transition(&name, Trigger::AuthRequired);
    }
}
