//! A config load as one conversation with the host: the core names the files it
//! wants (`Read`, which is also what the host watches), the host answers with
//! their contents (`files_read`); an OpenCode `{file:}` reference or a file
//! named later makes the core ask again. Then: last good versions of files that
//! stopped parsing, normalization, host policy. The engine diffs the result.
//!
//! Contents are kept between loads, so an edit re-reads only the changed files.

use super::discovery::{discovery_plan, DiscoveryInput};
use super::host_policy::{select_servers, ApprovalRequest, HostPolicy, ProjectServer, Unmanaged};
use super::model::{ConfigFormat, ConfigScope, ServerConfig, SourceRef};
use super::normalize::{normalize, FileInput, FileReport, NormalizeInput, NormalizeResult};
use super::problem::{Problem, Severity};
use super::project_approval::{approval_paths, ApprovalFacts};
use crate::vec_map::{VecMap, VecSet};
use serde::{Deserialize, Serialize};

/// OpenCode `{file:...}` references can nest; a few rounds settle every real config.
const MAX_REFERENCE_ROUNDS: u32 = 4;

/// Where a host's config comes from and what it may manage.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigSources {
    pub discovery: DiscoveryInput,
    /// Files named explicitly (CLI `--config`), read as project files.
    #[serde(default)]
    pub explicit_files: Vec<ExplicitFile>,
    /// Stated by every host: VS Code from workspace trust and its setting, the
    /// CLI as "manages everything" (`HostPolicy::default()`).
    #[serde(default)]
    pub policy: HostPolicy,
    /// The user's approved tool definitions (`$XDG_CONFIG_HOME/lazy-mcp/approved-definitions.json`):
    /// read and watched with the config files, so an approval given in another
    /// process applies here too. None: baselines kept in memory only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved_definitions_file: Option<String>,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExplicitFile {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<ConfigFormat>,
}

/// One path as the host read it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileRead {
    pub path: String,
    /// `None`: missing, or `unreadable` says what the path is.
    #[serde(default)]
    pub content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
    /// The file actually opened (symbolic links resolved) when that is not `path`:
    /// a `{file:...}` is refused when either names a refused file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub real_path: Option<String>,
}

/// A finished load: every configured server and the report, plus what the
/// host policy left out and why.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigReport {
    #[serde(flatten)]
    pub result: NormalizeResult,
    pub unmanaged: Vec<Unmanaged>,
    /// See `host_policy::Selection::start_client_definitions`.
    pub start_client_definitions: bool,
    pub notices: Vec<String>,
    /// Project servers waiting for the user's approval (not managed).
    #[serde(default)]
    pub needs_approval: Vec<ApprovalRequest>,
    /// Every server of a project file and where its approval stands.
    #[serde(default)]
    pub project_servers: Vec<ProjectServer>,
    /// Where approvals are kept (`config/project_approval.rs`): the host writes
    /// the core's `trustEdit` there.
    #[serde(default)]
    pub approvals_file: String,
}

/// What the load needs next.
#[derive(Debug, PartialEq)]
pub enum LoadStep {
    /// Read these paths and answer with `files_read(round, …)`. `watch`: the
    /// paths to watch from now on, when that set grew (a path is watched before
    /// it is read, so an edit made while a load is under way is never missed).
    Read {
        round: u64,
        paths: Vec<String>,
        watch: Option<Vec<String>>,
    },
    /// Done: the servers to manage; `watch` when the set of paths changed.
    Done {
        report: Box<ConfigReport>,
        managed: Vec<ServerConfig>,
        watch: Option<Vec<String>>,
    },
    /// Waiting for other reads.
    Wait,
}

#[derive(Debug, Default)]
pub struct ConfigLoad {
    sources: Option<ConfigSources>,
    /// The latest contents of every path read.
    read: VecMap<String, FileRead>,
    /// Paths `{file:}` references asked for (not in the plan).
    references: VecSet<String>,
    /// The last version of each file that parsed.
    last_good: VecMap<String, String>,
    /// Rounds asked and not answered yet, with the paths each asked for.
    outstanding: VecMap<u64, VecSet<String>>,
    next_round: u64,
    reference_rounds: u32,
    watched: Vec<String>,
    /// The approved-definitions file was read since the engine last took it.
    approvals_fresh: bool,
    /// The last finished load's report (empty before the first): MCP
    /// Diagnostics and the snapshot read it here, the host is sent a copy.
    report: ConfigReport,
}

impl ConfigLoad {
    /// The last finished load's report, until the next one finishes.
    pub fn report(&self) -> &ConfigReport {
        &self.report
    }

