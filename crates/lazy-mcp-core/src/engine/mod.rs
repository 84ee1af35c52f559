//! Lifecycle engine: a sans-IO state machine driven by events, answering with effects.
//!
//! `Engine::handle(now_ms, event) -> Vec<Effect>` is the whole interface: no I/O, no
//! clock (time is passed in), no threads, deterministic. The host performs effects
//! and reports back with events (`open` → `connectionOpened`/`connectionClosed`,
//! `send` → `messageReceived`, `setTimer` → `timerFired`, …). The WASM host uses
//! `wire` for client and server messages (bytes in, `[effectsJson, ...payloads]`
//! out) and `handle_json_split` for every other event; `handle_json` is the same
//! with JSON strings throughout.
//!
//! Files, by what they own:
//! - the contract: `events`, `effects`, `settings`, `wire` (the hot path's entry
//!   points), `diagnostics_snapshot` (the snapshot), `server_actions` (what each
//!   state lets a user do);
//! - state: `state` (the one enum, the one transition function), `timers` (the
//!   one timer table and `on_timer`), `backoff`, `announce` (what the user is told);
//! - config: `config_load` (a load's file rounds as effects), `config_diff`
//!   (applying a server list), `catalogue` (the persisted blob),
//!   `catalogue_loading` (it read back at start), `user_commands` (Enable,
//!   Disable, Connect Now, Disconnect, Refresh);
//! - upstream: `connect` (cataloguing queue, opening, handshake, single-flight
//!   `ensure_connected`, forwarding), `era` (probing a server's protocol era),
//!   `listing` (lists with pagination into the catalogue), `upstream` (what
//!   servers send; batches split here), `connection_end` (idle, stop, crash,
//!   timeout: what state each leaves), `auth` (OAuth decisions), `roots`,
//!   `secret_text` (masking a server's secret values);
//! - clients: `gateway` (messages from clients), `raw_forwarding` (the hot path:
//!   a `tools/call` and its answer spliced as bytes), `modern_clients` and
//!   `client_listens` (MCP 2026-07-28 clients), `exposure` (what clients see,
//!   endpoint versions, `list_changed`), `tool_exposure` and `tool_calls` (the
//!   tool index and its meta-tools), `aggregate_names`, `stable_hash`;
//! - trust: `project_approvals` (project servers waiting for approval: the
//!   snapshot's list, one announcement, calls refused with how to approve).
//! - trust: `held_definitions` (listings compared with the approved baseline,
//!   changed definitions held), `approved_definitions` (the shared baselines
//!   file, per-item hashes), `definition_review` (diff text and warnings).

pub mod aggregate_names;
mod announce;
pub mod approved_definitions;
pub mod auth;
pub mod backoff;
pub mod catalogue;
mod catalogue_loading;
mod client_listens;
mod config_diff;
mod config_load;
mod connect;
mod connection_end;
pub mod definition_review;
pub mod diagnostics_snapshot;
pub mod effects;
mod era;
mod event_json;
pub mod events;
mod exposure;
mod gateway;
pub mod held_definitions;
mod input_bridge;
mod input_required;
mod listing;
mod modern_clients;
mod project_approvals;
mod raw_forwarding;
mod resource_subscriptions;
pub mod roots;
mod secret_text;
pub mod server_actions;
pub mod settings;
mod stable_hash;
pub mod state;
mod timers;
use timers::TimerPurpose;
mod tool_calls;
mod tool_exposure;
mod tool_vectors;
mod upstream;
mod user_commands;
pub mod wire;

pub use diagnostics_snapshot::DiagnosticsSnapshot;
pub use effects::{AnnounceAction, Effect, EndpointInfo, LogLevel};
pub use events::{ClientId, ConnId, Endpoint, Event, TimerId};
pub use settings::{AggregateEndpoint, Root, Settings};
pub use state::ServerState;

