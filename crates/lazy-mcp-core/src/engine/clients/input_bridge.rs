//! A legacy server's request for input (`sampling/createMessage`,
//! `elicitation/create`) during the call of a modern (2026-07-28) client. That
//! client takes no server-to-client requests: its era asks with an
//! `input_required` result and gets the answers in the retried call. Lazy MCP
//! bridges the two eras:
//!
//! 1. the server's request becomes the client's `input_required` answer
//!    (`inputRequests` with Lazy MCP's keys, a `requestState` naming the call);
//!    the upstream call stays pending, bounded by its request timer and by
//!    [`MAX_INPUT_ROUNDS`] rounds per call and [`MAX_WAITING_CALLS`] calls;
//! 2. the client's retry (any connection: the era has no session) answers the
//!    server's requests with its `inputResponses` and waits for the upstream's
//!    real result, which becomes the retry's answer;
//! 3. a client that did not declare the capability the request needs gets the
//!    spec's -32021 (`data.requiredCapabilities`) as its call's answer at once;
//!    the server's request is refused and its call cancelled (never a hang).
//!
//! The bridge's state is the clients' side's (`Clients`' bridges, by
//! connection and upstream id): only this file reads and writes it. The
//! server's call keeps whom to answer; a retry changes that through
//! `Servers::answer_retry`.
//!
//! Which call a request belongs to: a legacy server names none, so it is the
//! oldest pending call of a modern client on that connection (as a legacy
//! client's in-flight call is preferred for legacy forwarding).

use super::state::bridge::{Bridge, ServerRequest};
use crate::engine::clients::call_out::CallOut;
use crate::engine::clients::gateway::cancel_notice;
use crate::engine::clients::Clients;
use crate::engine::effects::LogLevel;
use crate::engine::events::{ClientId, ConnId};
use crate::engine::server::input_required::MAX_INPUT_ROUNDS;
use crate::engine::server::Servers;
use crate::protocol::jsonrpc::{self, Message};
use crate::protocol::missing_capability;
use crate::protocol::params::Params;
use serde_json::{Map, Value};

/// Marks a `requestState` that names a call waiting for its client's answers.
const BRIDGE_STATE_PREFIX: &str = "lazy-mcp-input:";

/// Calls waiting for their client's retry at once, over all servers: each holds
/// a server's request open until its request timer fires.
const MAX_WAITING_CALLS: usize = 64;

/// Server requests kept for the next round of one call (they came while the
/// client was being asked).
const MAX_QUEUED: usize = 8;

/// A server's request refused: the log line, then the error to the server.
fn refuse(
    out: &mut Vec<CallOut>,
    server: Option<&str>,
    request: &ServerRequest,
    why: &str,
    code: i64,
) {
    let refusal = format!(
        "Lazy MCP refused {} from MCP server '{}': {why}",
        request.method(),
        server.unwrap_or("?")
    );
    let answer = jsonrpc::error_response(request.id().clone(), code, &refusal);
    out.push(CallOut::Log(LogLevel::Warn, refusal));
    out.push(CallOut::Send(answer));
}

/// What [`Clients::server_asks`] leaves the router to carry out.
pub(in crate::engine) enum ServerAsks {
    /// A modern client's call asks for input: what to carry out for that
    /// call's upstream id.
    Bridged(u64, Vec<CallOut>),
    /// The request, under the id the client sees, goes to the client.
    Client(ClientId, Value),
    /// No client can answer: the server is refused (its request id).
    Refused(Value),
}

impl Clients {
    /// A server's request for `capability` from `server` on `conn`: which
    /// client is asked. The legacy client of the call in flight (`in_flight`),
    /// else, with no call in flight, a modern client's pending call (the
    /// era's input_required), else an attached client that declared it;
    /// none: refused.
    pub(in crate::engine) fn server_asks(
        &mut self,
        (conn, server): (ConnId, &str),
        (id, method, params): (Value, &str, Option<Value>),
        (capability, in_flight): (&str, Option<ClientId>),
        servers: &Servers,
    ) -> ServerAsks {
        if in_flight.is_none() {
            let request = (&id, method, params.as_ref());
            if let Some((upstream_id, out)) = self.server_asks_input(conn, request, servers) {
                return ServerAsks::Bridged(upstream_id, out);
            }
        }
        match in_flight.or_else(|| self.attached_declaring(server, capability)) {
            Some(client) => {
                let gateway_id = self.forward_server_request(client.clone(), conn, id);
                let request = jsonrpc::request(Value::from(gateway_id), method, params);
                ServerAsks::Client(client, request)
            }
            None => ServerAsks::Refused(id),
        }
    }

    /// The client of the call `upstream_id` on `conn` was answered
    /// `input_required` and the call waits for its retry: no reply goes to the
    /// (answered) request it came with.
    pub(in crate::engine) fn awaits_retry(&self, conn: ConnId, upstream_id: u64) -> bool {
        self.bridge(conn, upstream_id)
            .is_some_and(Bridge::is_awaiting)
    }

