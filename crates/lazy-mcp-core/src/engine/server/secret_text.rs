//! Text the host reports about a server (a close reason, a stderr tail) and
//! the engine's own log lines can repeat a value that is secret by origin (a
//! server echoing its argv, a spawn error naming a command read from a
//! `{file:...}`): it is masked before it is stored, logged or answered.

use crate::config::model::Transport;
use crate::config::resolved_values;
use crate::engine::events::ConnId;
use crate::engine::server::Servers;

impl Servers {
    /// `text` about server `name` with that server's secret values masked.
    pub(in crate::engine) fn mask_for_server(&self, name: &str, text: String) -> String {
        match self.get(name) {
            Some(server) if !server.config().secret_values.is_empty() => {
                server.config().mask_secrets_in(&text)
            }
            _ => text,
        }
    }

    /// Values the host substituted at connect time (VS Code inputs) join the
    /// server's secrets until its config is applied again.
    pub(in crate::engine) fn transport_resolved(
        &mut self,
        name: &str,
        original: &Transport,
        resolved: &Transport,
    ) {
        let values = resolved_values(original, resolved);
        if let Some(server) = self.server_mut(name) {
            server.secrets_resolved(values);
        }
    }

    /// `text` about the server behind `conn`, masked the same way.
    pub(in crate::engine) fn mask_for_conn(&self, conn: ConnId, text: String) -> String {
        match self.conn(conn) {
            Some(connection) => self.mask_for_server(connection.server(), text),
            None => text,
        }
    }
}
