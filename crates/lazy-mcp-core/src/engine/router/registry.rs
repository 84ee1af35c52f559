//! The router's side of `Registry` (`registry/`): it hands the registry what
//! it reads (the servers, through `ConfiguredServers`) and carries out what
//! its inputs return where other owners are concerned — a finished config
//! load (`LoadDone`: the clients, the trust, the server list applied) and the
//! persisted catalogue read back (servers made warm, the clients told). Here
//! rather than in registry/ so the registry imports neither the router nor
//! the servers above it. Beside it: a server list diffed against the running
//! servers (`router/registry/config_diff.rs`) and the shared catalogue's
//! lookups and answers carried out (`router/registry/shared_catalogue.rs`).

use crate::config::load::{ConfigReport, LoadStep};
use crate::engine::effects::{Effect, LogLevel};
use crate::engine::router::Engine;
use crate::engine::state::Trigger;

mod config_diff;
mod shared_catalogue;

impl Engine {
    /// The last config load's report (empty before the first load).
    pub fn config_report(&self) -> &ConfigReport {
        self.registry.config_report()
    }

    pub(in crate::engine) fn on_config_step(&mut self, step: LoadStep) {
        let Some(done) = self.with_registry(|registry, _| registry.config_step(step)) else {
            return;
        };
        let report = done.report;
        self.clients
            .definitions_trusted(report.start_client_definitions);
        self.on_definitions_file_read(done.approved_definitions.as_ref());
        if self.settings().manage_servers {
            self.on_config_applied(done.managed);
        }
        let requests = report.needs_approval.clone();
        if let Some(notice) = self.trust.approvals_requested(requests, done.via) {
            self.effects.push(notice);
        }
        self.effects.push(Effect::ConfigLoaded { report });
    }

    /// The persisted catalogue read back (`Registry::catalogue_loaded`): the
    /// servers it made warm that waited for a cataloguing become CATALOGUED.
    pub(in crate::engine) fn on_catalogue_loaded(&mut self, blob: &str) {
        if let Err(why) = self.registry.catalogue_loaded(blob, &self.servers) {
            return self.log(LogLevel::Warn, None, why);
        }
        self.clients.exposure_changed();
        let names: Vec<String> = self.servers.keys().cloned().collect();
        for name in names {
            let Some(waiting) = self.registry.made_warm(&name, &self.servers) else {
                continue;
            };
            if waiting {
                self.servers.warm_catalogue_found(&mut self.timers, &name);
                self.transition(&name, Trigger::WarmCatalogueFound);
            }
            self.report_dropped_declared_tools(&name);
        }
        self.recheck_all_definitions();
    }
}
