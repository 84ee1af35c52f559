//! A server's idle stop (`IdleMachine`); `idle.rs` carries it out.

pub(in crate::engine) mod machine;
#[cfg(test)]
mod machine_tests;
