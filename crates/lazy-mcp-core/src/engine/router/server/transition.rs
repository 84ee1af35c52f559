//! The router's part of a state change (`server/transition.rs`): the change
//! is `Servers::transition`'s; telling it (announcements, the clients'
//! exposure, `stateChanged`, a sign-in the new state starts) is the router's.

use crate::engine::effects::Effect;
use crate::engine::router::Engine;
use crate::engine::server::auth::input::AuthInput;
use crate::engine::state::{ServerState, Trigger};

impl Engine {
    /// A server's state changes (`Servers::transition`), and the change is
    /// told: announcements, the clients' exposure, `stateChanged`, a sign-in
    /// the new state starts.
    pub(in crate::engine) fn transition(&mut self, name: &str, trigger: Trigger) {
        if let Some(next) =
            self.with_servers(|servers, ctx| servers.transition(ctx, name, &trigger))
        {
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
