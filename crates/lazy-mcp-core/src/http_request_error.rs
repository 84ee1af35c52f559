//! What an upstream HTTP request that got no answer at all (a network error)
//! means for its connection. The host's HTTP connection
//! (`host/connections/httpConnection.ts`) names the error (Node's `code`:
//! `ECONNREFUSED`, ...) and whether the request was the connection's first
//! exchange, and asks here (WASM `httpRequestErrorEndsConnection`), so no list
//! of error codes lives in the host. What a status means is `http_status.rs`'s.

/// What the connection does after one of its requests failed without an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
}
