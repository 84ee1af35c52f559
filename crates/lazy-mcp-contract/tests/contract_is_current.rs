//! Fails when a boundary type changed in Rust but the checked-in TypeScript was
//! not regenerated (the hand-written mirrors this replaced drifted silently).

use std::path::Path;

#[test]
fn generated_typescript_matches_the_rust_types() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(lazy_mcp_contract::GENERATED_PATH);
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == lazy_mcp_contract::render(),
        "{} is stale: run `cargo run -p lazy-mcp-contract` and commit the result",
        lazy_mcp_contract::GENERATED_PATH
    );
}

#[test]
fn the_wasm_host_limits_json_matches_the_core() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(lazy_mcp_contract::HOST_LIMITS_PATH);
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == lazy_mcp_contract::render_host_limits(),
        "{} is stale: run `cargo run -p lazy-mcp-contract` and commit the result",
        lazy_mcp_contract::HOST_LIMITS_PATH
    );
}
