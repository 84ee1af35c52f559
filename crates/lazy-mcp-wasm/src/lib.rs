//! wasm-bindgen facade over lazy-mcp-core. Big values cross as JSON strings
//! (measured faster than serde-wasm-bindgen for large objects); messages on the
//! hot path cross on their own, UTF-8 bytes in and strings out, never escaped
//! inside another JSON document (bench/boundary.mjs). No logic lives here.

use lazy_mcp_core::diagnostics::{engine_report, ReportContext};
mod owner_json;
mod shared_owner;

use wasm_bindgen::prelude::*;

#[wasm_bindgen(js_name = coreVersion)]
pub fn core_version() -> String {
    lazy_mcp_core::CORE_VERSION.to_string()
}

/// File contents in (`NormalizeInput`), merged servers and the report out
/// (`NormalizeResult`). Hosts load config through the `Engine` (`configSources`
/// → `readFiles` → `filesRead`); this stays for `npm run bench:config` and
/// `bench:config-edit`, in the `test-exports` build only (`node scripts/build.mjs --test-exports`).
#[cfg(feature = "test-exports")]
#[wasm_bindgen(js_name = normalizeConfig)]
pub fn normalize_config(input_json: &str) -> String {
    lazy_mcp_core::config::normalize_json(input_json)
}

/// Config problems → which are squiggled and which notified (`PresentationInput` in,
/// `Presentation` out; see lazy_mcp_core::problem_presentation).
#[wasm_bindgen(js_name = presentProblems)]
pub fn present_problems(input_json: &str) -> String {
    lazy_mcp_core::problem_presentation::present_problems_json(input_json)
}

/// Approve or revoke project servers (`TrustRequest` in, `TrustEdit` out: the
/// approvals file's new text, which the host writes).
#[wasm_bindgen(js_name = trustEdit)]
pub fn trust_edit(request_json: &str) -> String {
    lazy_mcp_core::config::project_approval::trust_edit_json(request_json)
}

/// Display form of servers: a JSON array of `ServerConfig` in, the same array
/// with every secret masked (`ServerConfig::redacted`) out. Input that is not
/// such an array gives `{"error": "..."}` (the message never echoes a value).
#[wasm_bindgen(js_name = redactedServers)]
pub fn redacted_servers(servers_json: &str) -> String {
    use lazy_mcp_core::config::ServerConfig;
    match serde_json::from_str::<Vec<ServerConfig>>(servers_json) {
        Ok(servers) => {
            let redacted: Vec<ServerConfig> = servers.iter().map(ServerConfig::redacted).collect();
            serde_json::to_string(&redacted).unwrap_or_else(|_| "[]".to_string())
        }
        // Written as text (a line and a column: nothing to escape), not built as a `json!` value.
        Err(error) => format!(
            "{{\"error\":\"servers are not a ServerConfig array (line {}, column {})\"}}",
            error.line(),
            error.column()
        ),
    }
}

/// An HTTP body from a gateway client split into its messages, each with what
/// routing needs (`ClientBody`): depth-checked before anything recursive, so the
/// host never parses or re-serializes a client's JSON itself.
/// `headers_json`: the POST's `{protocolVersion, method}` headers (modern era).
/// The string form is in the `test-exports` build only: hosts pass bytes
/// ([`client_body_bytes`]).
#[cfg(feature = "test-exports")]
#[wasm_bindgen(js_name = clientBody)]
pub fn client_body(body: &str, headers_json: Option<String>) -> String {
    lazy_mcp_core::protocol::client_message::client_body_json(body, headers_json.as_deref())
}

/// [`client_body`] from UTF-8 bytes (what the gateway read from the socket). A
/// payload crosses into WASM as a `Uint8Array` (one copy; wasm-bindgen passes a
/// JS string by a per-character loop over its ASCII part, several times slower
/// for megabytes); invalid UTF-8 becomes U+FFFD (`engine::wire::text_of`).
#[wasm_bindgen(js_name = clientBodyBytes)]
pub fn client_body_bytes(body: &[u8], headers_json: Option<String>) -> String {
    lazy_mcp_core::protocol::client_message::client_body_json(
        &lazy_mcp_core::engine::wire::text_of(body),
        headers_json.as_deref(),
    )
}

