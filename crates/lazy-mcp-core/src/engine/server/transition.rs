//! The only way a server's state changes: `state.rs`'s `next_state` applied
//! by `Servers::transition`, and what a change tells the rest (the router's
//! `Engine::transition`: announcements, exposure, `stateChanged`).
//! Also the changes of the user's settings that reach every server.

use crate::engine::effects::{Effect, LogLevel};
use crate::engine::events::ConnId;
use crate::engine::router::Engine;
use crate::engine::server::ctx::ServerCtx;
use crate::engine::server::handshake::machine::Phase;
use crate::engine::server::state::{next_state, ServerState, Trigger};
use crate::engine::server::Servers;
use crate::protocol::client_discover::Era;
use crate::protocol::jsonrpc;
use crate::protocol::methods;

impl Servers {
    /// The only way a server's state changes: `next_state` applied to
    /// `trigger`. Returns the new state when it changed (the router tells
    /// the rest); an impossible pair is logged, not applied.
    pub(in crate::engine) fn transition(
        &mut self,
        ctx: &mut ServerCtx,
        name: &str,
        trigger: &Trigger,
    ) -> Option<ServerState> {
        let server = self.by_name.get_mut(name)?;
        server.connect.handle_trigger(trigger);
        match next_state(&server.state, trigger) {
            Ok(next) if next != server.state => {
                server.state = next.clone();
                server.state_since_ms = ctx.now_ms;
                Some(next)
            }
            Ok(_) => None,
            Err(error) => {
                let message = format!("engine bug: {error}");
                self.log(ctx, LogLevel::Error, Some(name), message);
                None
            }
        }
    }
}

impl Engine {
    /// A server's state changes (`Servers::transition`), and the change is
    /// told: announcements, the clients' exposure, `stateChanged`, a sign-in
    /// the new state starts.
    pub(in crate::engine) fn transition(&mut self, name: &str, trigger: Trigger) {
        let (servers, mut ctx) = self.server_parts();
        let Some(next) = servers.transition(&mut ctx, name, &trigger) else {
            return;
        };
        self.announce.settled(name, &next);
        self.clients.exposure_changed();
        self.effects.push(Effect::StateChanged {
            server: name.to_string(),
            state: next,
        });
        self.start_requested_sign_in(name);
    }
}

impl Servers {
    /// The workspace folders changed: ready legacy-era servers are told their
    /// roots changed (modern servers have no roots notification: roots travel
    /// per request).
    pub(in crate::engine) fn roots_changed(&mut self, ctx: &mut ServerCtx) {
        let ready: Vec<ConnId> = self
            .conns
            .iter()
            .filter(|(_, c)| {
                c.handshake.phase() == Phase::Ready && c.handshake.era() == Era::Legacy
            })
            .map(|(id, _)| *id)
            .collect();
        for conn in ready {
            let changed = jsonrpc::notification(methods::NOTIFICATIONS_ROOTS_LIST_CHANGED, None);
            self.send(ctx, conn, changed);
        }
    }
}
