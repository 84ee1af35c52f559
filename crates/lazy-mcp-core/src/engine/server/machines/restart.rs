//! A server's restarts (`RestartMachine`); `restart.rs` carries it out.

pub(in crate::engine) mod machine;
#[cfg(test)]
mod machine_tests;
