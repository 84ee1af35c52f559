//! How many answers each client is still owed, and which clients said their
//! input ended. Its fields are private here.
//!
//! When a client whose input ended is owed nothing more (`clientSettled`): the
//! engine, which answers or drops every request, is the one that counts them,
//! so a host that stops at the end of its client's input (`serve --stdio` at
//! stdin EOF) keeps no copy of the requests in flight.
//!
//! Counted: every message that gets an answer (a request, anything answered
//! with an error, a message too large to read); settled by each `reply` effect
//! for that client, and by each request of its the client cancelled while it
//! was still unanswered (`clients/gateway.rs`: dropped, never answered). Not counted: a server's request waiting
//! for the client's answer (sampling, elicitation): a client whose input ended
//! cannot answer it, and the call that caused it is counted and is answered
//! (or times out) on its own.
//!
//! `Clients`' inputs for it (`request_read`, `request_dropped`, `input_ended`,
//! `settle_answers`) are in `clients/machine.rs`: they change its fields.

use crate::engine::events::ClientId;

/// Per client: requests read that are neither answered (`reply`) nor dropped
/// (cancelled by the client while unanswered) yet, and whether its input ended (it waits for its
/// `clientSettled`). A client owed nothing and not waiting has no entry: the
/// list holds the few clients with calls in flight (a plain list, no map).
#[derive(Debug, Default)]
pub(in crate::engine) struct AnswersOwed {
    clients: Vec<Owed>,
}

#[derive(Debug)]
struct Owed {
    client: ClientId,
    count: u32,
    input_ended: bool,
}

impl AnswersOwed {
    // ---- inputs ------------------------------------------------------------

    /// A message from `client` that gets an answer was read (a request, or
    /// anything answered with an error).
    pub(in crate::engine) fn request_read(&mut self, client: &str) {
        self.entry(client).count += 1;
    }

    /// `client` was answered a request, or one of its requests was dropped.
    /// An answer nothing was counted for changes nothing.
    pub(in crate::engine) fn settled_one(&mut self, client: &str) {
        if let Some(owed) = self.clients.iter_mut().find(|o| o.client == client) {
            owed.count = owed.count.saturating_sub(1);
        }
    }

    /// `client` will send nothing more.
    pub(in crate::engine) fn input_ended(&mut self, client: &str) {
        self.entry(client).input_ended = true;
    }

    /// `client` is gone: nothing is owed to it, nobody waits for it.
    pub(in crate::engine) fn forget(&mut self, client: &str) {
        self.clients.retain(|o| o.client != client);
    }

    /// The clients whose input ended and that are owed nothing now, each
    /// returned once; entries owed nothing are dropped.
    pub(in crate::engine) fn take_settled(&mut self) -> Vec<ClientId> {
        let mut settled = Vec::new();
        self.clients.retain_mut(|o| {
            if o.count > 0 {
                return true;
            }
            if o.input_ended {
                settled.push(std::mem::take(&mut o.client));
            }
            false
        });
        settled
    }

    // ---- reads -------------------------------------------------------------

    /// Whether `client` is owed an answer (a request of its in flight).
    pub(in crate::engine) fn owes(&self, client: &str) -> bool {
        self.clients
            .iter()
            .any(|o| o.client == client && o.count > 0)
    }

    /// How many answers `client` is owed.
    #[cfg(any(test, feature = "test-exports"))]
    pub(in crate::engine) fn count(&self, client: &str) -> u32 {
        self.clients
            .iter()
            .find(|o| o.client == client)
            .map_or(0, |o| o.count)
    }

    /// Nothing owed to anyone and nobody waiting: an event's effects need no look.
    pub(in crate::engine) fn is_idle(&self) -> bool {
        self.clients.is_empty()
    }

    fn entry(&mut self, client: &str) -> &mut Owed {
        let at = match self.clients.iter().position(|o| o.client == client) {
            Some(at) => at,
            None => {
                self.clients.push(Owed {
                    client: client.to_string(),
                    count: 0,
                    input_ended: false,
                });
                self.clients.len() - 1
            }
        };
        // `at` is in range: found, or the entry just pushed.
        #[allow(clippy::indexing_slicing)]
        &mut self.clients[at]
    }
}
