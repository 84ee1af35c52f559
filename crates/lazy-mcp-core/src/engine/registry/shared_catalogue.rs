//! The shared catalogue (issue 26, docs/shared-servers.md): the catalogue entry
//! of a shared server stored under its sharing key, so a server one client of
//! the user catalogued (a VS Code window, a `lazy-mcp serve`, another project
//! for a user-level server) is not started again by another just to catalogue it.
//!
//! The core decides: which key (`shared/launch.rs`'s, plus the workspace roots
//! for a server defined in a project file or one that asked for roots while
//! catalogued), whether a found entry is used (the same checks as the
//! client's own persisted entries, format and fingerprint: a file is a
//! one-entry catalogue blob), and
//! when one is written (each time this client lists the server). The host only
//! reads and writes one file per key (`readSharedCatalogue` →
//! `sharedCatalogueRead`, `writeSharedCatalogue`).
//!
//! Staleness follows the client's own entries: an entry whose fingerprint
//! matches is used as a persisted one is at start (marked stale past a modern
//! server's `ttlMs`, re-listed at the next connect, on `list_changed` and on
//! the refresh timer); each re-listing writes it again for the others.

use crate::config::load::ConfigLoad;
use crate::config::model::ServerConfig;
use crate::engine::effects::{Effect, LogLevel};
use crate::engine::registry::catalogue::{Catalogue, CatalogueEntry};
use crate::engine::registry::configured_servers::ConfiguredServers;
use crate::engine::registry::machine::{Registry, RegistryCtx};
use crate::engine::registry::shared_catalogue_memory::SharedCatalogue;
use crate::engine::settings::Settings;
use crate::engine::state::ServerState;
use crate::shared::launch::{repeatable_tools, shared_launch, SharedLaunch, SharingClient};
use crate::wording::count;

/// This client as a shared launch's key sees it: the config's environment,
/// whether the workspace is trusted, and `roots_free` (the server is known
/// never to ask for roots).
fn sharing_client(config_load: &ConfigLoad, roots_free: bool) -> SharingClient<'_> {
    SharingClient {
        env: config_load.discovery().map(|d| &d.env),
        untrusted: !config_load.workspace_trusted(),
        roots_free,
    }
}

/// What the host's answer to a lookup (`Registry::shared_read`) leaves the router to do.
pub(in crate::engine) enum SharedRead {
    /// Nothing: not the answer awaited, or the server no longer waits.
    Ignored,
    /// No usable entry: the server is catalogued as before.
    Catalogue,
    /// The entry was taken: the server is CATALOGUED without a process
    /// (`summary` says so in the log).
    Adopted { summary: String },
}

impl Registry {
    /// Whether `config`'s launch is shared, and under which key, as its
    /// definition alone decides (roots-bound only when from a project file):
    /// the shared catalogue's key, which says itself whether the entry holds
    /// for the roots only.
    fn sharing_of(&self, config: &ServerConfig, settings: &Settings) -> Option<SharedLaunch> {
        shared_launch(config, settings, sharing_client(self.config_load(), true))
    }

    /// The launch `open` attaches: also roots-bound unless the catalogue says
    /// the server never asked for roots. It names which of the server's tools
    /// the catalogue marks safe to run twice (none when it is not catalogued
    /// yet).
    pub(in crate::engine) fn launch_sharing(
        &self,
        config: &ServerConfig,
        settings: &Settings,
    ) -> Option<SharedLaunch> {
        let entry = self.catalogue().warm(&config.name, &config.fingerprint);
        let roots_free = self.shared().roots_free(&config.name, entry);
        let client = sharing_client(self.config_load(), roots_free);
        let mut launch = shared_launch(config, settings, client)?;
        launch.repeatable = entry.map_or_else(Vec::new, |e| repeatable_tools(&e.tools));
        Some(launch)
    }

    /// `name` was seen asking for roots (here, or its entry says so).
    pub(in crate::engine) fn asks_roots_known(
        &self,
        name: &str,
        servers: &impl ConfiguredServers,
    ) -> bool {
        (self.shared()).asks_roots_known(name, self.current_entry(name, servers))
    }

    /// `name` asked for `roots/list` (while catalogued, or later: a tool that
    /// asks, or a shared process that asked another holder): recorded in its
    /// catalogue entry (persisted) and the shared catalogue, so its next
    /// process is keyed by the workspace roots.
    pub(in crate::engine) fn roots_asked(
        &mut self,
        ctx: &RegistryCtx<impl ConfiguredServers>,
        name: &str,
    ) {
        let was_free = (self.shared()).roots_free(name, self.current_entry(name, ctx.servers));
        let news = self.shared_mut().asks_roots(name, was_free);
        let marked = self.catalogue_mut().mark_asks_roots(name);
        if !(news || marked) {
            return;
        }
        let config = ctx.servers.config_of(name);
        let Some(launch) = config.and_then(|config| self.sharing_of(config, ctx.settings)) else {
            return;
        };
        self.shared_mut().listed(name);
        if !launch.roots_bound {
            let why = "asked for the workspace roots: recorded in the catalogue; its shared process is kept to clients of this workspace's roots from now on";
            self.outbox()
                .push(ctx.servers.log_about(LogLevel::Info, name, why.to_string()));
        }
    }

