//! The numbers the hosts' I/O runs by, in one place (WASM `hostLimits`): the
//! HTTP session's end, the gateway's session policy,
//! how long `serve` waits
//! for its first catalogue, for answers after stdin closed and for a stop, SSE
//! keep-alives, config polling, how clients start and wait for the owner of
//! shared servers, how a stdio server is stopped, how long a sign-in may take
//! and how floods of log lines are bounded. The host reads them once and
//! carries them out; it keeps no copy (tests/node/hostPolicyLiterals.test.mjs
//! fails on a new literal there).

use serde::{Deserialize, Serialize};

/// Everything the host times or bounds by the core's word.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HostLimits {
    /// HTTP: bound on the DELETE that ends a session when the connection closes.
    pub http_session_end_timeout_ms: u64,
    /// HTTP: an error answer's body is read for the message a user sees, at
    /// most this many characters.
    pub http_error_body_max_chars: u64,
    /// The largest config file (or `{file:...}` secret) read; a bigger one is
    /// reported unreadable.
    pub config_file_max_bytes: u64,
    pub gateway: GatewayLimits,
    /// `serve`: clients are answered (`--stdio`) or the address printed
    /// (`--http`) once the first catalogue is complete, but never later than this.
    pub first_catalogue_wait_ms: u64,
    /// `serve --stdio`: after stdin closes, how long answers to the requests
    /// already read are awaited (a safety net: the engine answers or times out
    /// every forwarded call, and settles each one cancelled: `clientSettled`).
    pub serve_drain_after_eof_ms: u64,
    /// `serve`: a stop that takes longer (a process ignoring SIGTERM and
    /// SIGKILL?) is abandoned and the CLI exits.
    pub serve_stop_deadline_ms: u64,
    pub shared_owner: SharedOwnerLimits,
    pub stdio: StdioLimits,
    pub sign_in: SignInLimits,
    pub log_throttle: LogThrottleLimits,
    /// VS Code: a trapped core (rebuilt from the last inputs) is shown as an
    /// error at most this often; every trap is logged.
    pub trap_notice_interval_ms: u64,
    /// Config files are polled this often (`fs.watchFile`: it sees a file that
    /// is created, replaced or deleted, and works on network drives) ...
    pub config_poll_ms: u64,
    /// ... and changes within this long are applied as one (an editor's
    /// save often writes twice).
    pub config_debounce_ms: u64,
}

/// The loopback gateway's I/O (`host/gateway/httpGateway.ts`). Its sessions'
/// policy is the engine's (`engine/clients/gateway_sessions.rs`): these two
/// are the defaults of its settings `sessionIdleMs` and `maxSessions`, told
/// to hosts for their help texts only.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GatewayLimits {
    /// A session with no request and no open stream for this long is ended.
    pub session_idle_ms: u64,
    /// Beyond this many sessions the least recently used one is ended.
    pub max_sessions: u64,
    /// The largest HTTP body (and `serve --stdio` line) read from a client.
    pub max_body_bytes: u64,
    /// How long a modern-era answer may keep its headers waiting before the
    /// call gets a 200 stream: well before clients' header timeouts (Node's
    /// fetch and the Python `mcp` client: 300 s).
    pub deferred_headers_ms: u64,
    /// An open SSE stream with nothing to send gets a comment this often, so
    /// proxies and clients with read timeouts keep it open.
    pub sse_keep_alive_ms: u64,
    /// A POST's stream sends its headers with its first event (one write for a
    /// fast answer); a call still unanswered after this long gets them alone.
    pub sse_headers_within_ms: u64,
    /// Messages kept for a session with no stream open to take them (server
    /// notifications, requests); beyond it they are dropped.
    pub max_backlog: u64,
    /// `serve --stdio`: of a line over `max_body_bytes`, this much is kept to
    /// find its request id (the client gets an error answer to that id).
    pub oversized_head_bytes: u64,
    /// The bearer token file (`serve --http`): a file bigger than this is no
    /// token ...
    pub token_file_max_bytes: u64,
    /// ... nor is one shorter than this (clients cannot guess it).
    pub token_min_chars: u64,
    /// Creating the token file races other starts: it is read again (their
    /// token) or created again at most this many times.
    pub token_file_attempts: u64,
}

