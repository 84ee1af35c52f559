//! When a client whose input ended is owed nothing more (`clientSettled`): the
//! engine, which answers or drops every request, is the one that counts them,
//! so a host that stops at the end of its client's input (`serve --stdio` at
//! stdin EOF) keeps no copy of the requests in flight.
//!
//! Counted: every message that gets an answer (a request, anything answered
//! with an error, a message too large to read); settled by each `reply` and
//! `noReply` effect for that client. Not counted: a server's request waiting
//! for the client's answer (sampling, elicitation): a client whose input ended
//! cannot answer it, and the call that caused it is counted and is answered
//! (or times out) on its own.

pub(in crate::engine) mod owed;

use crate::engine::effects::Effect;
use crate::engine::router::Engine;

impl Engine {
    /// The client will send nothing more: `clientSettled` once it is owed nothing.
    pub(in crate::engine) fn on_client_input_ended(&mut self, client: &str) {
        self.clients.owed.input_ended(client);
    }

    /// At the end of each event: this event's answers and drops settle what
    /// they answer; a client whose input ended and that is owed nothing now
    /// is told `clientSettled` (once).
    pub(in crate::engine) fn flush_answers_owed(&mut self) {
        if self.clients.owed.is_idle() {
            return;
        }
        for effect in &self.effects {
            if let Effect::Reply { client, .. } | Effect::NoReply { client, .. } = effect {
                self.clients.owed.settled_one(client);
            }
        }
        for client in self.clients.owed.take_settled() {
            self.effects.push(Effect::ClientSettled { client });
        }
    }
}
