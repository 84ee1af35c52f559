//! Results of modern (2026-07-28) servers that ask for more input
//! (`resultType: "input_required"`, multi round-trip).
//!
//! Lazy MCP answers `roots/list` itself (the workspace folders, as it answers
//! legacy servers). The other requests (elicitation, sampling) go to the client
//! whose call it is when that client is of the modern era and declared the
//! capability: it answers them by sending the call again with `inputResponses`
//! and the `requestState`. A result asking for roots *and* something else is
//! passed on without the roots part; Lazy MCP keeps which keys were roots in the
//! `requestState` it gives the client (so nothing is kept between the two
//! requests, which a sessionless client may send on different connections) and
//! adds its roots answers to the client's retry. A 2026-07-28 client that did
//! not declare a capability the requests need gets the spec's -32021 naming it;
//! anything else is refused with a clear error.

use crate::engine::effects::LogLevel;
use crate::engine::events::ConnId;
use crate::engine::server::calls::ForwardedCall;
use crate::engine::server::ctx::ServerCtx;
use crate::engine::server::roots::roots_from_folders;
use crate::engine::server::Servers;
use crate::engine::settings::Settings;
use crate::protocol::client_discover as discover;
use crate::protocol::json_text;
use crate::protocol::jsonrpc;
use crate::protocol::message_fields::{members, MessageFields};
use crate::protocol::methods;
use crate::protocol::missing_capability;
use crate::protocol::params::Params;
use crate::protocol::result_fields::ResultFields;
use serde_json::{json, Map, Value};

/// Input rounds of one call before the server's request for input is given back
/// as an error (a server asking forever must not loop).
pub(in crate::engine) const MAX_INPUT_ROUNDS: u32 = 8;

/// Marks a `requestState` Lazy MCP wrapped around the server's own: the keys of
/// the roots requests it answers itself, and the server's state (JSON after it).
const ROOTS_STATE_PREFIX: &str = "lazy-mcp-roots:";

fn request_method(request: &Value) -> &str {
    MessageFields::read(request).method().unwrap_or("")
}

/// What Lazy MCP wrapped around a server's `requestState` (the JSON after
/// [`ROOTS_STATE_PREFIX`]), read in one pass: a member of another type reads as absent.
#[derive(Debug, Default, PartialEq)]
struct WrappedState<'a> {
    /// The keys of the roots requests Lazy MCP answers itself.
    roots: Vec<&'a str>,
    /// The server's own state (any JSON, as it sent it), when it gave one.
    state: Option<&'a Value>,
}

impl<'a> WrappedState<'a> {
    fn read(wrapped: &'a Value) -> WrappedState<'a> {
        let mut read = WrappedState::default();
        for (key, member) in members(Some(wrapped)) {
            match key {
                "roots" => {
                    let keys = member.as_array().into_iter().flatten();
                    read.roots = keys.filter_map(Value::as_str).collect();
                }
                "state" => read.state = Some(member).filter(|s| !s.is_null()),
                _ => {}
            }
        }
        read
    }

    /// The `requestState` wrapping `state` (`{"roots":[…],"state":…}` after
    /// [`ROOTS_STATE_PREFIX`]), written by hand as `json!` wrote it.
    fn write<'k>(roots: impl Iterator<Item = &'k str>, state: Option<&Value>) -> String {
        let mut text = format!("{ROOTS_STATE_PREFIX}{{\"roots\":[");
        for (i, key) in roots.enumerate() {
            if i > 0 {
                text.push(',');
            }
            json_text::push_str(&mut text, key);
        }
        text.push_str("],\"state\":");
        json_text::push_value(&mut text, state.unwrap_or(&Value::Null));
        text.push('}');
        text
    }
}

impl Servers {
    /// An `input_required` result Lazy MCP did not answer itself: passed to the
    /// call's client when it is a modern request whose client declared every
    /// capability the (non-roots) requests need, else refused.
    pub(in crate::engine) fn input_for_client(
        &mut self,
        ctx: &mut ServerCtx,
        name: &str,
        call: &ForwardedCall,
        mut result: Value,
    ) -> Result<Value, Value> {
        let requests = ResultFields::read(&result)
            .input_requests
            .cloned()
            .unwrap_or_default();
        let (roots, others): (Map<String, Value>, Map<String, Value>) = requests
            .into_iter()
            .partition(|(_, r)| request_method(r) == methods::ROOTS_LIST);
        let answerable = call.input_rounds() < MAX_INPUT_ROUNDS
            && ctx
                .clients
                .can_answer_input(call.client(), call.client_id(), &others);
        if answerable {
            if let Some(object) = result.as_object_mut() {
                if !roots.is_empty() {
                    object.insert("inputRequests".into(), Value::Object(others));
                    let state = object.remove("requestState");
                    let keys = roots.keys().map(String::as_str);
                    let wrapped = WrappedState::write(keys, state.as_ref());
                    object.insert("requestState".into(), Value::from(wrapped));
                }
            }
            return Ok(result);
        }
        let asked: Vec<&str> = others.iter().map(|(_, r)| request_method(r)).collect();
        let method = call.method();
        let missing = (call.input_rounds() < MAX_INPUT_ROUNDS)
            .then(|| {
                ctx.clients
                    .missing_input_capabilities(call.client(), call.client_id(), &others)
            })
            .flatten();
        if let Some(missing) = missing {
            // The spec's answer to a 2026-07-28 client: what to declare on its retry.
            let names: Vec<&str> = missing.keys().map(String::as_str).collect();
            let message = format!(
                "MCP server '{name}' needs the {} client capability to complete {method} (input_required: {}); declare it in _meta clientCapabilities and send the request again",
                names.join(" and "),
                asked.join(", ")
            );
            self.log(LogLevel::Warn, Some(name), message.clone());
            return Err(missing_capability::error(&message, Value::Object(missing)));
        }
        let message = if call.input_rounds() >= MAX_INPUT_ROUNDS {
            format!(
                "MCP server '{name}' asked for more input to complete {method} (input_required) more than {MAX_INPUT_ROUNDS} times; Lazy MCP stopped there"
            )
        } else {
            format!(
                "MCP server '{name}' asked for more input to complete {method} (input_required: {}); Lazy MCP answers roots requests itself and passes the others only to a 2026-07-28 client that declared the capability they need (elicitation, sampling)",
                asked.join(", ")
            )
        };
        self.log(LogLevel::Warn, Some(name), message.clone());
        Err(json!({"code": jsonrpc::INTERNAL_ERROR, "message": message}))
    }
}

