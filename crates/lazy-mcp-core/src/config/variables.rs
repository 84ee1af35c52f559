//! Variable substitution, each tool with its own syntax:
//! - Claude Code: `${VAR}`, `${VAR:-default}` in command, args, env, cwd, url,
//!   headers; an unset variable without a default is an error.
//! - Copilot CLI: shell style `$VAR`, `${VAR}`, `${VAR:-default}`, in `env`
//!   and `headers` values only (see `FormatRules::variables_only_in_env_and_headers`);
//!   an unset `${VAR}` is an error, an unset bare `$VAR` becomes empty (warning).
//! - OpenCode: `{env:VAR}` (unset = empty string, as OpenCode does, with a
//!   warning) and `{file:path}` (path relative to the config file's folder,
//!   `~/` = home; contents trimmed). The host reads referenced files.
//! - VS Code: `${env:VAR}` (unset = error), `${workspaceFolder}`,
//!   `${workspaceFolder:name}`, `${workspaceFolderBasename}`, `${userHome}`,
//!   `${pathSeparator}` / `${/}`; `${input:id}` and any other `${...}` are kept
//!   verbatim for the host to resolve when the server connects.
//! - Claude Desktop: no substitution.

use super::paths::Platform;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VariableSyntax {
    Literal,
    Claude,
    Copilot,
    OpenCode,
    VsCode,
}

/// Something noticed while substituting (never carries a value, only names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum VariableNote {
    /// An environment variable is not set; `fatal` when the tool refuses it.
    UnsetEnv { name: String, fatal: bool },
    /// `{file:...}` whose contents the host has not passed yet.
    NeedsFile(String),
    /// `{file:...}` that does not exist.
    MissingFile(String),
    /// `${input:id}` with no such id in the file's `inputs`.
    UnknownInput(String),
    /// A `${...}` kept verbatim because the core cannot resolve it here.
    Unresolved(String),
}

/// Everything substitution needs to know about the file being read.
pub(crate) struct VariableContext<'a> {
    pub syntax: VariableSyntax,
    pub platform: Platform,
    pub env: &'a BTreeMap<String, String>,
    pub home: &'a str,
    /// The folder `${workspaceFolder}` means here (none for a user file in a
    /// multi-root or empty workspace).
    pub workspace_folder: Option<&'a str>,
    pub workspace_folders: &'a [String],
    /// Folder of the config file (OpenCode `{file:...}` paths are relative to it).
    pub config_dir: String,
    pub extra_files: &'a BTreeMap<String, Option<String>>,
    /// Ids declared in VS Code `inputs` (None = not VS Code).
    pub input_ids: Option<BTreeSet<String>>,
}

