//! A simulated host for the lifecycle engine: scripted fake MCP servers answer the
//! engine's `send` effects, timers run on simulated time, and everything the
//! engine asked for is recorded. Every event crosses the boundary the way the
//! WASM host crosses it: client and server messages as bytes of their own
//! (`engine::wire`), every other event as JSON (`handle_json_split`), and the
//! effects come back split from their payloads (`split_payloads`) and are put
//! together again here.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use lazy_mcp_core::config::model::{
    ConfigFormat, ConfigScope, ServerConfig, SourceRef, ToolFilter, Transport,
};
use lazy_mcp_core::engine::{ConnId, Effect, Endpoint, Engine, Event, ServerState, Settings};
use lazy_mcp_core::vec_map::VecMap;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

pub mod oauth;

#[derive(Debug, Clone, PartialEq)]
pub enum Behavior {
    Normal,
    /// Never answers `initialize`.
    Hang,
    /// Exits as soon as it receives `initialize`.
    CrashOnInitialize,
    /// Exits when it receives `tools/call`.
    CrashOnCall,
    /// Never answers `tools/call`.
    CallHangs,
    /// The host cannot spawn it.
    SpawnFails,
    /// An HTTP server answering 401.
    Unauthorized,
    /// An HTTP server nothing listens for (yet): the connection opens (the
    /// host's HTTP transport connects lazily) and its first message ends it,
    /// as the host reports ECONNREFUSED.
    Unreachable,
}

/// How a fake server treats the MCP 2026-07-28 era (`server/discover`).
#[derive(Debug, Clone, PartialEq)]
pub enum EraBehavior {
    /// Legacy only: `server/discover` is "method not found" (server-everything, fastmcp).
    Legacy,
    /// Modern only: answers `server/discover`, refuses `initialize` with -32022, and
    /// answers every request without the `_meta` envelope with an error.
    /// `ttl_ms`: the `ttlMs` of its list results.
    Modern { ttl_ms: u64 },
    /// Exits when it receives `server/discover` (a legacy server strict about `initialize`).
    ExitOnDiscover,
    /// Never answers `server/discover`.
    HangOnDiscover,
    /// Answers `server/discover` with an invalid-request error.
    ErrorOnDiscover,
    /// Legacy only and strict about `initialize`: every 2026-07-28 request gets
    /// this error (Python `mcp` 1.x: -32602; the TypeScript SDK v1 over HTTP: 400
    /// "Server not initialized", as the host passes it on).
    LegacyStrict { refusal: Value },
    /// Both eras, as the official TypeScript SDK v2 with `legacy: "stateless"`:
    /// a request with the 2026-07-28 envelope is served as [`EraBehavior::Modern`],
    /// one without it (after `initialize`) as legacy. A legacy `tools/call` that
    /// would ask for input cannot (stateless legacy serving keeps no client
    /// capabilities and cannot send requests): the tool answers with an error.
    Dual { ttl_ms: u64 },
}

#[derive(Debug, Clone)]
pub struct FakeServer {
    pub era: EraBehavior,
    /// Tool calls answer with `resultType: input_required` (a modern server asking for input).
    pub asks_input: bool,
    pub behavior: Behavior,
    pub protocol_version: String,
    pub capabilities: Value,
    pub tools: Vec<Value>,
    pub prompts: Vec<Value>,
    pub resources: Vec<Value>,
    pub templates: Vec<Value>,
    pub page_size: usize,
    pub instructions: Option<String>,
    /// Methods answered with -32601 Method not found.
    pub missing_methods: Vec<String>,
    /// On the first `tools/list`: announce `list_changed` ahead of the (old) answer,
    /// then add this tool — the reordering an HTTP server's SSE stream allows.
    pub grow_on_first_list: Option<Value>,
    /// Asks the client for `roots/list` as soon as it is initialized (server-filesystem).
    pub asks_roots: bool,
    /// A legacy server that sends this request (`elicitation/create`,
    /// `sampling/createMessage`) to its client during each `tools/call`, and
    /// answers the call with the client's answer once it has it.
    pub asks_client: Option<String>,
    /// `tools/call` is answered with this error.
    pub call_error: Option<Value>,
}

