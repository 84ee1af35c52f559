//! Messages from upstream servers: responses (handshake, lists, forwarded calls),
//! server-to-client requests (ping, roots, sampling, elicitation) and notifications.

use crate::config::model::Transport;
use crate::engine::effects::LogLevel;
use crate::engine::events::ConnId;
use crate::engine::server::calls::{ForwardedCall, QueuedCall};
use crate::engine::server::ctx::ServerCtx;
use crate::engine::server::machines::handshake::machine::Phase;
use crate::engine::server::pending::Pending;
use crate::engine::server::reads::ClientReads;
use crate::engine::server::roots::roots_from_folders;
use crate::engine::server::Servers;
use crate::protocol::client_handshake::ListKind;
use crate::protocol::json_text::push_str;
use crate::protocol::jsonrpc;
use crate::protocol::listen_tag::SUBSCRIPTION_ID_KEY;
use crate::protocol::methods;
use crate::protocol::outline::outline;
use crate::protocol::params::Params;
use serde_json::{json, Value};

/// What a forwarded call's answer leaves the router to do (`Servers::call_answered`).
pub(in crate::engine) enum CallAnswered {
    /// Sent again (`input_rounds` so far) with the answers to its input requests.
    AskAgain(QueuedCall, u32),
    /// The server's era changed: the call, then the connection's others, wait.
    EraChanged(String, ForwardedCall, Vec<ForwardedCall>),
    /// Its client is answered with this outcome.
    Finish(ForwardedCall, Result<Value, Value>),
}

/// What a server's request leaves the router to do (`Servers::upstream_request`).
pub(in crate::engine) enum Asked {
    /// Answered already (a ping, a method Lazy MCP does not support).
    Answered,
    /// `roots/list` answered: the shared catalogue notes that it asks.
    Roots,
    /// Sampling or elicitation, for a client that declares `capability`
    /// (`in_flight`: the legacy client of a call in flight on the connection).
    Client {
        capability: &'static str,
        in_flight: Option<String>,
    },
}

impl Servers {
    /// Request `id` on `conn` still awaits its answer: the end of its POST's
    /// reply would fail it (an answer held for its client's retry is an answer).
    pub(in crate::engine) fn reply_awaited(
        &self,
        clients: &dyn ClientReads,
        conn: ConnId,
        id: u64,
    ) -> bool {
        self.conn(conn).is_some_and(|c| c.awaits_answer(id)) && !clients.holds_answer(conn, id)
    }

