//! MCP protocol pieces (JSON-RPC framing, client handshake, gateway side).
//! Pure functions over `serde_json::Value`; the lifecycle engine decides when to use them.

pub mod client_discover;
pub mod client_handshake;
pub mod client_message;
pub mod gateway_discover;
pub mod gateway_handshake;
pub mod handshake_result;
pub(crate) mod json_text;
pub mod jsonrpc;
pub mod listed_item;
pub mod listen_tag;
pub mod message_fields;
pub mod methods;
pub mod missing_capability;
pub mod modern_http;
pub mod modern_request;
#[cfg(test)]
pub(crate) mod mutated_text;
pub mod outline;
pub mod param_headers;
pub mod params;
pub mod raw_members;
pub mod raw_message;
pub mod result_fields;
pub mod versions;
pub mod www_authenticate;