    /// The discovery input of the current sources (home, workspace folders).
    pub fn discovery(&self) -> Option<&DiscoveryInput> {
        self.sources.as_ref().map(|s| &s.discovery)
    }

    /// `file:line` as MCP Diagnostics shows it, relative to the current
    /// sources' workspace folders or home directory.
    pub fn source_label(&self, source: &SourceRef) -> String {
        let (folders, home) = self.discovery().map_or((&[][..], ""), |d| {
            (&d.workspace_folders[..], d.home.as_str())
        });
        format!(
            "{}:{}",
            crate::display_path::display_path_in(folders, home, &source.file),
            source.line
        )
    }

    /// New sources (start, folders or policy changed): read every file.
    pub fn set_sources(&mut self, sources: ConfigSources) -> LoadStep {
        self.sources = Some(sources);
        self.references.clear();
        self.reference_rounds = 0;
        let paths = self.all_paths();
        self.ask(paths)
    }

    /// How the host's user approves project servers.
    pub fn approval_via(&self) -> crate::config::host_policy::ApprovalVia {
        self.sources
            .as_ref()
            .map(|s| s.policy.approval_via)
            .unwrap_or_default()
    }

    /// The host's workspace trust (true for a host without it, the CLI).
    pub fn workspace_trusted(&self) -> bool {
        self.sources
            .as_ref()
            .is_none_or(|s| s.policy.workspace_trusted)
    }

    /// Files changed on disk (empty: re-read all).
    pub fn files_changed(&mut self, paths: Vec<String>) -> LoadStep {
        if self.sources.is_none() {
            return LoadStep::Wait;
        }
        self.reference_rounds = 0;
        let paths = if paths.is_empty() {
            self.all_paths()
        } else {
            paths
        };
        self.ask(paths)
    }

    /// The host's answer to a `Read`. Answers of earlier rounds are kept too:
    /// they are what the disk held when read. Only what was asked is taken: an
    /// answer to a round that is not outstanding, or for a path the round did
    /// not ask for, would stand for a file the core never reads again.
    pub fn files_read(&mut self, round: u64, files: Vec<FileRead>) -> LoadStep {
        let Some(asked) = self.outstanding.remove(&round) else {
            return LoadStep::Wait;
        };
        let approvals = self
            .sources
            .as_ref()
            .and_then(|s| s.approved_definitions_file.clone());
        for file in files.into_iter().filter(|f| asked.contains(&f.path)) {
            if approvals.as_ref() == Some(&file.path) {
                self.approvals_fresh = true;
            }
            self.read.insert(file.path.clone(), file);
        }
        if !self.outstanding.is_empty() {
            return LoadStep::Wait;
        }
        let Some(sources) = &self.sources else {
            return LoadStep::Wait;
        };
        let input = self.normalize_input(sources);
        let result = normalize(&input);
        let missing: Vec<String> = result
            .needs_files
            .iter()
            .filter(|p| !self.read.contains_key(*p))
            .cloned()
            .collect();
        if !missing.is_empty() && self.reference_rounds < MAX_REFERENCE_ROUNDS {
            self.reference_rounds += 1;
            self.references.extend(missing.iter().cloned());
            return self.ask(missing);
        }
        self.finish(input, result)
    }

    fn finish(&mut self, input: NormalizeInput, result: NormalizeResult) -> LoadStep {
        let mut result = self.with_last_good(&input, result);
        let policy = self
            .sources
            .as_ref()
            .map(|s| s.policy.clone())
            .unwrap_or_default();
        let approvals = ApprovalFacts::read(&input.discovery, |path| {
            self.read.get(path).and_then(|f| f.content.as_deref())
        });
        if let Some(message) = &approvals.approvals_error {
            result.problems.push(Problem {
                severity: Severity::Warning,
                file: approvals.approvals_path.clone(),
                line: 0,
                column: 0,
                server: None,
                field: None,
                message: message.clone(),
            });
        }
        let selection = select_servers(&result.servers, &policy, &approvals);
        let watch = self.watch_set();
        self.report = ConfigReport {
            result,
            unmanaged: selection.unmanaged,
            start_client_definitions: selection.start_client_definitions,
            notices: selection.notices,
            needs_approval: selection.needs_approval,
            project_servers: selection.project_servers,
            approvals_file: approvals.approvals_path.clone(),
        };
        LoadStep::Done {
            report: Box::new(self.report.clone()),
            managed: selection.managed,
            watch,
        }
    }

