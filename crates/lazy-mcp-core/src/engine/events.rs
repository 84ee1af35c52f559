//! Everything the host tells the engine. Serialized as `{"type": "...", ...}` with
//! camelCase names. Over the WASM boundary client and server messages cross as
//! bytes of their own (`wire.rs`), every other event as JSON.

use crate::config::load::{ConfigSources, FileRead};
use crate::config::model::Transport;
use crate::engine::auth_contract::{RefreshOutcome, SignInOutcome};
use crate::engine::settings::Settings;
use serde::{Deserialize, Serialize};

/// Engine-assigned id of one upstream connection (a process or an HTTP session).
pub type ConnId = u64;
/// Host-assigned id of one client session of the gateway (any string, unique per session).
pub type ClientId = String;

/// Which MCP endpoint of the gateway a client talks to.
/// Read by `event_json.rs` (serde's `tag` here only writes).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Endpoint {
    /// One endpoint per upstream server (the VS Code gateway).
    Server { name: String },
    /// All servers behind one endpoint, tools named `server__tool` (the CLI).
    Aggregate,
}

/// JSON form `{"type": "...", ...fields}`, read and written by `event_json.rs`
/// (serde's own form here is `{"name": {fields}}`, which reads without buffering).
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(tag = "type"))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Event {
    /// Where the config comes from and the host's policy (at start, and when
    /// folders, settings or workspace trust change): the engine answers with
    /// `readFiles` for every file it wants.
    ConfigSources { sources: ConfigSources },
    /// Watched files changed (empty `paths`: re-read everything): the engine
    /// asks for them again with `readFiles`.
    #[serde(deserialize_with = "super::event_fields::only_paths")]
    ConfigFilesChanged {
        #[serde(default)]
        paths: Vec<String>,
    },
    /// The answer to `readFiles` of the same `round`: each path's content, or
    /// `null` when missing, or `unreadable` saying what the path is.
    FilesRead { round: u64, files: Vec<FileRead> },
    /// The persisted catalogue blob, as last stored from a `persistCatalogue` effect.
    #[serde(deserialize_with = "super::event_fields::only_blob")]
    CatalogueLoaded { blob: String },
    /// The answer to `readSharedCatalogue`: the first of the keys asked whose
    /// file exists, where it is (log lines name it) and its contents; `blob`
    /// absent: none exists (or the host may not read them; `key` the first).
    SharedCatalogueRead {
        server: String,
        key: String,
        file: String,
        #[serde(default)]
        blob: Option<String>,
    },
    /// The host opened the connection of an `open` effect (process spawned / HTTP ready).
    /// Again for a shared connection whose client the owner moved to another
    /// process (`shared/mux/roots.rs`): `pid` is the process serving it now.
    ConnectionOpened {
        conn: ConnId,
        #[serde(default)]
        pid: Option<u32>,
    },
    /// A shared connection's process (the per-user owner's) is now held by
    /// `clients` attachments, this one included: every window and CLI session
    /// of the user that uses it. Diagnostics shows it.
    ConnectionShared {
        conn: ConnId,
        clients: u32,
        /// Who holds it, oldest first (an older owner sends none).
        #[serde(default)]
        holders: Vec<crate::shared::launch::SharedHolder>,
    },
    /// What the upstream server sent, as the connection received it: one
    /// JSON-RPC message or a batch (split here), one stdio line, one HTTP reply
    /// body or SSE event's data (empty text is nothing).
    MessageReceived { conn: ConnId, message: String },
    /// HTTP: the reply to the POST of request `requestId` ended (its body or
    /// stream ended, was cut off or over the size limit, the POST failed, or the
    /// server answered an error status: `httpStatus`). Reported always, answered
    /// or not: a request still in flight fails with `reason`, one answered is nothing.
    ReplyEnded {
        conn: ConnId,
        request_id: u64,
        reason: String,
        #[serde(default)]
        http_status: Option<u16>,
    },
    /// The connection ended (process exited, pipe broke, spawn failed, HTTP gone).
    ConnectionClosed {
        conn: ConnId,
        #[serde(default)]
        reason: String,
        #[serde(default)]
        exit_code: Option<i32>,
        #[serde(default)]
        stderr_tail: Option<String>,
    },
    /// The host resolved connect-time variables (VS Code `${input:…}`) of the
    /// transport of an `open` effect: the values they took are secret, and
    /// are masked in text about the server like the config's own secrets.
    TransportResolved {
        server: String,
        original: Transport,
        resolved: Transport,
    },
    /// HTTP: the connection's first exchange started: a POST while the
    /// transport is probed (`httpTransport` `probing`), or the legacy SSE
    /// stream. The engine bounds it (`HTTP_CONNECT_TIMEOUT_MS`).
    #[serde(deserialize_with = "super::event_fields::only_conn")]
    ConnectStarted { conn: ConnId },
    /// HTTP: that exchange was answered: `status` of the probing POST's
    /// response (headers), or of the legacy stream with its `endpoint` event.
    /// A probe is answered with `httpTransport`; the host reads that POST's
    /// reply only then.
    #[serde(deserialize_with = "super::event_fields::conn_status")]
    ConnectAnswered { conn: ConnId, status: u16 },
    /// An HTTP status worth knowing (401/403 ⇒ NEEDS AUTH).
    #[serde(deserialize_with = "super::event_fields::conn_status")]
    HttpStatus { conn: ConnId, status: u16 },
    /// A connection opened with an `oauth` binding met a 401/403 on the
    /// message of a `send` effect, handed back here (`message`; the engine
    /// reads what its `send` said again): the engine holds it, with what it
    /// sends on the connection meanwhile, and sends them all again once
    /// signed in (the host holds nothing).
    /// `challenge`: the `WWW-Authenticate` header; `hadToken`: a bearer token was sent.
    AuthRequired {
        conn: ConnId,
        status: u16,
        #[serde(default)]
        challenge: Option<String>,
        #[serde(default)]
        had_token: bool,
        #[serde(default)]
        message: String,
    },
    /// The token store now holds tokens for this server URL, written by another
    /// window or process (VS Code: SecretStorage changed; CLI: the token file
    /// changed). Servers of that URL that need sign-in are catalogued again.
    #[serde(deserialize_with = "super::event_fields::only_url")]
    TokensAvailable { url: String },
    /// A `startSignIn` ended. `attempt`: the effect's, so the end of a sign-in
    /// the engine already gave up on (`cancelSignIn`) is told apart.
    SignInFinished {
        server: String,
        outcome: SignInOutcome,
        #[serde(default)]
        message: String,
        #[serde(default)]
        attempt: u32,
    },
    /// A `refreshTokens` ended.
    RefreshFinished {
        server: String,
        outcome: RefreshOutcome,
        #[serde(default)]
        message: String,
    },
    /// User command: sign in to the server now (interactive).
    #[serde(deserialize_with = "super::event_fields::only_server")]
    SignIn { server: String },
    /// User command: stop the sign-in under way (the progress notification's Cancel).
    #[serde(deserialize_with = "super::event_fields::only_server")]
    CancelSignIn { server: String },
    /// User command: delete the server's tokens and client registration.
    #[serde(deserialize_with = "super::event_fields::only_server")]
    SignOut { server: String },
    /// User answered "Not now" to a sign-in announcement for these servers.
    #[serde(deserialize_with = "super::event_fields::only_servers")]
    DismissSignIn { servers: Vec<String> },
    /// The host's one timer (armed by the last `wakeAt`) fired: every timer due
    /// at the crossing's `nowMs` fires, in deadline order.
    Timeout,
    /// One JSON-RPC message (request, notification or response) from a gateway client.
    ClientMessage {
        client: ClientId,
        endpoint: Endpoint,
        message: String,
    },
    /// A client message longer than the host's limit (`limit_bytes`) was not read;
    /// `head` is its beginning (the engine answers with the id found there, if any).
    ClientMessageTooLarge {
        client: ClientId,
        head: String,
        bytes: u64,
        limit_bytes: u64,
    },
    /// A gateway client session ended.
    #[serde(deserialize_with = "super::event_fields::only_client")]
    ClientDisconnected { client: ClientId },
    /// HTTP gateway: the session's GET stream opened. A session with its
    /// stream open is in use: never ended for idleness.
    #[serde(deserialize_with = "super::event_fields::only_client")]
    ClientStreamOpened { client: ClientId },
    /// HTTP gateway: the session's GET stream closed (its last use).
    #[serde(deserialize_with = "super::event_fields::only_client")]
    ClientStreamClosed { client: ClientId },
    /// The client will send nothing more (`serve --stdio`: stdin ended). The
    /// engine says `clientSettled` once every request it read from this client
    /// is answered or dropped (at once when none is in flight).
    #[serde(deserialize_with = "super::event_fields::only_client")]
    ClientInputEnded { client: ClientId },
    /// A `startDefinition` ended; `failed`: the client refused or could not
    /// start it (the host logs its error), and it is not asked again.
    DefinitionStarted {
        endpoint: Endpoint,
        version: String,
        #[serde(default)]
        failed: bool,
    },
    /// Session-only enable (never written to a config file).
    #[serde(deserialize_with = "super::event_fields::only_server")]
    Enable { server: String },
    /// Session-only disable: tools withdrawn, process stopped.
    #[serde(deserialize_with = "super::event_fields::only_server")]
    Disable { server: String },
    /// Connect now, without waiting for a first call (interactive auth allowed).
    #[serde(deserialize_with = "super::event_fields::only_server")]
    ConnectNow { server: String },
    /// Stop the server's process/session; it stays CATALOGUED.
    #[serde(deserialize_with = "super::event_fields::only_server")]
    Disconnect { server: String },
    /// Re-list CONNECTED servers (all, or one). With `recatalogue`, servers that are
    /// not connected are catalogued again too (spawning them briefly).
    RefreshCatalogue {
        #[serde(default)]
        server: Option<String>,
        #[serde(default)]
        recatalogue: bool,
    },
    /// Memory of a connected server's process tree, measured by the host.
    ProcessStats { server: String, rss_bytes: u64 },
    /// The host's workspace folders changed (absolute paths; answered to
    /// `roots/list` as file URIs the engine builds).
    #[serde(deserialize_with = "super::event_fields::only_folders")]
    WorkspaceFoldersChanged { folders: Vec<String> },
    /// The user changed settings (concurrency, idle timeout, timeouts, roots, …).
    SettingsChanged { settings: Settings },
    /// User command: approve the held definitions of `server` as they are now:
    /// the tools, prompts or resource templates named in `items`, or (empty)
    /// everything held, its instructions included.
    ApproveDefinitions {
        server: String,
        #[serde(default)]
        items: Vec<String>,
    },
}
