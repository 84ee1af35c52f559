//! Clients of the modern era (MCP 2026-07-28) on any endpoint: each request is
//! read on its own (no handshake, no session), its envelope checked, the
//! envelope removed before anything is forwarded upstream (it belongs to the
//! client↔gateway hop), and its answer stamped `resultType: "complete"`.
//!
//! Loaded tools of the tool index are kept per identity. A modern client's
//! identity is its `clientInfo` (`name@version`), kept apart from legacy
//! identities; a modern client that sends no `clientInfo` has nothing stable to
//! key them by, so `load_tools`/`unload_tools` tell it to use `call_tool`
//! instead, and it sees no loaded tools: nothing it does reaches another client.

use crate::engine::clients::context::ClientsContext;
use crate::engine::clients::Clients;
use crate::protocol::gateway_discover;
use crate::protocol::handshake_result::{HandshakeResult, Implementation};
use crate::protocol::message_fields::MessageFields;
use crate::protocol::methods;
use crate::protocol::missing_capability;
use crate::protocol::modern_request::{
    self, Era, CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, PROTOCOL_VERSION_KEY,
};
use crate::protocol::params::name_of;
use crate::tool_index::{CALL_TOOL, LOAD_TOOLS, UNLOAD_TOOLS};
use serde_json::{json, Value};

/// Capabilities a modern client answers for itself on a retried request.
const INPUT_CAPABILITIES: [&str; 2] = ["elicitation", "sampling"];

/// At most this many modern client identities hold loaded tools: each new
/// `clientInfo` costs memory, and nothing tells the gateway a modern client has
/// gone (there is no session to end), so a flood of invented names is refused
/// instead of growing without bound.
pub(in crate::engine) const MAX_MODERN_IDENTITIES: usize = 1_000;

/// The loaded-tools key of a modern client (never equal to a legacy one).
fn modern_identity(client_info: &str) -> String {
    format!("{MODERN_IDENTITY_PREFIX}{client_info}")
}

const MODERN_IDENTITY_PREFIX: &str = "2026-07-28 client ";

/// Why a client request is answered here instead of served, and the answer.
pub(in crate::engine) enum EraRefusal {
    /// A bad envelope: answered with the era's error, as is.
    Envelope(Value),
    /// A load without an identity (or one identity too many): answered as a
    /// modern reply, then the request is handled.
    Load(Value),
}

/// `server/discover` for an endpoint: what `initialize` would say, in the
/// modern shape (`listChanged` and resource `subscribe` are delivered through
/// `subscriptions/listen`, `client_listens.rs`).
pub(in crate::engine) fn discover_answer(initialize: &Value) -> Value {
    let read = HandshakeResult::read(initialize);
    let capabilities = read.capabilities.cloned().unwrap_or_else(|| json!({}));
    let server = read
        .server_info
        .map(Implementation::read)
        .unwrap_or_default();
    gateway_discover::discover_result(
        server.name.unwrap_or_default(),
        server.version().unwrap_or_default(),
        capabilities,
        read.instructions,
    )
}

/// Removes the modern envelope from `params._meta` (and `_meta` if that empties it).
fn strip_envelope(params: &mut Option<Value>) {
    let Some(object) = params.as_mut().and_then(Value::as_object_mut) else {
        return;
    };
    let emptied = match object.get_mut("_meta").and_then(Value::as_object_mut) {
        Some(meta) => {
            for key in [
                PROTOCOL_VERSION_KEY,
                CLIENT_CAPABILITIES_KEY,
                CLIENT_INFO_KEY,
            ] {
                meta.remove(key);
            }
            meta.is_empty()
        }
        None => false,
    };
    if emptied {
        object.remove("_meta");
    }
}

impl Clients {
    /// Whether `client` has a modern-era request under way (this one).
    pub(in crate::engine) fn in_modern_request(&self, client: &str) -> bool {
        self.sessions()
            .get(client)
            .is_some_and(|s| s.modern().is_active())
    }

    /// Reads the era of a client request: a modern one's envelope is removed
    /// from `params` and its request begins; `Err` when it is to be answered
    /// here instead.
    /// Reads the era of a client request before it is served. False when it was
    /// answered here (a bad envelope, or a load without an identity).
    /// Out of line: the raw forwarding's caller stays small.
    #[inline(never)]
    pub(in crate::engine) fn begin_request_era(
        &mut self,
        ctx: &mut ClientsContext<'_>,
        client: &str,
        id: &Value,
        method: &str,
        params: &mut Option<Value>,
    ) -> bool {
        match self.read_request_era(client, id, method, params) {
            Ok(()) => true,
            Err(EraRefusal::Envelope(answer)) => {
                self.push_reply(ctx, client, answer, true);
                false
            }
            Err(EraRefusal::Load(answer)) => {
                self.reply(ctx, client, answer);
                self.end_request_era(client);
                false
            }
        }
    }

