//! Every way a connection ends: cataloguing done, idle, user stop, crash, failed
//! handshake, timeout, HTTP 401/403 — and the state each leaves the server in
//! (back to CATALOGUED, or FAILED with an exponential-backoff retry time).

use crate::engine::announce::connect_failure_prefix;
use crate::engine::effects::LogLevel;
use crate::engine::events::ClientId;
use crate::engine::events::ConnId;
use crate::engine::server::calls::QueuedCall;
use crate::engine::server::ctx::ServerCtx;
use crate::engine::server::failure_kind::Failure;
use crate::engine::server::Servers;
use serde_json::Value;

/// The clients a dropped connection's calls answer (with the router's error).
pub(in crate::engine) type Owed = Vec<(ClientId, Value)>;

/// How a connection closed, as the servers decide it (`Servers::connection_closed`).
pub(in crate::engine) enum Closed {
    /// Before it went live: the handshake's failure (`cause`, the stderr `detail`).
    InHandshake { cause: String, detail: String },
    /// While live: dropped already; the router carries out the failure.
    Live(ConnectionFailed),
}

/// A server's connection failed, as `Servers` decides it (dropped already,
/// its waiting calls taken): the router answers `owed` and `waiters` with
/// `error`, logs it with the `detail` (a stderr tail, for the log and
/// Diagnostics only) at `level`, and the restart machine decides the state
/// (`may_stay_catalogued`).
pub(in crate::engine) struct ConnectionFailed {
    name: String,
    error: String,
    detail: String,
    owed: Owed,
    waiters: Vec<QueuedCall>,
    level: LogLevel,
    may_stay_catalogued: bool,
}

/// [`ConnectionFailed`] taken apart for the router, each part named by what
/// the router does with it.
pub(in crate::engine) struct FailureParts {
    /// The server whose connection failed.
    pub(in crate::engine) server: String,
    /// What the owed clients and the waiting calls are answered with; logged.
    pub(in crate::engine) error: String,
    /// A stderr tail, appended to `error` in the log and Diagnostics only.
    pub(in crate::engine) detail: String,
    /// The clients its calls in flight answer.
    pub(in crate::engine) owed: Owed,
    /// The calls that waited for its connect.
    pub(in crate::engine) waiters: Vec<QueuedCall>,
    /// The level the failure is logged at.
    pub(in crate::engine) log_level: LogLevel,
    /// Whether the restart machine may leave it CATALOGUED (it has a
    /// catalogue) rather than FAILED.
    pub(in crate::engine) may_stay_catalogued: bool,
}

impl ConnectionFailed {
    /// Taken apart for the router (only `Servers` builds one: its fields
    /// are private to this file).
    pub(in crate::engine) fn into_parts(self) -> FailureParts {
        FailureParts {
            server: self.name,
            error: self.error,
            detail: self.detail,
            owed: self.owed,
            waiters: self.waiters,
            log_level: self.level,
            may_stay_catalogued: self.may_stay_catalogued,
        }
    }
}

impl Servers {
    /// Forgets `conn`: its timers and its calls' timers cancelled, its server
    /// told. Returns the clients its calls in flight answer (not one gone,
    /// nor one already answered while its call waits for a retry), None
    /// when there was no such connection.
    pub(in crate::engine) fn drop_connection(
        &mut self,
        ctx: &mut ServerCtx,
        conn: ConnId,
    ) -> Option<Owed> {
        let mut connection = self.remove_conn(conn)?;
        let closed = connection.close();
        ctx.timers.cancel_armed(closed.handshake_timer);
        ctx.timers.cancel_armed(closed.connect_deadline);
        if let Some(server) = self.server_mut(connection.server()) {
            server.connection_ended(conn);
        }
        let mut owed = Vec::new();
        for (upstream_id, call) in closed.calls {
            ctx.timers.cancel_armed(Some(call.timer()));
            if ctx.clients.is_attached(call.client())
                && !ctx.clients.awaits_retry(conn, upstream_id)
            {
                owed.push(call.into_reply_target());
            }
        }
        Some(owed)
    }

    /// The calls waiting for `name`'s connect leave it (the router fails them).
    pub(in crate::engine) fn take_waiters(&mut self, name: &str) -> Vec<QueuedCall> {
        match self.server_mut(name) {
            Some(server) => server.connect_mut().take_waiters(),
            None => Vec::new(),
        }
    }

