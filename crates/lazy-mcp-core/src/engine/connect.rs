//! Connections to upstream servers: opening, the `initialize` handshake, listing
//! with pagination, the single-flight `ensure_connected`, and every way a
//! connection ends (done, idle, crash, timeout, auth).

use super::{
    Connection, Engine, ForwardedCall, LogLevel, Pending, Phase, Purpose, QueuedCall, TimerPurpose,
    MAX_LIST_PAGES,
};
use crate::engine::catalogue::CatalogueEntry;
use crate::engine::effects::Effect;
use crate::engine::events::ConnId;
use crate::engine::state::{ServerState, Trigger};
use crate::protocol::client_handshake::{self, InitializeOutcome, ListKind};
use crate::protocol::jsonrpc;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Why a connection attempt failed, for the state decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Failure {
    /// Exited, broke its pipe, refused, answered garbage, timed out.
    Crash,
    /// The server speaks a protocol version we do not (retrying will not help soon).
    Protocol,
}

impl Engine {
    /// Starts cataloguing servers from the queue while slots are free.
    pub(super) fn pump_catalogue_queue(&mut self) {
        loop {
            let active = self
                .conns
                .values()
                .filter(|c| c.purpose == Purpose::Catalogue)
                .count();
            if active >= self.settings.catalogue_concurrency.max(1) {
                return;
            }
            let Some(name) = self.catalogue_queue.pop_front() else {
                return;
            };
            if matches!(self.state(&name), Some(ServerState::Pending)) {
                self.open_connection(&name, Purpose::Catalogue, false);
            }
        }
    }

    pub(super) fn enqueue_catalogue(&mut self, name: &str) {
        if !self.catalogue_queue.iter().any(|queued| queued == name) {
            self.catalogue_queue.push_back(name.to_string());
        }
    }

    /// Single flight: opens a connection unless one is already on its way.
    /// Returns false when the server cannot be connected now (the caller explains why).
    pub(super) fn ensure_connected(&mut self, name: &str, interactive: bool) -> bool {
        let Some(server) = self.servers.get(name) else {
            return false;
        };
        match &server.state {
            ServerState::Connected | ServerState::Connecting | ServerState::Cataloguing => true,
            ServerState::Catalogued | ServerState::Pending | ServerState::NeedsAuth => {
                self.catalogue_queue.retain(|queued| queued != name);
                self.open_connection(name, Purpose::Connect, interactive);
                true
            }
            ServerState::Failed { retry_at_ms, .. } => {
                if self.now_ms >= *retry_at_ms || interactive {
                    self.catalogue_queue.retain(|queued| queued != name);
                    self.open_connection(name, Purpose::Connect, interactive);
                    true
                } else {
                    false
                }
            }
            ServerState::Disabled | ServerState::Dormant => false,
        }
    }

    fn open_connection(&mut self, name: &str, purpose: Purpose, interactive: bool) {
        let Some(server) = self.servers.get(name) else {
            return;
        };
        let transport = server.config.transport.clone();
        let retry_timer = server.retry_timer;
        self.cancel_timer(retry_timer);
        let conn = self.next_conn;
        self.next_conn += 1;
        let timeout = self.handshake_timeout_ms(name);
        let handshake_timer = self.set_timer(
            TimerPurpose::Handshake { conn },
            self.now_ms.saturating_add(timeout),
        );
        self.conns.insert(
            conn,
            Connection {
                server: name.to_string(),
                purpose,
                phase: Phase::Opening,
                opened_at_ms: self.now_ms,
                next_id: 1,
                pending: BTreeMap::new(),
                listed: BTreeMap::new(),
                listing: BTreeSet::new(),
                relist: BTreeSet::new(),
                live: false,
                roots_asked_at_ms: None,
                handshake_timer: Some(handshake_timer),
                init: None,
            },
        );
        if let Some(server) = self.servers.get_mut(name) {
            server.conn = Some(conn);
            server.retry_timer = None;
            server.stats.pid = None;
            server.stats.rss_bytes = None;
        }
        self.effects.push(Effect::Open {
            conn,
            server: name.to_string(),
            transport,
            interactive,
        });
        let trigger = match purpose {
            Purpose::Catalogue => Trigger::CatalogueStarted,
            Purpose::Connect => Trigger::ConnectStarted,
        };
        self.transition(name, trigger);
    }

