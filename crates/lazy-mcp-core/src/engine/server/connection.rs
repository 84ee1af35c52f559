//! One upstream connection as the engine tracks it: why it was opened, its
//! handshake (a machine of its own), and the requests it has in flight.
//!
//! Its own state (purpose, the requests in flight and their ids, whether it
//! is live, its listen, when roots were asked, its handshake timer) is
//! private here: `server/`'s files give it named inputs (`send_request`,
//! `take_answered`, `went_live`, `roots_asked`, `close`, …) and read it
//! through accessors, and what only that state answers (which requests a
//! closed connection fails, which calls go again after an era change, whether
//! a timer or a listen's answer still matters) is decided here, unit-tested in
//! `connection_tests.rs` without an engine. Its name is read through
//! `server()` (it never changes) and its machines (handshake, listing, auth,
//! HTTP transport) are lent to `server/`'s files to feed, each keeping its
//! own fields private.

use crate::config::model::Transport;
use crate::engine::effects::Effect;
use crate::engine::server::calls::ForwardedCall;
use crate::engine::server::machines::auth::machine::ConnAuth;
use crate::engine::server::machines::handshake::input::HandshakeInput;
use crate::engine::server::machines::handshake::machine::{
    Handshake, HandshakeContext, HandshakeMachine, HandshakeOutput, Phase,
};
use crate::engine::server::machines::http_transport::machine::{Answered, HttpTransport};
use crate::engine::server::machines::listing::machine::{
    ListingInput, ListingMachine, ListingOutput,
};
use crate::engine::server::pending::Pending;
use crate::engine::server::purpose::Purpose;
use crate::engine::timers::TimerId;
use crate::protocol::client_discover::Era;
use crate::protocol::client_handshake::InitializeOutcome;
use crate::vec_map::VecMap;
use serde_json::Value;

#[derive(Debug)]
pub(in crate::engine) struct Connection {
    server: String,
    purpose: Purpose,
    opened_at_ms: u64,
    next_id: u64,
    pending: VecMap<u64, Pending>,
    /// Its listing rounds: kinds outstanding, pages so far (`machines/listing/machine.rs` owns it).
    listing: ListingMachine,
    handshake_timer: Option<TimerId>,
    /// Calls are forwarded (the server is CONNECTED on this connection).
    live: bool,
    /// When the server asked for `roots/list` before calls flowed.
    roots_asked_at_ms: Option<u64>,
    /// Its handshake: phase, era, what the server said (`machines/handshake/machine.rs` owns it).
    handshake: HandshakeMachine,
    /// The connection may open a browser / OAuth flow (not for cataloguing).
    interactive: bool,
    /// The upstream id of the open `subscriptions/listen` (modern servers, `era.rs`).
    listen: Option<u64>,
    /// Requests held by the host after an auth challenge (`machines/auth/machine.rs` owns it).
    auth: ConnAuth,
    /// HTTP: the transport it speaks, its first exchange's deadline
    /// (`machines/http_transport/machine.rs` owns it).
    http: HttpTransport,
}

/// What a connection that went live hands back: how long it took, and the
/// handshake timer to cancel.
#[derive(Debug, PartialEq, Eq)]
pub(in crate::engine) struct WentLive {
    pub(in crate::engine) latency_ms: u64,
    pub(in crate::engine) handshake_timer: Option<TimerId>,
}

/// What a closed connection leaves: the handshake timer to cancel and its
/// calls in flight, each failed to its client (the engine's own requests end
/// with it, unanswered).
#[derive(Debug)]
pub(in crate::engine) struct Closed {
    pub(in crate::engine) handshake_timer: Option<TimerId>,
    /// HTTP: the first exchange's deadline.
    pub(in crate::engine) connect_deadline: Option<TimerId>,
    pub(in crate::engine) calls: Vec<(u64, Box<ForwardedCall>)>,
}

