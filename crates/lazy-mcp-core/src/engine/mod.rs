//! Lifecycle engine: a sans-IO state machine driven by events, answering with effects.
//!
//! `Engine::handle(now_ms, event) -> Vec<Effect>` is the whole interface: no I/O, no
//! clock (time is passed in), no threads, deterministic. The host performs effects
//! and reports back with events (`open` → `connectionOpened`/`connectionClosed`,
//! `send` → `messageReceived`, `wakeAt` → `timeout`, …). The WASM host uses
//! `wire` for client and server messages (bytes in, `[effectsJson, ...payloads]`
//! out) and `handle_json_split` for every other event; `handle_json` is the same
//! with JSON strings throughout.
//!
//! Folders, by who owns what:
//! - here, the router and the contract: `router` (`Engine`: the maps, `handle`,
//!   the helpers every owner shares), `events`, `effects`, `auth_contract` (the
//!   OAuth types of the contract), `settings`, `wire` (the hot path's entry
//!   points), `diagnostics_snapshot` (the snapshot), `server_actions` (what
//!   each state lets a user do), `timers` (the one timer table and `on_timer`),
//!   `announce` (what the user is told), `settled` (`catalogueSettled`: the
//!   last busy server settled), `stable_hash`;
//! - `server/`, one upstream server: `Server` (mod.rs), `state` (the one enum,
//!   the one transition function), `connection` (a connection and its requests
//!   in flight), `calls` (queued and forwarded calls), `connect` (cataloguing
//!   queue, opening, handshake, single-flight `ensure_connected`, forwarding;
//!   `connect/machine`: the server's `ConnectMachine`, owning its current
//!   connection, waiting calls, background retry and era doubts),
//!   `era` (probing a server's protocol era), `listing` (lists with pagination
//!   into the catalogue), `upstream` (what servers send; batches split here),
//!   `connection_end` (stop, crash, timeout: what state each leaves), `idle`
//!   (the idle stop: its machine owns the idle timer and the call rate),
//!   `auth` (OAuth decisions), `backoff`, `roots`, `secret_text` (masking a
//!   server's secret values), `resource_subscriptions`, `input_required` (a
//!   modern server asking for input), `user_commands` (Enable, Disable,
//!   Connect Now, Disconnect, Refresh);
//! - `clients/`, the clients and what they see: `Clients` (mod.rs: sessions,
//!   exposure and server-to-client requests, fields private to clients/,
//!   changed from outside only through its named inputs),
//!   `gateway` (messages from clients), `raw_forwarding` (the hot path: a
//!   `tools/call` and its answer spliced as bytes), `modern_clients` and
//!   `client_listens` (MCP 2026-07-28 clients), `input_bridge` (a legacy
//!   server asking a modern client's call for input), `exposure` (what clients
//!   see, endpoint versions, `list_changed`), `tool_exposure`, `tool_calls` and
//!   `tool_vectors` (the tool index and its meta-tools), `aggregate_names`;
//! - `registry/`, config and catalogue: `config_load` (a load's file rounds as
//!   effects), `config_diff` (applying a server list), `catalogue` (the
//!   persisted blob), `catalogue_loading` (it read back at start);
//! - `trust/`: `project_approvals` (project servers waiting for approval),
//!   `held_definitions` (listings compared with the approved baseline, changed
//!   definitions held), `approved_definitions` (the shared baselines file,
//!   per-item hashes), `definition_review` (diff text and warnings).
//!
//! This file only declares and re-exports: no file under engine/ imports it.

mod announce;
pub mod auth_contract;
pub mod clients;
pub mod diagnostics_snapshot;
pub mod effects;
pub mod effects_json;
mod event_json;
pub mod events;
pub mod registry;
pub mod router;
pub mod server;
pub mod server_actions;
pub mod settings;
mod settled;
mod stable_hash;
mod timers;
pub mod trust;
pub mod wire;

pub use diagnostics_snapshot::DiagnosticsSnapshot;
pub use effects::{AnnounceAction, Effect, EndpointInfo, LogLevel};
pub use events::{ClientId, ConnId, Endpoint, Event};
pub use router::Engine;
pub use settings::{AggregateEndpoint, Root, Settings};
pub use state::ServerState;

// The modules' paths before the engine had folders by owner.
pub use clients::aggregate_names;
pub use registry::catalogue;
pub use server::{auth, backoff, roots, state};
pub use trust::{approved_definitions, definition_review, held_definitions};
