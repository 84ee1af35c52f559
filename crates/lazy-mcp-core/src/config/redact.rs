//! Display form of a server: everything a secret may hide in is masked with
//! `••••`, keys stay visible. Header values, env values, URL userinfo,
//! token-like URL query parameters, and token-like command-line arguments
//! (`--api-key=…`, the value after `--token`, strings that look like known
//! token formats) are masked. Used by Diagnostics and logs.

use super::model::{ServerConfig, Transport};
use std::collections::BTreeMap;

/// What a masked value is shown as.
pub const MASK: &str = "••••";

impl ServerConfig {
    /// A copy safe to show or log: secrets masked, keys visible, fingerprint kept.
    pub fn redacted(&self) -> ServerConfig {
        let transport = match &self.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
                env_file,
            } => Transport::Stdio {
                command: command.clone(),
                args: redact_args(args),
                env: mask_values(env),
                cwd: cwd.clone(),
                env_file: env_file.clone(),
            },
            Transport::Http { url, headers } => Transport::Http {
                url: redact_url(url),
                headers: mask_values(headers),
            },
            Transport::Sse { url, headers } => Transport::Sse {
                url: redact_url(url),
                headers: mask_values(headers),
            },
        };
        ServerConfig {
            transport,
            ..self.clone()
        }
    }
}

fn mask_values(map: &BTreeMap<String, String>) -> BTreeMap<String, String> {
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
    value.len() >= 12 && PREFIXES.iter().any(|prefix| value.starts_with(prefix))
}

fn redact_args(args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut mask_next = false;
    for arg in args {
        if mask_next {
            mask_next = false;
            if !arg.starts_with('-') {
                out.push(MASK.to_string());
                continue;
            }
        }
        if let Some(flag) = arg.strip_prefix('-') {
            let flag = flag.trim_start_matches('-');
            if let Some((name, _)) = flag.split_once('=') {
                if is_secret_name(name) {
                    out.push(format!("{}={MASK}", arg.split('=').next().unwrap_or("")));
                    continue;
                }
            } else if is_secret_name(flag) {
                mask_next = true;
            }
        }
        if looks_like_token(arg) {
            out.push(MASK.to_string());
        } else if arg.contains("://") {
            out.push(redact_url(arg));
        } else {
            out.push(arg.clone());
        }
    }
    out
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
}