impl FakeServer {
    pub fn with_tools(names: &[&str]) -> FakeServer {
        FakeServer {
            era: EraBehavior::Legacy,
            asks_input: false,
            behavior: Behavior::Normal,
            protocol_version: "2025-11-25".into(),
            capabilities: json!({"tools": {"listChanged": true}}),
            tools: names.iter().map(|n| tool(n)).collect(),
            prompts: vec![],
            resources: vec![],
            templates: vec![],
            page_size: 100,
            instructions: None,
            missing_methods: vec![],
            grow_on_first_list: None,
            asks_roots: false,
            asks_client: None,
            call_error: None,
        }
    }
}

pub fn tool(name: &str) -> Value {
    json!({
        "name": name,
        "description": format!("the {name} tool"),
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
        "annotations": {"readOnlyHint": true}
    })
}

/// `config(name)` as a remote Streamable HTTP server (nothing listens at its URL: the
/// simulated host answers for it).
pub fn http_config(name: &str) -> ServerConfig {
    let mut config = config(name);
    config.transport = Transport::Http {
        url: "http://127.0.0.1:1/mcp".into(),
        headers: VecMap::new(),
    };
    config
}

pub fn config(name: &str) -> ServerConfig {
    ServerConfig {
        name: name.into(),
        transport: Transport::Stdio {
            command: "fake-mcp-server".into(),
            args: vec![name.into()],
            env: VecMap::new(),
            cwd: None,
            env_file: None,
        },
        enabled: true,
        auto_connect: true,
        tools: ToolFilter::All,
        timeout_ms: None,
        tool_exposure: None,
        oauth: None,
        source: SourceRef {
            format: ConfigFormat::ClaudeCode,
            scope: ConfigScope::Project,
            file: "/work/project/.mcp.json".into(),
            line: 3,
            column: 5,
            workspace_folder: Some("/work/project".into()),
        },
        loaded_by_vscode: false,
        fingerprint: format!("fp-{name}-1"),
        secret_values: Vec::new(),
        read_files: Vec::new(),
    }
}

pub struct Sim {
    pub engine: Engine,
    pub now: u64,
    pub fakes: BTreeMap<String, FakeServer>,
    /// Live connections: conn → server name.
    pub live: BTreeMap<ConnId, String>,
    /// Connections opened over HTTP or SSE: the end of each reply is reported
    /// (`replyEnded`), as the host's HTTP connection does.
    pub http: BTreeSet<ConnId>,
    pub max_live: usize,
    /// The host's one timer: the deadline of the last `wakeAt`, until it fires.
    pub wake_at: Option<u64>,
    /// How many `timeout`s the host sent.
    pub timeouts: usize,
    pub queue: VecDeque<Event>,
    pub effects: Vec<Effect>,
    /// Every message the engine sent upstream: (server, message).
    pub sent: Vec<(String, Value)>,
    pub replies: Vec<(String, Value)>,
    pub notifications: Vec<(String, Value)>,
    pub persisted: Option<String>,
    /// The user's shared catalogue (`readSharedCatalogue`/`writeSharedCatalogue`):
    /// key → blob. Copy it into another `Sim` to play another client of the user.
    pub shared_catalogue: BTreeMap<String, String>,
    /// When set, answers to `readSharedCatalogue` wait here (the host is slow).
    pub hold_shared_reads: Option<Vec<Event>>,
    /// When set, `open` effects are not answered until `release_opens`.
    pub hold_opens: bool,
    pub held: Vec<ConnId>,
    /// The simulated OAuth side of the host (token store, refresh, sign-in).
    pub oauth: oauth::OAuthHost,
    /// Config files the host reads (`readFiles`): path → contents. Empty: the
    /// test answers `readFiles` itself.
    pub disk: BTreeMap<String, String>,
    /// How the MCP client's start of a definition (`startDefinition`) ends.
    pub start_answer: StartAnswer,
}

/// How the simulated MCP client (VS Code) answers `startDefinition`.
#[derive(Debug, Clone, PartialEq)]
pub enum StartAnswer {
    /// The start command resolves at once.
    Ok,
    /// It fails at once (VS Code would need user interaction).
    Fail,
    /// It has not ended yet (the test answers `definitionStarted` itself).
    Hold,
}

impl Sim {
    pub fn new(settings: Settings) -> Sim {
        Sim {
            engine: Engine::new(settings),
            now: 1_000,
            fakes: BTreeMap::new(),
            live: BTreeMap::new(),
            http: BTreeSet::new(),
            max_live: 0,
            wake_at: None,
            timeouts: 0,
            queue: VecDeque::new(),
            effects: Vec::new(),
            sent: Vec::new(),
            replies: Vec::new(),
            notifications: Vec::new(),
            persisted: None,
            shared_catalogue: BTreeMap::new(),
            hold_shared_reads: None,
            hold_opens: false,
            held: Vec::new(),
            oauth: oauth::OAuthHost::default(),
            disk: BTreeMap::new(),
            start_answer: StartAnswer::Ok,
        }
    }

