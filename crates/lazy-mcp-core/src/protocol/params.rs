//! The few params and fields the engine reads, typed: read from a message
//! already parsed (borrowing its strings), with what the engine does not read
//! left where it is. Reading fails soft, as `.get(…)` did: a field of the
//! wrong type reads as absent.

use serde::Deserialize;
use serde_json::Value;

/// Anything the engine knows by its `name`: a `tools/call`'s or
/// `prompts/get`'s params, a listed tool or prompt, a prompt's argument.
#[derive(Deserialize)]
struct Named<'a> {
    #[serde(borrow)]
    name: &'a str,
}

/// The `name` of `value`, when it has a string one.
pub fn name_of(value: &Value) -> Option<&str> {
    // Only an object has fields (serde would read an array by position).
    if !value.is_object() {
        return None;
    }
    Named::deserialize(value).ok().map(|named| named.name)
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
            .is_object()
            .then(|| CallTool::deserialize(params).ok());
        read.flatten().unwrap_or(CallTool {
            name: "",
            arguments: empty_object(),
        })
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