/// Whether a sign-in's authorization URL may be opened in a browser:
/// `{"open": true}` or `{"open": false, "error": "..."}` (lazy_mcp_core::sign_in_url).
#[wasm_bindgen(js_name = signInUrlVerdict)]
pub fn sign_in_url_verdict(url: &str) -> String {
    lazy_mcp_core::sign_in_url::sign_in_url_verdict_json(url)
}

/// The server action (`ServerAction`, e.g. `signIn`) a Diagnostics link's verb
/// (`lazy-mcp://sign-in?server=…`) names; `undefined` for any other verb.
#[wasm_bindgen(js_name = serverActionOfLinkVerb)]
pub fn server_action_of_link_verb(verb: &str) -> Option<String> {
    lazy_mcp_core::engine::server_actions::ServerAction::from_link_verb(verb)
        .map(|action| action.as_str().to_string())
}

/// The numbers the host's I/O runs by (`HostLimits` as JSON; lazy_mcp_core::host_limits):
/// HTTP, gateway sessions, start-until-listed, waits, stdio stops, sign-ins, log floods.
/// The JSON is `host_limits()`'s, written by `cargo run -p lazy-mcp-contract` (a test fails
/// when it is stale): returned as it is, the .wasm carries no serializer for it.
#[wasm_bindgen(js_name = hostLimits)]
pub fn host_limits() -> String {
    include_str!("host_limits.generated.json").to_string()
}

/// After waiting `elapsedMs` for `wait` (a `host_waits::Wait` code: 0 the
/// owner's full queue, 1 a starting owner, 2 a started one, 3 another's
/// sign-in): look again after the milliseconds returned, or give up (-1;
/// lazy_mcp_core::host_waits). `random`: any uniformly drawn u32.
#[wasm_bindgen(js_name = nextTry)]
pub fn next_try(wait: u32, elapsed_ms: u32, random: u32) -> i32 {
    lazy_mcp_core::host_waits::Wait::from_code(wait)
        .and_then(|wait| lazy_mcp_core::host_waits::next_try(wait, u64::from(elapsed_ms), random))
        .map_or(-1, |ms| i32::try_from(ms).unwrap_or(i32::MAX))
}

/// What an upstream HTTP answer's status means for its connection (an
/// `HttpVerdict` name; lazy_mcp_core::http_status). `exchange` is an `HttpExchange`.
#[wasm_bindgen(js_name = httpStatusVerdict)]
pub fn http_status_verdict(exchange: &str, status: u16, oauth: bool, session: bool) -> String {
    lazy_mcp_core::http_status::http_status_verdict_name(exchange, status, oauth, session)
        .to_string()
}

/// Whether an upstream HTTP request that failed without an answer (`code`:
/// Node's error code, else its message; `first`: the connection's first
/// exchange) ends its connection, else it fails that request only
/// (lazy_mcp_core::http_request_error).
#[wasm_bindgen(js_name = httpRequestErrorEndsConnection)]
pub fn http_request_error_ends_connection(code: &str, first: bool) -> bool {
    use lazy_mcp_core::http_request_error::{http_request_error_verdict, HttpErrorVerdict};
    http_request_error_verdict(code, first) == HttpErrorVerdict::CloseConnection
}

/// Aborts the instance on purpose, in the `test-exports` build only (the host's
/// trap recovery is tested against the production module by a real out-of-bounds
/// access: tests/node/wasmCore.test.mjs).
#[cfg(feature = "test-exports")]
#[wasm_bindgen(js_name = debugTrap)]
#[allow(clippy::panic)]
pub fn debug_trap() {
    panic!("debugTrap called: testing the host's trap recovery");
}

/// The lifecycle engine (see docs/engine-events-effects.md): one event in as
/// JSON, the effects to perform out as a JSON array.
#[wasm_bindgen]
pub struct Engine {
    inner: lazy_mcp_core::engine::Engine,
}

