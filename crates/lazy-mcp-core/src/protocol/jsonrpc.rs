//! JSON-RPC 2.0 messages as MCP uses them: one message per text (no batches).

use super::message_fields::ErrorObject;
use serde_json::{json, Map, Value};

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
/// Implementation-defined: the upstream server is not available (failed, stopped, crashed).
pub const SERVER_UNAVAILABLE: i64 = -32000;
/// Implementation-defined: the upstream server did not answer in time.
pub const REQUEST_TIMEOUT: i64 = -32001;

/// One parsed JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Request {
        id: Value,
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
    /// `outcome` is `Ok(result)` or `Err(error object)`.
    Response {
        id: Value,
        outcome: Result<Value, Value>,
    },
}

impl Message {
    /// Parses one JSON-RPC message; the error says what was wrong, for a log line.
    pub fn parse(text: &str) -> Result<Message, String> {
        // Depth first: nothing recursive may see a deeper text (see `outline`).
        let depth = super::outline::outline(text).max_depth;
        if depth > super::outline::MAX_DEPTH {
            return Err(format!(
                "nested {depth} levels deep (at most {} are read)",
                super::outline::MAX_DEPTH
            ));
        }
        let value: Value =
            serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
        Message::from_value(value)
    }

    pub fn from_value(value: Value) -> Result<Message, String> {
        let Value::Object(mut object) = value else {
            return Err(
                "a JSON-RPC message must be a JSON object (batches are not supported)".into(),
            );
        };
        let method = object.remove("method");
        let id = object.remove("id");
        let params = object.remove("params");
        match (method, id) {
            (Some(Value::String(method)), Some(id)) if !id.is_null() => {
                Ok(Message::Request { id, method, params })
            }
            (Some(Value::String(method)), _) => Ok(Message::Notification { method, params }),
            (Some(_), _) => Err("\"method\" must be a string".into()),
            (None, Some(id)) => {
                if let Some(error) = object.remove("error") {
                    Ok(Message::Response {
                        id,
                        outcome: Err(error),
                    })
                } else if let Some(result) = object.remove("result") {
                    Ok(Message::Response {
                        id,
                        outcome: Ok(result),
                    })
                } else {
                    Err("a response needs \"result\" or \"error\"".into())
                }
            }
            (None, None) => Err("neither a request, a notification nor a response".into()),
        }
    }

    pub fn to_value(&self) -> Value {
        self.clone().into_value()
    }

    /// Like [`Message::to_value`] without copying (results can be megabytes).
    pub fn into_value(self) -> Value {
        match self {
            Message::Request { id, method, params } => request(id, &method, params),
            Message::Notification { method, params } => notification(&method, params),
            Message::Response { id, outcome } => match outcome {
                Ok(result) => success(id, result),
                Err(error) => {
                    let mut object = Map::new();
                    object.insert("jsonrpc".into(), Value::from("2.0"));
                    object.insert("id".into(), id);
                    object.insert("error".into(), error);
                    Value::Object(object)
                }
            },
        }
    }

    pub fn to_text(&self) -> String {
        self.to_value().to_string()
    }
}

pub fn request(id: Value, method: &str, params: Option<Value>) -> Value {
    let mut object = Map::new();
    object.insert("jsonrpc".into(), Value::from("2.0"));
    object.insert("id".into(), id);
    object.insert("method".into(), Value::from(method));
    if let Some(params) = params {
        object.insert("params".into(), params);
    }
    Value::Object(object)
}

pub fn notification(method: &str, params: Option<Value>) -> Value {
    let mut object = Map::new();
    object.insert("jsonrpc".into(), Value::from("2.0"));
    object.insert("method".into(), Value::from(method));
    if let Some(params) = params {
        object.insert("params".into(), params);
    }
    Value::Object(object)
}

pub fn success(id: Value, result: Value) -> Value {
    let mut object = Map::new();
    object.insert("jsonrpc".into(), Value::from("2.0"));
    object.insert("id".into(), id);
    object.insert("result".into(), result);
    Value::Object(object)
}

pub fn error_response(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The `code` of a JSON-RPC error object, if it has one.
pub fn error_code(error: &Value) -> Option<i64> {
    ErrorObject::read(error).code
}

/// The `message` of a JSON-RPC error object, or the whole object as text.
pub fn error_message(error: &Value) -> String {
    match ErrorObject::read(error).message {
        Some(message) => message.to_string(),
        None => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_four_shapes() {
        assert!(matches!(
            Message::parse(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Ok(Message::Request { .. })
        ));
        assert!(matches!(
            Message::parse(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Ok(Message::Notification { .. })
        ));
        assert!(matches!(
            Message::parse(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#),
            Ok(Message::Response { outcome: Ok(_), .. })
        ));
        assert!(matches!(
            Message::parse(r#"{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"x"}}"#),
            Ok(Message::Response {
                outcome: Err(_),
                ..
            })
        ));
        assert!(Message::parse("[1,2]").is_err());
        assert!(Message::parse("{not json").is_err());
    }

    #[test]
    fn round_trips_params_unchanged() {
        let text = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"b":1,"a":2},"_meta":{"progressToken":"p"}}}"#;
        let message = Message::parse(text);
        assert_eq!(message.map(|m| m.to_text()), Ok(text.to_string()));
    }
}