impl VariableContext<'_> {
    /// `text` with every variable this format knows substituted.
    pub(crate) fn expand(&self, text: &str) -> (String, Vec<VariableNote>) {
        let mut notes = Vec::new();
        let expanded = match self.syntax {
            VariableSyntax::Literal => text.to_string(),
            VariableSyntax::Claude => {
                replace_delimited(text, "${", |inner| self.claude_variable(inner, &mut notes))
            }
            VariableSyntax::Copilot => self.shell_style(text, &mut notes),
            VariableSyntax::VsCode => {
                replace_delimited(text, "${", |inner| self.vscode_variable(inner, &mut notes))
            }
            VariableSyntax::OpenCode => {
                replace_delimited(text, "{", |inner| self.opencode_variable(inner, &mut notes))
            }
        };
        (expanded, notes)
    }

    fn claude_variable(&self, inner: &str, notes: &mut Vec<VariableNote>) -> Option<String> {
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        if !is_variable_name(name) {
            return None;
        }
        match (self.platform.env_var(self.env, name), default) {
            (Some(value), _) => Some(value.to_string()),
            (None, Some(default)) => Some(default.to_string()),
            (None, None) => {
                notes.push(VariableNote::UnsetEnv {
                    name: name.to_string(),
                    fatal: true,
                });
                Some(String::new())
            }
        }
    }

    /// `$VAR` as well as `${VAR}` / `${VAR:-default}`.
    fn shell_style(&self, text: &str, notes: &mut Vec<VariableNote>) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(dollar) = rest.find('$') {
            let (before, from_dollar) = rest.split_at(dollar);
            out.push_str(before);
            let after_dollar = from_dollar.get(1..).unwrap_or("");
            if after_dollar.starts_with('{') {
                let braced =
                    replace_delimited_once(from_dollar, |inner| self.claude_variable(inner, notes));
                out.push_str(&braced.0);
                rest = braced.1;
                continue;
            }
            let name_len = after_dollar
                .char_indices()
                .find(|(i, c)| {
                    !(c.is_ascii_alphanumeric() || *c == '_') || (*i == 0 && c.is_ascii_digit())
                })
                .map_or(after_dollar.len(), |(i, _)| i);
            let name = after_dollar.get(..name_len).unwrap_or("");
            if name.is_empty() {
                out.push('$');
            } else {
                match self.platform.env_var(self.env, name) {
                    Some(value) => out.push_str(value),
                    None => notes.push(VariableNote::UnsetEnv {
                        name: name.to_string(),
                        fatal: false,
                    }),
                }
            }
            rest = after_dollar.get(name_len..).unwrap_or("");
        }
        out.push_str(rest);
        out
    }

    fn vscode_variable(&self, inner: &str, notes: &mut Vec<VariableNote>) -> Option<String> {
        if let Some(name) = inner.strip_prefix("env:") {
            return match self.platform.env_var(self.env, name) {
                Some(value) => Some(value.to_string()),
                None => {
                    notes.push(VariableNote::UnsetEnv {
                        name: name.to_string(),
                        fatal: true,
                    });
                    Some(String::new())
                }
            };
        }
        if let Some(id) = inner.strip_prefix("input:") {
            if let Some(ids) = &self.input_ids {
                if !ids.contains(id) {
                    notes.push(VariableNote::UnknownInput(id.to_string()));
                }
            }
            return None;
        }
        if let Some(folder_name) = inner.strip_prefix("workspaceFolder:") {
            let found = self
                .workspace_folders
                .iter()
                .find(|folder| self.platform.basename(folder) == folder_name);
            if found.is_none() {
                notes.push(VariableNote::Unresolved(format!("${{{inner}}}")));
            }
            return found.cloned();
        }
        match inner {
            "userHome" => Some(self.home.to_string()),
            "pathSeparator" | "/" => Some(self.platform.separator().to_string()),
            "workspaceFolder" | "workspaceRoot" => {
                if self.workspace_folder.is_none() {
                    notes.push(VariableNote::Unresolved(format!("${{{inner}}}")));
                }
                self.workspace_folder.map(str::to_string)
            }
            "workspaceFolderBasename" => {
                if self.workspace_folder.is_none() {
                    notes.push(VariableNote::Unresolved(format!("${{{inner}}}")));
                }
                self.workspace_folder
                    .map(|folder| self.platform.basename(folder))
            }
            _ => None,
        }
    }

    fn opencode_variable(&self, inner: &str, notes: &mut Vec<VariableNote>) -> Option<String> {
        if let Some(name) = inner.strip_prefix("env:") {
            return match self.platform.env_var(self.env, name) {
                Some(value) => Some(value.to_string()),
                None => {
                    notes.push(VariableNote::UnsetEnv {
                        name: name.to_string(),
                        fatal: false,
                    });
                    Some(String::new())
                }
            };
        }
        let reference = inner.strip_prefix("file:")?;
        let path = self.opencode_file_path(reference);
        match self.extra_files.get(&path) {
            Some(Some(contents)) => Some(contents.trim().to_string()),
            Some(None) => {
                notes.push(VariableNote::MissingFile(path));
                Some(String::new())
            }
            None => {
                notes.push(VariableNote::NeedsFile(path));
                Some(String::new())
            }
        }
    }

    /// Absolute path of an OpenCode `{file:...}` reference.
    pub(crate) fn opencode_file_path(&self, reference: &str) -> String {
        if let Some(rest) = reference.strip_prefix("~/") {
            return self.platform.join(self.home, rest);
        }
        if self.platform.is_absolute(reference) {
            return reference.to_string();
        }
        self.platform.join(&self.config_dir, reference)
    }
}

