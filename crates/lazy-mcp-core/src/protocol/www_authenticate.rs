//! The few parameters the engine reads from an HTTP `WWW-Authenticate`
//! challenge (RFC 6750 §3, RFC 9728 §5.1): `error`, `scope` and
//! `resource_metadata`. Never a token: challenges carry none.

/// One auth-param of a challenge (`scope="a b"` → `a b`), or None when absent or empty.
pub fn challenge_param(challenge: &str, name: &str) -> Option<String> {
    let key = format!("{name}=");
    let mut rest = challenge;
    while let Some(at) = rest.find(&key) {
        let before = rest.get(..at).and_then(|b| b.chars().last());
        let value = rest.get(at + key.len()..)?;
        rest = value;
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue; // `xscope=` is another parameter
        }
        let value = match value.strip_prefix('"') {
            Some(quoted) => quoted.split('"').next()?,
            None => value.split([',', ' ']).next()?,
        };
        return (!value.is_empty()).then(|| value.to_string());
    }
    None
}

/// A 403 whose challenge says `error="insufficient_scope"` (RFC 6750 §3.1): more scopes are needed.
pub fn is_insufficient_scope(status: u16, challenge: Option<&str>) -> bool {
    status == 403
        && challenge
            .and_then(|c| challenge_param(c, "error"))
            .is_some_and(|e| e == "insufficient_scope")
}

/// The protected resource metadata URL a challenge advertises (RFC 9728 §5.1),
/// when it is an absolute http(s) URL.
pub fn resource_metadata_url(challenge: Option<&str>) -> Option<String> {
    challenge
        .and_then(|c| challenge_param(c, "resource_metadata"))
        .filter(|url| url.starts_with("https://") || url.starts_with("http://"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_quoted_and_bare_params_and_skips_longer_names() {
        let c = r#"Bearer error="insufficient_scope", xscope="no", scope="mcp:tools mcp:admin", resource_metadata="http://h/.well-known/oauth-protected-resource/mcp""#;
        assert_eq!(
            challenge_param(c, "scope").as_deref(),
            Some("mcp:tools mcp:admin")
        );
        assert!(is_insufficient_scope(403, Some(c)));
        assert!(!is_insufficient_scope(401, Some(c)));
        assert_eq!(
            resource_metadata_url(Some(c)).as_deref(),
            Some("http://h/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(
            challenge_param("Bearer error=invalid_token, realm=x", "error").as_deref(),
            Some("invalid_token")
        );
        assert_eq!(
            resource_metadata_url(Some(r#"Bearer resource_metadata="file:///etc/passwd""#)),
            None
        );
        assert_eq!(challenge_param(r#"Bearer scope="""#, "scope"), None);
    }
}
