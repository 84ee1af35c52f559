//! The router's part of a user's command (`server/user_commands.rs`):
//! `Servers` decides, logs and refuses; what it returns (`Decided`: the
//! action the user awaits, then a state change, the queue, a connect, a stop
//! or a listing) is carried out here.

use crate::engine::effects::LogLevel;
use crate::engine::router::Engine;
use crate::engine::server::machines::listing::machine::ListingInput;
use crate::engine::server::user_commands::command::Command;
use crate::engine::server::user_commands::{Decided, Then};
use crate::engine::state::Trigger;

impl Engine {
    /// Enable, Disable, Connect Now or Disconnect of `name`.
    pub(in crate::engine) fn on_user_command(&mut self, name: &str, command: Command) {
        let decided = self.with_servers(|servers, ctx| servers.user_command(ctx, name, command));
        self.carry_out(name, decided);
    }

    /// Refresh (`recatalogue`: Refresh Catalogue) of `only`, else of every server.
    pub(in crate::engine) fn on_refresh(&mut self, only: Option<&str>, recatalogue: bool) {
        for name in self.with_servers(|servers, _| servers.refresh_targets(only)) {
            let decided = self.with_servers(|servers, ctx| {
                servers.refresh(ctx, &name, recatalogue, only.is_some())
            });
            self.carry_out(&name, decided);
        }
    }

    fn carry_out(&mut self, name: &str, decided: Decided) {
        let (awaits, then) = decided.into_parts();
        if let Some(action) = awaits {
            self.announce.awaits(name, action);
        }
        match then {
            Then::Nothing => {}
            Then::Queue(trigger) => {
                self.transition(name, trigger);
                self.servers.enqueue_catalogue(name);
            }
            Then::Reconcile => self.reconcile(name),
            Then::Connect(label) => {
                if !self.ensure_connected(name, true) {
                    self.with_servers(|servers, _| servers.cannot_connect(name, label));
                }
            }
            Then::Disconnect { recatalogue } => {
                self.stop_server(name, "it was disconnected by the user");
                if recatalogue {
                    self.transition(name, Trigger::NeedsCatalogue);
                    self.servers.enqueue_catalogue(name);
                } else {
                    self.transition(name, Trigger::Stopped);
                }
                let done = "disconnected by the user".into();
                self.log(LogLevel::Info, Some(name), done);
            }
            Then::List(conn, kinds) => self.on_listing(conn, ListingInput::Start(&kinds)),
        }
    }
}
