//! What a server's machines read of the owners above them: the clients
//! (`ClientReads`, implemented by `Clients` in `clients/server_reads.rs`) and
//! the held definitions (`HeldReads`, implemented by `Pins` in
//! `trust/server_reads.rs`). `server/` defines the reads and the owners
//! above implement them, so `server/` never imports `clients/` or `trust/`
//! (they read the servers; the arrow points down only). Read only: a
//! server's input changes neither.

use crate::engine::events::{ClientId, ConnId};
use crate::engine::server::calls::CallParams;
use serde_json::{Map, Value};

/// What a server's inputs read of the clients (`ServerCtx::clients`).
pub(in crate::engine) trait ClientReads {
    /// `client` is attached (a dropped connection's calls answer only those).
    fn is_attached(&self, client: &str) -> bool;
    /// The clients that see server `server`.
    fn of_server(&self, server: &str) -> Vec<ClientId>;
    /// `client` speaks MCP 2026-07-28 (it listens instead of subscribing).
    fn is_modern_client(&self, client: &str) -> bool;
    /// `client` declared `capability` (`sampling`, `elicitation`, `roots`).
    fn declares(&self, client: &str, capability: &str) -> bool;
    /// The request id of `client`'s listen `key`, when it is open.
    fn listen_id(&self, client: &str, key: &str) -> Option<Value>;
    /// The call `upstream_id` on `conn` waits for its client's retry.
    fn awaits_retry(&self, conn: ConnId, upstream_id: u64) -> bool;
    /// The answer to `upstream_id` on `conn` waits for its client's retry.
    fn holds_answer(&self, conn: ConnId, upstream_id: u64) -> bool;
    /// The input capabilities modern request `id` of `client` declared.
    fn modern_input_capabilities(&self, client: &str, id: &Value) -> Option<&Map<String, Value>>;
    /// The client of modern request `id` can answer every input `requests` needs.
    fn can_answer_input(&self, client: &str, id: &Value, requests: &Map<String, Value>) -> bool;
    /// What the client of modern request `id` lacks to answer `requests`.
    fn missing_input_capabilities(
        &self,
        client: &str,
        id: &Value,
        requests: &Map<String, Value>,
    ) -> Option<Map<String, Value>>;
}

/// What a server's inputs read of the held definitions (`ServerCtx::pins`):
/// a call to a held tool or prompt is refused, never sent.
pub(in crate::engine) trait HeldReads {
    /// Anything is held at all (the warm call reads only this).
    fn any_held(&self) -> bool;
    /// The refusal of a `method` call of server `name` whose target is held.
    fn call_refusal(&self, name: &str, method: &str, params: &CallParams) -> Option<String>;
}
