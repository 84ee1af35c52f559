//! Connections to upstream servers: the cataloguing queue, opening (the
//! handshake is `handshake.rs`'s), the single-flight `ensure_connected`, and forwarding
//! client calls once the server is CONNECTED. Listing is in `listing.rs`, how
//! connections end in `connection_end.rs`. A server's waiting calls, background
//! retry and era doubts are its `ConnectMachine`'s (`machines/connect/machine.rs`).

use crate::config::model::Transport;
use crate::engine::effects::Effect;
use crate::engine::effects::LogLevel;
use crate::engine::events::{ClientId, ConnId};
use crate::engine::server::calls::CallParams;
use crate::engine::server::calls::ForwardedCall;
use crate::engine::server::calls::QueuedCall;
use crate::engine::server::calls::UpstreamParams;
use crate::engine::server::connection::Connection;
use crate::engine::server::ctx::ServerCtx;
use crate::engine::server::machines::handshake::machine::Handshake;
use crate::engine::server::pending::Pending;
use crate::engine::server::purpose::Purpose;
use crate::engine::server::Servers;
use crate::engine::state::{ServerState, Trigger};
use crate::engine::timers::TimerPurpose;
use crate::protocol::client_discover::Era;
use crate::protocol::jsonrpc;
use crate::protocol::message_fields::MessageFields;
use crate::protocol::methods;
use crate::protocol::params::Params;
use crate::shared::launch::SharedLaunch;
use crate::wording::count_as;
use serde_json::Value;

/// When a connection goes live: after its first listing round, unless the
/// roots its server asked for at that time still settle (server-filesystem
/// replaces its allowed directories with them, asynchronously: it gets
/// `rootsSettleMs` to apply them before the first call), or once they did.
pub(in crate::engine) enum GoLive {
    Listed(Option<u64>),
    RootsSettled,
}

/// What became of a call the servers took ([`Servers::route_call`]).
pub(in crate::engine) enum Routed {
    /// Sent upstream, or dropped with its connection gone.
    Sent,
    /// Waiting for the server's single connect (the router ensures one).
    Waits,
}

/// A call the servers refused, and the error its client gets.
pub(in crate::engine) struct Refused {
    call: QueuedCall,
    code: i64,
    message: String,
}

impl Refused {
    /// Taken apart for the router's answer: the call's client and id, the
    /// error's code and message (only `Servers` builds one).
    pub(in crate::engine) fn into_parts(self) -> ((ClientId, Value), i64, String) {
        (self.call.into_reply_target(), self.code, self.message)
    }
}

fn refused(call: QueuedCall, code: i64, message: String) -> Box<Refused> {
    Box::new(Refused {
        call,
        code,
        message,
    })
}

impl Servers {
    /// Single flight for a connect of `name`: Some(true) when a connection
    /// must open (it leaves the cataloguing queue), Some(false) when one is
    /// on its way or live, None when it cannot connect now (DISABLED,
    /// DORMANT, no such server).
    pub(in crate::engine) fn must_open(&mut self, name: &str) -> Option<bool> {
        match self.get(name)?.state() {
            ServerState::Connected | ServerState::Connecting | ServerState::Cataloguing => {
                Some(false)
            }
            // FAILED too: a call or Connect Now gets one fresh attempt at once,
            // bounded by the handshake timeout (automatic retries are bounded apart).
            ServerState::Catalogued
            | ServerState::Pending
            | ServerState::NeedsAuth
            | ServerState::Failed { .. } => {
                self.unqueue_catalogue(name);
                Some(true)
            }
            ServerState::Disabled | ServerState::Dormant => None,
        }
    }

