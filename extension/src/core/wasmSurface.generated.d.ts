// Generated: wasm-bindgen's declarations of crates/lazy-mcp-wasm (node scripts/wasm-surface.mjs after a build). Do not edit.

/**
 * The lifecycle engine (see docs/engine-events-effects.md): one event in as
 * JSON, the effects to perform out as a JSON array.
 */
export class Engine {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * The persisted catalogue as UTF-8 bytes of its own (`engine/wire.rs`).
     * Returns what `handleSplit` returns.
     */
    catalogueLoaded(now_ms: number, blob: Uint8Array | number[]): string[];
    /**
     * A gateway client's message as UTF-8 bytes of its own (never escaped inside an
     * event's JSON; each `serve --stdio` line). `endpoint`: the server name, or none
     * for the aggregate endpoint. Returns the parts `handleSplit` returns (a warm
     * call's effects in their compact form, `#` first: `engine/wire.rs`
     * `client_message_compact`), joined into one string ([`joined`]).
     */
    clientMessage(now_ms: number, client: string, endpoint: string | null | undefined, message: Uint8Array | number[]): string;
    /**
     * A gateway client's POST body as UTF-8 bytes, read and served in one
     * crossing (`engine/wire.rs` `client_post_compact`): part 0 is the body's
     * routing (`ClientBody` JSON, or its compact form: `#` first), then what
     * `handleSplit` returns for its messages (none when the gateway will refuse
     * the body; a warm call's effects in their compact form, `#` first), the
     * parts joined into one string ([`joined`]). `protocol_version`, `method`,
     * `name`: the POST's `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
     * headers, when present. `in_session`: the POST belongs to a session;
     * `client` is that session, or the one the gateway will open for this body.
     */
    clientPost(now_ms: number, client: string, endpoint: string | null | undefined, body: Uint8Array | number[], protocol_version: string | null | undefined, method: string | null | undefined, name: string | null | undefined, in_session: boolean): string;
    /**
     * The held definitions of `server` (or only `item`) to review: approved and
     * current text, unified diff and warnings (`DefinitionsReview` JSON).
     */
    definitionsReview(server: string, item?: string | null): string;
    /**
     * An event (JSON) in, its effects out, the messages of `send`, `reply` and
     * `notifyClient` effects as strings of their own: element 0 is the effects' JSON
     * (those `message`s empty), then one string per such effect, in order
     * (wasm-bindgen decodes each with the native TextDecoder). Measured faster than
     * escaping them inside the effects' JSON (bench/boundary.mjs); the host routes
     * by the effects' `client`/`id`/`progressToken` without parsing the messages.
     */
    handleSplit(now_ms: number, event_json: string): string[];
    /**
     * The embedding table for hybrid tool search (issue 27), as the bytes the
     * host read from `source` (empty when there was no file: search stays
     * lexical). When the engine asks for it (`readEmbeddingTable`), or once at start; the effects (a log line, maybe
     * `persistCatalogue` with the tool vectors) in the split form.
     */
    loadEmbeddingModel(now_ms: number, source: string, table: Uint8Array | number[]): string[];
    /**
     * `text` about `server` with that server's secret values masked.
     */
    maskText(server: string, text: string): string;
    /**
     * One message from upstream connection `conn`, as UTF-8 bytes of its own.
     * Returns the parts `handleSplit` returns (a warm call's effects in their
     * compact form, `#` first: `engine/wire.rs` `message_received_compact`),
     * joined into one string ([`joined`]). HTTP: `reply_of`, the request whose POST's reply carried it
     * (`engine/wire.rs` `reply_message_bytes`): then part 0 comes first, `"1"`
     * while that request still awaits its answer (report the reply's end with
     * `replyEnded`), `""` once it does not.
     */
    messageReceived(now_ms: number, conn: number, message: Uint8Array | number[], reply_of?: number | null): string;
    /**
     * `settings_json`: engine settings, every field optional.
     */
    constructor(settings_json: string);
    /**
     * The host ships an embedding table: the engine asks for its bytes
     * (`readEmbeddingTable`) when a search first needs them. Effects as
     * `handleSplit` returns them.
     */
    offerEmbeddingModel(now_ms: number): string[];
    /**
     * The "MCP Diagnostics" Markdown for this engine's state and last config
     * load, with the host's facts (`ReportContext`: host, folders, home, links,
     * clock; unreadable, an empty one).
     */
    report(context_json: string): string;
    snapshot(): string;
}