    /// The reply to request `id`'s POST ended while the request awaits its
    /// answer: logged, and the error the request fails with is returned, as
    /// the host's connection wrote it before the engine owned the requests
    /// in flight (the router reads it as the server's answer).
    pub(in crate::engine) fn reply_ended(
        &mut self,
        ctx: &mut ServerCtx,
        conn: ConnId,
        id: u64,
        reason: &str,
        http_status: Option<u16>,
    ) -> Option<String> {
        if !self.reply_awaited(ctx.clients, conn, id) {
            return None;
        }
        let name = self.conn(conn)?.server();
        let sse = matches!(self.transport_of(conn), Some(Transport::Sse { .. }));
        let message = format!("request {id} failed: {reason}");
        let line = self.log_line(LogLevel::Debug, Some(name), message);
        self.outbox().push(line);
        let mut text = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{{\"code\":{},\"message\":",
            jsonrpc::SERVER_UNAVAILABLE
        );
        push_str(&mut text, reason);
        let transport = if sse { "sse" } else { "http" };
        text.push_str(&match http_status {
            Some(status) => {
                format!(",\"data\":{{\"transport\":\"{transport}\",\"httpStatus\":{status}}}}}}}")
            }
            None => format!(",\"data\":{{\"transport\":\"{transport}\"}}}}}}"),
        });
        Some(text)
    }

    /// The server asked `conn`'s client side for `roots/list` (request `id`):
    /// noted on the connection, answered with the workspace folders.
    fn roots_asked(&mut self, ctx: &mut ServerCtx, conn: ConnId, id: Value) {
        if let Some(connection) = self.conn_mut(conn) {
            connection.roots_asked(ctx.now_ms);
        }
        let roots = roots_from_folders(&ctx.settings.workspace_folders);
        let roots = serde_json::to_value(roots).unwrap_or(json!([]));
        self.send(ctx, conn, jsonrpc::success(id, json!({ "roots": roots })));
    }

    /// Progress for the call on `conn` whose `token` it is: that call's
    /// timeout starts again (the server's `timeout`, else
    /// `requestTimeoutMs`). Returns the client to tell.
    fn progress(&self, ctx: &mut ServerCtx, conn: ConnId, token: Option<&Value>) -> Option<String> {
        let connection = self.conn(conn)?;
        let (client, timer) = connection.calls().find_map(|(_, call)| {
            call.reports_progress(token)
                .then(|| (call.client().to_string(), call.timer()))
        })?;
        let server = self.get(connection.server());
        let timeout = server.and_then(|s| s.config().timeout_ms);
        let timeout = timeout.unwrap_or(ctx.settings.request_timeout_ms);
        ctx.timers
            .handle_rearm(timer, ctx.now_ms.saturating_add(timeout));
        Some(client)
    }

    /// A line from server `name` that is no JSON-RPC message: logged; a reply
    /// Lazy MCP cannot read (too deep, malformed) that still shows its id ends
    /// its request with the error returned.
    pub(in crate::engine) fn unreadable(
        &mut self,
        name: &str,
        text: &str,
        error: &impl std::fmt::Display,
    ) -> Option<(Value, Value)> {
        let shown: String = text.chars().take(200).collect();
        let message = format!("ignored a line that is not a JSON-RPC message ({error}): {shown}");
        self.log(LogLevel::Warn, Some(name), message);
        let id = outline(text).id?;
        let why = format!("MCP server '{name}' sent a reply Lazy MCP cannot read: {error}");
        Some((id, json!({"code": jsonrpc::INTERNAL_ERROR, "message": why})))
    }

    /// A request from `conn`'s server: a ping and `roots/list` answered here,
    /// a method Lazy MCP does not support refused; sampling and elicitation
    /// go to a client (`Asked::Client`).
    pub(in crate::engine) fn upstream_request(
        &mut self,
        ctx: &mut ServerCtx,
        conn: ConnId,
        id: &Value,
        method: &str,
    ) -> Asked {
        let capability = match method {
            methods::PING => {
                self.send(ctx, conn, jsonrpc::success(id.clone(), json!({})));
                return Asked::Answered;
            }
            methods::ROOTS_LIST => {
                self.roots_asked(ctx, conn, id.clone());
                return Asked::Roots;
            }
            methods::SAMPLING_CREATE_MESSAGE => "sampling",
            methods::ELICITATION_CREATE => "elicitation",
            _ => {
                let refusal = format!("Lazy MCP does not support {method}");
                let refused =
                    jsonrpc::error_response(id.clone(), jsonrpc::METHOD_NOT_FOUND, &refusal);
                self.send(ctx, conn, refused);
                return Asked::Answered;
            }
        };
        let in_flight = self.in_flight_client_for(ctx.clients, conn, capability);
        Asked::Client {
            capability,
            in_flight,
        }
    }

    /// No client attached to `conn`'s server can answer its request for
    /// `capability`: logged and refused.
    pub(in crate::engine) fn refuse_request(
        &mut self,
        ctx: &mut ServerCtx,
        conn: ConnId,
        id: Value,
        method: &str,
        capability: &str,
    ) {
        let Some(name) = self.server_of(conn).map(str::to_string) else {
            return;
        };
        let refusal = format!(
            "Lazy MCP refused {method} from MCP server '{name}': no client attached to it supports {capability}"
        );
        self.log(LogLevel::Warn, Some(&name), refusal.clone());
        let refused = jsonrpc::error_response(id, jsonrpc::METHOD_NOT_FOUND, &refusal);
        self.send(ctx, conn, refused);
    }

    /// A message arrived on `conn` (false: no such connection): after a
    /// refresh, the next refused token may be refreshed again.
    #[inline]
    pub(in crate::engine) fn answer_arrived(&mut self, conn: ConnId) -> bool {
        let Some(connection) = self.conn_mut(conn) else {
            return false;
        };
        connection.answer_arrived();
        true
    }

    /// The request `id` answers on `conn` leaves its table: its upstream id
    /// (ours are integers; a server that echoes them as strings is
    /// tolerated) and what it was.
    pub(in crate::engine) fn take_answered(
        &mut self,
        conn: ConnId,
        id: &Value,
    ) -> Option<(u64, Pending)> {
        let id = id
            .as_u64()
            .or_else(|| id.as_str().and_then(|text| text.parse().ok()))?;
        Some((id, self.conn_mut(conn)?.take_answered(id)?))
    }

    /// The answer to `call` on `conn` (not held for its client's retry):
    /// asked again with Lazy MCP's roots answers, sent again after the
    /// server's era changed, or its client answered with the outcome.
    pub(in crate::engine) fn call_answered(
        &mut self,
        ctx: &mut ServerCtx,
        conn: ConnId,
        call: ForwardedCall,
        outcome: Result<Value, Value>,
    ) -> CallAnswered {
        if let Some(params) = self.input_retry(ctx, conn, &call, &outcome) {
            let (queued, input_rounds) = call.ask_again(params);
            return CallAnswered::AskAgain(queued, input_rounds);
        }
        if let Some((name, others)) = self.era_changed(ctx, conn, &call, &outcome) {
            return CallAnswered::EraChanged(name, call, others);
        }
        let outcome = self.modern_call_outcome(ctx, conn, &call, outcome);
        CallAnswered::Finish(call, outcome)
    }

    /// A (legacy) client able to answer a server-to-client request with a call in
    /// flight on this connection: the request is most likely part of that call.
    fn in_flight_client_for(
        &self,
        clients: &dyn ClientReads,
        conn: ConnId,
        capability: &str,
    ) -> Option<String> {
        self.conn(conn).and_then(|c| {
            c.calls().find_map(|(_, call)| {
                clients
                    .declares(call.client(), capability)
                    .then(|| call.client().to_string())
            })
        })
    }
}

/// What a server's notification leaves the router to do
/// (`Servers::upstream_notification`), with the params to pass on.
pub(in crate::engine) enum Heard {
    Nothing,
    /// A call's progress (its timeout started again): its client is told.
    Progress(String, Option<Value>),
    /// A request of the server was cancelled: the client asked is told.
    Cancelled(Option<Value>),
    /// The server's lists changed on a ready connection: listed again.
    ListChanged(&'static [ListKind]),
    /// A log message (logged already): the server's clients are told.
    Message(Option<Value>),
}

impl Servers {
    /// A notification from `conn`'s server `name`: a call's progress, a
    /// list changed, a resource updated, a log message (logged here, its
    /// level read); what reaches clients or lists again is returned.
    pub(in crate::engine) fn upstream_notification(
        &mut self,
        ctx: &mut ServerCtx,
        conn: ConnId,
        name: &str,
        method: &str,
        params: Option<Value>,
    ) -> Heard {
        match method {
            methods::NOTIFICATIONS_PROGRESS => {
                let token = Params::read(params.as_ref()).progress_token;
                match self.progress(ctx, conn, token) {
                    Some(client) => Heard::Progress(client, params),
                    None => Heard::Nothing,
                }
            }
            methods::NOTIFICATIONS_CANCELLED => Heard::Cancelled(params),
            methods::NOTIFICATIONS_TOOLS_LIST_CHANGED
            | methods::NOTIFICATIONS_PROMPTS_LIST_CHANGED
            | methods::NOTIFICATIONS_RESOURCES_LIST_CHANGED
                if self
                    .conn(conn)
                    .is_some_and(|c| c.handshake().phase() == Phase::Ready) =>
            {
                Heard::ListChanged(ListKind::from_list_changed(method))
            }
            methods::NOTIFICATIONS_RESOURCES_UPDATED => {
                // A modern server tags it with Lazy MCP's own listen: not the client's.
                self.deliver_resource_updated(ctx, name, untagged(params));
                Heard::Nothing
            }
            methods::NOTIFICATIONS_MESSAGE => {
                let params = untagged(params);
                let text = params
                    .as_ref()
                    .map(|p| Params::read(Some(p)).data.unwrap_or(p).to_string())
                    .unwrap_or_default();
                let level = match Params::read(params.as_ref()).level.unwrap_or("info") {
                    "debug" => LogLevel::Debug,
                    "info" | "notice" => LogLevel::Info,
                    "warning" => LogLevel::Warn,
                    _ => LogLevel::Error,
                };
                self.log(level, Some(name), text);
                Heard::Message(params)
            }
            _ => Heard::Nothing,
        }
    }
}

/// `params` without the `subscriptionId` of the upstream listen that carried it
/// (and without `_meta` when nothing else is in it).
fn untagged(mut params: Option<Value>) -> Option<Value> {
    let Some(object) = params.as_mut().and_then(Value::as_object_mut) else {
        return params;
    };
    let emptied = match object.get_mut("_meta").and_then(Value::as_object_mut) {
        Some(meta) => {
            meta.remove(SUBSCRIPTION_ID_KEY);
            meta.is_empty()
        }
        None => false,
    };
    if emptied {
        object.remove("_meta");
    }
    params
}
