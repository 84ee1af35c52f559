//! One upstream server: its config and state, its connection, the calls that
//! wait for it, its crash history, sign-in and subscriptions.

pub mod auth;
pub mod backoff;
pub(super) mod calls;
pub(super) mod connect;
pub(super) mod connection;
pub(super) mod connection_end;
pub(super) mod era;
pub(super) mod idle_policy;
pub(super) mod input_required;
pub(super) mod listing;
pub(super) mod resource_subscriptions;
pub mod roots;
pub(super) mod secret_text;
pub mod state;
pub(super) mod upstream;
pub(super) mod user_commands;

use crate::config::model::ServerConfig;
use crate::engine::events::ConnId;
use crate::engine::timers::TimerId;
use crate::vec_map::{VecMap, VecSet};
use auth::ServerAuth;
use backoff::CrashHistory;
use calls::QueuedCall;
use connection::Connection;
use idle_policy::RecentCalls;
use resource_subscriptions::Subscriber;
use state::ServerState;

/// The servers' side of the engine, one owner: every configured server and
/// every open connection to one. Its fields are private to `server/` (the
/// compiler keeps the router, `clients/`, `registry/` and `trust/` out):
/// they change it only through its inputs, and read it through the
/// accessors. Reading the servers is open: `Servers` derefs to its map,
/// read-only (there is no `DerefMut`).
#[derive(Debug)]
pub(in crate::engine) struct Servers {
    pub(in crate::engine) by_name: VecMap<String, Server>,
    pub(in crate::engine) conns: VecMap<ConnId, Connection>,
    /// The id the next connection gets.
    pub(in crate::engine) next_conn: ConnId,
}

impl Default for Servers {
    fn default() -> Self {
        Servers {
            by_name: VecMap::new(),
            conns: VecMap::new(),
            next_conn: 1,
        }
    }
}

impl std::ops::Deref for Servers {
    type Target = VecMap<String, Server>;
    fn deref(&self) -> &Self::Target {
        &self.by_name
    }
}

impl<'a> IntoIterator for &'a Servers {
    type Item = (&'a String, &'a Server);
    type IntoIter = <&'a VecMap<String, Server> as IntoIterator>::IntoIter;
    fn into_iter(self) -> Self::IntoIter {
        self.by_name.iter()
    }
}

#[derive(Debug)]
pub(in crate::engine) struct Server {
    pub(in crate::engine) config: ServerConfig,
    pub(in crate::engine) state: ServerState,
    /// When the server entered its current state.
    pub(in crate::engine) state_since_ms: u64,
    /// Session-only Enable/Disable from the user (never written to config).
    pub(in crate::engine) session_enabled: Option<bool>,
    pub(in crate::engine) conn: Option<ConnId>,
    /// Calls waiting for the single in-flight connect.
    pub(in crate::engine) waiters: Vec<QueuedCall>,
    pub(in crate::engine) crashes: CrashHistory,
    pub(in crate::engine) retry_timer: Option<TimerId>,
    /// The cataloguing under way (PENDING/CATALOGUING) is an automatic retry:
    /// hosts show no progress for it. Any other trigger than the retry's own ends it.
    pub(in crate::engine) background: bool,
    pub(in crate::engine) idle_timer: Option<TimerId>,
    pub(in crate::engine) last_activity_ms: u64,
    /// When its latest calls were forwarded: the idle time follows the rate (`idle_policy.rs`).
    pub(in crate::engine) recent_calls: RecentCalls,
    pub(in crate::engine) stats: ServerStats,
    /// Ask the server's era again at its next connection (refresh, or an answer
    /// saying the era changed) instead of trusting the catalogue's verdict.
    pub(in crate::engine) reprobe: bool,
    /// The era probe of a stdio server got no answer in this run (it timed out,
    /// or the process ended on it): later attempts (retries) go straight to
    /// `initialize`, so a broken server is not spawned twice per attempt. A
    /// refresh or a config change (a new runtime) probes again. Never set for
    /// HTTP: a probe costs no process there, and an HTTP server that was not
    /// reachable yet must still be probed once it is.
    pub(in crate::engine) probe_unanswered: bool,
    /// Subscribed resources by URI: who wants `resources/updated` (legacy
    /// clients' `resources/subscribe`, modern clients' listens;
    /// `resource_subscriptions.rs`). Subscribed again after a reconnect; a
    /// server with subscriptions is never idle.
    pub(in crate::engine) subscriptions: VecMap<String, VecSet<Subscriber>>,
    /// Sign-in and refresh under way, and why sign-in is needed (`auth.rs`).
    pub(in crate::engine) auth: ServerAuth,
}

#[derive(Debug, Default)]
pub(in crate::engine) struct ServerStats {
    pub(in crate::engine) pid: Option<u32>,
    /// The process is the per-user owner's, shared with other clients (`shared/launch.rs`).
    pub(in crate::engine) shared: bool,
    /// How many windows and CLI sessions hold the shared process (the owner says).
    pub(in crate::engine) shared_clients: Option<u32>,
    /// Which windows and CLI sessions hold it, oldest first (the owner says).
    pub(in crate::engine) shared_holders: Vec<crate::shared::launch::SharedHolder>,
    pub(in crate::engine) rss_bytes: Option<u64>,
    pub(in crate::engine) connect_latency_ms: Option<u64>,
    pub(in crate::engine) connected_at_ms: Option<u64>,
    pub(in crate::engine) calls_served: u64,
    pub(in crate::engine) last_error: Option<String>,
    pub(in crate::engine) dropped_declared_tools: Vec<String>,
}
