//! MCP protocol versions: what Lazy MCP offers upstream and what it accepts.

/// The version offered in every `initialize` sent to an upstream server.
pub const OFFERED: &str = "2025-11-25";

/// Versions an upstream server may answer with (newest first). A server that
/// answers anything else is rejected with [`check_server_answer`]'s error.
pub const ACCEPTED: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Checks the `protocolVersion` an upstream server answered `initialize` with.
pub fn check_server_answer(answered: &str) -> Result<&'static str, String> {
    ACCEPTED
        .iter()
        .find(|accepted| **accepted == answered)
        .copied()
        .ok_or_else(|| {
            format!(
                "the server answered with MCP protocol version \"{answered}\", which Lazy MCP does not speak (it speaks {})",
                ACCEPTED.join(", ")
            )
        })
}

/// Gateway side: the version to answer a client's `initialize` with — the
/// client's own when we speak it, else our newest (the client then decides).
pub fn answer_client(requested: Option<&str>) -> &'static str {
    requested
        .and_then(|requested| ACCEPTED.iter().find(|v| **v == requested).copied())
        .unwrap_or(OFFERED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn older_versions_are_accepted_unknown_rejected() {
        assert_eq!(check_server_answer("2024-11-05"), Ok("2024-11-05"));
        assert_eq!(check_server_answer("2025-11-25"), Ok("2025-11-25"));
        let error = check_server_answer("1999-01-01").err().unwrap_or_default();
        assert!(error.contains("1999-01-01") && error.contains("2024-11-05"));
        assert_eq!(answer_client(Some("2025-03-26")), "2025-03-26");
        assert_eq!(answer_client(Some("2030-01-01")), OFFERED);
        assert_eq!(answer_client(None), OFFERED);
    }
}
