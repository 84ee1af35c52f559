//! Applying a server list: each configured server diffed by name and fingerprint
//! against the running ones (added, replaced, withdrawn), then reconciled with
//! what the config and the session's Enable/Disable want.

use crate::config::model::ServerConfig;
use crate::engine::effects::Effect;
use crate::engine::effects::LogLevel;
use crate::engine::router::Engine;
use crate::engine::server::state::{ServerState, Trigger};
use crate::engine::server::wanted::Wanted;
use crate::engine::server::Server;
use crate::vec_map::VecSet;

impl Engine {
    /// Moves a server to what is wanted, touching nothing when it is already there.
    pub(in crate::engine) fn reconcile(&mut self, name: &str) {
        let Some(wanted) = self.servers.get(name).map(Server::wanted) else {
            return;
        };
        let Some(state) = self.state(name).cloned() else {
            return;
        };
        match wanted {
            Wanted::Disabled if state != ServerState::Disabled => {
                self.withdraw(name, "it was disabled");
                self.clients.unload_server(name, &mut self.effects);
                self.transition(name, Trigger::Disable);
            }
            Wanted::Dormant if state != ServerState::Dormant => {
                self.withdraw(name, "it is dormant (autoConnect: false)");
                self.clients.unload_server(name, &mut self.effects);
                self.transition(name, Trigger::MakeDormant);
            }
            Wanted::Active if matches!(state, ServerState::Disabled | ServerState::Dormant) => {
                let warm = self.current_entry(name).is_some();
                self.transition(name, Trigger::Enable { warm });
                if !warm {
                    self.servers.enqueue_catalogue(name);
                }
                self.report_dropped_declared_tools(name);
            }
            _ => {}
        }
    }

    /// Stops the server and cancels everything pending for it.
    fn withdraw(&mut self, name: &str, why: &str) {
        self.stop_server(name, why);
        let retry = self.servers.withdrawn(name);
        self.timers.cancel_armed(retry);
        self.clients.exposure_changed();
    }

    pub(in crate::engine) fn on_config_applied(&mut self, servers: Vec<ServerConfig>) {
        let mut seen: VecSet<String> = VecSet::new();
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
            self.clients.unload_server(&name, &mut self.effects);
            self.servers.remove(&name);
            self.catalogue.forget(&name);
            self.log(
                LogLevel::Info,
                Some(&name),
                "removed from the configuration".into(),
            );
            self.effects.push(Effect::ServerRemoved { server: name });
        }
        for config in configs {
            let name = config.name.clone();
            match self.servers.get(&name).map(|s| s.config().clone()) {
                None => self.add_server(config),
                Some(old) if old.fingerprint != config.fingerprint => self.replace_server(config),
                Some(old) if old != config => {
                    let tools_changed =
                        old.tools != config.tools || old.tool_exposure != config.tool_exposure;
                    self.servers.config_changed(&name, config, false);
                    if tools_changed {
                        self.clients.exposure_changed();
                        self.report_dropped_declared_tools(&name);
                    }
                    self.reconcile(&name);
                    // Editing a FAILED server's entry is the user acting on it.
                    self.retry_now(&name);
                }
                Some(_) => {}
            }
        }
        self.recheck_all_definitions();
    }

    fn add_server(&mut self, config: ServerConfig) {
        let name = config.name.clone();
        self.servers.add(config, self.now_ms);
        self.clients.exposure_changed();
        if self.servers.get(&name).map(Server::wanted) == Some(Wanted::Disabled) {
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
        self.servers.config_changed(&name, config, true);
        self.catalogue.forget(&name);
        self.log(
            LogLevel::Info,
            Some(&name),
            "configuration changed; it will be catalogued again".into(),
        );
        let state = self.state(&name).cloned();
        if self.servers.get(&name).map(Server::wanted) == Some(Wanted::Active)
            && !matches!(state, Some(ServerState::Disabled | ServerState::Dormant))
        {
            self.transition(&name, Trigger::NeedsCatalogue);
            self.servers.enqueue_catalogue(&name);
        } else {
            self.reconcile(&name);
        }
    }
}
