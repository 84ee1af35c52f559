//! Applying a server list (diff by name and fingerprint), the persisted catalogue,
//! user commands (enable, disable, connect now, disconnect, refresh) and timers.

use super::catalogue::Catalogue;
use super::connect::is_warm;
use super::state::{ServerState, Trigger};
use super::{Effect, Engine, LogLevel, Server, ServerStats, TimerPurpose};
use crate::config::model::ServerConfig;
use crate::engine::backoff::CrashHistory;
use crate::engine::events::TimerId;
use crate::protocol::client_handshake::ListKind;
use std::collections::{BTreeMap, BTreeSet};

/// What the config and the session's Enable/Disable ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wanted {
    Disabled,
    Dormant,
    Active,
}

impl Engine {
    fn wanted(&self, name: &str) -> Option<Wanted> {
        let server = self.servers.get(name)?;
        let enabled = server.session_enabled.unwrap_or(server.config.enabled);
        Some(if !enabled {
            Wanted::Disabled
        } else if !server.config.auto_connect && server.session_enabled != Some(true) {
            Wanted::Dormant
        } else {
            Wanted::Active
        })
    }

    /// Moves a server to what is wanted, touching nothing when it is already there.
    fn reconcile(&mut self, name: &str) {
        let Some(wanted) = self.wanted(name) else {
            return;
        };
        let Some(state) = self.state(name).cloned() else {
            return;
        };
        match wanted {
            Wanted::Disabled if state != ServerState::Disabled => {
                self.withdraw(name, "it was disabled");
                self.unload_server(name);
                self.transition(name, Trigger::Disable);
            }
            Wanted::Dormant if state != ServerState::Dormant => {
                self.withdraw(name, "it is dormant (autoConnect: false)");
                self.unload_server(name);
                self.transition(name, Trigger::MakeDormant);
            }
            Wanted::Active if matches!(state, ServerState::Disabled | ServerState::Dormant) => {
                let warm = self.current_entry(name).is_some();
                self.transition(name, Trigger::Enable { warm });
                if !warm {
                    self.enqueue_catalogue(name);
                }
                self.report_dropped_declared_tools(name);
            }
            _ => {}
        }
    }

    /// Stops the server and cancels everything pending for it.
    fn withdraw(&mut self, name: &str, why: &str) {
        self.stop_server(name, why);
        if let Some(server) = self.servers.get_mut(name) {
            server.subscriptions.clear();
        }
        self.catalogue_queue.retain(|queued| queued != name);
        let retry = self
            .servers
            .get_mut(name)
            .and_then(|s| s.retry_timer.take());
        self.cancel_timer(retry);
        self.exposure_dirty = true;
    }

    pub(super) fn on_config_applied(&mut self, servers: Vec<ServerConfig>) {
        let mut seen: BTreeSet<String> = BTreeSet::new();
        let mut configs = Vec::new();
        for config in servers {
            if seen.insert(config.name.clone()) {
                configs.push(config);
            } else {
                self.log(
                    LogLevel::Warn,
                    Some(&config.name),
                    format!(
                        "a second server named '{}' ({}:{}) was ignored",
                        config.name, config.source.file, config.source.line
                    ),
                );
            }
        }
        let removed: Vec<String> = self
            .servers
            .keys()
            .filter(|name| !seen.contains(*name))
            .cloned()
            .collect();
        for name in removed {
            self.announce.forget(&name);
            self.withdraw(&name, "it was removed from the configuration");
            self.unload_server(&name);
            self.servers.remove(&name);
            if self.catalogue.entries.remove(&name).is_some() {
                self.persist_catalogue();
            }
            self.log(
                LogLevel::Info,
                Some(&name),
                "removed from the configuration".into(),
            );
            self.effects.push(Effect::ServerRemoved { server: name });
        }
        for config in configs {
            let name = config.name.clone();
            match self.servers.get(&name).map(|s| s.config.clone()) {
                None => self.add_server(config),
                Some(old) if old.fingerprint != config.fingerprint => self.replace_server(config),
                Some(old) if old != config => {
                    let tools_changed =
                        old.tools != config.tools || old.tool_exposure != config.tool_exposure;
                    if let Some(server) = self.servers.get_mut(&name) {
                        server.config = config;
                        server.crashes.reset();
                    }
                    if tools_changed {
                        self.exposure_dirty = true;
                        self.report_dropped_declared_tools(&name);
                    }
                    self.reconcile(&name);
                    // Editing a FAILED server's entry is the user acting on it.
                    self.retry_now(&name);
                }
                Some(_) => {}
            }
        }
    }

    fn add_server(&mut self, config: ServerConfig) {
        let name = config.name.clone();
        self.servers.insert(
            name.clone(),
            Server {
                config,
                state: ServerState::Disabled,
                state_since_ms: self.now_ms,
                session_enabled: None,
                conn: None,
                waiters: Vec::new(),
                crashes: CrashHistory::default(),
                retry_timer: None,
                background: false,
                idle_timer: None,
                last_activity_ms: self.now_ms,
                stats: ServerStats::default(),
                subscriptions: BTreeMap::new(),
                auth: super::auth::ServerAuth::default(),
            },
        );
        self.exposure_dirty = true;
        if self.wanted(&name) == Some(Wanted::Disabled) {
            self.effects.push(Effect::StateChanged {
                server: name,
                state: ServerState::Disabled,
            });
        } else {
            self.reconcile(&name);
        }
    }