    /// The server answered the call `upstream_id` on `conn`; the answer waits for its client's retry.
    pub(in crate::engine) fn holds_answer(&self, conn: ConnId, upstream_id: u64) -> bool {
        self.bridge(conn, upstream_id)
            .is_some_and(Bridge::holds_answer)
    }

    /// The call `upstream_id` on `conn` is bridged: its answer needs the full reading.
    pub(in crate::engine) fn is_bridged(&self, conn: ConnId, upstream_id: u64) -> bool {
        self.bridge(conn, upstream_id).is_some()
    }

    fn bridge(&self, conn: ConnId, upstream_id: u64) -> Option<&Bridge> {
        self.bridges().get(conn, upstream_id)
    }

    /// The call (connection, upstream id) whose client was asked with
    /// `requestState` `state`, when it is still on its connection.
    fn call_awaiting(&mut self, state: &str, servers: &Servers) -> Option<(ConnId, u64)> {
        self.forget_ended_bridges(|conn, id| servers.call(conn, id).is_some());
        self.bridges().awaiting(state)
    }

    /// The capabilities `requests` need that the client of modern request
    /// `client_id` did not declare (empty: it may be asked).
    fn missing_for(
        &self,
        client: &str,
        client_id: &Value,
        requests: &[ServerRequest],
    ) -> Map<String, Value> {
        let declared = self
            .modern_input_capabilities(client, client_id)
            .cloned()
            .unwrap_or_default();
        let mut missing = Map::new();
        for request in requests {
            let required =
                missing_capability::required_for_input(request.method(), request.params());
            if let Some(more) = required.and_then(|r| missing_capability::missing(&r, &declared)) {
                missing_capability::merge(&mut missing, more);
            }
        }
        missing
    }

    /// The upstream answered the call `upstream_id` on `conn`: when its client
    /// is still being asked, the answer is kept for the retry (`None`: the
    /// call goes back on its connection); else the call's bridge ends with it
    /// and the answer is handed back.
    pub(in crate::engine) fn hold_answer(
        &mut self,
        conn: ConnId,
        upstream_id: u64,
        outcome: Result<Value, Value>,
    ) -> Option<Result<Value, Value>> {
        if !self.awaits_retry(conn, upstream_id) {
            // Answered: the call leaves its connection, and its bridge with it.
            self.take_bridge(conn, upstream_id);
            return Some(outcome);
        }
        self.bridge_answer_held(conn, upstream_id, outcome);
        None
    }

    /// Calls waiting for their client's retry, over all servers.
    fn waiting_calls(&mut self, servers: &Servers) -> usize {
        self.forget_ended_bridges(|conn, id| servers.call(conn, id).is_some());
        self.bridges().waiting()
    }

    /// A waiting call's timer fired before its client's retry (its client
    /// was answered already): its bridge ends. Returns what goes to its
    /// server: a refusal of each request the client was asked or that
    /// waited, then the call's cancellation unless the server answered
    /// already, and the log line (`method`: the call's). None: the call had
    /// no bridge.
    pub(in crate::engine) fn abandon_bridge(
        &mut self,
        conn: ConnId,
        upstream_id: u64,
        method: &str,
    ) -> Option<Vec<CallOut>> {
        let bridge = self.take_bridge(conn, upstream_id)?;
        let why = "the client did not answer in time";
        let (requests, held) = bridge.abandoned();
        let mut out = Vec::new();
        for id in requests {
            let refusal = jsonrpc::error_response(id, jsonrpc::INTERNAL_ERROR, why);
            out.push(CallOut::Send(refusal));
        }
        if !held {
            out.push(CallOut::Send(cancel_notice(upstream_id, why)));
        }
        out.push(CallOut::Log(LogLevel::Warn, format!("{method} waited for a 2026-07-28 client's answer to its request for input; none came in time, so the call was cancelled")));
        Some(out)
    }

    /// The call on `conn` a server's request for input belongs to: the
    /// oldest of a modern client's calls pending there, or one that waits
    /// for its client's retry (`true`). None: legacy forwarding applies.
    fn bridged_call(&self, conn: ConnId, servers: &Servers) -> Option<(u64, bool)> {
        let upstream_id = servers
            .calls()
            .into_iter()
            .find_map(|(on, upstream_id, call)| {
                (on == conn
                    && (self.awaits_retry(on, upstream_id)
                        || self.is_modern_request(call.client(), call.client_id())))
                .then_some(upstream_id)
            })?;
        Some((upstream_id, self.awaits_retry(conn, upstream_id)))
    }

