//! Which sign-in URLs a host may hand to a browser. The authorization URL of an
//! OAuth sign-in comes from the authorization server's metadata, which a remote
//! MCP server chooses: a hostile one can name `file:///etc/passwd`, a
//! `vscode://` command URL or any other scheme the desktop's opener acts on
//! (mcp-remote's CVE-2025-6514). Only `https:` URLs, and `http:` ones whose host
//! is this machine (127.0.0.0/8, `[::1]`, `localhost`), are opened; anything
//! else fails the sign-in with an error naming the scheme (the engine adds the
//! server).
//!
//! The host passes the URL as the OAuth SDK serialized it (WHATWG `URL`:
//! lower-case scheme, no whitespace, canonical IPv4/IPv6 host, `\` turned into
//! `/`). This reading is strict rather than complete: anything it does not
//! recognize as one of the allowed forms is refused, never guessed at.

use serde::Serialize;

/// The verdict as the host reads it: `open`, or the error to end the sign-in with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SignInUrlVerdict {
    pub open: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `Ok` when `url` may be opened in a browser, else the reason it is refused.
pub fn check_sign_in_url(url: &str) -> Result<(), String> {
    const RULE: &str = "Lazy MCP opens only https: URLs, or http: ones on this machine \
                        (127.0.0.1, [::1], localhost)";
    let Some((scheme, rest)) = url.split_once(':') else {
        return Err(format!(
            "the authorization server's sign-in URL has no scheme; {RULE}"
        ));
    };
    if !is_scheme(scheme) {
        return Err(format!(
            "the authorization server's sign-in URL does not start with a valid scheme; {RULE}"
        ));
    }
    let scheme = scheme.to_ascii_lowercase();
    let refused = |what: String| Err(format!("{what}, which is not opened; {RULE}"));
    match scheme.as_str() {
        "https" | "http" => {}
        _ => {
            return refused(format!(
                "the authorization server's sign-in URL uses the `{scheme}:` scheme"
            ))
        }
    }
    let Some(authority) = authority(rest) else {
        return refused(format!(
            "the authorization server's sign-in URL (`{scheme}:`) names no host"
        ));
    };
    if scheme == "https" {
        return Ok(());
    }
    if is_loopback(host_of(authority)) {
        Ok(())
    } else {
        refused(
            "the authorization server's sign-in URL uses the `http:` scheme to a host \
             other than this machine (unencrypted)"
                .to_string(),
        )
    }
}

/// [`check_sign_in_url`] as the host reads it.
pub fn sign_in_url_verdict(url: &str) -> SignInUrlVerdict {
    match check_sign_in_url(url) {
        Ok(()) => SignInUrlVerdict {
            open: true,
            error: None,
        },
        Err(error) => SignInUrlVerdict {
            open: false,
            error: Some(error),
        },
    }
}

/// [`sign_in_url_verdict`] as JSON (the WASM export).
pub fn sign_in_url_verdict_json(url: &str) -> String {
    serde_json::to_string(&sign_in_url_verdict(url))
        .unwrap_or_else(|_| r#"{"open":false,"error":"internal error"}"#.to_string())
}

/// RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
fn is_scheme(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// The non-empty authority after `//`, with no character an opener could read
/// differently (a backslash, whitespace, a control character).
fn authority(rest: &str) -> Option<&str> {
    let after = rest.strip_prefix("//")?;
    let end = after.find(['/', '?', '#']).unwrap_or(after.len());
    let authority = after.get(..end)?;
    let clean = !authority.is_empty()
        && !authority
            .chars()
            .any(|c| c == '\\' || c.is_whitespace() || c.is_control());
    clean.then_some(authority)
}

/// The host of an authority: without userinfo (up to the last `@`) and port.
fn host_of(authority: &str) -> &str {
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if host_port.starts_with('[') {
        return host_port
            .find(']')
            .and_then(|end| host_port.get(..=end))
            .unwrap_or(host_port);
    }
    host_port.split(':').next().unwrap_or(host_port)
}

/// `localhost`, `[::1]` or a dotted-decimal 127.x.y.z (the forms a WHATWG URL serializes to).
fn is_loopback(host: &str) -> bool {
    if host.eq_ignore_ascii_case("localhost") || host == "[::1]" {
        return true;
    }
    let parts: Vec<&str> = host.split('.').collect();
    parts.len() == 4
        && parts.first() == Some(&"127")
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.chars().all(|c| c.is_ascii_digit())
                && p.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_and_loopback_http_are_opened() {
        for url in [
            "https://auth.example.com/authorize?client_id=x&state=y",
            "HTTPS://auth.example.com",
            "https://user@auth.example.com:8443/a",
            "http://127.0.0.1:4000/authorize",
            "http://127.1.2.3/a",
            "http://localhost:8080/authorize",
            "http://[::1]:9000/authorize",
            "http://u:p@127.0.0.1/x",
        ] {
            assert_eq!(check_sign_in_url(url), Ok(()), "{url}");
        }
    }

    #[test]
    fn other_schemes_and_remote_http_are_refused_naming_the_scheme() {
        for (url, named) in [
            ("file:///etc/passwd", "`file:` scheme"),
            (
                "vscode://vscode.git/clone?url=http://evil",
                "`vscode:` scheme",
            ),
            ("javascript:alert(1)", "`javascript:` scheme"),
            ("data:text/html,hi", "`data:` scheme"),
            ("ms-settings:", "`ms-settings:` scheme"),
            ("smb://host/share", "`smb:` scheme"),
            (
                "http://evil.example/",
                "`http:` scheme to a host other than this machine",
            ),
            (
                "http://127.0.0.1.evil.example/",
                "`http:` scheme to a host other",
            ),
            (
                "http://evil.example@127.0.0.1.x/",
                "`http:` scheme to a host other",
            ),
            ("http://0x7f.1/", "`http:` scheme to a host other"),
            ("http://[::ffff:7f00:1]/", "`http:` scheme to a host other"),
            ("https:evil.example", "names no host"),
            ("http://127.0.0.1\\@evil.example/", "names no host"),
            ("https:///x", "names no host"),
            ("no scheme at all", "has no scheme"),
            (" https://x", "valid scheme"),
        ] {
            let error = check_sign_in_url(url).expect_err(url);
            assert!(error.contains(named), "{url}: {error}");
            assert!(
                error.contains("Lazy MCP opens only https:"),
                "{url}: {error}"
            );
        }
    }

    #[test]
    fn the_json_verdict() {
        assert_eq!(
            sign_in_url_verdict_json("https://a.example/"),
            r#"{"open":true}"#
        );
        assert!(sign_in_url_verdict_json("file:///etc/passwd")
            .starts_with(r#"{"open":false,"error":"the authorization server's sign-in URL uses the `file:` scheme"#));
    }
}
