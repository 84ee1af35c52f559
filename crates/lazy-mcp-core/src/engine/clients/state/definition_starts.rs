//! Starting the host's client definitions until they are listed, as a state
//! machine (the state `Clients` keeps; its fields are private here). VS Code
//! lists an extension's MCP tools only after starting its definition once,
//! and ignores a start for a definition it has not read yet, so each new or
//! changed definition is asked to start on the core's schedule
//! (`host_limits.rs` `START_PAUSES_MS`, …) until a client was answered
//! `tools/list` on its endpoint. A start that fails is never asked again.
//! Then, once no client of the window sent or was answered anything for the
//! quiet time and no call is under way, the session is closed if it only
//! listed (the router checks: `clients/definition_starts.rs`).

use crate::engine::effects::EndpointInfo;
use crate::engine::events::Endpoint;
use crate::host_limits::{QUIET_BEFORE_STOP_MS, START_LIMIT_MS, START_PAUSES_MS};

/// What the router does next for one definition.
#[derive(Debug, PartialEq)]
pub(in crate::engine) enum Next {
    Nothing,
    /// Ask the client to start this version of the definition (`startDefinition`).
    Ask(String),
    /// Wake the machine at this time (a timer; `poll_due` then says what is due).
    WakeAt(u64),
    /// Quiet long enough: close the client's session (`stopDefinition`) if it
    /// only listed and nothing is in flight (`handle_stop_decided`), or wait
    /// again while a call is (`handle_busy`).
    StopIfIdle,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// A start is under way: its outcome (`definitionStarted`) is awaited.
    Asking,
    /// Before an ask: the first (due at once) or the next, after its pause.
    Pausing,
    /// Listed: waiting until nothing came on the endpoint for the quiet time.
    Quiet,
    /// Quiet: one more turn of the host's loop, so a message already on its
    /// way in is read before the decision.
    Confirming,
}

#[derive(Debug)]
struct Attempt {
    version: String,
    since_ms: u64,
    asks: usize,
    phase: Phase,
    /// When a client last sent anything on the endpoint (from the attempt's start).
    heard_ms: u64,
    /// When its pause or quiet time ends (`poll_due`).
    wake_ms: Option<u64>,
}

/// One endpoint's definition: the version offered now (none: not offered),
/// the version last asked for (asked once), the attempt under way and when a
/// client was last answered `tools/list` on the endpoint.
#[derive(Debug)]
struct Def {
    endpoint: Endpoint,
    offered: Option<String>,
    asked: Option<String>,
    listed_ms: Option<u64>,
    attempt: Option<Attempt>,
}

/// Every endpoint's [`Def`] (a few: a list).
#[derive(Debug, Default)]
pub(in crate::engine) struct DefinitionStarts {
    /// The config load lets the host ask (not in Restricted Mode).
    trusted: bool,
    /// When a client of the window last sent anything or was answered (the
    /// held endpoint versions wait for its quiet time too: `endpoint_versions.rs`).
    heard_ms: Option<u64>,
    /// The offered definitions changed, or `trusted` turned on: review them.
    due: bool,
    defs: Vec<Def>,
}

impl DefinitionStarts {
    /// The endpoint's [`Def`], made when it has none yet.
    fn def(&mut self, endpoint: &Endpoint) -> Option<&mut Def> {
        match self.defs.iter().position(|d| d.endpoint == *endpoint) {
            Some(at) => self.defs.get_mut(at),
            None => {
                self.defs.push(Def {
                    endpoint: endpoint.clone(),
                    offered: None,
                    asked: None,
                    listed_ms: None,
                    attempt: None,
                });
                self.defs.last_mut()
            }
        }
    }

    /// The endpoint's [`Def`] while an attempt is under way on it.
    fn under_way(&mut self, endpoint: &Endpoint) -> Option<&mut Def> {
        self.defs
            .iter_mut()
            .find(|d| d.attempt.is_some() && d.endpoint == *endpoint)
    }

    // ---- inputs ------------------------------------------------------------

    /// Whether the last config load lets the host start definitions.
    pub(in crate::engine) fn handle_trusted(&mut self, trusted: bool) {
        self.due |= trusted && !self.trusted;
        self.trusted = trusted;
    }

    /// The definitions offered now: the `offered` server endpoints', and the
    /// tool index's (the aggregate endpoint) when it has a version.
    pub(in crate::engine) fn handle_offered(
        &mut self,
        endpoints: &[EndpointInfo],
        aggregate: Option<&String>,
    ) {
        for def in &mut self.defs {
            def.offered = None;
        }
        for e in endpoints.iter().filter(|e| e.offered) {
            let endpoint = Endpoint::Server {
                name: e.server.clone(),
            };
            if let Some(def) = self.def(&endpoint) {
                def.offered = Some(e.version.clone());
            }
        }
        if let Some(def) = aggregate.and_then(|_| self.def(&Endpoint::Aggregate)) {
            def.offered = aggregate.cloned();
        }
        self.due = true;
    }

    /// A client was answered `tools/list` on `endpoint`.
    pub(in crate::engine) fn handle_listed(&mut self, endpoint: &Endpoint, now_ms: u64) {
        if let Some(def) = self.def(endpoint) {
            def.listed_ms = Some(now_ms);
        }
    }

    /// A client sent a message on any endpoint, or was answered (the hot
    /// path: one time kept, and nothing more while no attempt is under way).
    /// The window's and every attempt's quiet time start afresh: an agent calls one server's tool right after
    /// another's answer, and closing a session then cancels that call.
    #[inline]
    pub(in crate::engine) fn handle_activity(&mut self, now_ms: u64) {
        self.heard_ms = Some(now_ms);
        for attempt in self.defs.iter_mut().filter_map(|d| d.attempt.as_mut()) {
            attempt.heard_ms = now_ms;
        }
    }

