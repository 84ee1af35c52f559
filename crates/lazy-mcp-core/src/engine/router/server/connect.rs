//! The router's part of connecting (`server/connect.rs`, `server/era.rs`):
//! the cataloguing pump, the single connect, opening a connection, going
//! live and forwarding or refusing a client's call. `Servers` decides each
//! step; a state change and a client's answer are the router's.

use crate::engine::events::ConnId;
use crate::engine::router::Engine;
use crate::engine::server::calls::{ForwardedCall, QueuedCall};
use crate::engine::server::connect::{GoLive, Opening, Refused, Routed};
use crate::engine::server::machines::handshake::machine::Handshake;
use crate::engine::server::purpose::Purpose;
use crate::engine::state::Trigger;
use serde_json::Value;

impl Engine {
    /// Starts cataloguing servers from the queue while slots are free.
    pub(in crate::engine) fn pump_catalogue_queue(&mut self) {
        let slots = self.settings().catalogue_concurrency;
        while let Some(name) = self.servers.next_to_catalogue(slots) {
            // A shared server another client catalogued needs no process (no slot either).
            if !self.look_up_shared_catalogue(&name) {
                self.open_connection_with(&name, Purpose::Catalogue, false, None);
            }
        }
    }

    /// Single flight: opens a connection unless one is already on its way
    /// (`Servers::must_open` decides). Returns false when the server cannot
    /// be connected now (the caller explains why).
    pub(in crate::engine) fn ensure_connected(&mut self, name: &str, interactive: bool) -> bool {
        let Some(open) = self.servers.must_open(name) else {
            return false;
        };
        if open {
            self.open_connection_with(name, Purpose::Connect, interactive, None);
        }
        true
    }

    /// Opens a connection. `fallback`: the replacement of a connection whose era
    /// probe failed, with the handshake to use (no state change: the server is
    /// still CATALOGUING or CONNECTING).
    pub(in crate::engine) fn open_connection_with(
        &mut self,
        name: &str,
        purpose: Purpose,
        interactive: bool,
        fallback: Option<Handshake>,
    ) {
        let shared = self.launch_sharing_of(name);
        let opening = Opening::new(purpose, interactive, fallback, shared);
        if let Some(trigger) = self.with_servers(|servers, ctx| servers.open(ctx, name, opening)) {
            self.transition(name, trigger);
        }
    }

    pub(in crate::engine) fn send_upstream(&mut self, conn: ConnId, message: Value) {
        self.with_servers(|servers, ctx| servers.send(ctx, conn, message));
    }

    pub(in crate::engine) fn on_roots_settled(&mut self, conn: ConnId) {
        self.become_connected(conn, GoLive::RootsSettled);
    }

    /// The handshake is done and calls may flow (`Servers::go_live` says
    /// when): CONNECTED, waiters forwarded.
    pub(in crate::engine) fn become_connected(&mut self, conn: ConnId, when: GoLive) {
        let Some((name, latency_ms)) =
            self.with_servers(|servers, ctx| servers.go_live(ctx, conn, when))
        else {
            return;
        };
        self.transition(&name, Trigger::Connected);
        let waiters =
            self.with_servers(|servers, ctx| servers.connected(ctx, conn, &name, latency_ms));
        for call in waiters {
            self.forward_call_round(conn, call, 0);
        }
        self.with_servers(|servers, ctx| servers.idle_from_connected(ctx, &name));
    }

    /// Sends one client call upstream with a fresh id and a request timeout
    /// (`Servers::forward_call` decides), or answers its refusal.
    pub(in crate::engine) fn forward_call_round(
        &mut self,
        conn: ConnId,
        call: QueuedCall,
        input_rounds: u32,
    ) {
        let forwarded = {
            let lent = &mut self.servers_input();
            (lent.servers).forward_call(&mut lent.ctx, conn, call, input_rounds)
        };
        if let Err(refused) = forwarded {
            self.refuse_call(*refused);
        }
    }

    /// A call for `name` from a client: forwarded now, queued behind the single
    /// connect, or refused with a clear error (`Servers::route_call` decides).
    pub(in crate::engine) fn route_call(&mut self, name: &str, call: QueuedCall) {
        let routed = {
            let lent = &mut self.servers_input();
            (lent.servers).route_call(&mut lent.ctx, name, call)
        };
        match routed {
            Ok(Routed::Sent) => {}
            Ok(Routed::Waits) => {
                self.ensure_connected(name, true);
            }
            Err(refused) => self.refuse_call(*refused),
        }
    }

    fn refuse_call(&mut self, refused: Refused) {
        let ((client, client_id), code, message) = refused.into_parts();
        self.reply_error(&client, client_id, code, &message);
    }

    /// `name`'s era changed under `call` ([`Servers::era_changed`]): it
    /// stops, and `call`, then `others`, wait for the fresh connection that
    /// probes it.
    pub(super) fn era_changed(
        &mut self,
        name: &str,
        call: ForwardedCall,
        others: Vec<ForwardedCall>,
    ) {
        self.stop_server(name, "its protocol era changed");
        self.transition(name, Trigger::Stopped);
        self.servers.calls_wait(name, call, others);
        self.ensure_connected(name, true);
    }
}
