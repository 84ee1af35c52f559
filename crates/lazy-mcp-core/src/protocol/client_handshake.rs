//! The client side of MCP towards an upstream server: `initialize` and the four
//! list methods with `nextCursor` pagination.

use super::handshake_result::{HandshakeResult, ServerCapabilities};
use super::result_fields::ResultFields;
use super::versions;
use crate::protocol::methods;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// What an upstream server told us in its `initialize` result.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeOutcome {
    pub protocol_version: String,
    #[serde(default)]
    pub capabilities: Value,
    #[serde(default)]
    pub server_info: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// Params of the `initialize` request Lazy MCP sends upstream. We declare roots
/// (answered from the host's workspace folders) and sampling/elicitation (forwarded
/// to an attached client, or refused with a clear error when none can take them).
pub fn initialize_params(client_name: &str, client_version: &str) -> Value {
    json!({
        "protocolVersion": versions::OFFERED,
        "capabilities": {
            "roots": {"listChanged": true},
            "sampling": {},
            "elicitation": {}
        },
        "clientInfo": {"name": client_name, "version": client_version}
    })
}

/// Validates an `initialize` result: a known protocol version and an object.
pub fn parse_initialize_result(result: &Value) -> Result<InitializeOutcome, String> {
    let read = HandshakeResult::read(result);
    let answered = read
        .protocol_version
        .ok_or("the initialize result has no protocolVersion")?;
    let protocol_version = versions::check_server_answer(answered)?.to_string();
    Ok(InitializeOutcome {
        protocol_version,
        capabilities: read.capabilities.cloned().unwrap_or_else(|| json!({})),
        server_info: read.server_info.cloned().unwrap_or(Value::Null),
        instructions: read.instructions.map(str::to_string),
    })
}

/// The four catalogued lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ListKind {
    Tools,
    Prompts,
    Resources,
    ResourceTemplates,
}

impl ListKind {
    pub const ALL: [ListKind; 4] = [
        ListKind::Tools,
        ListKind::Prompts,
        ListKind::Resources,
        ListKind::ResourceTemplates,
    ];

    pub fn method(self) -> &'static str {
        match self {
            ListKind::Tools => methods::TOOLS_LIST,
            ListKind::Prompts => methods::PROMPTS_LIST,
            ListKind::Resources => methods::RESOURCES_LIST,
            ListKind::ResourceTemplates => methods::RESOURCES_TEMPLATES_LIST,
        }
    }

    /// The field of the list result holding the items.
    pub fn result_field(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Prompts => "prompts",
            ListKind::Resources => "resources",
            ListKind::ResourceTemplates => "resourceTemplates",
        }
    }

    /// The server capability that must be present for the list to exist.
    pub fn capability(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Prompts => "prompts",
            ListKind::Resources | ListKind::ResourceTemplates => "resources",
        }
    }

    /// The notification announcing a change of this list (templates share resources').
    pub fn list_changed_notification(self) -> &'static str {
        match self {
            ListKind::Tools => methods::NOTIFICATIONS_TOOLS_LIST_CHANGED,
            ListKind::Prompts => methods::NOTIFICATIONS_PROMPTS_LIST_CHANGED,
            ListKind::Resources | ListKind::ResourceTemplates => {
                methods::NOTIFICATIONS_RESOURCES_LIST_CHANGED
            }
        }
    }

    /// The kinds a `list_changed` notification from a server asks to re-list.
    pub fn from_list_changed(method: &str) -> &'static [ListKind] {
        match method {
            methods::NOTIFICATIONS_TOOLS_LIST_CHANGED => &[ListKind::Tools],
            methods::NOTIFICATIONS_PROMPTS_LIST_CHANGED => &[ListKind::Prompts],
            methods::NOTIFICATIONS_RESOURCES_LIST_CHANGED => {
                &[ListKind::Resources, ListKind::ResourceTemplates]
            }
            _ => &[],
        }
    }

    /// Kinds the server declared a capability for, given its initialize result.
    pub fn offered_by(capabilities: &Value) -> Vec<ListKind> {
        ListKind::ALL
            .into_iter()
            .filter(|kind| {
                ServerCapabilities::read(capabilities)
                    .named(kind.capability())
                    .is_some_and(|c| !c.is_null())
            })
            .collect()
    }
}

/// Params of a list request: the cursor of the next page, if any.
pub fn list_params(cursor: Option<&str>) -> Option<Value> {
    cursor.map(|cursor| json!({ "cursor": cursor }))
}

/// Items and `nextCursor` (empty cursors mean "no more pages") of one list page.
pub fn parse_list_page(kind: ListKind, result: &Value) -> (Vec<Value>, Option<String>) {
    let items = result
        .get(kind.result_field())
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let next = ResultFields::read(result)
        .next_cursor
        .filter(|cursor| !cursor.is_empty())
        .map(str::to_string);
    (items, next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initialize_result_rejects_unknown_versions() {
        let ok = parse_initialize_result(
            &json!({"protocolVersion": "2024-11-05", "capabilities": {"tools": {}}, "serverInfo": {"name": "x"}}),
        );
        assert_eq!(ok.map(|o| o.protocol_version), Ok("2024-11-05".to_string()));
        assert!(parse_initialize_result(&json!({"protocolVersion": "2099-01-01"})).is_err());
        assert!(parse_initialize_result(&json!({})).is_err());
    }

    #[test]
    fn offered_lists_follow_capabilities() {
        assert_eq!(
            ListKind::offered_by(&json!({"tools": {}, "resources": {"subscribe": true}})),
            vec![
                ListKind::Tools,
                ListKind::Resources,
                ListKind::ResourceTemplates
            ]
        );
        let (items, next) = parse_list_page(
            ListKind::Tools,
            &json!({"tools": [{"name": "a"}], "nextCursor": ""}),
        );
        assert_eq!((items.len(), next), (1, None));
    }
}
