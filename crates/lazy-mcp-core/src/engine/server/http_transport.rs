//! HTTP connections' transport, server side. The host reports when a
//! connection's first exchange starts (`connectStarted`: the first POST, the
//! legacy SSE stream) and what answered it (`connectAnswered`); the
//! connection's `HttpTransport` (`machines/http_transport/machine.rs`) decides the
//! transport (Streamable HTTP, or the legacy HTTP+SSE fallback of the spec's
//! backward-compatibility section) and bounds the first exchange by
//! `HTTP_CONNECT_TIMEOUT_MS` in the one timer table. The host is told the
//! transport (`httpTransport`) and only moves bytes.

use crate::config::model::Transport;
use crate::config::redact_url;
use crate::engine::effects::Effect;
use crate::engine::events::ConnId;
use crate::engine::server::ctx::ServerCtx;
use crate::engine::server::Servers;
use crate::engine::timers::{TimerId, TimerPurpose};
use crate::host_limits::HTTP_CONNECT_TIMEOUT_MS;
use crate::protocol::json_text::push_u64;

impl Servers {
    /// The host started `conn`'s first exchange: its deadline is armed (again).
    pub(in crate::engine) fn connect_started(&mut self, ctx: &mut ServerCtx, conn: ConnId) {
        let Some(connection) = self.conn_mut(conn).filter(|c| c.http().connects()) else {
            return;
        };
        let due = ctx.now_ms.saturating_add(HTTP_CONNECT_TIMEOUT_MS);
        let timer = ctx.timers.handle_set(TimerPurpose::Connect { conn }, due);
        let replaced = connection.connect_started(timer);
        ctx.timers.cancel_armed(replaced);
    }

    /// `conn`'s first exchange was answered with `status`: its deadline ends,
    /// and a probe settles the transport the host is told.
    pub(in crate::engine) fn connect_answered(
        &mut self,
        ctx: &mut ServerCtx,
        conn: ConnId,
        status: u16,
    ) {
        let Some((connection, server)) = self.conn_and_server_mut(conn) else {
            return;
        };
        let oauth = server.is_some_and(|s| crate::engine::server::auth::uses_oauth(s.config()));
        let answered = connection.connect_answered(status, oauth);
        ctx.timers.cancel_armed(answered.deadline);
        if let Some(mode) = answered.mode {
            self.outbox().push(Effect::HttpTransport { conn, mode });
        }
    }

    /// Deadline `timer` of `conn`'s first exchange came: why the connection
    /// fails (the router closes it as if it closed saying so).
    pub(in crate::engine) fn connect_deadline(
        &mut self,
        conn: ConnId,
        timer: TimerId,
    ) -> Option<String> {
        let what = self.conn_mut(conn)?.connect_deadline(timer)?;
        let url = match self.transport_of(conn) {
            Some(Transport::Http { url, .. } | Transport::Sse { url, .. }) => redact_url(url),
            _ => return None,
        };
        // Pushed, not `format!`ted: a format site costs the `.wasm` more.
        let mut cause = String::from("timed out connecting to ");
        cause.push_str(&url);
        cause.push_str(" after ");
        push_u64(&mut cause, HTTP_CONNECT_TIMEOUT_MS);
        cause.push_str(" ms: ");
        cause.push_str(what);
        Some(cause)
    }
}
