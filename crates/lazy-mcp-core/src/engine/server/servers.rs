//! `Servers`, the servers' one owner, and `Server`, one configured server.
//!
//! Their fields are private to this file: not even the rest of `server/`
//! writes them. A server's config, state (and since when) and session
//! Enable/Disable are written only here (its state only by
//! [`Servers::transition`], through `state.rs`'s `next_state`); the maps of
//! servers and connections, the next connection id, the cataloguing queue
//! and the sign-in announcements change only through the methods below.
//! `server/`'s files reach one server or connection through `server_mut` /
//! `conn_mut` (and `conn_and_server_mut` when they need both), and a
//! server's machines through `Server`'s accessors: each machine keeps its
//! own fields private (its file), so what they lend is a machine to feed
//! inputs, never a field to overwrite. What its inputs tell the host waits
//! in its outbox until the router drains it (`poll_effects`).

use crate::config::model::{ServerConfig, Transport};
use crate::engine::effects::{Effect, LogLevel};
use crate::engine::events::ConnId;
use crate::engine::outbox::Outbox;
use crate::engine::registry::catalogue::CatalogueEntry;
use crate::engine::server::backoff::CrashHistory;
use crate::engine::server::calls::{ForwardedCall, QueuedCall};
use crate::engine::server::connection::Connection;
use crate::engine::server::ctx::ServerCtx;
use crate::engine::server::machines::auth::announcements::SignInAnnouncements;
use crate::engine::server::machines::auth::machine::{AuthMachine, AuthOutput};
use crate::engine::server::machines::connect::machine::ConnectMachine;
use crate::engine::server::machines::connect::queue::CatalogueQueue;
use crate::engine::server::machines::idle::machine::IdleMachine;
use crate::engine::server::machines::resource_subscriptions::table::{Subscriber, Subscriptions};
use crate::engine::server::machines::restart::machine::RestartMachine;
use crate::engine::server::purpose::Purpose;
use crate::engine::server::stats::ServerStats;
use crate::engine::state::{next_state, ServerState, Trigger};
use crate::engine::timers::TimerTable;
use crate::shared::launch::SharedHolder;
use crate::vec_map::VecMap;
use serde_json::Value;

/// The servers' side of the engine, one owner: every configured server and
/// every open connection to one. Its fields are private to this file (the
/// compiler keeps the router, `clients/`, `registry/`, `trust/` and the
/// rest of `server/` out): they change it only through its inputs, and read
/// it through the accessors. Reading the servers is open: `Servers` derefs to its map,
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
    /// The effects its inputs yielded, until the router drains them.
    outbox: Outbox,
}

