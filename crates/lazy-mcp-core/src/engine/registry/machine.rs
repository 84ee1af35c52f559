//! [`Registry`], the owner of the servers' config and catalogue: the config
//! load, the catalogue and what the engine remembers of the shared catalogue.
//! Its fields are private to this file. The other files of `registry/` decide
//! over them through the accessors at the end (`config_load.rs`: a load's steps;
//! `catalogue_loading.rs`: the persisted blob; `shared_catalogue.rs`: lookups
//! and writes); the rest of the engine changes it through the named inputs
//! below and reads it through `catalogue()`. An input that reads the servers
//! or the settings is handed a [`RegistryCtx`] (`Engine::with_registry`; the
//! servers as `ConfiguredServers`); what needs another owner (a state change,
//! the clients told) is returned to the router (`router/registry.rs`), and
//! what it tells the host (files to read or watch, the shared catalogue's
//! reads and writes) waits in its outbox until the router drains it
//! (`poll_effects`).

use crate::config::load::{ConfigLoad, ConfigReport, ConfigSources, FileRead, LoadStep};
use crate::engine::effects::Effect;
use crate::engine::outbox::Outbox;
use crate::engine::registry::catalogue::{Catalogue, CatalogueEntry, Listing, Recorded};
use crate::engine::registry::configured_servers::ConfiguredServers;
use crate::engine::registry::shared_catalogue_memory::SharedCatalogue;
use crate::engine::settings::Settings;

/// The servers' config and catalogue, one owner.
#[derive(Debug, Default)]
pub(in crate::engine) struct Registry {
    /// Every server's catalogue entry (`catalogue.rs`).
    catalogue: Catalogue,
    /// The config files' contents and last good versions (`config::load`).
    config_load: ConfigLoad,
    /// Lookups in and writes to the user's shared catalogue (`shared_catalogue_memory.rs`).
    shared: SharedCatalogue,
    /// The effects its inputs yielded, until the router drains them.
    outbox: Outbox,
}

/// What a registry input reads of the rest of the engine (the servers, the
/// settings; `Engine::with_registry`).
pub(in crate::engine) struct RegistryCtx<'a, S: ConfiguredServers> {
    pub(in crate::engine) servers: &'a S,
    pub(in crate::engine) settings: &'a Settings,
}

impl Registry {
    /// The catalogue, to read.
    pub(in crate::engine) fn catalogue(&self) -> &Catalogue {
        &self.catalogue
    }

    /// The config load, to read (its report, a source's label).
    pub(in crate::engine) fn config_load(&self) -> &ConfigLoad {
        &self.config_load
    }

    /// The last config load's report (empty before the first load).
    pub(in crate::engine) fn config_report(&self) -> &ConfigReport {
        self.config_load.report()
    }

    /// The catalogue entry of `name` when it matches the configured server.
    pub(in crate::engine) fn current_entry(
        &self,
        name: &str,
        servers: &impl ConfiguredServers,
    ) -> Option<&CatalogueEntry> {
        let config = servers.config_of(name)?;
        self.catalogue.warm(name, &config.fingerprint)
    }

    /// The host's config sources: the first load starts.
    pub(in crate::engine) fn config_sources(&mut self, sources: ConfigSources) -> LoadStep {
        self.config_load.set_sources(sources)
    }

    /// Config files changed on disk (empty: all).
    pub(in crate::engine) fn config_files_changed(&mut self, paths: Vec<String>) -> LoadStep {
        self.config_load.files_changed(paths)
    }

    /// The host read the files of a load's round.
    pub(in crate::engine) fn config_files_read(
        &mut self,
        round: u64,
        files: Vec<FileRead>,
    ) -> LoadStep {
        self.config_load.files_read(round, files)
    }

    /// A listing round of `name` finished: written into its entry.
    pub(in crate::engine) fn record_listing(
        &mut self,
        name: &str,
        fingerprint: &str,
        listing: Listing,
        now_ms: u64,
    ) -> Recorded {
        (self.catalogue).record_listing(name, fingerprint, listing, now_ms)
    }

    /// `name` was listed in this event: its entry goes to the shared catalogue
    /// at the event's end.
    pub(in crate::engine) fn listed(&mut self, name: &str) {
        self.shared.listed(name);
    }

    /// `name` was removed or its launch changed: its entry goes.
    pub(in crate::engine) fn forget(&mut self, name: &str) {
        self.catalogue.forget(name);
    }

    /// Another embedding model was loaded: every entry's vectors are made again.
    pub(in crate::engine) fn model_changed(&mut self) {
        self.catalogue.model_changed();
    }

    /// At the event's end: when vectors are due, `update` brings the
    /// catalogue's up to date (true: some changed).
    pub(in crate::engine) fn update_vectors(
        &mut self,
        update: impl FnOnce(&mut Catalogue) -> bool,
    ) -> bool {
        self.catalogue.take_vectors_due() && update(&mut self.catalogue)
    }

    /// At the event's end: the catalogue to persist, once per change.
    pub(in crate::engine) fn take_persist(&mut self) -> Option<Effect> {
        let blob = self.catalogue.take_changed_blob()?;
        Some(Effect::PersistCatalogue { blob })
    }

    /// What its inputs yielded since the last drain, moved to the end of
    /// the event's `effects` (the router, right after each input).
    pub(in crate::engine) fn poll_effects(&mut self, effects: &mut Vec<Effect>) {
        self.outbox.drain_into(effects);
    }

    /// Nothing yielded is left undrained (checked at each event's end).
    pub(in crate::engine) fn outbox_is_empty(&self) -> bool {
        self.outbox.is_empty()
    }

    /// `registry/`'s files, to yield what an input tells the host.
    pub(super) fn outbox(&mut self) -> &mut Outbox {
        &mut self.outbox
    }

    /// The shared catalogue's memory, to read (`registry/`'s files).
    pub(super) fn shared(&self) -> &SharedCatalogue {
        &self.shared
    }

    /// The shared catalogue's memory, to decide over (`shared_catalogue.rs`).
    pub(super) fn shared_mut(&mut self) -> &mut SharedCatalogue {
        &mut self.shared
    }

    /// The catalogue, to change (`registry/`'s files).
    pub(super) fn catalogue_mut(&mut self) -> &mut Catalogue {
        &mut self.catalogue
    }

    /// The config load, to take a finished load's parts (`config_load.rs`).
    pub(super) fn config_load_mut(&mut self) -> &mut ConfigLoad {
        &mut self.config_load
    }
}
