//! The endpoint versions held back (`HeldVersions`, one owner, its field
//! private here) and the rule of what is held: a host that offers one
//! definition per server (VS Code) stops the server's running connection when
//! its definition's version changes, cancelling the requests in flight on it.
//! So while the window is busy, an endpoint offered before and now keeps the
//! version hosts were told (so does the tool index's); one added, removed or
//! no longer offered goes out at once. `clients/endpoint_versions.rs` decides when.

use crate::engine::effects::EndpointInfo;
use crate::engine::timers::TimerId;
use crate::host_limits::QUIET_BEFORE_STOP_MS;

/// Whether a version is held back, and the timer that looks again whether
/// the window is quiet (armed while one is, until it fires).
#[derive(Debug, Default)]
pub(in crate::engine) struct HeldVersions {
    holding: bool,
    timer: Option<TimerId>,
}

impl HeldVersions {
    /// A publication held a version back (`timer` armed) or none (no timer).
    pub(in crate::engine) fn held(&mut self, timer: Option<TimerId>) {
        self.holding = timer.is_some();
        self.timer = timer;
    }

    /// The timer fired: it is gone from the table; what is held stays held
    /// until the next publication.
    pub(in crate::engine) fn fired(&mut self) {
        self.timer = None;
    }

    /// The timer armed while a version is held.
    pub(in crate::engine) fn timer(&self) -> Option<TimerId> {
        self.timer
    }

    /// Whether a version is held back now.
    pub(in crate::engine) fn is_holding(&self) -> bool {
        self.holding
    }
}

/// When the window is quiet, after a client last sent or was answered
/// anything at `heard_ms` (none: it is quiet): the quiet time and one more
/// ms, the moment a session that only listed is closed (`definition_starts`).
pub(in crate::engine) fn quiet_at(heard_ms: Option<u64>) -> u64 {
    heard_ms.map_or(0, |heard| {
        heard.saturating_add(QUIET_BEFORE_STOP_MS).saturating_add(1)
    })
}

/// `endpoints` and `aggregate` (the tool index's version) as hosts may be
/// told while the window is busy: each endpoint offered both in `published`
/// and now keeps its published version, and so does the tool index when it
/// is offered both times. Returns whether any version was kept back.
pub(in crate::engine) fn keep_published(
    published: (&[EndpointInfo], Option<&String>),
    endpoints: &mut [EndpointInfo],
    aggregate: &mut Option<String>,
) -> bool {
    let (before, aggregate_before) = published;
    let mut held = false;
    for endpoint in endpoints.iter_mut().filter(|e| e.offered) {
        let told = before
            .iter()
            .find(|b| b.offered && b.server == endpoint.server);
        if let Some(told) = told.filter(|b| b.version != endpoint.version) {
            endpoint.version.clone_from(&told.version);
            held = true;
        }
    }
    if let (Some(told), Some(now)) = (aggregate_before, aggregate.as_mut()) {
        if told != now {
            now.clone_from(told);
            held = true;
        }
    }
    held
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoint(server: &str, version: &str, offered: bool) -> EndpointInfo {
        EndpointInfo {
            server: server.into(),
            version: version.into(),
            offered,
        }
    }

    #[test]
    fn a_changed_version_is_kept_and_everything_else_goes_out() {
        let before = [
            endpoint("a", "1", true),
            endpoint("b", "1", true),
            endpoint("c", "1", false),
            endpoint("gone", "1", true),
        ];
        let mut now = vec![
            endpoint("a", "2", true),
            // No longer offered: hosts drop it at once.
            endpoint("b", "2", false),
            // Offered now: hosts add it at once.
            endpoint("c", "2", true),
            endpoint("new", "1", true),
        ];
        let mut aggregate = Some("y".to_string());
        let told = "x".to_string();
        assert!(keep_published(
            (&before, Some(&told)),
            &mut now,
            &mut aggregate
        ));
        let versions: Vec<&str> = now.iter().map(|e| e.version.as_str()).collect();
        assert_eq!(versions, ["1", "2", "2", "1"]);
        assert_eq!(aggregate.as_deref(), Some("x"));
        // The tool index offered for the first time goes out at once.
        let mut aggregate = Some("y".to_string());
        assert!(!keep_published(
            (&before[..1], None),
            &mut now[..1],
            &mut aggregate
        ));
        assert_eq!(aggregate.as_deref(), Some("y"));
    }

    #[test]
    fn the_window_is_quiet_one_ms_after_the_quiet_time() {
        assert_eq!(quiet_at(None), 0);
        assert_eq!(quiet_at(Some(10)), 10 + QUIET_BEFORE_STOP_MS + 1);
    }
}
