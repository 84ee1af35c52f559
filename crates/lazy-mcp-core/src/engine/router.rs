//! The router: `Engine` owns the maps (servers, connections, clients, timers)
//! and passes each event to the code that owns its part. See `mod.rs`. The
//! `impl Engine` blocks that carry out what an owner returns are in `router/`,
//! one file per owner file they route (`router/clients/gateway.rs` for
//! `clients/gateway.rs`, `router/server/upstream.rs` for `server/upstream.rs`),
//! so the owners never import the router.

use crate::engine::announce::announcements::Announcements;
use crate::engine::clients::context::ClientsContext;
use crate::engine::clients::exposure::view::ServedView;
use crate::engine::clients::Clients;
use crate::engine::effects::{Effect, EndpointInfo, LogLevel};
use crate::engine::effects_json;
use crate::engine::events::{ConnId, Endpoint, Event};
use crate::engine::registry::catalogue::CatalogueEntry;
use crate::engine::registry::machine::{Registry, RegistryCtx};
use crate::engine::server::auth::input::AuthInput;
use crate::engine::server::ctx::ServerCtx;
use crate::engine::server::machines::handshake::input::HandshakeInput;
use crate::engine::server::user_commands::command::Command;
use crate::engine::server::{Server, Servers};
use crate::engine::settings::{AggregateEndpoint, Settings};
use crate::engine::settled::settling::Settling;
use crate::engine::state::ServerState;
use crate::engine::timers::TimerTable;
use crate::engine::trust::machine::Trust;
use crate::protocol::jsonrpc;
use crate::protocol::message_fields::MessageFields;
use crate::protocol::methods;
use crate::protocol::params::Params;
use serde_json::Value;

mod announce;
mod clients;
mod registry;
mod server;
mod settled;
mod snapshot;
mod timers;
mod trust;
mod wire;

/// The lifecycle engine. See the module documentation.
#[derive(Debug)]
pub struct Engine {
    /// Written only by the host's `settingsChanged` and `workspaceFoldersChanged`
    /// (below); everything else reads [`Engine::settings`].
    settings: Settings,
    /// The servers' side: each server, its connections (`server/servers.rs`;
    /// its fields are its own).
    servers: Servers,
    /// The servers' config and catalogue: the config load, the catalogue, the
    /// shared catalogue's lookups (`registry/machine.rs`; its fields are its own).
    registry: Registry,
    timers: TimerTable,
    /// The clients' side: sessions, what they are shown, server-to-client
    /// requests at a client (`clients/machine.rs`; its fields are its own).
    clients: Clients,
    effects: Vec<Effect>,
    /// What the user was told, and what they wait to hear about (`announce.rs`).
    announce: Announcements,
    /// Whether some server was busy at the last state change (`settled.rs`).
    settling: Settling,
    now_ms: u64,
    /// Project servers waiting for approval, approved definitions and what is
    /// held (`trust/machine.rs`; its fields are its own).
    trust: Trust,
}

impl Engine {
    pub fn new(settings: Settings) -> Engine {
        Engine {
            settings,
            servers: Servers::default(),
            registry: Registry::default(),
            timers: TimerTable::default(),
            clients: Clients::default(),
            effects: Vec::new(),
            announce: Announcements::default(),
            settling: Settling::default(),
            now_ms: 0,
            trust: Trust::default(),
        }
    }