    /// After `StopIfIdle`: the session was closed, or is in use (the attempt
    /// is over).
    pub(in crate::engine) fn handle_stop_decided(&mut self, endpoint: &Endpoint) {
        if let Some(def) = self.under_way(endpoint) {
            def.attempt = None;
        }
    }

    /// After `StopIfIdle`: a call of the window is under way, so the decision
    /// waits for another quiet time.
    pub(in crate::engine) fn handle_busy(&mut self, endpoint: &Endpoint, now_ms: u64) -> Next {
        match self.under_way(endpoint).and_then(|d| d.attempt.as_mut()) {
            Some(attempt) => {
                attempt.heard_ms = now_ms;
                quiet(attempt, now_ms)
            }
            None => Next::Nothing,
        }
    }

    /// After a change (`due`): an attempt whose definition is no longer offered
    /// in its version ends, and with `allowed` (and trusted) each definition
    /// offered in a version not asked for yet begins one, due now (`poll_due`).
    pub(in crate::engine) fn review(&mut self, allowed: bool, now_ms: u64) {
        self.due = false;
        let allowed = allowed && self.trusted;
        for def in &mut self.defs {
            def.attempt
                .take_if(|a| def.offered.as_ref() != Some(&a.version));
            if def.offered.is_none() {
                def.asked = None;
            }
            if !allowed || def.asked == def.offered {
                continue;
            }
            def.asked.clone_from(&def.offered);
            def.attempt = def.offered.clone().map(|version| Attempt {
                version,
                since_ms: now_ms,
                asks: 0,
                phase: Phase::Pausing,
                heard_ms: now_ms,
                wake_ms: Some(now_ms),
            });
        }
    }

    /// The start of `version` ended: `ok`, or failed (never asked again).
    pub(in crate::engine) fn handle_started(
        &mut self,
        endpoint: &Endpoint,
        version: &str,
        ok: bool,
        now_ms: u64,
    ) -> Next {
        let Some(def) = self.under_way(endpoint) else {
            return Next::Nothing;
        };
        let listed = def.listed_ms;
        let Some(attempt) = def
            .attempt
            .as_mut()
            .filter(|a| a.version == version && a.phase == Phase::Asking)
        else {
            return Next::Nothing;
        };
        if !ok {
            def.attempt = None;
            return Next::Nothing;
        }
        if listed.is_some_and(|at| at >= attempt.since_ms) {
            return quiet(attempt, now_ms);
        }
        // The last pause repeats.
        let pause = START_PAUSES_MS
            .get(attempt.asks)
            .or(START_PAUSES_MS.last())
            .copied()
            .unwrap_or_default();
        attempt.asks += 1;
        attempt.phase = Phase::Pausing;
        wake(attempt, now_ms.saturating_add(pause))
    }

    /// The machine's timer fired: the first attempt whose pause or quiet time
    /// ended, and what to do for it (`None`: nothing is due).
    pub(in crate::engine) fn poll_due(&mut self, now_ms: u64) -> Option<(Endpoint, Next)> {
        let def = self.defs.iter_mut().find(|d| {
            d.attempt
                .as_ref()
                .is_some_and(|a| a.wake_ms.is_some_and(|at| at <= now_ms))
        })?;
        let listed = def.listed_ms;
        let attempt = def.attempt.as_mut()?;
        attempt.wake_ms = None;
        let next = match attempt.phase {
            Phase::Pausing if listed.is_some_and(|at| at >= attempt.since_ms) => {
                quiet(attempt, now_ms)
            }
            // Given up at the limit: the attempt ends.
            Phase::Pausing if now_ms.saturating_sub(attempt.since_ms) >= START_LIMIT_MS => {
                Next::Nothing
            }
            Phase::Pausing => {
                attempt.phase = Phase::Asking;
                Next::Ask(attempt.version.clone())
            }
            Phase::Confirming => Next::StopIfIdle,
            Phase::Quiet => quiet(attempt, now_ms),
            // Never due: an ask waits for its `definitionStarted`, not a timer.
            Phase::Asking => Next::Nothing,
        };
        // `StopIfIdle` keeps the attempt (no wake) until the router decides.
        if next == Next::Nothing {
            def.attempt = None;
        }
        Some((def.endpoint.clone(), next))
    }

    // ---- reads -------------------------------------------------------------

    /// Whether a review is due (`review`).
    pub(in crate::engine) fn is_due(&self) -> bool {
        self.due
    }

    /// When a client of the window last sent anything or was answered.
    pub(in crate::engine) fn heard_at(&self) -> Option<u64> {
        self.heard_ms
    }

    /// When a client was last answered `tools/list` on `server`'s endpoint.
    pub(in crate::engine) fn listed_at(&self, server: &str) -> Option<u64> {
        let def = self.defs.iter().find(|d| match &d.endpoint {
            Endpoint::Server { name } => name == server,
            Endpoint::Aggregate => false,
        })?;
        def.listed_ms
    }
}

/// Listed: wait until nothing came on the endpoint for the quiet time, then
/// one more turn (`Confirming`) before the stop is decided.
fn quiet(attempt: &mut Attempt, now_ms: u64) -> Next {
    let quiet_at = attempt.heard_ms.saturating_add(QUIET_BEFORE_STOP_MS);
    if now_ms < quiet_at {
        attempt.phase = Phase::Quiet;
        return wake(attempt, quiet_at);
    }
    attempt.phase = Phase::Confirming;
    wake(attempt, now_ms.saturating_add(1))
}

fn wake(attempt: &mut Attempt, at_ms: u64) -> Next {
    attempt.wake_ms = Some(at_ms);
    Next::WakeAt(at_ms)
}
