//! How many answers each client is still owed, and which clients said their
//! input ended: the state `answers_owed.rs` keeps. Apart from that code so
//! that `Clients` (`clients/mod.rs`) names it without importing the code that
//! drives it (no import cycle). Its fields are private here.

use crate::engine::events::ClientId;
use crate::vec_map::VecMap;

/// Requests read from each client that are neither answered (`reply`) nor
/// dropped (`noReply`) yet, and the clients whose input ended that wait for
/// their `clientSettled`. A client owed nothing has no entry.
#[derive(Debug, Default)]
pub(in crate::engine) struct AnswersOwed {
    owed: VecMap<ClientId, u32>,
    /// Clients whose input ended, not yet told `clientSettled`.
    ended: Vec<ClientId>,
}

impl AnswersOwed {
    // ---- inputs ------------------------------------------------------------

    /// A message from `client` that gets an answer was read (a request, or
    /// anything answered with an error).
    pub(in crate::engine) fn request_read(&mut self, client: &str) {
        match self.owed.get_mut(client) {
            Some(count) => *count += 1,
            None => {
                self.owed.insert(client.to_string(), 1);
            }
        }
    }

    /// `client` was answered a request, or one of its requests was dropped.
    /// An answer nothing was counted for (a client seen before its input was
    /// counted) changes nothing.
    pub(in crate::engine) fn settled_one(&mut self, client: &str) {
        let Some(count) = self.owed.get_mut(client) else {
            return;
        };
        *count = count.saturating_sub(1);
        if *count == 0 {
            self.owed.remove(client);
        }
    }

    /// `client` will send nothing more.
    pub(in crate::engine) fn input_ended(&mut self, client: &str) {
        if !self.ended.iter().any(|c| c == client) {
            self.ended.push(client.to_string());
        }
    }

    /// `client` is gone: nothing is owed to it, nobody waits for it.
    pub(in crate::engine) fn forget(&mut self, client: &str) {
        self.owed.remove(client);
        self.ended.retain(|c| c != client);
    }

    /// The clients whose input ended and that are owed nothing now: each is
    /// returned once.
    pub(in crate::engine) fn take_settled(&mut self) -> Vec<ClientId> {
        if self.ended.is_empty() {
            return Vec::new();
        }
        let owed = &self.owed;
        let (settled, waiting) = std::mem::take(&mut self.ended)
            .into_iter()
            .partition(|c| !owed.contains_key(c.as_str()));
        self.ended = waiting;
        settled
    }

    // ---- reads -------------------------------------------------------------

    /// Nothing owed to anyone and nobody waiting: an event's effects need no look.
    pub(in crate::engine) fn is_idle(&self) -> bool {
        self.owed.is_empty() && self.ended.is_empty()
    }
}
