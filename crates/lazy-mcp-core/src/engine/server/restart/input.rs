//! The inputs of a server's restarts, named: what the router hands
//! `Servers::restart` (a file of its own: the timers name it without
//! importing the servers' code).

pub(in crate::engine) enum RestartInput {
    /// A connection failed with `error` (a crash of a server with a
    /// catalogue may leave it CATALOGUED).
    Failed {
        error: String,
        may_stay_catalogued: bool,
    },
    /// The retry timer fired: an automatic retry, in the background.
    RetryFired,
    /// A user action or a config edit on a FAILED server: try again now, in
    /// the foreground.
    RetryNow,
}

impl RestartInput {
    pub(in crate::engine) fn failed(error: String, may_stay_catalogued: bool) -> Self {
        RestartInput::Failed {
            error,
            may_stay_catalogued,
        }
    }
}
