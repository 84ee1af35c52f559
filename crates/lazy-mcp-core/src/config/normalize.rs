//! From file contents to one merged server list, with a report of every file
//! looked at, every problem and every shadowed definition.

use super::discovery::{discovery_plan, format_rank, CandidateFile, DiscoveryInput};
use super::entry::EntryReader;
use super::fingerprint::fingerprint;
use super::formats::{self, locate_entries, FileContext};
use super::infer_format::infer_format;
use super::jsonc_positions::{key_range, parse_jsonc, strip_bom, value_range, LineIndex};
use super::merge::{merge, Definition, Rank, Shadowed};
use super::model::{ConfigFormat, ConfigScope, ServerConfig, SourceRef};
use super::paths::Platform;
use super::problem::{Problem, Severity};
use super::redact::rule_masked_values;
use super::variables::{VariableContext, VariableSyntax};
use crate::vec_map::{VecMap, VecSet};
use jsonc_parser::ast::Value;
use serde::{Deserialize, Serialize};

/// One file as the host read it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileInput {
    pub path: String,
    /// `None`: the file does not exist (or is `unreadable`).
    #[serde(default)]
    pub content: Option<String>,
    /// The path exists but is not read: what it is, as the host found it
    /// ("is a directory", "is a symbolic link loop", "is a FIFO", "is larger
    /// than 4 MB", ...). Reported as an error problem naming the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
    /// Only for a file outside the discovery plan: how to read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<ConfigFormat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<ConfigScope>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_folder: Option<String>,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NormalizeInput {
    /// home, workspaceFolders, platform, env, vscodeUserMcpJson, sources
    /// (files of a format not in `sources` are skipped, even when passed).
    #[serde(flatten)]
    pub discovery: DiscoveryInput,
    #[serde(default)]
    pub files: Vec<FileInput>,
    /// Contents of files referenced by OpenCode `{file:...}` (`None` = missing).
    #[serde(default)]
    pub extra_files: VecMap<String, Option<String>>,
    /// `{file:...}` paths that exist but were not read, and what they are.
    #[serde(default, skip_serializing_if = "VecMap::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<VecMap<String, String>>", optional))]
    pub unreadable_files: VecMap<String, String>,
    /// `{file:...}` paths that are symbolic links, and the file they resolve to.
    #[serde(default, skip_serializing_if = "VecMap::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<VecMap<String, String>>", optional))]
    pub real_paths: VecMap<String, String>,
}

/// What happened to one file.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileReport {
    pub path: String,
    pub format: ConfigFormat,
    pub scope: ConfigScope,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_folder: Option<String>,
    pub loaded_by_vscode: bool,
    pub found: bool,
    /// Server entries loaded from this file (before merging).
    pub server_count: usize,
    /// Why the whole file contributed nothing (syntax error, wrong shape).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Problem>,
    /// `error` is a JSON syntax error (what a JSON editor reports by itself).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub syntax_error: bool,
    /// The file is broken right now (`error`) and its last good version is
    /// used instead (`config::load`), so its servers keep running.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub using_last_good: bool,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NormalizeResult {
    /// Merged, sorted by name.
    pub servers: Vec<ServerConfig>,
    pub files: Vec<FileReport>,
    pub problems: Vec<Problem>,
    pub shadowed: Vec<Shadowed>,
    /// OpenCode `{file:...}` paths to read and pass in `extraFiles`; the
    /// servers that use them load on the next call.
    pub needs_files: Vec<String>,
}

