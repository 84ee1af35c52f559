//! Which protocol era each upstream server speaks, decided once and remembered.
//!
//! A connection starts with the era its catalogue entry records (zero probes on a
//! warm start or a first call). Without a verdict (no entry, a changed config, a
//! refresh, an answer saying the era changed) it probes with `server/discover`:
//! a 2026-07-28 answer makes the connection modern (no `initialize`, the `_meta`
//! envelope on every request, `subscriptions/listen`); anything else falls back
//! to `initialize` — on the same stdio process when the server merely answered
//! with an error, on a fresh connection when it exited, hung until the handshake
//! timeout, or spoke HTTP (whose transport may have given up on the session).
//! A failed probe never fails the server. Those handshake decisions are the
//! connection's `HandshakeMachine` (`machines/handshake/machine.rs`); this file picks
//! the handshake a connection starts with, asks the era again when calls say
//! it changed, and speaks the modern era (envelope, headers, listen).

use crate::config::model::Transport;
use crate::engine::effects::Effect;
use crate::engine::effects::LogLevel;
use crate::engine::events::ConnId;
use crate::engine::server::calls::ForwardedCall;
use crate::engine::server::ctx::ServerCtx;
use crate::engine::server::handshake::reopening::Reopening;
use crate::engine::server::machines::handshake::machine::Handshake;
use crate::engine::server::pending::Pending;
use crate::engine::server::Servers;
use crate::engine::settings::Settings;
use crate::engine::state::ServerState;
use crate::protocol::client_discover::{self as discover, Era};
use crate::protocol::handshake_result::ServerCapabilities;
use crate::protocol::jsonrpc;
use crate::protocol::listed_item::ListedItem;
use crate::protocol::message_fields::MessageFields;
use crate::protocol::methods;
use crate::protocol::param_headers;
use crate::protocol::params::{name_of, Params};
use crate::vec_map::VecMap;
use serde_json::{json, Value};

impl Servers {
    /// The handshake a new connection to `name` uses.
    pub(in crate::engine) fn handshake_for(&self, ctx: &ServerCtx, name: &str) -> Handshake {
        let Some(server) = self.get(name) else {
            return Handshake::Legacy;
        };
        let sse = matches!(server.config().transport, Transport::Sse { .. });
        let verdict = self.current_entry(ctx, name).map(|entry| entry.era);
        server.connect().how_to_start(sse, verdict)
    }

    /// Request params as the connection's era wants them (the envelope when modern,
    /// declaring `input`: the input capabilities of the modern client that sent it).
    pub(in crate::engine) fn enveloped(
        &self,
        settings: &Settings,
        conn: ConnId,
        params: Option<Value>,
        input: Option<&serde_json::Map<String, Value>>,
    ) -> Option<Value> {
        if !self.is_modern(conn) {
            return params;
        }
        let (name, version) = (&settings.client_name, &settings.client_version);
        let envelope = match input {
            Some(input) => discover::envelope_with_input(name, version, input),
            None => discover::envelope(name, version),
        };
        Some(discover::with_envelope(params, &envelope))
    }

    /// HTTP headers of one message (Streamable HTTP only): modern-era requests
    /// name their version, method and target; every other message carries the
    /// version the handshake settled (`initialize`'s or the modern era's), once
    /// there is one. The engine is the only owner of that version.
    pub(in crate::engine) fn http_headers_for(
        &self,
        ctx: &ServerCtx,
        conn: ConnId,
        message: Option<&Value>,
    ) -> VecMap<String, String> {
        let Some(connection) = self.conn(conn) else {
            return VecMap::new();
        };
        if !matches!(self.transport_of(conn), Some(Transport::Http { .. })) {
            return VecMap::new();
        }
        if let Some(message) = message.filter(|m| MessageFields::read(m).method_member.is_some()) {
            if connection.handshake().era() == Era::Modern {
                let mut headers = discover::http_headers(message);
                headers.extend(self.param_headers(ctx, connection.server(), message));
                return headers;
            }
        }
        let mut headers = VecMap::new();
        if let Some(init) = connection.handshake().init() {
            headers.insert(
                "mcp-protocol-version".to_string(),
                init.protocol_version.clone(),
            );
        }
        headers
    }

