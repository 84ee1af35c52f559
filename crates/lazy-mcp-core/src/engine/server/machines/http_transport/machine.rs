//! One HTTP connection's transport (`HttpTransport`): which one it speaks
//! and the deadline of its first exchange. Decided here from what the host
//! reports (`connectStarted`, `connectAnswered`); the router
//! (`http_transport.rs`) arms the timer and tells the host.

use crate::config::model::Transport;
use crate::engine::timers::TimerId;
use crate::http_status::{transport_after_first_post, HttpMode};

#[derive(Debug, Default)]
pub(in crate::engine) struct HttpTransport {
    /// `None`: not an HTTP connection (stdio).
    mode: Option<HttpMode>,
    /// The first exchange's deadline while it is under way.
    deadline: Option<TimerId>,
}

/// What an answered first exchange leaves to do.
#[derive(Debug, PartialEq, Eq)]
pub(in crate::engine) struct Answered {
    /// The deadline to cancel.
    pub(in crate::engine) deadline: Option<TimerId>,
    /// What to tell the host: the transport its probe settled (`None`: not probing).
    pub(in crate::engine) mode: Option<HttpMode>,
}

impl HttpTransport {
    /// A connection opened over `transport`: Streamable HTTP is probed by its
    /// first POST; `sse` is the legacy transport from the start.
    pub(in crate::engine) fn new(transport: &Transport) -> Self {
        let mode = match transport {
            Transport::Http { .. } => Some(HttpMode::Probing),
            Transport::Sse { .. } => Some(HttpMode::Legacy),
            Transport::Stdio { .. } => None,
        };
        HttpTransport {
            mode,
            deadline: None,
        }
    }

    /// Whether a first exchange bounds it: an HTTP connection whose
    /// transport is being probed, or the legacy one (until its `endpoint`).
    pub(in crate::engine) fn connects(&self) -> bool {
        matches!(self.mode, Some(HttpMode::Probing | HttpMode::Legacy))
    }

    /// The host started the first exchange (a probing POST, the legacy
    /// stream): `timer` bounds it; returns the deadline it replaces.
    pub(in crate::engine) fn handle_started(&mut self, timer: TimerId) -> Option<TimerId> {
        self.deadline.replace(timer)
    }

    /// The first exchange was answered with `status` (the probing POST's, or
    /// the legacy stream's with its `endpoint` event). `modern`: the probing
    /// POST was an MCP 2026-07-28 request; `oauth`: the engine signs in.
    pub(in crate::engine) fn handle_answered(
        &mut self,
        status: u16,
        modern: bool,
        oauth: bool,
    ) -> Answered {
        let deadline = self.deadline.take();
        if self.mode != Some(HttpMode::Probing) {
            return Answered {
                deadline,
                mode: None,
            };
        }
        let mode = transport_after_first_post(status, modern, oauth);
        self.mode = Some(mode);
        Answered {
            deadline,
            mode: Some(mode),
        }
    }

    /// Deadline `timer` came: what got no answer, when it is still the one
    /// that bounds the first exchange.
    pub(in crate::engine) fn handle_deadline(&mut self, timer: TimerId) -> Option<&'static str> {
        if self.deadline != Some(timer) {
            return None;
        }
        self.deadline = None;
        match self.mode? {
            HttpMode::Probing => Some("the first POST got no answer"),
            HttpMode::Legacy => Some("no `endpoint` event on the SSE stream"),
            HttpMode::Streamable => None,
        }
    }

    /// The connection ends: its deadline, to cancel.
    pub(in crate::engine) fn take_deadline(&mut self) -> Option<TimerId> {
        self.deadline.take()
    }
}

#[cfg(test)]
#[path = "machine_tests.rs"]
mod tests;