impl Connection {
    /// A connection to `server` just asked of the host at `now_ms`, its
    /// handshake bounded by `handshake_timer`.
    pub(in crate::engine) fn new(
        server: String,
        purpose: Purpose,
        interactive: bool,
        handshake: Handshake,
        now_ms: u64,
        handshake_timer: TimerId,
    ) -> Self {
        Connection {
            server,
            purpose,
            opened_at_ms: now_ms,
            next_id: 1,
            pending: VecMap::new(),
            listing: Default::default(),
            handshake_timer: Some(handshake_timer),
            live: false,
            roots_asked_at_ms: None,
            handshake: HandshakeMachine::new(handshake),
            interactive,
            listen: None,
            auth: ConnAuth::default(),
            http: HttpTransport::default(),
        }
    }

    /// It reaches its server over `transport` (HTTP: its transport machine).
    pub(in crate::engine) fn speaking(mut self, transport: &Transport) -> Self {
        self.http = HttpTransport::new(transport);
        self
    }

    // ---- reads ---------------------------------------------------------------

    /// The server it is a connection to.
    pub(in crate::engine) fn server(&self) -> &String {
        &self.server
    }

    pub(in crate::engine) fn handshake(&self) -> &HandshakeMachine {
        &self.handshake
    }

    pub(in crate::engine) fn auth(&self) -> &ConnAuth {
        &self.auth
    }

    pub(super) fn auth_mut(&mut self) -> &mut ConnAuth {
        &mut self.auth
    }

    /// A `send` on it: held while it waits for a sign-in (None), else returned.
    pub(in crate::engine) fn handle_send(&mut self, send: Effect) -> Option<Effect> {
        self.auth.handle_send(send)
    }

    /// It goes on after a sign-in or refresh: the `send`s it held, in order.
    pub(in crate::engine) fn take_held_sends(&mut self) -> Vec<Effect> {
        self.auth.take_held_sends()
    }

    /// The host started its first HTTP exchange, bounded by `timer`: the
    /// deadline it replaces, to cancel.
    pub(in crate::engine) fn connect_started(&mut self, timer: TimerId) -> Option<TimerId> {
        self.http.handle_started(timer)
    }

    /// Its first HTTP exchange was answered with `status` (`oauth`: its
    /// server signs in); a modern request's status is its answer.
    pub(in crate::engine) fn connect_answered(&mut self, status: u16, oauth: bool) -> Answered {
        let modern = self.handshake.era() == Era::Modern;
        self.http.handle_answered(status, modern, oauth)
    }

