//! The changes of the user's settings that reach every server (the
//! workspace folders: legacy servers told their roots changed). A server's
//! state change itself is `Servers::transition` (`servers.rs`, the one place
//! `state.rs`'s `next_state` is applied: a server's state is private to that
//! file); telling it (announcements, exposure, `stateChanged`) is the
//! router's `Engine::transition` (`router/server/transition.rs`).

use crate::engine::events::ConnId;
use crate::engine::server::ctx::ServerCtx;
use crate::engine::server::machines::handshake::machine::Phase;
use crate::engine::server::Servers;
use crate::protocol::client_discover::Era;
use crate::protocol::jsonrpc;
use crate::protocol::methods;

impl Servers {
    /// The workspace folders changed: ready legacy-era servers are told their
    /// roots changed (modern servers have no roots notification: roots travel
    /// per request).
    pub(in crate::engine) fn roots_changed(&mut self, ctx: &mut ServerCtx) {
        let ready: Vec<ConnId> = self
            .conns()
            .filter(|(_, c)| {
                c.handshake().phase() == Phase::Ready && c.handshake().era() == Era::Legacy
            })
            .map(|(id, _)| *id)
            .collect();
        for conn in ready {
            let changed = jsonrpc::notification(methods::NOTIFICATIONS_ROOTS_LIST_CHANGED, None);
            self.send(ctx, conn, changed);
        }
    }
}
