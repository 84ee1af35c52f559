//! An HTTP connection's transport (`HttpTransport`); `http_transport.rs`
//! carries it out.

pub(in crate::engine) mod machine;
