//! Display form of a server: everything a secret may hide in is masked with
//! `••••`, keys stay visible. Masked: every value that is secret by origin
//! (from the environment or a `{file:...}`, wherever it landed), header and
//! env values, URL userinfo, token-like URL query parameters, and token-like
//! command-line arguments (`--api-key=…`, the value after `--token`/`-t`,
//! `NAME=value` with a secret-like name, `Authorization: …` header arguments
//! and the value after `--header`/`-H`, `Bearer …`, strings that look like
//! known token formats or long random keys). Used by Diagnostics and logs.

use super::model::{OAuthConfig, ServerConfig, Transport};
use crate::vec_map::VecMap;

/// What a masked value is shown as.
pub const MASK: &str = "••••";

impl ServerConfig {
    /// A copy safe to show or log: secrets masked, keys visible, fingerprint kept.
    pub fn redacted(&self) -> ServerConfig {
        let secrets = longest_first(&self.secret_values);
        let origin = |text: &str| mask_secrets(text, &secrets);
        let transport = match &self.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
                env_file,
            } => {
                let args: Vec<String> = args.iter().map(|arg| origin(arg)).collect();
                Transport::Stdio {
                    command: redact_args(&[origin(command)]).concat(),
                    args: redact_args(&args),
                    env: mask_values(env),
                    cwd: cwd.as_deref().map(origin),
                    env_file: env_file.as_deref().map(origin),
                }
            }
            Transport::Http { url, headers } => Transport::Http {
                url: redact_url(&origin(url)),
                headers: mask_values(headers),
            },
            Transport::Sse { url, headers } => Transport::Sse {
                url: redact_url(&origin(url)),
                headers: mask_values(headers),
            },
        };
        let oauth = self.oauth.as_ref().map(|oauth| OAuthConfig {
            client_secret: oauth.client_secret.as_ref().map(|_| MASK.to_string()),
            ..oauth.clone()
        });
        ServerConfig {
            transport,
            oauth,
            secret_values: Vec::new(),
            ..self.clone()
        }
    }

    /// `text` (a message about this server: a stderr tail, a spawn error) with
    /// its secret values masked. Values shorter than `MIN_FREE_TEXT_SECRET`
    /// are left: in free text they would mask unrelated words and numbers.
    pub fn mask_secrets_in(&self, text: &str) -> String {
        let long: Vec<&str> = longest_first(&self.secret_values)
            .into_iter()
            .filter(|v| v.chars().count() >= MIN_FREE_TEXT_SECRET)
            .collect();
        mask_secrets(text, &long)
    }
}

/// Shortest secret value masked in free text (see `mask_secrets_in`).
pub const MIN_FREE_TEXT_SECRET: usize = 6;

/// Values the display rules mask in `transport` (token-like arguments, env
/// and header values, URL credentials): secret too, so that a server echoing
/// them (its stderr, an error) is masked as well.
pub(crate) fn rule_masked_values(transport: &Transport) -> Vec<String> {
    let mut out = Vec::new();
    let mut diff = |raw: &str, shown: &str| out.extend(masked_parts(raw, shown));
    match transport {
        Transport::Stdio {
            command, args, env, ..
        } => {
            diff(
                command,
                &redact_args(std::slice::from_ref(command)).concat(),
            );
            for (raw, shown) in args.iter().zip(redact_args(args)) {
                diff(raw, &shown);
            }
            out.extend(env.values().cloned());
        }
        Transport::Http { url, headers } | Transport::Sse { url, headers } => {
            diff(url, &redact_url(url));
            out.extend(headers.values().cloned());
        }
    }
    out.retain(|v| !v.trim().is_empty());
    out
}

/// What each connect-time variable (`${input:…}`) of `original` became in
/// `resolved` (the same transport after the host substituted them).
pub fn resolved_values(original: &Transport, resolved: &Transport) -> Vec<String> {
    let mut out = Vec::new();
    let mut pair = |before: &str, after: &str| {
        if before.contains("${input:") {
            out.extend(masked_parts(after, &mask_input_variables(before)));
        }
    };
    match (original, resolved) {
        (
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
                ..
            },
            Transport::Stdio {
                command: command_after,
                args: args_after,
                env: env_after,
                cwd: cwd_after,
                ..
            },
        ) => {
            pair(command, command_after);
            for (before, after) in args.iter().zip(args_after) {
                pair(before, after);
            }
            for (key, before) in env {
                if let Some(after) = env_after.get(key) {
                    pair(before, after);
                }
            }
            if let (Some(before), Some(after)) = (cwd, cwd_after) {
                pair(before, after);
            }
        }
        (
            Transport::Http { url, headers } | Transport::Sse { url, headers },
            Transport::Http {
                url: url_after,
                headers: headers_after,
            }
            | Transport::Sse {
                url: url_after,
                headers: headers_after,
            },
        ) => {
            pair(url, url_after);
            for (key, before) in headers {
                if let Some(after) = headers_after.get(key) {
                    pair(before, after);
                }
            }
        }
        _ => {}
    }
    out.retain(|v| !v.trim().is_empty());
    out
}

