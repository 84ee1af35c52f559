//! Where config problems are shown in an editor host: which become squiggles
//! (Problems panel) and which also deserve a notification. Rules:
//! - Lazy MCP reads saved files only, so every problem is about saved content;
//!   unsaved edits change nothing here.
//! - A file open in the editor as `json`/`jsonc` is validated by the editor's
//!   own JSON language service: its syntax error is not reported a second time.
//!   Problems only Lazy MCP knows (a server without a command, an unset
//!   variable…) are still squiggled there.
//! - A notification only for errors in files that are not open in the editor
//!   (the user is not looking at them: startup, another tool edited them); the
//!   file being edited shows its errors in place, never as a toast per save.

use super::{FileReport, Problem, Severity};
use serde::{Deserialize, Serialize};

/// A document open in the editor.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OpenDocument {
    pub path: String,
    /// The editor's language id (`json`, `jsonc`, …).
    pub language_id: String,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PresentationInput {
    pub problems: Vec<Problem>,
    pub files: Vec<FileReport>,
    pub open_documents: Vec<OpenDocument>,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Presentation {
    /// Shown as squiggles in their files.
    pub squiggles: Vec<Problem>,
    /// Errors worth a notification (the host shows the first and the count).
    pub notify: Vec<Problem>,
}

pub fn present_problems(input: &PresentationInput) -> Presentation {
    let open = |path: &str| input.open_documents.iter().find(|d| d.path == path);
    let validated_by_editor = |p: &Problem| {
        open(&p.file).is_some_and(|d| matches!(d.language_id.as_str(), "json" | "jsonc"))
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
    Presentation {
        squiggles: shown
            .iter()
            .filter(|p| !validated_by_editor(p))
            .map(|p| (*p).clone())
            .collect(),
        notify: shown
            .iter()
            .filter(|p| p.severity == Severity::Error && open(&p.file).is_none())
            .map(|p| (*p).clone())
            .collect(),
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
            },
            OpenDocument {
                path: "/w/opencode.json".into(),
                language_id: "jsonc".into(),
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
        }];
        let shown = present_problems(&input);
        assert_eq!(shown.squiggles.len(), 2);
        assert_eq!(shown.notify.len(), 1);
    }
}