use crate::config::model::ServerConfig;
use crate::protocol::client_discover::{CacheHint, Era};
use crate::protocol::client_handshake::{InitializeOutcome, ListKind};
use crate::protocol::jsonrpc;
use backoff::CrashHistory;
use catalogue::{Catalogue, CatalogueEntry};
use serde_json::Value;
use state::{next_state, Trigger};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// The lifecycle engine. See the module documentation.
#[derive(Debug)]
pub struct Engine {
    settings: Settings,
    servers: BTreeMap<String, Server>,
    catalogue: Catalogue,
    conns: BTreeMap<ConnId, Connection>,
    timers: BTreeMap<TimerId, TimerPurpose>,
    clients: BTreeMap<ClientId, ClientSession>,
    catalogue_queue: VecDeque<String>,
    /// Server-to-client requests forwarded to a client, by the id the gateway gave them.
    outbound: BTreeMap<String, OutboundRequest>,
    next_conn: ConnId,
    next_timer: TimerId,
    next_outbound: u64,
    effects: Vec<Effect>,
    /// Set when the catalogue changed; one `persistCatalogue` per event at most.
    catalogue_dirty: bool,
    /// What clients are shown and what they loaded (`exposure.rs`, `tool_exposure.rs`).
    exposure: exposure::Exposure,
    /// What the user was told, and what they wait to hear about (`announce.rs`).
    announce: announce::Announcements,
    sign_in_announcements: auth::SignInAnnouncements,
    now_ms: u64,
    /// The config files' contents and last good versions (`config::load`).
    config_load: crate::config::load::ConfigLoad,
    /// Configured servers the host policy leaves out, from the last config load:
    /// the snapshot lists and counts them (the summary adds up to all configured).
    unmanaged: Vec<crate::host_policy::Unmanaged>,
    /// Project servers waiting for the user's approval (`project_approvals.rs`).
    awaiting_approval: project_approvals::AwaitingApproval,
    /// Approved definitions and what is held (`held_definitions.rs`).
    pins: held_definitions::Pins,
    /// The static embedding model for hybrid tool search, once the host loaded it.
    embedding: Option<std::sync::Arc<crate::tool_index::EmbeddingModel>>,
    /// Set when tool vectors may be missing or stale (`tool_vectors.rs`).
    tool_vectors_pending: bool,
}

#[derive(Debug)]
struct Server {
    config: ServerConfig,
    state: ServerState,
    /// When the server entered its current state.
    state_since_ms: u64,
    /// Session-only Enable/Disable from the user (never written to config).
    session_enabled: Option<bool>,
    conn: Option<ConnId>,
    /// Calls waiting for the single in-flight connect.
    waiters: Vec<QueuedCall>,
    crashes: CrashHistory,
    retry_timer: Option<TimerId>,
    /// The cataloguing under way (PENDING/CATALOGUING) is an automatic retry:
    /// hosts show no progress for it. Any other trigger than the retry's own ends it.
    background: bool,
    idle_timer: Option<TimerId>,
    last_activity_ms: u64,
    stats: ServerStats,
    /// Ask the server's era again at its next connection (refresh, or an answer
    /// saying the era changed) instead of trusting the catalogue's verdict.
    reprobe: bool,
    /// The era probe of a stdio server got no answer in this run (it timed out,
    /// or the process ended on it): later attempts (retries) go straight to
    /// `initialize`, so a broken server is not spawned twice per attempt. A
    /// refresh or a config change (a new runtime) probes again. Never set for
    /// HTTP: a probe costs no process there, and an HTTP server that was not
    /// reachable yet must still be probed once it is.
    probe_unanswered: bool,
    /// Subscribed resources by URI: who wants `resources/updated` (legacy
    /// clients' `resources/subscribe`, modern clients' listens;
    /// `resource_subscriptions.rs`). Subscribed again after a reconnect; a
    /// server with subscriptions is never idle.
    subscriptions: BTreeMap<String, BTreeSet<resource_subscriptions::Subscriber>>,
    /// Sign-in and refresh under way, and why sign-in is needed (`auth.rs`).
    auth: auth::ServerAuth,
}

