//! What a server's process, connects and calls measured, for Diagnostics.
//! Its fields are private to this file: the engine says what happened
//! (`handle_opening`, `handle_process_started`, `handle_connected`,
//! `handle_connection_ended`, `handle_last_error`, …) and
//! `diagnostics_snapshot.rs` reads it through the accessors.

use crate::shared::launch::SharedHolder;

/// What a server's process and calls measured (reached only through
/// `Server::stats`).
#[derive(Debug, Default)]
pub(in crate::engine) struct ServerStats {
    pid: Option<u32>,
    /// The process is the per-user owner's, shared with other clients (`shared/launch.rs`).
    shared: bool,
    /// How many windows and CLI sessions hold the shared process (the owner says).
    shared_clients: Option<u32>,
    /// Which windows and CLI sessions hold it, oldest first (the owner says).
    shared_holders: Vec<SharedHolder>,
    rss_bytes: Option<u64>,
    connect_latency_ms: Option<u64>,
    calls_served: u64,
    last_error: Option<String>,
    dropped_declared_tools: Vec<String>,
}

impl ServerStats {
    // ---- inputs --------------------------------------------------------------

    /// A connection is being opened (`shared`: to the per-user owner's
    /// process): what the last process measured is forgotten.
    pub(in crate::engine) fn handle_opening(&mut self, shared: bool) {
        self.pid = None;
        self.shared = shared;
        self.shared_clients = None;
        self.shared_holders = Vec::new();
        self.rss_bytes = None;
    }

    /// The host opened the connection; `pid` is its process, when it has one.
    pub(in crate::engine) fn handle_process_started(&mut self, pid: Option<u32>) {
        self.pid = pid;
    }

    /// The shared process's owner says who holds it.
    pub(in crate::engine) fn handle_shared(&mut self, clients: u32, holders: Vec<SharedHolder>) {
        self.shared_clients = Some(clients);
        self.shared_holders = holders;
    }

    /// The host measured the process's memory.
    pub(in crate::engine) fn handle_measured(&mut self, rss_bytes: u64) {
        self.rss_bytes = Some(rss_bytes);
    }

    /// The handshake finished, `latency_ms` after the connect began.
    pub(in crate::engine) fn handle_connected(&mut self, latency_ms: u64) {
        self.connect_latency_ms = Some(latency_ms);
    }

    /// The connection ended: its process is gone.
    pub(in crate::engine) fn handle_connection_ended(&mut self) {
        self.pid = None;
        self.rss_bytes = None;
    }

    /// A call was answered.
    pub(in crate::engine) fn handle_call_served(&mut self) {
        self.calls_served += 1;
    }

    /// The last error Diagnostics show (None: cleared, after a sign-in).
    pub(in crate::engine) fn handle_last_error(&mut self, error: Option<String>) {
        self.last_error = error;
    }

    /// The declared tools the server does not have. Returns whether that
    /// changed (then it is worth a warning).
    pub(in crate::engine) fn handle_dropped_declared_tools(&mut self, dropped: &[String]) -> bool {
        if self.dropped_declared_tools == dropped {
            return false;
        }
        self.dropped_declared_tools = dropped.to_vec();
        true
    }

    /// The server is launched differently now: everything measured is forgotten.
    pub(in crate::engine) fn handle_relaunched(&mut self) {
        *self = ServerStats::default();
    }

    // ---- reads ---------------------------------------------------------------

    pub(in crate::engine) fn pid(&self) -> Option<u32> {
        self.pid
    }

    pub(in crate::engine) fn shared(&self) -> bool {
        self.shared
    }

    pub(in crate::engine) fn shared_clients(&self) -> Option<u32> {
        self.shared_clients
    }

    pub(in crate::engine) fn shared_holders(&self) -> &[SharedHolder] {
        &self.shared_holders
    }

    pub(in crate::engine) fn rss_bytes(&self) -> Option<u64> {
        self.rss_bytes
    }

    pub(in crate::engine) fn connect_latency_ms(&self) -> Option<u64> {
        self.connect_latency_ms
    }

    pub(in crate::engine) fn calls_served(&self) -> u64 {
        self.calls_served
    }

    pub(in crate::engine) fn last_error(&self) -> Option<&String> {
        self.last_error.as_ref()
    }

    pub(in crate::engine) fn dropped_declared_tools(&self) -> &[String] {
        &self.dropped_declared_tools
    }
}

#[cfg(test)]
#[path = "stats_tests.rs"]
mod tests;