    pub fn fake(mut self, name: &str, fake: FakeServer) -> Sim {
        self.fakes.insert(name.into(), fake);
        self
    }

    /// Queues an event and runs until the host has nothing left to do.
    pub fn send(&mut self, event: Event) {
        self.queue.push_back(event);
        self.run();
    }

    pub fn run(&mut self) {
        while let Some(event) = self.queue.pop_front() {
            let parts = match &event {
                Event::ClientMessage {
                    client,
                    endpoint,
                    message,
                } => self.engine.client_message_bytes(
                    self.now,
                    client,
                    endpoint_name(endpoint),
                    message.as_bytes(),
                ),
                Event::MessageReceived { conn, message } => {
                    self.engine
                        .message_received_bytes(self.now, *conn, message.as_bytes())
                }
                _ => {
                    let text = event.to_json();
                    self.engine.handle_json_split(self.now, &text)
                }
            };
            for effect in joined(parts) {
                self.perform(effect);
            }
        }
    }

    /// A client's message as raw bytes (any bytes: the production entry point
    /// reads invalid UTF-8 as U+FFFD), then runs until the host is idle.
    pub fn client_bytes(&mut self, client: &str, endpoint: &Endpoint, bytes: &[u8]) {
        let parts =
            self.engine
                .client_message_bytes(self.now, client, endpoint_name(endpoint), bytes);
        for effect in joined(parts) {
            self.perform(effect);
        }
        self.run();
    }

    /// A gateway client's POST body as the HTTP gateway hands it over
    /// (`clientPost`: `in_session`, it came with the session's id), then runs
    /// until the host is idle.
    pub fn post(&mut self, client: &str, endpoint: &Endpoint, body: &Value, in_session: bool) {
        let parts = self.engine.client_post_bytes(
            self.now,
            client,
            endpoint_name(endpoint),
            body.to_string().as_bytes(),
            None,
            in_session,
        );
        for effect in joined(parts.into_iter().skip(1).collect()) {
            self.perform(effect);
        }
        self.run();
    }

    /// What connection `conn` received, as raw bytes; then runs until idle.
    pub fn server_bytes(&mut self, conn: ConnId, bytes: &[u8]) {
        let parts = self.engine.message_received_bytes(self.now, conn, bytes);
        for effect in joined(parts) {
            self.perform(effect);
        }
        self.run();
    }

    /// Moves simulated time forward to `now + ms`, the way the host's one timer
    /// does: each time it is due, time stands at its deadline and `timeout` goes in.
    pub fn advance(&mut self, ms: u64) {
        self.advance_to(self.now + ms);
    }

    /// [`Sim::advance`] to an absolute time.
    pub fn advance_to(&mut self, target: u64) {
        while let Some(at) = self.wake_at.filter(|at| *at <= target) {
            self.now = self.now.max(at);
            self.fire_timeout();
        }
        self.now = self.now.max(target);
    }

    /// The host's timer fires now (at `self.now`, however late): `timeout`.
    pub fn fire_timeout(&mut self) {
        self.wake_at = None;
        self.timeouts += 1;
        self.send(Event::Timeout);
    }

    pub fn release_opens(&mut self) {
        self.hold_opens = false;
        for conn in std::mem::take(&mut self.held) {
            self.queue.push_back(Event::ConnectionOpened {
                conn,
                pid: Some(4000 + conn as u32),
            });
        }
        self.run();
    }