    /// The `Mcp-Param-*` headers of a `tools/call`, from the tool's `x-mcp-header`
    /// declarations in the catalogue (none when its declarations are invalid:
    /// the server then says which header it misses).
    fn param_headers(
        &self,
        ctx: &ServerCtx,
        server: &str,
        message: &Value,
    ) -> VecMap<String, String> {
        let fields = MessageFields::read(message);
        if fields.method() != Some(methods::TOOLS_CALL) {
            return VecMap::new();
        }
        let params = fields.params;
        let tool = params.and_then(name_of);
        let schema = self.current_entry(ctx, server).and_then(|entry| {
            entry
                .tools
                .iter()
                .find(|t| name_of(t) == tool)
                .and_then(|t| ListedItem::read(t).input_schema)
        });
        match schema.map(param_headers::declarations) {
            Some(Ok(declarations)) if !declarations.is_empty() => {
                param_headers::headers(&declarations, Params::read(params).arguments)
            }
            _ => VecMap::new(),
        }
    }
}

impl Servers {
    /// A list request of the first round on a connection that trusted the
    /// catalogue's modern verdict was refused: a server that speaks only the
    /// legacy era now refuses every request before `initialize` (Python `mcp`
    /// 1.x: -32602, the TypeScript SDK v1 over HTTP: 400 "Server not
    /// initialized"). Its era is asked again on a fresh connection: returns
    /// the reopening for the router, None when it does not apply.
    pub(super) fn reprobe_after_list_refusal(
        &mut self,
        conn: ConnId,
        error: &Value,
    ) -> Option<(String, Reopening)> {
        let trusted_modern = self
            .conn(conn)
            .is_some_and(|c| c.handshake().kind() == Handshake::Modern && !c.is_live());
        if !trusted_modern {
            return None;
        }
        let why = format!(
            "it refused a 2026-07-28 request ({})",
            jsonrpc::error_message(error)
        );
        self.reprobe(conn, &why)
    }

    /// `conn`'s server's era is asked again on a fresh connection (the server
    /// stays CATALOGUING or CONNECTING; waiting calls wait on). Once per
    /// verdict: None when a probe was asked for already. The router drops
    /// `conn` and opens the returned one.
    pub(super) fn reprobe(&mut self, conn: ConnId, why: &str) -> Option<(String, Reopening)> {
        let (connection, server) = self.conn_and_server_mut(conn)?;
        let name = connection.server().clone();
        let (purpose, interactive) = connection.reopen_as();
        if !server.is_some_and(|s| s.connect_mut().handle_verdict_refused()) {
            return None;
        }
        let message = format!("{why}: asking its era again");
        self.log(LogLevel::Info, Some(&name), message);
        let reopen = Reopening {
            handshake: Handshake::Probe,
            why: "its protocol era changed",
            purpose,
            interactive,
        };
        Some((name, reopen))
    }

