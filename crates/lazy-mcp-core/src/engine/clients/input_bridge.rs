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

use crate::engine::clients::gateway::cancel_notice;
use crate::engine::clients::Clients;
use crate::engine::effects::LogLevel;
use crate::engine::events::ConnId;
use crate::engine::router::Engine;
use crate::engine::server::input_required::MAX_INPUT_ROUNDS;
use crate::engine::server::Servers;
use crate::protocol::jsonrpc::{self, Message};
use crate::protocol::missing_capability;
use crate::protocol::params::Params;
use bridge::{Bridge, ServerRequest};
use serde_json::{json, Map, Value};

/// Marks a `requestState` that names a call waiting for its client's answers.
const BRIDGE_STATE_PREFIX: &str = "lazy-mcp-input:";

/// Calls waiting for their client's retry at once, over all servers: each holds
/// a server's request open until its request timer fires.
const MAX_WAITING_CALLS: usize = 64;

/// Server requests kept for the next round of one call (they came while the
/// client was being asked).
const MAX_QUEUED: usize = 8;

pub(in crate::engine) mod bridge;
pub(in crate::engine) mod bridges;

/// What a round of asking a call's client for input comes to (`ask_round`),
/// for the router to carry out.
enum Round {
    /// Nothing to do: the call is no longer on its connection, or the round is empty.
    Gone,
    /// The client lacks capabilities the requests need: the call ends.
    Missing(Vec<ServerRequest>, Map<String, Value>),
    /// The round is over a bound (the rounds of one call, the calls that
    /// wait): its requests are refused, with why.
    Refused(Vec<ServerRequest>, String),
    /// The client and its `input_required` answer.
    Asked(String, Value),
}

