//! Applying a server list: each configured server diffed by name and fingerprint
//! against the running ones (`config_changes`: withdrawn; `config_change`:
//! added, replaced, edited), then reconciled with what the config and the session's
//! Enable/Disable want. The router carries each change out. Router work, not
//! `Registry`'s: it reads the running servers (`Servers`, `Wanted`) and drives
//! the servers, clients, announcements and registry, so it sits above them all.

use crate::config::model::ServerConfig;
use crate::engine::effects::Effect;
use crate::engine::effects::LogLevel;
use crate::engine::router::Engine;
use crate::engine::server::wanted::{Relaunched, Wanted};
use crate::engine::server::{Server, Servers};
use crate::engine::state::{ServerState, Trigger};
use crate::vec_map::VecSet;

/// One configured server's change against the running servers (`config_change`).
enum ConfigChange {
    Added(ServerConfig),
    /// Its launch changed (another fingerprint): stopped and catalogued again.
    Replaced(ServerConfig),
    /// Edited with the same launch; `tools_changed`: its declared tools or exposure.
    Edited {
        config: ServerConfig,
        tools_changed: bool,
    },
}

/// A new server list against the running servers: the configs, each name once
/// (a second server of one name is ignored, with a warning), and the running
/// servers no longer configured.
fn config_changes(
    servers: Vec<ServerConfig>,
    running: &Servers,
    effects: &mut Vec<Effect>,
) -> (Vec<ServerConfig>, Vec<String>) {
    let mut seen: VecSet<String> = VecSet::new();
    let mut configs = Vec::new();
    for config in servers {
        if seen.insert(config.name.clone()) {
            configs.push(config);
        } else {
            let why = format!(
                "a second server named '{}' ({}:{}) was ignored",
                config.name, config.source.file, config.source.line
            );
            effects.push(running.log_line(LogLevel::Warn, Some(&config.name), why));
        }
    }
    let removed = running.keys().filter(|name| !seen.contains(*name)).cloned();
    (configs, removed.collect())
}

/// What `config` changes of the running servers (None: nothing).
fn config_change(config: ServerConfig, servers: &Servers) -> Option<ConfigChange> {
    Some(match servers.get(&config.name).map(Server::config) {
        None => ConfigChange::Added(config),
        Some(old) if old.fingerprint != config.fingerprint => ConfigChange::Replaced(config),
        Some(old) if *old != config => ConfigChange::Edited {
            tools_changed: old.tools != config.tools || old.tool_exposure != config.tool_exposure,
            config,
        },
        Some(_) => return None,
    })
}

/// What moving a server to what is wanted takes (`reconcile_step`).
enum Reconcile {
    /// Stopped and withdrawn (why, in words), its clients' tools unloaded, then the trigger.
    Withdraw(&'static str, Trigger),
    /// Enabled: CATALOGUED when its entry is warm, else PENDING and queued.
    Enable,
}

/// What moving a server in `state` to what is `wanted` takes (None: it is there).
fn reconcile_step(wanted: Wanted, state: &ServerState) -> Option<Reconcile> {
    match wanted {
        Wanted::Disabled if *state != ServerState::Disabled => {
            Some(Reconcile::Withdraw("it was disabled", Trigger::Disable))
        }
        Wanted::Dormant if *state != ServerState::Dormant => Some(Reconcile::Withdraw(
            "it is dormant (autoConnect: false)",
            Trigger::MakeDormant,
        )),
        Wanted::Active if matches!(state, ServerState::Disabled | ServerState::Dormant) => {
            Some(Reconcile::Enable)
        }
        _ => None,
    }
}

impl Engine {
    /// Moves a server to what is wanted, touching nothing when it is already there.
    pub(in crate::engine) fn reconcile(&mut self, name: &str) {
        let Some(server) = self.servers.get(name) else {
            return;
        };
        match reconcile_step(server.wanted(), server.state()) {
            Some(Reconcile::Withdraw(why, trigger)) => {
                self.withdraw(name, why);
                self.with_clients(|clients, _| clients.unload_server(name));
                self.transition(name, trigger);
            }
            Some(Reconcile::Enable) => {
                let warm = self.current_entry(name).is_some();
                self.transition(name, Trigger::Enable { warm });
                if !warm {
                    self.servers.enqueue_catalogue(name);
                }
                self.report_dropped_declared_tools(name);
            }
            None => {}
        }
    }

    /// Stops the server and cancels everything pending for it.
    fn withdraw(&mut self, name: &str, why: &str) {
        self.stop_server(name, why);
        self.servers.withdrawn(&mut self.timers, name);
        self.clients.exposure_changed();
    }

    pub(in crate::engine) fn on_config_applied(&mut self, servers: Vec<ServerConfig>) {
        let (configs, removed) = config_changes(servers, &self.servers, &mut self.effects);
        for name in removed {
            self.announce.forget(&name);
            self.withdraw(&name, "it was removed from the configuration");
            self.with_clients(|clients, _| clients.unload_server(&name));
            self.servers.remove(&name);
            self.registry.forget(&name);
            let line = "removed from the configuration".into();
            self.log(LogLevel::Info, Some(&name), line);
            self.effects.push(Effect::ServerRemoved { server: name });
        }
        for config in configs {
            match config_change(config, &self.servers) {
                Some(ConfigChange::Added(config)) => self.add_server(config),
                Some(ConfigChange::Replaced(config)) => self.replace_server(config),
                Some(ConfigChange::Edited {
                    config,
                    tools_changed,
                }) => {
                    let name = config.name.clone();
                    self.servers.config_changed(&name, config, false);
                    if tools_changed {
                        self.clients.exposure_changed();
                        self.report_dropped_declared_tools(&name);
                    }
                    self.reconcile(&name);
                    // Editing a FAILED server's entry is the user acting on it.
                    self.retry_now(&name);
                }
                None => {}
            }
        }
        self.recheck_all_definitions();
    }

    fn add_server(&mut self, config: ServerConfig) {
        let name = config.name.clone();
        self.servers.add(config, self.now_ms);
        self.clients.exposure_changed();
        match self.servers.first_state(&name) {
            Some(told) => self.effects.push(told),
            None => self.reconcile(&name),
        }
    }

    /// The launch config changed: stop, forget the stale catalogue entry, re-catalogue.
    fn replace_server(&mut self, config: ServerConfig) {
        let name = config.name.clone();
        self.announce.forget(&name);
        self.withdraw(&name, "its configuration changed");
        self.servers.config_changed(&name, config, true);
        self.registry.forget(&name);
        let line = "configuration changed; it will be catalogued again".into();
        self.log(LogLevel::Info, Some(&name), line);
        match self.with_servers(|servers, ctx| servers.relaunched(ctx, &name)) {
            Relaunched::CatalogueAgain(Some(next)) => self.state_changed(&name, next),
            Relaunched::CatalogueAgain(None) => {}
            Relaunched::Reconcile => self.reconcile(&name),
        }
    }
}