    /// [`Engine::new`] from the settings' JSON (camelCase, every field optional).
    pub fn from_settings_json(settings_json: &str) -> Result<Engine, String> {
        serde_json::from_str::<Settings>(settings_json)
            .map(Engine::new)
            .map_err(|e| format!("the engine settings cannot be read: {e}"))
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Feeds one event in; returns what the host must do, in order. `now_ms` is the
    /// host's wall-clock time (`Date.now()`): catalogue timestamps are persisted.
    pub fn handle(&mut self, now_ms: u64, event: Event) -> Vec<Effect> {
        self.clock(now_ms);
        match event {
            Event::ConfigSources { sources } => {
                (self.trust).set_file(sources.approved_definitions_file.clone());
                let step = self.registry.config_sources(sources);
                self.on_config_step(step);
            }
            Event::ConfigFilesChanged { paths } => {
                let step = self.registry.config_files_changed(paths);
                self.on_config_step(step);
            }
            Event::FilesRead { round, files } => {
                let step = self.registry.config_files_read(round, files);
                self.on_config_step(step);
            }
            Event::CatalogueLoaded { blob } => self.on_catalogue_loaded(&blob),
            Event::SharedCatalogueRead {
                server,
                key,
                file,
                blob,
            } => self.on_shared_catalogue_read(&server, &key, &file, blob.as_deref()),
            Event::ConnectionOpened { conn, pid } => {
                if self.servers.connection_opened(conn, pid) {
                    self.on_handshake(conn, HandshakeInput::Opened);
                }
            }
            Event::ConnectionShared {
                conn,
                clients,
                holders,
            } => self.servers.connection_shared(conn, clients, holders),
            Event::MessageReceived { conn, message } => self.on_upstream_text(conn, &message),
            Event::ReplyEnded {
                conn,
                request_id,
                reason,
                http_status,
            } => {
                let reason = self.servers.mask_for_conn(conn, reason);
                self.on_reply_ended(conn, request_id, &reason, http_status)
            }
            Event::ConnectionClosed {
                conn,
                reason,
                exit_code,
                stderr_tail,
            } => {
                let reason = self.servers.mask_for_conn(conn, reason);
                let stderr_tail = stderr_tail.map(|tail| self.servers.mask_for_conn(conn, tail));
                self.on_connection_closed(conn, &reason, exit_code, stderr_tail.as_deref())
            }
            Event::TransportResolved {
                server,
                original,
                resolved,
            } => self
                .servers
                .transport_resolved(&server, &original, &resolved),
            Event::ConnectStarted { conn } => {
                self.with_servers(|servers, ctx| servers.connect_started(ctx, conn));
            }
            Event::ConnectAnswered { conn, status } => {
                self.with_servers(|servers, ctx| servers.connect_answered(ctx, conn, status));
            }
            Event::HttpStatus { conn, status } => self.on_http_status(conn, status),
            Event::AuthRequired {
                conn,
                status,
                challenge,
                had_token,
                message,
            } => self.on_auth_required(conn, status, (had_token, challenge.as_deref()), message),
            Event::TokensAvailable { url } => self.on_tokens_stored_elsewhere(&url),
            Event::SignInFinished {
                server,
                outcome,
                message,
                attempt,
            } => {
                let message = self.servers.mask_for_server(&server, message);
                let finished = AuthInput::SignInFinished(outcome, &message, attempt);
                self.on_auth(Some(&server), finished);
            }
            Event::RefreshFinished {
                server,
                outcome,
                message,
            } => {
                let message = self.servers.mask_for_server(&server, message);
                self.on_auth(Some(&server), AuthInput::RefreshFinished(outcome, &message));
            }
            Event::SignIn { server } => _ = self.on_auth(Some(&server), AuthInput::SignIn),
            Event::CancelSignIn { server } => {
                _ = self.on_auth(Some(&server), AuthInput::CancelSignIn)
            }
            Event::SignOut { server } => _ = self.on_auth(Some(&server), AuthInput::SignOut),
            Event::DismissSignIn { servers } => self.servers.sign_in_dismissed(servers),
            Event::Timeout => self.on_timeout(),
            Event::ClientMessage {
                client,
                endpoint,
                message,
            } => self.on_client_message_outlined(&client, endpoint, &message, Outlined::NOTHING),
            Event::ClientMessageTooLarge {
                client,
                head,
                bytes,
                limit_bytes,
            } => {
                self.with_clients(|clients, ctx| {
                    clients.message_too_large(ctx, &client, &head, bytes, limit_bytes)
                });
            }
            Event::ClientDisconnected { client } => self.on_client_disconnected(&client),
            Event::ClientStreamOpened { client } => {
                self.clients.client_stream(&client, true, now_ms)
            }
            Event::ClientStreamClosed { client } => {
                self.clients.client_stream(&client, false, now_ms)
            }
            Event::ClientInputEnded { client } => self.clients.input_ended(&client),
            Event::DefinitionStarted {
                endpoint,
                version,
                failed,
            } => {
                self.with_served(|clients, ctx, served| {
                    clients.definition_started(endpoint, &version, failed, served.servers(), ctx)
                });
            }
            Event::Enable { server } => self.on_user_command(&server, Command::Enable),
            Event::Disable { server } => self.on_user_command(&server, Command::Disable),
            Event::ConnectNow { server } => self.on_user_command(&server, Command::ConnectNow),
            Event::Disconnect { server } => self.on_user_command(&server, Command::Disconnect),
            Event::RefreshCatalogue {
                server,
                recatalogue,
            } => self.on_refresh(server.as_deref(), recatalogue),
            Event::ProcessStats { server, rss_bytes } => {
                self.servers.process_stats(&server, rss_bytes);
            }
            Event::WorkspaceFoldersChanged { folders } => {
                self.on_workspace_folders_changed(folders)
            }
            Event::SettingsChanged { settings } => self.on_settings_changed(settings),
            Event::ApproveDefinitions { server, items } => {
                self.on_approve_definitions(&server, &items)
            }
        }
        self.finish_event()
    }

    /// An already normalized server list, managed as is: it skips the config
    /// files and the host's policy, so it is no event of the host contract
    /// (hosts load config through `configSources`). For native tests, examples
    /// and benches only (feature `test-exports`). Diffed by name and fingerprint
    /// like a config load's result.
    #[cfg(any(test, feature = "test-exports"))]
    pub fn apply_servers(
        &mut self,
        now_ms: u64,
        servers: Vec<crate::config::model::ServerConfig>,
    ) -> Vec<Effect> {
        self.clock(now_ms);
        self.on_config_applied(servers);
        self.finish_event()
    }

    /// A client message, its text borrowed (the hot path: no [`Event`] is built
    /// around it). Same as `handle(now, Event::ClientMessage { .. })`.
    pub fn handle_client_message(
        &mut self,
        now_ms: u64,
        client: &str,
        endpoint: Endpoint,
        message: &str,
    ) -> Vec<Effect> {
        self.handle_client_message_outlined(now_ms, client, endpoint, message, Outlined::NOTHING)
    }

    /// [`Engine::handle_client_message`] of a text the caller read already
    /// (the gateway's POST): what it found is not read twice.
    pub(in crate::engine) fn handle_client_message_outlined(
        &mut self,
        now_ms: u64,
        client: &str,
        endpoint: Endpoint,
        message: &str,
        read: Outlined<'_>,
    ) -> Vec<Effect> {
        self.clock(now_ms);
        self.on_client_message_outlined(client, endpoint, message, read);
        self.finish_event()
    }

    /// A message from an upstream server, its text borrowed. Same as
    /// `handle(now, Event::MessageReceived { .. })`.
    pub fn handle_message_received(
        &mut self,
        now_ms: u64,
        conn: ConnId,
        message: &str,
    ) -> Vec<Effect> {
        self.clock(now_ms);
        self.on_upstream_text(conn, message);
        self.finish_event()
    }

    /// The event's time, from the host (`Date.now()`): every entry sets it
    /// here first, the one writer of `now_ms`.
    #[inline]
    pub(in crate::engine) fn clock(&mut self, now_ms: u64) {
        self.now_ms = now_ms;
    }

    /// What every event ends with: queued cataloguing, announcements, exposure, persistence.
    pub(in crate::engine) fn finish_event(&mut self) -> Vec<Effect> {
        self.pump_catalogue_queue();
        if self.announce.has_batch() {
            let servers = &self.servers;
            let cataloguing = servers
                .values()
                .any(|s| matches!(s.state(), ServerState::Pending | ServerState::Cataloguing));
            let state_of = |name: &str| servers.get(name).map(Server::state);
            if let Some(summary) = self.announce.poll_summary(cataloguing, state_of) {
                self.effects.push(summary);
            }
        }
        let may_wait = self.settings.sign_in_may_wait;
        if let Some(announcement) = self.servers.poll_sign_in_announcement(may_wait) {
            self.effects.push(announcement);
        }
        self.flush_settled();
        if self.settings.refresh_interval_ms > 0 {
            self.keep_refresh_armed(false);
        }
        if self.clients.needs_publish() {
            self.with_served(|clients, ctx, served| clients.publish_changes(ctx, served));
        }
        if self.clients.definition_starts_due() {
            let allowed = self.settings.aggregate_endpoint == AggregateEndpoint::ToolIndex;
            let close = self.settings.close_listing_sessions;
            self.with_served(|clients, ctx, served| {
                clients.review_definition_starts(allowed, close, served.servers(), ctx)
            });
        }
        if let Some(write) = self.trust.take_write() {
            self.effects.push(write);
        }
        let model = self.clients.search_model();
        if (self.registry).update_vectors(|catalogue| model.update_vectors(catalogue)) {
            self.clients.search_inputs_changed();
        }
        // After the vectors: the shared entry carries them.
        self.flush_shared_catalogue();
        if let Some(persist) = self.registry.take_persist() {
            self.effects.push(persist);
        }
        // After everything that may answer a client this event.
        // It reads the event's effects, so it is fed them, not a context.
        self.clients.settle_answers(&self.effects, self.now_ms);
        self.clients.poll_effects(&mut self.effects);
        // Tests fail on an input whose drain was forgotten; a release build
        // still sends what it yielded with this event rather than a later one.
        debug_assert!(
            self.outboxes_drained(),
            "an owner's effects were left undrained"
        );
        if !self.outboxes_drained() {
            self.drain_late();
        }
        // Computed last (every timer this event armed, re-armed or cancelled is
        // in the table), placed first (a host failing on a later effect still arms it).
        if let Some(wake) = self.timers.poll_wake() {
            self.effects.insert(0, wake);
        }
        std::mem::take(&mut self.effects)
    }

    /// A release build's backstop for a forgotten drain (see `finish_event`).
    #[cold]
    fn drain_late(&mut self) {
        self.trust.poll_effects(&mut self.effects);
        self.registry.poll_effects(&mut self.effects);
        self.clients.poll_effects(&mut self.effects);
        self.servers.poll_effects(&mut self.effects);
    }

    /// Every owner's outbox was drained right after its input (the router
    /// writes the event's effects; the owners only yield theirs).
    fn outboxes_drained(&self) -> bool {
        self.trust.outbox_is_empty()
            && self.registry.outbox_is_empty()
            && self.clients.outbox_is_empty()
            && self.servers.outbox_is_empty()
    }

    /// The earliest deadline of an armed timer (host wall clock, ms), if any:
    /// the host's one timer waits for it (the `wakeAt` effect says when it moves earlier).
    pub fn poll_timeout(&self) -> Option<u64> {
        self.timers.poll_timeout()
    }

    /// [`Engine::handle`] over JSON: `event_json` is one [`Event`], the result a JSON
    /// array of [`Effect`]s. Bad JSON never panics: it yields one `log` effect.
    pub fn handle_json(&mut self, now_ms: u64, event_json: &str) -> String {
        let effects = match Event::from_json(event_json) {
            Ok(event) => self.handle(now_ms, event),
            Err(error) => vec![Effect::Log {
                level: LogLevel::Error,
                server: None,
                message: format!("the host sent an event the engine cannot read: {error}"),
            }],
        };
        serde_json::to_string(&effects).unwrap_or_else(|_| "[]".to_string())
    }

    /// [`Engine::handle_json`] with the payloads kept out of the effects' JSON
    /// (see [`effects_json::split_payloads`]).
    pub fn handle_json_split(&mut self, now_ms: u64, event_json: &str) -> Vec<String> {
        match Event::from_json(event_json) {
            Ok(event) => effects_json::split_payloads(self.handle(now_ms, event)),
            Err(error) => effects_json::split_payloads(vec![Effect::Log {
                level: LogLevel::Error,
                server: None,
                message: format!("the host sent an event the engine cannot read: {error}"),
            }]),
        }
    }

    /// Current state of one server.
    pub fn state(&self, server: &str) -> Option<&ServerState> {
        self.servers.get(server).map(Server::state)
    }

    /// Exposed endpoints (one per enabled server), with their versions.
    pub fn endpoints(&self) -> Vec<EndpointInfo> {
        self.shown().lists_and_endpoints().1
    }

    /// The persisted-catalogue blob as it stands now.
    pub fn catalogue_blob(&self) -> String {
        self.registry.catalogue().to_blob()
    }

    /// Runs `input` on the servers with what it is handed (`server/ctx.rs`),
    /// then drains what it yielded into the event's effects.
    #[inline]
    pub(in crate::engine) fn with_servers<R>(
        &mut self,
        input: impl FnOnce(&mut Servers, &mut ServerCtx<'_>) -> R,
    ) -> R {
        let mut lent = self.servers_input();
        input(lent.servers, &mut lent.ctx)
    }

    /// The servers lent for one input, with what it is handed
    /// (`server/ctx.rs`): the timer table, the clock; the settings, catalogue
    /// and clients to read. What the input yielded is drained when the loan
    /// ends ([`ServersInput`]). Out of line: the clients and pins are read
    /// through `server/reads.rs`'s traits, and writing their tables'
    /// addresses at each of the ~40 callers cost the `.wasm` more than this
    /// call costs a warm call.
    #[inline(never)]
    pub(in crate::engine) fn servers_input(&mut self) -> ServersInput<'_> {
        let ctx = ServerCtx {
            timers: &mut self.timers,
            settings: &self.settings,
            catalogue: self.registry.catalogue(),
            clients: &self.clients,
            pins: self.trust.pins(),
            now_ms: self.now_ms,
        };
        ServersInput {
            servers: &mut self.servers,
            ctx,
            effects: &mut self.effects,
        }
    }

    /// Runs `input` on the clients with what it is lent (`clients/context.rs`:
    /// the timer table, the clock), then drains what it yielded into the
    /// event's effects.
    pub(in crate::engine) fn with_clients<R>(
        &mut self,
        input: impl FnOnce(&mut Clients, &mut ClientsContext<'_>) -> R,
    ) -> R {
        let mut ctx = ClientsContext {
            timers: &mut self.timers,
            now_ms: self.now_ms,
        };
        let result = input(&mut self.clients, &mut ctx);
        self.clients.poll_effects(&mut self.effects);
        result
    }

    /// Runs `input` on the registry with what it reads (`registry/machine.rs`'s
    /// `RegistryCtx`: the servers, the settings), then drains what it yielded
    /// into the event's effects.
    pub(in crate::engine) fn with_registry<R>(
        &mut self,
        input: impl FnOnce(&mut Registry, &RegistryCtx<'_, Servers>) -> R,
    ) -> R {
        let ctx = RegistryCtx {
            servers: &self.servers,
            settings: &self.settings,
        };
        let result = input(&mut self.registry, &ctx);
        self.registry.poll_effects(&mut self.effects);
        result
    }

    /// [`Engine::with_clients`], with the servers' side of what clients are
    /// shown to read (an input that answers from the servers' lists).
    pub(in crate::engine) fn with_served<R>(
        &mut self,
        input: impl FnOnce(&mut Clients, &mut ClientsContext<'_>, ServedView<'_>) -> R,
    ) -> R {
        let served = ServedView::new(
            &self.servers,
            self.registry.catalogue(),
            self.trust.pins(),
            &self.settings,
            self.trust.awaiting(),
        );
        let mut ctx = ClientsContext {
            timers: &mut self.timers,
            now_ms: self.now_ms,
        };
        let result = input(&mut self.clients, &mut ctx, served);
        self.clients.poll_effects(&mut self.effects);
        result
    }

    // ---- small shared helpers -------------------------------------------------

    pub(in crate::engine) fn log(
        &mut self,
        level: LogLevel,
        server: Option<&str>,
        message: String,
    ) {
        let line = self.servers.log_line(level, server, message);
        self.effects.push(line);
    }

    pub(in crate::engine) fn reply(&mut self, client: &str, message: Value) {
        self.with_clients(|clients, ctx| clients.reply(ctx, client, message));
    }

    pub(in crate::engine) fn reply_error(
        &mut self,
        client: &str,
        id: Value,
        code: i64,
        message: &str,
    ) {
        self.reply(client, jsonrpc::error_response(id, code, message));
    }

    pub(in crate::engine) fn notify_client(&mut self, client: &str, message: Value) {
        let fields = MessageFields::read(&message);
        let progress_token = match fields.method() {
            Some(methods::NOTIFICATIONS_PROGRESS) => {
                Params::read(fields.params).progress_token.cloned()
            }
            _ => None,
        };
        self.effects.push(Effect::NotifyClient {
            client: client.to_string(),
            progress_token,
            request: None,
            message: message.to_string(),
        });
    }

    /// The catalogue entry of a server, when it matches the server's config.
    pub(in crate::engine) fn current_entry(&self, name: &str) -> Option<&CatalogueEntry> {
        self.registry.current_entry(name, &self.servers)
    }

    /// The server's `timeout` key bounds each forwarded request too (it is the
    /// per-request timeout of the tools whose configs carry it), else `requestTimeoutMs`.
    pub(in crate::engine) fn request_timeout_ms(&self, name: &str) -> u64 {
        self.servers
            .get(name)
            .and_then(|s| s.config().timeout_ms)
            .unwrap_or(self.settings.request_timeout_ms)
    }

    pub(in crate::engine) fn on_settings_changed(&mut self, settings: Settings) {
        let folders = settings.workspace_folders.clone();
        let folders_changed = folders != self.settings.workspace_folders;
        self.settings = settings;
        self.keep_refresh_armed(true);
        // Tool exposure settings may have changed.
        self.clients.exposure_changed();
        if folders_changed {
            self.settings.workspace_folders = Vec::new();
            self.on_workspace_folders_changed(folders);
        }
        self.with_servers(|servers, ctx| servers.idle_setting_changed(ctx));
        let idle_ms = self.settings.session_idle_ms;
        self.with_clients(|clients, ctx| clients.arm_gateway_sessions_timer(idle_ms, ctx));
    }

    pub(in crate::engine) fn on_workspace_folders_changed(&mut self, folders: Vec<String>) {
        if folders == self.settings.workspace_folders {
            return;
        }
        self.settings.workspace_folders = folders;
        self.with_servers(|servers, ctx| servers.roots_changed(ctx));
    }
}

/// The servers lent for one input with what it is handed
/// (`Engine::servers_input`); when the loan ends, what the input yielded is
/// drained into the event's effects (so no input's effects can be left
/// behind). [`Engine::with_servers`] lends them for a closure; a caller that
/// moves a forwarded call into the servers borrows `servers` and `ctx`
/// itself, in a block: a closure would copy the call twice more, on the
/// warm call's path.
pub(in crate::engine) struct ServersInput<'a> {
    pub(in crate::engine) servers: &'a mut Servers,
    pub(in crate::engine) ctx: ServerCtx<'a>,
    effects: &'a mut Vec<Effect>,
}

impl Drop for ServersInput<'_> {
    #[inline]
    fn drop(&mut self) {
        self.servers.poll_effects(self.effects);
    }
}

/// What a caller already read of a client message's text, so the raw forwarding
/// (`router/clients/raw_forwarding.rs`) does not read it again: `plain`, the text was
/// outlined and found plain (`Outline::is_plain`); `envelope`, its raw envelope
/// (and a `tools/call`'s params peek).
pub(crate) struct Outlined<'a> {
    pub plain: bool,
    pub envelope: Option<crate::protocol::client_message::RawRead<'a>>,
}

impl Outlined<'_> {
    /// Nothing read yet: the raw forwarding reads the text itself.
    pub const NOTHING: Outlined<'static> = Outlined {
        plain: false,
        envelope: None,
    };
}