    pub fn perform(&mut self, effect: Effect) {
        self.effects.push(effect.clone());
        let Some(effect) = self.perform_oauth(effect) else {
            return;
        };
        match effect {
            Effect::Open {
                conn,
                server,
                transport,
                ..
            } => {
                if !matches!(*transport, Transport::Stdio { .. }) {
                    self.http.insert(conn);
                }
                let behavior = self.fakes.get(&server).map(|f| f.behavior.clone());
                if behavior == Some(Behavior::SpawnFails) {
                    self.queue.push_back(Event::ConnectionClosed {
                        conn,
                        reason: "spawn fake-mcp-server ENOENT".into(),
                        exit_code: None,
                        stderr_tail: None,
                    });
                    return;
                }
                self.live.insert(conn, server);
                self.max_live = self.max_live.max(self.live.len());
                if self.hold_opens {
                    self.held.push(conn);
                } else {
                    self.queue.push_back(Event::ConnectionOpened {
                        conn,
                        pid: Some(4000 + conn as u32),
                    });
                }
            }
            Effect::Send {
                conn,
                message: text,
                request_id,
                headers,
                open_event_stream,
            } => {
                let Some(server) = self.live.get(&conn).cloned() else {
                    return;
                };
                let message: Value = serde_json::from_str(&text).unwrap();
                let unreachable = self.fakes.get(&server).map(|f| &f.behavior);
                if unreachable == Some(&Behavior::Unreachable) {
                    self.live.remove(&conn);
                    self.queue.push_back(Event::ConnectionClosed {
                        conn,
                        reason: "cannot connect to http://127.0.0.1:1/mcp: ECONNREFUSED".into(),
                        exit_code: None,
                        stderr_tail: None,
                    });
                    return;
                }
                // Refused with a challenge: handed back to the engine, which holds it.
                let refused = Effect::Send {
                    conn,
                    message: text,
                    request_id,
                    headers,
                    open_event_stream,
                };
                if self.oauth_refuses(&server, &message, refused) {
                    return;
                }
                self.sent.push((server.clone(), message.clone()));
                let queued = self.queue.len();
                self.answer(conn, &server, &message);
                self.end_reply(conn, request_id, queued);
            }
            Effect::Close { conn, .. } => {
                self.live.remove(&conn);
            }
            Effect::WakeAt { at_ms } => {
                self.wake_at = Some(at_ms);
            }
            Effect::Reply {
                client,
                id,
                message,
                ..
            } => {
                let message: Value = serde_json::from_str(&message).unwrap();
                // The routing the gateway uses without parsing is the message's own id.
                assert_eq!(message.get("id"), Some(&id), "reply routed by a wrong id");
                self.replies.push((client, message));
            }
            Effect::NotifyClient {
                client,
                progress_token,
                request,
                message,
            } => {
                let message: Value = serde_json::from_str(&message).unwrap();
                let progress = message["method"] == "notifications/progress";
                let token = message
                    .pointer("/params/progressToken")
                    .filter(|_| progress);
                assert_eq!(
                    token,
                    progress_token.as_ref(),
                    "progress routed by a wrong token"
                );
                // A listen's messages are routed by the listen's id, which they carry.
                assert_eq!(
                    message.pointer("/params/_meta/io.modelcontextprotocol~1subscriptionId"),
                    request.as_deref(),
                    "a listen's message routed by a wrong request id"
                );
                self.notifications.push((client, message));
            }
            Effect::PersistCatalogue { blob } => self.persisted = Some(blob),
            Effect::ReadSharedCatalogue { server, keys } => {
                // The first key whose file exists, else the first key.
                let found = keys.iter().find(|k| self.shared_catalogue.contains_key(*k));
                let key = found.or(keys.first()).cloned().unwrap_or_default();
                let answer = Event::SharedCatalogueRead {
                    server,
                    file: format!("/shared/{key}.json"),
                    blob: self.shared_catalogue.get(&key).cloned(),
                    key,
                };
                match &mut self.hold_shared_reads {
                    Some(held) => held.push(answer),
                    None => self.queue.push_back(answer),
                }
            }
            Effect::WriteSharedCatalogue { key, blob } => {
                self.shared_catalogue.insert(key, blob);
            }
            Effect::ReadFiles { round, paths } if !self.disk.is_empty() => {
                let files = paths
                    .into_iter()
                    .map(|path| {
                        let content = self.disk.get(&path).cloned();
                        serde_json::from_value(json!({"path": path, "content": content})).unwrap()
                    })
                    .collect();
                self.queue.push_back(Event::FilesRead { round, files });
            }
            // The HTTP gateway ends the session and says so.
            Effect::CloseClient { client, .. } => {
                self.queue.push_back(Event::ClientDisconnected { client });
            }
            Effect::StartDefinition { endpoint, version } => {
                let failed = match &self.start_answer {
                    StartAnswer::Ok => false,
                    StartAnswer::Fail => true,
                    StartAnswer::Hold => return,
                };
                self.queue.push_back(Event::DefinitionStarted {
                    endpoint,
                    version,
                    failed,
                });
            }
            _ => {}
        }
    }