    fn read_request_era(
        &mut self,
        client: &str,
        id: &Value,
        method: &str,
        params: &mut Option<Value>,
    ) -> Result<(), EraRefusal> {
        let era = match modern_request::read_era(method, params.as_ref()) {
            Ok(era) => era,
            Err(error) => {
                let answer = modern_request::error_response(id.clone(), &error);
                return Err(EraRefusal::Envelope(answer));
            }
        };
        let Era::Modern(envelope) = era else {
            return Ok(());
        };
        strip_envelope(params);
        let input_capabilities = INPUT_CAPABILITIES
            .iter()
            .filter_map(|key| {
                let capability = envelope.capabilities.get(*key)?;
                Some((key.to_string(), capability.clone()))
            })
            .collect();
        let (key, identity) = (id.to_string(), envelope.client_identity.clone());
        let cache_hints = method == methods::RESOURCES_READ;
        self.modern_began(client, key, cache_hints, input_capabilities, identity);
        let refusal = match &envelope.client_identity {
            _ if !self.is_load_call(method, params.as_ref()) => None,
            None => Some(format!(
                "This client sends no clientInfo in _meta, so Lazy MCP cannot tell it from other clients and keeps no loaded tools for it. Use {CALL_TOOL} to call a tool found with search_tools."
            )),
            Some(info) if self.is_new_modern_identity(info) => Some(format!(
                "Lazy MCP already keeps loaded tools for {MAX_MODERN_IDENTITIES} other 2026-07-28 clients; nothing was loaded. Use {CALL_TOOL} to call a tool found with search_tools."
            )),
            Some(_) => None,
        };
        if let Some(text) = refusal {
            let result = super::tool_calls::tool_result(text, true);
            let answer = crate::protocol::jsonrpc::success(id.clone(), result);
            return Err(EraRefusal::Load(answer));
        }
        Ok(())
    }

    /// The request has been handled (answered, or sent on upstream).
    pub(in crate::engine) fn end_request_era(&mut self, client: &str) {
        self.modern_handled(client);
    }

    /// The loaded-tools identity of the request being handled, when it is modern.
    pub(super) fn modern_request_identity(&self, client: &str) -> Option<String> {
        let session = self.sessions().get(client)?;
        if !session.modern().is_active() {
            return None;
        }
        Some(match session.modern().identity() {
            Some(info) => modern_identity(info),
            // Never written to (loads are refused): sees no loaded tools.
            None => format!("2026-07-28 client without clientInfo on {client}"),
        })
    }

    /// A cancelled modern request will not be answered.
    pub(super) fn forget_modern_request(&mut self, client: &str, id: &Value) {
        self.modern_forgotten(client, &id.to_string());
    }

    /// Whether `id` is a modern request of `client` still to be answered.
    pub(in crate::engine) fn is_modern_request(&self, client: &str, id: &Value) -> bool {
        self.sessions()
            .get(client)
            .is_some_and(|s| s.modern().is_pending(id))
    }

    /// The input capabilities (`elicitation`, `sampling`) a modern request's client
    /// declared, when it declared any: a modern server answering the forwarded
    /// request may ask that client for input.
    pub(in crate::engine) fn modern_input_capabilities(
        &self,
        client: &str,
        id: &Value,
    ) -> Option<&serde_json::Map<String, Value>> {
        self.sessions().get(client)?.modern().input_capabilities(id)
    }

    /// Whether the client of modern request `id` declared every capability
    /// the server's (non-roots) input `requests` need (and there are some):
    /// they may be passed to it.
    pub(in crate::engine) fn can_answer_input(
        &self,
        client: &str,
        id: &Value,
        requests: &serde_json::Map<String, Value>,
    ) -> bool {
        let declared = self.modern_input_capabilities(client, id);
        !requests.is_empty()
            && requests.values().all(|request| {
                let fields = MessageFields::read(request);
                let required = missing_capability::required_for_input(
                    fields.method().unwrap_or(""),
                    fields.params,
                );
                required.is_some_and(|required| {
                    declared.is_some_and(|d| missing_capability::missing(&required, d).is_none())
                })
            })
    }

    /// The capabilities the client of modern request `id` did not declare
    /// that a server's (non-roots) input `requests` need; None for a legacy
    /// client's call, or when nothing is missing.
    pub(in crate::engine) fn missing_input_capabilities(
        &self,
        client: &str,
        id: &Value,
        requests: &serde_json::Map<String, Value>,
    ) -> Option<serde_json::Map<String, Value>> {
        if !self.is_modern_request(client, id) {
            return None;
        }
        let declared = self
            .modern_input_capabilities(client, id)
            .cloned()
            .unwrap_or_default();
        let mut missing = serde_json::Map::new();
        for request in requests.values() {
            let fields = MessageFields::read(request);
            let required = missing_capability::required_for_input(
                fields.method().unwrap_or(""),
                fields.params,
            );
            if let Some(more) = required.and_then(|r| missing_capability::missing(&r, &declared)) {
                missing_capability::merge(&mut missing, more);
            }
        }
        (!missing.is_empty()).then_some(missing)
    }

    /// Stamps the answer to a modern request (`resultType`). True when it is one.
    pub(in crate::engine) fn stamp_modern_reply(
        &mut self,
        client: &str,
        message: &mut Value,
    ) -> bool {
        let fields = MessageFields::read(message);
        if fields.method_member.is_some() {
            return false;
        }
        let Some(id) = fields.id else {
            return false;
        };
        let key = id.to_string();
        let Some(cache_hints) = self.modern_answered(client, &key) else {
            return false;
        };
        modern_request::stamp_complete(message);
        let result = message.get_mut("result").and_then(Value::as_object_mut);
        if let (true, Some(result)) = (cache_hints, result) {
            gateway_discover::add_cache_hints(result);
        }
        true
    }

    /// A modern identity without loaded tools yet, when the cap is reached.
    fn is_new_modern_identity(&self, client_info: &str) -> bool {
        self.exposure().is_new_identity_over(
            &modern_identity(client_info),
            MODERN_IDENTITY_PREFIX,
            MAX_MODERN_IDENTITIES,
        )
    }

    fn is_load_call(&self, method: &str, params: Option<&Value>) -> bool {
        let name = params.and_then(name_of).unwrap_or_default();
        method == methods::TOOLS_CALL
            && (name == LOAD_TOOLS || name == UNLOAD_TOOLS)
            && self.exposure().meta_tool(name).is_some()
    }
}
