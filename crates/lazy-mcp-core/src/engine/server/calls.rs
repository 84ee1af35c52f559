//! A client's call on its way to a server: queued while the server connects
//! (`QueuedCall`), then in flight on its connection (`ForwardedCall`).

use crate::engine::events::ClientId;
use crate::engine::timers::TimerId;
use crate::protocol::methods;
use crate::protocol::params::{name_in, name_of, Params};
use serde_json::Value;

/// A client request waiting for its server to connect (already rewritten for
/// upstream). Its fields are private to this file: built with
/// [`QueuedCall::new`], read through accessors, its params read once for a
/// modern server ([`QueuedCall::read_raw_params`]), taken apart by
/// [`ForwardedCall::forward`] or [`QueuedCall::into_reply_target`].
#[derive(Debug, Clone)]
pub(in crate::engine) struct QueuedCall {
    client: ClientId,
    client_id: Value,
    method: String,
    params: CallParams,
    /// Sent again after its server's era changed under it (once only, `era.rs`).
    era_retried: bool,
}

impl QueuedCall {
    /// `client`'s request `client_id` for `method` with `params`, not yet sent
    /// again after an era change.
    pub(in crate::engine) fn new(
        client: ClientId,
        client_id: Value,
        method: String,
        params: CallParams,
    ) -> Self {
        QueuedCall {
            client,
            client_id,
            method,
            params,
            era_retried: false,
        }
    }

    /// The same call as one already sent again after an era change (tests).
    #[cfg(test)]
    pub(in crate::engine) fn era_retried(mut self, era_retried: bool) -> Self {
        self.era_retried = era_retried;
        self
    }

    pub(in crate::engine) fn client(&self) -> &str {
        &self.client
    }

    pub(in crate::engine) fn client_id(&self) -> &Value {
        &self.client_id
    }

    pub(in crate::engine) fn method(&self) -> &str {
        &self.method
    }

    pub(in crate::engine) fn params(&self) -> &CallParams {
        &self.params
    }

    /// Raw params are read (a modern server's envelope goes around them, and
    /// it may ask for the same call again). Errs when the text is not JSON.
    pub(in crate::engine) fn read_raw_params(&mut self) -> Result<(), serde_json::Error> {
        if let CallParams::Raw { text, .. } = &self.params {
            self.params = CallParams::Parsed(Some(serde_json::from_str::<Value>(text)?));
        }
        Ok(())
    }

    /// It is refused or failed: whom to answer (its client and the client's
    /// request id), moved out.
    pub(in crate::engine) fn into_reply_target(self) -> (ClientId, Value) {
        (self.client, self.client_id)
    }
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

/// A client call in flight on its connection. Its fields are private to this
/// file: the engine reads them through accessors, changes only whom it
/// answers (`answer_to`), and takes it apart by what happens next (answered,
/// asked again, queued again after an era change).
#[derive(Debug)]
pub(in crate::engine) struct ForwardedCall {
    client: ClientId,
    client_id: Value,
    method: String,
    progress_token: Option<Value>,
    timer: TimerId,
    /// The params sent upstream (before any era envelope): a modern server that
    /// asks for input gets the same request again with its answers.
    /// Boxed: kept small, it lives in every pending call.
    params: Option<Box<Value>>,
    /// The tool of a `tools/call` forwarded raw (its params are not kept):
    /// named when the call waits for a sign-in. Moved from the queued call's
    /// params, never copied (the record itself is boxed in `Pending::Call`).
    raw_tool: Option<Box<str>>,
    /// A modern server's input rounds answered so far (bounded, see
    /// `input_required.rs`). A legacy server's requests bridged to a modern
    /// client are the clients' side's record (`Clients`' bridges, by
    /// connection and upstream id): only `input_bridge.rs` reads and writes
    /// them, and the server's call needs none of it.
    input_rounds: u32,
    /// See [`QueuedCall::era_retried`].
    era_retried: bool,
}

/// What goes upstream of a forwarded call: params read (a modern server's
/// envelope is added around them), or the client's own bytes.
#[derive(Debug)]
pub(in crate::engine) enum UpstreamParams {
    Parsed(Option<Value>),
    Raw(Box<str>),
}

impl ForwardedCall {
    /// `call` goes upstream under `timer`, `input_rounds` already answered:
    /// its record, and the params to send. The call's own strings move into
    /// its record (none is copied); only read params are kept (a legacy
    /// connection's raw params never ask for input).
    pub(in crate::engine) fn forward(
        call: QueuedCall,
        timer: TimerId,
        input_rounds: u32,
    ) -> (Box<ForwardedCall>, UpstreamParams) {
        let (params, upstream, raw_tool, progress_token) = match call.params {
            CallParams::Parsed(params) => {
                let token = Params::read(params.as_ref()).meta().progress_token.cloned();
                let kept = params.clone().map(Box::new);
                (kept, UpstreamParams::Parsed(params), None, token)
            }
            CallParams::Raw {
                text,
                progress_token,
                tool,
            } => (None, UpstreamParams::Raw(text), Some(tool), progress_token),
        };
        let forwarded = Box::new(ForwardedCall {
            client: call.client,
            client_id: call.client_id,
            method: call.method,
            progress_token,
            timer,
            params,
            raw_tool,
            input_rounds,
            era_retried: call.era_retried,
        });
        (forwarded, upstream)
    }