/// `text` with every `${input:…}` replaced by the mask.
fn mask_input_variables(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${input:") {
        let (before, from) = rest.split_at(start);
        out.push_str(before);
        match from.find('}') {
            Some(end) => {
                out.push_str(MASK);
                rest = from.get(end + 1..).unwrap_or("");
            }
            None => {
                out.push_str(from);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The pieces of `raw` that `shown` replaced with the mask (all of `raw`
/// when the two cannot be lined up).
fn masked_parts(raw: &str, shown: &str) -> Vec<String> {
    if raw == shown {
        return Vec::new();
    }
    let parts: Vec<&str> = shown.split(MASK).collect();
    let whole = vec![raw.to_string()];
    let Some((first, rest)) = parts.split_first() else {
        return whole;
    };
    let Some(mut remaining) = raw.strip_prefix(first) else {
        return whole;
    };
    let mut out = Vec::new();
    for (index, part) in rest.iter().enumerate() {
        let last = index + 1 == rest.len();
        let end = if last {
            remaining.strip_suffix(part).map(str::len)
        } else if part.is_empty() {
            None
        } else {
            remaining.find(part)
        };
        let Some(end) = end else {
            return whole;
        };
        out.push(remaining.get(..end).unwrap_or(remaining).to_string());
        remaining = remaining.get(end + part.len()..).unwrap_or("");
    }
    out
}

/// Longest first, so a value containing another is masked whole.
fn longest_first(values: &[String]) -> Vec<&str> {
    let mut sorted: Vec<&str> = values
        .iter()
        .map(String::as_str)
        .filter(|v| !v.is_empty())
        .collect();
    crate::sorting::sort_by_key(&mut sorted, |v| std::cmp::Reverse(v.len()));
    sorted
}

/// Every occurrence of each secret replaced by the mask.
fn mask_secrets(text: &str, secrets: &[&str]) -> String {
    let mut out = text.to_string();
    for secret in secrets {
        if out.contains(secret) {
            out = out.replace(secret, MASK);
        }
    }
    out
}

fn mask_values(map: &VecMap<String, String>) -> VecMap<String, String> {
    map.keys()
        .map(|key| (key.clone(), MASK.to_string()))
        .collect()
}

/// Parameter or flag names that carry credentials.
fn is_secret_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    const WORDS: &[&str] = &[
        "token",
        "secret",
        "password",
        "passwd",
        "pwd",
        "apikey",
        "api_key",
        "api-key",
        "auth",
        "credential",
        "signature",
        "sig",
        "key",
        "session",
        "code",
        "pat",
        "authorization",
        "bearer",
        "cookie",
        "private",
    ];
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .any(|part| WORDS.contains(&part))
        || WORDS
            .iter()
            .filter(|word| word.len() > 4)
            .any(|word| name.contains(word))
}

/// Strings that look like a credential on their own (GitHub, OpenAI-style,
/// Slack, AWS keys, JWTs).
fn looks_like_token(value: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "ghp_",
        "gho_",
        "ghu_",
        "ghs_",
        "ghr_",
        "github_pat_",
        "sk-",
        "xoxb-",
        "xoxp-",
        "AKIA",
        "glpat-",
        "eyJ",
    ];
    (value.len() >= 12 && PREFIXES.iter().any(|prefix| value.starts_with(prefix)))
        || looks_random(value)
}

/// A long run of key characters mixing letters and digits (an API key, a hex
/// secret), with no path or URL shape, and not words joined by dashes.
fn looks_random(value: &str) -> bool {
    let longest_run = value
        .split(|c: char| !c.is_ascii_alphanumeric())
        .map(str::len)
        .max()
        .unwrap_or(0);
    value.len() >= 32
        && longest_run >= 20
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+' | '=' | '.'))
        && value.chars().any(|c| c.is_ascii_digit())
        && value.chars().any(|c| c.is_ascii_alphabetic())
}

/// HTTP authentication schemes whose parameter is a credential.
fn is_auth_scheme(word: &str) -> bool {
    ["bearer", "basic", "token"]
        .iter()
        .any(|scheme| word.eq_ignore_ascii_case(scheme))
}

/// Short flags that take a token (`-t TOKEN`), and flags that take a header.
const TOKEN_SHORT_FLAGS: &[&str] = &["-t"];
const HEADER_FLAGS: &[&str] = &["-H", "--header", "--headers"];

fn redact_args(args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut mask_next = false;
    let mut header_next = false;
    for arg in args {
        if header_next {
            header_next = false;
            if !arg.starts_with('-') {
                out.push(redact_header_arg(arg, true));
                continue;
            }
        }
        if mask_next {
            mask_next = false;
            if !arg.starts_with('-') {
                out.push(MASK.to_string());
                continue;
            }
        }
        if HEADER_FLAGS.contains(&arg.as_str()) {
            header_next = true;
        } else if TOKEN_SHORT_FLAGS.contains(&arg.as_str()) || is_auth_scheme(arg) {
            mask_next = true;
        } else if let Some(flag) = arg.strip_prefix('-') {
            let flag = flag.trim_start_matches('-');
            if let Some((name, _)) = flag.split_once('=') {
                let name_only = arg.split('=').next().unwrap_or("");
                if is_secret_name(name) {
                    out.push(format!("{name_only}={MASK}"));
                    continue;
                }
                if HEADER_FLAGS.contains(&name_only) {
                    let value = arg.get(name_only.len() + 1..).unwrap_or("");
                    out.push(format!("{name_only}={}", redact_header_arg(value, true)));
                    continue;
                }
            } else if is_secret_name(flag) {
                mask_next = true;
            }
        }
        out.push(redact_word(arg));
    }
    out
}

/// One argument on its own: `NAME=value` with a secret-like name, a header
/// (`Authorization: …`), `Bearer …`, a token-like string, a URL.
fn redact_word(arg: &str) -> String {
    if !arg.starts_with('-') {
        if let Some((name, _)) = arg.split_once('=') {
            if is_env_name(name) && is_secret_name(name) {
                return format!("{name}={MASK}");
            }
        }
    }
    if let Some((scheme, _)) = arg.split_once(' ') {
        if is_auth_scheme(scheme) {
            return format!("{scheme} {MASK}");
        }
    }
    // A secret-like header, else a token-like string or a URL.
    redact_header_arg(arg, false)
}

/// `Name: value` masked when the name is secret-like (or always, for the
/// value of a `--header` flag); anything else unchanged.
fn redact_header_arg(arg: &str, always: bool) -> String {
    match arg.split_once(':') {
        Some((name, _)) if is_header_name(name) && (always || is_secret_name(name)) => {
            format!("{name}: {MASK}")
        }
        _ if always && !arg.contains("://") => MASK.to_string(),
        _ => redact_word_no_header(arg),
    }
}

fn redact_word_no_header(arg: &str) -> String {
    if looks_like_token(arg) {
        MASK.to_string()
    } else if arg.contains("://") {
        redact_url(arg)
    } else {
        arg.to_string()
    }
}

/// An HTTP header name (token characters only).
fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
}

/// An environment variable name as `env NAME=value` takes it.
fn is_env_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
}

/// The URL with userinfo and token-like query values masked.
pub fn redact_url(url: &str) -> String {
    let (before_fragment, fragment) = match url.split_once('#') {
        Some((before, fragment)) => (before, Some(fragment)),
        None => (url, None),
    };
    let (before_query, query) = match before_fragment.split_once('?') {
        Some((before, query)) => (before, Some(query)),
        None => (before_fragment, None),
    };
    let mut out = String::with_capacity(url.len());
    match before_query.split_once("://") {
        Some((scheme, rest)) => {
            out.push_str(scheme);
            out.push_str("://");
            let authority_end = rest.find('/').unwrap_or(rest.len());
            let (authority, path) = rest.split_at(authority_end);
            match authority.rsplit_once('@') {
                Some((_, host)) => {
                    out.push_str(MASK);
                    out.push('@');
                    out.push_str(host);
                }
                None => out.push_str(authority),
            }
            out.push_str(path);
        }
        None => out.push_str(before_query),
    }
    if let Some(query) = query {
        out.push('?');
        let parts: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, _)) if is_secret_name(name) => format!("{name}={MASK}"),
                _ => pair.to_string(),
            })
            .collect();
        out.push_str(&parts.join("&"));
    }
    if let Some(fragment) = fragment {
        out.push('#');
        if fragment.contains('=') {
            out.push_str(MASK);
        } else {
            out.push_str(fragment);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert_eq!(
            redact_url("https://user:pw@api.example.com/mcp?api_key=s3cr3t&region=eu#x"),
            "https://••••@api.example.com/mcp?api_key=••••&region=eu#x"
        );
        assert_eq!(
            redact_url("https://example.com/mcp"),
            "https://example.com/mcp"
        );
        assert_eq!(
            redact_url("https://example.com/?accessToken=abc&sig=zz"),
            "https://example.com/?accessToken=••••&sig=••••"
        );
    }

    #[test]
    fn args() {
        let args: Vec<String> = [
            "-y",
            "server",
            "--api-key=abc123",
            "--token",
            "tok",
            "--verbose",
            "ghp_abcdefghijklmnop",
            "--port",
            "80",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            redact_args(&args),
            vec![
                "-y",
                "server",
                "--api-key=••••",
                "--token",
                "••••",
                "--verbose",
                "••••",
                "--port",
                "80"
            ]
        );
    }

    #[test]
    fn masked_parts_line_up_with_the_display_form() {
        assert_eq!(
            masked_parts("Authorization: Bearer abc", "Authorization: ••••"),
            vec!["Bearer abc"]
        );
        assert_eq!(
            masked_parts(
                "https://u:p@h/?token=t1&x=1&sig=s2",
                "https://••••@h/?token=••••&x=1&sig=••••"
            ),
            vec!["u:p", "t1", "s2"]
        );
        assert!(masked_parts("same", "same").is_empty());
        assert_eq!(masked_parts("odd", "••••x"), vec!["odd"]);
    }

    #[test]
    fn resolved_input_values_line_up() {
        let http = |url: &str, auth: &str| Transport::Http {
            url: url.into(),
            headers: VecMap::from([("Authorization".to_string(), auth.to_string())]),
        };
        let values = resolved_values(
            &http("https://h/${input:path}/mcp", "Bearer ${input:tok}"),
            &http("https://h/p-secret/mcp", "Bearer t-secret"),
        );
        assert_eq!(values, vec!["p-secret", "t-secret"]);
    }

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn header_bearer_env_and_short_flag_forms() {
        let args = strings(&[
            "--header",
            "Authorization: Bearer hdr-secret-1",
            "-H",
            "X-Custom: custom-secret-2",
            "--header=Cookie: c=cookie-secret-3",
            "-t",
            "short-secret-4",
            "Bearer",
            "bearer-secret-5",
            "Bearer bearer-secret-6",
            "GITHUB_TOKEN=env-secret-7",
            "Authorization: Basic basic-secret-8",
            "abcdefghijklmnopqrstuvwxyz0123456789ABCD",
            "--port",
            "8080",
            "/srv/app/index.js",
            "PATH=/usr/bin",
            "stdio",
        ]);
        let shown = redact_args(&args);
        let joined = shown.join(" ");
        for secret in [
            "hdr-secret-1",
            "custom-secret-2",
            "cookie-secret-3",
            "short-secret-4",
            "bearer-secret-5",
            "bearer-secret-6",
            "env-secret-7",
            "basic-secret-8",
            "0123456789ABCD",
        ] {
            assert!(!joined.contains(secret), "{secret} in {joined}");
        }
        assert_eq!(
            shown,
            strings(&[
                "--header",
                "Authorization: ••••",
                "-H",
                "X-Custom: ••••",
                "--header=Cookie: ••••",
                "-t",
                "••••",
                "Bearer",
                "••••",
                "Bearer ••••",
                "GITHUB_TOKEN=••••",
                "Authorization: ••••",
                "••••",
                "--port",
                "8080",
                "/srv/app/index.js",
                "PATH=/usr/bin",
                "stdio",
            ])
        );
    }

    #[test]
    fn secret_by_origin_is_masked_wherever_it_lands() {
        let json = r#"{"name": "s", "enabled": true, "autoConnect": true,
            "tools": {"kind": "all"}, "loadedByVscode": false, "fingerprint": "f",
            "source": {"format": "open-code", "scope": "project", "file": "/w/o.json", "line": 1, "column": 1},
            "transport": {"type": "stdio", "command": "/opt/env-secret-2/bin",
              "args": ["--flag", "plain prefix-file-secret-1 word", "env-secret-2"],
              "cwd": "/home/env-secret-2"},
            "secretValues": ["prefix-file-secret-1", "env-secret-2", "secret"]}"#;
        let server: ServerConfig = match serde_json::from_str(json) {
            Ok(server) => server,
            Err(error) => panic!("{error}"),
        };
        let shown = serde_json::to_string(&server.redacted()).unwrap_or_default();
        assert!(!shown.contains("file-secret"), "{shown}");
        assert!(!shown.contains("env-secret"), "{shown}");
        assert!(!shown.contains("secretValues"), "{shown}");
        assert!(shown.contains("plain •••• word"), "{shown}");
        assert_eq!(
            server.mask_secrets_in("spawn env-secret-2 ENOENT"),
            "spawn •••• ENOENT"
        );
    }
}