export class SharedOwner {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * A client attachment's message, its UTF-8 bytes → where its effects lie (`effects_out`).
     */
    clientMessage(attach: number, message: Uint8Array | number[], now_ms: number): number;
    /**
     * One `MuxEvent` as JSON at `now_ms` (the owner's clock) → where its
     * effects lie in `memory` (`effects_out`).
     */
    handle(event_json: string, now_ms: number): number;
    /**
     * The module's `WebAssembly.Memory`, where the effects lie.
     */
    memory(): { readonly buffer: ArrayBuffer };
    /**
     * `graceMs`: how long a used process waits for a next client after its
     * last one left (`daemon run --grace-ms`; the core's `HANDOVER_GRACE_MS`
     * when left out); `lingerMs`: how long an owner holding nothing stays
     * (`--linger-ms`; the core's `sharedOwner.lingerMs` when left out). One
     * constructor instead of a setter each: fewer exports in the `.wasm`.
     */
    constructor(grace_ms?: number | null, linger_ms?: number | null);
    /**
     * When the owner exits (`Mux::owner_exit_in`): -1 while it holds
     * something (`hostHolds`: the owner's sockets not attached and processes
     * still closing), else the milliseconds left (0: now).
     */
    ownerExitIn(now_ms: number, host_holds: number): number;
    /**
     * A server process's message, its UTF-8 bytes → where its effects lie (`effects_out`).
     */
    serverMessage(process: number, message: Uint8Array | number[], now_ms: number): number;
    /**
     * `lazy-mcp daemon status` at `now_ms`: one row per process, JSON.
     */
    status(now_ms: number): string;
}

/**
 * [`client_body`] from UTF-8 bytes (what the gateway read from the socket). A
 * payload crosses into WASM as a `Uint8Array` (one copy; wasm-bindgen passes a
 * JS string by a per-character loop over its ASCII part, several times slower
 * for megabytes); invalid UTF-8 becomes U+FFFD (`engine::wire::text_of`).
 */
export function clientBodyBytes(body: Uint8Array | number[], headers_json?: string | null): string;

export function coreVersion(): string;

/**
 * The numbers the host's I/O runs by (`HostLimits` as JSON; lazy_mcp_core::host_limits):
 * HTTP, gateway sessions, start-until-listed, waits, stdio stops, sign-ins, log floods.
 * The JSON is `host_limits()`'s, written by `cargo run -p lazy-mcp-contract` (a test fails
 * when it is stale): returned as it is, the .wasm carries no serializer for it.
 */
export function hostLimits(): string;

/**
 * Whether an upstream HTTP request that failed without an answer (`code`:
 * Node's error code, else its message; `first`: the connection's first
 * exchange) ends its connection, else it fails that request only
 * (lazy_mcp_core::http_request_error).
 */
export function httpRequestErrorEndsConnection(code: string, first: boolean): boolean;

/**
 * What an upstream HTTP answer's status means for its connection (an
 * `HttpVerdict` name; lazy_mcp_core::http_status). `exchange` is an `HttpExchange`.
 */
export function httpStatusVerdict(exchange: string, status: number, oauth: boolean, session: boolean): string;

/**
 * After waiting `elapsedMs` for `wait` (a `host_waits::Wait` code: 0 the
 * owner's full queue, 1 a starting owner, 2 a started one, 3 another's
 * sign-in): look again after the milliseconds returned, or give up (-1;
 * lazy_mcp_core::host_waits). `random`: any uniformly drawn u32.
 */
export function nextTry(wait: number, elapsed_ms: number, random: number): number;

/**
 * Config problems → which are squiggled and which notified (`PresentationInput` in,
 * `Presentation` out; see lazy_mcp_core::problem_presentation).
 */
export function presentProblems(input_json: string): string;

/**
 * Display form of servers: a JSON array of `ServerConfig` in, the same array
 * with every secret masked (`ServerConfig::redacted`) out. Input that is not
 * such an array gives `{"error": "..."}` (the message never echoes a value).
 */
export function redactedServers(servers_json: string): string;

/**
 * The server action (`ServerAction`, e.g. `signIn`) a Diagnostics link's verb
 * (`lazy-mcp://sign-in?server=…`) names; `undefined` for any other verb.
 */
export function serverActionOfLinkVerb(verb: string): string | undefined;

/**
 * The client ↔ owner wire version (the owner's socket name carries it).
 */
export function sharedProtocol(): number;

/**
 * Whether a sign-in's authorization URL may be opened in a browser:
 * `{"open": true}` or `{"open": false, "error": "..."}` (lazy_mcp_core::sign_in_url).
 */
export function signInUrlVerdict(url: string): string;

/**
 * Approve or revoke project servers (`TrustRequest` in, `TrustEdit` out: the
 * approvals file's new text, which the host writes).
 */
export function trustEdit(request_json: string): string;
