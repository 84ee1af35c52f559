use wasm_bindgen::prelude::*;

#[wasm_bindgen(js_name = coreVersion)]
pub fn core_version() -> String {
    lazy_mcp_core::CORE_VERSION.to_string()
}