    /// Sends one client call upstream on `conn` with a fresh id and a
    /// request timeout. `input_rounds`: how many times a modern server
    /// already asked for input on this call (0 for a new call; its retries
    /// go through here too). The pins are read only (`ctx.pins`).
    pub(in crate::engine) fn forward_call(
        &mut self,
        ctx: &mut ServerCtx,
        conn: ConnId,
        mut call: QueuedCall,
        input_rounds: u32,
    ) -> Result<(), Box<Refused>> {
        // The connection and its server in one look-up, no name cloned per call.
        let Some((connection, server)) = self.conn_and_server_mut(conn) else {
            return Ok(());
        };
        // Held since the call arrived (the connect's listing found it changed):
        // refused, never sent.
        if ctx.pins.any_held() {
            let held = ctx
                .pins
                .call_refusal(connection.server(), call.method(), call.params());
            if let Some(message) = held {
                return Err(refused(call, jsonrpc::INVALID_PARAMS, message));
            }
        }
        // A modern server gets the era's envelope and may ask for input (the
        // call is sent again with the same params): it needs them parsed.
        if connection.handshake().era() == Era::Modern {
            // The raw reading validated it already; never leave a client waiting.
            if let Err(error) = call.read_raw_params() {
                let why = format!("Lazy MCP could not read the call's params: {error}");
                return Err(refused(call, jsonrpc::INVALID_PARAMS, why));
            }
        }
        let upstream_id = connection.next_request_id();
        // The server's `timeout` key bounds each forwarded request too (it is the
        // per-request timeout of the tools whose configs carry it), else `requestTimeoutMs`.
        let mut timeout = ctx.settings.request_timeout_ms;
        if let Some(server) = server {
            timeout = server.config().timeout_ms.unwrap_or(timeout);
            server.idle_mut().handle_call_forwarded(ctx.now_ms);
        }
        let timer = ctx.timers.handle_set(
            TimerPurpose::Request { conn, upstream_id },
            ctx.now_ms.saturating_add(timeout),
        );
        // The call's own strings move into its record: none is copied.
        let (forwarded, params) = ForwardedCall::forward(call, timer, input_rounds);
        match params {
            UpstreamParams::Parsed(params) => {
                let method = forwarded.method().to_string();
                self.send_request(ctx, conn, &method, params, Pending::Call(forwarded));
            }
            UpstreamParams::Raw(text) => self.send_raw_call(ctx, conn, forwarded, &text),
        }
        Ok(())
    }

    /// A call for `name` from a client: forwarded now (CONNECTED), waiting
    /// for the single connect, or refused (no such server, held by the pins,
    /// DISABLED or DORMANT).
    pub(in crate::engine) fn route_call(
        &mut self,
        ctx: &mut ServerCtx,
        name: &str,
        call: QueuedCall,
    ) -> Result<Routed, Box<Refused>> {
        let Some(server) = self.server_mut(name) else {
            let message = format!("Lazy MCP has no server named '{name}'");
            return Err(refused(call, jsonrpc::INVALID_PARAMS, message));
        };
        if let (ServerState::Connected, Some(conn)) = (server.state(), server.connect().conn()) {
            return self.forward_call(ctx, conn, call, 0).map(|()| Routed::Sent);
        }
        let held = ctx.pins.call_refusal(name, call.method(), call.params());
        let refusal = held.or_else(|| match server.state() {
            ServerState::Disabled => Some(format!(
                "MCP server '{name}' is disabled; enable it to use it"
            )),
            ServerState::Dormant => Some(format!(
                "MCP server '{name}' is dormant (autoConnect: false); enable it to use it"
            )),
            _ => None,
        });
        if let Some(message) = refusal {
            return Err(refused(call, jsonrpc::SERVER_UNAVAILABLE, message));
        }
        server.connect_mut().handle_call_waiting(call);
        Ok(Routed::Waits)
    }
}

/// The `uri` param of a subscribe/unsubscribe request.
pub(super) fn subscription_uri(params: &CallParams) -> Option<&str> {
    match params {
        CallParams::Parsed(params) => Params::read(params.as_ref()).uri,
        // Only `tools/call` is forwarded raw: never a subscription.
        CallParams::Raw { .. } => None,
    }
}

