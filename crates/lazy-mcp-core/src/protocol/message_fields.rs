//! What the engine reads of a JSON-RPC message and of an error object, as typed
//! views borrowed from a message already parsed.
//!
//! A view is a struct filled by one pass over the object's members, not a
//! serde derive: a derived reader costs the `.wasm` about 2.5 KB each
//! (`ResultFields` derived measured 2,514 bytes more than this view; bench/README.md
//! "WASM size"), and a view borrows every member (no copy of a `params` or a
//! `result`; a `&RawValue` can only be borrowed from the text serde_json
//! parses, and these messages are already parsed). Reading fails soft, as `.get(…)` chains did: a member of another
//! type reads as absent, and a value that is no object has no members.

use serde_json::{Map, Value};

/// The members of `value` when it is an object (none otherwise), each once.
pub(crate) fn members(value: Option<&Value>) -> impl Iterator<Item = (&str, &Value)> {
    value
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(key, member)| (key.as_str(), member))
}

/// The envelope of one JSON-RPC message: what tells a request, a notification
/// and a response apart, and where its payload is. The payload stays unread.
#[derive(Debug, Default, Clone, Copy)]
pub struct MessageFields<'a> {
    /// `"jsonrpc"`, when a string.
    pub jsonrpc: Option<&'a str>,
    /// `"id"` as sent (any JSON: the caller checks its kind).
    pub id: Option<&'a Value>,
    /// `"method"` as sent: present of any type (a message with a method is no
    /// answer, whatever the method's type); [`MessageFields::method`] is its name.
    pub method_member: Option<&'a Value>,
    pub params: Option<&'a Value>,
    pub result: Option<&'a Value>,
    pub error: Option<&'a Value>,
}

impl<'a> MessageFields<'a> {
    pub fn read(message: &'a Value) -> MessageFields<'a> {
        message
            .as_object()
            .map(MessageFields::of)
            .unwrap_or_default()
    }

    /// The fields of a message held as its object (to be rewritten and passed on).
    pub fn of(message: &'a Map<String, Value>) -> MessageFields<'a> {
        let mut read = MessageFields::default();
        for (key, member) in message {
            match key.as_str() {
                "jsonrpc" => read.jsonrpc = member.as_str(),
                "id" => read.id = Some(member),
                "method" => read.method_member = Some(member),
                "params" => read.params = Some(member),
                "result" => read.result = Some(member),
                "error" => read.error = Some(member),
                _ => {}
            }
        }
        read
    }

    /// The method's name, when it is a string.
    pub fn method(&self) -> Option<&'a str> {
        self.method_member.and_then(Value::as_str)
    }

    /// A request: it has a method and an id (an answer carries no method).
    pub fn is_request(&self) -> bool {
        self.method_member.is_some() && self.id.is_some()
    }
}

/// A JSON-RPC error object: its code and message. `data` stays unread.
#[derive(Debug, Default, Clone, Copy)]
pub struct ErrorObject<'a> {
    pub code: Option<i64>,
    pub message: Option<&'a str>,
}

impl<'a> ErrorObject<'a> {
    pub fn read(error: &'a Value) -> ErrorObject<'a> {
        let mut read = ErrorObject::default();
        for (key, member) in members(Some(error)) {
            match key {
                "code" => read.code = member.as_i64(),
                "message" => read.message = member.as_str(),
                _ => {}
            }
        }
        read
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_message_reads_as_the_get_chains_did() {
        let request =
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "t"}});
        let read = MessageFields::read(&request);
        assert_eq!(read.jsonrpc, Some("2.0"));
        assert_eq!(read.id, Some(&json!(7)));
        assert_eq!(read.method(), Some("tools/call"));
        assert_eq!(read.params, Some(&json!({"name": "t"})));
        assert!(read.is_request() && read.result.is_none() && read.error.is_none());
        // A method of another type is present, but has no name.
        let odd = json!({"jsonrpc": 2, "method": 5, "result": null});
        let read = MessageFields::read(&odd);
        assert_eq!((read.jsonrpc, read.method()), (None, None));
        assert!(read.method_member.is_some() && !read.is_request());
        assert_eq!(read.result, Some(&Value::Null));
        // No object, no members.
        let batch = json!([{"id": 1}]);
        let read = MessageFields::read(&batch);
        assert!(read.id.is_none() && read.method_member.is_none());
    }

    #[test]
    fn an_error_object_reads_its_code_and_message() {
        let error = json!({"code": -32022, "message": "old", "data": {}});
        let read = ErrorObject::read(&error);
        assert_eq!((read.code, read.message), (Some(-32022), Some("old")));
        let odd = json!({"code": "x", "message": 1});
        let read = ErrorObject::read(&odd);
        assert_eq!((read.code, read.message), (None, None));
        assert_eq!(ErrorObject::read(&json!("text")).code, None);
    }
}