impl Servers {
    /// A modern server's `input_required` answer that only asks for roots is
    /// answered by Lazy MCP itself: the same request goes again with
    /// `inputResponses` and the server's `requestState`. Returns those params
    /// (the call's timer cancelled; the router sends it again), None to
    /// deliver the answer.
    pub(super) fn input_retry(
        &self,
        ctx: &mut ServerCtx,
        conn: ConnId,
        call: &ForwardedCall,
        outcome: &Result<Value, Value>,
    ) -> Option<Value> {
        let params = match outcome {
            Ok(result)
                if self.is_modern(conn)
                    && discover::asks_for_input(result)
                    && call.input_rounds() < MAX_INPUT_ROUNDS =>
            {
                roots_retry_params(ctx.settings, call, result)
            }
            _ => None,
        }?;
        ctx.timers.cancel_armed(Some(call.timer()));
        Some(params)
    }
}

/// A client's retry carrying a `requestState` Lazy MCP wrapped: the server's
/// own state is restored and Lazy MCP's roots answers are added (the router's
/// `Engine::restore_input_state`).
pub(in crate::engine) fn restore_input_state(settings: &Settings, params: &mut Option<Value>) {
    let Some(object) = params.as_mut().and_then(Value::as_object_mut) else {
        return;
    };
    let wrapped = Params::of(object)
        .request_state
        .and_then(|state| state.strip_prefix(ROOTS_STATE_PREFIX))
        .and_then(|text| serde_json::from_str::<Value>(text).ok());
    let Some(wrapped) = wrapped else {
        return;
    };
    let WrappedState { roots, state } = WrappedState::read(&wrapped);
    object.remove("requestState");
    if let Some(state) = state {
        object.insert("requestState".into(), state.clone());
    }
    add_roots_answers(settings, object, &roots);
}

/// The retry's params when every input request is `roots/list`, else None.
fn roots_retry_params(settings: &Settings, call: &ForwardedCall, result: &Value) -> Option<Value> {
    let asked = ResultFields::read(result);
    let requests = asked.input_requests.cloned().unwrap_or_default();
    let state = asked.request_state.cloned();
    if requests.is_empty() && state.is_none() {
        return None;
    }
    if requests
        .values()
        .any(|r| request_method(r) != methods::ROOTS_LIST)
    {
        return None;
    }
    let keys: Vec<&str> = requests.keys().map(String::as_str).collect();
    let mut params = match call.params() {
        Some(Value::Object(params)) => params.clone(),
        _ => Map::new(),
    };
    params.remove("inputResponses");
    params.remove("requestState");
    add_roots_answers(settings, &mut params, &keys);
    if let Some(state) = state {
        params.insert("requestState".into(), state);
    }
    Some(Value::Object(params))
}

/// `inputResponses[key] = {roots}` for each key (the workspace folders).
pub(in crate::engine) fn add_roots_answers(
    settings: &Settings,
    params: &mut Map<String, Value>,
    keys: &[&str],
) {
    if keys.is_empty() {
        return;
    }
    let roots =
        serde_json::to_value(roots_from_folders(&settings.workspace_folders)).unwrap_or(json!([]));
    let responses = params
        .entry("inputResponses")
        .or_insert_with(|| Value::Object(Map::new()));
    if !responses.is_object() {
        *responses = Value::Object(Map::new());
    }
    if let Some(responses) = responses.as_object_mut() {
        for key in keys {
            responses.insert((*key).to_string(), json!({ "roots": roots.clone() }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrapped_state_reads_its_roots_keys_and_the_servers_state_and_nothing_else() {
        let wrapped = json!({"roots": ["r1", 2, "r2"], "state": {"step": 1}, "other": true});
        let read = WrappedState::read(&wrapped);
        assert_eq!(read.roots, vec!["r1", "r2"]);
        assert_eq!(read.state, Some(&json!({"step": 1})));
        // A null state is none; members of another type read as absent.
        let odd = json!({"roots": "r1", "state": null});
        assert_eq!(WrappedState::read(&odd), WrappedState::default());
        assert_eq!(WrappedState::read(&json!([1])), WrappedState::default());
    }

    #[test]
    fn a_wrapped_state_is_written_as_json_wrote_it_and_reads_back() {
        for state in [
            None,
            Some(json!("s\"1")),
            Some(json!({"b": [1, -2.5], "a": null})),
        ] {
            let keys = ["r1", "r\\2"];
            let text = WrappedState::write(keys.into_iter(), state.as_ref());
            let as_json = json!({ "roots": keys, "state": state });
            assert_eq!(text, format!("{ROOTS_STATE_PREFIX}{as_json}"));
            let back: Value = serde_json::from_str(&text[ROOTS_STATE_PREFIX.len()..]).unwrap();
            let read = WrappedState::read(&back);
            assert_eq!((read.roots, read.state), (keys.to_vec(), state.as_ref()));
        }
    }
}
