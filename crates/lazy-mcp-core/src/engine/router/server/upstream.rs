//! The router's part of what servers send (`server/upstream.rs`,
//! `server/input_required.rs`): a batch split, each message read once, and
//! what `Servers` leaves of it carried out: the handshake's and listing's
//! answers, a forwarded call's answer to its client, a request for a client
//! (sampling, elicitation) and notifications for clients.

use crate::engine::clients::input_bridge::ServerAsks;
use crate::engine::events::ConnId;
use crate::engine::router::Engine;
use crate::engine::server::input_required;
use crate::engine::server::machines::handshake::input::HandshakeInput;
use crate::engine::server::machines::handshake::machine::HandshakeMessage;
use crate::engine::server::machines::listing::machine::ListingInput;
use crate::engine::server::pending::Pending;
use crate::engine::server::upstream::{Asked, CallAnswered, Heard};
use crate::protocol::jsonrpc::{self, Message};
use crate::protocol::outline::{outline, TopLevel};
use crate::protocol::params::Params;
use serde_json::{json, Value};

impl Engine {
    /// One message text from a server: a JSON-RPC batch is split here, each of
    /// its messages read on its own (the host never parses what servers send).
    pub(in crate::engine) fn on_upstream_text(&mut self, conn: ConnId, text: &str) {
        let text = text.trim();
        // Only a batch is outlined: a single message (the hot path) is not
        // scanned one more time; an empty one is an empty HTTP reply body or
        // SSE event. A batch's messages are read each on its own.
        if !text.starts_with('[') {
            if !text.is_empty() {
                self.on_upstream_message(conn, text);
            }
            return;
        }
        let shape = outline(text);
        if shape.top != TopLevel::Array || shape.elements.is_empty() {
            return self.on_upstream_message(conn, text); // says why it is ignored
        }
        for &(start, end) in &shape.elements {
            if let Some(element) = text.get(start..end) {
                self.on_upstream_message(conn, element.trim());
            }
        }
    }

    /// The reply to request `id`'s POST ended (`replyEnded`): a request still in
    /// flight fails with the host's reason, the transport error users always got
    /// (an answer held for its client's retry is an answer); any other is nothing.
    pub(in crate::engine) fn on_reply_ended(
        &mut self,
        conn: ConnId,
        id: u64,
        reason: &str,
        http_status: Option<u16>,
    ) {
        let Some(text) = self
            .with_servers(|servers, ctx| servers.reply_ended(ctx, conn, id, reason, http_status))
        else {
            return;
        };
        self.on_upstream_message(conn, &text);
    }

    fn on_upstream_message(&mut self, conn: ConnId, text: &str) {
        if !self.servers.answer_arrived(conn) || self.forward_raw_response(conn, text) {
            return;
        }
        // Named only off the hot path (a forwarded call's answer needs no name).
        let Some(name) = self.servers.server_of(conn).map(str::to_string) else {
            return;
        };
        let message = match Message::parse(text) {
            Ok(message) => message,
            Err(error) => {
                if let Some((id, outcome)) =
                    self.with_servers(|servers, _| servers.unreadable(&name, text, &error))
                {
                    self.on_upstream_response(conn, &id, Err(outcome));
                }
                return;
            }
        };
        match message {
            Message::Response { id, outcome } => self.on_upstream_response(conn, &id, outcome),
            Message::Request { id, method, params } => {
                self.on_upstream_request(conn, &name, id, &method, params)
            }
            Message::Notification { method, params } => {
                self.on_upstream_notification(conn, &name, &method, params)
            }
        }
    }