pub fn normalize(input: &NormalizeInput) -> NormalizeResult {
    let platform = Platform::parse(&input.discovery.platform);
    let plan = discovery_plan(&DiscoveryInput {
        sources: None,
        ..input.discovery.clone()
    });
    let mut state = State {
        input,
        platform,
        problems: Vec::new(),
        needs_files: VecSet::new(),
        definitions: Vec::new(),
        files: Vec::new(),
    };
    for file in &input.files {
        let planned = plan
            .iter()
            .enumerate()
            .find(|(_, candidate)| platform.same_path(&candidate.path, &file.path));
        let format = file.format.or_else(|| {
            planned
                .is_none()
                .then(|| infer_format(&file.path, file.content.as_deref()))
                .flatten()
        });
        let (file_order, candidate) = match (planned, format) {
            (Some((index, candidate)), None) => (index, candidate.clone()),
            (planned, Some(format)) => (
                planned.map_or(plan.len(), |(index, _)| index),
                CandidateFile {
                    path: file.path.clone(),
                    format,
                    scope: file.scope.unwrap_or(ConfigScope::User),
                    workspace_folder: file.workspace_folder.clone(),
                    loaded_by_vscode: planned.is_some_and(|(_, c)| c.loaded_by_vscode),
                },
            ),
            (None, None) if file.unreadable.is_some() => {
                let reason = file.unreadable.as_deref().unwrap_or_default();
                state.problems.push(unreadable_problem(&file.path, reason));
                continue;
            }
            (None, None) => {
                state.problems.push(Problem {
                    severity: Severity::Warning,
                    file: file.path.clone(),
                    line: 0,
                    column: 0,
                    server: None,
                    field: None,
                    message: "not a known MCP config location, and neither its name nor its contents tell which tool it is for; give its `format`"
                        .to_string(),
                });
                continue;
            }
        };
        let wanted = input
            .discovery
            .sources
            .as_ref()
            .is_none_or(|sources| sources.contains(&candidate.format));
        if wanted {
            state.read_file(file, &candidate, file_order);
        }
    }
    let (servers, shadowed) = merge(state.definitions, platform);
    NormalizeResult {
        servers,
        files: state.files,
        problems: state.problems,
        shadowed,
        needs_files: state.needs_files.into_iter().collect(),
    }
}

/// A config path that exists but is not a file the host reads.
fn unreadable_problem(path: &str, reason: &str) -> Problem {
    Problem {
        severity: Severity::Error,
        file: path.to_string(),
        line: 0,
        column: 0,
        server: None,
        field: None,
        message: format!(
            "this path {reason}; it is ignored (a config file must be a regular file of at most 4 MB)"
        ),
    }
}

struct State<'i> {
    input: &'i NormalizeInput,
    platform: Platform,
    problems: Vec<Problem>,
    needs_files: VecSet<String>,
    definitions: Vec<Definition>,
    files: Vec<FileReport>,
}

/// How a syntax error's message starts (`FileReport::syntax_error`).
const SYNTAX_ERROR: &str = "syntax error: ";

