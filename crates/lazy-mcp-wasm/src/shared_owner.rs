//! The shared-server owner's multiplexer (core `shared/mux.rs`) for `lazy-mcp
//! daemon`: events JSON in, effects JSON out. No logic.

use lazy_mcp_core::shared::mux::Mux;
use wasm_bindgen::prelude::*;

/// The client ↔ owner wire version (the owner's socket name carries it).
#[wasm_bindgen(js_name = sharedProtocol)]
pub fn shared_protocol() -> u32 {
    lazy_mcp_core::shared::SHARED_PROTOCOL
}

#[wasm_bindgen]
pub struct SharedOwner {
    mux: Mux,
}

#[wasm_bindgen]
impl SharedOwner {
    #[wasm_bindgen(constructor)]
    pub fn new() -> SharedOwner {
        SharedOwner { mux: Mux::new() }
    }

    /// One `MuxEvent` as JSON → its `MuxEffect`s as a JSON array.
    pub fn handle(&mut self, event_json: &str) -> String {
        self.mux.handle_json(event_json)
    }

    /// No process and no attachment held (the owner may exit after a while).
    #[wasm_bindgen(js_name = isIdle)]
    pub fn is_idle(&self) -> bool {
        self.mux.is_idle()
    }

    /// `lazy-mcp daemon status`: one row per process, JSON.
    pub fn status(&self) -> String {
        serde_json::to_string(&self.mux.status()).unwrap_or_else(|_| "[]".into())
    }
}

impl Default for SharedOwner {
    fn default() -> Self {
        Self::new()
    }
}
