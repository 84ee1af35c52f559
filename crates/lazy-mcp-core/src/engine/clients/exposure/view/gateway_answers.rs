//! What the gateway answers from what clients are shown alone, touching no
//! upstream: an endpoint's `initialize` result, its lists, and which server
//! an aggregate call goes to (with the exposed name written back). Read-only,
//! like the view it extends.

use super::ShownView;
use crate::engine::events::Endpoint;
use crate::engine::settings::AggregateEndpoint;
use crate::protocol::client_handshake::ListKind;
use crate::protocol::gateway_handshake;
use crate::protocol::handshake_result::Implementation;
use crate::protocol::listed_item::ListedItem;
use crate::protocol::methods;
use crate::protocol::params::{name_of, Params};
use serde_json::{json, Value};

/// `serverInfo.name` of the aggregate endpoint.
const AGGREGATE_SERVER_NAME: &str = "lazy-mcp";

impl ShownView<'_> {
    /// The `initialize` result of `endpoint` (`requested`: the client's protocol version).
    pub(in crate::engine) fn initialize_result(
        self,
        endpoint: &Endpoint,
        requested: Option<&str>,
    ) -> Value {
        match endpoint {
            Endpoint::Server { name } => {
                let entry = self.current_entry(name);
                let upstream = entry
                    .map(|e| e.initialize.capabilities.clone())
                    .unwrap_or_else(|| json!({}));
                let version = entry
                    .and_then(|e| Implementation::read(&e.initialize.server_info).version())
                    .unwrap_or(crate::CORE_VERSION);
                gateway_handshake::initialize_result(
                    requested,
                    name,
                    version,
                    gateway_handshake::gateway_capabilities(&upstream, true),
                    self.served_instructions(name),
                )
            }
            Endpoint::Aggregate => {
                // Each server's instructions, under its name (tools are `server__tool`).
                let instructions: Vec<String> = self
                    .servers
                    .iter()
                    .filter(|(_, s)| s.state().is_exposed())
                    .filter_map(|(name, _)| {
                        let text = self.served_instructions(name)?;
                        Some(format!("## {name}\n{text}"))
                    })
                    .collect();
                let instructions = instructions.join("\n\n");
                // "lazy-mcp": VS Code names tools `mcp_<serverInfo.name>_<tool>`.
                gateway_handshake::initialize_result(
                    requested,
                    AGGREGATE_SERVER_NAME,
                    &self.settings.client_version,
                    // Read from text: a `json!` of it built each object in code.
                    serde_json::from_str(
                        r#"{"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true}}"#,
                    )
                    .unwrap_or_default(),
                    Some(instructions.as_str()).filter(|text| !text.is_empty()),
                )
            }
        }
    }

    /// The `kind` list `client` gets on `endpoint`.
    pub(in crate::engine) fn list_for(
        self,
        client: &str,
        endpoint: &Endpoint,
        kind: ListKind,
    ) -> Vec<Value> {
        let all = self.settings.aggregate_endpoint == AggregateEndpoint::All;
        match (endpoint, kind) {
            (Endpoint::Server { name }, ListKind::Tools) => self.endpoint_tools(name),
            (Endpoint::Server { name }, kind) => self.exposed_list(name, kind),
            (Endpoint::Aggregate, ListKind::Tools) => self.aggregate_tools_for(client),
            (Endpoint::Aggregate, _) if !all => Vec::new(),
            (Endpoint::Aggregate, ListKind::Prompts) => {
                self.aggregate_list_where(ListKind::Prompts, |_, _| true)
            }
            (Endpoint::Aggregate, kind) => self
                .servers
                .keys()
                .flat_map(|name| self.exposed_list(name, kind))
                .collect(),
        }
    }

    /// Finds the server of an aggregate call and rewrites the exposed name
    /// back; the error says why none (switched off, awaiting approval, held).
    pub(in crate::engine) fn resolve_aggregate(
        self,
        method: &str,
        params: Option<&mut Value>,
    ) -> Result<String, String> {
        let Some(params) = params else {
            return Err(format!("{method} needs params"));
        };
        let by_name = |kind: ListKind, exposed: &str| {
            self.clients
                .exposure()
                .aggregate_route(kind, exposed)
                .cloned()
        };
        match method {
            methods::TOOLS_CALL | methods::PROMPTS_GET => {
                let kind = if method == methods::TOOLS_CALL {
                    ListKind::Tools
                } else {
                    ListKind::Prompts
                };
                let exposed = name_of(params).unwrap_or_default().to_string();
                let (server, original) = by_name(kind, &exposed).ok_or_else(|| {
                    let why = self
                        .servers
                        .switched_off_refusal(&exposed)
                        .or_else(|| self.awaiting.refusal_for(&exposed))
                        .or_else(|| self.pins.aggregate_refusal(kind, &exposed));
                    match why {
                        Some(why) => why,
                        None => format!(
                            "Lazy MCP has no {} named '{exposed}'",
                            kind.result_field().trim_end_matches('s')
                        ),
                    }
                })?;
                if let Some(object) = params.as_object_mut() {
                    object.insert("name".into(), original);
                }
                Ok(server)
            }
            methods::COMPLETION_COMPLETE => {
                let reference = params
                    .get_mut("ref")
                    .ok_or("completion/complete needs ref")?;
                // A reference names a listed prompt or resource, as a listed item does.
                if let Some(uri) = ListedItem::read(reference).uri {
                    return self
                        .server_for_resource(uri)
                        .ok_or_else(|| format!("Lazy MCP has no resource '{uri}'"));
                }
                let exposed = name_of(reference).unwrap_or_default().to_string();
                let (server, original) = by_name(ListKind::Prompts, &exposed)
                    .ok_or_else(|| format!("Lazy MCP has no prompt named '{exposed}'"))?;
                if let Some(object) = reference.as_object_mut() {
                    object.insert("name".into(), original);
                }
                Ok(server)
            }
            _ => {
                let uri = Params::read(Some(params)).uri.unwrap_or_default();
                self.server_for_resource(uri)
                    .ok_or_else(|| format!("Lazy MCP has no resource '{uri}'"))
            }
        }
    }
}