#[wasm_bindgen]
impl Engine {
    /// `settings_json`: engine settings, every field optional.
    #[wasm_bindgen(constructor)]
    pub fn new(settings_json: &str) -> Result<Engine, JsError> {
        let settings: lazy_mcp_core::engine::Settings = serde_json::from_str(settings_json)
            .map_err(|e| JsError::new(&format!("invalid engine settings: {e}")))?;
        Ok(Engine {
            inner: lazy_mcp_core::engine::Engine::new(settings),
        })
    }

    /// `now_ms`: the host's wall clock, milliseconds since the Unix epoch
    /// (`Date.now()`): catalogue timestamps are persisted across restarts.
    /// Effects as one JSON document, messages escaped inside it: the form
    /// `handleSplit` was measured against (`bench/boundary.mjs`), in the
    /// `test-exports` build only; hosts and tests use `handleSplit`.
    #[cfg(feature = "test-exports")]
    pub fn handle(&mut self, now_ms: f64, event_json: &str) -> String {
        // f64 → u64 saturates: negative or NaN become 0, never a trap.
        self.inner.handle_json(now_ms as u64, event_json)
    }

    /// An event (JSON) in, its effects out, the messages of `send`, `reply` and
    /// `notifyClient` effects as strings of their own: element 0 is the effects' JSON
    /// (those `message`s empty), then one string per such effect, in order
    /// (wasm-bindgen decodes each with the native TextDecoder). Measured faster than
    /// escaping them inside the effects' JSON (bench/boundary.mjs); the host routes
    /// by the effects' `client`/`id`/`progressToken` without parsing the messages.
    #[wasm_bindgen(js_name = handleSplit)]
    pub fn handle_split(&mut self, now_ms: f64, event_json: &str) -> Vec<String> {
        self.inner.handle_json_split(now_ms as u64, event_json)
    }

    /// A gateway client's message as UTF-8 bytes of its own (never escaped inside an
    /// event's JSON; each `serve --stdio` line). `endpoint`: the server name, or none
    /// for the aggregate endpoint. Returns the parts `handleSplit` returns (a warm
    /// call's effects in their compact form, `#` first: `engine/wire.rs`
    /// `client_message_compact`), joined into one string ([`joined`]).
    #[wasm_bindgen(js_name = clientMessage)]
    pub fn client_message(
        &mut self,
        now_ms: f64,
        client: &str,
        endpoint: Option<String>,
        message: &[u8],
    ) -> String {
        joined(
            self.inner
                .client_message_compact(now_ms as u64, client, endpoint, message),
        )
    }

    /// A gateway client's POST body as UTF-8 bytes, read and served in one
    /// crossing (`engine/wire.rs` `client_post_compact`): part 0 is the body's
    /// routing (`ClientBody` JSON, or its compact form: `#` first), then what
    /// `handleSplit` returns for its messages (none when the gateway will refuse
    /// the body; a warm call's effects in their compact form, `#` first), the
    /// parts joined into one string ([`joined`]). `protocol_version`, `method`,
    /// `name`: the POST's `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
    /// headers, when present. `in_session`: the POST belongs to a session;
    /// `client` is that session, or the one the gateway will open for this body.
    #[wasm_bindgen(js_name = clientPost)]
    #[allow(clippy::too_many_arguments)]
    pub fn client_post(
        &mut self,
        now_ms: f64,
        client: &str,
        endpoint: Option<String>,
        body: &[u8],
        protocol_version: Option<String>,
        method: Option<String>,
        name: Option<String>,
        in_session: bool,
    ) -> String {
        let headers = lazy_mcp_core::protocol::modern_http::RequestHeaders {
            protocol_version,
            method,
            name,
        };
        joined(self.inner.client_post_compact(
            now_ms as u64,
            client,
            endpoint,
            body,
            headers,
            in_session,
        ))
    }

