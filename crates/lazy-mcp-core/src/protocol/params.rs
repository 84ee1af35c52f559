//! The few params and fields the engine reads, typed: read from a message
//! already parsed (borrowing its members), with what the engine does not read
//! left where it is. Reading fails soft, as `.get(…)` did: a field of the
//! wrong type reads as absent.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// A field of another type reads as absent, as `.get(…).and_then(Value::as_…)`
/// did. Only for params read from a parsed `Value`: each field is its own
/// value there, so a type error leaves nothing half-read.
fn lenient<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    field: D,
) -> Result<Option<T>, D::Error> {
    Ok(T::deserialize(field).ok())
}

/// Params that are no object read as empty; any field of another type as
/// absent. Read from the object's map, which serde reads only as a map: no
/// reader of the struct from an array is compiled.
fn read_soft<'a, T: Deserialize<'a> + Default>(params: Option<&'a Value>) -> T {
    params
        .and_then(Value::as_object)
        .and_then(|p| T::deserialize(p).ok())
        .unwrap_or_default()
}

/// Anything the engine knows by its `name`: a `tools/call`'s or
/// `prompts/get`'s params, a listed tool or prompt, a prompt's argument.
#[derive(Deserialize)]
struct Named<'a> {
    #[serde(borrow)]
    name: &'a str,
}

/// The `name` of `value`, when it has a string one.
pub fn name_of(value: &Value) -> Option<&str> {
    // Only an object has fields, read from its map (serde would read an array
    // by position, and compile a reader for that).
    let fields = value.as_object()?;
    Named::deserialize(fields).ok().map(|named| named.name)
}

/// The `name` of optional params (`params.name`).
pub fn name_in(params: Option<&Value>) -> Option<&str> {
    params.and_then(name_of)
}

/// A `tools/call`'s params as the engine reads them: the tool and its
/// arguments (`{}` when absent). `_meta` and the rest are not read here.
#[derive(Debug, Deserialize)]
pub struct CallTool<'a> {
    #[serde(borrow, default)]
    pub name: &'a str,
    #[serde(default = "empty_object")]
    pub arguments: Value,
}

impl<'a> CallTool<'a> {
    /// Params that are no object, or whose `name` is no string, read as no
    /// tool (`""`) with no arguments.
    pub fn read(params: &'a Value) -> CallTool<'a> {
        let read = params
            .as_object()
            .and_then(|fields| CallTool::deserialize(fields).ok());
        read.unwrap_or(CallTool {
            name: "",
            arguments: empty_object(),
        })
    }
}

/// The params fields the core reads of a request or a notification, typed;
/// each method reads its own few, and the rest of its params stays unread.
/// One struct, not one per method, filled by one pass over the params'
/// members and borrowing them: a serde-derived reader cost the `.wasm` about
/// 2.7 KB (bench/README.md "WASM size"), this view less (`message_fields.rs`).
#[derive(Debug, Default, Clone, Copy)]
pub struct Params<'a> {
    /// `tools/call`, `prompts/get`: the target's name.
    pub name: Option<&'a str>,
    /// `resources/read`, `resources/subscribe`, …: the target's URI.
    pub uri: Option<&'a str>,
    /// `notifications/cancelled`: the request it names (any JSON, as sent).
    pub request_id: Option<&'a Value>,
    /// `notifications/progress`: its token (any JSON, as sent).
    pub progress_token: Option<&'a Value>,
    /// `initialize`: the client's capabilities (kept as sent).
    pub capabilities: Option<&'a Value>,
    /// `initialize`: the version the client asks for.
    pub protocol_version: Option<&'a str>,
    /// `initialize`: who the client is (its `name` read with [`name_of`]).
    pub client_info: Option<&'a Value>,
    /// A request sent again with the input a server asked for (2026-07-28
    /// `input_required`): the state that names the waiting call...
    pub request_state: Option<&'a str>,
    /// ...and the answers.
    pub input_responses: Option<&'a serde_json::Map<String, Value>>,
    /// `tools/call`: the arguments, as sent.
    pub arguments: Option<&'a Value>,
    /// `_meta`, as sent (any JSON: [`Params::meta`] reads it).
    pub meta: Option<&'a Value>,
    /// `notifications/message`: its level and data.
    pub level: Option<&'a str>,
    pub data: Option<&'a Value>,
    /// `subscriptions/listen`: the filter, as sent.
    pub notifications: Option<&'a Value>,
}

