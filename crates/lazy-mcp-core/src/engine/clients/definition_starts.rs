//! The router of `definition_starts/machine.rs`: feeds it what happened (the
//! definitions offered, a start's outcome, its timer) and carries out what it
//! decides: `startDefinition` and `stopDefinition` effects, timers in the one
//! table. Only a host that offers one definition per server
//! (`aggregateEndpoint: toolIndex`, VS Code) in a trusted workspace (the
//! config report's `startClientDefinitions`) is asked to start them.

use crate::engine::effects::Effect;
use crate::engine::events::Endpoint;
use crate::engine::router::Engine;
use crate::engine::server::state::ServerState;
use crate::engine::settings::AggregateEndpoint;
use crate::engine::timers::TimerPurpose;
use machine::Next;

pub(in crate::engine) mod machine;

impl Engine {
    /// At an event's end, after a change of the offered definitions or of the
    /// trust: the new or changed definitions are asked for at once.
    pub(in crate::engine) fn review_definition_starts(&mut self) {
        let allowed = self.settings().aggregate_endpoint == AggregateEndpoint::ToolIndex;
        self.clients.starts.review(allowed, self.now_ms);
        self.on_definition_timer();
    }

    /// The host's `definitionStarted`: the start command ended (`failed`: it
    /// is not asked again; the host logged the client's error).
    pub(in crate::engine) fn on_definition_started(
        &mut self,
        endpoint: Endpoint,
        version: &str,
        failed: bool,
    ) {
        let next = self
            .clients
            .starts
            .handle_started(&endpoint, version, !failed, self.now_ms);
        self.carry_out_start(endpoint, next);
    }

    /// Its timer fired: every attempt whose pause or quiet time ended goes on.
    pub(in crate::engine) fn on_definition_timer(&mut self) {
        while let Some((endpoint, next)) = self.clients.starts.poll_due(self.now_ms) {
            self.carry_out_start(endpoint, next);
        }
    }

    fn carry_out_start(&mut self, endpoint: Endpoint, next: Next) {
        match next {
            Next::Nothing => {}
            Next::Ask(version) => self
                .effects
                .push(Effect::StartDefinition { endpoint, version }),
            // A timer that finds nothing due when it fires (its attempt ended) does nothing.
            Next::WakeAt(at_ms) => {
                self.set_timer(TimerPurpose::DefinitionStarts, at_ms);
            }
            // VS Code keeps the listed tools and reconnects on their first use;
            // closing a session that only listed makes its MCP UI say Stopped
            // instead of Running for a server nobody used yet. Never one a
            // client started using (its server left CATALOGUED) or while a
            // request of the endpoint is in flight: the stop cancels them.
            Next::StopIfIdle => {
                let only_listed = match &endpoint {
                    Endpoint::Server { name } => self
                        .servers
                        .get(name)
                        .is_none_or(|s| matches!(s.state(), ServerState::Catalogued)),
                    // The tool index's definition is no server.
                    Endpoint::Aggregate => true,
                };
                if only_listed && self.window_busy(&endpoint) {
                    let next = self.clients.starts.handle_busy(&endpoint, self.now_ms);
                    return self.carry_out_start(endpoint, next);
                }
                self.clients.starts.handle_stop_decided(&endpoint);
                if only_listed {
                    self.effects.push(Effect::StopDefinition { endpoint });
                }
            }
        }
    }

    /// Whether a client waits for an answer on any endpoint (a call forwarded
    /// or waiting for its server's connect: the next call of the same agent
    /// turn may be `endpoint`'s), or listens on `endpoint`.
    fn window_busy(&self, endpoint: &Endpoint) -> bool {
        let on = |client: &str| self.clients.sessions.contains_key(client);
        for (conn, id, call) in self.servers.calls() {
            if on(call.client()) && !self.clients.awaits_retry(conn, id) {
                return true;
            }
        }
        self.servers.any_waiter(&|w| on(w.client()))
            || self
                .clients
                .sessions
                .values()
                .any(|s| s.endpoint() == endpoint && !s.listens().is_empty())
    }
}
