//! Shared servers (issue 26, docs/shared-servers.md): one server process per
//! sharing key for every engine of one OS user. `launch.rs` decides whether a
//! launch is shared and under which key (run by the engine for its `open`
//! effect); `mux.rs` is the owner's multiplexer: N client attachments over one
//! server process (ids, `initialize`, server requests, notifications,
//! cancellation), with `splice.rs` its hot path (ids rewritten in the bytes) and
//! `subscribers.rs` its resource subscriptions (one upstream per URI).
//! All pure: the owner's TypeScript only moves bytes.

pub mod launch;
mod launch_json;
pub mod mux;
pub mod splice;
pub mod subscribers;

/// Version of the client ↔ owner wire (the socket's name carries it): a client
/// of another version starts its own owner beside the old one, which drains.
/// Clients of other Lazy MCP versions with this wire version attach to the
/// running owner (docs/shared-servers.md "Versions"), so bump it with any change
/// to the frames, to what an attach carries, or to what a client relies on the
/// owner's multiplexer doing. 2: an attach carries the client's idle ceiling
/// and the owner keeps a process for the idle time of its own call rate.
/// Still 2 with `repeatable` (the tools safe to send again after a move): an
/// owner that does not read it sends every call again, as before, and one that
/// does reads none from an older client, so sends no `tools/call` again (the
/// safe side); neither breaks a call.
pub const SHARED_PROTOCOL: u32 = 2;
