//! The router's side of the shared catalogue (`registry/shared_catalogue.rs`
//! decides): it hands `Registry` the servers and settings to read, and carries
//! out an answer's outcome where other owners are concerned (the server queued
//! or made CATALOGUED, the clients told, its definitions checked). Here rather
//! than in registry/ because it drives the servers, clients and trust, which
//! sit above the registry.

use crate::engine::effects::LogLevel;
use crate::engine::registry::machine::{Registry, RegistryCtx};
use crate::engine::registry::shared_catalogue::SharedRead;
use crate::engine::router::Engine;
use crate::engine::server::Servers;
use crate::engine::state::Trigger;
use crate::shared::launch::SharedLaunch;

impl Engine {
    /// The launch `open` attaches (`Registry::launch_sharing`), with this
    /// client's idle ceiling for the server, which it tells the owner.
    pub(in crate::engine) fn launch_sharing_of(&self, name: &str) -> Option<SharedLaunch> {
        let ceiling = self.idle_ceiling(name);
        let config = self.servers.get(name)?.config();
        let mut launch = self.registry.launch_sharing(config, self.settings())?;
        launch.idle_timeout_ms = ceiling.idle_timeout_ms;
        launch.adaptive_idle = ceiling.adaptive;
        Some(launch)
    }

    /// `name` was seen asking for roots (here, or its entry says so).
    pub(in crate::engine) fn known_to_ask_roots(&self, name: &str) -> bool {
        self.registry.asks_roots_known(name, &self.servers)
    }

    /// `name` asked for `roots/list` (`Registry::roots_asked`).
    pub(in crate::engine) fn note_roots_asked(&mut self, name: &str) {
        self.with_registry(|registry, ctx| registry.roots_asked(ctx, name));
    }

    /// Before a server is started to be catalogued (`Registry::look_up`).
    /// True: the host was asked; the server waits PENDING for the answer.
    pub(in crate::engine) fn look_up_shared_catalogue(&mut self, name: &str) -> bool {
        self.with_registry(|registry, ctx| registry.look_up(ctx, name))
    }

    /// The host's answer to `readSharedCatalogue` (`Registry::shared_read`
    /// decides); an entry taken makes the server CATALOGUED without a process.
    pub(in crate::engine) fn on_shared_catalogue_read(
        &mut self,
        name: &str,
        key: &str,
        file: &str,
        blob: Option<&str>,
    ) {
        let read = |registry: &mut Registry, ctx: &RegistryCtx<'_, Servers>| {
            registry.shared_read(ctx, name, (key, file), blob)
        };
        match self.with_registry(read) {
            SharedRead::Ignored => {}
            SharedRead::Catalogue => self.servers.enqueue_catalogue(name),
            SharedRead::Adopted { summary } => {
                self.clients.exposure_changed();
                self.transition(name, Trigger::WarmCatalogueFound);
                self.log(LogLevel::Info, Some(name), summary);
                // As for an entry listed here: held definitions, dropped declared tools.
                self.check_definitions(name);
                self.report_dropped_declared_tools(name);
            }
        }
    }

    /// At the event's end: the shared servers listed in it written (`Registry::flush_shared`).
    pub(in crate::engine) fn flush_shared_catalogue(&mut self) {
        self.with_registry(|registry, ctx| registry.flush_shared(ctx));
    }
}
