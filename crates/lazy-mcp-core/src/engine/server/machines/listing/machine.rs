//! One connection's listing rounds as a state machine, in quinn-proto's shape
//! (as `handshake/machine.rs`): it owns its fields (private), takes what
//! happened through `handle_*` and says what must happen as
//! [`ListingOutput`]s the router (`listing.rs`) drains with
//! [`ListingMachine::poll_outputs`] and carries out in order. It decides which
//! page to ask for next (following `nextCursor` up to [`MAX_LIST_PAGES`]),
//! what a refused list leaves in the round, a kind announced as changed while
//! being listed (listed again), and when the round is done; the router sends
//! the requests, writes the catalogue and changes state only through
//! `Engine::transition`.

use crate::engine::effects::LogLevel;
use crate::protocol::client_discover::{self, CacheHint};
use crate::protocol::client_handshake::{self, ListKind};
use crate::protocol::jsonrpc;
use crate::vec_map::{VecMap, VecSet};
use serde_json::Value;

/// An input for a connection's listing machine, named
/// (`Connection::handle_listing`).
pub(in crate::engine) enum ListingInput<'a> {
    /// List these kinds (first pages).
    Start(&'a [ListKind]),
    /// The answer to a page of a kind.
    Page(ListKind, &'a Value),
    /// A page of a kind was refused.
    Failed(ListKind, &'a Value),
}

/// Pages followed per list before giving up (a server looping on `nextCursor`).
pub(in crate::engine) const MAX_LIST_PAGES: u32 = 1_000;

/// What the machine asks of the router, in the order it must happen.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::engine) enum ListingOutput {
    /// Ask for a page of `kind`: the first one without a cursor.
    Request {
        kind: ListKind,
        cursor: Option<String>,
    },
    Log(LogLevel, String),
    /// The round is done: each kind it listed (a kind that failed on a live
    /// connection is absent: the catalogue keeps it) and the stricter cache hint.
    Done {
        lists: VecMap<ListKind, Vec<Value>>,
        cache: Option<CacheHint>,
    },
}

/// One connection's listing.
#[derive(Debug, Default)]
pub(in crate::engine) struct ListingMachine {
    /// Kinds outstanding, each with the items of its pages so far and their count.
    listing: VecMap<ListKind, (Vec<Value>, u32)>,
    /// Kinds completed in the current round.
    listed: VecMap<ListKind, Vec<Value>>,
    /// Kinds announced as changed while being listed: listed again after this round.
    relist: VecSet<ListKind>,
    /// The stricter cache hint of the current round's pages.
    cache: Option<CacheHint>,
    outputs: Vec<ListingOutput>,
}

impl ListingMachine {
    /// Everything the inputs so far asked for, in order.
    pub(in crate::engine) fn poll_outputs(&mut self) -> Vec<ListingOutput> {
        std::mem::take(&mut self.outputs)
    }

    fn out(&mut self, output: ListingOutput) {
        self.outputs.push(output);
    }

    fn request_first_page(&mut self, kind: ListKind) {
        self.listing.insert(kind, (Vec::new(), 1));
        self.out(ListingOutput::Request { kind, cursor: None });
    }

    // ---- inputs ----------------------------------------------------------------

    /// List `kinds` (a handshake done, or the server said they changed).
    pub(in crate::engine) fn handle_start(&mut self, kinds: &[ListKind]) {
        for kind in kinds {
            if self.listing.contains_key(kind) {
                // Changed while being listed: list it again once this round answers.
                self.relist.insert(*kind);
            } else {
                self.request_first_page(*kind);
            }
        }
        if self.listing.is_empty() {
            self.finish();
        }
    }

    /// A page of `kind` answered.
    pub(in crate::engine) fn handle_page(&mut self, kind: ListKind, result: &Value) {
        let hint = client_discover::cache_hint(result);
        self.cache = client_discover::stricter(self.cache.take(), hint);
        let Some(entry) = self.listing.get_mut(&kind) else {
            return;
        };
        let (page, next) = client_handshake::parse_list_page(kind, result);
        entry.0.extend(page);
        match next {
            Some(cursor) if entry.1 < MAX_LIST_PAGES => {
                entry.1 += 1;
                let cursor = Some(cursor);
                self.out(ListingOutput::Request { kind, cursor });
                return;
            }
            Some(_) => self.out(ListingOutput::Log(
                LogLevel::Warn,
                format!("{} kept returning nextCursor after {MAX_LIST_PAGES} pages; the list was cut there", kind.method()),
            )),
            None => {}
        }
        let items = self
            .listing
            .get_mut(&kind)
            .map(|e| std::mem::take(&mut e.0));
        self.kind_done(kind, items);
    }

    /// A list request of `kind` was refused. A `cataloguing` connection records
    /// the kind empty; a connection for calls keeps what the catalogue has.
    pub(in crate::engine) fn handle_failed(
        &mut self,
        kind: ListKind,
        cataloguing: bool,
        error: &Value,
    ) {
        if !self.listing.contains_key(&kind) {
            return;
        }
        let finished = if jsonrpc::error_code(error) == Some(jsonrpc::METHOD_NOT_FOUND) {
            Some(Vec::new())
        } else {
            let text = format!(
                "{} failed: {}",
                kind.method(),
                jsonrpc::error_message(error)
            );
            self.out(ListingOutput::Log(LogLevel::Warn, text));
            cataloguing.then(Vec::new)
        };
        self.kind_done(kind, finished);
    }

    // ---- decisions ---------------------------------------------------------------

    fn kind_done(&mut self, kind: ListKind, finished: Option<Vec<Value>>) {
        if self.relist.remove(&kind) {
            self.request_first_page(kind);
            return;
        }
        self.listing.remove(&kind);
        if let Some(items) = finished {
            self.listed.insert(kind, items);
        }
        if self.listing.is_empty() {
            self.finish();
        }
    }

    fn finish(&mut self) {
        let lists = std::mem::take(&mut self.listed);
        let cache = self.cache.take();
        self.out(ListingOutput::Done { lists, cache });
    }
}

#[cfg(test)]
#[path = "machine_tests.rs"]
mod tests;