/// How [`Servers::open`] opens a connection: what for, whether the user
/// waits, the handshake of a replacement, a shared launch.
pub(in crate::engine) struct Opening {
    purpose: Purpose,
    interactive: bool,
    fallback: Option<Handshake>,
    shared: Option<SharedLaunch>,
}

impl Opening {
    /// The router's request to open (only `Servers::open` reads it).
    pub(in crate::engine) fn new(
        purpose: Purpose,
        interactive: bool,
        fallback: Option<Handshake>,
        shared: Option<SharedLaunch>,
    ) -> Opening {
        Opening {
            purpose,
            interactive,
            fallback,
            shared,
        }
    }
}

impl Servers {
    /// The host opened `conn` (`pid`: its process). Also again for a
    /// connection already open: the owner moved this shared connection's
    /// client to another process (`shared/mux/roots.rs`), so Diagnostics show
    /// the process that serves it now; nothing else changes. Returns whether
    /// its handshake starts now (it was waiting for this).
    pub(in crate::engine) fn connection_opened(&mut self, conn: ConnId, pid: Option<u32>) -> bool {
        let opening = self.is_opening(conn);
        if let Some((_, Some(server))) = self.conn_and_server_mut(conn) {
            server.process_started(pid);
        }
        opening
    }

    /// Opens a connection to `name`: its retry timer cancelled, the
    /// handshake's timer armed (the server's `timeout` key, else
    /// `handshakeTimeoutMs`), the `open` effect. Returns the state change
    /// the router makes: none for a replacement (the server is still
    /// CATALOGUING or CONNECTING), nor when there is no such server.
    pub(in crate::engine) fn open(
        &mut self,
        ctx: &mut ServerCtx,
        name: &str,
        opening: Opening,
    ) -> Option<Trigger> {
        let Opening {
            purpose,
            interactive,
            fallback,
            shared,
        } = opening;
        let timeout_ms = self.get(name).and_then(|s| s.config().timeout_ms);
        let timeout_ms = timeout_ms.unwrap_or(ctx.settings.handshake_timeout_ms);
        let handshake = match fallback {
            Some(handshake) => handshake,
            None => self.handshake_for(ctx, name),
        };
        let server = self.server_mut(name)?;
        let retry_timer = server.restart_mut().take_retry_timer();
        let transport = server.config().transport.clone();
        let oauth = crate::engine::server::auth::binding(server.config());
        ctx.timers.cancel_armed(retry_timer);
        let conn = self.insert_conn(|conn| {
            let handshake_timer = ctx.timers.handle_set(
                TimerPurpose::Handshake { conn },
                ctx.now_ms.saturating_add(timeout_ms),
            );
            let connection = Connection::new(
                name.to_string(),
                purpose,
                interactive,
                handshake,
                ctx.now_ms,
                handshake_timer,
            );
            connection.speaking(&transport)
        });
        if let Some(server) = self.server_mut(name) {
            server.opening(conn, shared.is_some());
        }
        self.outbox().push(Effect::Open {
            conn,
            server: name.to_string(),
            transport: Box::new(transport),
            interactive,
            oauth: oauth.map(Box::new),
            max_message_bytes: ctx.settings.max_message_bytes,
            shared: shared.map(Box::new),
        });
        match purpose {
            _ if fallback.is_some() => None,
            Purpose::Catalogue => Some(Trigger::CatalogueStarted),
            Purpose::Connect => Some(Trigger::ConnectStarted),
        }
    }

    /// Either era's handshake is done on `conn`: its server's era is known,
    /// and the connection is kept for calls that arrived while cataloguing.
    /// (Calls flow once the first listing round is back: the live lists are
    /// then compared with the catalogue, and the server has had a round trip
    /// to finish its own start-up, e.g. asking for roots, before the first call.)
    pub(in crate::engine) fn handshake_done(&mut self, conn: ConnId) {
        let Some((connection, server)) = self.conn_and_server_mut(conn) else {
            return;
        };
        let has_waiters = match server {
            Some(server) => {
                server.connect_mut().handle_era_known();
                server.connect_mut().has_waiters()
            }
            None => false,
        };
        if has_waiters {
            connection.keep_for_calls();
        }
    }

