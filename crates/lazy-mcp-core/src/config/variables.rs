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
use crate::vec_map::{VecMap, VecSet};

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
    /// `{file:...}` naming a file that is never read (`reason`: what it is).
    RefusedFile { path: String, reason: &'static str },
    /// `{file:...}` naming a symbolic link to a file that is never read.
    RefusedLink {
        path: String,
        real: String,
        reason: &'static str,
    },
    /// `{file:...}` naming a path that exists but is not a readable file.
    UnreadableFile { path: String, reason: String },
    /// `{file:...}` of a project file naming a file elsewhere (read, with a warning).
    FileOutside { path: String, place: &'static str },
}

/// Everything substitution needs to know about the file being read.
pub(crate) struct VariableContext<'a> {
    pub syntax: VariableSyntax,
    pub platform: Platform,
    pub env: &'a VecMap<String, String>,
    pub home: &'a str,
    /// The folder `${workspaceFolder}` means here (none for a user file in a
    /// multi-root or empty workspace).
    pub workspace_folder: Option<&'a str>,
    pub workspace_folders: &'a [String],
    /// Folder of the config file (OpenCode `{file:...}` paths are relative to it).
    pub config_dir: String,
    pub extra_files: &'a VecMap<String, Option<String>>,
    /// `{file:...}` paths the host found but did not read (what they are).
    pub unreadable_files: &'a VecMap<String, String>,
    /// `{file:...}` paths that are symbolic links: the file each resolves to.
    pub real_paths: &'a VecMap<String, String>,
    /// Ids declared in VS Code `inputs` (None = not VS Code).
    pub input_ids: Option<VecSet<String>>,
    /// The file is a project (or local) one: `{file:...}` should stay inside
    /// the project or the home folder.
    pub project_file: bool,
}

/// What substitution produced besides the text.
#[derive(Default)]
pub(crate) struct Noted {
    pub notes: Vec<VariableNote>,
    /// Values that came from the environment or a `{file:...}`: secret by
    /// origin, masked wherever they land in the display form.
    pub secrets: Vec<String>,
    /// `{file:...}` paths read into the text.
    pub files: Vec<String>,
}