    pub(super) fn on_connection_opened(&mut self, conn: ConnId, pid: Option<u32>) {
        let Some(connection) = self.conns.get_mut(&conn) else {
            return;
        };
        if connection.phase != Phase::Opening {
            return;
        }
        connection.phase = Phase::Initializing;
        let name = connection.server.clone();
        if let Some(server) = self.servers.get_mut(&name) {
            server.stats.pid = pid;
        }
        let params = client_handshake::initialize_params(
            &self.settings.client_name,
            &self.settings.client_version,
        );
        self.send_request(conn, "initialize", Some(params), Pending::Initialize);
    }

    /// Sends a request upstream, remembering what its answer is for. Returns its id.
    pub(super) fn send_request(
        &mut self,
        conn: ConnId,
        method: &str,
        params: Option<Value>,
        pending: Pending,
    ) -> Option<u64> {
        let connection = self.conns.get_mut(&conn)?;
        let id = connection.next_id;
        connection.next_id += 1;
        connection.pending.insert(id, pending);
        let message = jsonrpc::request(Value::from(id), method, params);
        self.effects.push(Effect::Send {
            conn,
            message: message.to_string(),
        });
        Some(id)
    }

    pub(super) fn send_upstream(&mut self, conn: ConnId, message: Value) {
        if self.conns.contains_key(&conn) {
            self.effects.push(Effect::Send {
                conn,
                message: message.to_string(),
            });
        }
    }

    pub(super) fn on_initialize_result(&mut self, conn: ConnId, outcome: Result<Value, Value>) {
        let parsed = match outcome {
            Ok(result) => client_handshake::parse_initialize_result(&result)
                .map_err(|cause| (cause, Failure::Protocol)),
            Err(error) => Err((
                format!("it refused initialize: {}", jsonrpc::error_message(&error)),
                Failure::Crash,
            )),
        };
        let init = match parsed {
            Ok(init) => init,
            Err((cause, failure)) => {
                self.connection_failed(conn, &cause, failure, true);
                return;
            }
        };
        let Some(connection) = self.conns.get_mut(&conn) else {
            return;
        };
        connection.phase = Phase::Ready;
        connection.init = Some(init.clone());
        let name = connection.server.clone();
        self.effects.push(Effect::Negotiated {
            conn,
            protocol_version: init.protocol_version.clone(),
        });
        self.send_upstream(
            conn,
            jsonrpc::notification("notifications/initialized", None),
        );
        let has_waiters = self
            .servers
            .get(&name)
            .is_some_and(|s| !s.waiters.is_empty());
        if has_waiters {
            // Calls arrived while cataloguing: keep this connection for them.
            if let Some(connection) = self.conns.get_mut(&conn) {
                connection.purpose = Purpose::Connect;
            }
        }
        // Calls flow once the first listing round is back: the live lists are then
        // compared with the catalogue, and the server has had a round trip to
        // finish its own start-up (e.g. asking for roots) before the first call.
        self.start_listing(conn, &ListKind::offered_by(&init.capabilities));
    }

    /// A server that asked for roots while starting (server-filesystem replaces its
    /// allowed directories with them, asynchronously) gets `rootsSettleMs` to apply
    /// them before the first call; any other server gets its calls at once.
    fn become_connected_after_roots(&mut self, conn: ConnId, roots_asked_at: Option<u64>) {
        let settle = self.settings.roots_settle_ms;
        match roots_asked_at.map(|at| at.saturating_add(settle)) {
            Some(due) if due > self.now_ms => {
                self.set_timer(TimerPurpose::RootsSettle { conn }, due);
            }
            _ => self.become_connected(conn),
        }
    }

    pub(super) fn on_roots_settled(&mut self, conn: ConnId) {
        if self.conns.get(&conn).is_some_and(|c| !c.live) {
            self.become_connected(conn);
        }
    }

