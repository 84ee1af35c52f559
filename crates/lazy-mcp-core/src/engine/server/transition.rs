//! What a server's state change tells the rest (the router's
//! `Engine::transition`: announcements, exposure, `stateChanged`); the change
//! itself is `Servers::transition` (`servers.rs`, the one place `state.rs`'s
//! `next_state` is applied: a server's state is private to that file).
//! Also the changes of the user's settings that reach every server.

use crate::engine::effects::Effect;
use crate::engine::events::ConnId;
use crate::engine::router::Engine;
use crate::engine::server::auth::input::AuthInput;
use crate::engine::server::ctx::ServerCtx;
use crate::engine::server::handshake::machine::Phase;
use crate::engine::server::Servers;
use crate::engine::state::{ServerState, Trigger};
use crate::protocol::client_discover::Era;
use crate::protocol::jsonrpc;
use crate::protocol::methods;

impl Engine {
    /// A server's state changes (`Servers::transition`), and the change is
    /// told: announcements, the clients' exposure, `stateChanged`, a sign-in
    /// the new state starts.
    pub(in crate::engine) fn transition(&mut self, name: &str, trigger: Trigger) {
        let (servers, mut ctx) = self.server_parts();
        if let Some(next) = servers.transition(&mut ctx, name, &trigger) {
            self.state_changed(name, next);
        }
    }

    /// `name`'s state changed to `next` (`Servers::transition`): the change is told.
    pub(in crate::engine) fn state_changed(&mut self, name: &str, next: ServerState) {
        self.announce.settled(name, &next);
        self.clients.exposure_changed();
        self.effects.push(Effect::StateChanged {
            server: name.to_string(),
            state: next,
        });
        self.on_auth(Some(name), AuthInput::StateChanged);
    }
}

impl Servers {
    /// The workspace folders changed: ready legacy-era servers are told their
    /// roots changed (modern servers have no roots notification: roots travel
    /// per request).
    pub(in crate::engine) fn roots_changed(&mut self, ctx: &mut ServerCtx) {
        let ready: Vec<ConnId> = self
            .conns()
            .filter(|(_, c)| {
                c.handshake().phase() == Phase::Ready && c.handshake().era() == Era::Legacy
            })
            .map(|(id, _)| *id)
            .collect();
        for conn in ready {
            let changed = jsonrpc::notification(methods::NOTIFICATIONS_ROOTS_LIST_CHANGED, None);
            self.send(ctx, conn, changed);
        }
    }
}
