//! A config load's steps as effects: `readFiles` while files are wanted (each
//! preceded by `watchFiles` when the watch set grew), then the managed servers
//! are applied (`config_diff`) and the report goes out. The last report stays
//! with the load (`ConfigLoad::report`): the snapshot and MCP Diagnostics read
//! it there, so the host never sends it back.

use crate::config::host_policy::ApprovalVia;
use crate::config::load::{ConfigReport, FileRead, LoadStep};
use crate::config::model::ServerConfig;
use crate::engine::effects::Effect;
use crate::engine::registry::machine::Registry;
use crate::engine::router::Engine;

/// A finished load (`Registry::config_step`), for the router to carry out:
/// the other owners' parts of it, then `configLoaded` with the report.
pub(in crate::engine) struct LoadDone {
    report: Box<ConfigReport>,
    managed: Vec<ServerConfig>,
    /// The approved-definitions file, when this load read it afresh.
    approved_definitions: Option<FileRead>,
    via: ApprovalVia,
}

impl Engine {
    /// The last config load's report (empty before the first load).
    pub fn config_report(&self) -> &ConfigReport {
        self.registry.config_report()
    }

    pub(in crate::engine) fn on_config_step(&mut self, step: LoadStep) {
        let Some(done) = self.registry.config_step(step, &mut self.effects) else {
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
}

impl Registry {
    /// A load's step: the files to read (and to watch, when the set grew),
    /// or, done, what the router carries out.
    pub(in crate::engine) fn config_step(
        &mut self,
        step: LoadStep,
        effects: &mut Vec<Effect>,
    ) -> Option<LoadDone> {
        // Watched first: a change made while the host reads is reported.
        match step {
            LoadStep::Read {
                round,
                paths,
                watch,
            } => {
                if let Some(paths) = watch {
                    effects.push(Effect::WatchFiles { paths });
                }
                effects.push(Effect::ReadFiles { round, paths });
                None
            }
            LoadStep::Done {
                report,
                managed,
                watch,
            } => {
                if let Some(paths) = watch {
                    effects.push(Effect::WatchFiles { paths });
                }
                let config_load = self.config_load_mut();
                Some(LoadDone {
                    report,
                    managed,
                    approved_definitions: config_load.take_approved_definitions().cloned(),
                    via: config_load.approval_via(),
                })
            }
            LoadStep::Wait => None,
        }
    }
}
