//! A config load's steps as effects: `readFiles` while files are wanted (each
//! preceded by `watchFiles` when the watch set grew), then the router applies
//! the managed servers (`router/registry/config_diff.rs`) and the report goes
//! out. The last report stays with the load (`ConfigLoad::report`): the
//! snapshot and MCP Diagnostics read it there, so the host never sends it back.

use crate::config::host_policy::ApprovalVia;
use crate::config::load::{ConfigReport, FileRead, LoadStep};
use crate::config::model::ServerConfig;
use crate::engine::effects::Effect;
use crate::engine::registry::machine::Registry;

/// A finished load (`Registry::config_step`), for the router to carry out:
/// the other owners' parts of it, then `configLoaded` with the report.
pub(in crate::engine) struct LoadDone {
    pub(in crate::engine) report: Box<ConfigReport>,
    pub(in crate::engine) managed: Vec<ServerConfig>,
    /// The approved-definitions file, when this load read it afresh.
    pub(in crate::engine) approved_definitions: Option<FileRead>,
    pub(in crate::engine) via: ApprovalVia,
}

impl Registry {
    /// A load's step: the files to read (and to watch, when the set grew),
    /// or, done, what the router carries out.
    pub(in crate::engine) fn config_step(&mut self, step: LoadStep) -> Option<LoadDone> {
        // Watched first: a change made while the host reads is reported.
        match step {
            LoadStep::Read {
                round,
                paths,
                watch,
            } => {
                if let Some(paths) = watch {
                    self.outbox().push(Effect::WatchFiles { paths });
                }
                self.outbox().push(Effect::ReadFiles { round, paths });
                None
            }
            LoadStep::Done {
                report,
                managed,
                watch,
            } => {
                if let Some(paths) = watch {
                    self.outbox().push(Effect::WatchFiles { paths });
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
