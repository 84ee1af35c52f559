//! Config discovery and normalization: every MCP config format users have,
//! read with the semantics of its own tool, merged into one list of servers.
//!
//! Code map:
//! - `discovery`: which files to read, in precedence order (`discovery_plan`).
//! - `normalize`: file contents → merged servers + report (`normalize`).
//! - `formats/*`: each tool's vocabulary; `entry`: reading one server entry.
//! - `variables`: each tool's variable syntax; `paths`: platform paths.
//! - `jsonc_positions`: JSONC parsing and line:column.
//! - `merge`: precedence and shadowing.
//! - `load`: one load as "files wanted → files read" rounds with the host,
//!   last good versions of half-typed files, host policy.
//! - `infer_format`: the format of a file given outside the plan (CLI `--config`).
//! - `fingerprint`: launch-config hash; `redact`: display form without secrets.
//! - `project_approval`: which project-defined servers the user approved
//!   (Lazy MCP's approvals file, Claude Code's answers).
//! - `model`: the normalized shape (contract with the lifecycle engine).
//!
//! No I/O: the host reads files and passes contents and the environment in.

mod discovery;
mod discovery_json;
mod entry;
mod fingerprint;
mod formats;
pub mod host_policy;
mod infer_format;
mod jsonc_positions;
pub mod load;
mod merge;
pub mod model;
mod model_json;
mod normalize;
mod paths;
mod problem;
mod problem_json;
pub mod project_approval;
mod redact;
mod server_config_json;
mod variables;

pub use discovery::{discovery_plan, CandidateFile, DiscoveryInput};
pub use fingerprint::fingerprint;
pub use merge::Shadowed;
pub use model::{ConfigFormat, ConfigScope, ServerConfig, SourceRef, ToolFilter, Transport};
pub use normalize::{normalize, FileInput, FileReport, NormalizeInput, NormalizeResult};
pub use problem::{Problem, Severity};
pub use redact::{redact_url, resolved_values, MASK};

/// `normalize` over JSON: a `NormalizeInput` in, a `NormalizeResult` out. Input
/// that is not a valid `NormalizeInput` gives a result with one error problem
/// (the message names the position, never the offending value).
pub fn normalize_json(input_json: &str) -> String {
    let result = match serde_json::from_str::<NormalizeInput>(input_json) {
        Ok(input) => normalize(&input),
        Err(error) => NormalizeResult {
            problems: vec![input_problem("NormalizeInput", &error)],
            ..NormalizeResult::default()
        },
    };
    to_json(&result)
}

/// `discovery_plan` over JSON: a `DiscoveryInput` in, an array of
/// `CandidateFile` out; invalid input gives `{"error": {Problem}}`.
pub fn discovery_plan_json(input_json: &str) -> String {
    match serde_json::from_str::<DiscoveryInput>(input_json) {
        Ok(input) => to_json(&discovery_plan(&input)),
        Err(error) => {
            to_json(&serde_json::json!({ "error": input_problem("DiscoveryInput", &error) }))
        }
    }
}

fn input_problem(what: &str, error: &serde_json::Error) -> Problem {
    let kind = match error.classify() {
        serde_json::error::Category::Io => "could not be read",
        serde_json::error::Category::Syntax => "is not valid JSON",
        serde_json::error::Category::Data => "does not have the expected shape",
        serde_json::error::Category::Eof => "ends too early",
    };
    Problem {
        severity: Severity::Error,
        file: String::new(),
        line: u32::try_from(error.line()).unwrap_or(u32::MAX),
        column: u32::try_from(error.column()).unwrap_or(u32::MAX),
        server: None,
        field: None,
        message: format!("the {what} {kind}"),
    }
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "{}".to_string())
}