    fn crash(&mut self, conn: ConnId, stderr: &str) {
        self.live.remove(&conn);
        self.queue.push_back(Event::ConnectionClosed {
            conn,
            reason: "the process exited".into(),
            exit_code: Some(1),
            stderr_tail: Some(stderr.into()),
        });
    }

    /// An HTTP POST's reply ends once it carried its request's answer (queued
    /// after `queued`): the host reports it, always (`replyEnded`).
    fn end_reply(&mut self, conn: ConnId, request_id: Option<u64>, queued: usize) {
        let Some(id) = request_id.filter(|_| self.http.contains(&conn)) else {
            return;
        };
        let answered = self.queue.iter().skip(queued).any(|event| {
            matches!(event, Event::MessageReceived { conn: c, message } if *c == conn
                && serde_json::from_str::<Value>(message).is_ok_and(|m| m["id"] == id && m.get("method").is_none()))
        });
        if answered {
            self.queue.push_back(Event::ReplyEnded {
                conn,
                request_id: id,
                reason: "the reply stream from http://127.0.0.1:1/mcp ended before the response"
                    .into(),
                http_status: None,
            });
        }
    }

    pub(crate) fn respond(&mut self, conn: ConnId, message: Value) {
        self.queue.push_back(Event::MessageReceived {
            conn,
            message: message.to_string(),
        });
    }

