//! What `Clients` leaves the router to carry out for one forwarded call (a
//! connection and upstream id): the input bridge's rounds and retries
//! (`input_bridge.rs`), a call's timeout (`gateway.rs`). The steps keep the
//! order of the effects they make; the router only carries them out.

use crate::engine::effects::LogLevel;
use crate::engine::events::{ClientId, ConnId};
use crate::engine::router::Engine;
use crate::protocol::jsonrpc::Message;
use serde_json::Value;

/// One step for the router, for the call it was said for.
pub(in crate::engine) enum CallOut {
    /// The call ends here: taken off its connection, its timer off.
    EndCall,
    /// A line of the call's server's log (masked by the servers' owner).
    Log(LogLevel, String),
    /// A message to the call's server.
    Send(Value),
    /// An answer to a client.
    Reply(ClientId, Value),
    /// The call waits for its server again: its timer starts afresh.
    Rearm,
    /// The server's answer, held while the client was asked, goes to the
    /// call's client now (the call leaves its connection).
    Finish(Result<Value, Value>),
}

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
