//! [`Clients`], the clients' owner: its fields are private to this file.
//! A sub-machine (`Exposure`, `AnswersOwed`, `DefinitionStarts`,
//! `HeldVersions`, `GatewaySessions`, `Bridges`, `SearchModel`, a
//! `ClientSession`) keeps its fields private to its file. Every one of them
//! changes only through the named inputs here (what happened:
//! `request_read`, `listen_began`, `modern_answered`, `plan_chosen`,
//! `start_ended`, `bridge_queued`, …); the other files of `clients/` read
//! them; no `&mut` to a sub-machine leaves this file. The maps of sessions
//! and server requests are changed only here (a session begins and ends, a
//! request is kept and taken).

use super::state::answers_owed::AnswersOwed;
use super::state::bridge::{Bridge, Retried, ServerRequest};
use super::state::bridges::Bridges;
use super::state::definition_starts::{DefinitionStarts, Next};
use super::state::exposure::Exposure;
use super::state::exposure_plan::{ExposurePlan, LoadedTool};
use super::state::gateway_sessions::GatewaySessions;
use super::state::held_versions::HeldVersions;
use super::state::listen::Listen;
use super::state::outbound::OutboundRequest;
use super::state::search_model::{SearchModel, WaitingSearch};
use super::state::session::ClientSession;
use crate::engine::effects::{Effect, EndpointInfo, LogLevel};
use crate::engine::events::{ClientId, ConnId, Endpoint};
use crate::engine::outbox::Outbox;
use crate::engine::timers::TimerId;
use crate::protocol::client_handshake::ListKind;
use crate::tool_index::ToolIndex;
use crate::vec_map::{VecMap, VecSet};
use serde_json::Value;

/// The clients' side of the engine, one owner: every attached client's
/// session, what clients are shown ([`Exposure`]), and the server-to-client
/// requests waiting for a client's answer. Its fields are private to this
/// file: the router, `server/`, `registry/` and `trust/` change it only
/// through the inputs below and read it through the reads; the other files
/// of `clients/` also borrow its sub-machines (the parts at the end).
#[derive(Debug)]
pub(in crate::engine) struct Clients {
    sessions: VecMap<ClientId, ClientSession>,
    exposure: Exposure,
    /// Server-to-client requests forwarded to a client, by the id the gateway gave them.
    outbound: VecMap<String, OutboundRequest>,
    /// The next number for a gateway-made id (`lazy-mcp-N`, bridge states).
    next_outbound: u64,
    /// Forwarded calls whose legacy server asked their modern client for
    /// input (`input_bridge.rs`): few at a time (a list, not a map).
    bridges: Bridges,
    /// Answers each client is still owed, and whose input ended (`state/answers_owed.rs`).
    owed: AnswersOwed,
    /// Asking the host's MCP client to start the definitions it is offered
    /// (`definition_starts.rs`), and when each endpoint was last listed.
    starts: DefinitionStarts,
    /// A new endpoint version held back while a call of the window is under
    /// way (`endpoint_versions.rs`: VS Code's stop would cancel it).
    held_versions: HeldVersions,
    /// The HTTP gateway's sessions: last use, open streams, when to look
    /// again (`gateway_sessions.rs`: idle ones and those beyond the cap end).
    gateway_sessions: GatewaySessions,
    /// The static embedding model for hybrid tool search: offered, asked
    /// for, loaded (`state/search_model.rs`).
    search_model: SearchModel,
    /// The effects its inputs yielded, until the router drains them.
    outbox: Outbox,
}

impl Default for Clients {
    fn default() -> Self {
        Clients {
            sessions: VecMap::new(),
            exposure: Exposure::default(),
            outbound: VecMap::new(),
            next_outbound: 1,
            bridges: Bridges::default(),
            owed: AnswersOwed::default(),
            starts: DefinitionStarts::default(),
            held_versions: HeldVersions::default(),
            gateway_sessions: GatewaySessions::default(),
            search_model: SearchModel::default(),
            outbox: Outbox::default(),
        }
    }
}

impl Clients {
    // ---- a client's life ---------------------------------------------------