impl Clients {
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
        if let Some(bridge) = self.bridge_mut(conn, upstream_id) {
            bridge.answer_held(outcome);
        }
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
    /// already. None: the call had no bridge.
    pub(in crate::engine) fn abandon_bridge(
        &mut self,
        conn: ConnId,
        upstream_id: u64,
    ) -> Option<Vec<Value>> {
        let bridge = self.take_bridge(conn, upstream_id)?;
        let why = "the client did not answer in time";
        let (requests, held) = bridge.abandoned();
        let mut upstream: Vec<Value> = requests
            .into_iter()
            .map(|id| jsonrpc::error_response(id, jsonrpc::INTERNAL_ERROR, why))
            .collect();
        if !held {
            upstream.push(cancel_notice(upstream_id, why));
        }
        Some(upstream)
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

    /// A server's request that came while the call's client is being asked:
    /// kept for the next round, or handed back refused (too many at once).
    fn queue_request(
        &mut self,
        conn: ConnId,
        upstream_id: u64,
        request: ServerRequest,
    ) -> Option<ServerRequest> {
        match self.bridge_mut(conn, upstream_id) {
            Some(bridge) => bridge.queue(request, MAX_QUEUED),
            None => Some(request),
        }
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
    ) -> (Vec<Value>, Vec<ServerRequest>, Option<Result<Value, Value>>) {
        let (asked, queued, held) = match self.bridge_mut(conn, upstream_id) {
            Some(bridge) => bridge.retried(),
            None => Default::default(),
        };
        let mut answers = Vec::new();
        for (key, upstream_request) in asked {
            answers.push(match responses.get(&key) {
                Some(response) => jsonrpc::success(upstream_request, response.clone()),
                None => jsonrpc::error_response(
                    upstream_request,
                    jsonrpc::INTERNAL_ERROR,
                    "the client's answer did not include this request",
                ),
            });
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
    /// a capability the requests need, the call is to end instead.
    fn ask_round(
        &mut self,
        conn: ConnId,
        upstream_id: u64,
        requests: Vec<ServerRequest>,
        servers: &Servers,
    ) -> Round {
        let waiting = self.waiting_calls(servers);
        let Some(call) = servers.call(conn, upstream_id) else {
            return Round::Gone;
        };
        let bridged = self.bridge(conn, upstream_id).map_or(0, Bridge::rounds);
        let (client, client_id, rounds) = (
            call.client().to_string(),
            call.client_id().clone(),
            call.input_rounds().saturating_add(bridged),
        );
        let missing = self.missing_for(&client, &client_id, &requests);
        if !missing.is_empty() {
            return Round::Missing(requests, missing);
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
            return Round::Refused(requests, why);
        }
        if requests.is_empty() {
            return Round::Gone;
        }
        let mut asked: Vec<(String, ServerRequest)> = Vec::new();
        for request in requests {
            let key = self.next_gateway_id("lazy-mcp-");
            asked.push((key, request));
        }
        let state = self.next_gateway_id(BRIDGE_STATE_PREFIX);
        let mut input_requests = Map::new();
        for (key, request) in &asked {
            let mut entry = json!({ "method": request.method() });
            if let (Some(params), Some(object)) = (request.params(), entry.as_object_mut()) {
                object.insert("params".into(), params.clone());
            }
            input_requests.insert(key.clone(), entry);
        }
        let result = json!({
            "resultType": "input_required",
            "inputRequests": Value::Object(input_requests),
            "requestState": state,
        });
        if let Some(bridge) = self.bridge_mut(conn, upstream_id) {
            let asked = asked.into_iter().map(|(key, r)| (key, r.into_id()));
            bridge.client_asked(state, asked.collect());
        }
        Round::Asked(client, jsonrpc::success(client_id, result))
    }
}

impl Engine {
    /// A server's request for input on `conn`, when a modern client's call is
    /// pending there: bridged, queued or refused. False when no such call is
    /// pending (legacy forwarding applies).
    pub(in crate::engine) fn bridge_server_request(
        &mut self,
        conn: ConnId,
        id: &Value,
        method: &str,
        params: Option<&Value>,
    ) -> bool {
        let Some((upstream_id, waits)) = self.clients.bridged_call(conn, &self.servers) else {
            return false;
        };
        let request = ServerRequest::new(id.clone(), method.to_string(), params.cloned());
        if waits {
            if let Some(request) = self.clients.queue_request(conn, upstream_id, request) {
                let why = format!("more than {MAX_QUEUED} requests for input came at once");
                self.refuse_server_request(conn, &request, &why, jsonrpc::INTERNAL_ERROR);
            }
            return true;
        }
        self.ask_client(conn, upstream_id, vec![request]);
        true
    }

    /// One round (`Clients::ask_round`): the refusals go to the server, then
    /// the call's client is asked; or the call ends for a missing capability.
    fn ask_client(&mut self, conn: ConnId, upstream_id: u64, requests: Vec<ServerRequest>) {
        let round = (self.clients).ask_round(conn, upstream_id, requests, &self.servers);
        match round {
            Round::Gone => {}
            Round::Missing(requests, missing) => {
                self.end_call_missing_capability(conn, upstream_id, &requests, missing)
            }
            Round::Refused(requests, why) => {
                for request in &requests {
                    self.refuse_server_request(conn, request, &why, jsonrpc::INTERNAL_ERROR);
                }
            }
            Round::Asked(client, answer) => {
                let name = self.servers.server_of(conn).map(str::to_string);
                self.log(
                    LogLevel::Debug,
                    name.as_deref(),
                    "asked the 2026-07-28 client for the server's input request (input_required)"
                        .to_string(),
                );
                self.reply(&client, answer);
            }
        }
    }

    /// A client request carrying a `requestState` of a waiting call: the server's
    /// requests are answered and the retry waits for the call's result. False
    /// when the request is not such a retry.
    pub(in crate::engine) fn take_bridged_retry(
        &mut self,
        client: &str,
        id: &Value,
        method: &str,
        params: Option<&Value>,
    ) -> bool {
        let retry = Params::read(params);
        let Some(state) = retry
            .request_state
            .filter(|s| s.starts_with(BRIDGE_STATE_PREFIX))
        else {
            return false;
        };
        let (conn, upstream_id) = match self.clients.retried_call(state, method, &self.servers) {
            Ok(call) => call,
            Err(why) => {
                self.reply_error(client, id.clone(), jsonrpc::INVALID_PARAMS, &why);
                return true;
            }
        };
        let responses = retry.input_responses.cloned().unwrap_or_default();
        let timeout = self
            .servers
            .server_of(conn)
            .map(|name| self.request_timeout_ms(name))
            .unwrap_or_default();
        let Some(timer) = self.servers.answer_retry(conn, upstream_id, client, id) else {
            return true;
        };
        let (answers, queued, held) = self.clients.retry_answers(conn, upstream_id, &responses);
        for answer in answers {
            self.send_upstream(conn, answer);
        }
        if let Some(outcome) = held {
            // The server finished while the client was being asked (its bridge ended).
            if let Some(call) = self.servers.take_call(conn, upstream_id) {
                self.finish_call(conn, *call, |client_id| {
                    let id = client_id.clone();
                    Message::Response { id, outcome }.into_value().to_string()
                });
            }
            return true;
        }
        self.timers
            .handle_rearm(timer, self.now_ms.saturating_add(timeout));
        if !queued.is_empty() {
            self.ask_client(conn, upstream_id, queued);
        }
        true
    }

    /// The server asked for input the call's 2026-07-28 client did not declare
    /// it can give: the client gets the spec's -32021 naming the capabilities,
    /// so it can send the call again declaring them; the server's requests are
    /// refused and its call cancelled (its client is answered).
    fn end_call_missing_capability(
        &mut self,
        conn: ConnId,
        upstream_id: u64,
        requests: &[ServerRequest],
        missing: Map<String, Value>,
    ) {
        let Some(call) = self.servers.take_call(conn, upstream_id) else {
            return;
        };
        self.clients.take_bridge(conn, upstream_id);
        self.timers.cancel_armed(Some(call.timer()));
        let names: Vec<&str> = missing.keys().map(String::as_str).collect();
        let why = format!(
            "the 2026-07-28 client whose call it came with did not declare {}",
            names.join(", ")
        );
        for request in requests {
            self.refuse_server_request(conn, request, &why, jsonrpc::METHOD_NOT_FOUND);
        }
        self.send_upstream(conn, cancel_notice(upstream_id, &why));
        let server = self
            .servers
            .server_of(conn)
            .map(str::to_string)
            .unwrap_or_default();
        let asked: Vec<&str> = requests.iter().map(ServerRequest::method).collect();
        let message = format!(
            "MCP server '{server}' needs the {} client capability to complete {} (it sent {}); declare it in _meta clientCapabilities and send the request again",
            names.join(" and "),
            call.method(),
            asked.join(", ")
        );
        let error = missing_capability::error(&message, Value::Object(missing));
        let (client, client_id) = call.into_reply_target();
        let answer = json!({"jsonrpc": "2.0", "id": client_id, "error": error});
        self.reply(&client, answer);
    }

    fn refuse_server_request(
        &mut self,
        conn: ConnId,
        request: &ServerRequest,
        why: &str,
        code: i64,
    ) {
        let name = self.servers.server_of(conn).map(str::to_string);
        let refusal = format!(
            "Lazy MCP refused {} from MCP server '{}': {why}",
            request.method(),
            name.as_deref().unwrap_or("?")
        );
        self.log(LogLevel::Warn, name.as_deref(), refusal.clone());
        self.send_upstream(
            conn,
            jsonrpc::error_response(request.id().clone(), code, &refusal),
        );
    }
}
