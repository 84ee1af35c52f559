//! MCP 2026-07-28's tag on a listen's messages: `_meta`'s `subscriptionId`
//! names the `subscriptions/listen` request a notification answers. The
//! gateway tags what it sends on a client's listen and strips the tag of the
//! upstream listen that carried a server's notice; both the clients' and the
//! servers' code write it, so it lives here, below both.

use crate::protocol::jsonrpc;
use serde_json::{Map, Value};

/// The `_meta` key that ties a message to its listen.
pub const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";

/// Notification `method` with `params` (an object, else none), tagged with
/// listen `id` (a `_meta` that is not an object is replaced).
pub fn listen_notification(id: &Value, method: &str, params: Option<Value>) -> Value {
    let mut params = match params {
        Some(Value::Object(object)) => object,
        _ => Map::new(),
    };
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if !meta.is_object() {
        *meta = Value::Object(Map::new());
    }
    if let Some(meta) = meta.as_object_mut() {
        meta.insert(SUBSCRIPTION_ID_KEY.into(), id.clone());
    }
    jsonrpc::notification(method, Some(Value::Object(params)))
}
