//! A server's resource subscriptions table (`Subscriptions`);
//! `resource_subscriptions.rs` carries it out.

pub(in crate::engine) mod table;
#[cfg(test)]
mod table_tests;
