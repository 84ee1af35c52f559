//! The machines `Servers` holds as fields (per server, or per connection in
//! `Connection`): each one's state, its own `impl` and unit tests, no I/O and
//! no `Servers`. They sit below the owner (`servers.rs`) and `connection.rs`,
//! and below the `impl Servers` files named after them (`auth.rs`,
//! `connect.rs`, `handshake.rs`, …), which hand them inputs and carry out
//! their outputs; so nothing here imports those rooms back.

pub(in crate::engine) mod auth;
pub(in crate::engine) mod connect;
pub(in crate::engine) mod handshake;
pub(in crate::engine) mod http_transport;
pub(in crate::engine) mod idle;
pub(in crate::engine) mod listing;
pub(in crate::engine) mod resource_subscriptions;
pub(in crate::engine) mod restart;
