//! Everything the engine asks the host to do. Serialized as `{"type": "...", ...}`.

use crate::config::load::ConfigReport;
use crate::config::model::Transport;
use crate::engine::auth_contract::OAuthBinding;
use crate::engine::events::{ClientId, ConnId, Endpoint};
use crate::engine::state::ServerState;
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum LogLevel {
    Debug,
    Info,
    Warn,
    Error,
}

/// One exposed server endpoint, for hosts that register one MCP definition per server.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EndpointInfo {
    pub server: String,
    /// Changes exactly when what a client would list changes (config fingerprint
    /// plus catalogue contents); VS Code's definition `version`.
    pub version: String,
    /// Whether to offer it as an MCP definition (VS Code): only when it has something
    /// to list, so an empty FAILED or NEEDS AUTH server is not shown as a server.
    #[serde(default = "offered_by_default")]
    pub offered: bool,
}

fn offered_by_default() -> bool {
    true
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Effect {
    /// Spawn the stdio process / open the HTTP session. Answer with `connectionOpened`
    /// or `connectionClosed`. `interactive: false` means cataloguing: never open a
    /// browser or OAuth flow for it.
    Open {
        conn: ConnId,
        server: String,
        // Boxed, as `oauth` and `shared` (and the OAuth effects' bindings): an
        // `Effect` is as large as its largest variant, and every send and
        // reply of the hot path is one (472 bytes unboxed, 136 boxed).
        transport: Box<Transport>,
        interactive: bool,
        /// Present when the server signs in with OAuth: add its bearer token
        /// (that server's only), and hand a message answered 401/403 back in
        /// `authRequired` (the engine holds it). Absent: static headers only, never OAuth.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        oauth: Option<Box<OAuthBinding>>,
        /// The largest message to take from this server (HTTP: a reply body, one
        /// SSE event); a bigger one fails its request with an error naming the
        /// server and the limit (`Settings::max_message_bytes`).
        max_message_bytes: u64,
        /// Present when the process is shared through the per-user owner
        /// (`shared/launch.rs`): attach by this key instead of spawning.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        shared: Option<Box<crate::shared::launch::SharedLaunch>>,
    },
    /// Run the interactive sign-in (open the browser on the authorization
    /// URL, receive the redirect on loopback), store the tokens, answer
    /// `signInFinished`. `reason` and `toolName` are for the prompt.
    StartSignIn {
        server: String,
        oauth: Box<OAuthBinding>,
        reason: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_name: Option<String>,
        /// Scopes a 403 `insufficient_scope` challenge named (step-up): the
        /// sign-in asks for them together with the ones already granted, and
        /// never refreshes instead (a refresh cannot add scopes).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        scope: Option<String>,
        /// Echoed in `signInFinished`; `cancelSignIn` names it.
        #[serde(default)]
        attempt: u32,
    },
    /// End the sign-in `attempt` of `server` as cancelled (its waiting calls
    /// gave up, or the user cancelled): stop waiting for the browser, close
    /// the loopback listener, withdraw the ask. It still answers `signInFinished`.
    CancelSignIn {
        server: String,
        oauth: Box<OAuthBinding>,
        attempt: u32,
    },
    /// A 403 `insufficient_scope` named `scope`: keep it with the server's
    /// sign-in record, so the next sign-in (here or in another process) asks for it.
    RequireScopes {
        server: String,
        oauth: Box<OAuthBinding>,
        scope: String,
    },
    /// Refresh the stored tokens with the refresh token, non-interactively
    /// (never a browser); answer `refreshFinished`.
    RefreshTokens {
        server: String,
        oauth: Box<OAuthBinding>,
    },
    /// Delete the stored tokens (and, with `forgetClient`, the client registration).
    DeleteTokens {
        server: String,
        oauth: Box<OAuthBinding>,
        #[serde(default)]
        forget_client: bool,
    },
    /// Write one JSON-RPC message to the connection. `headers`: HTTP headers its
    /// POST must carry: on Streamable HTTP, `mcp-protocol-version` once the
    /// version is known (the engine owns it: no other effect says it), and
    /// modern-era requests name their method and target too; empty for stdio
    /// and legacy SSE. The connection never reads the message: what it needs is said here.
    Send {
        conn: ConnId,
        message: String,
        #[serde(default, skip_serializing_if = "VecMap::is_empty")]
        #[cfg_attr(feature = "ts", ts(as = "Option<VecMap<String, String>>", optional))]
        headers: VecMap<String, String>,
        /// The id of the request this message is (absent for notifications and
        /// responses): its answer is due. Over HTTP what its POST's reply
        /// carries crosses with this id (`messageReceived`'s `reply_of`), and the reply's end
        /// (`replyEnded`) only while the engine still awaits the answer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        request_id: Option<u64>,
        /// Streamable HTTP: once the server accepted this message (the legacy
        /// handshake's last one), open the GET stream for the messages the server
        /// sends on its own. Its `headers` are the session's: the GET stream and
        /// the DELETE that ends the session carry them. Other transports ignore it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        #[cfg_attr(feature = "ts", ts(as = "Option<bool>", optional))]
        open_event_stream: bool,
    },
    /// HTTP: the transport the connection speaks from now on, the answer to
    /// `connectAnswered` of a probing POST: `streamable` (read that POST's
    /// reply; send what waited), `legacy` (drop that reply, open the legacy
    /// SSE stream, send that message and what waited once its `endpoint`
    /// came), `probing` (the POST was held for a sign-in: read it as its
    /// status says; the next POST probes).
    HttpTransport {
        conn: ConnId,
        mode: crate::http_status::HttpMode,
    },
    /// Stop waiting for the answer to request `id` on this connection: an HTTP host
    /// aborts that request's POST (how MCP 2026-07-28 cancels over HTTP; the
    /// `notifications/cancelled` goes too). Stdio hosts ignore it.
    AbortRequest {
        conn: ConnId,
        id: u64,
    },
    /// End the connection: stdin close → SIGTERM → SIGKILL of the tree, or HTTP DELETE.
    /// No `connectionClosed` is needed afterwards (it is ignored).
    Close {
        conn: ConnId,
        /// By the idle stop: a shared connection tells the owner, which keeps
        /// the process for its idle time only then (else the handover grace).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        #[cfg_attr(feature = "ts", ts(as = "Option<bool>", optional))]
        idle: bool,
    },
    // Arm the host's one timer at `at_ms` (replacing the one armed): the
    // engine's earliest deadline moved earlier. When it fires, send `timeout`.
    // A later or cancelled deadline is not reported: the timer fires early,
    // finds nothing due, and the engine names its next deadline then.
    WakeAt {
        at_ms: u64,
    },
    /// The response to a client's request. `id` is the JSON-RPC id it answers
    /// (`null` when the request's id could not be read): the gateway routes by it
    /// without parsing `message`.
    Reply {
        client: ClientId,
        #[cfg_attr(feature = "ts", ts(type = "string | number | null"))]
        id: serde_json::Value,
        /// The HTTP status of this answer when it is not 200: a modern-era
        /// (2026-07-28) request's error that the era answers with a status
        /// (method not found: 404). Used by a gateway that answers with JSON.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        http_status: Option<u16>,
        message: String,
    },
    /// After `clientInputEnded`: every request read from `client` is answered
    /// or dropped (the client cancelled it while unanswered: MCP answers no
    /// cancelled request), so a host that stops with its client's input
    /// (`serve --stdio` at stdin EOF) may stop now. Once per `clientInputEnded`;
    /// a server's request still waiting for the client's answer does not hold it.
    ClientSettled {
        client: ClientId,
    },
    /// Read the embedding table the host offered (`offerEmbeddingModel`) and
    /// hand its bytes over (`loadEmbeddingModel`; empty when it cannot be
    /// read): a `search_tools` call waits for it. Once per engine.
    ReadEmbeddingTable,
    /// HTTP gateway: end this client session (its streams, its
    /// `Mcp-Session-Id`: the client's next request gets 404 and, as MCP says,
    /// it starts a new one), then say `clientDisconnected`. `idle`: unused
    /// for `sessionIdleMs`; else the least recently used beyond `maxSessions`.
    CloseClient {
        client: ClientId,
        idle: bool,
    },
    /// A message the gateway initiates towards a client: notifications
    /// (list_changed, progress, cancelled, …) and server-to-client requests.
    /// `progressToken`: set on `notifications/progress`, the token of the request
    /// it belongs to (the gateway sends it with that request's answer).
    NotifyClient {
        client: ClientId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(type = "string | number | null"))]
        progress_token: Option<serde_json::Value>,
        /// The open request this message belongs to (a `subscriptions/listen`): the
        /// HTTP gateway writes it on that request's own stream.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(type = "string | number | null"))]
        request: Option<Box<serde_json::Value>>,
        message: String,
    },
    /// Ask the MCP client to start this version of the endpoint's definition
    /// (VS Code: `workbench.mcp.startServer` with `waitForLiveTools` and
    /// `errorOnUserInteraction`); answer `definitionStarted` when it ends.
    StartDefinition {
        endpoint: Endpoint,
        version: String,
    },
    /// Close the MCP client's session of the endpoint's definition (VS Code:
    /// `workbench.mcp.stopServer`): it only listed, and has been quiet since.
    StopDefinition {
        endpoint: Endpoint,
    },
    /// Store this blob; give it back with `catalogueLoaded` at the next start.
    PersistCatalogue {
        blob: String,
    },
    /// Read the user's shared catalogue files of these keys in this order and
    /// answer with one `sharedCatalogueRead` for `server`: the first file that
    /// exists, or none. A key is hex (`[0-9a-f-]`).
    ReadSharedCatalogue {
        server: String,
        keys: Vec<String>,
    },
    /// Replace the shared catalogue file of `key` with `blob`, atomically
    /// (temporary file, then rename), in the user's private directory.
    WriteSharedCatalogue {
        key: String,
        blob: String,
    },
    /// Replace the shared approved-definitions file with `content`, atomically
    /// (write a temporary file next to it, then rename). The file is watched
    /// with the config: other processes read the approval from it.
    WriteApprovedDefinitions {
        path: String,
        content: String,
    },
    Log {
        level: LogLevel,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        server: Option<String>,
        message: String,
    },
    /// No server is PENDING, CATALOGUING or CONNECTING any more, after some
    /// was: the lists are as complete as this start or config edit makes them
    /// (`serve` answers its first client, or prints its address, then).
    CatalogueSettled {},
    /// A server's state changed (refresh the UI).
    StateChanged {
        server: String,
        state: ServerState,
    },
    /// The set of exposed server endpoints or one of their versions changed.
    /// `aggregate`: the version of the aggregate endpoint (`/mcp`) when it has
    /// something to offer: always with `aggregateEndpoint: all`, and with
    /// `toolIndex` only while some server is in `index` mode.
    EndpointsChanged {
        endpoints: Vec<EndpointInfo>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        aggregate: Option<String>,
    },
    /// A server left the configuration (drop it from the UI).
    ServerRemoved {
        server: String,
    },
    /// Read these config files (regular files only, bounded) and answer with
    /// `filesRead` of the same `round`.
    ReadFiles {
        round: u64,
        paths: Vec<String>,
    },
    /// Watch exactly these paths (found or not) and send `configFilesChanged`
    /// when one changes. Emitted when the set changes.
    WatchFiles {
        paths: Vec<String>,
    },
    /// A config load finished and was applied: the report for the UI (files,
    /// problems with line and column, shadowed and unmanaged servers).
    ConfigLoaded {
        report: Box<ConfigReport>,
    },
    /// Tell the user, once, in a non-modal notification (the engine decides what
    /// and when: see `announce.rs`). `actions` are buttons the host offers.
    Announce {
        level: LogLevel,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        server: Option<String>,
        message: String,
        #[serde(default)]
        actions: Vec<AnnounceAction>,
        /// The servers the actions apply to (Sign in / Not now for several servers).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[cfg_attr(feature = "ts", ts(as = "Option<Vec<String>>", optional))]
        servers: Vec<String>,
    },
}

/// A button on an announcement; the host maps each to one of its commands.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum AnnounceAction {
    /// Open "MCP Diagnostics".
    ShowDiagnostics,
    /// Open the config file at the server's definition.
    OpenDefinition,
    /// Sign in to the announcement's `servers` (the host sends `signIn` for each).
    SignIn,
    /// Do not announce these `servers` again this session (`dismissSignIn`).
    NotNow,
    /// Approve the announcement's project `servers` (the host writes the approvals file).
    Allow,
    /// Show each of the announcement's project `servers` with what it would run,
    /// to approve some of them.
    Review,
    /// Close; nothing to tell the engine (it announces each definition once).
    Dismiss,
    /// Open the review of the server's held definitions (VS Code's diff editor).
    ReviewDefinitions,
    /// Approve the server's held definitions (`approveDefinitions`).
    ApproveDefinitions,
    /// Leave them held (nothing is sent; the notification closes).
    KeepBlocked,
}
