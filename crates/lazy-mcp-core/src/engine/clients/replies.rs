//! A client's answers: the `reply` effect, a modern-era request's stamped
//! (its `resultType` and cache hints, and the HTTP status the era gives it),
//! and the answer counting as the clients' activity.

use super::context::ClientsContext;
use super::Clients;
use crate::engine::effects::Effect;
use crate::protocol::jsonrpc;
use crate::protocol::message_fields::MessageFields;
use serde_json::Value;

impl Clients {
    /// Answers `client` with `message`.
    pub(in crate::engine) fn reply(
        &mut self,
        ctx: &mut ClientsContext<'_>,
        client: &str,
        mut message: Value,
    ) {
        let modern = self.stamp_modern_reply(client, &mut message);
        self.push_reply(ctx, client, message, modern);
    }

    /// Answers `client` with a JSON-RPC error.
    pub(in crate::engine) fn reply_error(
        &mut self,
        ctx: &mut ClientsContext<'_>,
        client: &str,
        id: Value,
        code: i64,
        message: &str,
    ) {
        self.reply(ctx, client, jsonrpc::error_response(id, code, message));
    }

    /// The `reply` effect; a modern-era request's answer carries the HTTP status
    /// the era gives it (a gateway answering with JSON uses it).
    pub(in crate::engine) fn push_reply(
        &mut self,
        ctx: &mut ClientsContext<'_>,
        client: &str,
        message: Value,
        modern: bool,
    ) {
        self.answered(ctx.now_ms);
        let http_status = modern
            .then(|| crate::protocol::modern_http::answer_status(&message))
            .flatten();
        let id = MessageFields::read(&message)
            .id
            .cloned()
            .unwrap_or(Value::Null);
        self.outbox().push(Effect::Reply {
            client: client.to_string(),
            id,
            http_status,
            message: message.to_string(),
        });
    }
}
