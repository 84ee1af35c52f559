//! The state `Clients` (`machine.rs`) holds as fields: each part with its own
//! fields, `impl` and unit tests, changed only through `Clients`' inputs. A
//! room below the owner: these files import no other room of `clients/`, so
//! the rooms that hold `impl Clients` blocks import the owner and the owner
//! imports these, never back.

pub(in crate::engine) mod answers_owed;
pub(in crate::engine) mod bridge;
pub(in crate::engine) mod bridges;
pub(in crate::engine) mod definition_starts;
pub(in crate::engine) mod exposure;
pub(in crate::engine) mod exposure_plan;
pub(in crate::engine) mod gateway_sessions;
pub(in crate::engine) mod held_versions;
pub(in crate::engine) mod listen;
pub(in crate::engine) mod modern_requests;
pub(in crate::engine::clients) mod outbound;
pub(in crate::engine) mod search_model;
pub(in crate::engine::clients) mod session;