    /// Deadline `timer` of its first exchange came: what timed out, when it
    /// is still that exchange's.
    pub(in crate::engine) fn connect_deadline(&mut self, timer: TimerId) -> Option<&'static str> {
        self.http.handle_deadline(timer)
    }

    /// A message arrived: after a refresh, the next refused token may be
    /// refreshed again.
    #[inline]
    pub(in crate::engine) fn answer_arrived(&mut self) {
        self.auth.handle_answer();
    }

    pub(in crate::engine) fn http(&self) -> &HttpTransport {
        &self.http
    }

    pub(in crate::engine) fn purpose(&self) -> Purpose {
        self.purpose
    }

    /// Why it was opened and whether it may open a browser: what a fresh
    /// connection replacing it (a reopen, a reprobe) is opened with.
    pub(in crate::engine) fn reopen_as(&self) -> (Purpose, bool) {
        (self.purpose, self.interactive)
    }

    /// Calls are forwarded on it (its server is CONNECTED on it).
    pub(in crate::engine) fn is_live(&self) -> bool {
        self.live
    }

    /// Its handshake is not done or calls do not flow yet: a resumed
    /// connection goes back to the handshake's own bound.
    pub(in crate::engine) fn is_handshaking(&self) -> bool {
        self.handshake.phase() != Phase::Ready || !self.live
    }

    /// When the server asked for roots before calls flowed.
    pub(in crate::engine) fn roots_asked_at(&self) -> Option<u64> {
        self.roots_asked_at_ms
    }

    /// The armed handshake timer, if any (rearming it is the reader's job).
    pub(in crate::engine) fn handshake_timer(&self) -> Option<TimerId> {
        self.handshake_timer
    }

    /// The id the next request gets (a call's timer names it before it is sent).
    pub(in crate::engine) fn next_request_id(&self) -> u64 {
        self.next_id
    }

    /// Request `id` is in flight (not answered, timed out or cancelled yet).
    pub(in crate::engine) fn awaits_answer(&self, id: u64) -> bool {
        self.pending.contains_key(&id)
    }

    /// The forwarded call `id`, when that request is one.
    pub(in crate::engine) fn call(&self, id: u64) -> Option<&ForwardedCall> {
        match self.pending.get(&id)? {
            Pending::Call(call) => Some(call),
            _ => None,
        }
    }

    /// Every forwarded call in flight, by upstream id, oldest first.
    pub(in crate::engine) fn calls(&self) -> impl Iterator<Item = (u64, &ForwardedCall)> {
        self.pending.iter().filter_map(|(id, p)| match p {
            Pending::Call(call) => Some((*id, &**call)),
            _ => None,
        })
    }

    /// Any client call is in flight (the idle check: a busy server is not idle).
    pub(in crate::engine) fn has_calls_in_flight(&self) -> bool {
        self.pending.values().any(|p| matches!(p, Pending::Call(_)))
    }

    // ---- inputs ----------------------------------------------------------------

    /// A request is sent: it gets the next id, and `pending` says what its
    /// answer is for. Returns the id.
    pub(in crate::engine) fn send_request(&mut self, pending: Pending) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.pending.insert(id, pending);
        id
    }

    /// The answer to request `id` came: what it was for, once.
    pub(in crate::engine) fn take_answered(&mut self, id: u64) -> Option<Pending> {
        self.pending.remove(&id)
    }

    /// Request `id` leaves the table (answered, cancelled, timed out): the
    /// forwarded call, when it was one.
    pub(in crate::engine) fn take_call(&mut self, id: u64) -> Option<Box<ForwardedCall>> {
        match self.pending.remove(&id)? {
            Pending::Call(call) => Some(call),
            _ => None,
        }
    }

    /// A call taken with [`Connection::take_call`] waits on under its id.
    pub(in crate::engine) fn put_call_back(&mut self, id: u64, call: Box<ForwardedCall>) {
        self.pending.insert(id, Pending::Call(call));
    }

    /// The call `id`, whose client was answered `input_required`, was sent
    /// again by `client` as `client_id`: its answer goes to that retry.
    /// Returns the call's timer, when the call is still there.
    pub(in crate::engine) fn answer_retry(
        &mut self,
        id: u64,
        client: &str,
        client_id: &Value,
    ) -> Option<TimerId> {
        let call = self.call_mut(id)?;
        call.answer_to(client, client_id);
        Some(call.timer())
    }

    /// The forwarded call `id`, to change whom it answers.
    fn call_mut(&mut self, id: u64) -> Option<&mut ForwardedCall> {
        match self.pending.get_mut(&id)? {
            Pending::Call(call) => Some(call),
            _ => None,
        }
    }

    /// The server's era changed under its calls: the calls that may go again
    /// on a fresh connection leave this one (once each: not sent again
    /// already, with their params kept, and not `held` for a client's retry).
    pub(in crate::engine) fn take_calls_to_resend(
        &mut self,
        held: &dyn Fn(u64) -> bool,
    ) -> Vec<ForwardedCall> {
        let ids: Vec<u64> = self
            .calls()
            .filter(|(id, c)| c.may_go_again() && !held(*id))
            .map(|(id, _)| id)
            .collect();
        ids.into_iter()
            .filter_map(|id| self.take_call(id).map(|call| *call))
            .collect()
    }

    /// Calls arrived while it catalogued: it stays for them.
    pub(in crate::engine) fn keep_for_calls(&mut self) {
        self.purpose = Purpose::Connect;
    }

    /// Calls flow now (at `now_ms`): it stays, and its handshake timer is the
    /// caller's to cancel.
    pub(in crate::engine) fn went_live(&mut self, now_ms: u64) -> WentLive {
        self.purpose = Purpose::Connect;
        self.live = true;
        WentLive {
            latency_ms: now_ms.saturating_sub(self.opened_at_ms),
            handshake_timer: self.handshake_timer.take(),
        }
    }

    /// The server asked for `roots/list` at `now_ms`: remembered when it did so
    /// first and before calls flowed (the first call then waits for it to settle).
    pub(in crate::engine) fn roots_asked(&mut self, now_ms: u64) {
        if !self.live && self.roots_asked_at_ms.is_none() {
            self.roots_asked_at_ms = Some(now_ms);
        }
    }

    /// Its handshake timer leaves it (to be cancelled): the wait it bounded ended.
    pub(in crate::engine) fn take_handshake_timer(&mut self) -> Option<TimerId> {
        self.handshake_timer.take()
    }

    /// The handshake timer fired: returns whether the handshake timed out (a
    /// connection that went live meanwhile has nothing to time out).
    pub(in crate::engine) fn handshake_timer_fired(&mut self) -> bool {
        self.handshake_timer = None;
        !self.live
    }

    /// A `subscriptions/listen` was sent as `id` (None: it could not be).
    pub(in crate::engine) fn listen_opened(&mut self, id: Option<u64>) {
        self.listen = id;
    }

    /// The open listen leaves it (a new filter replaces it): its id, to cancel.
    pub(in crate::engine) fn take_listen(&mut self) -> Option<u64> {
        self.listen.take()
    }

    /// The server answered listen `id`: returns whether it was the open one
    /// (now closed); the answer to a listen Lazy MCP cancelled says nothing.
    pub(in crate::engine) fn listen_answered(&mut self, id: u64) -> bool {
        if self.listen != Some(id) {
            return false;
        }
        self.listen = None;
        true
    }

    /// The connection ends: its handshake timer and its calls in flight leave
    /// it; the engine's own requests (handshake, lists, listen, re-subscribe)
    /// Its handshake machine takes `input` (`cached`: the discover result
    /// an opening trusting a modern verdict starts from); its outputs, in order.
    pub(in crate::engine) fn handle_handshake(
        &mut self,
        cx: HandshakeContext,
        input: HandshakeInput,
        cached: Option<InitializeOutcome>,
    ) -> Vec<HandshakeOutput> {
        let handshake = &mut self.handshake;
        match input {
            HandshakeInput::Opened => handshake.handle_opened(cached),
            HandshakeInput::Answer(to, outcome) => handshake.handle_answer(cx, to, outcome),
            HandshakeInput::Timeout(ms) => handshake.handle_timeout(cx, ms),
            HandshakeInput::Closed { cause, .. } => handshake.handle_closed(cx, cause),
        }
        handshake.poll_outputs()
    }

    /// Its listing machine takes `input` (with its purpose); its outputs, in order.
    pub(in crate::engine) fn handle_listing(&mut self, input: ListingInput) -> Vec<ListingOutput> {
        let listing = &mut self.listing;
        match input {
            ListingInput::Start(kinds) => listing.handle_start(kinds),
            ListingInput::Page(kind, result) => listing.handle_page(kind, result),
            ListingInput::Failed(kind, error) => {
                listing.handle_failed(kind, self.purpose == Purpose::Catalogue, error)
            }
        }
        listing.poll_outputs()
    }

    /// end with it unanswered.
    pub(in crate::engine) fn close(&mut self) -> Closed {
        let calls = std::mem::take(&mut self.pending)
            .into_iter()
            .filter_map(|(id, pending)| match pending {
                Pending::Call(call) => Some((id, call)),
                _ => None,
            })
            .collect();
        Closed {
            handshake_timer: self.handshake_timer.take(),
            connect_deadline: self.http.take_deadline(),
            calls,
        }
    }
}

#[cfg(test)]
#[path = "connection_tests.rs"]
mod tests;
