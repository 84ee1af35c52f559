//! A client's call on its way to a server: queued while the server connects
//! (`QueuedCall`), then in flight on its connection (`ForwardedCall`).

use crate::engine::events::ClientId;
use crate::engine::timers::TimerId;
use crate::protocol::methods;
use crate::protocol::params::{name_in, name_of};
use serde_json::Value;

/// A client request waiting for its server to connect (already rewritten for upstream).
#[derive(Debug, Clone)]
pub(in crate::engine) struct QueuedCall {
    pub(in crate::engine) client: ClientId,
    pub(in crate::engine) client_id: Value,
    pub(in crate::engine) method: String,
    pub(in crate::engine) params: CallParams,
    /// Sent again after its server's era changed under it (once only, `era.rs`).
    pub(in crate::engine) era_retried: bool,
}

/// A call's params: read (when the engine had to look inside or rewrite them), or
/// the client's own bytes, forwarded as they came (`raw_forwarding.rs`).
#[derive(Debug, Clone)]
pub(in crate::engine) enum CallParams {
    Parsed(Option<Value>),
    Raw {
        /// The params' JSON text as the client sent it (validated by the raw reading).
        text: Box<str>,
        progress_token: Option<Value>,
        /// The tool (`params.name`), read once by the raw reading.
        tool: Box<str>,
    },
}

impl CallParams {
    /// `params.name` (a `tools/call`'s tool), in either form.
    pub(in crate::engine) fn name(&self) -> Option<String> {
        match self {
            CallParams::Parsed(params) => name_in(params.as_ref()).map(str::to_string),
            CallParams::Raw { tool, .. } => Some(tool.to_string()),
        }
    }
}

#[derive(Debug)]
pub(in crate::engine) struct ForwardedCall {
    pub(in crate::engine) client: ClientId,
    pub(in crate::engine) client_id: Value,
    pub(in crate::engine) method: String,
    pub(in crate::engine) progress_token: Option<Value>,
    pub(in crate::engine) timer: TimerId,
    /// The params sent upstream (before any era envelope): a modern server that
    /// asks for input gets the same request again with its answers.
    /// Boxed: kept small, it lives in every pending call.
    pub(in crate::engine) params: Option<Box<Value>>,
    /// The tool of a `tools/call` forwarded raw (its params are not kept):
    /// named when the call waits for a sign-in. Moved from the queued call's
    /// params, never copied (the record itself is boxed in `Pending::Call`).
    pub(in crate::engine) raw_tool: Option<Box<str>>,
    /// A modern server's input rounds answered so far (bounded, see
    /// `input_required.rs`). A legacy server's requests bridged to a modern
    /// client are the clients' side's record (`Clients`' bridges, by
    /// connection and upstream id): only `input_bridge.rs` reads and writes
    /// them, and the server's call needs none of it.
    pub(in crate::engine) input_rounds: u32,
    /// See [`QueuedCall::era_retried`].
    pub(in crate::engine) era_retried: bool,
}

impl ForwardedCall {
    /// The tool of a forwarded `tools/call`.
    pub(in crate::engine) fn tool_name(&self) -> Option<&str> {
        if self.method != methods::TOOLS_CALL {
            return None;
        }
        match &self.params {
            Some(params) => name_of(params),
            None => self.raw_tool.as_deref(),
        }
    }
}
