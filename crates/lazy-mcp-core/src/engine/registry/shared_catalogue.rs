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

use crate::engine::effects::{Effect, LogLevel};
use crate::engine::registry::catalogue::{Catalogue, CatalogueEntry};
use crate::engine::router::Engine;
use crate::engine::server::state::{ServerState, Trigger};
use crate::shared::launch::{shared_launch, SharedLaunch, SharingClient};
use crate::wording::count;

pub(in crate::engine) mod memory;

/// The key of an entry that holds only for the client's workspace roots.
fn roots_slot(launch: &SharedLaunch) -> String {
    format!("{}-{}", launch.key, launch.roots_key)
}

impl Engine {
    /// Whether `name`'s launch is shared, and under which key, as its
    /// definition alone decides (roots-bound only when from a project file):
    /// the shared catalogue's key, which says itself whether the entry holds
    /// for the roots only.
    pub(in crate::engine) fn sharing_of(&self, name: &str) -> Option<SharedLaunch> {
        self.sharing_with(name, true)
    }

    /// The launch `open` attaches: also roots-bound unless the catalogue says
    /// the server never asked for roots.
    pub(in crate::engine) fn launch_sharing_of(&self, name: &str) -> Option<SharedLaunch> {
        self.sharing_with(name, self.known_roots_free(name))
    }

    fn sharing_with(&self, name: &str, roots_free: bool) -> Option<SharedLaunch> {
        let server = self.servers.get(name)?;
        let client = SharingClient {
            env: self.config_load.discovery().map(|d| &d.env),
            untrusted: !self.config_load.workspace_trusted(),
            roots_free,
        };
        shared_launch(server.config(), self.settings(), client)
    }

    /// The catalogue entry (listed here or taken from the shared catalogue)
    /// says `name` never asked for roots, and it has not asked since.
    fn known_roots_free(&self, name: &str) -> bool {
        !self.known_to_ask_roots(name)
            && self
                .current_entry(name)
                .is_some_and(|entry| entry.asks_roots == Some(false))
    }

    /// `name` was seen asking for roots (here, or its entry says so).
    pub(in crate::engine) fn known_to_ask_roots(&self, name: &str) -> bool {
        self.shared_catalogue.asks_roots.contains(name)
            || self
                .current_entry(name)
                .is_some_and(|entry| entry.asks_roots == Some(true))
    }

    /// `name` asked for `roots/list` (while catalogued, or later: a tool that
    /// asks, or a shared process that asked another holder): recorded in its
    /// catalogue entry (persisted) and the shared catalogue, so its next
    /// process is keyed by the workspace roots.
    pub(in crate::engine) fn note_roots_asked(&mut self, name: &str) {
        if self.known_roots_free(name) {
            // Its entry went out saying otherwise: overwritten in flush.
            self.shared_catalogue.asked_late.insert(name.to_string());
        }
        let news = self.shared_catalogue.asks_roots.insert(name.to_string());
        let marked = self.catalogue.mark_asks_roots(name);
        if !(news || marked) {
            return;
        }
        let Some(launch) = self.sharing_of(name) else {
            return;
        };
        self.shared_catalogue.to_write.insert(name.to_string());
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
        let slot = roots_slot(&launch);
        if self.shared_catalogue.looked_up.get(name) == Some(&slot) {
            return false;
        }
        self.shared_catalogue
            .looked_up
            .insert(name.to_string(), slot.clone());
        // A project server's entry holds only for the same roots; another's, for
        // any roots unless it asked for them (then under the roots' key too).
        let keys = if launch.roots_bound {
            vec![slot]
        } else {
            vec![slot, launch.key]
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
        let asked = self.shared_catalogue.looked_up.get(name);
        let current = asked.is_some_and(|slot| {
            slot == key
                || slot
                    .strip_prefix(key)
                    .is_some_and(|rest| rest.starts_with('-'))
        });
        if !current {
            return;
        }
        if !waiting {
            // Unused: the next need of a catalogue (after a Disable, say) looks again.
            self.shared_catalogue.looked_up.remove(name);
            return;
        }
        let found = match (self.sharing_of(name), blob) {
            (Some(launch), Some(blob)) => self.usable_shared_entry(name, &launch, key, file, blob),
            _ => None,
        };
        let Some((entry, writer)) = found else {
            self.enqueue_catalogue(name);
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

    /// The entry of `file` (key `key`) when it holds for this server's
    /// definition and roots, with the writer's name for the server. A file is a
    /// one-entry catalogue blob; its key says the roots it holds for
    /// (`<key>-<rootsKey>`) or none. A damaged file is logged, naming it.
    fn usable_shared_entry(
        &mut self,
        name: &str,
        launch: &SharedLaunch,
        key: &str,
        file: &str,
        blob: &str,
    ) -> Option<(CatalogueEntry, String)> {
        let by_roots = roots_slot(launch);
        if key != by_roots && (launch.roots_bound || key != launch.key) {
            return None; // not a key of this definition and these roots (any more)
        }
        let fingerprint = self.servers.get(name)?.config().fingerprint.clone();
        let catalogue = match Catalogue::from_blob(blob) {
            Ok(catalogue) => catalogue,
            Err(why) => {
                self.log(
                    LogLevel::Warn,
                    Some(name),
                    format!("the shared catalogue file {file} was ignored: {why}"),
                );
                return None;
            }
        };
        let (writer, entry) = catalogue.into_entry_for(&fingerprint)?;
        if key != by_roots && entry.asks_roots == Some(true) {
            // Another workspace's client saw it ask for roots after its entry
            // was shared: catalogued here (by roots) instead, and keyed so.
            self.shared_catalogue.asks_roots.insert(name.to_string());
            return None;
        }
        if key == by_roots && !launch.roots_bound {
            self.shared_catalogue.asks_roots.insert(name.to_string());
        }
        Some((entry, writer))
    }

    /// `name` was listed: its entry goes to the shared catalogue at the end
    /// of the event (when its launch is shared).
    pub(in crate::engine) fn share_catalogue_entry(&mut self, name: &str) {
        self.shared_catalogue.to_write.insert(name.to_string());
    }

    /// One `writeSharedCatalogue` per shared server listed in this event.
    pub(in crate::engine) fn flush_shared_catalogue(&mut self) {
        if self.shared_catalogue.to_write.is_empty() {
            return;
        }
        let to_write = std::mem::take(&mut self.shared_catalogue.to_write);
        for name in to_write {
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
            if asks_roots && self.shared_catalogue.asked_late.contains(&name) {
                // Over the entry that said it never asks, which clients of
                // other roots would take: they learn it asks.
                self.effects.push(Effect::WriteSharedCatalogue {
                    key: launch.key.clone(),
                    blob: blob.clone(),
                });
            }
            let key = if launch.roots_bound || asks_roots {
                roots_slot(&launch)
            } else {
                launch.key.clone()
            };
            self.effects
                .push(Effect::WriteSharedCatalogue { key, blob });
        }
    }
}
