//! The meta-tools of `index` mode on the aggregate endpoint: `search_tools`,
//! `load_tools`, `unload_tools` and `call_tool`. The engine answers them from
//! the catalogue; none starts a server, except that `call_tool` then is exactly
//! a `tools/call` of the real tool. Arguments are checked against the schema
//! before anything is started.

use crate::engine::clients::asked::Asked;
use crate::engine::clients::context::ClientsContext;
use crate::engine::clients::exposure::view::ServedView;
use crate::engine::clients::state::search_model::WaitingSearch;
use crate::engine::clients::Clients;
use crate::engine::effects::Effect;
use crate::engine::server::calls::CallParams;
use crate::engine::server::calls::QueuedCall;
use crate::protocol::client_handshake::ListKind;
use crate::protocol::jsonrpc;
use crate::protocol::listed_item::ListedItem;
use crate::protocol::methods;
use crate::protocol::params::{name_of, CallTool, MetaToolArguments};
use crate::tool_index::{
    render_search_results, validate_arguments, ToolIndex, CALL_TOOL, LOAD_TOOLS,
    SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT, SEARCH_TOOLS, UNLOAD_TOOLS,
};
use serde_json::{json, Value};

/// A `tools/call` result of one text (one copy for every caller: each
/// `json!` of it cost the `.wasm` its own object building).
pub(super) fn tool_result(text: String, is_error: bool) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": is_error})
}

/// A `load_tools` name resolved: (server, tool, whether its server is in
/// index mode), or why not.
type Resolved = Result<(String, String, bool), String>;

impl Clients {
    /// `client`'s tool call `id` is answered with the error `why` (a tool's
    /// arguments its schema refuses: said before anything is started).
    pub(super) fn reply_tool_error(
        &mut self,
        ctx: &mut ClientsContext<'_>,
        client: &str,
        id: &Value,
        why: String,
    ) {
        self.reply(ctx, client, tool_reply(id, why, true));
    }
}

/// The answer to a meta-tool call `id`: one text.
fn tool_reply(id: &Value, text: String, is_error: bool) -> Value {
    jsonrpc::success(id.clone(), tool_result(text, is_error))
}

/// `load_tools`' and `unload_tools`' `names` (their schema asked for strings).
fn names(arguments: &Value) -> Vec<String> {
    MetaToolArguments::read(arguments).names.unwrap_or_default()
}

impl Clients {
    /// A `tools/call` of a meta-tool on the aggregate endpoint: answered here,
    /// or (`call_tool`) the real tool's call to route. `None` when
    /// `params.name` is not a meta-tool listed now (the call is then an
    /// ordinary one).
    pub(in crate::engine) fn meta_tool_call(
        &mut self,
        ctx: &mut ClientsContext<'_>,
        served: ServedView<'_>,
        client: &str,
        id: &Value,
        params: &Value,
    ) -> Option<Asked> {
        // The name first: most calls are no meta-tool's, and their arguments stay uncopied.
        let name = name_of(params).unwrap_or("");
        let schema = (self.meta_tool(name))
            .and_then(|t| ListedItem::read(t).input_schema)
            .cloned()?;
        let arguments = CallTool::read(params).arguments;
        if let Err(why) = validate_arguments(&schema, &arguments) {
            let answer = tool_reply(id, format!("Invalid {name} call: {why}"), true);
            self.reply(ctx, client, answer);
            return Some(Asked::Answered);
        }
        match name {
            SEARCH_TOOLS => self.search_tools(ctx, served, client, id, &arguments),
            // Each name resolved, and whether its server is in index mode.
            LOAD_TOOLS | UNLOAD_TOOLS => {
                let load = name == LOAD_TOOLS;
                self.load_or_unload(ctx, served, client, id, &arguments, load);
            }
            CALL_TOOL => return Some(self.call_tool(ctx, served, client, id, &arguments, params)),
            _ => return None,
        }
        Some(Asked::Answered)
    }