    fn on_upstream_response(&mut self, conn: ConnId, id: &Value, outcome: Result<Value, Value>) {
        let Some((id, pending)) = self.servers.take_answered(conn, id) else {
            return;
        };
        match pending {
            Pending::Initialize => {
                let answer = HandshakeInput::Answer(HandshakeMessage::Initialize, outcome);
                self.on_handshake(conn, answer)
            }
            Pending::Discover => {
                let answer = HandshakeInput::Answer(HandshakeMessage::Discover, outcome);
                self.on_handshake(conn, answer)
            }
            Pending::Internal => {}
            Pending::Listen => {
                self.with_servers(|servers, _| servers.handle_listen_answer(conn, id, outcome));
            }
            Pending::List { kind } => match &outcome {
                Ok(page) => self.on_listing(conn, ListingInput::Page(kind, page)),
                Err(error) => self.on_listing(conn, ListingInput::Failed(kind, error)),
            },
            Pending::Call(call) => {
                let Some(outcome) = self.clients.hold_answer(conn, id, outcome) else {
                    // Its client is being asked for input: kept for the retry.
                    self.servers.put_call_back(conn, id, *call);
                    return;
                };
                let answered = {
                    let lent = &mut self.servers_input();
                    (lent.servers).call_answered(&mut lent.ctx, conn, *call, outcome)
                };
                match answered {
                    // Asked again, with Lazy MCP's answers.
                    CallAnswered::AskAgain(queued, rounds) => {
                        self.forward_call_round(conn, queued, rounds)
                    }
                    // Sent again once the server's era is known.
                    CallAnswered::EraChanged(name, call, others) => {
                        self.era_changed(&name, call, others)
                    }
                    CallAnswered::Finish(call, outcome) => self.finish_call(conn, call, |id| {
                        let id = id.clone();
                        Message::Response { id, outcome }.into_value().to_string()
                    }),
                }
            }
        }
    }

    fn on_upstream_request(
        &mut self,
        conn: ConnId,
        name: &str,
        id: Value,
        method: &str,
        params: Option<Value>,
    ) {
        let (capability, in_flight) = match self
            .with_servers(|servers, ctx| servers.upstream_request(ctx, conn, &id, method))
        {
            Asked::Answered => return,
            Asked::Roots => return self.note_roots_asked(name),
            Asked::Client {
                capability,
                in_flight,
            } => (capability, in_flight),
        };
        let asked = (id, method, params);
        let to = (capability, in_flight);
        match (self.clients).server_asks((conn, name), asked, to, &self.servers) {
            ServerAsks::Bridged(upstream_id, out) => {
                self.carry_out_call(conn, upstream_id, out, None)
            }
            ServerAsks::Client(client, request) => self.notify_client(&client, request),
            ServerAsks::Refused(id) => {
                self.with_servers(|servers, ctx| {
                    servers.refuse_request(ctx, conn, id, method, capability)
                });
            }
        }
    }

    fn on_upstream_notification(
        &mut self,
        conn: ConnId,
        name: &str,
        method: &str,
        params: Option<Value>,
    ) {
        match self.with_servers(|servers, ctx| {
            servers.upstream_notification(ctx, conn, name, method, params)
        }) {
            Heard::Nothing => {}
            Heard::Progress(client, params) => {
                self.notify_client(&client, jsonrpc::notification(method, params));
            }
            Heard::Cancelled(params) => {
                let request_id = Params::read(params.as_ref()).request_id;
                let found = self.clients.server_request_cancelled(conn, request_id);
                if let Some((gateway_id, client)) = found {
                    let params = Some(with_request_id(params, gateway_id));
                    self.notify_client(&client, jsonrpc::notification(method, params));
                }
            }
            Heard::ListChanged(kinds) => self.on_listing(conn, ListingInput::Start(kinds)),
            Heard::Message(params) => {
                for client in self.clients.of_server(name) {
                    self.notify_client(&client, jsonrpc::notification(method, params.clone()));
                }
            }
        }
    }

    /// A client's retry carrying a `requestState` Lazy MCP wrapped: the server's
    /// own state is restored and Lazy MCP's roots answers are added
    /// (`server/input_required.rs`).
    pub(in crate::engine) fn restore_input_state(&self, params: &mut Option<Value>) {
        input_required::restore_input_state(self.settings(), params);
    }
}

/// A cancellation's `params` naming the request by the id its client knows.
fn with_request_id(params: Option<Value>, gateway_id: String) -> Value {
    let mut params = params.unwrap_or_else(|| json!({}));
    if let Some(object) = params.as_object_mut() {
        object.insert("requestId".into(), Value::from(gateway_id));
    }
    params
}
