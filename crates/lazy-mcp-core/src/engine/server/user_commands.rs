//! What a user asks of one server or all (Enable, Disable, Connect Now,
//! Disconnect, Refresh Catalogue): carried out, or refused with the reason and a
//! next step (`announce.rs`).

use crate::engine::effects::LogLevel;
use crate::engine::events::ConnId;
use crate::engine::router::Engine;
use crate::engine::server::ctx::ServerCtx;
use crate::engine::server::state::{ServerState, Trigger};
use crate::engine::server::Servers;
use crate::protocol::client_handshake::ListKind;

impl Engine {
    pub(in crate::engine) fn on_enable(&mut self, name: &str) {
        let Some(was) = self.servers.enable(name) else {
            self.log(
                LogLevel::Warn,
                None,
                format!("cannot enable '{name}': no such server"),
            );
            return;
        };
        self.log(
            LogLevel::Info,
            Some(name),
            "enabled by the user (for this session)".into(),
        );
        if matches!(was, ServerState::Disabled | ServerState::Dormant) {
            self.announce.awaits(name, "Enable");
        } else {
            self.refuse_action(
                Some(name),
                format!("MCP server '{name}' is already enabled ({}).", was.label()),
            );
        }
        if was == ServerState::Dormant {
            self.transition(name, Trigger::Wake);
            self.servers.enqueue_catalogue(name);
        } else {
            self.reconcile(name);
        }
    }

    pub(in crate::engine) fn on_disable(&mut self, name: &str) {
        let Some(already) = self.servers.disable(name) else {
            self.log(
                LogLevel::Warn,
                None,
                format!("cannot disable '{name}': no such server"),
            );
            return;
        };
        self.log(
            LogLevel::Info,
            Some(name),
            "disabled by the user (for this session)".into(),
        );
        if already {
            self.refuse_action(
                Some(name),
                format!("MCP server '{name}' is already disabled."),
            );
        }
        self.reconcile(name);
    }

    pub(in crate::engine) fn on_connect_now(&mut self, name: &str) {
        let Some(state) = self.state(name).cloned() else {
            self.refuse_action(None, format!("Lazy MCP has no server named '{name}'."));
            return;
        };
        if state == ServerState::Connected {
            self.refuse_action(
                Some(name),
                format!("MCP server '{name}' is already connected."),
            );
            return;
        }
        self.servers.user_asked_to_connect(name);
        self.announce.awaits(name, "Connect Now");
        if !self.ensure_connected(name, true) {
            let label = state.label();
            self.log(
                LogLevel::Warn,
                Some(name),
                format!("cannot connect '{name}' now: it is {label}"),
            );
            self.refuse_action(
                Some(name),
                format!("Cannot connect MCP server '{name}': it is {label}. Enable it first."),
            );
        }
    }

    pub(in crate::engine) fn on_disconnect(&mut self, name: &str) {
        if !matches!(
            self.state(name),
            Some(ServerState::Connected | ServerState::Connecting)
        ) {
            let label = self.state(name).map_or("not configured", |s| s.label());
            self.refuse_action(
                Some(name),
                format!("MCP server '{name}' is not connected ({label}): nothing to disconnect."),
            );
            return;
        }
        self.stop_server(name, "it was disconnected by the user");
        if self.current_entry(name).is_some() {
            self.transition(name, Trigger::Stopped);
        } else {
            self.transition(name, Trigger::NeedsCatalogue);
            self.servers.enqueue_catalogue(name);
        }
        self.log(
            LogLevel::Info,
            Some(name),
            "disconnected by the user".into(),
        );
    }

    pub(in crate::engine) fn on_refresh(&mut self, only: Option<&str>, recatalogue: bool) {
        let names: Vec<String> = self
            .servers
            .keys()
            .filter(|name| only.is_none_or(|only| only == name.as_str()))
            .cloned()
            .collect();
        for name in names {
            let (servers, mut ctx) = self.server_parts();
            match servers.refresh(&mut ctx, &name, recatalogue) {
                Some(Refresh::List(conn, kinds)) => self.start_listing(conn, &kinds),
                Some(Refresh::Recatalogue) => {
                    self.announce.awaits(&name, "Refresh Catalogue");
                    self.transition(&name, Trigger::NeedsCatalogue);
                    self.servers.enqueue_catalogue(&name);
                }
                Some(Refresh::Not(label)) if recatalogue && only.is_some() => {
                    self.refuse_action(
                        Some(&name),
                        format!("MCP server '{name}' is {label}: its catalogue cannot be refreshed now."),
                    );
                }
                Some(Refresh::Not(_)) | None => {}
            }
        }
        if let Some(only) = only.filter(|only| !self.servers.contains_key(*only)) {
            self.refuse_action(None, format!("Lazy MCP has no server named '{only}'."));
        }
    }
}

/// What a Refresh leaves the router to do for one server.
pub(in crate::engine) enum Refresh {
    /// A connected server lists again on its connection.
    List(ConnId, Vec<ListKind>),
    /// Catalogued again (its retry timer cancelled already): NEEDS_CATALOGUE, queued.
    Recatalogue,
    /// Nothing to refresh in this state (its label).
    Not(&'static str),
}

impl Servers {
    /// The user enabled `name` for this session: its crash history is
    /// forgotten. Returns the state it was in (None: no such server).
    pub(in crate::engine) fn enable(&mut self, name: &str) -> Option<ServerState> {
        let server = self.server_mut(name)?;
        server.restart_mut().handle_reset();
        let was = server.state().clone();
        self.enabled_for_session(name, true);
        Some(was)
    }

    /// The user disabled `name` for this session. Returns whether it was
    /// disabled already (None: no such server).
    pub(in crate::engine) fn disable(&mut self, name: &str) -> Option<bool> {
        let server = self.server_mut(name)?;
        let already = *server.state() == ServerState::Disabled;
        self.enabled_for_session(name, false);
        Some(already)
    }

    /// Connect Now: the connect under way is no longer a background retry.
    pub(in crate::engine) fn user_asked_to_connect(&mut self, name: &str) {
        if let Some(server) = self.server_mut(name) {
            server.connect_mut().handle_user_action();
        }
    }

    /// Refresh (`recatalogue`: Refresh Catalogue) of `name`: its era is
    /// asked again at its next connection; what the router does next is
    /// returned (None: no such server).
    pub(in crate::engine) fn refresh(
        &mut self,
        ctx: &mut ServerCtx,
        name: &str,
        recatalogue: bool,
    ) -> Option<Refresh> {
        let server = self.server_mut(name)?;
        if recatalogue {
            // The user asked: a retry under way is no longer a background one.
            server.connect_mut().handle_user_action();
        }
        // A refresh asks each server's protocol era again at its next connection.
        server.connect_mut().handle_refresh();
        Some(match (server.state(), server.connect().conn()) {
            (ServerState::Connected, Some(conn)) => {
                let kinds = self
                    .conn(conn)
                    .and_then(|c| c.handshake().init())
                    .map(|init| ListKind::offered_by(&init.capabilities))
                    .unwrap_or_default();
                Refresh::List(conn, kinds)
            }
            (ServerState::Catalogued | ServerState::Failed { .. } | ServerState::NeedsAuth, _)
                if recatalogue =>
            {
                ctx.timers.cancel_armed(server.restart_mut().retry_timer());
                Refresh::Recatalogue
            }
            (state, _) => Refresh::Not(state.label()),
        })
    }
}