    pub(crate) fn answer(&mut self, conn: ConnId, server: &str, message: &Value) {
        let Some(mut fake) = self.fakes.get(server).cloned() else {
            return;
        };
        if let EraBehavior::Dual { ttl_ms } = fake.era {
            let enveloped = message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"]
                == "2026-07-28";
            fake.era = if enveloped {
                EraBehavior::Modern { ttl_ms }
            } else {
                EraBehavior::Legacy
            };
            if !enveloped && fake.asks_input && message["method"] == "tools/call" {
                let text = "Cannot request input (elicitation/create): the client on this 2025-era connection did not declare the required capability";
                let result = json!({"content": [{"type": "text", "text": text}], "isError": true});
                self.respond(
                    conn,
                    json!({"jsonrpc": "2.0", "id": message["id"], "result": result}),
                );
                return;
            }
        }
        let Some(method) = message.get("method").and_then(Value::as_str) else {
            // A response to one of our requests: the answer a call waits for.
            let asked = message["id"]
                .as_str()
                .and_then(|id| id.strip_prefix("ask-"));
            if let Some(call_id) = asked {
                let answer = match (&message["result"], &message["error"]) {
                    (result, Value::Null) => format!("answered {result}"),
                    (_, error) => format!("refused: {}", error["message"].as_str().unwrap_or("")),
                };
                let call_id: Value = serde_json::from_str(call_id).unwrap();
                self.respond(conn, json!({"jsonrpc": "2.0", "id": call_id, "result": {"content": [{"type": "text", "text": answer}]}}));
            }
            return;
        };
        if method == "notifications/initialized" && fake.asks_roots {
            self.respond(
                conn,
                json!({"jsonrpc": "2.0", "id": "roots-1", "method": "roots/list"}),
            );
        }
        let Some(id) = message.get("id").cloned() else {
            return; // a notification
        };
        let params = message.get("params").cloned().unwrap_or(json!({}));
        let page = |items: &Vec<Value>, field: &str| {
            let start: usize = params
                .get("cursor")
                .and_then(Value::as_str)
                .map(|c| c.parse().unwrap())
                .unwrap_or(0);
            let end = (start + fake.page_size).min(items.len());
            let mut result = json!({ field: items[start..end].to_vec() });
            if end < items.len() {
                result["nextCursor"] = json!(end.to_string());
            }
            result
        };
        let method = if fake.missing_methods.iter().any(|m| m == method) {
            "-missing-"
        } else {
            method
        };
        let error = |code: i64, text: &str| json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": text}});
        let modern = matches!(fake.era, EraBehavior::Modern { .. });
        match (&fake.era, method) {
            (EraBehavior::Modern { .. }, "initialize") => {
                let refusal = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32022, "message": "Unsupported protocol version", "data": {"supported": ["2026-07-28"]}}});
                self.respond(conn, refusal);
                return;
            }
            (EraBehavior::Modern { .. }, _)
                if params["_meta"]["io.modelcontextprotocol/protocolVersion"] != "2026-07-28" =>
            {
                self.respond(conn, error(-32600, "missing the _meta envelope"));
                return;
            }
            (EraBehavior::Modern { .. }, "server/discover") => {
                let result = json!({
                    "supportedVersions": ["2026-07-28"],
                    "capabilities": fake.capabilities,
                    "ttlMs": 0, "cacheScope": "private", "resultType": "complete",
                    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": format!("fake-{server}"), "version": "2.0.0"}}
                });
                self.respond(conn, json!({"jsonrpc": "2.0", "id": id, "result": result}));
                return;
            }
            (EraBehavior::LegacyStrict { refusal }, _)
                if params["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28" =>
            {
                self.respond(conn, json!({"jsonrpc": "2.0", "id": id, "error": refusal}));
                return;
            }
            (EraBehavior::ExitOnDiscover, "server/discover") => {
                self.crash(conn, "Error: received a request before initialize");
                return;
            }
            (EraBehavior::HangOnDiscover, "server/discover") => return,
            (EraBehavior::ErrorOnDiscover, "server/discover") => {
                self.respond(conn, error(-32600, "Invalid request: not initialized"));
                return;
            }
            (EraBehavior::Modern { .. }, "tools/call")
                if fake.asks_input && params.get("inputResponses").is_some() =>
            {
                let text = format!(
                    "answers {} state {}",
                    params["inputResponses"], params["requestState"]
                );
                self.respond(conn, json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}]}}));
                return;
            }
            (EraBehavior::Modern { .. }, "tools/call") if fake.asks_input && fake.asks_roots => {
                let result = json!({"resultType": "input_required", "inputRequests": {
                    "r": {"method": "roots/list"},
                    "q": {"method": "elicitation/create", "params": {"message": "Which?", "requestedSchema": {"type": "object", "properties": {}}}}
                }, "requestState": "state-1"});
                self.respond(conn, json!({"jsonrpc": "2.0", "id": id, "result": result}));
                return;
            }
            (EraBehavior::Modern { .. }, "tools/call")
                if fake.asks_roots && params.get("inputResponses").is_none() =>
            {
                let result = json!({"resultType": "input_required", "inputRequests": {"r": {"method": "roots/list"}}, "requestState": "state-1"});
                self.respond(conn, json!({"jsonrpc": "2.0", "id": id, "result": result}));
                return;
            }
            (EraBehavior::Modern { .. }, "tools/call") if fake.asks_roots => {
                let text = format!(
                    "roots {} state {}",
                    params["inputResponses"]["r"]["roots"], params["requestState"]
                );
                self.respond(conn, json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}]}}));
                return;
            }
            (EraBehavior::Modern { .. }, "tools/call") if fake.asks_input => {
                let result = json!({"resultType": "input_required", "inputRequests": {"q": {"method": "elicitation/create", "params": {"message": "Which?", "requestedSchema": {"type": "object", "properties": {}}}}}});
                self.respond(conn, json!({"jsonrpc": "2.0", "id": id, "result": result}));
                return;
            }
            (EraBehavior::Modern { .. }, "subscriptions/listen") => return,
            _ => {}
        }
        let result = match method {
            "initialize" => match fake.behavior {
                Behavior::Hang => return,
                Behavior::CrashOnInitialize => {
                    self.crash(conn, "Error: cannot find module 'x'");
                    return;
                }
                Behavior::Unauthorized => {
                    self.queue
                        .push_back(Event::HttpStatus { conn, status: 401 });
                    return;
                }
                _ => {
                    let mut result = json!({
                        "protocolVersion": fake.protocol_version,
                        "capabilities": fake.capabilities,
                        "serverInfo": {"name": format!("fake-{server}"), "version": "1.2.3"},
                    });
                    if let Some(instructions) = &fake.instructions {
                        result["instructions"] = json!(instructions);
                    }
                    result
                }
            },
            "tools/list" => {
                let result = page(&fake.tools, "tools");
                if let Some(grown) = fake.grow_on_first_list.clone() {
                    self.respond(
                        conn,
                        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
                    );
                    let fake = self.fakes.get_mut(server).unwrap();
                    fake.tools.push(grown);
                    fake.grow_on_first_list = None;
                }
                result
            }
            "prompts/list" => page(&fake.prompts, "prompts"),
            "resources/list" => page(&fake.resources, "resources"),
            "resources/templates/list" => page(&fake.templates, "resourceTemplates"),
            "tools/call" if fake.call_error.is_some() => {
                self.respond(
                    conn,
                    json!({"jsonrpc": "2.0", "id": id, "error": fake.call_error}),
                );
                return;
            }
            "tools/call" if fake.asks_client.is_some() => {
                let asked = fake.asks_client.clone().unwrap();
                let params = json!({"message": "Sure?", "requestedSchema": {"type": "object", "properties": {}}});
                self.respond(conn, json!({"jsonrpc": "2.0", "id": format!("ask-{id}"), "method": asked, "params": params}));
                return;
            }
            "tools/call" => match fake.behavior {
                Behavior::CrashOnCall => {
                    self.crash(conn, "panic: tool crashed");
                    return;
                }
                Behavior::CallHangs => return,
                _ => json!({"content": [{"type": "text", "text": format!(
                    "{server}:{}:{}",
                    params["name"].as_str().unwrap_or(""),
                    params.get("arguments").map(|a| a.to_string()).unwrap_or_default()
                )}]}),
            },
            "prompts/get" => {
                json!({"messages": [{"role": "user", "content": {"type": "text", "text": format!("{server}:{}", params["name"])}}]})
            }
            "resources/subscribe" | "resources/unsubscribe" => json!({}),
            "resources/read" => {
                json!({"contents": [{"uri": params["uri"], "text": format!("{server} content")}]})
            }
            _ => {
                self.respond(conn, json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}}));
                return;
            }
        };
        let mut result = result;
        if let (EraBehavior::Modern { ttl_ms }, true) = (&fake.era, method.ends_with("/list")) {
            result["ttlMs"] = json!(ttl_ms);
            result["cacheScope"] = json!("private");
        }
        let _ = modern;
        self.respond(conn, json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }

    // ---- convenience for tests -------------------------------------------------

    /// Manages `servers` as is (`Engine::apply_servers`: no config files, no
    /// host policy), then runs until the host is idle.
    pub fn apply(&mut self, servers: Vec<ServerConfig>) {
        for effect in self.engine.apply_servers(self.now, servers) {
            self.perform(effect);
        }
        self.run();
    }

    pub fn client(&mut self, client: &str, endpoint: Endpoint, message: Value) {
        self.send(Event::ClientMessage {
            client: client.into(),
            endpoint,
            message: message.to_string(),
        });
    }

    /// Queues a client message without running (to make concurrent arrivals).
    pub fn client_queued(&mut self, client: &str, endpoint: Endpoint, message: Value) {
        self.queue.push_back(Event::ClientMessage {
            client: client.into(),
            endpoint,
            message: message.to_string(),
        });
    }

    pub fn reply_to(&self, client: &str, id: Value) -> Option<Value> {
        self.replies
            .iter()
            .rev()
            .find(|(c, m)| c == client && m["id"] == id)
            .map(|(_, m)| m.clone())
    }

    /// The `httpStatus` the engine gave its last answer to request `id` of `client`.
    pub fn answer_status(&self, client: &str, id: u64) -> Option<u16> {
        self.effects
            .iter()
            .rev()
            .find_map(|e| match e {
                Effect::Reply {
                    client: c,
                    id: i,
                    http_status,
                    ..
                } if c == client && *i == serde_json::json!(id) => Some(*http_status),
                _ => None,
            })
            .unwrap()
    }

    pub fn opens(&self) -> usize {
        self.effects
            .iter()
            .filter(|e| matches!(e, Effect::Open { .. }))
            .count()
    }

    pub fn opens_of(&self, server: &str) -> usize {
        self.conns_opened(server).len()
    }

    /// The connections opened for `server`, in the order they were opened.
    pub fn conns_opened(&self, server: &str) -> Vec<ConnId> {
        self.effects
            .iter()
            .filter_map(|e| match e {
                Effect::Open {
                    conn, server: s, ..
                } if s == server => Some(*conn),
                _ => None,
            })
            .collect()
    }

    /// The last message with this method sent to any server.
    pub fn last_sent(&self, method: &str) -> Value {
        self.sent
            .iter()
            .rfind(|(_, m)| m["method"] == method)
            .map(|(_, m)| m.clone())
            .unwrap_or_else(|| panic!("no {method} was sent"))
    }

    pub fn sent_method(&self, server: &str, method: &str) -> usize {
        self.sent
            .iter()
            .filter(|(s, m)| s == server && m["method"] == method)
            .count()
    }

    pub fn state(&self, server: &str) -> Option<ServerState> {
        self.engine.state(server).cloned()
    }

    pub fn conn_of(&self, server: &str) -> Option<ConnId> {
        self.live
            .iter()
            .find(|(_, s)| s.as_str() == server)
            .map(|(c, _)| *c)
    }

    pub fn logs(&self) -> Vec<String> {
        self.effects
            .iter()
            .filter_map(|e| match e {
                Effect::Log { message, .. } => Some(message.clone()),
                _ => None,
            })
            .collect()
    }
}