impl State<'_> {
    fn read_file(&mut self, file: &FileInput, candidate: &CandidateFile, file_order: usize) {
        let mut report = FileReport {
            path: file.path.clone(),
            format: candidate.format,
            scope: candidate.scope,
            workspace_folder: candidate.workspace_folder.clone(),
            loaded_by_vscode: candidate.loaded_by_vscode,
            found: file.content.is_some() || file.unreadable.is_some(),
            server_count: 0,
            error: None,
            syntax_error: false,
            using_last_good: false,
        };
        if let Some(reason) = &file.unreadable {
            let problem = unreadable_problem(&file.path, reason);
            self.problems.push(problem.clone());
            report.error = Some(problem);
        } else if let Some(content) = &file.content {
            match self.read_content(strip_bom(content), candidate, file_order) {
                Ok(count) => report.server_count = count,
                Err(problem) => {
                    self.problems.push(problem.clone());
                    report.syntax_error = problem.message.starts_with(SYNTAX_ERROR);
                    report.error = Some(problem);
                }
            }
        }
        self.files.push(report);
    }

    /// Load the file's entries; `Err` when the file as a whole is unusable.
    fn read_content(
        &mut self,
        text: &str,
        candidate: &CandidateFile,
        file_order: usize,
    ) -> Result<usize, Problem> {
        let lines = LineIndex::new(text);
        let file_problem = |offset: usize, message: String| {
            let (line, column) = lines.position(offset);
            Problem {
                severity: Severity::Error,
                file: candidate.path.clone(),
                line,
                column,
                server: None,
                field: None,
                message,
            }
        };
        let root = match parse_jsonc(text) {
            Ok(Some(root)) => root,
            Ok(None) => return Ok(0),
            Err(error) => {
                return Err(file_problem(
                    error.offset,
                    format!(
                        "{SYNTAX_ERROR}{}; the file is ignored until it is fixed",
                        error.message
                    ),
                ))
            }
        };
        let Value::Object(root) = &root else {
            return Err(file_problem(
                value_range(&root).start,
                "the file must contain a JSON object".to_string(),
            ));
        };
        let workspace_folders = &self.input.discovery.workspace_folders;
        let file_ctx = FileContext {
            format: candidate.format,
            scope: candidate.scope,
            path: &candidate.path,
            workspace_folder: candidate.workspace_folder.as_deref(),
            workspace_folders,
            platform: self.platform,
        };
        let (sites, locate_problems) = locate_entries(&file_ctx, root);
        if let Some(first) = locate_problems.first() {
            return Err(file_problem(
                value_range(first.at).start,
                first.message.clone(),
            ));
        }

        let rules = formats::rules(candidate.format);
        let input_ids =
            (rules.variables == VariableSyntax::VsCode).then(|| formats::vscode::input_ids(root));
        // Names defined twice in one file: the later definition wins (JSON.parse).
        let mut last_definition: VecMap<(Option<&str>, &str), usize> = VecMap::new();
        for (entry_index, site) in sites.iter().enumerate() {
            last_definition.insert(
                (site.workspace_folder.as_deref(), site.prop.name.as_str()),
                entry_index,
            );
        }
        let mut count = 0;
        for (entry_index, site) in sites.iter().enumerate() {
            let name = site.prop.name.as_str().to_string();
            let key_position = key_range(site.prop);
            let last =
                last_definition.get(&(site.workspace_folder.as_deref(), site.prop.name.as_str()));
            if last != Some(&entry_index) {
                let (line, column) = lines.position(key_position.start);
                self.problems.push(Problem {
                    severity: Severity::Warning,
                    file: candidate.path.clone(),
                    line,
                    column,
                    server: Some(name),
                    field: None,
                    message: "defined again later in this file; the later definition wins"
                        .to_string(),
                });
                continue;
            }
            // `${workspaceFolder}` in a user file means the only folder, if there is one.
            let only_folder = match workspace_folders.as_slice() {
                [only] => Some(only.as_str()),
                _ => None,
            };
            let folder_for_variables = site.workspace_folder.as_deref().or(only_folder);
            let vars = VariableContext {
                syntax: rules.variables,
                platform: self.platform,
                env: &self.input.discovery.env,
                home: &self.input.discovery.home,
                workspace_folder: folder_for_variables,
                workspace_folders,
                config_dir: self.platform.dirname(&candidate.path),
                extra_files: &self.input.extra_files,
                unreadable_files: &self.input.unreadable_files,
                real_paths: &self.input.real_paths,
                input_ids: input_ids.clone(),
                project_file: site.scope != ConfigScope::User,
            };
            let mut reader = EntryReader {
                rules,
                file: &candidate.path,
                lines: &lines,
                vars: &vars,
                server: &name,
                problems: &mut self.problems,
                needs_files: &mut self.needs_files,
                failed: false,
                waiting: false,
                secrets: Vec::new(),
                files: Vec::new(),
            };
            let Some(read) = reader.read(key_position, &site.prop.value) else {
                continue;
            };
            let mut read_files = std::mem::take(&mut reader.files);
            crate::sorting::sort(&mut read_files);
            read_files.dedup();
            let mut secret_values = std::mem::take(&mut reader.secrets);
            secret_values.extend(rule_masked_values(&read.transport));
            crate::sorting::sort(&mut secret_values);
            secret_values.dedup();
            let (line, column) = lines.position(key_position.start);
            let folder_index = site.workspace_folder.as_ref().and_then(|folder| {
                workspace_folders
                    .iter()
                    .position(|f| self.platform.same_path(f, folder))
            });
            let source = SourceRef {
                format: candidate.format,
                scope: site.scope,
                file: candidate.path.clone(),
                line,
                column,
                workspace_folder: site.workspace_folder.clone(),
            };
            let server = ServerConfig {
                name,
                fingerprint: fingerprint(&read.transport),
                transport: read.transport,
                enabled: read.enabled,
                auto_connect: read.auto_connect,
                tools: read.tools,
                timeout_ms: read.timeout_ms,
                tool_exposure: read.tool_exposure,
                oauth: read.oauth,
                source,
                loaded_by_vscode: candidate.loaded_by_vscode,
                secret_values,
                read_files,
            };
            self.definitions.push(Definition {
                rank: Rank {
                    level: u8::from(site.scope == ConfigScope::User),
                    tool: format_rank(candidate.format),
                    within_tool: u8::from(site.scope != ConfigScope::Local),
                    file_order,
                    entry_order: entry_index,
                },
                folder_index,
                server,
            });
            count += 1;
        }
        Ok(count)
    }
}
