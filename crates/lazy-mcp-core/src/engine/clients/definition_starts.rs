//! The router of `state/definition_starts.rs`: feeds it what happened (the
//! definitions offered, a start's outcome, its timer) and carries out what it
//! decides: `startDefinition` and `stopDefinition` effects, timers in the one
//! table. Only a host that offers one definition per server
//! (`aggregateEndpoint: toolIndex`, VS Code) in a trusted workspace (the
//! config report's `startClientDefinitions`) is asked to start them.

use super::state::definition_starts::Next;
use crate::engine::clients::context::ClientsContext;
use crate::engine::clients::Clients;
use crate::engine::effects::Effect;
use crate::engine::events::Endpoint;
use crate::engine::server::Servers;
use crate::engine::state::ServerState;
use crate::engine::timers::TimerPurpose;

impl Clients {
    /// At an event's end, after a change of the offered definitions or of the
    /// trust: the new or changed definitions are asked for at once (`allowed`:
    /// the aggregate endpoint is the tool index; `close`: the setting
    /// `close_listing_sessions`).
    pub(in crate::engine) fn review_definition_starts(
        &mut self,
        allowed: bool,
        close: bool,
        servers: &Servers,
        ctx: &mut ClientsContext<'_>,
    ) {
        self.starts_reviewed(allowed, ctx.now_ms);
        self.definition_timer(close, servers, ctx);
    }

    /// The host's `definitionStarted`: the start command ended (`failed`: it
    /// is not asked again; the host logged the client's error).
    pub(in crate::engine) fn definition_started(
        &mut self,
        endpoint: Endpoint,
        version: &str,
        failed: bool,
        servers: &Servers,
        ctx: &mut ClientsContext<'_>,
    ) {
        let next = self.start_ended(&endpoint, version, !failed, ctx.now_ms);
        self.carry_out_start(endpoint, next, servers, ctx);
    }

    /// Its timer fired: every attempt whose pause or quiet time ended goes on
    /// (`close`: a session that only listed is closed once quiet).
    pub(in crate::engine) fn definition_timer(
        &mut self,
        close: bool,
        servers: &Servers,
        ctx: &mut ClientsContext<'_>,
    ) {
        while let Some((endpoint, next)) = self.start_due(ctx.now_ms) {
            if next == Next::StopIfIdle && !close {
                // Sessions stay open (`close_listing_sessions` off): the attempt is over.
                self.start_stop_decided(&endpoint);
                continue;
            }
            self.carry_out_start(endpoint, next, servers, ctx);
        }
    }

    fn carry_out_start(
        &mut self,
        endpoint: Endpoint,
        next: Next,
        servers: &Servers,
        ctx: &mut ClientsContext<'_>,
    ) {
        match next {
            Next::Nothing => {}
            Next::Ask(version) => {
                self.outbox()
                    .push(Effect::StartDefinition { endpoint, version });
            }
            // A timer that finds nothing due when it fires (its attempt ended) does nothing.
            Next::WakeAt(at_ms) => {
                ctx.timers.handle_set(TimerPurpose::DefinitionStarts, at_ms);
            }
            // VS Code keeps the listed tools and reconnects on their first use;
            // closing a session that only listed makes its MCP UI say Stopped
            // instead of Running for a server nobody used yet. Never one a
            // client started using (its server left CATALOGUED) or while a
            // request of the endpoint is in flight: the stop cancels them.
            Next::StopIfIdle => {
                let only_listed = match &endpoint {
                    Endpoint::Server { name } => servers
                        .get(name)
                        .is_none_or(|s| matches!(s.state(), ServerState::Catalogued)),
                    // The tool index's definition is no server.
                    Endpoint::Aggregate => true,
                };
                if only_listed && self.window_busy(&endpoint, servers) {
                    let next = self.start_busy(&endpoint, ctx.now_ms);
                    return self.carry_out_start(endpoint, next, servers, ctx);
                }
                self.start_stop_decided(&endpoint);
                if only_listed {
                    self.outbox().push(Effect::StopDefinition { endpoint });
                }
            }
        }
    }

    /// Whether a client waits for an answer on any endpoint (a call of the
    /// window under way: the next call of the same agent turn may be
    /// `endpoint`'s), or listens on `endpoint`.
    fn window_busy(&self, endpoint: &Endpoint, servers: &Servers) -> bool {
        self.call_under_way(servers)
            || self
                .sessions()
                .values()
                .any(|s| s.endpoint() == endpoint && !s.listens().is_empty())
    }

    /// Whether an attached client waits for the answer to a call: forwarded
    /// (not one whose answer waits for the client's retry) or waiting for its
    /// server's connect.
    pub(super) fn call_under_way(&self, servers: &Servers) -> bool {
        let on = |client: &str| self.sessions().contains_key(client);
        for (conn, id, call) in servers.calls() {
            if on(call.client()) && !self.awaits_retry(conn, id) {
                return true;
            }
        }
        servers.any_waiter(&|w| on(w.client()))
    }
}