/// The WASM facade's `endpoint` argument: a server's name, `None` for the aggregate.
pub fn endpoint_name(endpoint: &Endpoint) -> Option<String> {
    match endpoint {
        Endpoint::Server { name } => Some(name.clone()),
        Endpoint::Aggregate => None,
    }
}

/// `[effectsJson, ...payloads]` (what the WASM host receives) put back together:
/// each `send`, `reply` and `notifyClient` gets its payload, in order, and there
/// is exactly one payload for each of them.
pub fn joined(parts: Vec<String>) -> Vec<Effect> {
    let mut parts = parts.into_iter();
    let json = parts.next().expect("the effects' JSON comes first");
    let mut effects: Vec<Effect> = serde_json::from_str(&json)
        .unwrap_or_else(|e| panic!("effects JSON does not parse: {e}: {json}"));
    for effect in &mut effects {
        if let Effect::Send { message, .. }
        | Effect::Reply { message, .. }
        | Effect::NotifyClient { message, .. } = effect
        {
            assert!(
                message.is_empty(),
                "a payload left inside the effects' JSON"
            );
            *message = parts
                .next()
                .expect("one payload per send, reply and notifyClient");
        }
    }
    assert!(parts.next().is_none(), "a payload without its effect");
    effects
}

pub fn server_endpoint(name: &str) -> Endpoint {
    Endpoint::Server { name: name.into() }
}

