//! A server-to-client request the gateway forwarded to a client, kept by
//! `Clients` (`clients/machine.rs`) until the client answers. Its fields are private here:
//! it is made when forwarded, matched by what the server said, and taken apart
//! once (answered, cancelled, or its client gone).

use crate::engine::events::{ClientId, ConnId};
use serde_json::Value;

#[derive(Debug)]
pub(in crate::engine::clients) struct OutboundRequest {
    client: ClientId,
    conn: ConnId,
    upstream_id: Value,
}

impl OutboundRequest {
    /// The server on `conn` asked `client` its request `upstream_id`.
    pub(in crate::engine::clients) fn forwarded(
        client: ClientId,
        conn: ConnId,
        upstream_id: Value,
    ) -> OutboundRequest {
        OutboundRequest {
            client,
            conn,
            upstream_id,
        }
    }

    /// The client it was asked of.
    pub(in crate::engine::clients) fn client(&self) -> &str {
        &self.client
    }

    /// Whether it came on connection `conn`.
    pub(in crate::engine::clients) fn came_on(&self, conn: ConnId) -> bool {
        self.conn == conn
    }

    /// Whether it is the server's request `upstream_id` on `conn` (a
    /// cancellation without an id names none).
    pub(in crate::engine::clients) fn is(&self, conn: ConnId, upstream_id: Option<&Value>) -> bool {
        self.conn == conn && Some(&self.upstream_id) == upstream_id
    }

    /// It is done with: its connection and the server's id, to answer upstream.
    pub(in crate::engine::clients) fn into_upstream(self) -> (ConnId, Value) {
        (self.conn, self.upstream_id)
    }
}

#[cfg(test)]
mod tests {
    use super::OutboundRequest;
    use serde_json::json;

    #[test]
    fn a_cancellation_matches_only_its_connection_and_id() {
        let request = OutboundRequest::forwarded("c1".into(), 3, json!(7));
        assert!(request.is(3, Some(&json!(7))));
        assert!(!request.is(4, Some(&json!(7))), "another connection's id 7");
        assert!(
            !request.is(3, Some(&json!("7"))),
            "a string id is another id"
        );
        assert!(!request.is(3, None), "a cancellation without an id");
        assert!(request.came_on(3) && !request.came_on(4));
        assert_eq!(request.client(), "c1");
        assert_eq!(request.into_upstream(), (3, json!(7)));
    }
}
