//! Each due timer passed to its owner: the host's `timeout` fires every timer
//! the table (`timers.rs`) finds due, and this routes each purpose to the
//! code that armed it (a server's machines, the clients' side, the refresh).
//! Router code, apart from the table, so that the table imports nothing
//! above it.

use crate::engine::clients::gateway_sessions::session_policy;
use crate::engine::router::Engine;
use crate::engine::server::auth::input::AuthInput;
use crate::engine::server::machines::handshake::input::HandshakeInput;
use crate::engine::server::restart::input::RestartInput;
use crate::engine::timers::{TimerId, TimerPurpose};

impl Engine {
    /// The host's `timeout`: every timer due now fires, once, in deadline order
    /// (a host that reports late fires all it missed); `finish_event` then
    /// names the next deadline.
    pub(in crate::engine) fn on_timeout(&mut self) {
        self.timers.handle_host_woke();
        for timer in self.timers.due(self.now_ms) {
            self.on_timer(timer);
        }
    }

    fn on_timer(&mut self, timer: TimerId) {
        let Some(purpose) = self.timers.handle_fired(timer, self.now_ms) else {
            return;
        };
        match purpose {
            TimerPurpose::Handshake { conn } => {
                if !self.on_auth(None, AuthInput::WaitExpired(conn)) {
                    if let Some(timeout) =
                        self.with_servers(|servers, ctx| servers.handshake_timer_fired(ctx, conn))
                    {
                        self.on_handshake(conn, HandshakeInput::Timeout(timeout));
                    }
                }
            }
            TimerPurpose::Connect { conn } => self.on_connect_deadline(conn, timer),
            TimerPurpose::Request { conn, upstream_id } => self.on_request_timer(conn, upstream_id),
            TimerPurpose::Idle { server } => self.on_idle_timer(&server),
            TimerPurpose::Retry { server } => self.on_restart(&server, RestartInput::RetryFired),
            TimerPurpose::RootsSettle { conn } => self.on_roots_settled(conn),
            TimerPurpose::DefinitionStarts => {
                let close = self.settings().close_listing_sessions;
                self.with_served(|clients, ctx, served| {
                    clients.definition_timer(close, served.servers(), ctx)
                });
            }
            TimerPurpose::EndpointVersions => self.clients.endpoint_versions_timer(),
            TimerPurpose::GatewaySessions => {
                let policy = session_policy(self.settings());
                self.with_clients(|clients, ctx| clients.gateway_sessions_timer(policy, ctx));
            }
            TimerPurpose::Refresh => {
                self.timers.refresh_fired();
                self.on_refresh(None, false);
            }
        }
    }

    /// The periodic refresh runs while `refresh_interval_ms` asks for one:
    /// armed (after an event, `finish_event`) when it is not, dropped when the
    /// setting is 0. `restart`: a settings change starts the interval afresh.
    pub(in crate::engine) fn keep_refresh_armed(&mut self, restart: bool) {
        let interval = self.settings().refresh_interval_ms;
        self.timers.keep_refresh(interval, restart, self.now_ms);
    }
}
