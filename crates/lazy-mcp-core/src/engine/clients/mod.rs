//! The clients: their sessions, what they are shown (exposure, the tool
//! index), and their calls on the way in (gateway, raw forwarding, modern-era
//! requests and listens).
//!
//! Their state has one owner, [`Clients`]: its fields are private to this
//! folder. The `impl Engine` blocks here may reach them (they also need the
//! servers and the catalogue); code elsewhere (the router, `server/`,
//! `registry/`, `trust/`) goes through `Clients`' methods: an input that says
//! what happened (`exposure_changed`, `forward_server_request`,
//! `server_request_cancelled`, `connection_dropped`, `stamp_modern_reply`) or
//! a read. A client's own life is `Clients`' inputs too (`message_from`,
//! `initialized`, `client_closed`, `take_server_request`).
//! Inputs that answer a client or arm a timer take a `ClientsContext`
//! (`context.rs`: the event's effects, the timer table, the time).
//! A session and a forwarded server request are private to `session.rs`
//! and `outbound.rs`: this folder tells them what happened and reads them.

pub mod aggregate_names;
pub(super) mod answers_owed;
pub(super) mod client_listens;
pub(super) mod context;
pub(super) mod definition_starts;
pub(super) mod endpoint_versions;
pub(super) mod exposure;
pub(super) mod gateway;
pub(super) mod gateway_sessions;
pub(super) mod input_bridge;
pub(super) mod modern_clients;
mod outbound;
pub(super) mod raw_forwarding;
mod replies;
mod session;
pub(super) mod tool_calls;
pub(super) mod tool_exposure;
pub(super) mod tool_vectors;

use crate::engine::events::{ClientId, ConnId, Endpoint};
use crate::vec_map::VecMap;
use answers_owed::owed::AnswersOwed;
use definition_starts::machine::DefinitionStarts;
use endpoint_versions::held::HeldVersions;
use exposure::shown::Exposure;
use gateway_sessions::table::GatewaySessions;
use input_bridge::bridge::Bridge;
use outbound::OutboundRequest;
use serde_json::Value;
use session::ClientSession;
use tool_exposure::plan::ExposurePlan;

/// The clients' side of the engine, one owner: every attached client's
/// session, what clients are shown ([`Exposure`]), and the server-to-client
/// requests waiting for a client's answer. Its fields are private to
/// `clients/` (the compiler keeps the router, `server/`, `registry/` and
/// `trust/` out): they change it only through the inputs below, and read it
/// through the accessors.
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
    bridges: Vec<Bridge>,
    /// Answers each client is still owed, and whose input ended (`answers_owed.rs`).
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
}

impl Default for Clients {
    fn default() -> Self {
        Clients {
            sessions: VecMap::new(),
            exposure: Exposure::default(),
            outbound: VecMap::new(),
            next_outbound: 1,
            bridges: Vec::new(),
            owed: AnswersOwed::default(),
            starts: DefinitionStarts::default(),
            held_versions: HeldVersions::default(),
            gateway_sessions: GatewaySessions::default(),
        }
    }
}

impl Clients {
    // ---- a client's life ---------------------------------------------------

    /// A message from `client` on `endpoint`: its session begins with the
    /// first one (identity: the session id until `initialize` names it).
    fn message_from(&mut self, client: &str, endpoint: &Endpoint) {
        if let Some(session) = self.sessions.get_mut(client) {
            session.spoke_on(endpoint);
            return;
        }
        self.sessions
            .insert(client.to_string(), ClientSession::began(client, endpoint));
    }

    /// `client` sent `initialize`: what it can do, and who it is when it says.
    fn initialized(&mut self, client: &str, capabilities: Value, identity: Option<String>) {
        if let Some(session) = self.sessions.get_mut(client) {
            session.initialized(capabilities, identity);
        }
    }

    /// The server request a client was asked as `gateway_id` (answered, or
    /// its client gone), forgotten: its connection and the server's id.
    fn take_server_request(&mut self, gateway_id: &str) -> Option<(ConnId, Value)> {
        let request = self.outbound.remove(gateway_id)?;
        Some(request.into_upstream())
    }

    /// `client` disconnected: its session ends. Returns the ids of the server
    /// requests it was asked (each to be taken and refused upstream), or `None`
    /// for a client never seen.
    fn client_closed(&mut self, client: &str) -> Option<Vec<String>> {
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

    // ---- reads -------------------------------------------------------------

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
    fn next_gateway_id(&mut self, prefix: &str) -> String {
        let id = format!("{prefix}{}", self.next_outbound);
        self.next_outbound += 1;
        id
    }
}

#[cfg(test)]
#[path = "clients_tests.rs"]
mod tests;
