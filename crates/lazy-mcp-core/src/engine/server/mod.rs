//! The upstream servers: each one's config and state, its connection, the
//! calls that wait for it, its crash history, sign-in and subscriptions; the
//! queue of servers to catalogue and the sign-in announcements.
//!
//! Their state has one owner, [`Servers`]: its fields, and those of
//! [`Server`] and `Connection`, are private to this folder. Its inputs that
//! emit are handed a `ServerCtx` (`ctx.rs`: effects, timers, clock; settings,
//! catalogue, clients and pins read only) and return what the router must do; the
//! `impl Engine` blocks left here are the router's entries for what also
//! reaches the clients, the announcements or a state change. Code elsewhere
//! (the router, `clients/`, `registry/`, `trust/`, Diagnostics) goes through
//! `Servers`' methods: an input that says what happened (`add`, `config_changed`, `withdrawn`, `drop_waiters`,
//! `take_call`, `call_served`, `subscribe`, …) or a read. A server's state
//! changes only in `transition.rs`, through `state.rs`'s `next_state`.

pub mod auth;
pub mod backoff;
pub(super) mod calls;
pub(super) mod connect;
pub(super) mod connection;
pub(super) mod connection_end;
pub(super) mod ctx;
pub(super) mod era;
pub(super) mod handshake;
pub(super) mod http_transport;
pub(super) mod idle;
pub(super) mod input_required;
pub(super) mod listing;
pub(super) mod resource_subscriptions;
pub(super) mod restart;
pub mod roots;
pub(super) mod secret_text;
pub mod state;
pub(super) mod stats;
pub(super) mod transition;
pub(super) mod upstream;
pub(super) mod user_commands;
pub(super) mod wanted;

use crate::config::model::{ServerConfig, Transport};
use crate::engine::events::ConnId;
use crate::engine::timers::TimerId;
use crate::vec_map::VecMap;
use auth::announcements::SignInAnnouncements;
use auth::machine::AuthMachine;
use backoff::CrashHistory;
use calls::{ForwardedCall, QueuedCall};
use connect::machine::ConnectMachine;
use connect::queue::CatalogueQueue;
use connection::Connection;
use idle::machine::IdleMachine;
pub(in crate::engine) use resource_subscriptions::table::Subscriber;
use resource_subscriptions::table::Subscriptions;
use restart::machine::RestartMachine;
use serde_json::Value;
use state::ServerState;
use stats::ServerStats;

/// The servers' side of the engine, one owner: every configured server and
/// every open connection to one. Its fields are private to `server/` (the
/// compiler keeps the router, `clients/`, `registry/` and `trust/` out):
/// they change it only through its inputs, and read it through the
/// accessors. Reading the servers is open: `Servers` derefs to its map,
/// read-only (there is no `DerefMut`).
#[derive(Debug)]
pub(in crate::engine) struct Servers {
    by_name: VecMap<String, Server>,
    conns: VecMap<ConnId, Connection>,
    /// The id the next connection gets.
    next_conn: ConnId,
    /// Servers waiting to be catalogued, one at a time per free slot.
    catalogue_queue: CatalogueQueue,
    /// Which servers that need sign-in were announced or dismissed.
    sign_in_announcements: SignInAnnouncements,
}

impl Default for Servers {
    fn default() -> Self {
        Servers {
            by_name: VecMap::new(),
            conns: VecMap::new(),
            next_conn: 1,
            catalogue_queue: CatalogueQueue::default(),
            sign_in_announcements: SignInAnnouncements::default(),
        }
    }
}

impl std::ops::Deref for Servers {
    type Target = VecMap<String, Server>;
    fn deref(&self) -> &Self::Target {
        &self.by_name
    }
}

impl<'a> IntoIterator for &'a Servers {
    type Item = (&'a String, &'a Server);
    type IntoIter = <&'a VecMap<String, Server> as IntoIterator>::IntoIter;
    fn into_iter(self) -> Self::IntoIter {
        self.by_name.iter()
    }
}

impl Servers {
    /// The host measured `name`'s process: kept while it has a connection.
    pub(in crate::engine) fn process_stats(&mut self, name: &str, rss_bytes: u64) {
        if let Some(server) = self.by_name.get_mut(name) {
            if server.connect.conn().is_some() {
                server.stats.handle_measured(rss_bytes);
            }
        }
    }

    // ---- inputs from the config (`registry/`) -------------------------------

