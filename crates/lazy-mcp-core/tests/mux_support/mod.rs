//! What the owner's multiplexer sent, read back as JSON, and a client's
//! launch: shared by the multiplexer's test files.
#![allow(dead_code)]

use lazy_mcp_core::shared::launch::SharedLaunch;
use lazy_mcp_core::shared::mux::{Mux, MuxEffect, MuxEvent};
use serde_json::Value;

/// Attachment `attach` of `server` with `launch` (a stdio server run by `node`) at `now_ms`.
pub fn attach_at(
    mux: &mut Mux,
    attach: u64,
    server: &str,
    launch: SharedLaunch,
    now_ms: u64,
) -> Vec<MuxEffect> {
    mux.handle(MuxEvent::Attach {
        attach,
        server: server.into(),
        launch: Box::new(launch),
        transport: serde_json::json!({"type": "stdio", "command": "node"}),
        cwd: None,
        env: serde_json::json!({"HOME": "/h"}),
        now_ms,
    })
}

/// The processes the multiplexer asked to start.
pub fn spawns(effects: &[MuxEffect]) -> Vec<u64> {
    effects
        .iter()
        .filter_map(|e| match e {
            MuxEffect::Spawn { process, .. } => Some(*process),
            _ => None,
        })
        .collect()
}

/// The messages sent to server process `which`.
pub fn to_process(effects: &[MuxEffect], which: u64) -> Vec<Value> {
    effects
        .iter()
        .filter_map(|e| match e {
            MuxEffect::ToServer { process, message } if *process == which => {
                serde_json::from_str(message).ok()
            }
            _ => None,
        })
        .collect()
}

/// Attachment `attach` sends `message`.
pub fn client(mux: &mut Mux, attach: u64, message: Value) -> Vec<MuxEffect> {
    mux.handle(MuxEvent::ClientMessage {
        attach,
        message: message.to_string(),
    })
}

/// Server process `process` sends `message`.
pub fn server(mux: &mut Mux, process: u64, message: Value) -> Vec<MuxEffect> {
    mux.handle(MuxEvent::ServerMessage {
        process,
        message: message.to_string(),
    })
}

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

/// One key's launch from a client whose idle ceiling is `ceiling_ms` (0 = never),
/// adaptive or fixed.
pub fn idle_launch(ceiling_ms: u64, adaptive: bool) -> SharedLaunch {
    SharedLaunch {
        key: "k".into(),
        roots_key: "r".into(),
        roots_bound: false,
        workspace_cwd: false,
        omit_env: Vec::new(),
        holder: "session".into(),
        idle_timeout_ms: ceiling_ms,
        adaptive_idle: adaptive,
        repeatable: Vec::new(),
    }
}