impl VariableContext<'_> {
    /// `text` with every variable this format knows substituted.
    #[cfg(test)]
    pub(crate) fn expand(&self, text: &str) -> (String, Vec<VariableNote>) {
        let (expanded, noted) = self.expand_noted(text);
        (expanded, noted.notes)
    }

    /// `text` substituted, with notes and the secret-by-origin values used.
    pub(crate) fn expand_noted(&self, text: &str) -> (String, Noted) {
        let mut notes = Noted::default();
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

    fn claude_variable(&self, inner: &str, notes: &mut Noted) -> Option<String> {
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        if !is_variable_name(name) {
            return None;
        }
        match (self.platform.env_var(self.env, name), default) {
            (Some(value), _) => Some(notes.env_value(name, value)),
            (None, Some(default)) => Some(default.to_string()),
            (None, None) => {
                notes.notes.push(VariableNote::UnsetEnv {
                    name: name.to_string(),
                    fatal: true,
                });
                Some(String::new())
            }
        }
    }

    /// `$VAR` as well as `${VAR}` / `${VAR:-default}`.
    fn shell_style(&self, text: &str, notes: &mut Noted) -> String {
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
                    Some(value) => out.push_str(&notes.env_value(name, value)),
                    None => notes.notes.push(VariableNote::UnsetEnv {
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

    fn vscode_variable(&self, inner: &str, notes: &mut Noted) -> Option<String> {
        if let Some(name) = inner.strip_prefix("env:") {
            return match self.platform.env_var(self.env, name) {
                Some(value) => Some(notes.env_value(name, value)),
                None => {
                    notes.notes.push(VariableNote::UnsetEnv {
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
                    notes.notes.push(VariableNote::UnknownInput(id.to_string()));
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
                notes
                    .notes
                    .push(VariableNote::Unresolved(format!("${{{inner}}}")));
            }
            return found.cloned();
        }
        match inner {
            "userHome" => Some(self.home.to_string()),
            "pathSeparator" | "/" => Some(self.platform.separator().to_string()),
            "workspaceFolder" | "workspaceRoot" => {
                if self.workspace_folder.is_none() {
                    notes
                        .notes
                        .push(VariableNote::Unresolved(format!("${{{inner}}}")));
                }
                self.workspace_folder.map(str::to_string)
            }
            "workspaceFolderBasename" => {
                if self.workspace_folder.is_none() {
                    notes
                        .notes
                        .push(VariableNote::Unresolved(format!("${{{inner}}}")));
                }
                self.workspace_folder
                    .map(|folder| self.platform.basename(folder))
            }
            _ => None,
        }
    }

    fn opencode_variable(&self, inner: &str, notes: &mut Noted) -> Option<String> {
        if let Some(name) = inner.strip_prefix("env:") {
            return match self.platform.env_var(self.env, name) {
                Some(value) => Some(notes.env_value(name, value)),
                None => {
                    notes.notes.push(VariableNote::UnsetEnv {
                        name: name.to_string(),
                        fatal: false,
                    });
                    Some(String::new())
                }
            };
        }
        let reference = inner.strip_prefix("file:")?;
        let path = self.opencode_file_path(reference);
        if let Some(reason) = self.file_reference_refused(&path) {
            notes.notes.push(VariableNote::RefusedFile { path, reason });
            return Some(String::new());
        }
        // A link is judged by the file it opens too (a project can ship a link to /etc/shadow).
        let real = self.real_paths.get(&path);
        if let Some((real, reason)) =
            real.and_then(|real| Some((real, self.file_reference_refused(real)?)))
        {
            notes.notes.push(VariableNote::RefusedLink {
                path,
                real: real.clone(),
                reason,
            });
            return Some(String::new());
        }
        if let Some(place) = self.file_reference_outside(&path) {
            notes.notes.push(VariableNote::FileOutside {
                path: path.clone(),
                place,
            });
        }
        if let Some(reason) = self.unreadable_files.get(&path) {
            notes.notes.push(VariableNote::UnreadableFile {
                path,
                reason: reason.clone(),
            });
            return Some(String::new());
        }
        match self.extra_files.get(&path) {
            Some(Some(contents)) => {
                notes.files.push(path.clone());
                Some(notes.secret(contents.trim()))
            }
            Some(None) => {
                notes.notes.push(VariableNote::MissingFile(path));
                Some(String::new())
            }
            None => {
                notes.notes.push(VariableNote::NeedsFile(path));
                Some(String::new())
            }
        }
    }

    /// Absolute path of an OpenCode `{file:...}` reference, `.`/`..` resolved.
    pub(crate) fn opencode_file_path(&self, reference: &str) -> String {
        let joined = if let Some(rest) = reference.strip_prefix("~/") {
            self.platform.join(self.home, rest)
        } else if self.platform.is_absolute(reference) {
            reference.to_string()
        } else {
            self.platform.join(&self.config_dir, reference)
        };
        self.platform.lexically_normal(&joined)
    }

    /// Why a `{file:...}` of `path` is never read: a system secret, a kernel or
    /// device file (any config), or the user's SSH folder.
    fn file_reference_refused(&self, path: &str) -> Option<&'static str> {
        let ssh = self.platform.join(self.home, ".ssh");
        if !self.home.is_empty() && self.platform.is_within(path, &ssh) {
            return Some("your SSH keys folder");
        }
        file_reference_refused(self.platform, path)
    }

    /// For a project file: where a `{file:...}` outside the project and the
    /// home folder points (a cloned repository should not reach elsewhere).
    fn file_reference_outside(&self, path: &str) -> Option<&'static str> {
        if !self.project_file {
            return None;
        }
        let inside = |folder: &str| !folder.is_empty() && self.platform.is_within(path, folder);
        let allowed = self.workspace_folders.iter().any(|f| inside(f))
            || self.workspace_folder.is_some_and(inside)
            || inside(&self.config_dir)
            || inside(self.home);
        (!allowed).then_some("outside the project and your home folder")
    }
}

/// Environment variables that name places or the user, never credentials:
/// their values stay readable (a `${HOME}/bin/server` command is shown whole).
const PUBLIC_ENV: &[&str] = &[
    "HOME",
    "USERPROFILE",
    "USER",
    "USERNAME",
    "LOGNAME",
    "PWD",
    "PATH",
    "SHELL",
    "TMPDIR",
    "TEMP",
    "TMP",
    "APPDATA",
    "LOCALAPPDATA",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
];

impl Noted {
    /// An environment variable's value: secret unless the name is a public one.
    fn env_value(&mut self, name: &str, value: &str) -> String {
        if PUBLIC_ENV
            .iter()
            .any(|public| public.eq_ignore_ascii_case(name))
        {
            value.to_string()
        } else {
            self.secret(value)
        }
    }

    /// Record `value` as secret by origin (and each of its words, since an
    /// OpenCode command string is split on whitespace) and return it.
    fn secret(&mut self, value: &str) -> String {
        if !value.trim().is_empty() {
            self.secrets.push(value.to_string());
            let words: Vec<&str> = value.split_whitespace().collect();
            if words.len() > 1 {
                self.secrets.extend(words.into_iter().map(str::to_string));
            }
        }
        value.to_string()
    }
}

/// Files a `{file:...}` never reads, whatever the config's scope: system
/// secrets and kernel/device files (no MCP server needs them as an argument).
pub(crate) fn file_reference_refused(platform: Platform, path: &str) -> Option<&'static str> {
    if platform == Platform::Win32 {
        return None;
    }
    const SYSTEM_SECRETS: &[&str] = &[
        "/etc/shadow",
        "/etc/shadow-",
        "/etc/gshadow",
        "/etc/gshadow-",
        "/etc/master.passwd",
        "/etc/sudoers",
    ];
    const SYSTEM_TREES: &[(&str, &str)] = &[
        ("/etc/sudoers.d", "a system secret"),
        ("/etc/ssh", "a system secret"),
        ("/proc", "a kernel file"),
        ("/sys", "a kernel file"),
        ("/dev", "a device"),
    ];
    if SYSTEM_SECRETS.contains(&path) {
        return Some("a system secret");
    }
    SYSTEM_TREES
        .iter()
        .find(|(tree, _)| platform.is_within(path, tree))
        .map(|(_, what)| *what)
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

    static NO_UNREADABLE: VecMap<String, String> = VecMap::new();

    fn context<'a>(
        syntax: VariableSyntax,
        env: &'a VecMap<String, String>,
        extra: &'a VecMap<String, Option<String>>,
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
            unreadable_files: &NO_UNREADABLE,
            real_paths: &NO_UNREADABLE,
            input_ids: Some(["token".to_string()].into_iter().collect()),
            project_file: true,
        }
    }

    #[test]
    fn claude_syntax() {
        let env = VecMap::from([("HOME_DIR".to_string(), "/h".to_string())]);
        let extra = VecMap::new();
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
        let env = VecMap::from([("TOKEN".to_string(), "t".to_string())]);
        let extra = VecMap::new();
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
        let env = VecMap::from([("TOKEN".to_string(), "t".to_string())]);
        let extra = VecMap::new();
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
        let env = VecMap::from([("KEY".to_string(), "k".to_string())]);
        let extra = VecMap::from([
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
                VariableNote::FileOutside {
                    path: "/abs".into(),
                    place: "outside the project and your home folder"
                },
                VariableNote::NeedsFile("/abs".into()),
            ]
        );
    }

    #[test]
    fn substituted_values_are_secret_by_origin() {
        let env = VecMap::from([("KEY".to_string(), "env value".to_string())]);
        let extra = VecMap::from([("/w/app/k".to_string(), Some(" file-v \n".to_string()))]);
        let folders = vec!["/w/app".to_string()];
        let ctx = context(VariableSyntax::OpenCode, &env, &extra, &folders);
        let (text, noted) = ctx.expand_noted("a {env:KEY} {file:k}");
        assert_eq!(text, "a env value file-v");
        assert_eq!(noted.secrets, vec!["env value", "env", "value", "file-v"]);
        let ctx = context(VariableSyntax::VsCode, &env, &extra, &folders);
        let (_, noted) = ctx.expand_noted("${workspaceFolder} ${userHome} ${input:token}");
        assert!(noted.secrets.is_empty(), "not secret: {:?}", noted.secrets);
        for syntax in [VariableSyntax::Claude, VariableSyntax::Copilot] {
            let ctx = context(syntax, &env, &extra, &folders);
            assert_eq!(
                ctx.expand_noted("${KEY}")
                    .1
                    .secrets
                    .first()
                    .map(String::as_str),
                Some("env value")
            );
            assert!(ctx.expand_noted("${NOPE:-default}").1.secrets.is_empty());
        }
    }

    #[test]
    fn file_references_to_system_secrets_are_refused_and_dot_dot_resolved() {
        let env = VecMap::new();
        let extra = VecMap::from([("/etc/shadow".to_string(), Some("root:x".to_string()))]);
        let folders = vec!["/w/app".to_string()];
        let ctx = context(VariableSyntax::OpenCode, &env, &extra, &folders);
        let (text, noted) = ctx.expand_noted("{file:../../../etc/shadow}");
        assert_eq!(text, "");
        assert!(noted.secrets.is_empty());
        assert_eq!(
            noted.notes,
            vec![VariableNote::RefusedFile {
                path: "/etc/shadow".into(),
                reason: "a system secret"
            }]
        );
        let (_, noted) = ctx.expand_noted("{file:/proc/self/environ}{file:~/.config/k}");
        assert_eq!(
            noted.notes,
            vec![
                VariableNote::RefusedFile {
                    path: "/proc/self/environ".into(),
                    reason: "a kernel file"
                },
                VariableNote::NeedsFile("/home/u/.config/k".into()),
            ]
        );
    }

    #[test]
    fn a_link_is_judged_by_the_file_it_opens_and_ssh_keys_are_refused() {
        let env = VecMap::new();
        let extra = VecMap::from([
            ("/w/app/token".to_string(), Some("root:x".to_string())),
            ("/w/app/key".to_string(), Some("-----BEGIN".to_string())),
            ("/w/app/ok".to_string(), Some("fine".to_string())),
        ]);
        let links = VecMap::from([
            ("/w/app/token".to_string(), "/etc/shadow".to_string()),
            (
                "/w/app/key".to_string(),
                "/home/u/.ssh/id_ed25519".to_string(),
            ),
            ("/w/app/ok".to_string(), "/opt/shared/ok".to_string()),
        ]);
        let folders = vec!["/w/app".to_string()];
        let ctx = VariableContext {
            real_paths: &links,
            ..context(VariableSyntax::OpenCode, &env, &extra, &folders)
        };
        let (text, noted) = ctx.expand_noted("{file:token}{file:./key}");
        assert_eq!(text, "");
        assert!(noted.secrets.is_empty());
        assert_eq!(
            noted.notes,
            vec![
                VariableNote::RefusedLink {
                    path: "/w/app/token".into(),
                    real: "/etc/shadow".into(),
                    reason: "a system secret"
                },
                VariableNote::RefusedLink {
                    path: "/w/app/key".into(),
                    real: "/home/u/.ssh/id_ed25519".into(),
                    reason: "your SSH keys folder"
                },
            ]
        );
        // A link to a file nobody refuses is read.
        let (text, noted) = ctx.expand_noted("{file:ok}");
        assert_eq!(text, "fine");
        assert!(noted.notes.is_empty());
        let (_, noted) = ctx.expand_noted("{file:~/.ssh/id_rsa}");
        assert_eq!(
            noted.notes,
            vec![VariableNote::RefusedFile {
                path: "/home/u/.ssh/id_rsa".into(),
                reason: "your SSH keys folder"
            }]
        );
    }
}