impl<'a> Params<'a> {
    /// Params that are no object read as empty; any field of another type as absent.
    pub fn read(params: Option<&'a Value>) -> Params<'a> {
        params
            .and_then(Value::as_object)
            .map(Params::of)
            .unwrap_or_default()
    }

    /// The fields of params held as their object (to be rewritten and passed on).
    pub fn of(params: &'a serde_json::Map<String, Value>) -> Params<'a> {
        let mut read = Params::default();
        for (key, member) in params {
            match key.as_str() {
                "name" => read.name = member.as_str(),
                "uri" => read.uri = member.as_str(),
                "requestId" => read.request_id = Some(member),
                "progressToken" => read.progress_token = Some(member),
                "capabilities" => read.capabilities = Some(member),
                "protocolVersion" => read.protocol_version = member.as_str(),
                "clientInfo" => read.client_info = Some(member),
                "requestState" => read.request_state = member.as_str(),
                "inputResponses" => read.input_responses = member.as_object(),
                "arguments" => read.arguments = Some(member),
                "_meta" => read.meta = Some(member),
                "level" => read.level = member.as_str(),
                "data" => read.data = Some(member),
                "notifications" => read.notifications = Some(member),
                _ => {}
            }
        }
        read
    }

    /// The params' `_meta` read as params (`_meta.progressToken`).
    pub fn meta(&self) -> Params<'a> {
        Params::read(self.meta)
    }
}

/// The meta-tools' arguments (`search_tools`' `query` and `limit`,
/// `load_tools`' and `unload_tools`' `names`), read after their schema
/// accepted them.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct MetaToolArguments<'a> {
    #[serde(borrow, deserialize_with = "lenient")]
    pub query: Option<&'a str>,
    #[serde(deserialize_with = "lenient")]
    pub limit: Option<u64>,
    #[serde(deserialize_with = "lenient")]
    pub names: Option<Vec<String>>,
}

impl<'a> MetaToolArguments<'a> {
    pub fn read(arguments: &'a Value) -> MetaToolArguments<'a> {
        read_soft(Some(arguments))
    }
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_read_as_before() {
        assert_eq!(name_of(&json!({"name": "a", "inputSchema": {}})), Some("a"));
        assert_eq!(name_of(&json!({"name": 3})), None);
        assert_eq!(name_of(&json!(["name"])), None);
        assert_eq!(name_in(None), None);
    }

    #[test]
    fn params_read_as_the_get_chains_did() {
        let read = |v: Value| {
            let p = Params::read(Some(&v));
            format!(
                "{:?} {:?} {:?} {:?} {:?} {:?} {:?}",
                p.request_id,
                p.progress_token,
                p.capabilities,
                p.protocol_version,
                p.client_info.and_then(name_of),
                p.request_state,
                p.input_responses
            )
        };
        let none = "None None None None None None None";
        assert_eq!(
            read(json!({"requestId": 7, "progressToken": "t"})),
            "Some(Number(7)) Some(String(\"t\")) None None None None None"
        );
        // `null` is a value as sent (`.get` found it); absent is absent.
        assert_eq!(
            read(json!({"requestId": null})),
            "Some(Null) None None None None None None"
        );
        // A field of another type reads as absent; the others still read.
        assert_eq!(
            read(
                json!({"protocolVersion": 2025, "capabilities": {"a": {}}, "clientInfo": {"name": 1}})
            ),
            "None None Some(Object {\"a\": Object {}}) None None None None"
        );
        assert_eq!(
            read(
                json!({"protocolVersion": "2025-06-18", "clientInfo": {"name": "c"}, "requestState": "s", "inputResponses": {"k": 1}})
            ),
            "None None None Some(\"2025-06-18\") Some(\"c\") Some(\"s\") Some({\"k\": Number(1)})"
        );
        assert_eq!(
            read(json!({"requestState": 1, "inputResponses": [1]})),
            none
        );
        // Params that are no object have no fields (not read by position).
        assert_eq!(read(json!([7, "t"])), none);
        assert_eq!(format!("{:?}", Params::read(None).request_id), "None");
    }

    #[test]
    fn meta_tool_arguments_read_as_the_get_chains_did() {
        let a = json!({"query": "files", "limit": 3, "names": ["a/b", "c"]});
        let read = MetaToolArguments::read(&a);
        assert_eq!((read.query, read.limit), (Some("files"), Some(3)));
        assert_eq!(read.names, Some(vec!["a/b".to_string(), "c".to_string()]));
        let odd = json!({"query": 1, "limit": -1, "names": "a"});
        let read = MetaToolArguments::read(&odd);
        assert_eq!((read.query, read.limit, read.names), (None, None, None));
    }

    #[test]
    fn a_call_keeps_its_arguments_as_they_came() {
        let params = json!({"name": "t", "arguments": {"x": 1}, "_meta": {"progressToken": 1}});
        let call = CallTool::read(&params);
        assert_eq!((call.name, call.arguments), ("t", json!({"x": 1})));
        assert_eq!(CallTool::read(&json!({"name": "t"})).arguments, json!({}));
        let null = json!({"name": "t", "arguments": null});
        assert_eq!(CallTool::read(&null).arguments, Value::Null);
        assert_eq!(CallTool::read(&json!({"name": 1})).name, "");
        assert_eq!(CallTool::read(&json!(["t", {"x": 1}])).arguments, json!({}));
    }
}
