//! What a call bridged to a modern client's input carries (`clients/input_bridge.rs`
//! drives it). Apart from that code so that `Clients` (`clients/machine.rs`)
//! names it without importing the code that drives it (no import cycle).
//!
//! The clients' side owns it, not the server's call. Its fields are private
//! here: it is begun for a call, the client is asked (a round), a server
//! request is queued, the upstream's answer held, the client retries or the
//! call is abandoned (named inputs); the server's side asks only whether a
//! call awaits its client's retry (`Clients::awaits_retry`).

use crate::engine::events::ConnId;
use crate::vec_map::VecMap;
use serde_json::Value;

/// A call whose server asked its modern client for input: the forwarded call
/// `upstream_id` on `conn`.
#[derive(Debug)]
pub(in crate::engine) struct Bridge {
    conn: ConnId,
    upstream_id: u64,
    /// Rounds the client was asked (with the call's own `input_rounds`,
    /// bounded by `MAX_INPUT_ROUNDS`).
    rounds: u32,
    /// The client was answered `input_required`; its retry carries this state.
    awaiting: Option<String>,
    /// The server's requests of the current round: input key → upstream request id.
    asked: VecMap<String, Value>,
    /// Server requests that came while the client was being asked.
    queued: Vec<ServerRequest>,
    /// The upstream's answer when it came before the client's retry.
    held: Option<Result<Value, Value>>,
}

/// A server's request for input, as it came.
#[derive(Debug, Clone)]
pub(in crate::engine) struct ServerRequest {
    id: Value,
    method: String,
    params: Option<Value>,
}

impl ServerRequest {
    pub(in crate::engine) fn new(id: Value, method: String, params: Option<Value>) -> Self {
        ServerRequest { id, method, params }
    }

    /// Its upstream request id (its answer or refusal names it).
    pub(in crate::engine) fn id(&self) -> &Value {
        &self.id
    }

    /// Its upstream request id, the request itself no longer needed.
    pub(in crate::engine) fn into_id(self) -> Value {
        self.id
    }

    pub(in crate::engine) fn method(&self) -> &str {
        &self.method
    }

    pub(in crate::engine) fn params(&self) -> Option<&Value> {
        self.params.as_ref()
    }
}

/// What a bridge hands back when its client retries: the requests it was
/// asked (input key → upstream id), those queued meanwhile, the held answer.
pub(in crate::engine) type Retried = (
    VecMap<String, Value>,
    Vec<ServerRequest>,
    Option<Result<Value, Value>>,
);

impl Bridge {
    // ---- inputs ------------------------------------------------------------

    /// The call `upstream_id` on `conn` is bridged: no round yet.
    pub(in crate::engine) fn begun(conn: ConnId, upstream_id: u64) -> Bridge {
        Bridge {
            conn,
            upstream_id,
            rounds: 0,
            awaiting: None,
            asked: VecMap::new(),
            queued: Vec::new(),
            held: None,
        }
    }

    /// The client was asked `asked` (input key → upstream id) and answered
    /// `input_required` with `state`: one more round.
    pub(in crate::engine) fn client_asked(&mut self, state: String, asked: VecMap<String, Value>) {
        self.rounds = self.rounds.saturating_add(1);
        self.awaiting = Some(state);
        self.asked = asked;
    }

    /// A server request came while the client is being asked: kept for the
    /// next round while fewer than `max` wait; handed back (to refuse) otherwise.
    pub(in crate::engine) fn queue(
        &mut self,
        request: ServerRequest,
        max: usize,
    ) -> Option<ServerRequest> {
        if self.queued.len() >= max {
            return Some(request);
        }
        self.queued.push(request);
        None
    }

    /// The upstream answered before the client's retry: kept for it.
    pub(in crate::engine) fn answer_held(&mut self, outcome: Result<Value, Value>) {
        self.held = Some(outcome);
    }