pub fn call(id: u64, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": {"text": "hi"}}})
}

pub fn request(id: u64, method: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method})
}

/// A compact part of the hot path's crossings (`engine::wire`'s `*_compact`
/// forms) read back as the JSON it stands for: the effects (`#`, then per
/// effect `s<conn>` and the request id, or `r<client>` and the id), each with
/// an empty `message`, as the effects' JSON has them. Any other part is JSON.
pub fn compact_effects_value(part: &str) -> Value {
    let Some(rest) = part.strip_prefix('#') else {
        return serde_json::from_str(part).unwrap();
    };
    let fields: Vec<&str> = rest.split('\u{1f}').collect();
    assert!(
        fields.len().is_multiple_of(2),
        "two fields per effect: {part:?}"
    );
    let effects = fields.chunks(2).map(|pair| {
        let (head, second) = (pair[0], pair[1]);
        match head.split_at(1) {
            ("s", conn) => {
                let mut send =
                    json!({"type": "send", "conn": conn.parse::<u64>().unwrap(), "message": ""});
                if !second.is_empty() {
                    send["requestId"] = json!(second.parse::<u64>().unwrap());
                }
                send
            }
            ("r", client) => {
                json!({"type": "reply", "client": client, "id": compact_id(second), "message": ""})
            }
            _ => panic!("not a compact effect: {part:?}"),
        }
    });
    Value::from(effects.collect::<Vec<_>>())
}

/// A POST's routing part read back as the `ClientBody` JSON it stands for
/// (less the message's `method`, which the compact form leaves out). Any other
/// part is JSON.
pub fn compact_routing_value(part: &str) -> Value {
    let Some(rest) = part.strip_prefix('#') else {
        return serde_json::from_str(part).unwrap();
    };
    let bits = rest.as_bytes()[0] - b'@';
    assert!(bits < 32, "routing bits: {part:?}");
    let mut fields = rest[1..].split('\u{1f}');
    let mut message =
        json!({"expectsReply": bits & 1 != 0, "id": compact_id(fields.next().unwrap())});
    if bits & 16 != 0 {
        message["progressToken"] = compact_id(fields.next().unwrap());
    }
    assert!(fields.next().is_none(), "routing fields: {part:?}");
    if bits & 2 != 0 {
        message["sessionless"] = json!(true);
    }
    json!({"batch": false, "messages": [message], "opensSession": bits & 4 != 0, "sessionless": bits & 8 != 0})
}

fn compact_id(field: &str) -> Value {
    match field.split_at(1) {
        ("n", digits) => json!(digits.parse::<u64>().unwrap()),
        ("s", text) => json!(text),
        ("z", "") => Value::Null,
        _ => panic!("not a compact id: {field:?}"),
    }
}