    /// Whether `conn` goes live now ([`GoLive`]); when it does, its
    /// server's name and the handshake's latency ([`Servers::went_live`]).
    pub(in crate::engine) fn go_live(
        &mut self,
        ctx: &mut ServerCtx,
        conn: ConnId,
        when: GoLive,
    ) -> Option<(String, u64)> {
        let now = match when {
            GoLive::Listed(roots_asked_at) => self.roots_settled(ctx, conn, roots_asked_at),
            GoLive::RootsSettled => self.is_settling(conn),
        };
        if !now {
            return None;
        }
        self.went_live(ctx, conn)
    }

    /// Whether `conn` goes live now: not while the roots its server asked for
    /// at `roots_asked_at` settle (`rootsSettleMs`; a timer wakes it then).
    fn roots_settled(
        &mut self,
        ctx: &mut ServerCtx,
        conn: ConnId,
        roots_asked_at: Option<u64>,
    ) -> bool {
        let settle = ctx.settings.roots_settle_ms;
        match roots_asked_at.map(|at| at.saturating_add(settle)) {
            Some(due) if due > ctx.now_ms => {
                ctx.timers
                    .handle_set(TimerPurpose::RootsSettle { conn }, due);
                false
            }
            _ => true,
        }
    }

    /// `conn` is open and not yet live (its listing is done; its roots settle).
    fn is_settling(&self, conn: ConnId) -> bool {
        self.conn(conn).is_some_and(|c| !c.is_live())
    }

    /// `conn` goes live: its handshake timer is cancelled. Returns its
    /// server's name and the handshake's latency (the router makes it
    /// CONNECTED, then hands both to [`Servers::connected`]).
    fn went_live(&mut self, ctx: &mut ServerCtx, conn: ConnId) -> Option<(String, u64)> {
        let connection = self.conn_mut(conn)?;
        let live = connection.went_live(ctx.now_ms);
        let name = connection.server().clone();
        ctx.timers.cancel_armed(live.handshake_timer);
        Some((name, live.latency_ms))
    }

    /// `name` is CONNECTED on `conn`: counted, logged, its changes listened
    /// for (modern era) or its resources subscribed again (legacy era).
    /// Returns the calls that waited for it, for the router to forward.
    pub(in crate::engine) fn connected(
        &mut self,
        ctx: &mut ServerCtx,
        conn: ConnId,
        name: &str,
        latency_ms: u64,
    ) -> Vec<QueuedCall> {
        let waiters = match self.server_mut(name) {
            Some(server) => server.connected(latency_ms),
            None => Vec::new(),
        };
        let message = format!(
            "connected ({} waiting)",
            count_as(waiters.len(), "call was", "calls were")
        );
        self.log(LogLevel::Info, Some(name), message);
        let subscribed = self.subscribed_uris(name);
        let modern = self.is_modern(conn);
        if modern {
            self.listen_for_changes(ctx, conn);
        }
        // Modern servers take subscriptions in `subscriptions/listen` instead.
        for uri in subscribed.into_iter().filter(|_| !modern) {
            let already_asked = waiters.iter().any(|w| {
                w.method() == methods::RESOURCES_SUBSCRIBE
                    && subscription_uri(w.params()) == Some(uri.as_str())
            });
            if !already_asked {
                self.send_request(
                    ctx,
                    conn,
                    methods::RESOURCES_SUBSCRIBE,
                    Some(serde_json::json!({ "uri": uri })),
                    Pending::Internal,
                );
            }
        }
        waiters
    }

    /// `name` went CONNECTED and its waiting calls went out: its idle
    /// machine starts counting from now.
    pub(in crate::engine) fn idle_from_connected(&mut self, ctx: &mut ServerCtx, name: &str) {
        let now = ctx.now_ms;
        self.with_idle(ctx, name, &mut |idle, ceiling| {
            idle.handle_connected(now, ceiling)
        });
    }

