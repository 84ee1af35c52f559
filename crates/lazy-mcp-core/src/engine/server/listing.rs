//! Listing a server's tools, prompts, resources and resource templates (following
//! `nextCursor`), and writing the result into the catalogue.

use crate::engine::effects::LogLevel;
use crate::engine::events::ConnId;
use crate::engine::registry::catalogue::Listing;
use crate::engine::server::ctx::ServerCtx;
use crate::engine::server::handshake::reopening::Reopening;
use crate::engine::server::machines::listing::machine::{ListingInput, ListingOutput};
use crate::engine::server::pending::Pending;
use crate::engine::server::purpose::Purpose;
use crate::engine::server::Servers;
use crate::protocol::client_discover::CacheHint;
use crate::protocol::client_handshake::{self, ListKind};
use crate::vec_map::VecMap;
use crate::wording::count;
use serde_json::Value;

/// What a listing input leaves the router to do (returned once, not kept:
/// the round's size is no cost).
#[allow(clippy::large_enum_variant)]
pub(in crate::engine) enum Listed {
    /// A round finished, as `Servers::round_done` decides it.
    Round(RoundDone),
    /// The server's era changed: this server's connection is reopened.
    Reopen(String, Reopening),
}

impl Servers {
    /// Hands `conn`'s listing machine `input`, then carries out its outputs
    /// in order: the requests and log lines; a finished round (the
    /// machine's last output) is returned to the router, which writes the
    /// catalogue. A refused page that shows the server's era changed asks
    /// the era again instead (the connection to reopen is returned).
    pub(in crate::engine) fn with_listing(
        &mut self,
        ctx: &mut ServerCtx,
        conn: ConnId,
        input: ListingInput,
    ) -> Option<Listed> {
        if let ListingInput::Failed(_, error) = input {
            if let Some((name, reopen)) = self.reprobe_after_list_refusal(conn, error) {
                return Some(Listed::Reopen(name, reopen));
            }
        }
        let connection = self.conn_mut(conn)?;
        let outputs = connection.handle_listing(input);
        let name = connection.server().clone();
        let mut done = None;
        for output in outputs {
            match output {
                ListingOutput::Request { kind, cursor } => {
                    let params = client_handshake::list_params(cursor.as_deref());
                    let pending = Pending::List { kind };
                    self.send_request(ctx, conn, kind.method(), params, pending);
                }
                ListingOutput::Log(level, text) => self.log(level, Some(&name), text),
                ListingOutput::Done { lists, cache } => done = Some((lists, cache)),
            }
        }
        let (lists, cache) = done?;
        self.round_done(ctx, conn, lists, cache).map(Listed::Round)
    }
}

/// A finished listing round, as `Servers::round_done` decides it: the
/// listing to record (`asks_roots` is the router's to fill in), when the
/// server asked for roots, what follows.
pub(in crate::engine) struct RoundDone {
    name: String,
    listing: Listing,
    roots_asked_at: Option<u64>,
    next: AfterRound,
}

impl RoundDone {
    /// Taken apart for the router: the server, the listing to record, when
    /// it asked for roots, what follows (only `Servers` builds one).
    pub(in crate::engine) fn into_parts(self) -> (String, Listing, Option<u64>, AfterRound) {
        (self.name, self.listing, self.roots_asked_at, self.next)
    }
}

/// What follows a listing round once the catalogue is written.
pub(in crate::engine) enum AfterRound {
    /// Its live connection listed again (a refresh, a list changed).
    Stays,
    /// Connected: it goes live (after its roots settle).
    Live,
    /// Catalogued and no call waits for it: stopped, CATALOGUED.
    Stop,
}

impl Servers {
    /// `conn`'s listing round finished with `lists`: the listing to record
    /// (with what the handshake said and the metadata URL learned), and what
    /// follows: a connect goes live, a cataloguing ends its failure streak
    /// and stays connected only for calls that wait for it.
    fn round_done(
        &mut self,
        ctx: &ServerCtx,
        conn: ConnId,
        lists: VecMap<ListKind, Vec<Value>>,
        cache: Option<CacheHint>,
    ) -> Option<RoundDone> {
        let connection = self.conn(conn)?;
        let era = connection.handshake().era();
        let initialize = connection.handshake().init().cloned()?;
        let name = connection.server().clone();
        let purpose = connection.purpose();
        let live = connection.is_live();
        let roots_asked_at = connection.roots_asked_at();
        let listing = Listing {
            era,
            initialize,
            cache,
            lists,
            resource_metadata_url: self.learned_resource_metadata_url(ctx.catalogue, &name),
            asks_roots: false,
        };
        let next = match purpose {
            Purpose::Connect if live => AfterRound::Stays,
            Purpose::Connect => AfterRound::Live,
            Purpose::Catalogue if self.catalogued(&name) => AfterRound::Live,
            Purpose::Catalogue => AfterRound::Stop,
        };
        Some(RoundDone {
            name,
            listing,
            roots_asked_at,
            next,
        })
    }

    /// `name` stopped, catalogued: what its catalogue holds, logged.
    pub(in crate::engine) fn log_catalogued(&mut self, ctx: &mut ServerCtx, name: &str) {
        let Some(entry) = self.current_entry(ctx, name) else {
            return;
        };
        let summary = format!(
            "catalogued: {}, {}, {}, {}; stopped",
            count(entry.tools.len(), "tool"),
            count(entry.prompts.len(), "prompt"),
            count(entry.resources.len(), "resource"),
            count(entry.resource_templates.len(), "resource template")
        );
        self.log(LogLevel::Info, Some(name), summary);
    }
}

impl Servers {
    /// `name` was catalogued: its failure streak ends (only a completed
    /// catalogue ends it: a server that connects fine but crashes on every
    /// call must keep backing off longer). Returns whether calls wait for it
    /// (the cataloguing connection is kept for them).
    fn catalogued(&mut self, name: &str) -> bool {
        let Some(server) = self.server_mut(name) else {
            return false;
        };
        server.restart_mut().handle_succeeded();
        server.connect().has_waiters()
    }

    /// Declared tools (`tools: [...]` in config) the server does not have:
    /// noted for Diagnostics, and logged once when they change.
    pub(in crate::engine) fn report_dropped_declared_tools(
        &mut self,
        ctx: &mut ServerCtx,
        name: &str,
    ) {
        let Some(server) = self.server_mut(name) else {
            return;
        };
        let entry = ctx.catalogue.warm(name, &server.config().fingerprint);
        let dropped = entry.map_or_else(Vec::new, |entry| server.dropped_declared_tools(entry));
        if !server.dropped_declared(&dropped) {
            return;
        }
        if !dropped.is_empty() {
            let file = server.config().source.file.clone();
            let message = format!(
                "declared tool(s) {} are not offered by the server and were dropped; check the \"tools\" list in {file}",
                dropped.join(", ")
            );
            self.log(LogLevel::Warn, Some(name), message);
        }
    }
}
