//! Reading one server entry (shared by every format, driven by its
//! `FormatRules`): transport fields with variables substituted, Lazy MCP's own
//! keys, and a positioned problem for every bad field. An entry with any
//! error-level problem is not loaded; the file's other entries still are.

use super::formats::{CommandStyle, FormatRules, TransportKind};
use super::jsonc_positions::{key_range, type_name, value_range, LineIndex};
use super::model::{OAuthConfig, ToolExposure, ToolFilter, Transport};
use super::problem::{Problem, Severity};
use super::variables::{VariableContext, VariableNote, VariableSyntax};
use crate::vec_map::{VecMap, VecSet};
use jsonc_parser::ast::{ObjectProp, Value};
use jsonc_parser::common::Range;

/// An entry's meaning, before it is placed (source, name, fingerprint).
pub(crate) struct ReadServer {
    pub transport: Transport,
    pub enabled: bool,
    pub auto_connect: bool,
    pub tools: ToolFilter,
    pub timeout_ms: Option<u64>,
    pub tool_exposure: Option<ToolExposure>,
    pub oauth: Option<OAuthConfig>,
}

/// Where problems and `{file:...}` requests go, and what they are about.
pub(crate) struct EntryReader<'r> {
    pub rules: &'r FormatRules,
    pub file: &'r str,
    pub lines: &'r LineIndex<'r>,
    pub vars: &'r VariableContext<'r>,
    pub server: &'r str,
    pub problems: &'r mut Vec<Problem>,
    pub needs_files: &'r mut VecSet<String>,
    /// Set by any error in this entry.
    pub failed: bool,
    /// Set when a `{file:...}` is still to be read by the host.
    pub waiting: bool,
    /// Values substituted from the environment or files (secret by origin).
    pub secrets: Vec<String>,
    /// `{file:...}` paths read into the entry.
    pub files: Vec<String>,
}

/// The entry's keys, by meaning.
#[derive(Default)]
struct Keys<'t, 'a> {
    kind: Option<&'t ObjectProp<'a>>,
    command: Option<&'t ObjectProp<'a>>,
    args: Option<&'t ObjectProp<'a>>,
    env: Option<&'t ObjectProp<'a>>,
    cwd: Option<&'t ObjectProp<'a>>,
    env_file: Option<&'t ObjectProp<'a>>,
    url: Option<&'t ObjectProp<'a>>,
    headers: Option<&'t ObjectProp<'a>>,
    enabled: Option<&'t ObjectProp<'a>>,
    disabled: Option<&'t ObjectProp<'a>>,
    auto_connect: Option<&'t ObjectProp<'a>>,
    tools: Option<&'t ObjectProp<'a>>,
    timeout: Option<&'t ObjectProp<'a>>,
    tool_exposure: Option<&'t ObjectProp<'a>>,
    oauth: Option<&'t ObjectProp<'a>>,
}