    /// Sends a request upstream, remembering what its answer is for. Returns
    /// its id. Its params are as the connection's era wants them: a forwarded
    /// call's envelope declares its client's input capabilities.
    pub(in crate::engine) fn send_request(
        &mut self,
        ctx: &mut ServerCtx,
        conn: ConnId,
        method: &str,
        params: Option<Value>,
        pending: Pending,
    ) -> Option<u64> {
        let input = match &pending {
            Pending::Call(call) => ctx
                .clients
                .modern_input_capabilities(call.client(), call.client_id()),
            _ => None,
        };
        let params = self.enveloped(ctx.settings, conn, params, input);
        let id = self.conn_mut(conn)?.send_request(pending);
        let message = jsonrpc::request(Value::from(id), method, params);
        self.send(ctx, conn, message);
        Some(id)
    }

    /// [`Servers::send_request`] of a forwarded call whose params are the
    /// client's bytes: written from its record's method, then the record kept
    /// as the request's pending entry (only legacy-era connections get these).
    pub(in crate::engine) fn send_raw_call(
        &mut self,
        ctx: &mut ServerCtx,
        conn: ConnId,
        call: Box<ForwardedCall>,
        params: &str,
    ) {
        let headers = self.http_headers_for(ctx, conn, None);
        let Some(connection) = self.conn_mut(conn) else {
            return;
        };
        let id = connection.next_request_id();
        let message = crate::protocol::raw_message::splice_request(id, call.method(), params);
        connection.send_request(Pending::Call(call));
        let send = Effect::Send {
            conn,
            message,
            headers,
            request_id: Some(id),
            open_event_stream: false,
        };
        // Held while the connection waits for a sign-in.
        if let Some(send) = connection.handle_send(send) {
            self.outbox().push(send);
        }
    }

    /// A `send` effect, saying what the connection needs so it never reads the
    /// message: its request id, headers, and (`open_event_stream`, HTTP only)
    /// that the server's own stream may be opened once it is accepted.
    pub(in crate::engine) fn send(&mut self, ctx: &mut ServerCtx, conn: ConnId, message: Value) {
        if let Some(abort) = self.abort_for_cancel(conn, &message) {
            self.outbox().push(abort);
        }
        self.send_text(ctx, conn, message.to_string(), &message);
    }

    /// [`Servers::send`] of `text`, the message `message` written (a
    /// message refused with a challenge is sent again as it was).
    pub(in crate::engine) fn send_text(
        &mut self,
        ctx: &mut ServerCtx,
        conn: ConnId,
        text: String,
        message: &Value,
    ) {
        let http = matches!(self.transport_of(conn), Some(Transport::Http { .. }));
        let headers = self.http_headers_for(ctx, conn, Some(message));
        // Only our own requests carry a method and an id (answers to a server's
        // requests carry its id and no method).
        let fields = MessageFields::read(message);
        let request_id = fields.method_member.and(fields.id).and_then(Value::as_u64);
        // The legacy handshake's last message: once it is accepted, an HTTP
        // server may send on a stream of its own.
        let opens_stream = http && fields.method() == Some(methods::NOTIFICATIONS_INITIALIZED);
        let Some(connection) = self.conn_mut(conn) else {
            return;
        };
        let send = Effect::Send {
            conn,
            message: text,
            headers,
            request_id,
            open_event_stream: opens_stream,
        };
        // Held while the connection waits for a sign-in.
        if let Some(send) = connection.handle_send(send) {
            self.outbox().push(send);
        }
    }
}

impl Servers {
    /// A shared server's owner reports who shares the connection (Diagnostics).
    pub(in crate::engine) fn connection_shared(
        &mut self,
        conn: ConnId,
        clients: u32,
        holders: Vec<crate::shared::launch::SharedHolder>,
    ) {
        let Some(name) = self.conn(conn).map(|c| c.server().clone()) else {
            return;
        };
        if let Some(server) = self
            .server_mut(&name)
            .filter(|s| s.connect().conn() == Some(conn))
        {
            server.shared(clients, holders);
        }
    }
}
