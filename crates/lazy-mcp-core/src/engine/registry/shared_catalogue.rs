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
use crate::engine::effects::{Effect, LogLevel};
use crate::engine::registry::catalogue::{Catalogue, CatalogueEntry};
use crate::engine::router::Engine;
use crate::engine::server::state::{ServerState, Trigger};
use crate::shared::launch::{repeatable_tools, shared_launch, SharedLaunch, SharingClient};
use crate::wording::count;

pub(in crate::engine) mod memory;

use memory::SharedCatalogue;

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

impl Engine {
    /// Whether `name`'s launch is shared, and under which key, as its
    /// definition alone decides (roots-bound only when from a project file):
    /// the shared catalogue's key, which says itself whether the entry holds
    /// for the roots only.
    pub(in crate::engine) fn sharing_of(&self, name: &str) -> Option<SharedLaunch> {
        let client = sharing_client(&self.config_load, true);
        shared_launch(self.servers.get(name)?.config(), self.settings(), client)
    }

    /// The launch `open` attaches: also roots-bound unless the catalogue says
    /// the server never asked for roots.
    /// It tells the owner this client's idle ceiling for the server and which
    /// of its tools the catalogue marks safe to run twice (none when it is not
    /// catalogued yet).
    pub(in crate::engine) fn launch_sharing_of(&self, name: &str) -> Option<SharedLaunch> {
        let ceiling = self.idle_ceiling(name);
        let entry = self.current_entry(name);
        let roots_free = (self.shared_catalogue).roots_free(name, entry);
        let client = sharing_client(&self.config_load, roots_free);
        let mut launch = shared_launch(self.servers.get(name)?.config(), self.settings(), client)?;
        launch.idle_timeout_ms = ceiling.idle_timeout_ms;
        launch.adaptive_idle = ceiling.adaptive;
        launch.repeatable = entry.map_or_else(Vec::new, |e| repeatable_tools(&e.tools));
        Some(launch)
    }

    /// `name` was seen asking for roots (here, or its entry says so).
    pub(in crate::engine) fn known_to_ask_roots(&self, name: &str) -> bool {
        (self.shared_catalogue).asks_roots_known(name, self.current_entry(name))
    }

    /// `name` asked for `roots/list` (while catalogued, or later: a tool that
    /// asks, or a shared process that asked another holder): recorded in its
    /// catalogue entry (persisted) and the shared catalogue, so its next
    /// process is keyed by the workspace roots.
    pub(in crate::engine) fn note_roots_asked(&mut self, name: &str) {
        let news = self.shared_catalogue.asks_roots(
            name,
            self.shared_catalogue
                .roots_free(name, self.current_entry(name)),
        );
        let marked = self.catalogue.mark_asks_roots(name);
        if !(news || marked) {
            return;
        }
        let Some(launch) = self.sharing_of(name) else {
            return;
        };
        self.shared_catalogue.listed(name);
        if !launch.roots_bound {
            self.log(
                LogLevel::Info,
                Some(name),
                "asked for the workspace roots: recorded in the catalogue; its shared process is kept to clients of this workspace's roots from now on".to_string(),
            );
        }
    }

    /// Before a server is started to be catalogued: a shared one without an
    /// entry of its own is first looked up in the shared catalogue (once per
    /// key). True: the host was asked; the server waits PENDING for the answer.
    pub(in crate::engine) fn look_up_shared_catalogue(&mut self, name: &str) -> bool {
        if self.current_entry(name).is_some() {
            return false;
        }
        let Some(launch) = self.sharing_of(name) else {
            return false;
        };
        let Some(keys) = self.shared_catalogue.look_up(name, launch) else {
            return false;
        };
        self.effects.push(Effect::ReadSharedCatalogue {
            server: name.to_string(),
            keys,
        });
        true
    }

    /// The host's answer to `readSharedCatalogue`: the first of the keys
    /// asked whose file exists (`blob: None`: none). A usable entry makes the
    /// server CATALOGUED without a process; otherwise it is catalogued as before.
    pub(in crate::engine) fn on_shared_catalogue_read(
        &mut self,
        name: &str,
        key: &str,
        file: &str,
        blob: Option<&str>,
    ) {
        let waiting = matches!(self.state(name), Some(ServerState::Pending))
            && self.current_entry(name).is_none();
        // The answer to this server's last lookup (a newer one's answer decides),
        // while it still waits (a call, a warm catalogue or a removal came first).
        if !self.shared_catalogue.answers_last_lookup(name, key) {
            return;
        }
        if !waiting {
            self.shared_catalogue.forget_lookup(name);
            return;
        }
        let found = match (self.sharing_of(name), blob) {
            (Some(launch), Some(blob)) => {
                let fingerprint = self.servers.get(name).map(|s| &s.config().fingerprint);
                let usable = fingerprint.and_then(|fingerprint| {
                    (self.shared_catalogue).usable_entry(name, &launch, key, blob, fingerprint)
                });
                match usable {
                    Some(Ok(found)) => Some(found),
                    Some(Err(why)) => {
                        self.log(
                            LogLevel::Warn,
                            Some(name),
                            format!("the shared catalogue file {file} was ignored: {why}"),
                        );
                        None
                    }
                    None => None,
                }
            }
            _ => None,
        };
        let Some((entry, writer)) = found else {
            self.servers.enqueue_catalogue(name);
            return;
        };
        let summary = format!(
            "catalogue taken from the shared catalogue (another client of this user catalogued it): {}; no process started",
            count(entry.tools.len(), "tool"),
        );
        // Vectors embed the server's name: made again under this one.
        self.catalogue.adopt_shared(name, &writer, entry);
        self.clients.exposure_changed();
        self.transition(name, Trigger::WarmCatalogueFound);
        self.log(LogLevel::Info, Some(name), summary);
        // As for an entry listed here: held definitions, dropped declared tools.
        self.check_definitions(name);
        self.report_dropped_declared_tools(name);
    }

    /// One `writeSharedCatalogue` per shared server listed in this event.
    pub(in crate::engine) fn flush_shared_catalogue(&mut self) {
        if !self.shared_catalogue.any_listed() {
            return;
        }
        for name in self.shared_catalogue.take_listed() {
            let Some(launch) = self.sharing_of(&name) else {
                continue;
            };
            let blob = self.servers.get(&name).and_then(|server| {
                self.catalogue
                    .one_entry_blob(&name, &server.config().fingerprint)
            });
            let Some(blob) = blob else {
                continue;
            };
            let asks_roots = !launch.roots_bound && self.known_to_ask_roots(&name);
            if asks_roots && self.shared_catalogue.asked_late(&name) {
                // Over the entry that said it never asks, which clients of
                // other roots would take: they learn it asks.
                self.effects.push(Effect::WriteSharedCatalogue {
                    key: launch.key.clone(),
                    blob: blob.clone(),
                });
            }
            let key = SharedCatalogue::write_key(&launch, asks_roots);
            self.effects
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