    /// The client retried: it waits no more; what was asked, queued and held is handed over.
    pub(in crate::engine) fn retried(&mut self) -> Retried {
        self.awaiting = None;
        (
            std::mem::take(&mut self.asked),
            std::mem::take(&mut self.queued),
            self.held.take(),
        )
    }

    /// The client did not retry in time: the upstream ids of the server's
    /// requests to refuse (asked, then queued), and whether the upstream had
    /// answered already (else its call is cancelled).
    pub(in crate::engine) fn abandoned(self) -> (Vec<Value>, bool) {
        let ids = self
            .asked
            .into_values()
            .chain(self.queued.into_iter().map(ServerRequest::into_id))
            .collect();
        (ids, self.held.is_some())
    }

    // ---- reads -------------------------------------------------------------

    /// Whether it bridges the call `upstream_id` on `conn`.
    pub(in crate::engine) fn is_of(&self, conn: ConnId, upstream_id: u64) -> bool {
        self.conn == conn && self.upstream_id == upstream_id
    }

    /// The call it bridges: its connection and upstream id.
    pub(in crate::engine) fn call(&self) -> (ConnId, u64) {
        (self.conn, self.upstream_id)
    }

    /// The client was answered `input_required` and its retry is awaited.
    pub(in crate::engine) fn is_awaiting(&self) -> bool {
        self.awaiting.is_some()
    }

    /// Whether a retry carrying `state` is the one awaited.
    pub(in crate::engine) fn awaits(&self, state: &str) -> bool {
        self.awaiting.as_deref() == Some(state)
    }

    /// The upstream's answer waits for the retry.
    pub(in crate::engine) fn holds_answer(&self) -> bool {
        self.held.is_some()
    }

    /// Rounds the client was asked so far.
    pub(in crate::engine) fn rounds(&self) -> u32 {
        self.rounds
    }
}

#[cfg(test)]
mod tests {
    use super::{Bridge, ServerRequest};
    use crate::vec_map::VecMap;
    use serde_json::{json, Value};

    fn request(id: u64) -> ServerRequest {
        ServerRequest::new(json!(id), "elicitation/create".into(), None)
    }

    #[test]
    fn a_round_waits_for_the_retry_which_hands_over_what_was_asked_queued_and_held() {
        let mut bridge = Bridge::begun(3, 9);
        assert!(bridge.is_of(3, 9) && !bridge.is_of(3, 8));
        let mut asked = VecMap::new();
        asked.insert("lazy-mcp-1".to_string(), json!(100));
        bridge.client_asked("lazy-mcp-input:2".into(), asked);
        assert!(bridge.is_awaiting() && bridge.awaits("lazy-mcp-input:2"));
        assert!(!bridge.awaits("lazy-mcp-input:3"));
        assert_eq!(bridge.rounds(), 1);
        assert!(bridge.queue(request(101), 1).is_none());
        assert!(
            bridge.queue(request(102), 1).is_some(),
            "over the limit: handed back"
        );
        bridge.answer_held(Ok(json!({"content": []})));
        assert!(bridge.holds_answer());
        let (asked, queued, held) = bridge.retried();
        assert_eq!(asked.get("lazy-mcp-1"), Some(&json!(100)));
        assert_eq!(queued.len(), 1);
        assert!(held.is_some());
        assert!(!bridge.is_awaiting() && !bridge.holds_answer());
    }

    #[test]
    fn an_abandoned_bridge_refuses_what_was_asked_and_queued() {
        let mut bridge = Bridge::begun(1, 2);
        let mut asked = VecMap::new();
        asked.insert("k".to_string(), json!(7));
        bridge.client_asked("s".into(), asked);
        assert!(bridge.queue(request(8), 8).is_none());
        let (ids, held) = bridge.abandoned();
        assert_eq!(ids, vec![json!(7), Value::from(8)]);
        assert!(!held, "no answer yet: the call is cancelled upstream");
    }
}
