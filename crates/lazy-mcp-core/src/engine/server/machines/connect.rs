//! A server's single-flight connect (`ConnectMachine`) and the queue of
//! servers to catalogue (`CatalogueQueue`); `connect.rs` carries them out.

pub(in crate::engine) mod machine;
pub(in crate::engine) mod queue;
