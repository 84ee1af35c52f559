//! What a user asks of one server or all (Enable, Disable, Connect Now,
//! Disconnect, Refresh Catalogue): `Servers` decides, logs and refuses with
//! the reason and a next step (`announce.rs`), and returns what the router
//! carries out (`Decided`).

pub(in crate::engine) mod command;

use crate::engine::announce::refusal;
use crate::engine::effects::LogLevel;
use crate::engine::events::ConnId;
use crate::engine::server::ctx::ServerCtx;
use crate::engine::server::Servers;
use crate::engine::state::{ServerState, Trigger};
use crate::protocol::client_handshake::ListKind;
use command::Command;

/// What a user's command leaves the router to do for one server, in order:
/// the action whose outcome the user awaits, then the step.
pub(in crate::engine) struct Decided {
    awaits: Option<&'static str>,
    then: Then,
}

pub(in crate::engine) enum Then {
    Nothing,
    /// Its state changes (`Trigger::Wake` or `NeedsCatalogue`) and it is queued for cataloguing.
    Queue(Trigger),
    /// The config and the session decide again (`reconcile`).
    Reconcile,
    /// Connect Now: connected, or refused saying its state (the label).
    Connect(&'static str),
    /// Disconnect: stopped, then CATALOGUED, or queued when it has no catalogue.
    Disconnect {
        recatalogue: bool,
    },
    /// A connected server lists again on its connection.
    List(ConnId, Vec<ListKind>),
}

impl Decided {
    const NOTHING: Decided = Decided {
        awaits: None,
        then: Then::Nothing,
    };

    fn then(then: Then) -> Decided {
        Decided { awaits: None, then }
    }

    /// Taken apart for the router: the action the user awaits, then the step.
    pub(in crate::engine) fn into_parts(self) -> (Option<&'static str>, Then) {
        (self.awaits, self.then)
    }
}

impl Servers {
    /// The user's `command` about `name`: logged, refused when there is
    /// nothing to do (said at once), and what the router does next returned.
    pub(in crate::engine) fn user_command(
        &mut self,
        ctx: &mut ServerCtx,
        name: &str,
        command: Command,
    ) -> Decided {
        match command {
            Command::Enable => self.enable(name),
            Command::Disable => self.disable(name),
            Command::ConnectNow => self.connect_now(name),
            Command::Disconnect => self.disconnect(ctx, name),
        }
    }

    /// A refusal of the user's action about `name` (None: no such server).
    fn refuse(&mut self, name: Option<&str>, message: String) {
        self.outbox().push(refusal(name, message));
    }

    /// Enabled for this session: its crash history forgotten; a DORMANT
    /// server wakes, any other is reconciled.
    fn enable(&mut self, name: &str) -> Decided {
        let Some(server) = self.server_mut(name) else {
            let message = format!("cannot enable '{name}': no such server");
            self.log(LogLevel::Warn, None, message);
            return Decided::NOTHING;
        };
        server.restart_mut().handle_reset();
        let was = server.state().clone();
        self.enabled_for_session(name, true);
        let enabled = "enabled by the user (for this session)".into();
        self.log(LogLevel::Info, Some(name), enabled);
        let awaits = if matches!(was, ServerState::Disabled | ServerState::Dormant) {
            Some("Enable")
        } else {
            let label = was.label();
            let message = format!("MCP server '{name}' is already enabled ({label}).");
            self.refuse(Some(name), message);
            None
        };
        let then = match was {
            ServerState::Dormant => Then::Queue(Trigger::Wake),
            _ => Then::Reconcile,
        };
        Decided { awaits, then }
    }

    /// Disabled for this session, then reconciled.
    fn disable(&mut self, name: &str) -> Decided {
        let Some(server) = self.server_mut(name) else {
            let message = format!("cannot disable '{name}': no such server");
            self.log(LogLevel::Warn, None, message);
            return Decided::NOTHING;
        };
        let already = *server.state() == ServerState::Disabled;
        self.enabled_for_session(name, false);
        let disabled = "disabled by the user (for this session)".into();
        self.log(LogLevel::Info, Some(name), disabled);
        if already {
            let message = format!("MCP server '{name}' is already disabled.");
            self.refuse(Some(name), message);
        }
        Decided::then(Then::Reconcile)
    }