impl EntryReader<'_> {
    fn report(&mut self, severity: Severity, range: Range, field: Option<&str>, message: String) {
        if severity == Severity::Error {
            self.failed = true;
        }
        let (line, column) = self.lines.position(range.start);
        self.problems.push(Problem {
            severity,
            file: self.file.to_string(),
            line,
            column,
            server: Some(self.server.to_string()),
            field: field.map(str::to_string),
            message,
        });
    }

    fn error(&mut self, range: Range, field: &str, message: String) {
        self.report(Severity::Error, range, Some(field), message);
    }

    /// Read the entry whose key is at `entry_key` and whose value is `value`.
    pub(crate) fn read(&mut self, entry_key: Range, value: &Value<'_>) -> Option<ReadServer> {
        let Some(object) = value.as_object() else {
            self.report(
                Severity::Error,
                value_range(value),
                None,
                format!(
                    "a server entry must be an object, found {}",
                    type_name(value)
                ),
            );
            return None;
        };
        let mut keys = Keys::default();
        for prop in &object.properties {
            let name = prop.name.as_str();
            let slot = match name {
                "type" => &mut keys.kind,
                "command" => &mut keys.command,
                "args" if self.rules.command_style == CommandStyle::CommandAndArgs => {
                    &mut keys.args
                }
                "cwd" => &mut keys.cwd,
                "envFile" if self.rules.env_file => &mut keys.env_file,
                "url" => &mut keys.url,
                "headers" => &mut keys.headers,
                "enabled" => &mut keys.enabled,
                "disabled" => &mut keys.disabled,
                "autoConnect" => &mut keys.auto_connect,
                "tools" => &mut keys.tools,
                "timeout" => &mut keys.timeout,
                "toolExposure" => &mut keys.tool_exposure,
                "oauth" => &mut keys.oauth,
                _ if name == self.rules.env_key => &mut keys.env,
                _ if self.rules.ignored_keys.contains(&name) => continue,
                _ => {
                    let (severity, message) = match self.misplaced_key_hint(name) {
                        Some(hint) => (Severity::Warning, format!("`{name}` ignored: {hint}")),
                        None => (
                            Severity::Info,
                            format!("unknown key `{}` ignored", short(name)),
                        ),
                    };
                    self.report(severity, key_range(prop), Some(name), message);
                    continue;
                }
            };
            // Later duplicates win, as with JSON.parse.
            *slot = Some(prop);
        }

        // Every field is checked even when an earlier one failed, so one pass
        // over the file reports all of its problems.
        let transport = match self.transport_kind(entry_key, &keys) {
            Some(TransportKind::Stdio) => self.stdio(entry_key, &keys),
            Some(kind) => self.remote(entry_key, &keys, kind),
            None => None,
        };
        let enabled = self.boolean(keys.enabled).unwrap_or(true)
            && !self.boolean(keys.disabled).unwrap_or(false);
        let auto_connect = self.boolean(keys.auto_connect).unwrap_or(true);
        let tools = self.tools(keys.tools);
        let timeout_ms = self.timeout(keys.timeout);
        let tool_exposure = self.tool_exposure(keys.tool_exposure);
        let oauth = self.oauth(keys.oauth);
        if self.failed || self.waiting {
            return None;
        }
        Some(ReadServer {
            transport: transport?,
            enabled,
            auto_connect,
            tools,
            timeout_ms,
            tool_exposure,
            oauth,
        })
    }

    /// Keys of another tool's vocabulary, which probably meant something here.
    fn misplaced_key_hint(&self, name: &str) -> Option<&'static str> {
        match (name, self.rules.env_key, self.rules.command_style) {
            ("env", "environment", _) => Some("this format calls it `environment`"),
            ("environment", "env", _) => Some("this format calls it `env`"),
            ("args", _, CommandStyle::Argv) => {
                Some("this format puts arguments in the `command` array")
            }
            ("envFile", _, _) => Some("only VS Code's mcp.json supports `envFile`"),
            _ => None,
        }
    }

    fn transport_kind(&mut self, entry_key: Range, keys: &Keys<'_, '_>) -> Option<TransportKind> {
        match keys.kind {
            Some(prop) => {
                let known = prop.value.as_string_lit().and_then(|s| {
                    self.rules
                        .types
                        .iter()
                        .find(|(name, _)| *name == s.value.as_ref())
                });
                match known {
                    Some((_, kind)) => Some(*kind),
                    None => {
                        let expected: Vec<&str> =
                            self.rules.types.iter().map(|(name, _)| *name).collect();
                        self.error(
                            value_range(&prop.value),
                            "type",
                            format!(
                                "{}; expected one of: {}",
                                if prop.value.as_string_lit().is_some() {
                                    "unknown server `type`"
                                } else {
                                    "`type` must be a string"
                                },
                                expected.join(", ")
                            ),
                        );
                        None
                    }
                }
            }
            None if keys.command.is_some() => Some(TransportKind::Stdio),
            None if keys.url.is_some() => Some(TransportKind::Http),
            None => {
                self.error(
                    entry_key,
                    "command",
                    "needs `command` (a local server to start) or `url` (a remote server)"
                        .to_string(),
                );
                None
            }
        }
    }

    fn stdio(&mut self, entry_key: Range, keys: &Keys<'_, '_>) -> Option<Transport> {
        let Some(command_prop) = keys.command else {
            self.error(
                entry_key,
                "command",
                "a stdio server needs `command`".to_string(),
            );
            return None;
        };
        let mut argv = match (self.rules.command_style, &command_prop.value) {
            (_, Value::StringLit(lit)) => {
                let expanded = self.expand(&lit.value, lit.range, "command");
                match self.rules.command_style {
                    CommandStyle::Argv => expanded.split_whitespace().map(str::to_string).collect(),
                    CommandStyle::CommandAndArgs => vec![expanded],
                }
            }
            (CommandStyle::Argv, Value::Array(_)) => {
                self.strings(&command_prop.value, "command")?
            }
            (style, other) => {
                let expected = match style {
                    CommandStyle::Argv => "an array of strings (or a string)",
                    CommandStyle::CommandAndArgs => "a string",
                };
                self.error(
                    value_range(other),
                    "command",
                    format!("`command` must be {expected}, found {}", type_name(other)),
                );
                return None;
            }
        };
        if argv.first().is_none_or(|command| command.trim().is_empty()) && !self.waiting {
            self.error(
                value_range(&command_prop.value),
                "command",
                "`command` is empty".to_string(),
            );
            return None;
        }
        if let Some(args) = keys.args {
            argv.extend(self.strings(&args.value, "args")?);
        }
        let env = match keys.env {
            Some(prop) => self.string_map(&prop.value, self.rules.env_key)?,
            None => VecMap::new(),
        };
        let cwd = keys
            .cwd
            .and_then(|prop| self.string(&prop.value, "cwd"))
            .map(|cwd| self.resolve_cwd(cwd));
        let env_file = keys
            .env_file
            .and_then(|prop| self.string(&prop.value, "envFile"));
        let mut argv = argv.into_iter();
        Some(Transport::Stdio {
            command: argv.next().unwrap_or_default(),
            args: argv.collect(),
            env,
            cwd,
            env_file,
        })
    }

    fn remote(
        &mut self,
        entry_key: Range,
        keys: &Keys<'_, '_>,
        kind: TransportKind,
    ) -> Option<Transport> {
        let Some(url_prop) = keys.url else {
            self.error(entry_key, "url", "a remote server needs `url`".to_string());
            return None;
        };
        let url = self.string(&url_prop.value, "url")?;
        if !self.waiting && !url.contains("${") && !is_http_url(&url) {
            // The value is not echoed: URLs may carry credentials.
            self.error(
                value_range(&url_prop.value),
                "url",
                "`url` is not an absolute http(s) URL (like `https://host/mcp`)".to_string(),
            );
            return None;
        }
        let headers = match keys.headers {
            Some(prop) => self.string_map(&prop.value, "headers")?,
            None => VecMap::new(),
        };
        Some(match kind {
            TransportKind::Sse => Transport::Sse { url, headers },
            TransportKind::Http | TransportKind::Stdio => Transport::Http { url, headers },
        })
    }

    fn resolve_cwd(&self, cwd: String) -> String {
        let platform = self.vars.platform;
        match self.vars.workspace_folder {
            Some(folder) if self.rules.cwd_relative_to_workspace && !platform.is_absolute(&cwd) => {
                platform.join(folder, &cwd)
            }
            _ => cwd,
        }
    }

    /// A string field, with variables substituted.
    fn string(&mut self, value: &Value<'_>, field: &str) -> Option<String> {
        match value.as_string_lit() {
            Some(lit) => Some(self.expand(&lit.value, lit.range, field)),
            None => {
                self.error(
                    value_range(value),
                    field,
                    format!("`{field}` must be a string, found {}", type_name(value)),
                );
                None
            }
        }
    }

    /// An array of strings, each with variables substituted.
    fn strings(&mut self, value: &Value<'_>, field: &str) -> Option<Vec<String>> {
        let Some(array) = value.as_array() else {
            self.error(
                value_range(value),
                field,
                format!(
                    "`{field}` must be an array of strings, found {}",
                    type_name(value)
                ),
            );
            return None;
        };
        let mut out = Vec::with_capacity(array.elements.len());
        let mut ok = true;
        for (index, element) in array.elements.iter().enumerate() {
            let element_field = format!("{field}[{index}]");
            match element.as_string_lit() {
                Some(lit) => out.push(self.expand(&lit.value, lit.range, &element_field)),
                None => {
                    ok = false;
                    self.error(
                        value_range(element),
                        &element_field,
                        format!(
                            "`{element_field}` must be a string, found {}",
                            type_name(element)
                        ),
                    );
                }
            }
        }
        ok.then_some(out)
    }

    /// An object of string values (env, headers), each with variables substituted.
    fn string_map(&mut self, value: &Value<'_>, field: &str) -> Option<VecMap<String, String>> {
        let Some(object) = value.as_object() else {
            self.error(
                value_range(value),
                field,
                format!(
                    "`{field}` must be an object of strings, found {}",
                    type_name(value)
                ),
            );
            return None;
        };
        let mut out = VecMap::new();
        let mut ok = true;
        for prop in &object.properties {
            let key = prop.name.as_str();
            let entry_field = format!("{field}.{key}");
            match prop.value.as_string_lit() {
                Some(lit) => {
                    let expanded = self.expand(&lit.value, lit.range, &entry_field);
                    out.insert(key.to_string(), expanded);
                }
                None => {
                    ok = false;
                    self.error(
                        value_range(&prop.value),
                        &entry_field,
                        format!(
                            "`{entry_field}` must be a string, found {}",
                            type_name(&prop.value)
                        ),
                    );
                }
            }
        }
        ok.then_some(out)
    }

    fn boolean(&mut self, prop: Option<&ObjectProp<'_>>) -> Option<bool> {
        let prop = prop?;
        let field = prop.name.as_str();
        match prop.value.as_boolean_lit() {
            Some(lit) => Some(lit.value),
            None => {
                self.error(
                    value_range(&prop.value),
                    field,
                    format!(
                        "`{field}` must be true or false, found {}",
                        type_name(&prop.value)
                    ),
                );
                None
            }
        }
    }

    fn tools(&mut self, prop: Option<&ObjectProp<'_>>) -> ToolFilter {
        let Some(prop) = prop else {
            return ToolFilter::All;
        };
        if prop
            .value
            .as_string_lit()
            .is_some_and(|lit| lit.value == "*")
        {
            return ToolFilter::All;
        }
        if prop.value.as_array().is_none() {
            self.error(
                value_range(&prop.value),
                "tools",
                format!(
                    "`tools` must be an array of tool names (or [\"*\"]), found {}",
                    type_name(&prop.value)
                ),
            );
            return ToolFilter::All;
        }
        let names = self.strings_literal(&prop.value, "tools");
        if names.iter().any(|name| name == "*") {
            ToolFilter::All
        } else {
            ToolFilter::Only(names)
        }
    }

    /// `oauth: {clientId, clientSecret, scopes, callbackPort, authServerMetadataUrl, clientMetadataUrl}`
    /// (`false`: as if absent, OpenCode's way to turn it off; `scope` as a
    /// space-separated string is accepted too). `clientSecret` is a secret.
    fn oauth(&mut self, prop: Option<&ObjectProp<'_>>) -> Option<OAuthConfig> {
        let prop = prop?;
        if prop.value.as_boolean_lit().is_some_and(|lit| !lit.value) {
            return None;
        }
        let Some(object) = prop.value.as_object() else {
            self.error(
                value_range(&prop.value),
                "oauth",
                format!(
                    "`oauth` must be an object like {{\"clientId\": \"…\", \"scopes\": [\"…\"]}}, found {}",
                    type_name(&prop.value)
                ),
            );
            return None;
        };
        let mut out = OAuthConfig::default();
        for field in &object.properties {
            let key = field.name.as_str();
            let path = format!("oauth.{key}");
            match key {
                "clientId" | "clientSecret" | "authServerMetadataUrl" | "clientMetadataUrl" => {
                    let Some(lit) = field.value.as_string_lit() else {
                        self.error(
                            value_range(&field.value),
                            &path,
                            format!(
                                "`{path}` must be a string, found {}",
                                type_name(&field.value)
                            ),
                        );
                        continue;
                    };
                    let value = self.expand(&lit.value, lit.range, &path);
                    match key {
                        "clientId" => out.client_id = Some(value),
                        "clientSecret" => {
                            self.secrets.push(value.clone());
                            out.client_secret = Some(value);
                        }
                        "clientMetadataUrl" if is_client_id_url(&value) => {
                            out.client_metadata_url = Some(value)
                        }
                        "clientMetadataUrl" => self.error(
                            value_range(&field.value),
                            &path,
                            format!("`{path}` must be an https URL with a path (where the client's metadata document is served)"),
                        ),
                        _ if is_http_url(&value) => out.auth_server_metadata_url = Some(value),
                        _ => self.error(
                            value_range(&field.value),
                            &path,
                            format!("`{path}` is not an absolute http(s) URL"),
                        ),
                    }
                }
                "scopes" | "scope" => match &field.value {
                    Value::StringLit(lit) => {
                        out.scopes = lit.value.split_whitespace().map(str::to_string).collect();
                    }
                    Value::Array(_) => out.scopes = self.strings_literal(&field.value, &path),
                    other => self.error(
                        value_range(other),
                        &path,
                        format!(
                            "`{path}` must be an array of scope names, found {}",
                            type_name(other)
                        ),
                    ),
                },
                "callbackPort" => {
                    let port = field
                        .value
                        .as_number_lit()
                        .and_then(|lit| lit.value.parse::<u16>().ok())
                        .filter(|port| *port > 0);
                    match port {
                        Some(port) => out.callback_port = Some(port),
                        None => self.error(
                            value_range(&field.value),
                            &path,
                            "`oauth.callbackPort` must be a port number from 1 to 65535"
                                .to_string(),
                        ),
                    }
                }
                _ => self.report(
                    Severity::Info,
                    key_range(field),
                    Some(&path),
                    format!("unknown key `oauth.{}` ignored", short(key)),
                ),
            }
        }
        Some(out)
    }

    fn tool_exposure(&mut self, prop: Option<&ObjectProp<'_>>) -> Option<ToolExposure> {
        let prop = prop?;
        let mode = match prop.value.as_string_lit().map(|lit| lit.value.as_ref()) {
            Some("full") => Some(ToolExposure::Full),
            Some("index") => Some(ToolExposure::Index),
            Some("auto") => Some(ToolExposure::Auto),
            _ => None,
        };
        if mode.is_none() {
            // Only how tools are shown: the server still loads, with the setting's mode.
            self.report(
                Severity::Warning,
                value_range(&prop.value),
                Some("toolExposure"),
                "`toolExposure` must be \"full\", \"index\" or \"auto\"; the setting's mode is used"
                    .to_string(),
            );
        }
        mode
    }

    /// Strings of an array, without substitution (tool names).
    fn strings_literal(&mut self, value: &Value<'_>, field: &str) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(array) = value.as_array() {
            for (index, element) in array.elements.iter().enumerate() {
                match element.as_string_lit() {
                    Some(lit) => out.push(lit.value.to_string()),
                    None => self.error(
                        value_range(element),
                        &format!("{field}[{index}]"),
                        format!(
                            "`{field}[{index}]` must be a string, found {}",
                            type_name(element)
                        ),
                    ),
                }
            }
        }
        out
    }

    fn timeout(&mut self, prop: Option<&ObjectProp<'_>>) -> Option<u64> {
        let prop = prop?;
        let number = match &prop.value {
            // OpenCode v2: `timeout: {startup, request}` — the request timeout is
            // the per-call one; startup is used when it is the only one given.
            Value::Object(object) => object
                .get("request")
                .or_else(|| object.get("startup"))
                .map(|p| &p.value),
            other => Some(other),
        };
        let parsed = number
            .and_then(Value::as_number_lit)
            .and_then(|lit| parse_milliseconds(lit.value));
        if parsed.is_none() {
            self.error(
                value_range(&prop.value),
                "timeout",
                "`timeout` must be a non-negative number of milliseconds".to_string(),
            );
        }
        parsed
    }

    /// Substitute variables; report what could not be resolved (by name only).
    fn expand(&mut self, text: &str, range: Range, field: &str) -> String {
        let in_env_or_headers =
            field.starts_with(&format!("{}.", self.rules.env_key)) || field.starts_with("headers.");
        if self.rules.variables_only_in_env_and_headers && !in_env_or_headers {
            return text.to_string();
        }
        let (expanded, noted) = self.vars.expand_noted(text);
        self.secrets.extend(noted.secrets);
        self.files.extend(noted.files);
        for note in noted.notes {
            match note {
                VariableNote::UnsetEnv { name, fatal: true } => {
                    let name = short(&name);
                    let hint = match self.vars.syntax {
                        VariableSyntax::Claude => format!(", or write `${{{name}:-default}}`"),
                        _ => String::new(),
                    };
                    self.error(
                        range,
                        field,
                        format!(
                            "environment variable `{name}` is not set (used in `{field}`); \
                             set it in the environment VS Code starts with{hint}"
                        ),
                    )
                }
                VariableNote::UnsetEnv { name, fatal: false } => self.report(
                    Severity::Warning,
                    range,
                    Some(field),
                    format!(
                        "environment variable `{}` is not set; it is replaced by an empty string",
                        short(&name)
                    ),
                ),
                VariableNote::NeedsFile(path) => {
                    self.waiting = true;
                    self.needs_files.insert(path);
                }
                VariableNote::MissingFile(path) => self.error(
                    range,
                    field,
                    format!("file `{path}` referenced by `{{file:...}}` does not exist"),
                ),
                VariableNote::RefusedFile { path, reason } => self.error(
                    range,
                    field,
                    format!(
                        "`{{file:...}}` names `{path}`, {reason}: Lazy MCP never reads it into a \
                         server's launch (see docs/config-sources.md); remove the reference"
                    ),
                ),
                VariableNote::RefusedLink { path, real, reason } => self.error(
                    range,
                    field,
                    format!(
                        "`{{file:...}}` names `{path}`, a symbolic link to `{real}`, {reason}: \
                         Lazy MCP never reads it into a server's launch (see \
                         docs/config-sources.md); remove the reference"
                    ),
                ),
                VariableNote::UnreadableFile { path, reason } => self.error(
                    range,
                    field,
                    format!(
                        "`{{file:...}}` names `{path}`, which {reason}; only a regular file \
                         of at most 4 MB is read"
                    ),
                ),
                VariableNote::FileOutside { path, place } => self.report(
                    Severity::Warning,
                    range,
                    Some(field),
                    format!(
                        "`{{file:...}}` reads `{path}`, {place}: its contents are passed to the \
                         server; make sure this project should read it"
                    ),
                ),
                VariableNote::UnknownInput(id) => self.report(
                    Severity::Warning,
                    range,
                    Some(field),
                    format!(
                        "`${{input:{}}}` is not declared in this file's `inputs`",
                        short(&id)
                    ),
                ),
                VariableNote::Unresolved(token) => self.report(
                    Severity::Info,
                    range,
                    Some(field),
                    format!(
                        "`{}` cannot be resolved here; kept as written",
                        short(&token)
                    ),
                ),
            }
        }
        expanded
    }
}