    /// A server's request for input on `conn`: when a modern client's call
    /// is pending there, that call's upstream id and what to carry out (a
    /// round asked, or the request queued for the next round or refused).
    /// None: no such call (legacy forwarding applies).
    pub(in crate::engine) fn server_asks_input(
        &mut self,
        conn: ConnId,
        (id, method, params): (&Value, &str, Option<&Value>),
        servers: &Servers,
    ) -> Option<(u64, Vec<CallOut>)> {
        let (upstream_id, waits) = self.bridged_call(conn, servers)?;
        let request = ServerRequest::new(id.clone(), method.to_string(), params.cloned());
        if !waits {
            return Some((
                upstream_id,
                self.ask_round(conn, upstream_id, vec![request], servers),
            ));
        }
        let mut out = Vec::new();
        if let Some(request) = self.bridge_queued(conn, upstream_id, request, MAX_QUEUED) {
            let why = format!("more than {MAX_QUEUED} requests for input came at once");
            let server = servers.server_of(conn);
            refuse(&mut out, server, &request, &why, jsonrpc::INTERNAL_ERROR);
        }
        Some((upstream_id, out))
    }

    /// A client request carrying a `requestState` of a waiting call (`None`:
    /// not such a retry): the call (connection, upstream id) and the
    /// client's `inputResponses`, or why none (the client is told).
    #[allow(clippy::type_complexity)]
    pub(in crate::engine) fn retry_of(
        &mut self,
        method: &str,
        params: Option<&Value>,
        servers: &Servers,
    ) -> Option<Result<(ConnId, u64, Map<String, Value>), String>> {
        let retry = Params::read(params);
        let state = (retry.request_state).filter(|s| s.starts_with(BRIDGE_STATE_PREFIX))?;
        let responses = retry.input_responses.cloned().unwrap_or_default();
        Some(
            self.retried_call(state, method, servers)
                .map(|(conn, upstream_id)| (conn, upstream_id, responses)),
        )
    }

    /// The retry now answers the call (`Servers::answer_retry`): the
    /// server's requests answered, then the held answer finishes the call,
    /// or its timer starts afresh and the requests queued meanwhile are the
    /// next round.
    pub(in crate::engine) fn retried(
        &mut self,
        conn: ConnId,
        upstream_id: u64,
        responses: &Map<String, Value>,
        servers: &Servers,
    ) -> Vec<CallOut> {
        let (mut out, queued, held) = self.retry_answers(conn, upstream_id, responses);
        // The server finished while the client was being asked (its bridge ended).
        if let Some(outcome) = held {
            out.push(CallOut::Finish(outcome));
            return out;
        }
        out.push(CallOut::Rearm);
        if !queued.is_empty() {
            out.extend(self.ask_round(conn, upstream_id, queued, servers));
        }
        out
    }

    /// The call a retry with `requestState` `state` answers (its `method`
    /// must be the call's), or why none (the client is told).
    fn retried_call(
        &mut self,
        state: &str,
        method: &str,
        servers: &Servers,
    ) -> Result<(ConnId, u64), String> {
        let found = self
            .call_awaiting(state, servers)
            .and_then(|(conn, upstream_id)| {
                let call = servers.call(conn, upstream_id)?;
                Some((conn, upstream_id, call.method()))
            });
        let Some((conn, upstream_id, original)) = found else {
            return Err(format!("Lazy MCP has no call waiting for this input any more (it timed out, or its server stopped); send {method} again without inputResponses"));
        };
        if original != method {
            return Err(format!(
                "this requestState belongs to a {original} request, not {method}"
            ));
        }
        Ok((conn, upstream_id))
    }

    /// The client's retry came with its `responses`: the answers to the
    /// server's requests it was asked (one missing is refused), the requests
    /// queued meanwhile (the next round), and the server's answer when it
    /// came first (the bridge ends with it).
    #[allow(clippy::type_complexity)]
    fn retry_answers(
        &mut self,
        conn: ConnId,
        upstream_id: u64,
        responses: &Map<String, Value>,
    ) -> (
        Vec<CallOut>,
        Vec<ServerRequest>,
        Option<Result<Value, Value>>,
    ) {
        let (asked, queued, held) = self.bridge_retried(conn, upstream_id);
        let mut answers = Vec::new();
        for (key, upstream_request) in asked {
            answers.push(CallOut::Send(match responses.get(&key) {
                Some(response) => jsonrpc::success(upstream_request, response.clone()),
                None => jsonrpc::error_response(
                    upstream_request,
                    jsonrpc::INTERNAL_ERROR,
                    "the client's answer did not include this request",
                ),
            }));
        }
        if held.is_some() {
            self.take_bridge(conn, upstream_id);
        }
        (answers, queued, held)
    }