    /// A file that stopped parsing keeps contributing its last good version;
    /// the report still says what is wrong with the saved file.
    fn with_last_good(
        &mut self,
        input: &NormalizeInput,
        result: NormalizeResult,
    ) -> NormalizeResult {
        let broken: VecMap<String, FileReport> = result
            .files
            .iter()
            .filter(|f| f.found && f.error.is_some() && self.last_good.contains_key(&f.path))
            .map(|f| (f.path.clone(), f.clone()))
            .collect();
        let result = if broken.is_empty() {
            result
        } else {
            let mut patched_input = input.clone();
            for file in &mut patched_input.files {
                if broken.contains_key(&file.path) {
                    file.content = self.last_good.get(&file.path).cloned();
                    file.unreadable = None;
                }
            }
            let mut patched = normalize(&patched_input);
            let mut problems: Vec<_> = broken.values().filter_map(|f| f.error.clone()).collect();
            problems.append(&mut patched.problems);
            patched.problems = problems;
            for file in &mut patched.files {
                if let Some(report) = broken.get(&file.path) {
                    file.using_last_good = true;
                    file.error = report.error.clone();
                    file.syntax_error = report.syntax_error;
                }
            }
            patched
        };
        for report in &result.files {
            let content = input
                .files
                .iter()
                .find(|f| f.path == report.path)
                .and_then(|f| f.content.as_ref());
            match content {
                Some(content)
                    if report.found && report.error.is_none() && !report.using_last_good =>
                {
                    self.last_good.insert(report.path.clone(), content.clone());
                }
                _ if !report.found => {
                    self.last_good.remove(&report.path);
                }
                _ => {}
            }
        }
        result
    }

    fn ask(&mut self, paths: Vec<String>) -> LoadStep {
        let round = self.next_round;
        self.next_round = self.next_round.saturating_add(1);
        self.outstanding
            .insert(round, paths.iter().cloned().collect());
        LoadStep::Read {
            round,
            paths,
            watch: self.watch_set(),
        }
    }

    /// Every path a load reads, when it differs from what the host watches.
    fn watch_set(&mut self) -> Option<Vec<String>> {
        let watched = self.all_paths();
        (watched != self.watched).then(|| {
            self.watched = watched.clone();
            watched
        })
    }

    /// The plan, the explicit files, the references, then the files approvals
    /// are read from: what a load reads and the host watches.
    fn all_paths(&self) -> Vec<String> {
        let Some(sources) = &self.sources else {
            return Vec::new();
        };
        let mut seen = VecSet::new();
        discovery_plan(&sources.discovery)
            .into_iter()
            .map(|c| c.path)
            .chain(sources.explicit_files.iter().map(|f| f.path.clone()))
            .chain(self.references.iter().cloned())
            .chain(approval_paths(&sources.discovery))
            .chain(sources.approved_definitions_file.iter().cloned())
            .filter(|p| seen.insert(p.clone()))
            .collect()
    }

    /// The approved-definitions file, when it was read since the last call (a
    /// load for another file's edit must not hand back an older copy than the
    /// engine already has).
    pub fn take_approved_definitions(&mut self) -> Option<&FileRead> {
        if !std::mem::take(&mut self.approvals_fresh) {
            return None;
        }
        let path = self.sources.as_ref()?.approved_definitions_file.as_ref()?;
        self.read.get(path)
    }

    fn normalize_input(&self, sources: &ConfigSources) -> NormalizeInput {
        let read = |path: &str| -> FileInput {
            let file = self.read.get(path);
            FileInput {
                path: path.to_string(),
                content: file.and_then(|f| f.content.clone()),
                unreadable: file.and_then(|f| f.unreadable.clone()),
                format: None,
                scope: None,
                workspace_folder: None,
            }
        };
        let mut files: Vec<FileInput> = discovery_plan(&sources.discovery)
            .iter()
            .map(|c| read(&c.path))
            .collect();
        files.extend(sources.explicit_files.iter().map(|f| FileInput {
            format: f.format,
            scope: Some(ConfigScope::Project),
            ..read(&f.path)
        }));
        let mut extra_files = crate::vec_map::VecMap::new();
        let mut unreadable_files = crate::vec_map::VecMap::new();
        let mut real_paths = crate::vec_map::VecMap::new();
        for path in &self.references {
            if let Some(real) = self.read.get(path).and_then(|f| f.real_path.as_ref()) {
                real_paths.insert(path.clone(), real.clone());
            }
            match self.read.get(path) {
                Some(FileRead {
                    unreadable: Some(what),
                    ..
                }) => {
                    unreadable_files.insert(path.clone(), what.clone());
                }
                Some(file) => {
                    extra_files.insert(path.clone(), file.content.clone());
                }
                None => {}
            }
        }
        NormalizeInput {
            discovery: sources.discovery.clone(),
            files,
            extra_files,
            unreadable_files,
            real_paths,
        }
    }
}
