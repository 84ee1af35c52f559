//! What an upstream HTTP request that got no answer at all (a network error)
//! means for its connection. The host's HTTP connection
//! (`host/connections/httpConnection.ts`) names the error (Node's `code`:
//! `ECONNREFUSED`, ...) and whether the request was the connection's first
//! exchange, and asks here (WASM `httpRequestErrorVerdict`), so no list of
//! error codes lives in the host. What a status means is `http_status.rs`'s.

use serde::{Deserialize, Serialize};

/// What the connection does after one of its requests failed without an answer.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum HttpErrorVerdict {
    /// The server cannot be reached: the connection ends ("cannot connect to …").
    CloseConnection,
    /// Only this request failed (a reset or cut-off socket on a connection that
    /// worked): its caller gets the error, the connection goes on.
    FailRequest,
}

/// Errors that say nothing listens at the server's address, or the address
/// cannot be reached: every later request would fail the same way.
const UNREACHABLE: [&str; 3] = ["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH"];

/// The rule: a first exchange that failed never connected; later, only an
/// unreachable server ends the connection.
pub fn http_request_error_verdict(code: &str, first: bool) -> HttpErrorVerdict {
    if first || UNREACHABLE.contains(&code) {
        HttpErrorVerdict::CloseConnection
    } else {
        HttpErrorVerdict::FailRequest
    }
}

/// [`http_request_error_verdict`] as the host reads it: the verdict's contract
/// name (`"closeConnection"` or `"failRequest"`).
pub fn http_request_error_verdict_name(code: &str, first: bool) -> &'static str {
    match http_request_error_verdict(code, first) {
        HttpErrorVerdict::CloseConnection => "closeConnection",
        HttpErrorVerdict::FailRequest => "failRequest",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use HttpErrorVerdict::*;

    #[test]
    fn an_unreachable_server_ends_the_connection_and_a_cut_request_fails_alone() {
        for code in ["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH"] {
            assert_eq!(
                http_request_error_verdict(code, false),
                CloseConnection,
                "{code}"
            );
        }
        for code in ["ECONNRESET", "EPIPE", "ETIMEDOUT", "socket hang up", ""] {
            assert_eq!(
                http_request_error_verdict(code, false),
                FailRequest,
                "{code}"
            );
            // The first exchange never connected: whatever cut it, nothing works yet.
            assert_eq!(
                http_request_error_verdict(code, true),
                CloseConnection,
                "{code}"
            );
        }
    }

    #[test]
    fn the_host_reads_each_verdict_by_its_contract_name() {
        for (code, first) in [("ECONNREFUSED", false), ("ECONNRESET", false), ("x", true)] {
            let serde_name = serde_json::to_value(http_request_error_verdict(code, first)).unwrap();
            assert_eq!(serde_name, http_request_error_verdict_name(code, first));
        }
    }
}