/// The per-user owner of shared servers (`host/shared`, docs/shared-servers.md).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedOwnerLimits {
    /// An owner holding no process and no client exits after this long
    /// (`lazy-mcp daemon run --linger-ms` overrides it).
    pub linger_ms: u64,
    /// A client starting the owner (or waiting for another client's start, or
    /// for a full listen queue) gives up after this long and fails the call.
    pub start_wait_ms: u64,
    /// How often it looks for the started owner's socket meanwhile.
    pub start_poll_ms: u64,
    /// The owner's listen queue is full for a moment (many attachments at
    /// once): the connect is tried again after this long plus a random part
    /// of the jitter, so the waiting clients do not come back together.
    pub busy_pause_ms: u64,
    pub busy_jitter_ms: u64,
    /// Listening finds a socket file whose owner is gone: it is replaced and
    /// listening tried again, at most this many times in all.
    pub listen_attempts: u64,
    /// The owner's listen queue (hundreds of attachments may connect at once:
    /// 20 sessions x 50 servers).
    pub listen_backlog: u64,
    /// The largest frame on the owner's socket (one stdio message and its
    /// kind); a bigger one is dropped and logged.
    pub max_frame_bytes: u64,
}

/// How a stdio server is read and its process group stopped
/// (`host/connections/stdioConnection.ts`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StdioLimits {
    /// A stdout line (one message) longer than this is dropped and logged
    /// instead of exhausting memory.
    pub max_line_bytes: u64,
    /// The same for a stderr line (replaced by a note in the tail).
    pub max_stderr_line_bytes: u64,
    /// The stderr tail a close reports (Diagnostics, the error of a crash):
    /// at most this many last lines and characters.
    pub stderr_tail_lines: u64,
    pub stderr_tail_chars: u64,
    /// Each step of a stop (stdin closed, then SIGTERM, then SIGKILL) waits
    /// this long for the process (and then its group) to be gone.
    pub kill_grace_ms: u64,
    /// How often a group is looked at meanwhile.
    pub group_poll_ms: u64,
    /// Once the group is gone, the last stdout/stderr bytes are awaited this
    /// long before the close is reported.
    pub pipe_close_wait_ms: u64,
}

/// OAuth sign-ins (`host/auth`): one per server across processes, by a lock file.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignInLimits {
    /// Bound on every request to an authorization server.
    pub request_timeout_ms: u64,
    /// How long a sign-in waits for the browser's redirect; a process waiting
    /// for another's sign-in gives up after as long.
    pub browser_wait_ms: u64,
    /// A lock older than the browser wait plus this is stale, whoever holds it.
    pub lock_stale_margin_ms: u64,
    /// A lock file left without its holder's pid this long is garbage (the
    /// exclusive create and the write of the pid are two steps).
    pub lock_unwritten_grace_ms: u64,
    /// How often a process waiting for another's sign-in looks for its tokens.
    pub other_sign_in_poll_ms: u64,
    /// How often the CLI's token file is looked at for another process's write.
    pub token_file_poll_ms: u64,
    /// The largest sign-in file (`auth login`'s tokens and registrations) read.
    pub token_store_max_bytes: u64,
}

/// Floods of similar log lines (`host/logThrottle.ts`): per server and kind
/// of line, the first `burst` of each interval are written, the rest counted
/// and summarized when it ends.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LogThrottleLimits {
    pub burst: u64,
    pub interval_ms: u64,
    /// Kinds tracked at most; beyond it the oldest are summarized and forgotten.
    pub max_kinds: u64,
}

/// VS Code is asked to start a gateway definition until it listed its tools:
/// it ignores a start for a definition it has not read yet, so asks repeat,
/// with a pause that doubles from 25 to 400 ms. The engine runs this schedule
/// itself (`engine/clients/definition_starts.rs`); hosts are not told it (the
/// host only carries out `startDefinition` and `stopDefinition`).
///
/// Asks stop this long after the definition changed.
pub const START_LIMIT_MS: u64 = 20_000;
/// The pause after each ask, in order; the last one repeats.
pub const START_PAUSES_MS: [u64; 5] = [25, 50, 100, 200, 400];
/// After the listing, VS Code's session is closed only once VS Code has
/// sent nothing on it this long: the stop cancels whatever VS Code has
/// under way there, a tool call it is about to send included (the engine
/// also lets the host read pending POSTs first, and never stops a server
/// already in use or while a request of the endpoint is in flight).
/// 10 s was tried: VS Code then kept the catalogued-only session after the
/// stop (tests/integration vscodeMcpUi "is Stopped" failed 2 of 2).
pub const QUIET_BEFORE_STOP_MS: u64 = 3_000;