    /// A call to a server spoken to as modern was refused in a way that says it
    /// speaks only the legacy era now ([`discover::says_legacy_only`]): the
    /// connection's other calls are taken to go again once the era is known
    /// (once each), the timers of all of them cancelled, its connect machine
    /// told. Returns the server and those other calls (the router stops it,
    /// then hands `call` and them to [`Servers::calls_wait`]); None to
    /// deliver the answer.
    pub(super) fn era_changed(
        &mut self,
        ctx: &mut ServerCtx,
        conn: ConnId,
        call: &ForwardedCall,
        outcome: &Result<Value, Value>,
    ) -> Option<(String, Vec<ForwardedCall>)> {
        let Err(error) = outcome else {
            return None;
        };
        if !discover::says_legacy_only(error) || !call.may_go_again() || !self.is_modern(conn) {
            return None;
        }
        let name = self.conn(conn)?.server().clone();
        let live = self.get(&name).is_some_and(|s| {
            s.connect().conn() == Some(conn)
                && matches!(s.state(), ServerState::Connected)
                && !s.connect().asks_era_again()
        });
        if !live {
            return None;
        }
        let why = jsonrpc::error_message(error);
        // This call and the others in flight go again once the era is known.
        let clients = ctx.clients;
        let others = match self.conn_mut(conn) {
            Some(connection) => {
                connection.take_calls_to_resend(&|id| clients.awaits_retry(conn, id))
            }
            None => Vec::new(),
        };
        if let Some(server) = self.server_mut(&name) {
            server.connect_mut().handle_era_changed();
        }
        let message = format!(
            "it refused a 2026-07-28 {} ({why}): asking its era again and sending {} again",
            call.method(),
            crate::wording::count(others.len() + 1, "call")
        );
        self.log(LogLevel::Info, Some(&name), message);
        ctx.timers.cancel_armed(Some(call.timer()));
        for other in &others {
            ctx.timers.cancel_armed(Some(other.timer()));
        }
        Some((name, others))
    }

    /// Calls taken off a connection whose era changed wait for `name`'s
    /// next connect.
    pub(in crate::engine) fn calls_wait(
        &mut self,
        name: &str,
        call: ForwardedCall,
        others: Vec<ForwardedCall>,
    ) {
        if let Some(server) = self.server_mut(name) {
            for call in std::iter::once(call).chain(others) {
                let call = call.requeue_after_era_change();
                server.connect_mut().handle_call_waiting(call);
            }
        }
    }
}

impl Servers {
    /// A client subscribed to or unsubscribed from a resource of a connected
    /// modern server (which has no `resources/subscribe`): the listen is opened
    /// again with the new URIs. False when the server is not connected in that era.
    pub(in crate::engine) fn relisten(&mut self, ctx: &mut ServerCtx, name: &str) -> bool {
        let conn = match self.get(name) {
            Some(server) if matches!(server.state(), ServerState::Connected) => {
                server.connect().conn()
            }
            _ => None,
        };
        match conn.filter(|c| self.is_modern(*c)) {
            Some(conn) => {
                self.listen_for_changes(ctx, conn);
                true
            }
            None => false,
        }
    }

    /// A forwarded call's answer on a modern connection: a result asking for more
    /// input goes to the client that can answer it or is refused
    /// (`input_required.rs`), and an unsupported-version error means the era
    /// changed (re-probe next time).
    pub(in crate::engine) fn modern_call_outcome(
        &mut self,
        ctx: &mut ServerCtx,
        conn: ConnId,
        call: &ForwardedCall,
        outcome: Result<Value, Value>,
    ) -> Result<Value, Value> {
        if !self.is_modern(conn) {
            return outcome;
        }
        let method = call.method();
        let Some(name) = self.conn(conn).map(|c| c.server().clone()) else {
            return outcome;
        };
        match outcome {
            Ok(result) if discover::asks_for_input(&result) => {
                self.input_for_client(ctx, &name, call, result)
            }
            Err(error) if discover::says_era_changed(&error) => {
                if let Some(server) = self.server_mut(&name) {
                    server.connect_mut().handle_era_changed();
                }
                self.log(
                    LogLevel::Warn,
                    Some(&name),
                    format!(
                        "it answered {method} with an unsupported-protocol-version error; its era is asked again at the next connection"
                    ),
                );
                Err(error)
            }
            other => other,
        }
    }

