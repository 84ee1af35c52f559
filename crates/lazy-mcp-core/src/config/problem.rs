//! Problems found while reading config files: what, where (file, line, column,
//! server, field) and how bad. Messages never contain a secret value: they name
//! keys, variables and fields, never the values behind them.

use serde::{Deserialize, Serialize};

/// How bad a problem is. `error`: the file or server was not loaded;
/// `warning`: loaded, but probably not as intended; `info`: a note (e.g. an
/// unknown key that was ignored).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

/// One problem, positioned as precisely as the input allows.
// Read by hand (`problem_json.rs`), not derived.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Problem {
    pub severity: Severity,
    /// Path of the file, or "" for a problem with the input itself.
    pub file: String,
    /// 1-based line and column (columns count Unicode scalar values);
    /// 0 when the problem has no position.
    pub line: u32,
    pub column: u32,
    /// Server entry the problem belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// Field inside the entry, e.g. `args[2]` or `env.API_KEY`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    pub message: String,
}
