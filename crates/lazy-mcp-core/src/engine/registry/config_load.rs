//! A config load's steps as effects: `readFiles` while files are wanted (each
//! preceded by `watchFiles` when the watch set grew), then the managed servers
//! are applied (`config_diff`) and the report goes out. The last report stays
//! with the load (`ConfigLoad::report`): the snapshot and MCP Diagnostics read
//! it there, so the host never sends it back.

use crate::config::load::{ConfigReport, LoadStep};
use crate::engine::effects::Effect;
use crate::engine::router::Engine;

impl Engine {
    /// The last config load's report (empty before the first load).
    pub fn config_report(&self) -> &ConfigReport {
        self.config_load.report()
    }

    pub(in crate::engine) fn on_config_step(&mut self, step: LoadStep) {
        match step {
            LoadStep::Read {
                round,
                paths,
                watch,
            } => {
                // Watched first: a change made while the host reads is reported.
                if let Some(paths) = watch {
                    self.effects.push(Effect::WatchFiles { paths });
                }
                self.effects.push(Effect::ReadFiles { round, paths })
            }
            LoadStep::Done {
                report,
                managed,
                watch,
            } => {
                if let Some(paths) = watch {
                    self.effects.push(Effect::WatchFiles { paths });
                }
                self.clients
                    .definitions_trusted(report.start_client_definitions);
                let read = self.config_load.take_approved_definitions().cloned();
                self.on_definitions_file_read(read.as_ref());
                if self.settings().manage_servers {
                    self.on_config_applied(managed);
                }
                let via = self.config_load.approval_via();
                let requests = report.needs_approval.clone();
                if let Some(notice) = self.awaiting_approval.handle_requests(requests, via) {
                    self.effects.push(notice);
                }
                self.effects.push(Effect::ConfigLoaded { report });
            }
            LoadStep::Wait => {}
        }
    }
}
