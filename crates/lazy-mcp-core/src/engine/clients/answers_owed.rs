//! When a client whose input ended is owed nothing more (`clientSettled`): the
//! engine, which answers or drops every request, is the one that counts them,
//! so a host that stops at the end of its client's input (`serve --stdio` at
//! stdin EOF) keeps no copy of the requests in flight.
//!
//! Counted: every message that gets an answer (a request, anything answered
//! with an error, a message too large to read); settled by each `reply` effect
//! for that client, and by each request of its the client cancelled while it
//! was still unanswered (`gateway.rs`: dropped, never answered). Not counted: a server's request waiting
//! for the client's answer (sampling, elicitation): a client whose input ended
//! cannot answer it, and the call that caused it is counted and is answered
//! (or times out) on its own.

pub(in crate::engine) mod owed;

use crate::engine::clients::Clients;
use crate::engine::effects::Effect;
use crate::engine::router::Engine;

impl Engine {
    /// How many answers `client` is still owed (requests read, neither answered
    /// nor dropped). For native tests only (feature `test-exports`).
    #[cfg(any(test, feature = "test-exports"))]
    pub fn answers_owed(&self, client: &str) -> u32 {
        self.clients.owed().count(client)
    }
}

impl Clients {
    /// A message of `client` that gets an answer was read: one more owed.
    #[inline]
    pub(in crate::engine) fn request_read(&mut self, client: &str) {
        self.owed_mut().request_read(client);
    }

    /// A request of `client` was dropped unanswered (cancelled): one fewer owed.
    pub(in crate::engine) fn request_dropped(&mut self, client: &str) {
        self.owed_mut().settled_one(client);
    }

    /// The client will send nothing more: `clientSettled` once it is owed nothing.
    pub(in crate::engine) fn input_ended(&mut self, client: &str) {
        self.owed_mut().input_ended(client);
    }

    /// At the end of each event: this event's `effects` answers settle what
    /// they answer (a drop settled its request when it happened); a client
    /// whose input ended and that is owed nothing now is told `clientSettled`
    /// (once, added to `effects`).
    pub(in crate::engine) fn settle_answers(&mut self, effects: &mut Vec<Effect>, now_ms: u64) {
        if self.owed().is_idle() {
            return;
        }
        for effect in effects.iter() {
            if let Effect::Reply { client, .. } = effect {
                self.owed_mut().settled_one(client);
                // An answer is a use of its session (the idle time counts from it).
                self.gateway_sessions_mut()
                    .0
                    .handle_answered(client, now_ms);
            }
        }
        for client in self.owed_mut().take_settled() {
            effects.push(Effect::ClientSettled { client });
        }
    }
}
