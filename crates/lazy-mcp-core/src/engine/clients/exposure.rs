//! What clients see, published: `Clients::publish_changes` reads each
//! server's exposed lists, endpoint versions and aggregate tables through
//! [`ServedView`] (`exposure/view.rs`, read-only; the router lends it at the
//! event's end), chooses the plan, and `publish` turns what changed into the
//! `list_changed` announcements and `endpointsChanged` (a new version held
//! back while a call is under way: `endpoint_versions.rs`).

use crate::engine::clients::context::ClientsContext;
use crate::engine::clients::Clients;
use crate::engine::effects::EndpointInfo;
use crate::engine::effects::{Effect, LogLevel};
use crate::engine::server::Servers;
use crate::engine::settings::AggregateEndpoint;
use crate::protocol::client_handshake::ListKind;
use crate::protocol::methods;
use crate::vec_map::{VecMap, VecSet};
use serde_json::Value;
use view::{ServedView, ShownView};

pub(in crate::engine) mod view;

/// (server, name) of every exposed tool, then of every prompt.
type AggregatePairs = (Vec<(String, String)>, Vec<(String, String)>);

impl Clients {
    /// What clients are shown: the servers' side `served` and this side.
    pub(in crate::engine) fn shown<'a>(&'a self, served: ServedView<'a>) -> ShownView<'a> {
        ShownView::new(served, self)
    }

    /// Whether `server` is in `index` mode (its tools behind the meta-tools).
    pub(in crate::engine) fn is_indexed(&self, server: &str) -> bool {
        self.exposure().is_indexed(server)
    }

    /// The meta-tool `name`'s definition, when it is offered.
    pub(in crate::engine) fn meta_tool(&self, name: &str) -> Option<&Value> {
        self.exposure().meta_tool(name)
    }

    /// Announces what changed since the last publication: the plan chosen
    /// afresh from `served`, loaded tools their server no longer offers
    /// dropped (after a catalogue change), then `publish`.
    pub(in crate::engine) fn publish_changes(
        &mut self,
        ctx: &mut ClientsContext<'_>,
        served: ServedView<'_>,
    ) {
        let previous = self.publishing();
        let plan = served.plan_exposure(previous);
        self.plan_chosen(plan);
        let gone = self.shown(served).loaded_not_offered();
        for gone in gone {
            self.loaded_tool_gone(&gone);
            let (server, tool) = gone;
            let why = format!("loaded tool '{tool}' was unloaded: the server no longer offers it");
            // A line naming a server is masked by its owner (its secrets).
            (self.outbox()).push((served.servers()).log_line(LogLevel::Info, Some(&server), why));
        }
        let shown = self.shown(served);
        let (lists, endpoints) = shown.lists_and_endpoints();
        let tools = served.aggregate_pairs(ListKind::Tools);
        let prompts = served.aggregate_pairs(ListKind::Prompts);
        let aggregate_endpoint = served.settings().aggregate_endpoint;
        let pairs = (tools, prompts);
        self.publish(
            lists,
            endpoints,
            pairs,
            aggregate_endpoint,
            served.servers(),
            ctx,
        );
    }

    /// Publishes what clients are shown now: each exposed server's `lists`
    /// hashes and `endpoints`, the aggregate endpoint's `pairs` (with
    /// `AggregateEndpoint::All` it lists every server's tools). Adds the
    /// `notifications/*/list_changed` for attached clients, then
    /// `endpointsChanged` for hosts, when any of it changed; a new version
    /// may be held back while a call is under way (`endpoint_versions.rs`).
    fn publish(
        &mut self,
        lists: VecMap<(String, ListKind), u64>,
        mut endpoints: Vec<EndpointInfo>,
        pairs: AggregatePairs,
        aggregate_endpoint: AggregateEndpoint,
        servers: &Servers,
        ctx: &mut ClientsContext<'_>,
    ) {
        let all = aggregate_endpoint == AggregateEndpoint::All;
        let aggregate_version = self.exposure().aggregate_version(&lists, all);
        let changed = self.lists_hashed(lists);
        let mut notifications: VecSet<(String, &'static str)> = VecSet::new();
        for (server, method) in changed {
            for client in self.of_server(&server) {
                notifications.insert((client, method));
            }
        }
        if self.aggregate_versioned(&aggregate_version) {
            for (client, session) in self.sessions() {
                if session.is_aggregate() {
                    notifications
                        .insert((client.clone(), methods::NOTIFICATIONS_TOOLS_LIST_CHANGED));
                }
            }
        }
        for (client, method) in notifications {
            self.list_changed_notices(&client, method);
        }
        let (tools, prompts) = pairs;
        self.aggregate_items(tools, prompts);
        // The aggregate endpoint is offered when it has something of its own to show.
        let mut aggregate =
            (all || !self.exposure().plan().meta_tools.is_empty()).then_some(aggregate_version);
        // The tool index is VS Code's: only that host holds versions back.
        let hold = aggregate_endpoint == AggregateEndpoint::ToolIndex;
        self.hold_versions(hold, &mut endpoints, &mut aggregate, servers, ctx);
        if self.endpoints_published(&endpoints, &aggregate) {
            // The starts follow what hosts were told (a held version is not new to them).
            self.definitions_offered(&endpoints, aggregate.as_ref());
            self.outbox().push(Effect::EndpointsChanged {
                endpoints,
                aggregate,
            });
        }
    }
}