    /// One round of the call `upstream_id` on `conn`: its requests go to the
    /// call's client as an `input_required` answer (each under a new key, the
    /// round under a new `requestState`), or are refused when the round is
    /// beyond the rounds or the waiting calls allowed; when the client lacks
    /// a capability the requests need, the call ends instead
    /// (`missing_capability`). Empty: the call is no longer on its
    /// connection, or the round is empty.
    fn ask_round(
        &mut self,
        conn: ConnId,
        upstream_id: u64,
        requests: Vec<ServerRequest>,
        servers: &Servers,
    ) -> Vec<CallOut> {
        let waiting = self.waiting_calls(servers);
        let Some(call) = servers.call(conn, upstream_id) else {
            return Vec::new();
        };
        let bridged = self.bridge(conn, upstream_id).map_or(0, Bridge::rounds);
        let (client, client_id, rounds) = (
            call.client().to_string(),
            call.client_id().clone(),
            call.input_rounds().saturating_add(bridged),
        );
        let missing = self.missing_for(&client, &client_id, &requests);
        if !missing.is_empty() {
            let (server, method) = (servers.server_of(conn), call.method());
            let asker = (client, client_id);
            let call = (conn, upstream_id);
            return self.missing_capability(server, method, call, asker, &requests, missing);
        }
        // The bounds hold for the whole round: all its requests are refused, or none.
        let refusal = if rounds >= MAX_INPUT_ROUNDS {
            Some(format!(
                "it asked for input more than {MAX_INPUT_ROUNDS} times in one call"
            ))
        } else if waiting >= MAX_WAITING_CALLS {
            Some(format!(
                "{MAX_WAITING_CALLS} calls already wait for their clients' answers"
            ))
        } else {
            None
        };
        if let Some(why) = refusal {
            let mut out = Vec::new();
            for request in &requests {
                let server = servers.server_of(conn);
                refuse(&mut out, server, request, &why, jsonrpc::INTERNAL_ERROR);
            }
            return out;
        }
        if requests.is_empty() {
            return Vec::new();
        }
        let mut asked: Vec<(String, ServerRequest)> = Vec::new();
        for request in requests {
            let key = self.next_gateway_id("lazy-mcp-");
            asked.push((key, request));
        }
        let state = self.next_gateway_id(BRIDGE_STATE_PREFIX);
        let mut input_requests = Map::new();
        // Objects built member by member: a `json!` of them cost the `.wasm` more.
        for (key, request) in &asked {
            let mut entry = Map::new();
            entry.insert("method".into(), Value::from(request.method()));
            if let Some(params) = request.params() {
                entry.insert("params".into(), params.clone());
            }
            input_requests.insert(key.clone(), Value::Object(entry));
        }
        let mut result = Map::new();
        result.insert("resultType".into(), Value::from("input_required"));
        result.insert("inputRequests".into(), Value::Object(input_requests));
        result.insert("requestState".into(), Value::from(state.as_str()));
        let result = Value::Object(result);
        let asked = asked.into_iter().map(|(key, r)| (key, r.into_id()));
        self.bridge_client_asked(conn, upstream_id, state, asked.collect());
        let line = "asked the 2026-07-28 client for the server's input request (input_required)";
        vec![
            CallOut::Log(LogLevel::Debug, line.to_string()),
            CallOut::Reply(client, jsonrpc::success(client_id, result)),
        ]
    }

    /// The server asked for input the call's 2026-07-28 client did not declare
    /// it can give: the client gets the spec's -32021 naming the capabilities,
    /// so it can send the call again declaring them; the server's requests are
    /// refused and its call (a `method` call of `server`) cancelled.
    fn missing_capability(
        &mut self,
        server: Option<&str>,
        method: &str,
        (conn, upstream_id): (ConnId, u64),
        (client, client_id): (ClientId, Value),
        requests: &[ServerRequest],
        missing: Map<String, Value>,
    ) -> Vec<CallOut> {
        self.take_bridge(conn, upstream_id);
        let mut out = vec![CallOut::EndCall];
        let names: Vec<&str> = missing.keys().map(String::as_str).collect();
        let why = format!(
            "the 2026-07-28 client whose call it came with did not declare {}",
            names.join(", ")
        );
        for request in requests {
            refuse(&mut out, server, request, &why, jsonrpc::METHOD_NOT_FOUND);
        }
        out.push(CallOut::Send(cancel_notice(upstream_id, &why)));
        let asked: Vec<&str> = requests.iter().map(ServerRequest::method).collect();
        let server = server.unwrap_or_default();
        let message = format!(
            "MCP server '{server}' needs the {} client capability to complete {method} (it sent {}); declare it in _meta clientCapabilities and send the request again",
            names.join(" and "),
            asked.join(", ")
        );
        let error = missing_capability::error(&message, Value::Object(missing));
        let outcome = Err(error);
        let answer = Message::Response {
            id: client_id,
            outcome,
        }
        .into_value();
        out.push(CallOut::Reply(client, answer));
        out
    }
}
