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
//! Folders, by who owns what: here the router (`router.rs`, `Engine`) and
//! the event/effect contract; `server/` (the upstream servers: `Servers` and
//! each server's machines), `clients/` (`Clients`: sessions and what they
//! see), `registry/` (config and catalogue), `trust/` (approvals and held
//! definitions). Which type owns which state, and the machines' inputs and
//! outputs: ARCHITECTURE.md, "Who owns what"; each file's own doc says the rest.
//!
//! This file only declares and re-exports: no file under engine/ imports it.

pub mod aggregate_names;
mod announce;
pub mod auth_contract;
pub mod clients;
pub mod diagnostics_snapshot;
pub mod effects;
pub mod effects_json;
mod event_fields;
mod event_json;
pub mod events;
mod outbox;
pub mod registry;
pub mod router;
pub mod server;
pub mod server_actions;
pub mod settings;
mod settings_json;
mod settled;
mod stable_hash;
pub mod state;
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
pub use registry::catalogue;
pub use server::{auth, backoff, roots};
pub use trust::{approved_definitions, definition_review, held_definitions};
