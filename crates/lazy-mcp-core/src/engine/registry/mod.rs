//! The servers' config and catalogue, one owner (`machine.rs`, `Registry`): a
//! config load's file rounds, applying a server list, the persisted catalogue
//! and reading it back at start, and the shared catalogue (entries of shared
//! servers under their sharing key).

pub mod catalogue;
mod catalogue_entry_json;
pub(super) mod catalogue_loading;
pub(super) mod config_diff;
pub(super) mod config_load;
pub(super) mod machine;
pub mod shared_catalogue;
