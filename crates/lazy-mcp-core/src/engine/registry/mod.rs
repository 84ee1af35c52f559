//! The servers' config and catalogue, one owner (`machine.rs`, `Registry`): a
//! config load's file rounds, the persisted catalogue and reading it back at
//! start, and the shared catalogue (entries of shared servers under their
//! sharing key). It reads the servers only through `configured_servers.rs`'s
//! trait and imports neither server/ nor the router: the router carries out
//! what its inputs return (`router/registry.rs`), and diffs a server list
//! against the running servers itself (`router/registry/config_diff.rs`).
//!
//! Order of the rooms, top to bottom: `shared_catalogue`, `config_load`,
//! `catalogue_loading` (they decide over `Registry`) → `machine` (`Registry`)
//! → `shared_catalogue_memory`, `configured_servers`, `catalogue_entry_json`
//! → `catalogue`.

pub mod catalogue;
mod catalogue_entry_json;
pub(super) mod catalogue_loading;
pub(super) mod config_load;
pub(super) mod configured_servers;
pub(super) mod machine;
pub mod shared_catalogue;
pub(super) mod shared_catalogue_memory;