/// `[A-Za-z_][A-Za-z0-9_]*`
fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `text` starts with `${`: the replacement of that one variable (or the
/// literal `${` when it is not one), and the rest of the text after it.
fn replace_delimited_once(
    text: &str,
    resolve: impl FnOnce(&str) -> Option<String>,
) -> (String, &str) {
    let after_open = text.get(2..).unwrap_or("");
    let Some(end) = after_open.find('}') else {
        return ("${".to_string(), after_open);
    };
    let inner = after_open.get(..end).unwrap_or("");
    match resolve(inner) {
        Some(value) => (value, after_open.get(end + 1..).unwrap_or("")),
        None => ("${".to_string(), after_open),
    }
}

/// Replace each `open ... }` whose inner text `resolve` knows; unknown ones are
/// copied verbatim.
fn replace_delimited(
    text: &str,
    open: &str,
    mut resolve: impl FnMut(&str) -> Option<String>,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(open) {
        let (before, from_open) = rest.split_at(start);
        out.push_str(before);
        let after_open = from_open.get(open.len()..).unwrap_or("");
        let Some(end) = after_open.find('}') else {
            out.push_str(from_open);
            return out;
        };
        let inner = after_open.get(..end).unwrap_or("");
        let after = after_open.get(end + 1..).unwrap_or("");
        match resolve(inner) {
            Some(value) => {
                out.push_str(&value);
                rest = after;
            }
            None => {
                out.push_str(open);
                rest = after_open;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context<'a>(
        syntax: VariableSyntax,
        env: &'a BTreeMap<String, String>,
        extra: &'a BTreeMap<String, Option<String>>,
        folders: &'a [String],
    ) -> VariableContext<'a> {
        VariableContext {
            syntax,
            platform: Platform::Linux,
            env,
            home: "/home/u",
            workspace_folder: folders.first().map(String::as_str),
            workspace_folders: folders,
            config_dir: "/w/app".to_string(),
            extra_files: extra,
            input_ids: Some(["token".to_string()].into_iter().collect()),
        }
    }

    #[test]
    fn claude_syntax() {
        let env = BTreeMap::from([("HOME_DIR".to_string(), "/h".to_string())]);
        let extra = BTreeMap::new();
        let ctx = context(VariableSyntax::Claude, &env, &extra, &[]);
        assert_eq!(
            ctx.expand("${HOME_DIR}/x ${NOPE:-d} $HOME_DIR ${not valid}"),
            ("/h/x d $HOME_DIR ${not valid}".to_string(), vec![])
        );
        let (value, notes) = ctx.expand("a${MISSING}b");
        assert_eq!(value, "ab");
        assert_eq!(
            notes,
            vec![VariableNote::UnsetEnv {
                name: "MISSING".into(),
                fatal: true
            }]
        );
    }

    #[test]
    fn copilot_shell_syntax() {
        let env = BTreeMap::from([("TOKEN".to_string(), "t".to_string())]);
        let extra = BTreeMap::new();
        let ctx = context(VariableSyntax::Copilot, &env, &extra, &[]);
        assert_eq!(
            ctx.expand("$TOKEN-${TOKEN}-${NOPE:-d}-$ -$1-${bad name}").0,
            "t-t-d-$ -$1-${bad name}"
        );
        let (value, notes) = ctx.expand("a$MISSING.b${MISSING_TOO}");
        assert_eq!(value, "a.b");
        assert_eq!(
            notes,
            vec![
                VariableNote::UnsetEnv {
                    name: "MISSING".into(),
                    fatal: false
                },
                VariableNote::UnsetEnv {
                    name: "MISSING_TOO".into(),
                    fatal: true
                },
            ]
        );
    }

    #[test]
    fn vscode_syntax() {
        let env = BTreeMap::from([("TOKEN".to_string(), "t".to_string())]);
        let extra = BTreeMap::new();
        let folders = vec!["/w/app".to_string()];
        let ctx = context(VariableSyntax::VsCode, &env, &extra, &folders);
        let (value, notes) = ctx.expand(
            "${workspaceFolder}${/}x ${userHome} ${env:TOKEN} ${input:token} ${workspaceFolderBasename} ${workspaceFolder:app} ${command:x}",
        );
        assert_eq!(
            value,
            "/w/app/x /home/u t ${input:token} app /w/app ${command:x}"
        );
        assert!(notes.is_empty());
        let (_, notes) = ctx.expand("${input:other} ${env:NOPE}");
        assert_eq!(
            notes,
            vec![
                VariableNote::UnknownInput("other".into()),
                VariableNote::UnsetEnv {
                    name: "NOPE".into(),
                    fatal: true
                },
            ]
        );
    }

    #[test]
    fn opencode_syntax() {
        let env = BTreeMap::from([("KEY".to_string(), "k".to_string())]);
        let extra = BTreeMap::from([
            (
                "/w/app/secrets/token.txt".to_string(),
                Some("  tok\n".to_string()),
            ),
            ("/home/u/gone".to_string(), None),
        ]);
        let ctx = context(VariableSyntax::OpenCode, &env, &extra, &[]);
        assert_eq!(
            ctx.expand("{env:KEY}:{file:./secrets/token.txt}").0,
            "k:tok"
        );
        let (value, notes) = ctx.expand("{env:NOPE}{file:~/gone}{file:/abs}{other}");
        assert_eq!(value, "{other}");
        assert_eq!(
            notes,
            vec![
                VariableNote::UnsetEnv {
                    name: "NOPE".into(),
                    fatal: false
                },
                VariableNote::MissingFile("/home/u/gone".into()),
                VariableNote::NeedsFile("/abs".into()),
            ]
        );
    }
}
