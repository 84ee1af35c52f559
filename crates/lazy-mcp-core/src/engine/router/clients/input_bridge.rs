//! A modern client's retry of a call bridged to its input
//! (`clients/input_bridge.rs`): the retry takes over the waiting call on the
//! servers' side, and `Clients`' answer to the server's requests is carried
//! out with the call's new deadline.

use crate::engine::router::Engine;
use crate::protocol::jsonrpc;
use serde_json::Value;

impl Engine {
    /// A client request carrying a `requestState` of a waiting call: the server's
    /// requests are answered and the retry waits for the call's result. False
    /// when the request is not such a retry.
    pub(in crate::engine) fn take_bridged_retry(
        &mut self,
        client: &str,
        id: &Value,
        method: &str,
        params: Option<&Value>,
    ) -> bool {
        let (conn, upstream_id, responses) =
            match self.clients.retry_of(method, params, &self.servers) {
                None => return false,
                Some(Ok(found)) => found,
                Some(Err(why)) => {
                    self.reply_error(client, id.clone(), jsonrpc::INVALID_PARAMS, &why);
                    return true;
                }
            };
        let timeout = (self.servers.server_of(conn))
            .map(|name| self.request_timeout_ms(name))
            .unwrap_or_default();
        if !self.servers.answer_retry(conn, upstream_id, client, id) {
            return true;
        }
        let out = (self.clients).retried(conn, upstream_id, &responses, &self.servers);
        let rearm = self.now_ms.saturating_add(timeout);
        self.carry_out_call(conn, upstream_id, out, Some(rearm));
        true
    }
}