    /// The launch config changed: stop, forget the stale catalogue entry, re-catalogue.
    fn replace_server(&mut self, config: ServerConfig) {
        let name = config.name.clone();
        self.announce.forget(&name);
        self.withdraw(&name, "its configuration changed");
        if let Some(server) = self.servers.get_mut(&name) {
            server.config = config;
            server.crashes.reset();
            server.stats = ServerStats::default();
        }
        if self.catalogue.entries.remove(&name).is_some() {
            self.persist_catalogue();
        }
        self.log(
            LogLevel::Info,
            Some(&name),
            "configuration changed; it will be catalogued again".into(),
        );
        let state = self.state(&name).cloned();
        if self.wanted(&name) == Some(Wanted::Active)
            && !matches!(state, Some(ServerState::Disabled | ServerState::Dormant))
        {
            self.transition(&name, Trigger::NeedsCatalogue);
            self.enqueue_catalogue(&name);
        } else {
            self.reconcile(&name);
        }
    }

    pub(super) fn on_catalogue_loaded(&mut self, blob: &str) {
        let loaded = match Catalogue::from_blob(blob) {
            Ok(loaded) => loaded,
            Err(why) => {
                self.log(LogLevel::Warn, None, why);
                return;
            }
        };
        for (name, entry) in loaded.entries {
            let ours_is_current = match (self.catalogue.entries.get(&name), self.servers.get(&name))
            {
                (Some(ours), Some(server)) => ours.fingerprint == server.config.fingerprint,
                (Some(_), None) => true,
                (None, _) => false,
            };
            if !ours_is_current {
                self.catalogue.entries.insert(name, entry);
            }
        }
        self.exposure_dirty = true;
        let names: Vec<String> = self.servers.keys().cloned().collect();
        for name in names {
            let Some(server) = self.servers.get(&name) else {
                continue;
            };
            let warm = is_warm(
                self.catalogue.entries.get(&name),
                &server.config.fingerprint,
            );
            if warm
                && matches!(
                    server.state,
                    ServerState::Pending | ServerState::Failed { .. }
                )
            {
                let retry = server.retry_timer;
                self.cancel_timer(retry);
                self.catalogue_queue.retain(|queued| queued != &name);
                self.transition(&name, Trigger::WarmCatalogueFound);
            }
            if warm {
                self.report_dropped_declared_tools(&name);
            }
        }
    }

    pub(super) fn on_enable(&mut self, name: &str) {
        let Some(server) = self.servers.get_mut(name) else {
            self.log(
                LogLevel::Warn,
                None,
                format!("cannot enable '{name}': no such server"),
            );
            return;
        };
        server.session_enabled = Some(true);
        server.crashes.reset();
        let was = server.state.clone();
        self.log(
            LogLevel::Info,
            Some(name),
            "enabled by the user (for this session)".into(),
        );
        if matches!(was, ServerState::Disabled | ServerState::Dormant) {
            self.await_outcome(name, "Enable");
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

    pub(super) fn on_disable(&mut self, name: &str) {
        let Some(server) = self.servers.get_mut(name) else {
            self.log(
                LogLevel::Warn,
                None,
                format!("cannot disable '{name}': no such server"),
            );
            return;
        };
        server.session_enabled = Some(false);
        let already = server.state == ServerState::Disabled;
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

    pub(super) fn on_connect_now(&mut self, name: &str) {
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
        if let Some(server) = self.servers.get_mut(name) {
            server.background = false;
        }
        self.await_outcome(name, "Connect Now");
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

    pub(super) fn on_disconnect(&mut self, name: &str) {
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

    pub(super) fn on_refresh(&mut self, only: Option<&str>, recatalogue: bool) {
        let names: Vec<String> = self
            .servers
            .keys()
            .filter(|name| only.is_none_or(|only| only == name.as_str()))
            .cloned()
            .collect();
        for name in names {
            if recatalogue {
                if let Some(server) = self.servers.get_mut(&name) {
                    // The user asked: a retry under way is no longer a background one.
                    server.background = false;
                }
            }
            let Some(server) = self.servers.get(&name) else {
                continue;
            };
            match (&server.state, server.conn) {
                (ServerState::Connected, Some(conn)) => {
                    let kinds = self
                        .conns
                        .get(&conn)
                        .and_then(|c| c.init.as_ref())
                        .map(|init| ListKind::offered_by(&init.capabilities))
                        .unwrap_or_default();
                    self.start_listing(conn, &kinds);
                }
                (
                    ServerState::Catalogued | ServerState::Failed { .. } | ServerState::NeedsAuth,
                    _,
                ) if recatalogue => {
                    let retry = server.retry_timer;
                    self.cancel_timer(retry);
                    self.await_outcome(&name, "Refresh Catalogue");
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
        if let Some(only) = only.filter(|only| !self.servers.contains_key(*only)) {
            self.refuse_action(None, format!("Lazy MCP has no server named '{only}'."));
        }
    }

    pub(super) fn on_timer(&mut self, timer: TimerId) {
        let Some(purpose) = self.timers.get(&timer).cloned() else {
            return;
        };
        if !matches!(purpose, TimerPurpose::Idle { .. }) {
            self.timers.remove(&timer);
        }
        match purpose {
            TimerPurpose::Handshake { conn } => {
                if !self.sign_in_wait_expired(conn) {
                    self.on_handshake_timer(conn)
                }
            }
            TimerPurpose::Request { conn, upstream_id } => self.on_request_timer(conn, upstream_id),
            TimerPurpose::Idle { server } => self.on_idle_timer(&server),
            TimerPurpose::Retry { server } => self.on_retry_timer(&server),
            TimerPurpose::RootsSettle { conn } => self.on_roots_settled(conn),
        }
    }
}
