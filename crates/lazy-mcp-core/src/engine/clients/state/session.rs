//! One attached client's session, the state `Clients` (`clients/machine.rs`) keeps per
//! client. Its fields are private here: the files under `clients/` tell it
//! what happened (a message on an endpoint, `initialize`, a listen opened or
//! closed) and read it; none of them writes a field.

use super::listen::{Listen, Listens};
use super::modern_requests::ModernRequests;
use crate::engine::events::Endpoint;
use serde_json::{json, Value};

#[derive(Debug)]
pub(in crate::engine::clients) struct ClientSession {
    endpoint: Endpoint,
    capabilities: Value,
    /// `clientInfo.name` from `initialize` (else the session id): loaded tools are kept per identity.
    identity: String,
    /// Modern-era (2026-07-28) requests of this client in flight (`modern_clients.rs`).
    modern: ModernRequests,
    /// Its open `subscriptions/listen` requests (`client_listens.rs`).
    listens: Listens,
}

impl ClientSession {
    // ---- inputs ------------------------------------------------------------

    /// `client`'s first message, on `endpoint`: no capabilities yet, and its
    /// session id stands for who it is until `initialize` names it.
    pub(in crate::engine::clients) fn began(client: &str, endpoint: &Endpoint) -> ClientSession {
        ClientSession {
            endpoint: endpoint.clone(),
            capabilities: json!({}),
            identity: client.to_string(),
            modern: ModernRequests::default(),
            listens: Listens::new(),
        }
    }

    /// A message came on `endpoint` (the endpoint it last spoke on counts).
    pub(in crate::engine::clients) fn spoke_on(&mut self, endpoint: &Endpoint) {
        if self.endpoint != *endpoint {
            self.endpoint = endpoint.clone();
        }
    }

    /// It sent `initialize`: what it can do, and who it is when it says.
    pub(in crate::engine::clients) fn initialized(
        &mut self,
        capabilities: Value,
        identity: Option<String>,
    ) {
        self.capabilities = capabilities;
        if let Some(identity) = identity {
            self.identity = identity;
        }
    }

    /// It opened listen `key`: returns the listen of the same id it replaces.
    pub(in crate::engine::clients) fn listen_opened(
        &mut self,
        key: String,
        listen: Listen,
    ) -> Option<Listen> {
        self.listens.insert(key, listen)
    }

    /// Its listen `key` ended (cancelled): returns it, when it was open.
    pub(in crate::engine::clients) fn listen_closed(&mut self, key: &str) -> Option<Listen> {
        self.listens.remove(key)
    }

    /// Its modern-era requests, to tell them what happened (`ModernRequests`'
    /// own inputs: began, handled, forgotten, answered).
    pub(in crate::engine::clients) fn modern_mut(&mut self) -> &mut ModernRequests {
        &mut self.modern
    }

    // ---- reads -------------------------------------------------------------

    /// The endpoint it last spoke on.
    pub(in crate::engine::clients) fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// Whether it speaks on the aggregate endpoint.
    pub(in crate::engine::clients) fn is_aggregate(&self) -> bool {
        self.endpoint == Endpoint::Aggregate
    }

    /// Whether it sees `server`: that server's own endpoint, or the aggregate one.
    pub(in crate::engine::clients) fn sees_server(&self, server: &str) -> bool {
        match &self.endpoint {
            Endpoint::Server { name } => name == server,
            Endpoint::Aggregate => true,
        }
    }

    /// Whether it declared `capability` in its `initialize`.
    pub(in crate::engine::clients) fn declares(&self, capability: &str) -> bool {
        self.capabilities.get(capability).is_some()
    }

    /// Who it is for its loaded tools (`clientInfo.name`, else its session id).
    pub(in crate::engine::clients) fn identity(&self) -> &str {
        &self.identity
    }

    /// Its modern-era requests in flight.
    pub(in crate::engine::clients) fn modern(&self) -> &ModernRequests {
        &self.modern
    }

    /// Its open listens, by request id (as JSON text).
    pub(in crate::engine::clients) fn listens(&self) -> &Listens {
        &self.listens
    }

    /// Whether it has spoken the modern era (or listens): change
    /// notifications reach it only through its listens.
    pub(in crate::engine::clients) fn is_modern(&self) -> bool {
        self.modern.seen() || !self.listens.is_empty()
    }
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