    /// Connect Now: the connect under way is no longer a background retry;
    /// refused for a server connected already or not configured.
    fn connect_now(&mut self, name: &str) -> Decided {
        let Some(server) = self.server_mut(name) else {
            let message = format!("Lazy MCP has no server named '{name}'.");
            self.refuse(None, message);
            return Decided::NOTHING;
        };
        if *server.state() == ServerState::Connected {
            let message = format!("MCP server '{name}' is already connected.");
            self.refuse(Some(name), message);
            return Decided::NOTHING;
        }
        let label = server.state().label();
        server.connect_mut().handle_user_action();
        Decided {
            awaits: Some("Connect Now"),
            then: Then::Connect(label),
        }
    }

    /// Connect Now found `name` (it was `label`) unable to connect: logged and refused.
    pub(in crate::engine) fn cannot_connect(&mut self, name: &str, label: &str) {
        let message = format!("cannot connect '{name}' now: it is {label}");
        self.log(LogLevel::Warn, Some(name), message);
        let message =
            format!("Cannot connect MCP server '{name}': it is {label}. Enable it first.");
        self.refuse(Some(name), message);
    }

    /// Disconnect: only a server connected or connecting; it is stopped, then
    /// CATALOGUED, or catalogued again when it has no catalogue.
    fn disconnect(&mut self, ctx: &mut ServerCtx, name: &str) -> Decided {
        let state = self.get(name).map(|server| server.state());
        if !matches!(
            state,
            Some(ServerState::Connected | ServerState::Connecting)
        ) {
            let label = state.map_or("not configured", ServerState::label);
            let message =
                format!("MCP server '{name}' is not connected ({label}): nothing to disconnect.");
            self.refuse(Some(name), message);
            return Decided::NOTHING;
        }
        let recatalogue = self.current_entry(ctx, name).is_none();
        Decided::then(Then::Disconnect { recatalogue })
    }

    /// The servers a Refresh reaches: `only`, else all; an `only` that names
    /// no server is refused.
    pub(in crate::engine) fn refresh_targets(&mut self, only: Option<&str>) -> Vec<String> {
        if let Some(only) = only.filter(|only| !self.contains_key(*only)) {
            let message = format!("Lazy MCP has no server named '{only}'.");
            self.refuse(None, message);
            return Vec::new();
        }
        (self.keys())
            .filter(|name| only.is_none_or(|only| only == name.as_str()))
            .cloned()
            .collect()
    }

    /// Refresh (`recatalogue`: Refresh Catalogue) of `name`: its era is
    /// asked again at its next connection; a connected server lists again,
    /// a catalogued, failed or signed-out one is catalogued again when asked
    /// (its retry timer cancelled), else a refresh of it alone (`asked`) is
    /// refused.
    pub(in crate::engine) fn refresh(
        &mut self,
        ctx: &mut ServerCtx,
        name: &str,
        recatalogue: bool,
        asked: bool,
    ) -> Decided {
        let Some(server) = self.server_mut(name) else {
            return Decided::NOTHING;
        };
        if recatalogue {
            // The user asked: a retry under way is no longer a background one.
            server.connect_mut().handle_user_action();
        }
        // A refresh asks each server's protocol era again at its next connection.
        server.connect_mut().handle_refresh();
        match (server.state(), server.connect().conn()) {
            (ServerState::Connected, Some(conn)) => {
                let kinds = self
                    .conn(conn)
                    .and_then(|c| c.handshake().init())
                    .map(|init| ListKind::offered_by(&init.capabilities))
                    .unwrap_or_default();
                Decided::then(Then::List(conn, kinds))
            }
            (ServerState::Catalogued | ServerState::Failed { .. } | ServerState::NeedsAuth, _)
                if recatalogue =>
            {
                ctx.timers.cancel_armed(server.restart_mut().retry_timer());
                Decided {
                    awaits: Some("Refresh Catalogue"),
                    then: Then::Queue(Trigger::NeedsCatalogue),
                }
            }
            (state, _) => {
                if recatalogue && asked {
                    let label = state.label();
                    let message = format!(
                        "MCP server '{name}' is {label}: its catalogue cannot be refreshed now."
                    );
                    self.refuse(Some(name), message);
                }
                Decided::NOTHING
            }
        }
    }
}
