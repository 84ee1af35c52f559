//! Where config problems are shown in an editor host: which become squiggles
//! (Problems panel), which deserve a notification, and what goes to the log.
//! Rules:
//! - Lazy MCP reads saved files only, so every problem is about saved content;
//!   unsaved edits change nothing here.
//! - A file shown in an editor tab as `json`/`jsonc` is validated by the
//!   editor's own JSON language service: its syntax error is not reported a
//!   second time. That service reports a file only while a tab shows it (it
//!   drops the file's diagnostics when the tab closes, though VS Code keeps the
//!   document loaded), so a closed file's problem is ours again: a still-broken
//!   file never looks fixed. Problems only Lazy MCP knows (a server without a
//!   command, an unset variable…) are squiggled in any case.
//! - A notification only for errors that are new since the last presentation
//!   (`previous`) and in files no tab shows (the user is not looking at them:
//!   startup, another tool edited them). An unchanged problem is never
//!   announced again: not when another file gets fixed, not on Sync Config.
//!   The notification names every file as Diagnostics does (`~/…`, or relative
//!   to the workspace).
//! - The log gets every problem when it appears and a line when it is gone.

use crate::config::{FileReport, Problem, Severity};
use crate::diagnostics::{display_path, ReportContext};
use crate::engine::LogLevel;
use serde::{Deserialize, Serialize};

/// A document open in the editor.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OpenDocument {
    pub path: String,
    /// The editor's language id (`json`, `jsonc`, …).
    pub language_id: String,
    /// Shown in an editor tab now (a document can stay loaded after its tab
    /// closed; the editor's JSON checker then no longer reports it).
    pub in_tab: bool,
}