    /// A message from `client` on `endpoint`: its session begins with the
    /// first one (identity: the session id until `initialize` names it).
    pub(in crate::engine) fn message_from(&mut self, client: &str, endpoint: &Endpoint) {
        if let Some(session) = self.sessions.get_mut(client) {
            session.spoke_on(endpoint);
            return;
        }
        self.sessions
            .insert(client.to_string(), ClientSession::began(client, endpoint));
    }

    /// `client` sent `initialize`: what it can do, and who it is when it says.
    pub(super) fn initialized(
        &mut self,
        client: &str,
        capabilities: Value,
        identity: Option<String>,
    ) {
        if let Some(session) = self.sessions.get_mut(client) {
            session.initialized(capabilities, identity);
        }
    }

    /// The server request a client was asked as `gateway_id` (answered, or
    /// its client gone), forgotten: its connection and the server's id.
    pub(super) fn take_server_request(&mut self, gateway_id: &str) -> Option<(ConnId, Value)> {
        let request = self.outbound.remove(gateway_id)?;
        Some(request.into_upstream())
    }

    /// `client` disconnected: its session ends. Returns the ids of the server
    /// requests it was asked (each to be taken and refused upstream), or `None`
    /// for a client never seen.
    pub(super) fn client_closed(&mut self, client: &str) -> Option<Vec<String>> {
        self.owed.forget(client);
        self.gateway_sessions.handle_closed(client);
        self.sessions.remove(client)?;
        Some(
            self.outbound
                .iter()
                .filter(|(_, o)| o.client() == client)
                .map(|(id, _)| id.clone())
                .collect(),
        )
    }

    /// `client` opened listen `key`: the listen of the same key it replaced.
    pub(super) fn listen_began(
        &mut self,
        client: &str,
        key: String,
        listen: Listen,
    ) -> Option<Listen> {
        let session = self.sessions.get_mut(client)?;
        session.listen_opened(key, listen)
    }

    /// `client`'s listen `key` ended (cancelled): the listen, when it was open.
    pub(super) fn listen_ended(&mut self, client: &str, key: &str) -> Option<Listen> {
        self.sessions.get_mut(client)?.listen_closed(key)
    }

    /// `client`'s modern-era request `key` (its id as JSON text) began: what
    /// its envelope declared (`cache_hints`: its answer gets them).
    pub(super) fn modern_began(
        &mut self,
        client: &str,
        key: String,
        cache_hints: bool,
        input_capabilities: serde_json::Map<String, Value>,
        identity: Option<String>,
    ) {
        if let Some(session) = self.sessions.get_mut(client) {
            (session.modern_mut()).began(key, cache_hints, input_capabilities, identity);
        }
    }

    /// `client`'s request is handled (answered, or sent on upstream).
    pub(super) fn modern_handled(&mut self, client: &str) {
        if let Some(session) = self.sessions.get_mut(client) {
            session.modern_mut().handled();
        }
    }

    /// `client` cancelled its request `key`: it will not be answered.
    pub(super) fn modern_forgotten(&mut self, client: &str, key: &str) {
        if let Some(session) = self.sessions.get_mut(client) {
            session.modern_mut().forget(key);
        }
    }

    /// `client`'s request `key` is answered: `Some(whether the answer gets
    /// cache hints)` when it was a modern request still to be answered.
    pub(super) fn modern_answered(&mut self, client: &str, key: &str) -> Option<bool> {
        self.sessions.get_mut(client)?.modern_mut().answered(key)
    }

    // ---- what clients are shown (`exposure.rs`, `tool_exposure.rs`) --------

    /// A publication begins: the plan it starts from (the last one).
    pub(super) fn publishing(&mut self) -> ExposurePlan {
        self.exposure.publishing()
    }

    /// The plan chosen for this publication.
    pub(super) fn plan_chosen(&mut self, plan: ExposurePlan) {
        self.exposure.plan_chosen(plan);
    }

    /// A loaded tool its server no longer offers is unloaded.
    pub(super) fn loaded_tool_gone(&mut self, tool: &LoadedTool) {
        self.exposure.tool_gone(tool);
    }

    /// Each exposed server's list hashes now: the (server, `list_changed`
    /// method) pairs that changed.
    pub(super) fn lists_hashed(
        &mut self,
        lists: VecMap<(String, ListKind), u64>,
    ) -> VecSet<(String, &'static str)> {
        self.exposure.lists_hashed(lists)
    }