/// Names echoed in messages are cut short (they are keys, not values, but a
/// pasted token as a key name should not be repeated at length).
fn short(name: &str) -> String {
    if name.chars().count() <= 64 {
        name.to_string()
    } else {
        let mut cut: String = name.chars().take(61).collect();
        cut.push_str("...");
        cut
    }
}

fn parse_milliseconds(text: &str) -> Option<u64> {
    if let Ok(value) = text.parse::<u64>() {
        return Some(value);
    }
    let value = text.parse::<f64>().ok()?;
    (value.is_finite() && value >= 0.0 && value.fract() == 0.0 && value < 9.0e15)
        .then_some(value as u64)
}

/// `http(s)://host[:port][/...]` with no whitespace.
/// A Client ID Metadata Document URL: https with a path other than `/`
/// (what authorization servers accept as a URL client id).
fn is_client_id_url(url: &str) -> bool {
    let Some(rest) = url
        .get(..8)
        .filter(|scheme| scheme.eq_ignore_ascii_case("https://"))
        .and_then(|_| url.get(8..))
    else {
        return false;
    };
    rest.split_once('/')
        .is_some_and(|(host, path)| !host.is_empty() && !path.is_empty())
}

pub(crate) fn is_http_url(url: &str) -> bool {
    let Some((scheme, rest)) = url.split_once("://") else {
        return false;
    };
    if !(scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")) {
        return false;
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return false;
    }
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = rest.get(..authority_end).unwrap_or("");
    let host_port = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let (host, port) = if let Some(v6) = host_port.strip_prefix('[') {
        match v6.split_once(']') {
            Some((host, after)) => (host, after.strip_prefix(':')),
            None => return false,
        }
    } else {
        match host_port.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (host_port, None),
        }
    };
    let port_ok = port.is_none_or(|port| !port.is_empty() && port.parse::<u16>().is_ok());
    !host.is_empty() && port_ok
}

#[cfg(test)]
mod tests {
    use super::is_http_url;

    #[test]
    fn urls() {
        assert!(is_http_url("https://api.example.com/mcp"));
        assert!(is_http_url("http://localhost:3000"));
        assert!(is_http_url("http://[::1]:8080/mcp"));
        assert!(is_http_url("https://u:p@host/x?y=1"));
        assert!(!is_http_url("not a url"));
        assert!(!is_http_url("ftp://host"));
        assert!(!is_http_url("https://"));
        assert!(!is_http_url("https://host:99999"));
        assert!(!is_http_url("https://ho st"));
    }
}
