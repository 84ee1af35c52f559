//! The clients: their sessions, what they are shown (exposure, the tool
//! index), and their calls on the way in (gateway, raw forwarding, modern-era
//! requests and listens).
//!
//! Their state has one owner, [`Clients`] (`machine.rs`): its fields are
//! private to that file, where the answers owed, the held endpoint versions,
//! the gateway sessions and the input bridges change through named inputs.
//! Its sub-machines (exposure, definition starts, sessions, bridges) change
//! through named inputs there too. The router (`router/clients.rs` and
//! `router/clients/`, at the names of the files here) hands `Clients` an input
//! with what it reads of the servers (`ServedView`, lent with the context by
//! `Engine::with_served`) and carries out what it returns: nothing here
//! imports the router. Code elsewhere
//! (the router, `server/`, `registry/`, `trust/`) goes through `Clients`'
//! methods: an input that says
//! what happened (`exposure_changed`, `forward_server_request`,
//! `server_request_cancelled`, `connection_dropped`, `stamp_modern_reply`) or
//! a read. A client's own life is `Clients`' inputs too (`message_from`,
//! `initialized`, `client_closed`, `take_server_request`).
//! Inputs that answer a client or arm a timer take a `ClientsContext`
//! (`context.rs`: the event's effects, the timer table, the time).
//! The state `Clients` holds as fields (the sub-machines, a session, a
//! forwarded server request, …) is in `state/`, each part's fields private to
//! its file: this folder tells them what happened and reads them.
//!
//! Order of the rooms, top to bottom (a room imports only rooms below it; the
//! rooms' `impl Clients` blocks name `Clients` through this file):
//! `input_bridge` → `gateway` → `modern_clients` → `tool_calls` → `asked` →
//! `client_listens`, `tool_vectors` → `exposure` → `tool_exposure` and the
//! rooms that only need the owner and the context (`definition_starts`,
//! `endpoint_versions`, `gateway_sessions`, `raw_forwarding`, `replies`,
//! `server_reads`) → the owner, `machine` → `state` (what it holds) and the
//! leaves `context`, `call_out`.

pub(super) mod asked;
pub(super) mod call_out;
pub(super) mod client_listens;
pub(super) mod context;
pub(super) mod definition_starts;
pub(super) mod endpoint_versions;
pub(super) mod exposure;
pub(super) mod gateway;
pub(super) mod gateway_sessions;
pub(super) mod input_bridge;
mod machine;
pub(super) mod modern_clients;
pub(super) mod raw_forwarding;
mod replies;
mod server_reads;
pub(super) mod state;
pub(super) mod tool_calls;
pub(super) mod tool_exposure;
pub(super) mod tool_vectors;

pub(in crate::engine) use machine::Clients;
