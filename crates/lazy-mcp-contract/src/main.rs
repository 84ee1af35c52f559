//! `cargo run -p lazy-mcp-contract`: rewrite the generated TypeScript contract
//! and the WASM's `hostLimits` JSON.

use std::path::Path;

fn main() -> std::process::ExitCode {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let outputs = [
        (
            lazy_mcp_contract::GENERATED_PATH,
            lazy_mcp_contract::render(),
        ),
        (
            lazy_mcp_contract::HOST_LIMITS_PATH,
            lazy_mcp_contract::render_host_limits(),
        ),
    ];
    for (relative, text) in outputs {
        if let Err(error) = std::fs::write(root.join(relative), text) {
            eprintln!("could not write {relative}: {error}");
            return std::process::ExitCode::FAILURE;
        }
        println!("wrote {relative}");
    }
    std::process::ExitCode::SUCCESS
}