    /// The aggregate endpoint's version now: whether it changed.
    pub(super) fn aggregate_versioned(&mut self, version: &str) -> bool {
        self.exposure.aggregate_versioned(version)
    }

    /// The aggregate endpoint's (server, name) pairs of tools and prompts now.
    pub(super) fn aggregate_items(
        &mut self,
        tools: Vec<(String, String)>,
        prompts: Vec<(String, String)>,
    ) {
        self.exposure.aggregate_items(tools, prompts);
    }

    /// The endpoints and aggregate version to tell hosts: whether they changed.
    pub(super) fn endpoints_published(
        &mut self,
        endpoints: &[EndpointInfo],
        aggregate: &Option<String>,
    ) -> bool {
        self.exposure.endpoints_published(endpoints, aggregate)
    }

    /// `identity` loaded (`load`) or unloaded `tools`.
    pub(super) fn tools_loaded(&mut self, identity: &str, tools: &[LoadedTool], load: bool) {
        self.exposure.tools_loaded(identity, tools, load);
    }

    /// A server was disabled or removed: its loaded tools are forgotten;
    /// the identities that had some.
    pub(super) fn server_unloaded(&mut self, server: &str) -> Vec<String> {
        self.exposure.server_unloaded(server)
    }

    /// The vectors or the model changed: the search index is built again.
    pub(in crate::engine) fn search_inputs_changed(&mut self) {
        self.exposure.search_inputs_changed();
    }

    /// The search index, built over the plan's `index`-mode servers.
    pub(super) fn search_index_built(&mut self, index: ToolIndex) {
        self.exposure.search_index_built(index);
    }

    /// The search index (an empty one when none is built).
    pub(super) fn search_index(&mut self) -> &ToolIndex {
        self.exposure.search_index_or_empty()
    }

    // ---- the definition starts (`definition_starts.rs`) ---------------------

    /// A client sent something: the definition starts' quiet time starts afresh.
    #[inline]
    pub(in crate::engine) fn heard(&mut self, now_ms: u64) {
        self.starts.handle_activity(now_ms);
    }

    /// A client was answered `tools/list` on `endpoint`.
    pub(in crate::engine) fn tools_listed(&mut self, endpoint: &Endpoint, now_ms: u64) {
        self.starts.handle_listed(endpoint, now_ms);
    }

    /// Hosts were told these `endpoints` and `aggregate` version.
    pub(super) fn definitions_offered(
        &mut self,
        endpoints: &[EndpointInfo],
        aggregate: Option<&String>,
    ) {
        self.starts.handle_offered(endpoints, aggregate);
    }

    /// The offered definitions or the trust changed (`allowed`: starts may be asked).
    pub(super) fn starts_reviewed(&mut self, allowed: bool, now_ms: u64) {
        self.starts.review(allowed, now_ms);
    }

    /// A start of `endpoint`'s `version` ended (`ok`: not failed): what follows.
    pub(super) fn start_ended(
        &mut self,
        endpoint: &Endpoint,
        version: &str,
        ok: bool,
        now_ms: u64,
    ) -> Next {
        self.starts.handle_started(endpoint, version, ok, now_ms)
    }

    /// The next attempt whose pause or quiet time ended, and what it does.
    pub(super) fn start_due(&mut self, now_ms: u64) -> Option<(Endpoint, Next)> {
        self.starts.poll_due(now_ms)
    }

    /// `endpoint`'s session would be stopped while the window is busy: what follows.
    pub(super) fn start_busy(&mut self, endpoint: &Endpoint, now_ms: u64) -> Next {
        self.starts.handle_busy(endpoint, now_ms)
    }

    /// `endpoint`'s attempt is over (stopped, or left open).
    pub(super) fn start_stop_decided(&mut self, endpoint: &Endpoint) {
        self.starts.handle_stop_decided(endpoint);
    }

    // ---- the answers owed (`state/answers_owed.rs`) -------------------------------

    /// A message of `client` that gets an answer was read: one more owed.
    #[inline]
    pub(in crate::engine) fn request_read(&mut self, client: &str) {
        self.owed.request_read(client);
    }

    /// A request of `client` was dropped unanswered (cancelled): one fewer owed.
    pub(in crate::engine) fn request_dropped(&mut self, client: &str) {
        self.owed.settled_one(client);
    }