    /// The handshake is done and calls may flow: CONNECTED, waiters forwarded.
    fn become_connected(&mut self, conn: ConnId) {
        let Some(connection) = self.conns.get_mut(&conn) else {
            return;
        };
        connection.purpose = Purpose::Connect;
        connection.live = true;
        let name = connection.server.clone();
        let latency = self.now_ms.saturating_sub(connection.opened_at_ms);
        let handshake_timer = connection.handshake_timer.take();
        self.cancel_timer(handshake_timer);
        self.transition(&name, Trigger::Connected);
        let now = self.now_ms;
        let waiters = match self.servers.get_mut(&name) {
            Some(server) => {
                server.stats.connect_latency_ms = Some(latency);
                server.last_activity_ms = now;
                server.stats.connected_at_ms = Some(now);
                std::mem::take(&mut server.waiters)
            }
            None => Vec::new(),
        };
        self.log(
            LogLevel::Info,
            Some(&name),
            format!("connected ({} call(s) were waiting)", waiters.len()),
        );
        let subscribed: Vec<String> = self
            .servers
            .get(&name)
            .map(|s| s.subscriptions.keys().cloned().collect())
            .unwrap_or_default();
        for uri in subscribed {
            let already_asked = waiters.iter().any(|w| {
                w.method == "resources/subscribe"
                    && subscription_uri(&w.params) == Some(uri.as_str())
            });
            if !already_asked {
                self.send_request(
                    conn,
                    "resources/subscribe",
                    Some(serde_json::json!({ "uri": uri })),
                    Pending::Internal,
                );
            }
        }
        for call in waiters {
            self.forward_call(conn, call);
        }
        self.arm_idle_timer(&name);
    }