    /// One message from upstream connection `conn`, as UTF-8 bytes of its own.
    /// Returns the parts `handleSplit` returns (a warm call's effects in their
    /// compact form, `#` first: `engine/wire.rs` `message_received_compact`),
    /// joined into one string ([`joined`]). HTTP: `reply_of`, the request whose POST's reply carried it
    /// (`engine/wire.rs` `reply_message_bytes`): then part 0 comes first, `"1"`
    /// while that request still awaits its answer (report the reply's end with
    /// `replyEnded`), `""` once it does not.
    #[wasm_bindgen(js_name = messageReceived)]
    pub fn message_received(
        &mut self,
        now_ms: f64,
        conn: f64,
        message: &[u8],
        reply_of: Option<f64>,
    ) -> String {
        let (now_ms, conn) = (now_ms as u64, conn as u64);
        joined(match reply_of {
            None => self.inner.message_received_compact(now_ms, conn, message),
            Some(id) => self
                .inner
                .reply_message_bytes(now_ms, conn, id as u64, message),
        })
    }

    /// The host ships an embedding table: the engine asks for its bytes
    /// (`readEmbeddingTable`) when a search first needs them. Effects as
    /// `handleSplit` returns them.
    #[wasm_bindgen(js_name = offerEmbeddingModel)]
    pub fn offer_embedding_model(&mut self, now_ms: f64) -> Vec<String> {
        let effects = self.inner.offer_embedding_model(now_ms as u64);
        lazy_mcp_core::engine::effects_json::split_payloads(effects)
    }

    /// The embedding table for hybrid tool search (issue 27), as the bytes the
    /// host read from `source` (empty when there was no file: search stays
    /// lexical). When the engine asks for it (`readEmbeddingTable`), or once at start; the effects (a log line, maybe
    /// `persistCatalogue` with the tool vectors) in the split form.
    #[wasm_bindgen(js_name = loadEmbeddingModel)]
    pub fn load_embedding_model(&mut self, now_ms: f64, source: &str, table: &[u8]) -> Vec<String> {
        let effects = self
            .inner
            .load_embedding_model(now_ms as u64, source, table);
        lazy_mcp_core::engine::effects_json::split_payloads(effects)
    }

    /// The persisted catalogue as UTF-8 bytes of its own (`engine/wire.rs`).
    /// Returns what `handleSplit` returns.
    #[wasm_bindgen(js_name = catalogueLoaded)]
    pub fn catalogue_loaded(&mut self, now_ms: f64, blob: &[u8]) -> Vec<String> {
        self.inner.catalogue_loaded_bytes(now_ms as u64, blob)
    }

    pub fn snapshot(&self) -> String {
        self.inner.snapshot_json()
    }

    /// `text` about `server` with that server's secret values masked.
    #[wasm_bindgen(js_name = maskText)]
    pub fn mask_text(&self, server: &str, text: &str) -> String {
        self.inner.mask_server_text(server, text)
    }

    /// The held definitions of `server` (or only `item`) to review: approved and
    /// current text, unified diff and warnings (`DefinitionsReview` JSON).
    #[wasm_bindgen(js_name = definitionsReview)]
    pub fn definitions_review(&self, server: &str, item: Option<String>) -> String {
        let review = self.inner.definitions_review(server, item.as_deref());
        serde_json::to_string(&review).unwrap_or_else(|_| "{}".into())
    }

    /// The "MCP Diagnostics" Markdown for this engine's state and last config
    /// load, with the host's facts (`ReportContext`: host, folders, home, links,
    /// clock; unreadable, an empty one).
    pub fn report(&self, context_json: &str) -> String {
        let ctx: ReportContext = serde_json::from_str(context_json).unwrap_or_default();
        engine_report(&ctx, &self.inner)
    }
}

/// The parts of a hot-path crossing (`clientPost`, `clientMessage`, `messageReceived`) as one
/// string, each after the first preceded by U+001E (record separator), which no
/// part contains: the routing and effects are JSON this crate writes, the
/// messages JSON the core validated or wrote, and JSON text holds no raw control
/// character. One string crosses instead of an array of strings (each its own
/// call out to JavaScript, decoding and table slot); the host cuts it at the
/// separators, the last message not searched (`engineDriver.ts`).
fn joined(parts: Vec<String>) -> String {
    parts.join("\u{1e}")
}