    /// The client will send nothing more: `clientSettled` once it is owed nothing.
    pub(in crate::engine) fn input_ended(&mut self, client: &str) {
        self.owed.input_ended(client);
    }

    /// At the end of each event: this event's `effects` answers settle what
    /// they answer (a drop settled its request when it happened); a client
    /// whose input ended and that is owed nothing now is told `clientSettled`
    /// (once, yielded).
    pub(in crate::engine) fn settle_answers(&mut self, effects: &[Effect], now_ms: u64) {
        if self.owed.is_idle() {
            return;
        }
        for effect in effects.iter() {
            if let Effect::Reply { client, .. } = effect {
                self.owed.settled_one(client);
                // An answer is a use of its session (the idle time counts from it).
                self.gateway_sessions.handle_answered(client, now_ms);
            }
        }
        for client in self.owed.take_settled() {
            self.outbox.push(Effect::ClientSettled { client });
        }
    }

    /// The endpoint versions' hold (`endpoint_versions.rs`) now has `timer`
    /// armed (or none: nothing held).
    pub(super) fn versions_held(&mut self, timer: Option<TimerId>) {
        self.held_versions.held(timer);
    }

    /// The endpoint versions' timer fired (the armed one is gone from the
    /// table): the end of the event publishes again, which tells the held
    /// versions once the window is quiet, or looks again later.
    pub(in crate::engine) fn endpoint_versions_timer(&mut self) {
        self.held_versions.fired();
        self.exposure.changed();
    }

    // ---- the HTTP gateway's sessions (`gateway_sessions.rs`) ----------------

    /// The gateway took a POST body of `client`: its session is used now.
    /// True when the session began with it.
    pub(super) fn gateway_posted(&mut self, client: &str, now_ms: u64) -> bool {
        self.gateway_sessions.handle_post(client, now_ms)
    }

    /// `clientStreamOpened`/`clientStreamClosed`: `client`'s GET stream.
    pub(in crate::engine) fn client_stream(&mut self, client: &str, open: bool, now_ms: u64) {
        self.gateway_sessions.handle_stream(client, open, now_ms);
    }

    /// The sessions' timer now armed (or none).
    pub(super) fn gateway_sessions_timer_set(&mut self, timer: Option<TimerId>) {
        self.gateway_sessions.set_timer(timer);
    }

    /// The sessions that end now (idle, or beyond the cap; never `keep`; a
    /// session owed an answer is not idle), and how many of them were idle.
    pub(super) fn gateway_sessions_ended(
        &mut self,
        now_ms: u64,
        policy: (u64, u64),
        keep: Option<&str>,
    ) -> (Vec<ClientId>, usize) {
        let owed = &self.owed;
        (self.gateway_sessions).review(now_ms, policy, keep, |c| owed.owes(c))
    }

    // ---- the input bridges (`input_bridge.rs`) ------------------------------

    /// The server answered the call while its client is being asked: the
    /// answer is kept for the retry (its bridge begun when it had none).
    pub(super) fn bridge_answer_held(
        &mut self,
        conn: ConnId,
        upstream_id: u64,
        outcome: Result<Value, Value>,
    ) {
        if let Some(bridge) = self.bridges.get_or_begin(conn, upstream_id) {
            bridge.answer_held(outcome);
        }
    }

    /// A server request came while the call's client is being asked: kept
    /// for the next round while fewer than `max` wait, else handed back.
    pub(super) fn bridge_queued(
        &mut self,
        conn: ConnId,
        upstream_id: u64,
        request: ServerRequest,
        max: usize,
    ) -> Option<ServerRequest> {
        match self.bridges.get_or_begin(conn, upstream_id) {
            Some(bridge) => bridge.queue(request, max),
            None => Some(request),
        }
    }

    /// The call's client was asked `asked` (input key → upstream id) under
    /// `requestState` `state`: one more round.
    pub(super) fn bridge_client_asked(
        &mut self,
        conn: ConnId,
        upstream_id: u64,
        state: String,
        asked: VecMap<String, Value>,
    ) {
        if let Some(bridge) = self.bridges.get_or_begin(conn, upstream_id) {
            bridge.client_asked(state, asked);
        }
    }