    /// Before a server is started to be catalogued: a shared one without an
    /// entry of its own is first looked up in the shared catalogue (once per
    /// key). True: `readSharedCatalogue` was asked of the host.
    pub(in crate::engine) fn look_up(
        &mut self,
        ctx: &RegistryCtx<impl ConfiguredServers>,
        name: &str,
    ) -> bool {
        if self.current_entry(name, ctx.servers).is_some() {
            return false;
        }
        let config = ctx.servers.config_of(name);
        let Some(launch) = config.and_then(|config| self.sharing_of(config, ctx.settings)) else {
            return false;
        };
        let Some(keys) = self.shared_mut().look_up(name, launch) else {
            return false;
        };
        self.outbox().push(Effect::ReadSharedCatalogue {
            server: name.to_string(),
            keys,
        });
        true
    }

    /// The host's answer to `readSharedCatalogue`: the first of the keys
    /// asked whose `file` exists (`blob: None`: none). A usable entry is
    /// taken; a damaged file is logged and ignored.
    pub(in crate::engine) fn shared_read(
        &mut self,
        ctx: &RegistryCtx<impl ConfiguredServers>,
        name: &str,
        (key, file): (&str, &str),
        blob: Option<&str>,
    ) -> SharedRead {
        let state = ctx.servers.state_of(name);
        let waiting = state.is_some_and(|s| matches!(s, ServerState::Pending))
            && self.current_entry(name, ctx.servers).is_none();
        // The answer to this server's last lookup (a newer one's answer decides),
        // while it still waits (a call, a warm catalogue or a removal came first).
        if !self.shared().answers_last_lookup(name, key) {
            return SharedRead::Ignored;
        }
        let (true, Some(config)) = (waiting, ctx.servers.config_of(name)) else {
            self.shared_mut().forget_lookup(name);
            return SharedRead::Ignored;
        };
        let found = match (self.sharing_of(config, ctx.settings), blob) {
            (Some(launch), Some(blob)) => {
                let fingerprint = &config.fingerprint;
                match (self.shared_mut()).usable_entry(name, &launch, key, blob, fingerprint) {
                    Some(Ok(found)) => Some(found),
                    Some(Err(why)) => {
                        let why = format!("the shared catalogue file {file} was ignored: {why}");
                        self.outbox()
                            .push((ctx.servers).log_about(LogLevel::Warn, name, why));
                        None
                    }
                    None => None,
                }
            }
            _ => None,
        };
        let Some((entry, writer)) = found else {
            return SharedRead::Catalogue;
        };
        let summary = format!(
            "catalogue taken from the shared catalogue (another client of this user catalogued it): {}; no process started",
            count(entry.tools.len(), "tool"),
        );
        // Vectors embed the server's name: made again under this one.
        self.catalogue_mut().adopt_shared(name, &writer, entry);
        SharedRead::Adopted { summary }
    }

    /// One `writeSharedCatalogue` per shared server listed in this event.
    pub(in crate::engine) fn flush_shared(&mut self, ctx: &RegistryCtx<impl ConfiguredServers>) {
        if !self.shared().any_listed() {
            return;
        }
        for name in self.shared_mut().take_listed() {
            let Some(config) = ctx.servers.config_of(&name) else {
                continue;
            };
            let Some(launch) = self.sharing_of(config, ctx.settings) else {
                continue;
            };
            let Some(blob) = self.catalogue().one_entry_blob(&name, &config.fingerprint) else {
                continue;
            };
            let asks_roots = !launch.roots_bound && self.asks_roots_known(&name, ctx.servers);
            if asks_roots && self.shared().asked_late(&name) {
                // Over the entry that said it never asks, which clients of
                // other roots would take: they learn it asks.
                self.outbox().push(Effect::WriteSharedCatalogue {
                    key: launch.key.clone(),
                    blob: blob.clone(),
                });
            }
            let key = SharedCatalogue::write_key(&launch, asks_roots);
            self.outbox()
                .push(Effect::WriteSharedCatalogue { key, blob });
        }
    }
}

impl SharedCatalogue {
    /// `name`'s catalogue `entry` (listed here or taken from the shared
    /// catalogue) says it never asked for roots, and it has not asked since.
    fn roots_free(&self, name: &str, entry: Option<&CatalogueEntry>) -> bool {
        !self.asks_roots_known(name, entry)
            && entry.is_some_and(|entry| entry.asks_roots == Some(false))
    }

    /// `name` was seen asking for roots (here, or its `entry` says so).
    fn asks_roots_known(&self, name: &str, entry: Option<&CatalogueEntry>) -> bool {
        self.known_to_ask_roots(name) || entry.is_some_and(|entry| entry.asks_roots == Some(true))
    }

    /// The entry of a shared catalogue file (`blob`, under `key`) when it holds
    /// for this server's definition (`fingerprint`) and roots, with the
    /// writer's name for the server; `Err`: the file is damaged (why). A file
    /// is a one-entry catalogue blob; its key says the roots it holds for
    /// (`<key>-<rootsKey>`) or none.
    fn usable_entry(
        &mut self,
        name: &str,
        launch: &SharedLaunch,
        key: &str,
        blob: &str,
        fingerprint: &str,
    ) -> Option<Result<(CatalogueEntry, String), String>> {
        if !SharedCatalogue::key_holds(launch, key) {
            return None; // not a key of this definition and these roots (any more)
        }
        let catalogue = match Catalogue::from_blob(blob) {
            Ok(catalogue) => catalogue,
            Err(why) => return Some(Err(why)),
        };
        let (writer, entry) = catalogue.into_entry_for(fingerprint)?;
        if !self.entry_taken(name, launch, key, entry.asks_roots) {
            // Another workspace's client saw it ask for roots after its entry
            // was shared: catalogued here (by roots) instead, and keyed so.
            return None;
        }
        Some(Ok((entry, writer)))
    }
}