    /// Modern servers announce changes on a `subscriptions/listen` request that
    /// stays open while the connection is live (the era's replacement for the
    /// GET stream and `resources/subscribe`).
    pub(in crate::engine) fn listen_for_changes(&mut self, ctx: &mut ServerCtx, conn: ConnId) {
        let Some(connection) = self.conn(conn) else {
            return;
        };
        let name = connection.server().clone();
        let capabilities = connection
            .handshake()
            .init()
            .map(|i| i.capabilities.clone())
            .unwrap_or(Value::Null);
        let changes = |kind: &str| ServerCapabilities::read(&capabilities).list_changed(kind);
        let uris = self.subscribed_uris(&name);
        let mut filter = serde_json::Map::new();
        for (kind, key) in [
            ("tools", "toolsListChanged"),
            ("prompts", "promptsListChanged"),
            ("resources", "resourcesListChanged"),
        ] {
            if changes(kind) {
                filter.insert(key.into(), Value::Bool(true));
            }
        }
        if !uris.is_empty() {
            filter.insert("resourceSubscriptions".into(), json!(uris));
        }
        // A new filter replaces the open listen: cancel it first.
        if let Some(old) = self.conn_mut(conn).and_then(|c| c.take_listen()) {
            let cancel = jsonrpc::notification(
                methods::NOTIFICATIONS_CANCELLED,
                Some(json!({ "requestId": old, "reason": "the subscriptions changed" })),
            );
            self.send(ctx, conn, cancel);
        }
        if filter.is_empty() {
            return;
        }
        let id = self.send_request(
            ctx,
            conn,
            methods::SUBSCRIPTIONS_LISTEN,
            Some(json!({ "notifications": Value::Object(filter) })),
            Pending::Listen,
        );
        if let Some(connection) = self.conn_mut(conn) {
            connection.listen_opened(id);
        }
    }

    /// The server answered its `subscriptions/listen`: refused (said in the log:
    /// list changes and resource updates of this server are not heard until it
    /// connects again) or ended by the server.
    pub(in crate::engine) fn handle_listen_answer(
        &mut self,
        conn: ConnId,
        upstream_id: u64,
        outcome: Result<Value, Value>,
    ) {
        let Some(name) = self.listen_answered(conn, upstream_id) else {
            return;
        };
        let (level, message) = match outcome {
            Err(error) => (
                LogLevel::Warn,
                format!(
                    "it refused subscriptions/listen ({}): its list changes and resource updates are not heard until it connects again",
                    jsonrpc::error_message(&error)
                ),
            ),
            Ok(_) => (
                LogLevel::Info,
                "it ended subscriptions/listen: its list changes and resource updates are not heard until it connects again".to_string(),
            ),
        };
        self.log(level, Some(&name), message);
    }

    /// `conn`'s server answered its listen `upstream_id`: the server's name,
    /// unless Lazy MCP cancelled that listen itself (a new filter), whose
    /// answer says nothing.
    pub(in crate::engine) fn listen_answered(
        &mut self,
        conn: ConnId,
        upstream_id: u64,
    ) -> Option<String> {
        let connection = self.conn_mut(conn)?;
        connection
            .listen_answered(upstream_id)
            .then(|| connection.server().clone())
    }

    /// Whether `conn` speaks the modern era.
    pub(in crate::engine) fn is_modern(&self, conn: ConnId) -> bool {
        self.conn(conn)
            .is_some_and(|c| c.handshake().era() == Era::Modern)
    }

    /// A `notifications/cancelled` to a modern server over HTTP: the request's
    /// POST is aborted too (the era cancels by closing the request's stream).
    pub(in crate::engine) fn abort_for_cancel(
        &self,
        conn: ConnId,
        message: &Value,
    ) -> Option<Effect> {
        let fields = MessageFields::read(message);
        if fields.method() != Some(methods::NOTIFICATIONS_CANCELLED) {
            return None;
        }
        let id = Params::read(fields.params).request_id?.as_u64()?;
        let connection = self.conn(conn)?;
        let http = matches!(self.transport_of(conn), Some(Transport::Http { .. }));
        (connection.handshake().era() == Era::Modern && http)
            .then_some(Effect::AbortRequest { conn, id })
    }
}
