//! What `Clients` leaves the router to carry out for one forwarded call (a
//! connection and upstream id): the input bridge's rounds and retries
//! (`input_bridge.rs`), a call's timeout (`gateway.rs`). The steps keep the
//! order of the effects they make; the router only carries them out
//! (`router/clients/call_out.rs`).

use crate::engine::effects::LogLevel;
use crate::engine::events::ClientId;
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
