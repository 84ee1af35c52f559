//! Lazy MCP core: everything that decides. No I/O, no clock, no wasm types:
//! the host feeds events in and carries effects out (see ARCHITECTURE.md).

pub mod config;
pub mod diagnostics;
pub mod display_path;
pub mod engine;
#[cfg(test)]
mod hand_reader_tests;
pub mod host_limits;
pub mod host_waits;
pub mod http_request_error;
pub mod http_status;
pub mod idle_tiers;
mod presentation_input_json;
pub mod problem_presentation;
pub mod protocol;
mod report_context_json;
pub mod shared;
pub mod sign_in_url;
pub mod sorting;
pub mod tagged_json;
pub mod tool_index;
pub mod vec_map;
pub mod wording;

/// Version of the core, reported by "MCP Diagnostics".
pub const CORE_VERSION: &str = env!("CARGO_PKG_VERSION");