impl Default for Servers {
    fn default() -> Self {
        Servers {
            by_name: VecMap::new(),
            conns: VecMap::new(),
            next_conn: 1,
            catalogue_queue: CatalogueQueue::default(),
            sign_in_announcements: SignInAnnouncements::default(),
            outbox: Outbox::default(),
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
    /// stopped): it leaves the cataloguing queue, its subscriptions end, its
    /// retry timer is cancelled.
    pub(in crate::engine) fn withdrawn(&mut self, timers: &mut TimerTable, name: &str) {
        self.catalogue_queue.handle_gone(name);
        let Some(server) = self.by_name.get_mut(name) else {
            return;
        };
        server.subscriptions.handle_withdrawn();
        timers.cancel_armed(server.restart.take_retry_timer());
    }

    /// The persisted catalogue made `name` warm while it waited for a
    /// cataloguing: it leaves the queue and its retry timer is cancelled (the
    /// router then moves it on with `WarmCatalogueFound`).
    pub(in crate::engine) fn warm_catalogue_found(&mut self, timers: &mut TimerTable, name: &str) {
        if let Some(server) = self.by_name.get_mut(name) {
            timers.cancel_armed(server.restart.take_retry_timer());
        }
        self.catalogue_queue.handle_gone(name);
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

    /// `call` on `conn` was answered (already off its connection): its timer
    /// off, counted, and the server was active now. Only the timer table is
    /// lent, not a `ServerCtx`: this is on every warm call.
    pub(in crate::engine) fn call_served(
        &mut self,
        timers: &mut TimerTable,
        conn: ConnId,
        call: &ForwardedCall,
        now_ms: u64,
    ) {
        timers.handle_cancel(call.timer());
        let Some(name) = self.conns.get(&conn).map(|c| c.server()) else {
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

    /// The forwarded call `upstream_id` on `conn` ends unanswered (cancelled,
    /// timed out, given up): it leaves the connection's table and its timer
    /// is cancelled. Returns the call, when it was there.
    pub(in crate::engine) fn end_call(
        &mut self,
        timers: &mut TimerTable,
        conn: ConnId,
        upstream_id: u64,
    ) -> Option<Box<ForwardedCall>> {
        let call = self.take_call(conn, upstream_id)?;
        timers.handle_cancel(call.timer());
        Some(call)
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
    /// its connection's end and its answer all read it. Returns whether the
    /// call is still there.
    pub(in crate::engine) fn answer_retry(
        &mut self,
        conn: ConnId,
        upstream_id: u64,
        client: &str,
        client_id: &Value,
    ) -> bool {
        (self.conns.get_mut(&conn))
            .and_then(|c| c.answer_retry(upstream_id, client, client_id))
            .is_some()
    }

    /// The call `upstream_id` on `conn` waits for its server again: its timer
    /// is due at `at_ms` now.
    pub(in crate::engine) fn call_waits_again(
        &self,
        timers: &mut TimerTable,
        conn: ConnId,
        upstream_id: u64,
        at_ms: u64,
    ) {
        if let Some(call) = self.call(conn, upstream_id) {
            timers.handle_rearm(call.timer(), at_ms);
        }
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

    // ---- what its inputs yield ----------------------------------------------

    /// What its inputs yielded since the last drain, moved to the end of
    /// the event's `effects` (the router, right after each input).
    #[inline]
    pub(in crate::engine) fn poll_effects(&mut self, effects: &mut Vec<Effect>) {
        self.outbox.drain_into(effects);
    }

    /// Nothing yielded is left undrained (checked at each event's end).
    pub(in crate::engine) fn outbox_is_empty(&self) -> bool {
        self.outbox.is_empty()
    }

    /// The other files of server/, to yield what an input tells the host.
    pub(super) fn outbox(&mut self) -> &mut Outbox {
        &mut self.outbox
    }

    /// Yields a `log` effect about `server` (its secrets masked).
    pub(in crate::engine) fn log(
        &mut self,
        level: LogLevel,
        server: Option<&str>,
        message: String,
    ) {
        let line = self.log_line(level, server, message);
        self.outbox.push(line);
    }

    /// The one place a log line about a server gets its secrets masked
    /// (`Engine::log`, the servers' inputs and the other owners' lines about
    /// a server all come here): the `log` effect, for the caller to yield.
    pub(in crate::engine) fn log_line(
        &self,
        level: LogLevel,
        server: Option<&str>,
        message: String,
    ) -> Effect {
        let message = match server {
            Some(name) => self.mask_for_server(name, message),
            None => message,
        };
        Effect::Log {
            level,
            server: server.map(str::to_string),
            message,
        }
    }

    /// The catalogue entry of a server, when it matches its config (as `Engine::current_entry`).
    pub(in crate::engine) fn current_entry<'c>(
        &self,
        ctx: &ServerCtx<'c>,
        name: &str,
    ) -> Option<&'c CatalogueEntry> {
        let server = self.get(name)?;
        ctx.catalogue.warm(name, &server.config().fingerprint)
    }

    // ---- the state, the queue and the announcements (written only here) ------

    /// The only way a server's state changes: `next_state` applied to
    /// `trigger`. Returns the new state when it changed (the router tells
    /// the rest); an impossible pair is logged, not applied.
    pub(in crate::engine) fn transition(
        &mut self,
        ctx: &mut ServerCtx,
        name: &str,
        trigger: &Trigger,
    ) -> Option<ServerState> {
        let server = self.by_name.get_mut(name)?;
        server.connect.handle_trigger(trigger);
        match next_state(&server.state, trigger) {
            Ok(next) if next != server.state => {
                server.state = next.clone();
                server.state_since_ms = ctx.now_ms;
                Some(next)
            }
            Ok(_) => None,
            Err(error) => {
                let message = format!("engine bug: {error}");
                self.log(LogLevel::Error, Some(name), message);
                None
            }
        }
    }

    /// How many connections are cataloguing (they take the queue's slots).
    fn cataloguing(&self) -> usize {
        self.conns
            .values()
            .filter(|c| c.purpose() == Purpose::Catalogue)
            .count()
    }

    /// `name` wants cataloguing: it joins the queue (once).
    pub(in crate::engine) fn enqueue_catalogue(&mut self, name: &str) {
        self.catalogue_queue.handle_wanted(name);
    }

    /// `name` leaves the queue (it connects).
    pub(super) fn unqueue_catalogue(&mut self, name: &str) {
        self.catalogue_queue.handle_gone(name);
    }

    /// The next server to catalogue while fewer than `slots` (at least one)
    /// are cataloguing: one still PENDING (one that left that state meanwhile
    /// leaves the queue).
    pub(in crate::engine) fn next_to_catalogue(&mut self, slots: usize) -> Option<String> {
        if self.catalogue_queue.is_empty() || self.cataloguing() >= slots.max(1) {
            return None;
        }
        while let Some(name) = self.catalogue_queue.poll_next() {
            if self.by_name.get(&name).map(|s| &s.state) == Some(&ServerState::Pending) {
                return Some(name);
            }
        }
        None
    }

    /// An output of `name`'s auth machine about the sign-in announcements
    /// noted there (told or dismissed); any other output is returned.
    pub(super) fn sign_in_noted(&mut self, name: &str, output: AuthOutput) -> Option<AuthOutput> {
        let announcements = &mut self.sign_in_announcements;
        match output {
            AuthOutput::Announce => announcements.handle_needs_sign_in(name),
            AuthOutput::Told => announcements.handle_told(name),
            AuthOutput::Unannounce => announcements.handle_signed_in(name),
            AuthOutput::Undismiss => announcements.handle_sign_in(name),
            other => return Some(other),
        }
        None
    }

    /// The user dismissed the sign-in of `servers` ("Not now").
    pub(in crate::engine) fn sign_in_dismissed(&mut self, servers: Vec<String>) {
        self.sign_in_announcements.handle_dismissed(servers);
    }

    /// One announcement listing every server that newly needs sign-in, once no
    /// cataloguing is in progress; never for a dismissed or already told server.
    pub(in crate::engine) fn poll_sign_in_announcement(
        &mut self,
        may_wait: bool,
    ) -> Option<Effect> {
        let servers = &self.by_name;
        self.sign_in_announcements.poll_announcement(
            || {
                servers
                    .values()
                    .any(|s| matches!(s.state, ServerState::Pending | ServerState::Cataloguing))
            },
            |name| servers.get(name).is_some_and(|s| s.auth.needs_sign_in()),
            may_wait,
        )
    }

    // ---- one server or connection, for `server/`'s files ---------------------

    /// `name`, to feed its machines.
    pub(super) fn server_mut(&mut self, name: &str) -> Option<&mut Server> {
        self.by_name.get_mut(name)
    }

    pub(super) fn conn(&self, conn: ConnId) -> Option<&Connection> {
        self.conns.get(&conn)
    }

    pub(super) fn conn_mut(&mut self, conn: ConnId) -> Option<&mut Connection> {
        self.conns.get_mut(&conn)
    }

    /// `conn` and its server, both to feed (the server is `None` once gone).
    pub(super) fn conn_and_server_mut(
        &mut self,
        conn: ConnId,
    ) -> Option<(&mut Connection, Option<&mut Server>)> {
        let connection = self.conns.get_mut(&conn)?;
        let server = self.by_name.get_mut(connection.server());
        Some((connection, server))
    }

    /// `name` and its connection `conn` (when open), both to feed.
    pub(super) fn server_and_conn_mut(
        &mut self,
        name: &str,
        conn: Option<ConnId>,
    ) -> Option<(&mut Server, Option<&mut Connection>)> {
        let server = self.by_name.get_mut(name)?;
        let connection = conn.and_then(|c| self.conns.get_mut(&c));
        Some((server, connection))
    }

    /// Every open connection.
    pub(super) fn conns(&self) -> impl Iterator<Item = (&ConnId, &Connection)> {
        self.conns.iter()
    }

    /// A new connection, under the next id (ids are never reused).
    pub(super) fn insert_conn(&mut self, make: impl FnOnce(ConnId) -> Connection) -> ConnId {
        let conn = self.next_conn;
        self.next_conn += 1;
        self.conns.insert(conn, make(conn));
        conn
    }

    /// `conn` ends: it leaves the map.
    pub(super) fn remove_conn(&mut self, conn: ConnId) -> Option<Connection> {
        self.conns.remove(&conn)
    }

    // ---- reads ---------------------------------------------------------------

    /// The server `conn` is a connection to.
    pub(in crate::engine) fn server_of(&self, conn: ConnId) -> Option<&str> {
        self.conns.get(&conn).map(|c| c.server().as_str())
    }

    /// How `conn`'s server is reached (stdio, Streamable HTTP, legacy SSE).
    pub(in crate::engine) fn transport_of(&self, conn: ConnId) -> Option<&Transport> {
        let connection = self.conns.get(&conn)?;
        self.by_name
            .get(connection.server())
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

/// One configured server. Its fields are private to this file; the reads
/// below are what other folders see, the machines' accessors what
/// `server/`'s files feed.
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
    /// (`machines/connect/machine.rs`).
    connect: ConnectMachine,
    /// Its restart machine: crash history, backoff, retry timer (`machines/restart/machine.rs`).
    restart: RestartMachine,
    /// Its idle-stop machine: idle timer, last activity, recent calls (`machines/idle/machine.rs`).
    idle: IdleMachine,
    stats: ServerStats,
    /// Who wants `resources/updated` for which URI, and what to subscribe
    /// upstream (`machines/resource_subscriptions/table.rs`).
    subscriptions: Subscriptions,
    /// Its sign-in machine: refresh and sign-in under way, why sign-in is needed (`machines/auth/machine.rs`).
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

    /// Values the host substituted at connect time join its secrets (the
    /// one write of its config besides `Servers::config_changed`).
    pub(super) fn secrets_resolved(&mut self, values: Vec<String>) {
        let secrets = &mut self.config.secret_values;
        secrets.extend(values);
        crate::sorting::sort(secrets);
        secrets.dedup();
    }

    /// The user's Enable/Disable for this session, if any.
    pub(super) fn session_enabled(&self) -> Option<bool> {
        self.session_enabled
    }

    // ---- named inputs, for `server/`'s files ---------------------------------

    /// Its last error (Diagnostics), or none.
    pub(super) fn last_error(&mut self, error: Option<String>) {
        self.stats.handle_last_error(error);
    }

    /// Its connection `conn` is opening (`shared`: on a shared launch).
    pub(super) fn opening(&mut self, conn: ConnId, shared: bool) {
        self.connect.handle_connection_opened(conn);
        self.stats.handle_opening(shared);
    }

    /// The host started its process `pid` (or a shared one moved).
    pub(super) fn process_started(&mut self, pid: Option<u32>) {
        self.stats.handle_process_started(pid);
    }

    /// It went CONNECTED after `latency_ms`: the calls that waited for it.
    pub(super) fn connected(&mut self, latency_ms: u64) -> Vec<QueuedCall> {
        self.stats.handle_connected(latency_ms);
        self.connect.take_waiters()
    }

    /// Who shares its connection (a shared server's owner reports it).
    pub(super) fn shared(&mut self, clients: u32, holders: Vec<SharedHolder>) {
        self.stats.handle_shared(clients, holders);
    }

    /// Its connection `conn` ended.
    pub(super) fn connection_ended(&mut self, conn: ConnId) {
        self.connect.handle_connection_dropped(conn);
        self.stats.handle_connection_ended();
    }

    /// The declared tools it does not offer: whether they changed.
    pub(super) fn dropped_declared(&mut self, dropped: &[String]) -> bool {
        self.stats.handle_dropped_declared_tools(dropped)
    }

    /// Subscribers `gone` picks no longer want anything of it.
    pub(super) fn subscribers_gone(&mut self, gone: &dyn Fn(&Subscriber) -> bool) {
        self.subscriptions.handle_subscribers_gone(gone);
    }

    // ---- its machines, for `server/`'s files to feed --------------------------

    pub(super) fn connect(&self) -> &ConnectMachine {
        &self.connect
    }

    pub(super) fn connect_mut(&mut self) -> &mut ConnectMachine {
        &mut self.connect
    }

    pub(super) fn restart_mut(&mut self) -> &mut RestartMachine {
        &mut self.restart
    }

    pub(super) fn idle_mut(&mut self) -> &mut IdleMachine {
        &mut self.idle
    }

    pub(super) fn subscriptions(&self) -> &Subscriptions {
        &self.subscriptions
    }

    pub(super) fn auth(&self) -> &AuthMachine {
        &self.auth
    }

    /// Its auth machine, with what the machine reads of the server.
    pub(super) fn auth_parts(&mut self) -> (&mut AuthMachine, &ServerState, &ServerConfig) {
        (&mut self.auth, &self.state, &self.config)
    }
}
