//! What a user asks of one server or all (Enable, Disable, Connect Now,
//! Disconnect, Refresh Catalogue): carried out, or refused with the reason and a
//! next step (`announce.rs`).

use crate::engine::effects::LogLevel;
use crate::engine::router::Engine;
use crate::engine::server::state::{ServerState, Trigger};
use crate::protocol::client_handshake::ListKind;

impl Engine {
    pub(in crate::engine) fn on_enable(&mut self, name: &str) {
        let Some(server) = self.servers.by_name.get_mut(name) else {
            self.log(
                LogLevel::Warn,
                None,
                format!("cannot enable '{name}': no such server"),
            );
            return;
        };
        server.restart.handle_reset();
        let was = server.state.clone();
        self.servers.enabled_for_session(name, true);
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
            self.enqueue_catalogue(name);
        } else {
            self.reconcile(name);
        }
    }

    pub(in crate::engine) fn on_disable(&mut self, name: &str) {
        let Some(server) = self.servers.by_name.get_mut(name) else {
            self.log(
                LogLevel::Warn,
                None,
                format!("cannot disable '{name}': no such server"),
            );
            return;
        };
        let already = server.state == ServerState::Disabled;
        self.servers.enabled_for_session(name, false);
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
        if let Some(server) = self.servers.by_name.get_mut(name) {
            server.connect.handle_user_action();
        }
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
            self.enqueue_catalogue(name);
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
            .by_name
            .keys()
            .filter(|name| only.is_none_or(|only| only == name.as_str()))
            .cloned()
            .collect();
        for name in names {
            if let Some(server) = self.servers.by_name.get_mut(&name) {
                if recatalogue {
                    // The user asked: a retry under way is no longer a background one.
                    server.connect.handle_user_action();
                }
                // A refresh asks each server's protocol era again at its next connection.
                server.connect.handle_refresh();
            }
            let Some(server) = self.servers.by_name.get(&name) else {
                continue;
            };
            match (&server.state, server.connect.conn()) {
                (ServerState::Connected, Some(conn)) => {
                    let kinds = self
                        .servers
                        .conns
                        .get(&conn)
                        .and_then(|c| c.handshake.init())
                        .map(|init| ListKind::offered_by(&init.capabilities))
                        .unwrap_or_default();
                    self.start_listing(conn, &kinds);
                }
                (
                    ServerState::Catalogued | ServerState::Failed { .. } | ServerState::NeedsAuth,
                    _,
                ) if recatalogue => {
                    let retry = server.restart.retry_timer();
                    self.cancel_timer(retry);
                    self.announce.awaits(&name, "Refresh Catalogue");
                    self.transition(&name, Trigger::NeedsCatalogue);
                    self.enqueue_catalogue(&name);
                }
                (state, _) if recatalogue && only.is_some() => {
                    let label = state.label();
                    self.refuse_action(
                        Some(&name),
                        format!("MCP server '{name}' is {label}: its catalogue cannot be refreshed now."),
                    );
                }
                _ => {}
            }
        }
        if let Some(only) = only.filter(|only| !self.servers.by_name.contains_key(*only)) {
            self.refuse_action(None, format!("Lazy MCP has no server named '{only}'."));
        }
    }
}