    /// A server newly configured: DISABLED until the registry reconciles it.
    pub(in crate::engine) fn add(&mut self, config: ServerConfig, now_ms: u64) {
        self.by_name.insert(
            config.name.clone(),
            Server {
                config,
                state: ServerState::Disabled,
                state_since_ms: now_ms,
                session_enabled: None,
                connect: ConnectMachine::default(),
                restart: RestartMachine::default(),
                idle: IdleMachine::new(now_ms),
                stats: ServerStats::default(),
                subscriptions: Subscriptions::default(),
                auth: AuthMachine::default(),
            },
        );
    }

    /// A server removed from the configuration (stopped and withdrawn first).
    pub(in crate::engine) fn remove(&mut self, name: &str) {
        self.by_name.remove(name);
    }

    /// `name`'s entry changed but not how it is launched: the new config, its
    /// crash history forgotten. When the launch changed (`relaunched`), what
    /// its old process measured is forgotten too.
    pub(in crate::engine) fn config_changed(
        &mut self,
        name: &str,
        config: ServerConfig,
        relaunched: bool,
    ) {
        if let Some(server) = self.by_name.get_mut(name) {
            server.config = config;
            server.restart.handle_reset();
            if relaunched {
                server.connect.handle_relaunched();
                server.stats.handle_relaunched();
            }
        }
    }

    /// `name` is withdrawn (disabled, dormant, removed, relaunched; already
    /// stopped): it leaves the cataloguing queue, its subscriptions end. Returns its retry timer, to cancel.
    pub(in crate::engine) fn withdrawn(&mut self, name: &str) -> Option<TimerId> {
        self.catalogue_queue.handle_gone(name);
        let server = self.by_name.get_mut(name)?;
        server.subscriptions.handle_withdrawn();
        server.restart.take_retry_timer()
    }

    // ---- inputs from the user (`user_commands.rs`) ---------------------------

    /// The user enabled or disabled `name` for this session (never written
    /// to its config).
    pub(in crate::engine) fn enabled_for_session(&mut self, name: &str, enabled: bool) {
        if let Some(server) = self.by_name.get_mut(name) {
            server.session_enabled = Some(enabled);
        }
    }

    // ---- inputs from the clients' side (`clients/`) --------------------------

    /// Calls waiting for a connect that `gone` says are no longer wanted
    /// (their client cancelled them or left) are dropped, on every server.
    /// Returns whether any was.
    pub(in crate::engine) fn drop_waiters(&mut self, gone: &dyn Fn(&QueuedCall) -> bool) -> bool {
        let mut dropped = false;
        for server in self.by_name.values_mut() {
            dropped |= server.connect.handle_calls_gone(gone);
        }
        dropped
    }

    /// Whether a call `of` picks waits for a server's connect.
    pub(in crate::engine) fn any_waiter(&self, of: &dyn Fn(&QueuedCall) -> bool) -> bool {
        self.by_name.values().any(|s| s.connect.waits_for(of))
    }

    /// A call on `conn` was answered: counted, and the server was active now.
    pub(in crate::engine) fn call_served(&mut self, conn: ConnId, now_ms: u64) {
        let Some(name) = self.conns.get(&conn).map(|c| &c.server) else {
            return;
        };
        if let Some(server) = self.by_name.get_mut(name) {
            server.stats.handle_call_served();
            server.idle.handle_activity(now_ms);
        }
    }

    /// The forwarded call `upstream_id` on `conn` leaves the connection's
    /// table (answered, cancelled, timed out): the call, when it is one.
    pub(in crate::engine) fn take_call(
        &mut self,
        conn: ConnId,
        upstream_id: u64,
    ) -> Option<Box<ForwardedCall>> {
        self.conns.get_mut(&conn)?.take_call(upstream_id)
    }

    /// A call taken with [`Servers::take_call`] waits on (for its client's retry).
    pub(in crate::engine) fn put_call_back(
        &mut self,
        conn: ConnId,
        upstream_id: u64,
        call: ForwardedCall,
    ) {
        if let Some(connection) = self.conns.get_mut(&conn) {
            connection.put_call_back(upstream_id, Box::new(call));
        }
    }

    /// The forwarded call `upstream_id` on `conn` (read only).
    pub(in crate::engine) fn call(&self, conn: ConnId, upstream_id: u64) -> Option<&ForwardedCall> {
        self.conns.get(&conn)?.call(upstream_id)
    }

    /// A call whose client was answered `input_required` (`input_bridge.rs`)
    /// was sent again by `client` as `client_id`: its answer goes to that
    /// retry. Whom to answer stays the server's call's own field: its timeout,
    /// its connection's end and its answer all read it. Returns the call's
    /// timer, when the call is still there.
    pub(in crate::engine) fn answer_retry(
        &mut self,
        conn: ConnId,
        upstream_id: u64,
        client: &str,
        client_id: &Value,
    ) -> Option<TimerId> {
        let call = self.conns.get_mut(&conn)?.call_mut(upstream_id)?;
        call.answer_to(client, client_id);
        Some(call.timer())
    }