    /// `name` stops: its connect and idle machines told. Returns the
    /// connection the router ends (None: none open, or no such server).
    pub(in crate::engine) fn stop(&mut self, ctx: &mut ServerCtx, name: &str) -> Option<ConnId> {
        let conn = self.server_mut(name)?.connect_mut().handle_stopped();
        self.with_idle(ctx, name, &mut |idle, _| idle.handle_stopped());
        conn
    }

    /// `conn`'s handshake timer fired: the bound that passed (the server's
    /// `timeout` key, else `handshakeTimeoutMs`), None when it was not armed.
    pub(in crate::engine) fn handshake_timer_fired(
        &mut self,
        ctx: &ServerCtx,
        conn: ConnId,
    ) -> Option<u64> {
        let (connection, server) = self.conn_and_server_mut(conn)?;
        if !connection.handshake_timer_fired() {
            return None;
        }
        let bound = server.and_then(|s| s.config().timeout_ms);
        Some(bound.unwrap_or(ctx.settings.handshake_timeout_ms))
    }

    /// The host says `conn` closed: the cause said once, the stderr tail kept
    /// for the log. A live connection is dropped here and its server's idle
    /// machine told.
    pub(in crate::engine) fn connection_closed(
        &mut self,
        ctx: &mut ServerCtx,
        conn: ConnId,
        reason: &str,
        exit_code: Option<i32>,
        stderr_tail: Option<&str>,
    ) -> Option<Closed> {
        let connection = self.conn(conn)?;
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
            return Some(Closed::InHandshake { cause, detail });
        }
        let name = connection.server().clone();
        let error = format!("MCP server '{name}' closed the connection: {cause}");
        let owed = self.drop_connection(ctx, conn).unwrap_or_default();
        self.with_idle(ctx, &name, &mut |idle, _| idle.handle_stopped());
        let may_stay_catalogued = self.current_entry(ctx, &name).is_some();
        Some(Closed::Live(ConnectionFailed {
            name,
            error,
            detail,
            owed,
            waiters: Vec::new(),
            level: LogLevel::Warn,
            may_stay_catalogued,
        }))
    }

    /// Opening, handshake or cataloguing of `conn` failed with `cause`: the
    /// connection dropped, its server's waiting calls taken; they all get
    /// the same error. A crash of a server with a catalogue may leave it
    /// CATALOGUED.
    pub(super) fn connection_failed(
        &mut self,
        ctx: &mut ServerCtx,
        conn: ConnId,
        cause: &str,
        detail: &str,
        failure: Failure,
    ) -> Option<ConnectionFailed> {
        let name = self.server_of(conn)?.to_string();
        let error = format!("{}{cause}", connect_failure_prefix(&name));
        let owed = self.drop_connection(ctx, conn)?;
        let waiters = self.take_waiters(&name);
        let has_catalogue = self.current_entry(ctx, &name).is_some();
        Some(ConnectionFailed {
            name,
            error,
            detail: detail.to_string(),
            owed,
            waiters,
            level: LogLevel::Error,
            may_stay_catalogued: has_catalogue && failure == Failure::Crash,
        })
    }

    /// An HTTP status on `conn` that is not an OAuth challenge: logged, unless
    /// it refuses the static credentials (401/403), which ends the server's
    /// connection: then its name and the error the router fails it with (its
    /// last error already).
    pub(in crate::engine) fn http_status(
        &mut self,
        conn: ConnId,
        status: u16,
    ) -> Option<(String, String)> {
        let name = self.server_of(conn)?.to_string();
        if status != 401 && status != 403 {
            let message = format!("HTTP status {status}");
            self.log(LogLevel::Debug, Some(&name), message);
            return None;
        }
        // Static credentials (or a transport without OAuth): no sign-in flow
        // applies; say what is true and how to configure a token.
        let error = format!(
            "MCP server '{name}' requires authentication (HTTP {status}) and uses static \
             credentials, so Lazy MCP does not sign in with OAuth: check the token in its \
             definition's headers, e.g. \
             \"headers\": {{\"Authorization\": \"Bearer ${{input:token}}\"}}, then use Connect Now"
        );
        if let Some(server) = self.server_mut(&name) {
            server.last_error(Some(error.clone()));
        }
        Some((name, error))
    }
}