/// HTTP: bound on a connection's first exchange (the first POST's response
/// headers, the legacy transport's `endpoint` event), from the host's
/// `connectStarted` to its `connectAnswered`. The engine times it
/// (`engine/server/http_transport.rs`); hosts are not told it.
pub const HTTP_CONNECT_TIMEOUT_MS: u64 = 15_000;

/// The HTTP gateway's sessions, decided by the engine
/// (`engine/clients/gateway_sessions.rs`; settings `sessionIdleMs`,
/// `maxSessions`, `serve --session-idle-timeout`/`--max-sessions`): clients
/// that vanish without DELETE (the SDK client's `close()` sends none) are
/// reclaimed after this long with no request and no open stream ...
pub const SESSION_IDLE_MS: u64 = 60 * 60_000;
/// ... and beyond this many sessions the least recently used one ends, so
/// memory stays bounded whatever clients do.
pub const MAX_SESSIONS: u64 = 1_000;

/// The shared owner's and the sign-in's waits, as constants too: the core's own
/// decisions (`host_waits.rs`, `shared/mux.rs`) read them without building
/// [`HostLimits`] (which the `.wasm` otherwise never builds: it returns its JSON).
pub const OWNER_LINGER_MS: u64 = 30_000;
pub const OWNER_START_WAIT_MS: u64 = 10_000;
pub const OWNER_START_POLL_MS: u64 = 20;
pub const OWNER_BUSY_PAUSE_MS: u64 = 5;
pub const OWNER_BUSY_JITTER_MS: u64 = 20;
pub const SIGN_IN_BROWSER_WAIT_MS: u64 = 300_000;
pub const OTHER_SIGN_IN_POLL_MS: u64 = 300;

/// The limits every host runs by.
pub fn host_limits() -> HostLimits {
    HostLimits {
        http_session_end_timeout_ms: 2_000,
        http_error_body_max_chars: 64 * 1024,
        config_file_max_bytes: 4 * 1024 * 1024,
        gateway: GatewayLimits {
            session_idle_ms: SESSION_IDLE_MS,
            max_sessions: MAX_SESSIONS,
            max_body_bytes: 16 * 1024 * 1024,
            deferred_headers_ms: 60_000,
            sse_keep_alive_ms: 25_000,
            sse_headers_within_ms: 1_000,
            max_backlog: 256,
            oversized_head_bytes: 64 * 1024,
            token_file_max_bytes: 4096,
            token_min_chars: 32,
            token_file_attempts: 5,
        },
        first_catalogue_wait_ms: 20_000,
        serve_drain_after_eof_ms: 150_000,
        serve_stop_deadline_ms: 15_000,
        config_poll_ms: 1_000,
        config_debounce_ms: 150,
        shared_owner: SharedOwnerLimits {
            linger_ms: OWNER_LINGER_MS,
            start_wait_ms: OWNER_START_WAIT_MS,
            start_poll_ms: OWNER_START_POLL_MS,
            busy_pause_ms: OWNER_BUSY_PAUSE_MS,
            busy_jitter_ms: OWNER_BUSY_JITTER_MS,
            listen_attempts: 3,
            listen_backlog: 4096,
            max_frame_bytes: 256 * 1024 * 1024,
        },
        stdio: StdioLimits {
            max_line_bytes: 256 * 1024 * 1024,
            max_stderr_line_bytes: 1024 * 1024,
            stderr_tail_lines: 200,
            stderr_tail_chars: 64 * 1024,
            kill_grace_ms: 2_000,
            group_poll_ms: 25,
            pipe_close_wait_ms: 500,
        },
        sign_in: SignInLimits {
            request_timeout_ms: 10_000,
            browser_wait_ms: SIGN_IN_BROWSER_WAIT_MS,
            lock_stale_margin_ms: 60_000,
            lock_unwritten_grace_ms: 5_000,
            other_sign_in_poll_ms: OTHER_SIGN_IN_POLL_MS,
            token_file_poll_ms: 500,
            token_store_max_bytes: 4 * 1024 * 1024,
        },
        log_throttle: LogThrottleLimits {
            burst: 10,
            interval_ms: 10_000,
            max_kinds: 1_000,
        },
        trap_notice_interval_ms: 60_000,
    }
}

/// [`host_limits`] as JSON, for the WASM facade.
pub fn host_limits_json() -> String {
    serde_json::to_string(&host_limits()).unwrap_or_else(|_| "{}".to_string())
}
