//! The router's part of sign-in (`server/auth.rs`): `Servers` hands a
//! server's auth machine its input and carries out the outputs only the
//! servers' state takes; the rest (the clients' exposure, a stop, the
//! waiters failed, a state change, a refusal) reaches beyond the servers and
//! is carried out here, in the machine's order.

use crate::engine::events::ConnId;
use crate::engine::router::Engine;
use crate::engine::server::auth::input::AuthInput;
use crate::engine::server::machines::auth::machine::AuthOutput;

impl Engine {
    /// Hands `name`'s auth machine `input` (`Servers::handle_auth`; the
    /// server of the input's connection when `name` is None), then carries
    /// out its outputs in order: `Servers::auth_output` those only the
    /// servers' state takes, the router the rest. Returns the input's
    /// answer (false: no such server).
    pub(in crate::engine) fn on_auth(&mut self, name: Option<&str>, input: AuthInput) -> bool {
        let on = input.conn();
        let Some((name, result, outputs)) =
            self.with_servers(|servers, ctx| servers.handle_auth(ctx, name, input))
        else {
            return false;
        };
        for output in outputs {
            match self.with_servers(|servers, ctx| servers.auth_output(ctx, &name, output, on)) {
                // The sign-in as shown changed: the clients' exposure is
                // stale; the host refreshes as for a state change.
                Some(AuthOutput::Shown) => {
                    self.clients.exposure_changed();
                    // It reads the event's effects, so it is fed them.
                    self.servers.sign_in_shown(&self.effects, &name);
                    self.servers.poll_effects(&mut self.effects);
                }
                Some(AuthOutput::Stop(why)) => self.stop_server(&name, &why),
                Some(AuthOutput::FailWaiters(error)) => self.fail_waiters(&name, &error),
                Some(AuthOutput::Transition(trigger)) => self.transition(&name, trigger),
                Some(AuthOutput::Refuse(message)) => self.refuse_action(Some(&name), message),
                _ => {}
            }
        }
        result
    }

    /// A connection met an auth challenge on the message `refused` of a
    /// `send`: an OAuth server's machine decides, and the message is held
    /// with what the connection sends meanwhile; any other's is an HTTP status.
    pub(in crate::engine) fn on_auth_required(
        &mut self,
        conn: ConnId,
        status: u16,
        (had_token, challenge): (bool, Option<&str>),
        refused: String,
    ) {
        match self.servers.signs_in_on(conn) {
            None => {}
            Some(false) => self.on_http_status(conn, status),
            Some(true) => {
                let challenged = AuthInput::Challenge {
                    conn,
                    status,
                    had_token,
                    challenge,
                };
                self.on_auth(None, challenged);
                self.with_servers(|servers, ctx| servers.hold_refused(ctx, conn, refused));
            }
        }
    }

    /// Another window or process stored tokens for `url`: every server of that
    /// URL that needs sign-in (and is not signing in or refreshing itself,
    /// whose own end follows) uses them.
    pub(in crate::engine) fn on_tokens_stored_elsewhere(&mut self, url: &str) {
        for name in self.servers.taking_tokens_for(url) {
            self.on_auth(Some(&name), AuthInput::TokensStoredElsewhere);
        }
    }
}
