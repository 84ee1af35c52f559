//! `Clients` answers what a server's machines read of the clients
//! (`server/reads.rs`'s `ClientReads`): `server/` sits below `clients/` and
//! names only the trait, so the reads are implemented here, each by the
//! `Clients` method of the same name.

use crate::engine::clients::Clients;
use crate::engine::events::{ClientId, ConnId};
use crate::engine::server::reads::ClientReads;
use serde_json::{Map, Value};

impl ClientReads for Clients {
    fn is_attached(&self, client: &str) -> bool {
        Clients::is_attached(self, client)
    }

    fn of_server(&self, server: &str) -> Vec<ClientId> {
        Clients::of_server(self, server)
    }

    fn is_modern_client(&self, client: &str) -> bool {
        Clients::is_modern_client(self, client)
    }

    fn declares(&self, client: &str, capability: &str) -> bool {
        Clients::declares(self, client, capability)
    }

    fn listen_id(&self, client: &str, key: &str) -> Option<Value> {
        Clients::listen_id(self, client, key)
    }

    fn awaits_retry(&self, conn: ConnId, upstream_id: u64) -> bool {
        Clients::awaits_retry(self, conn, upstream_id)
    }

    fn holds_answer(&self, conn: ConnId, upstream_id: u64) -> bool {
        Clients::holds_answer(self, conn, upstream_id)
    }

    fn modern_input_capabilities(&self, client: &str, id: &Value) -> Option<&Map<String, Value>> {
        Clients::modern_input_capabilities(self, client, id)
    }

    fn can_answer_input(&self, client: &str, id: &Value, requests: &Map<String, Value>) -> bool {
        Clients::can_answer_input(self, client, id, requests)
    }

    fn missing_input_capabilities(
        &self,
        client: &str,
        id: &Value,
        requests: &Map<String, Value>,
    ) -> Option<Map<String, Value>> {
        Clients::missing_input_capabilities(self, client, id, requests)
    }
}