    /// `call_tool`: the real tool's call, or why not (answered). `params`:
    /// the meta-tool call's own, whose `_meta` and multi-round-trip answers
    /// (`inputResponses`, `requestState`: a modern client answering the
    /// tool's request for input) go with the real call.
    fn call_tool(
        &mut self,
        ctx: &mut ClientsContext<'_>,
        served: ServedView<'_>,
        client: &str,
        id: &Value,
        arguments: &Value,
        params: &Value,
    ) -> Asked {
        let CallTool {
            name,
            arguments: tool_arguments,
        } = CallTool::read(arguments);
        let resolved = self.resolve_tool(served, name).and_then(|(server, tool)| {
            match self
                .shown(served)
                .invalid_arguments(&server, &tool, &tool_arguments)
            {
                Some(why) => Err(why),
                None => Ok((server, tool)),
            }
        });
        let (server, tool) = match resolved {
            Ok(pair) => pair,
            Err(why) => {
                self.reply(ctx, client, tool_reply(id, why, true));
                return Asked::Answered;
            }
        };
        let mut call = serde_json::Map::new();
        call.insert("name".into(), Value::from(tool));
        call.insert("arguments".into(), tool_arguments);
        for key in ["_meta", "inputResponses", "requestState"] {
            if let Some(value) = params.get(key) {
                call.insert(key.into(), value.clone());
            }
        }
        let params = CallParams::Parsed(Some(Value::Object(call)));
        let call = QueuedCall::new(
            client.to_string(),
            id.clone(),
            methods::TOOLS_CALL.into(),
            params,
        );
        Asked::Call(server, call)
    }
}

impl Clients {
    /// `load_tools` (`load`) or `unload_tools` of the `resolved` names for
    /// `client`; `(seen, max)`: the tools it sees now and `maxTools`.
    fn load_tools(
        &mut self,
        ctx: &mut ClientsContext<'_>,
        client: &str,
        id: &Value,
        resolved: Vec<Resolved>,
        load: bool,
        (seen, max_tools): (usize, usize),
    ) {
        let mut found: Vec<(String, String)> = Vec::new();
        let mut lines: Vec<String> = Vec::new();
        for resolved in resolved {
            match resolved {
                Ok((server, tool, false)) => lines.push(format!(
                    "{server}/{tool} is always in the tool list (its server is not in index mode)."
                )),
                Ok((server, tool, true)) => {
                    let pair = (server, tool);
                    if !found.contains(&pair) {
                        found.push(pair);
                    }
                }
                Err(why) => lines.push(why),
            }
        }
        let identity = self.identity_of(client);
        let current = self.loaded_of(client);
        let changed: Vec<(String, String)> = if load {
            let new: Vec<(String, String)> = found
                .into_iter()
                .filter(|pair| !current.contains(pair))
                .collect();
            let total = seen + new.len();
            if total > max_tools {
                lines.push(format!(
                    "Nothing loaded: {} more would make {total} in the tool list, over the limit of {}. Unload some with {UNLOAD_TOOLS} first.",
                    crate::wording::count(new.len(), "tool"),
                    max_tools
                ));
                Vec::new()
            } else {
                new
            }
        } else {
            let (was, not): (Vec<_>, Vec<_>) =
                found.into_iter().partition(|pair| current.contains(pair));
            for (server, tool) in not {
                lines.push(format!("{server}/{tool} was not loaded."));
            }
            was
        };
        self.tools_loaded(&identity, &changed, load);
        if !changed.is_empty() {
            let listed: Vec<String> = changed
                .iter()
                .map(|(server, tool)| {
                    format!("{server}/{tool} ({})", self.aggregate_name(server, tool))
                })
                .collect();
            lines.insert(
                0,
                if load {
                    format!(
                        "Loaded: {}. They are in the tool list from the next step; {CALL_TOOL} can call them now.",
                        listed.join(", ")
                    )
                } else {
                    format!("Unloaded: {}.", listed.join(", "))
                },
            );
        }
        let answer = tool_reply(id, lines.join("\n"), changed.is_empty());
        self.reply(ctx, client, answer);
        if !changed.is_empty() {
            self.tools_changed_notices(&identity);
        }
    }

    /// The name a tool has on the aggregate endpoint (`server__tool`).
    fn aggregate_name(&self, server: &str, tool: &str) -> String {
        self.exposure()
            .aggregate_name(ListKind::Tools, server, tool)
            .cloned()
            .unwrap_or_else(|| format!("{server}/{tool}"))
    }
}

