//! What the owner's multiplexer sent, read back as JSON: shared by the
//! multiplexer's test files.
#![allow(dead_code)]

use lazy_mcp_core::shared::mux::MuxEffect;
use serde_json::Value;

/// The messages sent to server processes.
pub fn to_server(effects: &[MuxEffect]) -> Vec<Value> {
    effects
        .iter()
        .filter_map(|e| match e {
            MuxEffect::ToServer { message, .. } => serde_json::from_str(message).ok(),
            _ => None,
        })
        .collect()
}

/// The messages sent to attachment `who`.
pub fn to_client(effects: &[MuxEffect], who: u64) -> Vec<Value> {
    effects
        .iter()
        .filter_map(|e| match e {
            MuxEffect::ToClient { attach, message } if *attach == who => {
                serde_json::from_str(message).ok()
            }
            _ => None,
        })
        .collect()
}