#[derive(Debug, Default)]
struct ServerStats {
    pid: Option<u32>,
    rss_bytes: Option<u64>,
    connect_latency_ms: Option<u64>,
    connected_at_ms: Option<u64>,
    calls_served: u64,
    last_error: Option<String>,
    dropped_declared_tools: Vec<String>,
}

/// A client request waiting for its server to connect (already rewritten for upstream).
#[derive(Debug, Clone)]
struct QueuedCall {
    client: ClientId,
    client_id: Value,
    method: String,
    params: CallParams,
    /// Sent again after its server's era changed under it (once only, `era.rs`).
    era_retried: bool,
}

/// A call's params: read (when the engine had to look inside or rewrite them), or
/// the client's own bytes, forwarded as they came (`raw_forwarding.rs`).
#[derive(Debug, Clone)]
enum CallParams {
    Parsed(Option<Value>),
    Raw {
        text: Box<serde_json::value::RawValue>,
        progress_token: Option<Value>,
        /// The tool (`params.name`), read once by the raw reading.
        tool: Box<str>,
    },
}

impl CallParams {
    /// `params.name` (a `tools/call`'s tool), in either form.
    fn name(&self) -> Option<String> {
        match self {
            CallParams::Parsed(params) => {
                params.as_ref()?.get("name")?.as_str().map(str::to_string)
            }
            CallParams::Raw { tool, .. } => Some(tool.to_string()),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Purpose {
    /// Learn the lists, then close (unless calls arrived meanwhile).
    Catalogue,
    /// Stay connected and forward calls.
    Connect,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// `open` sent, waiting for `connectionOpened`.
    Opening,
    /// `server/discover` sent: which era does the server speak?
    Probing,
    /// `initialize` sent.
    Initializing,
    /// Initialized: lists and calls may flow.
    Ready,
}

#[derive(Debug)]
struct Connection {
    server: String,
    purpose: Purpose,
    phase: Phase,
    opened_at_ms: u64,
    next_id: u64,
    pending: BTreeMap<u64, Pending>,
    /// Lists completed in the current listing round, and those still outstanding.
    listed: BTreeMap<ListKind, Vec<Value>>,
    listing: BTreeSet<ListKind>,
    /// Kinds announced as changed while being listed: listed again after this round.
    relist: BTreeSet<ListKind>,
    handshake_timer: Option<TimerId>,
    init: Option<InitializeOutcome>,
    /// Calls are forwarded (the server is CONNECTED on this connection).
    live: bool,
    /// When the server asked for `roots/list` before calls flowed.
    roots_asked_at_ms: Option<u64>,
    /// How this connection starts (decided when it is opened) and, once known, its era.
    handshake: era::Handshake,
    era: Era,
    /// The connection may open a browser / OAuth flow (not for cataloguing).
    interactive: bool,
    /// The stricter cache hint of the lists of the current listing round.
    cache: Option<CacheHint>,
    /// The upstream id of the open `subscriptions/listen` (modern servers, `era.rs`).
    listen: Option<u64>,
    /// Requests held by the host after an auth challenge (`auth.rs`).
    auth: auth::ConnAuth,
}

#[derive(Debug)]
enum Pending {
    Initialize,
    /// The era probe (`server/discover`).
    Discover,
    List {
        kind: ListKind,
        items: Vec<Value>,
        pages: u32,
    },
    /// Boxed: a call carries much more than the other variants.
    Call(Box<ForwardedCall>),
    /// A request of the engine's own whose answer does not matter (re-subscribe).
    Internal,
    /// The `subscriptions/listen` of a modern server (`era.rs`): answered only
    /// when the server refuses or ends it.
    Listen,
}

#[derive(Debug)]
struct ForwardedCall {
    client: ClientId,
    client_id: Value,
    method: String,
    progress_token: Option<Value>,
    timer: TimerId,
    /// The params sent upstream (before any era envelope): a modern server that
    /// asks for input gets the same request again with its answers.
    /// Boxed: kept small, it lives in every pending call.
    params: Option<Box<Value>>,
    /// The tool of a `tools/call` forwarded raw (its params are not kept):
    /// named when the call waits for a sign-in. (A thin box: every pending call carries it.)
    #[allow(clippy::box_collection)]
    raw_tool: Option<Box<String>>,
    /// Input rounds answered so far (bounded, see `input_required.rs`).
    input_rounds: u32,
    /// A legacy server asked this modern client's call for input (`input_bridge.rs`).
    bridge: Option<Box<input_bridge::Bridge>>,
    /// See [`QueuedCall::era_retried`].
    era_retried: bool,
}

impl ForwardedCall {
    /// The tool of a forwarded `tools/call`.
    fn tool_name(&self) -> Option<&str> {
        if self.method != "tools/call" {
            return None;
        }
        match &self.params {
            Some(params) => params.get("name").and_then(Value::as_str),
            None => self.raw_tool.as_deref().map(String::as_str),
        }
    }
}

#[derive(Debug)]
struct ClientSession {
    endpoint: Endpoint,
    capabilities: Value,
    /// `clientInfo.name` from `initialize` (else the session id): loaded tools are kept per identity.
    identity: String,
    /// Modern-era (2026-07-28) requests of this client in flight (`modern_clients.rs`).
    modern: modern_clients::ModernRequests,
    /// Its open `subscriptions/listen` requests (`client_listens.rs`).
    listens: client_listens::Listens,
}

#[derive(Debug)]
struct OutboundRequest {
    client: ClientId,
    conn: ConnId,
    upstream_id: Value,
}

/// Pages followed per list before giving up (a server looping on `nextCursor`).
const MAX_LIST_PAGES: u32 = 1_000;

impl Engine {
    pub fn new(settings: Settings) -> Engine {
        Engine {
            settings,
            servers: BTreeMap::new(),
            catalogue: Catalogue::default(),
            conns: BTreeMap::new(),
            timers: BTreeMap::new(),
            clients: BTreeMap::new(),
            catalogue_queue: VecDeque::new(),
            outbound: BTreeMap::new(),
            next_conn: 1,
            next_timer: 1,
            next_outbound: 1,
            effects: Vec::new(),
            catalogue_dirty: false,
            exposure: exposure::Exposure::default(),
            announce: announce::Announcements::default(),
            sign_in_announcements: auth::SignInAnnouncements::default(),
            now_ms: 0,
            config_load: crate::config::load::ConfigLoad::default(),
            unmanaged: Vec::new(),
            awaiting_approval: project_approvals::AwaitingApproval::default(),
            pins: held_definitions::Pins::default(),
            embedding: None,
            tool_vectors_pending: false,
        }
    }

    /// [`Engine::new`] from the settings' JSON (camelCase, every field optional).
    pub fn from_settings_json(settings_json: &str) -> Result<Engine, String> {
        serde_json::from_str::<Settings>(settings_json)
            .map(Engine::new)
            .map_err(|e| format!("the engine settings cannot be read: {e}"))
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Feeds one event in; returns what the host must do, in order. `now_ms` is the
    /// host's wall-clock time (`Date.now()`): catalogue timestamps are persisted.
    pub fn handle(&mut self, now_ms: u64, event: Event) -> Vec<Effect> {
        self.now_ms = now_ms;
        match event {
            Event::ConfigSources { sources } => {
                self.set_definitions_file(sources.approved_definitions_file.clone());
                let step = self.config_load.set_sources(sources);
                self.on_config_step(step);
            }
            Event::ConfigFilesChanged { paths } => {
                let step = self.config_load.files_changed(paths);
                self.on_config_step(step);
            }
            Event::FilesRead { round, files } => {
                let step = self.config_load.files_read(round, files);
                self.on_config_step(step);
            }
            Event::ConfigApplied { servers } => self.on_config_applied(servers),
            Event::CatalogueLoaded { blob } => self.on_catalogue_loaded(&blob),
            Event::ConnectionOpened { conn, pid } => self.on_connection_opened(conn, pid),
            Event::MessageReceived { conn, message } => self.on_upstream_text(conn, &message),
            Event::ConnectionClosed {
                conn,
                reason,
                exit_code,
                stderr_tail,
            } => {
                let reason = self.mask_for_conn(conn, reason);
                let stderr_tail = stderr_tail.map(|tail| self.mask_for_conn(conn, tail));
                self.on_connection_closed(conn, &reason, exit_code, stderr_tail.as_deref())
            }
            Event::TransportResolved {
                server,
                original,
                resolved,
            } => self.on_transport_resolved(&server, &original, &resolved),
            Event::HttpStatus { conn, status } => self.on_http_status(conn, status),
            Event::AuthRequired {
                conn,
                status,
                challenge,
                had_token,
            } => self.on_auth_required(conn, status, had_token, challenge.as_deref()),
            Event::TokensAvailable { url } => self.on_tokens_stored_elsewhere(&url),
            Event::SignInFinished {
                server,
                outcome,
                message,
                attempt,
            } => {
                let message = self.mask_for_server(&server, message);
                self.on_sign_in_finished(&server, outcome, &message, attempt)
            }
            Event::RefreshFinished {
                server,
                outcome,
                message,
            } => {
                let message = self.mask_for_server(&server, message);
                self.on_refresh_finished(&server, outcome, &message)
            }
            Event::SignIn { server } => self.on_sign_in(&server),
            Event::CancelSignIn { server } => self.on_cancel_sign_in(&server),
            Event::SignOut { server } => self.on_sign_out(&server),
            Event::DismissSignIn { servers } => self.on_dismiss_sign_in(servers),
            Event::TimerFired { timer } => self.on_timer(timer),
            Event::ClientMessage {
                client,
                endpoint,
                message,
            } => self.on_client_message(client, endpoint, &message),
            Event::ClientMessageTooLarge {
                client,
                head,
                bytes,
                limit_bytes,
            } => self.on_client_message_too_large(&client, &head, bytes, limit_bytes),
            Event::ClientDisconnected { client } => self.on_client_disconnected(&client),
            Event::Enable { server } => self.on_enable(&server),
            Event::Disable { server } => self.on_disable(&server),
            Event::ConnectNow { server } => self.on_connect_now(&server),
            Event::Disconnect { server } => self.on_disconnect(&server),
            Event::RefreshCatalogue {
                server,
                recatalogue,
            } => self.on_refresh(server.as_deref(), recatalogue),
            Event::ProcessStats { server, rss_bytes } => {
                if let Some(server) = self.servers.get_mut(&server) {
                    if server.conn.is_some() {
                        server.stats.rss_bytes = Some(rss_bytes);
                    }
                }
            }
            Event::WorkspaceFoldersChanged { folders } => {
                self.on_workspace_folders_changed(folders)
            }
            Event::SettingsChanged { settings } => self.on_settings_changed(settings),
            Event::ApproveDefinitions { server, items } => {
                self.on_approve_definitions(&server, &items)
            }
        }
        self.finish_event()
    }

    /// A client message, its text borrowed (the hot path: no [`Event`] is built
    /// around it). Same as `handle(now, Event::ClientMessage { .. })`.
    pub fn handle_client_message(
        &mut self,
        now_ms: u64,
        client: &str,
        endpoint: Endpoint,
        message: &str,
    ) -> Vec<Effect> {
        self.now_ms = now_ms;
        self.on_client_message(client.to_string(), endpoint, message);
        self.finish_event()
    }

    /// A message from an upstream server, its text borrowed. Same as
    /// `handle(now, Event::MessageReceived { .. })`.
    pub fn handle_message_received(
        &mut self,
        now_ms: u64,
        conn: ConnId,
        message: &str,
    ) -> Vec<Effect> {
        self.now_ms = now_ms;
        self.on_upstream_text(conn, message);
        self.finish_event()
    }

    /// What every event ends with: queued cataloguing, announcements, exposure, persistence.
    fn finish_event(&mut self) -> Vec<Effect> {
        self.pump_catalogue_queue();
        self.flush_announcements();
        self.flush_sign_in_announcements();
        if self.exposure.dirty {
            self.publish_changes();
        }
        self.flush_definitions_write();
        if std::mem::take(&mut self.tool_vectors_pending) || self.catalogue_dirty {
            self.update_tool_vectors();
        }
        if std::mem::take(&mut self.catalogue_dirty) {
            self.effects.push(Effect::PersistCatalogue {
                blob: self.catalogue.to_blob(),
            });
        }
        std::mem::take(&mut self.effects)
    }

    /// [`Engine::handle`] over JSON: `event_json` is one [`Event`], the result a JSON
    /// array of [`Effect`]s. Bad JSON never panics: it yields one `log` effect.
    pub fn handle_json(&mut self, now_ms: u64, event_json: &str) -> String {
        let effects = match Event::from_json(event_json) {
            Ok(event) => self.handle(now_ms, event),
            Err(error) => vec![Effect::Log {
                level: LogLevel::Error,
                server: None,
                message: format!("the host sent an event the engine cannot read: {error}"),
            }],
        };
        serde_json::to_string(&effects).unwrap_or_else(|_| "[]".to_string())
    }

    /// [`Engine::handle_json`] with the payloads kept out of the effects' JSON
    /// (see [`effects::split_payloads`]).
    pub fn handle_json_split(&mut self, now_ms: u64, event_json: &str) -> Vec<String> {
        match Event::from_json(event_json) {
            Ok(event) => effects::split_payloads(self.handle(now_ms, event)),
            Err(error) => effects::split_payloads(vec![Effect::Log {
                level: LogLevel::Error,
                server: None,
                message: format!("the host sent an event the engine cannot read: {error}"),
            }]),
        }
    }

    /// Current state of one server.
    pub fn state(&self, server: &str) -> Option<&ServerState> {
        self.servers.get(server).map(|s| &s.state)
    }

    /// Exposed endpoints (one per enabled server), with their versions.
    pub fn endpoints(&self) -> Vec<EndpointInfo> {
        self.current_endpoints()
    }

    /// The persisted-catalogue blob as it stands now.
    pub fn catalogue_blob(&self) -> String {
        self.catalogue.to_blob()
    }

    // ---- small shared helpers -------------------------------------------------

    fn log(&mut self, level: LogLevel, server: Option<&str>, message: String) {
        let message = match server {
            Some(name) => self.mask_for_server(name, message),
            None => message,
        };
        self.effects.push(Effect::Log {
            level,
            server: server.map(str::to_string),
            message,
        });
    }

    /// The only way a server's state changes.
    fn transition(&mut self, name: &str, trigger: Trigger) {
        let Some(server) = self.servers.get_mut(name) else {
            return;
        };
        if !matches!(
            trigger,
            Trigger::RetryDue { .. } | Trigger::CatalogueStarted
        ) {
            server.background = false;
        }
        match next_state(&server.state, &trigger) {
            Ok(next) => {
                if next != server.state {
                    server.state = next.clone();
                    server.state_since_ms = self.now_ms;
                    self.announce.settled(name, &next);
                    self.exposure.dirty = true;
                    self.effects.push(Effect::StateChanged {
                        server: name.to_string(),
                        state: next,
                    });
                    self.start_requested_sign_in(name);
                }
            }
            Err(error) => self.log(LogLevel::Error, Some(name), format!("engine bug: {error}")),
        }
    }

    fn reply(&mut self, client: &str, mut message: Value) {
        let modern = self.stamp_modern_reply(client, &mut message);
        self.push_reply(client, message, modern);
    }

    /// The `reply` effect; a modern-era request's answer carries the HTTP status
    /// the era gives it (a gateway answering with JSON uses it).
    fn push_reply(&mut self, client: &str, message: Value, modern: bool) {
        let http_status = modern
            .then(|| crate::protocol::modern_http::answer_status(&message))
            .flatten();
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        self.effects.push(Effect::Reply {
            client: client.to_string(),
            id,
            http_status,
            message: message.to_string(),
        });
    }

    fn reply_error(&mut self, client: &str, id: Value, code: i64, message: &str) {
        self.reply(client, jsonrpc::error_response(id, code, message));
    }

    fn notify_client(&mut self, client: &str, message: Value) {
        let progress_token = match message.get("method").and_then(Value::as_str) {
            Some("notifications/progress") => message.pointer("/params/progressToken").cloned(),
            _ => None,
        };
        self.effects.push(Effect::NotifyClient {
            client: client.to_string(),
            progress_token,
            request: None,
            message: message.to_string(),
        });
    }

    /// Clients that see `server`: its own endpoint, and the aggregate endpoint.
    fn clients_of(&self, server: &str) -> Vec<ClientId> {
        self.clients
            .iter()
            .filter(|(_, session)| match &session.endpoint {
                Endpoint::Server { name } => name == server,
                Endpoint::Aggregate => true,
            })
            .map(|(client, _)| client.clone())
            .collect()
    }

    /// The catalogue entry of a server, when it matches the server's config.
    fn current_entry(&self, name: &str) -> Option<&CatalogueEntry> {
        let server = self.servers.get(name)?;
        self.catalogue
            .entries
            .get(name)
            .filter(|entry| entry.fingerprint == server.config.fingerprint)
    }

    /// Asks for one `persistCatalogue` at the end of the current event.
    fn persist_catalogue(&mut self) {
        self.catalogue_dirty = true;
    }

    /// The server's `timeout` key bounds its handshake, else `handshakeTimeoutMs`.
    fn handshake_timeout_ms(&self, name: &str) -> u64 {
        self.servers
            .get(name)
            .and_then(|s| s.config.timeout_ms)
            .unwrap_or(self.settings.handshake_timeout_ms)
    }

    /// The server's `timeout` key bounds each forwarded request too (it is the
    /// per-request timeout of the tools whose configs carry it), else `requestTimeoutMs`.
    fn request_timeout_ms(&self, name: &str) -> u64 {
        self.servers
            .get(name)
            .and_then(|s| s.config.timeout_ms)
            .unwrap_or(self.settings.request_timeout_ms)
    }

    fn on_settings_changed(&mut self, settings: Settings) {
        let folders = settings.workspace_folders.clone();
        let folders_changed = folders != self.settings.workspace_folders;
        self.settings = settings;
        // Tool exposure settings may have changed.
        self.exposure.dirty = true;
        if folders_changed {
            self.settings.workspace_folders = Vec::new();
            self.on_workspace_folders_changed(folders);
        }
        let connected: Vec<String> = self
            .servers
            .iter()
            .filter(|(_, s)| s.state == ServerState::Connected)
            .map(|(name, _)| name.clone())
            .collect();
        for name in connected {
            if self.settings.idle_timeout_ms == 0 {
                let timer = self
                    .servers
                    .get_mut(&name)
                    .and_then(|s| s.idle_timer.take());
                self.cancel_timer(timer);
            } else {
                self.arm_idle_timer(&name);
            }
        }
    }

    fn on_workspace_folders_changed(&mut self, folders: Vec<String>) {
        if folders == self.settings.workspace_folders {
            return;
        }
        self.settings.workspace_folders = folders;
        let ready: Vec<ConnId> = self
            .conns
            .iter()
            // Modern servers have no roots notification (roots travel per request).
            .filter(|(_, c)| c.phase == Phase::Ready && c.era == Era::Legacy)
            .map(|(id, _)| *id)
            .collect();
        for conn in ready {
            self.send_upstream(
                conn,
                jsonrpc::notification("notifications/roots/list_changed", None),
            );
        }
    }
}