    /// The call's client retried: what it was asked, what was queued
    /// meanwhile, the answer held (empty when the call had no bridge).
    pub(super) fn bridge_retried(&mut self, conn: ConnId, upstream_id: u64) -> Retried {
        match self.bridges.get_or_begin(conn, upstream_id) {
            Some(bridge) => bridge.retried(),
            None => Default::default(),
        }
    }

    /// The call's bridge ends (its call answered, cancelled or timed out).
    pub(super) fn take_bridge(&mut self, conn: ConnId, upstream_id: u64) -> Option<Bridge> {
        self.bridges.take(conn, upstream_id)
    }

    /// Bridges whose call left its connection another way (cancelled, its
    /// client gone, its connection dropped, sent again after an era change)
    /// are forgotten: ids are never reused, so such a bridge names no live
    /// call, but it must not count as waiting nor match a retry.
    /// `live`: whether the servers still have that call (passed in, so this
    /// file imports nothing of server/).
    pub(super) fn forget_ended_bridges(&mut self, live: impl Fn(ConnId, u64) -> bool) {
        self.bridges.keep_live(live);
    }

    // ---- inputs from outside clients/ --------------------------------------

    /// Something clients can see may have changed (a server's state, lists,
    /// config or held definitions, the settings): the end of the event
    /// republishes (`publish_changes`).
    pub(in crate::engine) fn exposure_changed(&mut self) {
        self.exposure.changed();
    }

    /// A client was answered: the definition starts' quiet time starts afresh.
    #[inline]
    pub(in crate::engine) fn answered(&mut self, now_ms: u64) {
        self.starts.handle_activity(now_ms);
    }

    /// A server's request `upstream_id` on `conn` goes to `client`: kept until
    /// the client answers; returns the id the client sees.
    pub(in crate::engine) fn forward_server_request(
        &mut self,
        client: ClientId,
        conn: ConnId,
        upstream_id: Value,
    ) -> String {
        let gateway_id = self.next_gateway_id("lazy-mcp-");
        self.outbound.insert(
            gateway_id.clone(),
            OutboundRequest::forwarded(client, conn, upstream_id),
        );
        gateway_id
    }

    /// The server cancelled its request `upstream_id` on `conn`: forgotten;
    /// returns the id the client saw and the client, to tell it.
    pub(in crate::engine) fn server_request_cancelled(
        &mut self,
        conn: ConnId,
        upstream_id: Option<&Value>,
    ) -> Option<(String, ClientId)> {
        let (gateway_id, client) = self
            .outbound
            .iter()
            .find(|(_, o)| o.is(conn, upstream_id))
            .map(|(id, o)| (id.clone(), o.client().to_string()))?;
        self.outbound.remove(&gateway_id);
        Some((gateway_id, client))
    }

    /// Connection `conn` ended: its requests waiting at clients are forgotten
    /// (their answers would have nowhere to go).
    pub(in crate::engine) fn connection_dropped(&mut self, conn: ConnId) {
        let abandoned: Vec<String> = self
            .outbound
            .iter()
            .filter(|(_, o)| o.came_on(conn))
            .map(|(id, _)| id.clone())
            .collect();
        for id in abandoned {
            self.outbound.remove(&id);
        }
    }

    /// A config load says whether the host may ask its MCP client to start
    /// definitions (the report's `startClientDefinitions`).
    pub(in crate::engine) fn definitions_trusted(&mut self, trusted: bool) {
        self.starts.handle_trusted(trusted);
    }

    /// The host has an embedding table to hand over when asked.
    pub(in crate::engine) fn search_model_offered(&mut self) {
        self.search_model.offer();
    }

    /// The embedding table arrived (`None`: absent or unusable); the
    /// searches that waited for it, to answer now.
    pub(in crate::engine) fn search_model_arrived(
        &mut self,
        model: Option<std::sync::Arc<crate::tool_index::EmbeddingModel>>,
    ) -> Vec<WaitingSearch> {
        self.search_model.arrived(model)
    }

    /// A search that may have to wait for the table (`SearchModel::wait`).
    pub(super) fn search_waits(&mut self, search: impl FnOnce() -> WaitingSearch) -> Option<bool> {
        self.search_model.wait(search)
    }

    // ---- reads -------------------------------------------------------------

    /// The embedding model's state (its vectors are made at the event's end).
    pub(in crate::engine) fn search_model(&self) -> &SearchModel {
        &self.search_model
    }

