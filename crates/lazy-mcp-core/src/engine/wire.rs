//! The hot path's entry points exactly as the WASM facade exposes them: a
//! message as UTF-8 bytes of its own in, `[effectsJson, ...payloads]` out
//! (`effects::split_payloads`). Here, not in the facade, so native tests drive
//! the same code production runs, invalid UTF-8 included.

use crate::engine::effects::split_payloads;
use crate::engine::events::{ConnId, Endpoint};
use crate::engine::router::Engine;
use std::borrow::Cow;

/// Bytes in, text out: invalid UTF-8 becomes U+FFFD, exactly as Node's
/// `buffer.toString('utf8')` did when the host decoded it.
pub fn text_of(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

impl Engine {
    /// A gateway client's message (WASM `clientMessage`). `endpoint`: the server
    /// name, or `None` for the aggregate endpoint.
    pub fn client_message_bytes(
        &mut self,
        now_ms: u64,
        client: &str,
        endpoint: Option<String>,
        message: &[u8],
    ) -> Vec<String> {
        let endpoint = match endpoint {
            Some(name) => Endpoint::Server { name },
            None => Endpoint::Aggregate,
        };
        let effects = self.handle_client_message(now_ms, client, endpoint, &text_of(message));
        split_payloads(effects)
    }

    /// What upstream connection `conn` received (WASM `messageReceived`).
    pub fn message_received_bytes(
        &mut self,
        now_ms: u64,
        conn: ConnId,
        message: &[u8],
    ) -> Vec<String> {
        let effects = self.handle_message_received(now_ms, conn, &text_of(message));
        split_payloads(effects)
    }

    /// The persisted catalogue (WASM `catalogueLoaded`) as the bytes of its file:
    /// it is JSON, so escaped inside an event's JSON it doubled its quotes and
    /// the core unescaped it again.
    pub fn catalogue_loaded_bytes(&mut self, now_ms: u64, blob: &[u8]) -> Vec<String> {
        let blob = text_of(blob).into_owned();
        let effects = self.handle(
            now_ms,
            crate::engine::events::Event::CatalogueLoaded { blob },
        );
        split_payloads(effects)
    }
}