impl Clients {
    /// `search_tools`: answered from the index, or waiting for the embedding
    /// table (the first waiting search asks the host for it).
    pub(in crate::engine) fn search_tools(
        &mut self,
        ctx: &mut ClientsContext<'_>,
        served: ServedView<'_>,
        client: &str,
        id: &Value,
        arguments: &Value,
    ) {
        let waiting = || WaitingSearch {
            client: client.to_string(),
            id: id.clone(),
            arguments: arguments.clone(),
        };
        match self.search_waits(waiting) {
            Some(true) => return self.outbox().push(Effect::ReadEmbeddingTable),
            Some(false) => return,
            None => {}
        }
        let asked = MetaToolArguments::read(arguments);
        let query = asked.query.unwrap_or("");
        let limit = asked
            .limit
            .map_or(SEARCH_DEFAULT_LIMIT, |n| {
                usize::try_from(n).unwrap_or(SEARCH_MAX_LIMIT)
            })
            .clamp(1, SEARCH_MAX_LIMIT);
        let hits = self.tool_index(served).search(query, limit);
        let text = render_search_results(query, &hits);
        self.reply(ctx, client, tool_reply(id, text, false));
    }

    /// `load_tools` (`load`) or `unload_tools`: each name resolved, and
    /// whether its server is in index mode; the tools the client sees now
    /// against the limit.
    fn load_or_unload(
        &mut self,
        ctx: &mut ClientsContext<'_>,
        served: ServedView<'_>,
        client: &str,
        id: &Value,
        arguments: &Value,
        load: bool,
    ) {
        let resolved: Vec<Resolved> = names(arguments)
            .iter()
            .map(|name| {
                let (server, tool) = self.resolve_tool(served, name)?;
                let indexed = self.is_indexed(&server);
                Ok((server, tool, indexed))
            })
            .collect();
        let seen = (
            self.shown(served).tools_seen_by(client),
            served.settings().max_tools,
        );
        self.load_tools(ctx, client, id, resolved, load, seen);
    }

    /// `server/tool` (or a bare tool name) → (server, tool), for any exposed
    /// server's tool; the error says when the server is switched off, or lists
    /// the closest names.
    pub(in crate::engine) fn resolve_tool(
        &mut self,
        served: ServedView<'_>,
        name: &str,
    ) -> Result<(String, String), String> {
        let named = served.servers().iter().find_map(|(server, state)| {
            let tool = name.strip_prefix(server.as_str())?.strip_prefix('/')?;
            Some((server.clone(), tool.to_string(), state.state().clone()))
        });
        if let Some((server, tool, state)) = &named {
            if !state.is_exposed() {
                return Err(format!(
                    "MCP server '{server}' is {}; enable it (\"Lazy MCP: Enable Server\") to use {name}.",
                    state.label().to_lowercase()
                ));
            }
            let offered = served
                .exposed_items(server, ListKind::Tools)
                .iter()
                .any(|t| name_of(t) == Some(tool.as_str()));
            if offered && !self.is_indexed(server) {
                return Ok((server.clone(), tool.clone()));
            }
        }
        // A held tool is named as held (its review command), never resolved.
        let pins = served.pins();
        let held =
            (pins.aggregate_refusal(ListKind::Tools, name)).or_else(|| pins.slash_refusal(name));
        if let Some(why) = held {
            return Err(why);
        }
        self.tool_index(served)
            .resolve(name)
            .map(|(server, tool)| (server.to_string(), tool.to_string()))
    }
}

impl Clients {
    /// The search index over the `index`-mode servers' tools (built on first
    /// use, from `served`'s catalogue and this side's plan and model).
    pub(in crate::engine) fn tool_index(&mut self, served: ServedView<'_>) -> &ToolIndex {
        if !self.has_search_index() {
            let model = self.search_model();
            let entries = self.shown(served).index_entries(self.plan());
            // Each indexed tool's cached vector: its position in its entry.
            let cached: Vec<Option<Vec<i8>>> = entries
                .iter()
                .map(|(server, tool)| {
                    let entry = served.current_entry(server);
                    let position =
                        entry.and_then(|e| e.tools.iter().position(|t| std::ptr::eq(t, *tool)));
                    position.and_then(|p| model.cached_vector(entry, p))
                })
                .collect();
            let index = ToolIndex::build_hybrid(&entries, model.model().cloned(), &|i| {
                cached.get(i).cloned().flatten()
            });
            self.search_index_built(index);
        }
        self.search_index()
    }
}