    /// Whether the definitions to start are to be reviewed (the event's end).
    pub(in crate::engine) fn definition_starts_due(&self) -> bool {
        self.starts.is_due()
    }

    /// When a client was last answered `tools/list` on `server`'s endpoint.
    pub(in crate::engine) fn listed_at(&self, server: &str) -> Option<u64> {
        self.starts.listed_at(server)
    }

    /// Whether `client` is still attached.
    pub(in crate::engine) fn is_attached(&self, client: &str) -> bool {
        self.sessions.contains_key(client)
    }

    /// Clients that see `server`: its own endpoint, and the aggregate endpoint.
    pub(in crate::engine) fn of_server(&self, server: &str) -> Vec<ClientId> {
        self.sessions
            .iter()
            .filter(|(_, session)| session.sees_server(server))
            .map(|(client, _)| client.clone())
            .collect()
    }

    /// The first client that sees `server` and declared `capability`.
    pub(in crate::engine) fn attached_declaring(
        &self,
        server: &str,
        capability: &str,
    ) -> Option<ClientId> {
        self.sessions
            .iter()
            .find(|(_, session)| session.sees_server(server) && session.declares(capability))
            .map(|(client, _)| client.clone())
    }

    /// Whether `client` declared `capability` in its `initialize`.
    pub(in crate::engine) fn declares(&self, client: &str, capability: &str) -> bool {
        self.sessions
            .get(client)
            .is_some_and(|s| s.declares(capability))
    }

    /// The request id of `client`'s open listen `key` (its `subscriptionId`).
    pub(in crate::engine) fn listen_id(&self, client: &str, key: &str) -> Option<Value> {
        self.sessions
            .get(client)
            .and_then(|s| s.listens().get(key))
            .map(|listen| listen.id().clone())
    }

    /// Whether something clients can see changed since the last publication.
    pub(in crate::engine) fn needs_publish(&self) -> bool {
        self.exposure.is_dirty()
    }

    /// The current plan: which servers are listed in full and which in the index.
    pub(in crate::engine) fn plan(&self) -> &ExposurePlan {
        self.exposure.plan()
    }

    /// A new gateway-made id: `prefix` and the next number.
    pub(super) fn next_gateway_id(&mut self, prefix: &str) -> String {
        let id = format!("{prefix}{}", self.next_outbound);
        self.next_outbound += 1;
        id
    }

    // ---- what it yields --------------------------------------------------------

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

    /// The other files of clients/, to yield what an input tells the host.
    pub(super) fn outbox(&mut self) -> &mut Outbox {
        &mut self.outbox
    }

    /// The sessions to read while yielding a notice to some of them.
    pub(super) fn sessions_and_outbox(
        &mut self,
    ) -> (&VecMap<ClientId, ClientSession>, &mut Outbox) {
        (&self.sessions, &mut self.outbox)
    }

    /// A log line about no server (one naming a server is masked by the
    /// servers' `log_line`).
    pub(super) fn log(&mut self, level: LogLevel, message: String) {
        self.outbox.push(Effect::Log {
            level,
            server: None,
            message,
        });
    }

    // ---- its parts, lent to the other files of clients/ ---------------------

    /// Every attached client's session (read).
    pub(super) fn sessions(&self) -> &VecMap<ClientId, ClientSession> {
        &self.sessions
    }

    /// What clients are shown (read).
    pub(super) fn exposure(&self) -> &Exposure {
        &self.exposure
    }

    /// The answers each client is owed (read; the native tests' count).
    #[cfg(any(test, feature = "test-exports"))]
    pub(in crate::engine) fn owed(&self) -> &AnswersOwed {
        &self.owed
    }

    /// The definition starts (read).
    pub(super) fn starts(&self) -> &DefinitionStarts {
        &self.starts
    }

    /// The endpoint versions held back (read).
    pub(super) fn held_versions(&self) -> &HeldVersions {
        &self.held_versions
    }

    /// The HTTP gateway's sessions (read).
    pub(super) fn gateway_sessions(&self) -> &GatewaySessions {
        &self.gateway_sessions
    }

    /// The input bridges (read).
    pub(super) fn bridges(&self) -> &Bridges {
        &self.bridges
    }
}

#[cfg(test)]
#[path = "clients_tests.rs"]
mod tests;
