//! Carries out what `Clients` said for one forwarded call (`CallOut`,
//! `clients/call_out.rs`): the steps touch the servers' side (the call's
//! connection and timer, a message upstream) and the client's answer, in
//! the order `Clients` gave them.

use crate::engine::clients::call_out::CallOut;
use crate::engine::events::ConnId;
use crate::engine::router::Engine;
use crate::protocol::jsonrpc::Message;

impl Engine {
    /// What `Clients` said for the call `upstream_id` on `conn`, in order
    /// (`rearm`: the call's new deadline, for `Rearm`).
    pub(in crate::engine) fn carry_out_call(
        &mut self,
        conn: ConnId,
        upstream_id: u64,
        out: Vec<CallOut>,
        rearm: Option<u64>,
    ) {
        let server = self.servers.server_of(conn).map(str::to_string);
        for step in out {
            match step {
                CallOut::EndCall => {
                    self.servers.end_call(&mut self.timers, conn, upstream_id);
                }
                CallOut::Log(level, line) => self.log(level, server.as_deref(), line),
                CallOut::Send(message) => self.send_upstream(conn, message),
                CallOut::Reply(client, answer) => self.reply(&client, answer),
                CallOut::Rearm => {
                    if let Some(at) = rearm {
                        let timers = &mut self.timers;
                        self.servers.call_waits_again(timers, conn, upstream_id, at);
                    }
                }
                CallOut::Finish(outcome) => {
                    if let Some(call) = self.servers.take_call(conn, upstream_id) {
                        self.finish_call(conn, *call, |client_id| {
                            let id = client_id.clone();
                            Message::Response { id, outcome }.into_value().to_string()
                        });
                    }
                }
            }
        }
    }
}