    // ---- reads -----------------------------------------------------------------

    /// The client whose call it is (whom its answer goes to).
    pub(in crate::engine) fn client(&self) -> &str {
        &self.client
    }

    /// The client's own request id.
    pub(in crate::engine) fn client_id(&self) -> &Value {
        &self.client_id
    }

    pub(in crate::engine) fn method(&self) -> &str {
        &self.method
    }

    /// Its request timeout.
    pub(in crate::engine) fn timer(&self) -> TimerId {
        self.timer
    }

    /// The params sent upstream, when kept (read params only).
    pub(in crate::engine) fn params(&self) -> Option<&Value> {
        self.params.as_deref()
    }

    /// A modern server's input rounds answered so far.
    pub(in crate::engine) fn input_rounds(&self) -> u32 {
        self.input_rounds
    }

    /// The server's progress notification with `token` is about this call.
    pub(in crate::engine) fn reports_progress(&self, token: Option<&Value>) -> bool {
        token.is_some() && self.progress_token.as_ref() == token
    }

    /// It may go again on a fresh connection after its server's era changed:
    /// once only, and only with its params kept.
    pub(in crate::engine) fn may_go_again(&self) -> bool {
        !self.era_retried && self.params.is_some()
    }

    // ---- inputs ------------------------------------------------------------------

    /// Its client was answered `input_required` and sent it again as
    /// `client`'s `client_id`: its answer goes to that retry.
    pub(in crate::engine) fn answer_to(&mut self, client: &str, client_id: &Value) {
        self.client = client.to_string();
        self.client_id = client_id.clone();
    }

    /// It ends with an answer or an error: whom to send it to (its client and
    /// the client's request id), moved out.
    pub(in crate::engine) fn into_reply_target(self) -> (ClientId, Value) {
        (self.client, self.client_id)
    }

    /// A modern server asked for input Lazy MCP answered itself: the same
    /// call goes again with `params`, one input round more.
    pub(in crate::engine) fn ask_again(self, params: Value) -> (QueuedCall, u32) {
        let queued = QueuedCall {
            client: self.client,
            client_id: self.client_id,
            method: self.method,
            params: CallParams::Parsed(Some(params)),
            era_retried: self.era_retried,
        };
        (queued, self.input_rounds.saturating_add(1))
    }

    /// Its server's era changed under it: it waits for the next connect, with
    /// its params, and goes again once only.
    pub(in crate::engine) fn requeue_after_era_change(self) -> QueuedCall {
        QueuedCall {
            client: self.client,
            client_id: self.client_id,
            method: self.method,
            params: CallParams::Parsed(self.params.map(|p| *p)),
            era_retried: true,
        }
    }

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

#[cfg(test)]
#[path = "calls_tests.rs"]
mod tests;
