//! A client's request after its era and any bridged retry: `Clients`
//! answers what clients are shown alone (`initialize`, the lists, `ping`,
//! the meta-tools), refuses what it cannot serve, and says what goes on
//! ([`Asked`], `clients/asked.rs`): a listen whose servers' subscriptions
//! follow, or a call for a server. It reads the servers through `ServedView`; the router carries
//! out the rest.

use crate::engine::clients::asked::Asked;
use crate::engine::clients::context::ClientsContext;
use crate::engine::clients::exposure::view::ServedView;
use crate::engine::clients::modern_clients::discover_answer;
use crate::engine::clients::Clients;
use crate::engine::events::Endpoint;
use crate::engine::server::calls::{CallParams, QueuedCall};
use crate::engine::state::ServerState;
use crate::protocol::client_handshake::ListKind;
use crate::protocol::gateway_discover::add_cache_hints;
use crate::protocol::jsonrpc;
use crate::protocol::methods;
use crate::protocol::params::{name_of, CallTool, Params};
use serde_json::{json, Value};

/// Methods that need the live server (they go through `ensure_connected`).
const CALL_METHODS: [&str; 6] = [
    methods::TOOLS_CALL,
    methods::PROMPTS_GET,
    methods::RESOURCES_READ,
    methods::RESOURCES_SUBSCRIBE,
    methods::RESOURCES_UNSUBSCRIBE,
    methods::COMPLETION_COMPLETE,
];

impl Clients {
    /// `client`'s request `id` on `endpoint` (its era read, not a bridged
    /// retry): answered here from what clients are shown, or handed on.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::engine) fn client_request(
        &mut self,
        ctx: &mut ClientsContext<'_>,
        served: ServedView<'_>,
        client: &str,
        endpoint: &Endpoint,
        id: Value,
        method: &str,
        params: Option<Value>,
    ) -> Asked {
        let servers = served.servers();
        if !servers.is_exposed_endpoint(endpoint) {
            if let Endpoint::Server { name } = endpoint {
                let why = match servers.get(name) {
                    None => format!("Lazy MCP has no server named '{name}'"),
                    Some(server) => format!(
                        "MCP server '{name}' is {}; enable it to use it",
                        server.state().label().to_lowercase()
                    ),
                };
                self.reply_error(ctx, client, id, jsonrpc::INVALID_REQUEST, &why);
            }
            return Asked::Answered;
        }
        let answer = match method {
            methods::INITIALIZE => {
                let asked = Params::read(params.as_ref());
                let capabilities = asked.capabilities.cloned().unwrap_or_else(|| json!({}));
                let identity = asked.client_info.and_then(name_of).map(str::to_string);
                self.initialized(client, capabilities, identity);
                (self.shown(served)).initialize_result(endpoint, asked.protocol_version)
            }
            methods::PING | methods::LOGGING_SET_LEVEL => json!({}),
            // The modern era's handshake-free introduction (also answered to a
            // client that sends it without an envelope: nothing depends on it).
            methods::SERVER_DISCOVER => {
                discover_answer(&self.shown(served).initialize_result(endpoint, None))
            }
            methods::SUBSCRIPTIONS_LISTEN => {
                let modern = self.in_modern_request(client);
                let key = id.to_string();
                let opened = self.listen(ctx, served, client, &id, params.as_ref(), modern);
                return opened.map_or(Asked::Answered, |change| Asked::Listened(key, change));
            }
            methods::TOOLS_LIST
            | methods::PROMPTS_LIST
            | methods::RESOURCES_LIST
            | methods::RESOURCES_TEMPLATES_LIST => {
                let kind = match method {
                    methods::TOOLS_LIST => ListKind::Tools,
                    methods::PROMPTS_LIST => ListKind::Prompts,
                    methods::RESOURCES_LIST => ListKind::Resources,
                    _ => ListKind::ResourceTemplates,
                };
                let items = self.shown(served).list_for(client, endpoint, kind);
                let mut result = serde_json::Map::new();
                result.insert(kind.result_field().into(), Value::from(items));
                add_cache_hints(&mut result);
                self.reply(ctx, client, jsonrpc::success(id, Value::Object(result)));
                if kind == ListKind::Tools {
                    self.tools_listed(endpoint, ctx.now_ms);
                }
                return Asked::Answered;
            }
            _ if CALL_METHODS.contains(&method) => {
                return self.client_call(ctx, served, client, endpoint, id, method, params)
            }
            _ => {
                // Anything else goes to a live server-endpoint upstream as is.
                let live = match endpoint {
                    Endpoint::Server { name } => servers
                        .get(name)
                        .filter(|s| *s.state() == ServerState::Connected)
                        .map(|_| name.clone()),
                    Endpoint::Aggregate => None,
                };
                let Some(name) = live else {
                    let why = format!("Method not found: {method}");
                    self.reply_error(ctx, client, id, jsonrpc::METHOD_NOT_FOUND, &why);
                    return Asked::Answered;
                };
                let call = QueuedCall::new(
                    client.to_string(),
                    id,
                    method.to_string(),
                    CallParams::Parsed(params),
                );
                return Asked::Call(name, call);
            }
        };
        self.reply(ctx, client, jsonrpc::success(id, answer));
        Asked::Answered
    }

    /// A call that needs a live server (`CALL_METHODS`): its server found
    /// (on the aggregate endpoint by the exposed name, written back), or a
    /// refusal; a meta-tool's call answered or turned into its tool's call.
    #[allow(clippy::too_many_arguments)]
    fn client_call(
        &mut self,
        ctx: &mut ClientsContext<'_>,
        served: ServedView<'_>,
        client: &str,
        endpoint: &Endpoint,
        id: Value,
        method: &str,
        mut params: Option<Value>,
    ) -> Asked {
        let target = match endpoint {
            Endpoint::Server { name } => {
                if method == methods::TOOLS_CALL {
                    let tool = params.as_ref().and_then(name_of).unwrap_or_default();
                    let servers = served.servers();
                    if !servers.get(name).is_some_and(|s| s.exposes_tool(tool)) {
                        let why = format!("Tool '{tool}' of MCP server '{name}' is not exposed (it is not in the \"tools\" list of the server's config)");
                        self.reply_error(ctx, client, id, jsonrpc::INVALID_PARAMS, &why);
                        return Asked::Answered;
                    }
                }
                Ok(name.clone())
            }
            Endpoint::Aggregate => {
                if method == methods::TOOLS_CALL {
                    let meta = (params.as_ref())
                        .and_then(|p| self.meta_tool_call(ctx, served, client, &id, p));
                    if let Some(asked) = meta {
                        return asked;
                    }
                }
                let target = self
                    .shown(served)
                    .resolve_aggregate(method, params.as_mut());
                // A loaded tool of an `index` server: its arguments are checked first.
                if let (Ok(server), methods::TOOLS_CALL, Some(p)) = (&target, method, &params) {
                    let CallTool {
                        name: tool,
                        arguments,
                    } = CallTool::read(p);
                    if self.is_indexed(server) {
                        let shown = self.shown(served);
                        if let Some(why) = shown.invalid_arguments(server, tool, &arguments) {
                            self.reply_tool_error(ctx, client, &id, why);
                            return Asked::Answered;
                        }
                    }
                }
                target
            }
        };
        match target {
            Ok(name) => {
                let params = CallParams::Parsed(params);
                Asked::Call(
                    name,
                    QueuedCall::new(client.to_string(), id, method.to_string(), params),
                )
            }
            Err(why) => {
                self.reply_error(ctx, client, id, jsonrpc::INVALID_PARAMS, &why);
                Asked::Answered
            }
        }
    }
}
