//! The upstream servers: each one's config and state, its connection, the
//! calls that wait for it, its crash history, sign-in and subscriptions; the
//! queue of servers to catalogue and the sign-in announcements.
//!
//! Their state has one owner, [`Servers`] (`servers.rs`, with [`Server`]):
//! their fields are private to that file, and `Connection`'s own state to
//! `connection.rs`. Its inputs that emit are handed a `ServerCtx` (`ctx.rs`:
//! effects, timers, clock; settings, catalogue read only; the clients and
//! the pins through `reads.rs`'s traits, which `clients/` and `trust/`
//! implement: they sit above `server/`, which imports neither) and return
//! what the router must do. The router's entries that carry it out where it
//! also reaches the clients, the announcements or a state change are in
//! `router/server.rs` and its files (named after the file here they carry
//! out), so nothing here imports the router. Code elsewhere (the
//! router, `clients/`, `registry/`, `trust/`, Diagnostics) goes through `Servers`' methods: an
//! input that says what happened (`add`, `config_changed`, `withdrawn`,
//! `drop_waiters`, `take_call`, `call_served`, `subscribe`, …) or a read. A
//! server's state changes only in `Servers::transition`, through `engine/state.rs`'s
//! `next_state`.
//!
//! Order of the rooms, top to bottom (a room imports only rooms below it;
//! each names `Servers` through this file): the owner's inputs, the
//! `impl Servers` files (`resource_subscriptions`, `era`, `listing` →
//! `connect`, `handshake`, `http_transport` → `auth`, `connection_end`,
//! `idle`, `input_required`, `registry_reads`, `restart`, `secret_text`,
//! `transition`, `upstream`, `user_commands`, `wanted`) → the owner
//! (`servers`) → `connection` (it holds the per-connection machines) →
//! `machines` (the state the owner holds as fields: auth, connect,
//! handshake, HTTP transport, idle, listing, resource subscriptions,
//! restart) → `ctx` → `reads`, `pending` → the leaves (`calls`, `purpose`,
//! `failure_kind`, `backoff`, `stats`, `roots`).

pub mod auth;
pub mod backoff;
pub(super) mod calls;
pub(super) mod connect;
pub(super) mod connection;
pub(super) mod connection_end;
pub(super) mod ctx;
pub(super) mod era;
pub(super) mod failure_kind;
pub(super) mod handshake;
pub(super) mod http_transport;
pub(super) mod idle;
pub(super) mod input_required;
pub(super) mod listing;
pub(super) mod machines;
pub(super) mod pending;
pub(super) mod purpose;
pub(super) mod reads;
mod registry_reads;
pub(super) mod resource_subscriptions;
pub(super) mod restart;
pub mod roots;
pub(super) mod secret_text;
mod servers;
pub(super) mod stats;
pub(super) mod transition;
pub(super) mod upstream;
pub(super) mod user_commands;
pub(super) mod wanted;

pub(in crate::engine) use machines::resource_subscriptions::table::Subscriber;
pub(in crate::engine) use servers::{Server, Servers};