// Read by hand (`presentation_input_json.rs`), not derived.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PresentationInput {
    pub problems: Vec<Problem>,
    pub files: Vec<FileReport>,
    pub open_documents: Vec<OpenDocument>,
    /// The `known` of the last presentation after a config load: what was
    /// already logged and announced.
    pub previous: Vec<Problem>,
    /// To name files as Diagnostics does (`~/…`, workspace-relative).
    pub home: String,
    pub workspace_folders: Vec<String>,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Presentation {
    /// Shown as squiggles in their files.
    pub squiggles: Vec<Problem>,
    /// New errors worth a notification (in files no tab shows).
    pub notify: Vec<Problem>,
    /// The notification's text naming every file in `notify`, if any.
    pub notification: Option<String>,
    /// Lines for the log: problems that appeared, and problems that are gone.
    pub log: Vec<ProblemLogLine>,
    /// Pass back as `previous` with the next config load's presentation.
    pub known: Vec<Problem>,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProblemLogLine {
    pub level: LogLevel,
    pub message: String,
}

pub fn present_problems(input: &PresentationInput) -> Presentation {
    let in_tab = |path: &str| {
        input
            .open_documents
            .iter()
            .find(|d| d.path == path && d.in_tab)
    };
    let validated_by_editor = |p: &Problem| {
        in_tab(&p.file).is_some_and(|d| matches!(d.language_id.as_str(), "json" | "jsonc"))
            && input
                .files
                .iter()
                .any(|f| f.path == p.file && f.syntax_error && f.error.as_ref() == Some(p))
    };
    let shown: Vec<&Problem> = input
        .problems
        .iter()
        .filter(|p| p.severity != Severity::Info)
        .collect();
    let is_new = |p: &Problem| !input.previous.contains(p);
    let names = ReportContext {
        home: input.home.clone(),
        workspace_folders: input.workspace_folders.clone(),
        ..ReportContext::default()
    };
    let place = |p: &Problem| match p.line {
        0 => display_path(&names, &p.file),
        line => format!("{}:{line}:{}", display_path(&names, &p.file), p.column),
    };
    let notify: Vec<Problem> = shown
        .iter()
        .filter(|p| p.severity == Severity::Error && in_tab(&p.file).is_none() && is_new(p))
        .map(|p| (*p).clone())
        .collect();
    let notification = match notify.as_slice() {
        [] => None,
        [one] => Some(format!("Lazy MCP: {}: {}", place(one), one.message)),
        several => Some(format!(
            "Lazy MCP: {} config problems: {}",
            several.len(),
            several
                .iter()
                .map(|p| format!("{}: {}", place(p), p.message))
                .collect::<Vec<_>>()
                .join("; ")
        )),
    };
    let mut log: Vec<ProblemLogLine> = shown
        .iter()
        .filter(|p| is_new(p))
        .map(|p| ProblemLogLine {
            level: if p.severity == Severity::Error {
                LogLevel::Error
            } else {
                LogLevel::Warn
            },
            message: format!("config problem: {}: {}", place(p), p.message),
        })
        .collect();
    log.extend(
        input
            .previous
            .iter()
            .filter(|p| !shown.contains(p))
            .map(|p| ProblemLogLine {
                level: LogLevel::Info,
                message: format!("config problem gone: {}: {}", place(p), p.message),
            }),
    );
    Presentation {
        squiggles: shown
            .iter()
            .filter(|p| !validated_by_editor(p))
            .map(|p| (*p).clone())
            .collect(),
        notify,
        notification,
        log,
        known: shown.iter().map(|p| (*p).clone()).collect(),
    }
}

/// [`present_problems`] over JSON; unreadable input presents nothing.
pub fn present_problems_json(input_json: &str) -> String {
    let input: PresentationInput = serde_json::from_str(input_json).unwrap_or_default();
    serde_json::to_string(&present_problems(&input)).unwrap_or_else(|_| "{}".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{normalize, NormalizeInput};

    fn broken_and_semantic() -> PresentationInput {
        let input: NormalizeInput = serde_json::from_value(serde_json::json!({
            "home": "/h", "workspaceFolders": ["/w"], "platform": "linux", "env": {},
            "files": [
                {"path": "/w/.mcp.json", "content": "{\"mcpServers\": {\"a\": {\"command\": \"x\"}\n \"b\": {}}}"},
                {"path": "/w/opencode.json", "content": "{\"mcp\": {\"c\": {\"type\": \"local\"}}}"}
            ]
        }))
        .unwrap_or_else(|e| panic!("fixture: {e}"));
        let result = normalize(&input);
        PresentationInput {
            problems: result.problems,
            files: result.files,
            open_documents: vec![],
            home: "/h".into(),
            workspace_folders: vec!["/w".into()],
            ..PresentationInput::default()
        }
    }

    #[test]
    fn a_closed_file_gets_squiggles_and_a_notification() {
        let input = broken_and_semantic();
        assert!(
            input.files.iter().any(|f| f.syntax_error),
            "{:?}",
            input.files
        );
        let shown = present_problems(&input);
        assert_eq!(shown.squiggles.len(), 2, "{shown:?}");
        assert_eq!(shown.notify.len(), 2);
    }

    #[test]
    fn an_open_json_file_keeps_only_what_the_editor_does_not_report_and_no_toast() {
        let mut input = broken_and_semantic();
        input.open_documents = vec![
            OpenDocument {
                path: "/w/.mcp.json".into(),
                language_id: "json".into(),
                in_tab: true,
            },
            OpenDocument {
                path: "/w/opencode.json".into(),
                language_id: "jsonc".into(),
                in_tab: true,
            },
        ];
        let shown = present_problems(&input);
        // The syntax error is VS Code's to report; the missing command is ours.
        assert_eq!(shown.squiggles.len(), 1, "{shown:?}");
        assert_eq!(shown.squiggles[0].file, "/w/opencode.json");
        assert!(shown.notify.is_empty(), "no toast for files being edited");
    }

    #[test]
    fn an_open_file_in_another_language_still_gets_our_syntax_squiggle() {
        let mut input = broken_and_semantic();
        input.open_documents = vec![OpenDocument {
            path: "/w/.mcp.json".into(),
            language_id: "plaintext".into(),
            in_tab: true,
        }];
        let shown = present_problems(&input);
        assert_eq!(shown.squiggles.len(), 2);
        assert_eq!(shown.notify.len(), 1);
    }

    #[test]
    fn a_json_file_loaded_but_no_longer_in_a_tab_is_squiggled_by_us_again() {
        let mut input = broken_and_semantic();
        input.open_documents = vec![OpenDocument {
            path: "/w/.mcp.json".into(),
            language_id: "json".into(),
            in_tab: false,
        }];
        let shown = present_problems(&input);
        assert_eq!(shown.squiggles.len(), 2, "{shown:?}");
        assert!(shown.squiggles.iter().any(|p| p.file == "/w/.mcp.json"));
    }

    #[test]
    fn the_notification_names_every_file_relative_and_an_unchanged_problem_is_not_announced_again()
    {
        let input = broken_and_semantic();
        let first = present_problems(&input);
        let text = first.notification.clone().unwrap_or_default();
        assert!(text.starts_with("Lazy MCP: 2 config problems: "), "{text}");
        assert!(text.contains(".mcp.json:2:2: "), "{text}");
        assert!(text.contains("opencode.json"), "{text}");
        assert!(!text.contains("/w/"), "workspace-relative: {text}");
        assert!(!text.contains("more)"), "no unnamed rest: {text}");
        assert_eq!(first.log.len(), 2, "{:?}", first.log);

        // The same problems again (Sync Config): nothing announced, nothing logged.
        let again = present_problems(&PresentationInput {
            previous: first.known.clone(),
            ..input.clone()
        });
        assert_eq!(again.notification, None);
        assert!(again.log.is_empty(), "{:?}", again.log);

        // One file fixed: the other's unchanged error is not announced again; the fix is logged.
        let fixed = PresentationInput {
            problems: input
                .problems
                .iter()
                .filter(|p| p.file != "/w/opencode.json")
                .cloned()
                .collect(),
            previous: first.known.clone(),
            ..input.clone()
        };
        let after_fix = present_problems(&fixed);
        assert_eq!(after_fix.notification, None);
        assert_eq!(after_fix.log.len(), 1, "{:?}", after_fix.log);
        assert!(after_fix.log[0]
            .message
            .starts_with("config problem gone: opencode.json"));
    }

    #[test]
    fn a_user_file_is_named_with_a_tilde() {
        let mut input = broken_and_semantic();
        for p in &mut input.problems {
            p.file = p.file.replace("/w/", "/h/.copilot/");
        }
        let text = present_problems(&input).notification.unwrap_or_default();
        assert!(text.contains("~/.copilot/.mcp.json:2:2"), "{text}");
    }
}
