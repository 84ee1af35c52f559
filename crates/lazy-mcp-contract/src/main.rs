//! `cargo run -p lazy-mcp-contract`: rewrite the generated TypeScript contract.

use std::path::Path;

fn main() -> std::process::ExitCode {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let path = root.join(lazy_mcp_contract::GENERATED_PATH);
    match std::fs::write(&path, lazy_mcp_contract::render()) {
        Ok(()) => {
            println!("wrote {}", lazy_mcp_contract::GENERATED_PATH);
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("could not write {}: {error}", path.display());
            std::process::ExitCode::FAILURE
        }
    }
}