    /// `subscriber` wants `resources/updated` for `uri` of `name` (the
    /// server's own subscription is brought in step by
    /// `Servers::sync_upstream_subscriptions`).
    pub(in crate::engine) fn subscribe(&mut self, name: &str, uri: &str, subscriber: Subscriber) {
        if let Some(server) = self.by_name.get_mut(name) {
            server.subscriptions.handle_subscribe(uri, subscriber);
        }
    }

    /// `subscriber` no longer wants `uri` of `name`. With `forget_unwanted`,
    /// a URI nobody wants any more is forgotten at once. Returns whether
    /// others still want it.
    pub(in crate::engine) fn unsubscribe(
        &mut self,
        name: &str,
        uri: &str,
        subscriber: &Subscriber,
        forget_unwanted: bool,
    ) -> bool {
        self.by_name.get_mut(name).is_some_and(|server| {
            server
                .subscriptions
                .handle_unsubscribe(uri, subscriber, forget_unwanted)
        })
    }

    /// URIs of `name` nobody wants any more are forgotten.
    pub(in crate::engine) fn forget_unwanted(&mut self, name: &str) {
        if let Some(server) = self.by_name.get_mut(name) {
            server.subscriptions.handle_forget_unwanted();
        }
    }

    // ---- reads ---------------------------------------------------------------

    /// The server `conn` is a connection to.
    pub(in crate::engine) fn server_of(&self, conn: ConnId) -> Option<&str> {
        self.conns.get(&conn).map(|c| c.server.as_str())
    }

    /// How `conn`'s server is reached (stdio, Streamable HTTP, legacy SSE).
    pub(in crate::engine) fn transport_of(&self, conn: ConnId) -> Option<&Transport> {
        let connection = self.conns.get(&conn)?;
        self.by_name
            .get(&connection.server)
            .map(|s| &s.config.transport)
    }

    /// Every forwarded call in flight: its connection, upstream id and record
    /// (a list, not an iterator: one copy of this loop in the `.wasm`, not one
    /// per caller; none of them is on the hot path).
    pub(in crate::engine) fn calls(&self) -> Vec<(ConnId, u64, &ForwardedCall)> {
        let mut calls = Vec::new();
        for (conn, c) in &self.conns {
            for (upstream_id, call) in c.calls() {
                calls.push((*conn, upstream_id, call));
            }
        }
        calls
    }
}

/// One configured server. Its fields are private to `server/`; the reads
/// below are what other folders see.
#[derive(Debug)]
pub(in crate::engine) struct Server {
    config: ServerConfig,
    state: ServerState,
    /// When the server entered its current state.
    state_since_ms: u64,
    /// Session-only Enable/Disable from the user (never written to config).
    session_enabled: Option<bool>,
    /// Its connect machine: its current connection, the calls waiting for the
    /// single connect in flight, background retry, what to ask of its era next
    /// (`connect/machine.rs`).
    connect: ConnectMachine,
    /// Its restart machine: crash history, backoff, retry timer (`restart/machine.rs`).
    restart: RestartMachine,
    /// Its idle-stop machine: idle timer, last activity, recent calls (`idle/machine.rs`).
    idle: IdleMachine,
    stats: ServerStats,
    /// Who wants `resources/updated` for which URI, and what to subscribe
    /// upstream (`resource_subscriptions/table.rs`).
    subscriptions: Subscriptions,
    /// Its sign-in machine: refresh and sign-in under way, why sign-in is needed (`auth/machine.rs`).
    auth: AuthMachine,
}

impl Server {
    pub(in crate::engine) fn config(&self) -> &ServerConfig {
        &self.config
    }

    pub(in crate::engine) fn state(&self) -> &ServerState {
        &self.state
    }

    /// When the server entered its current state.
    pub(in crate::engine) fn state_since_ms(&self) -> u64 {
        self.state_since_ms
    }

    pub(in crate::engine) fn stats(&self) -> &ServerStats {
        &self.stats
    }

    /// The cataloguing under way is an automatic retry (hosts show no progress).
    pub(in crate::engine) fn background(&self) -> bool {
        self.connect.is_background()
    }

    pub(in crate::engine) fn crashes(&self) -> &CrashHistory {
        self.restart.crashes()
    }

    /// Its idle stop: the call rate and idle time Diagnostics show.
    pub(in crate::engine) fn idle(&self) -> &IdleMachine {
        &self.idle
    }

    pub(in crate::engine) fn retry_timer(&self) -> Option<TimerId> {
        self.restart.retry_timer()
    }
}