    /// Sends one client call upstream with a fresh id and a request timeout.
    pub(super) fn forward_call(&mut self, conn: ConnId, call: QueuedCall) {
        let Some(connection) = self.conns.get(&conn) else {
            return;
        };
        let name = connection.server.clone();
        let upstream_id = connection.next_id;
        let timer = self.set_timer(
            TimerPurpose::Request { conn, upstream_id },
            self.now_ms.saturating_add(self.settings.request_timeout_ms),
        );
        let progress_token = call
            .params
            .as_ref()
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get("progressToken"))
            .cloned();
        let pending = Pending::Call(ForwardedCall {
            client: call.client,
            client_id: call.client_id,
            method: call.method.clone(),
            progress_token,
            timer,
        });
        if let Some(server) = self.servers.get_mut(&name) {
            server.last_activity_ms = self.now_ms;
        }
        self.send_request(conn, &call.method, call.params, pending);
    }

    pub(super) fn arm_idle_timer(&mut self, name: &str) {
        let idle = self.settings.idle_timeout_ms;
        if idle == 0 {
            return;
        }
        let Some(server) = self.servers.get(name) else {
            return;
        };
        let at = server
            .last_activity_ms
            .max(self.now_ms)
            .saturating_add(idle);
        match server.idle_timer {
            Some(timer) if self.timers.contains_key(&timer) => self.rearm_timer(timer, at),
            _ => {
                let timer = self.set_timer(
                    TimerPurpose::Idle {
                        server: name.to_string(),
                    },
                    at,
                );
                if let Some(server) = self.servers.get_mut(name) {
                    server.idle_timer = Some(timer);
                }
            }
        }
    }

    pub(super) fn on_idle_timer(&mut self, name: &str) {
        let idle = self.settings.idle_timeout_ms;
        let Some(server) = self.servers.get(name) else {
            return;
        };
        let timer = server.idle_timer;
        if server.state != ServerState::Connected || idle == 0 {
            self.cancel_timer(timer);
            if let Some(server) = self.servers.get_mut(name) {
                server.idle_timer = None;
            }
            return;
        }
        let busy = !server.subscriptions.is_empty()
            || server
                .conn
                .and_then(|conn| self.conns.get(&conn))
                .is_some_and(|c| c.pending.values().any(|p| matches!(p, Pending::Call(_))));
        let due = server.last_activity_ms.saturating_add(idle);
        if busy || due > self.now_ms {
            let at = if busy {
                self.now_ms.saturating_add(idle)
            } else {
                due
            };
            if let Some(timer) = timer {
                self.rearm_timer(timer, at);
            }
            return;
        }
        self.log(
            LogLevel::Info,
            Some(name),
            format!("stopped after {idle} ms without calls; it stays catalogued"),
        );
        self.stop_server(name, "it was stopped after being idle");
        self.transition(name, Trigger::Stopped);
    }

    /// Sends the list requests for `kinds` (first pages).
    pub(super) fn start_listing(&mut self, conn: ConnId, kinds: &[ListKind]) {
        let Some(connection) = self.conns.get_mut(&conn) else {
            return;
        };
        let mut fresh = Vec::new();
        for kind in kinds {
            if connection.listing.insert(*kind) {
                fresh.push(*kind);
            } else {
                // Changed while being listed: list it again once this round answers.
                connection.relist.insert(*kind);
            }
        }
        let nothing_outstanding = connection.listing.is_empty();
        for kind in fresh {
            self.send_request(
                conn,
                kind.method(),
                client_handshake::list_params(None),
                Pending::List {
                    kind,
                    items: Vec::new(),
                    pages: 1,
                },
            );
        }
        if nothing_outstanding {
            self.on_listing_complete(conn);
        }
    }

    pub(super) fn on_list_response(
        &mut self,
        conn: ConnId,
        kind: ListKind,
        mut items: Vec<Value>,
        pages: u32,
        outcome: Result<Value, Value>,
    ) {
        let Some(connection) = self.conns.get(&conn) else {
            return;
        };
        let name = connection.server.clone();
        let purpose = connection.purpose;
        let finished: Option<Vec<Value>> = match outcome {
            Ok(result) => {
                let (page, next) = client_handshake::parse_list_page(kind, &result);
                items.extend(page);
                match next {
                    Some(cursor) if pages < MAX_LIST_PAGES => {
                        self.send_request(
                            conn,
                            kind.method(),
                            client_handshake::list_params(Some(&cursor)),
                            Pending::List {
                                kind,
                                items,
                                pages: pages + 1,
                            },
                        );
                        return;
                    }
                    Some(_) => {
                        self.log(
                            LogLevel::Warn,
                            Some(&name),
                            format!("{} kept returning nextCursor after {MAX_LIST_PAGES} pages; the list was cut there", kind.method()),
                        );
                        Some(items)
                    }
                    None => Some(items),
                }
            }
            Err(error) if jsonrpc::error_code(&error) == Some(jsonrpc::METHOD_NOT_FOUND) => {
                Some(Vec::new())
            }
            Err(error) => {
                self.log(
                    LogLevel::Warn,
                    Some(&name),
                    format!(
                        "{} failed: {}",
                        kind.method(),
                        jsonrpc::error_message(&error)
                    ),
                );
                match purpose {
                    Purpose::Catalogue => Some(Vec::new()),
                    Purpose::Connect => None,
                }
            }
        };
        let Some(connection) = self.conns.get_mut(&conn) else {
            return;
        };
        if connection.relist.remove(&kind) {
            self.send_request(
                conn,
                kind.method(),
                client_handshake::list_params(None),
                Pending::List {
                    kind,
                    items: Vec::new(),
                    pages: 1,
                },
            );
            return;
        }
        connection.listing.remove(&kind);
        if let Some(items) = finished {
            connection.listed.insert(kind, items);
        }
        if connection.listing.is_empty() {
            self.on_listing_complete(conn);
        }
    }

    /// A listing round finished: update the catalogue; a cataloguing connection closes.
    fn on_listing_complete(&mut self, conn: ConnId) {
        let Some(connection) = self.conns.get_mut(&conn) else {
            return;
        };
        let lists = std::mem::take(&mut connection.listed);
        let Some(init) = connection.init.clone() else {
            return;
        };
        let name = connection.server.clone();
        let purpose = connection.purpose;
        let live = connection.live;
        let roots_asked_at = connection.roots_asked_at_ms;
        self.update_catalogue(&name, init, lists);
        if purpose == Purpose::Connect {
            if !live {
                self.become_connected_after_roots(conn, roots_asked_at);
            }
            return;
        }
        // Only a completed catalogue ends a failure streak: a server that connects
        // fine but crashes on every call must keep backing off longer.
        if let Some(server) = self.servers.get_mut(&name) {
            server.crashes.succeeded();
        }
        let has_waiters = self
            .servers
            .get(&name)
            .is_some_and(|s| !s.waiters.is_empty());
        if has_waiters {
            self.become_connected_after_roots(conn, roots_asked_at);
            return;
        }
        self.stop_server(&name, "cataloguing finished");
        self.transition(&name, Trigger::CatalogueSucceeded);
        let summary = self.current_entry(&name).map(|entry| {
            format!(
                "catalogued: {} tools, {} prompts, {} resources, {} resource templates; stopped",
                entry.tools.len(),
                entry.prompts.len(),
                entry.resources.len(),
                entry.resource_templates.len()
            )
        });
        if let Some(summary) = summary {
            self.log(LogLevel::Info, Some(&name), summary);
        }
    }

    /// Writes listed kinds into the server's entry; persists when anything changed.
    fn update_catalogue(
        &mut self,
        name: &str,
        init: InitializeOutcome,
        lists: BTreeMap<ListKind, Vec<Value>>,
    ) {
        let Some(server) = self.servers.get(name) else {
            return;
        };
        let fingerprint = server.config.fingerprint.clone();
        let now = self.now_ms;
        let entry = match self.catalogue.entries.get(name) {
            Some(entry) if entry.fingerprint == fingerprint => {
                let mut entry = entry.clone();
                entry.initialize = init;
                for (kind, items) in lists {
                    *entry.list_mut(kind) = items;
                }
                entry
            }
            _ => {
                let mut entry = CatalogueEntry {
                    fingerprint,
                    catalogued_at_ms: now,
                    initialize: init,
                    tools: Vec::new(),
                    prompts: Vec::new(),
                    resources: Vec::new(),
                    resource_templates: Vec::new(),
                };
                for (kind, items) in lists {
                    *entry.list_mut(kind) = items;
                }
                entry
            }
        };
        let unchanged = self.catalogue.entries.get(name).is_some_and(|previous| {
            previous.fingerprint == entry.fingerprint
                && previous.initialize == entry.initialize
                && ListKind::ALL
                    .iter()
                    .all(|kind| previous.list(*kind) == entry.list(*kind))
        });
        if unchanged {
            return;
        }
        let mut entry = entry;
        entry.catalogued_at_ms = now;
        self.catalogue.entries.insert(name.to_string(), entry);
        self.exposure_dirty = true;
        self.persist_catalogue();
        self.report_dropped_declared_tools(name);
    }

    /// Declared tools (`tools: [...]` in config) the server does not have.
    pub(super) fn report_dropped_declared_tools(&mut self, name: &str) {
        let dropped = self.dropped_declared_tools(name);
        let Some(server) = self.servers.get_mut(name) else {
            return;
        };
        if server.stats.dropped_declared_tools == dropped {
            return;
        }
        server.stats.dropped_declared_tools = dropped.clone();
        if !dropped.is_empty() {
            let file = server.config.source.file.clone();
            self.log(
                LogLevel::Warn,
                Some(name),
                format!(
                    "declared tool(s) {} are not offered by the server and were dropped; check the \"tools\" list in {file}",
                    dropped.join(", ")
                ),
            );
        }
    }

    /// Ends the server's connection (if any), failing in-flight and waiting calls
    /// with an error saying `why`. Does not change the state.
    pub(super) fn stop_server(&mut self, name: &str, why: &str) {
        let Some(server) = self.servers.get_mut(name) else {
            return;
        };
        let conn = server.conn.take();
        let idle_timer = server.idle_timer.take();
        self.cancel_timer(idle_timer);
        if let Some(conn) = conn {
            let message = format!("MCP server '{name}' is no longer connected: {why}");
            self.drop_connection(conn, &message, true);
        }
        let message = format!("MCP server '{name}' could not take the call: {why}");
        self.fail_waiters(name, &message);
    }

    /// Forgets a connection: cancels its timers, fails its in-flight calls with
    /// `message`, and closes it when `close` (the host already knows otherwise).
    pub(super) fn drop_connection(&mut self, conn: ConnId, message: &str, close: bool) {
        let Some(connection) = self.conns.remove(&conn) else {
            return;
        };
        self.cancel_timer(connection.handshake_timer);
        for pending in connection.pending.into_values() {
            if let Pending::Call(call) = pending {
                self.cancel_timer(Some(call.timer));
                if self.clients.contains_key(&call.client) {
                    self.reply_error(
                        &call.client,
                        call.client_id,
                        jsonrpc::SERVER_UNAVAILABLE,
                        message,
                    );
                }
            }
        }
        let abandoned: Vec<String> = self
            .outbound
            .iter()
            .filter(|(_, o)| o.conn == conn)
            .map(|(id, _)| id.clone())
            .collect();
        for id in abandoned {
            self.outbound.remove(&id);
        }
        if let Some(server) = self.servers.get_mut(&connection.server) {
            if server.conn == Some(conn) {
                server.conn = None;
            }
            server.stats.pid = None;
            server.stats.rss_bytes = None;
            server.stats.connected_at_ms = None;
        }
        if close {
            self.effects.push(Effect::Close { conn });
        }
    }

    pub(super) fn fail_waiters(&mut self, name: &str, message: &str) {
        let waiters = match self.servers.get_mut(name) {
            Some(server) => std::mem::take(&mut server.waiters),
            None => return,
        };
        for call in waiters {
            self.reply_error(
                &call.client,
                call.client_id,
                jsonrpc::SERVER_UNAVAILABLE,
                message,
            );
        }
    }

    /// Opening, handshake or cataloguing failed: every waiter gets the same error.
    pub(super) fn connection_failed(
        &mut self,
        conn: ConnId,
        cause: &str,
        failure: Failure,
        close: bool,
    ) {
        let Some(connection) = self.conns.get(&conn) else {
            return;
        };
        let name = connection.server.clone();
        let error = format!("Could not connect to MCP server '{name}': {cause}");
        self.drop_connection(conn, &error, close);
        self.fail_waiters(&name, &error);
        self.log(LogLevel::Error, Some(&name), error.clone());
        let has_catalogue = self.current_entry(&name).is_some();
        self.after_failure(&name, error, has_catalogue && failure == Failure::Crash);
    }

    /// Decides the state after a failure: back to CATALOGUED when allowed and not
    /// crash-looping, else FAILED with an exponential-backoff retry time.
    pub(super) fn after_failure(&mut self, name: &str, error: String, may_stay_catalogued: bool) {
        let now = self.now_ms;
        let (window, limit, base, max) = (
            self.settings.crash_window_ms,
            self.settings.crash_limit.max(1),
            self.settings.backoff_base_ms,
            self.settings.backoff_max_ms,
        );
        let Some(server) = self.servers.get_mut(name) else {
            return;
        };
        server.stats.last_error = Some(error.clone());
        let crashes = server.crashes.record_crash(now, window);
        if may_stay_catalogued && crashes < limit {
            self.transition(name, Trigger::Stopped);
            return;
        }
        let retry_at_ms = server.crashes.next_retry_at(now, base, max);
        let error = if crashes >= limit && may_stay_catalogued {
            format!("{error} ({crashes} failures within {window} ms; not restarting until the retry time)")
        } else {
            error
        };
        let timer = self.set_timer(
            TimerPurpose::Retry {
                server: name.to_string(),
            },
            retry_at_ms,
        );
        if let Some(server) = self.servers.get_mut(name) {
            server.retry_timer = Some(timer);
        }
        self.transition(name, Trigger::Fail { error, retry_at_ms });
    }

    pub(super) fn on_retry_timer(&mut self, name: &str) {
        let warm = self.current_entry(name).is_some();
        let Some(server) = self.servers.get_mut(name) else {
            return;
        };
        server.retry_timer = None;
        if matches!(server.state, ServerState::Failed { .. }) {
            self.transition(name, Trigger::RetryDue { warm });
            if !warm {
                self.enqueue_catalogue(name);
            }
        }
    }

    pub(super) fn on_handshake_timer(&mut self, conn: ConnId) {
        let Some(connection) = self.conns.get_mut(&conn) else {
            return;
        };
        connection.handshake_timer = None;
        if connection.live {
            return;
        }
        let name = connection.server.clone();
        let phase = connection.phase;
        let timeout = self.handshake_timeout_ms(&name);
        let what = match phase {
            Phase::Opening => "the process/session did not open",
            Phase::Initializing => "it did not answer initialize",
            Phase::Ready => "it did not finish listing its tools, prompts and resources",
        };
        self.connection_failed(
            conn,
            &format!("{what} within {timeout} ms (timeout)"),
            Failure::Crash,
            true,
        );
    }

    pub(super) fn on_connection_closed(
        &mut self,
        conn: ConnId,
        reason: &str,
        exit_code: Option<i32>,
        stderr_tail: Option<&str>,
    ) {
        let Some(connection) = self.conns.get(&conn) else {
            return;
        };
        let name = connection.server.clone();
        let in_handshake = !connection.live;
        let mut cause = if reason.is_empty() {
            "the connection closed".to_string()
        } else {
            reason.to_string()
        };
        if let Some(code) = exit_code {
            cause.push_str(&format!(" (exit code {code})"));
        }
        if let Some(tail) = stderr_tail.map(str::trim).filter(|t| !t.is_empty()) {
            let tail: String = tail
                .chars()
                .rev()
                .take(400)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            cause.push_str(&format!("; stderr: {tail}"));
        }
        if in_handshake {
            self.connection_failed(conn, &cause, Failure::Crash, false);
            return;
        }
        let error = format!("MCP server '{name}' closed the connection: {cause}");
        self.drop_connection(conn, &error, false);
        if let Some(server) = self.servers.get_mut(&name) {
            let idle_timer = server.idle_timer.take();
            self.cancel_timer(idle_timer);
        }
        self.log(LogLevel::Warn, Some(&name), error.clone());
        let has_catalogue = self.current_entry(&name).is_some();
        self.after_failure(&name, error, has_catalogue);
    }

    pub(super) fn on_http_status(&mut self, conn: ConnId, status: u16) {
        let Some(connection) = self.conns.get(&conn) else {
            return;
        };
        let name = connection.server.clone();
        if status != 401 && status != 403 {
            self.log(
                LogLevel::Debug,
                Some(&name),
                format!("HTTP status {status}"),
            );
            return;
        }
        let error = format!(
            "MCP server '{name}' requires authentication (HTTP {status}); use \"Connect Now\" to sign in"
        );
        self.stop_server(
            &name,
            &format!("it requires authentication (HTTP {status})"),
        );
        self.fail_waiters(&name, &error);
        if let Some(server) = self.servers.get_mut(&name) {
            server.stats.last_error = Some(error.clone());
        }
        self.log(LogLevel::Warn, Some(&name), error);
        self.transition(&name, Trigger::AuthRequired);
    }

    /// A call for `name` from a client: forwarded now, queued behind the single
    /// connect, or refused with a clear error.
    pub(super) fn route_call(&mut self, name: &str, call: QueuedCall) {
        let Some(server) = self.servers.get(name) else {
            self.reply_error(
                &call.client,
                call.client_id,
                jsonrpc::INVALID_PARAMS,
                &format!("Lazy MCP has no server named '{name}'"),
            );
            return;
        };
        if let (ServerState::Connected, Some(conn)) = (&server.state, server.conn) {
            self.forward_call(conn, call);
            return;
        }
        let refusal = match &server.state {
            ServerState::Disabled => Some(format!(
                "MCP server '{name}' is disabled; enable it to use it"
            )),
            ServerState::Dormant => Some(format!(
                "MCP server '{name}' is dormant (autoConnect: false); enable it to use it"
            )),
            ServerState::Failed { error, retry_at_ms } if self.now_ms < *retry_at_ms => {
                Some(format!(
                    "MCP server '{name}' is unavailable: {error}. Lazy MCP retries in {} s; use \"Connect Now\" to retry at once",
                    retry_at_ms.saturating_sub(self.now_ms).div_ceil(1000)
                ))
            }
            _ => None,
        };
        if let Some(refusal) = refusal {
            self.reply_error(
                &call.client,
                call.client_id,
                jsonrpc::SERVER_UNAVAILABLE,
                &refusal,
            );
            return;
        }
        if let Some(server) = self.servers.get_mut(name) {
            server.waiters.push(call);
        }
        self.ensure_connected(name, true);
    }
}

/// The `uri` param of a subscribe/unsubscribe request.
pub(super) fn subscription_uri(params: &Option<Value>) -> Option<&str> {
    params.as_ref()?.get("uri")?.as_str()
}

/// Whether a catalogue entry matches a server's fingerprint.
pub(super) fn is_warm(entry: Option<&CatalogueEntry>, fingerprint: &str) -> bool {
    entry.is_some_and(|e| e.fingerprint == fingerprint)
}
