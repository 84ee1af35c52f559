//! The owner's multiplexer: many client attachments over one server process
//! per sharing key. Events in (an attachment opened, a message from a client
//! or a server, a process up or gone, a detach), effects out (spawn, write to a
//! server or a client, close an attachment, stop a process). No I/O.
//!
//! Rules (docs/shared-servers.md): an attach joins the process of its launch
//! and roots whatever it knows of the server asking for roots
//! ([`Mux::process_for`]); a process held by clients of different roots that
//! asks for them keeps the roots asked and moves the others (`roots.rs`);
//! request ids and progress tokens are rewritten per process, a server's
//! request ids to ones unique among every process's ([`Mux::ask`]: a moved
//! client may owe two processes); the first `initialize` is forwarded and
//! later ones are answered from its result; `notifications/initialized` goes once; a
//! server's request goes to the caller's attachment when known, else the
//! newest call's or the oldest attachment, never one of other roots
//! ([`asked_attachment`]); a URI is subscribed upstream once for all
//! attachments and its `resources/updated` goes to its subscribers
//! (`subscribers.rs`); other notifications are broadcast (progress and
//! cancellations to their own attachment); a client's cancellation or detach
//! cancels only its own calls and subscriptions; the last detach stops the
//! process after the handover grace, or, when it was an idle stop, once
//! nobody has used it for its idle time ([`Mux::kept_for`]).
//!
//! Calls, their answers, progress and other notifications take the hot path
//! (`splice.rs`): routed by a shallow reading, passed on with only the id and
//! the progress token rewritten in their bytes. The handshake, cancellations,
//! a server's requests and anything unusual are read in full (`Value`).

use super::launch::{SharedHolder, SharedLaunch};
use super::splice::{Routing, Token};
use super::subscribers::{Subscribe, Subscribers};
use crate::idle_tiers::{kept_after_ms, RecentCalls};
use crate::protocol::message_fields::MessageFields;
use crate::protocol::methods;
use crate::protocol::outline::{outline, TopLevel, MAX_DEPTH};
use crate::protocol::params::Params;
use crate::vec_map::{VecMap, VecSet};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

mod roots;

pub type AttachId = u64;
pub type ProcId = u64;

/// The least a used process whose last client detached waits for the next one
/// before it is stopped: a client's idle stop followed a moment later by
/// another client's call (or a window reload) reuses it instead of spawning a
/// second process while the first one exits. After a client's idle stop it
/// waits longer: until nobody has used it for its idle time ([`Mux::kept_for`]).
pub const HANDOVER_GRACE_MS: u64 = 5_000;

/// Read from `{"type": ...}` JSON by `crate::tagged_json` (no `serde(tag)`:
/// that doubles every variant's reader in the `.wasm`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum MuxEvent {
    /// A client attachment asks for the process of `launch`. `transport` and
    /// `cwd` are what to spawn when there is none yet.
    #[serde(rename_all = "camelCase")]
    Attach {
        attach: AttachId,
        server: String,
        /// Boxed: the largest field by far (the other events are a few words).
        launch: Box<SharedLaunch>,
        transport: Value,
        #[serde(default)]
        cwd: Option<String>,
        /// The client's environment, the spawn's base (its hash is in the key).
        #[serde(default)]
        env: Value,
        #[serde(default)]
        now_ms: u64,
    },
    /// A client's message. Never read from JSON: the owner passes messages as
    /// bytes (`Mux::client_message`), never inside an event's JSON.
    #[serde(skip_deserializing)]
    ClientMessage { attach: AttachId, message: String },
    /// The client let go. `idle`: by its engine's idle stop, while it lives
    /// (the process is kept for its idle time); else it ended (its session
    /// exited, its window closed): only the handover grace.
    #[serde(rename_all = "camelCase")]
    Detach {
        attach: AttachId,
        #[serde(default)]
        idle: bool,
    },
    #[serde(rename_all = "camelCase")]
    ProcessOpened {
        process: ProcId,
        #[serde(default)]
        pid: Option<u32>,
    },
    /// A server's message (as `ClientMessage`: `Mux::server_message`).
    #[serde(skip_deserializing)]
    ServerMessage { process: ProcId, message: String },
    /// The grace of a `linger` effect is over.
    #[serde(rename_all = "camelCase")]
    LingerEnded { process: ProcId },
    #[serde(rename_all = "camelCase")]
    ProcessClosed {
        process: ProcId,
        reason: String,
        #[serde(default)]
        exit_code: Option<i64>,
        #[serde(default)]
        stderr_tail: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum MuxEffect {
    /// Start the server (today's stdio spawn); answer `processOpened`/`processClosed`.
    #[serde(rename_all = "camelCase")]
    Spawn {
        process: ProcId,
        server: String,
        transport: Value,
        cwd: Option<String>,
        env: Value,
    },
    #[serde(rename_all = "camelCase")]
    ToServer { process: ProcId, message: String },
    #[serde(rename_all = "camelCase")]
    ToClient { attach: AttachId, message: String },
    /// The attachment's process is up (its engine starts the handshake now).
    #[serde(rename_all = "camelCase")]
    Opened { attach: AttachId, pid: Option<u32> },
    /// How many attachments (windows, CLI sessions) hold the attachment's
    /// process now: sent to each of them when the process opens and whenever
    /// the count changes (Diagnostics shows it).
    #[serde(rename_all = "camelCase")]
    Sharing {
        attach: AttachId,
        clients: usize,
        /// Who holds it, oldest first.
        holders: Vec<SharedHolder>,
    },
    /// The attachment ends: its process is gone.
    #[serde(rename_all = "camelCase")]
    CloseClient {
        attach: AttachId,
        reason: String,
        exit_code: Option<i64>,
        stderr_tail: String,
    },
    /// Stop the process (its last attachment left, its idle time is over).
    #[serde(rename_all = "camelCase")]
    StopProcess { process: ProcId },
    /// Its last attachment left: answer `lingerEnded` after `ms` (it is stopped
    /// then, unless a client attached meanwhile): its idle time after its last
    /// use, at least the handover grace.
    #[serde(rename_all = "camelCase")]
    Linger { process: ProcId, ms: u64 },
}

/// One row of `lazy-mcp daemon status`: no command line, no env.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProcessStatus {
    pub process: ProcId,
    pub server: String,
    pub key: String,
    pub pid: Option<u32>,
    pub clients: usize,
    pub since_ms: u64,
    /// Who holds it, oldest first.
    pub holders: Vec<SharedHolder>,
    /// Calls (uses) from every client in the last hour: its idle time's tier.
    pub calls_last_hour: usize,
    /// How long it is kept after its last use once no client holds it.
    pub idle_ms: u64,
    /// No client holds it: when it stops (the owner's clock, ms).
    pub stops_at_ms: Option<u64>,
}

#[derive(Debug, Clone)]
enum Init {
    None,
    InFlight { waiters: Vec<(AttachId, Value)> },
    Done(Value),
}

/// A request in flight: a client's call (by its upstream id, `id` the
/// client's), or a server's request to a client (by the mux's id, `id` the
/// server's; `resend` none). One type for both: one map's code in the `.wasm`.
#[derive(Debug, Clone)]
struct Pending {
    attach: AttachId,
    id: Value,
    /// The client's request, kept on a process not keyed by roots: should its
    /// workspace move to a process of its own roots, the call is sent again
    /// there when that is safe, else answered with an error (`roots.rs`).
    resend: Option<String>,
}

#[derive(Debug, Clone)]
struct Proc {
    server: String,
    /// Where it is registered in `by_key` (None once stopping).
    key: Option<String>,
    launch_key: String,
    roots_bound: bool,
    pid: Option<u32>,
    opened: bool,
    /// In attach order (the oldest first).
    attachments: Vec<AttachId>,
    next_id: u64,
    pending: VecMap<u64, Pending>,
    init: Init,
    /// The upstream id of the `initialize` in flight.
    init_id: Option<u64>,
    initialized_sent: bool,
    /// Rewritten progress token → (attachment, the client's token).
    progress: VecMap<String, (AttachId, Value)>,
    /// A server request passed on, by the id the mux gave it ([`Mux::ask`])
    /// → the attachment asked and the server's own id.
    asked: VecMap<u64, Pending>,
    /// Resource URIs the attachments subscribed to.
    subscribers: Subscribers,
    since_ms: u64,
    /// No attachment, waiting out [`HANDOVER_GRACE_MS`] for the next one.
    lingering: bool,
    /// A client used it (a call, a read), not only catalogued it: only such a
    /// process waits for the next client when its last one leaves.
    used: bool,
    /// Its uses by every client: the rate its idle time follows.
    calls: RecentCalls,
    /// A use or an answer to any client, last (the owner's clock).
    last_use_ms: u64,
    /// The idle setting of its last holder, once none is left.
    left_idle: Idle,
    /// While lingering: when it stops.
    linger_until: u64,
    /// What to spawn it with (transport, cwd, environment): a process started
    /// for the clients of one workspace when a shared one asks for roots is the same.
    spawn: (Value, Option<String>, Value),
    /// The first `initialize` forwarded (the owner repeats it for such a process).
    init_request: Option<serde_json::Map<String, Value>>,
    /// Started by the owner for clients that did their handshake with another
    /// process: the owner does its handshake itself.
    own_handshake: bool,
    /// Messages of such clients held until its handshake is done.
    held: Vec<(AttachId, String)>,
    /// URIs those clients had subscribed to: subscribed again once it is up.
    resubscribe: Vec<String>,
    /// It answered `initialize` (held messages go on from then).
    handshake_over: bool,
}

impl Proc {
    /// The upstream ids of `attach`'s calls in flight here.
    fn calls_of(&self, attach: AttachId) -> Vec<u64> {
        of(&self.pending, attach)
    }

    /// A client's request went to the server at `now_ms`.
    fn requested(&mut self, method: &str, now_ms: u64) {
        if is_a_use(method) {
            self.used = true;
            self.calls.record(now_ms);
            self.last_use_ms = now_ms;
        }
    }
}

/// A holder's idle setting for the server: its ceiling (ms, 0 = never) and
/// whether the idle time follows the call rate.
type Idle = (u64, bool);

#[derive(Debug, Clone)]
struct Attachment {
    process: ProcId,
    /// The process it was moved from when that one asked for roots (its calls
    /// in flight there are still answered from it).
    from: Option<ProcId>,
    roots_key: String,
    holder: SharedHolder,
    idle: Idle,
    /// Its tools safe to run twice (`SharedLaunch::repeatable`): only their
    /// calls are sent again when it moves to a process of its own roots.
    repeatable: Vec<String>,
}

#[derive(Debug, Default)]
pub struct Mux {
    processes: VecMap<ProcId, Proc>,
    by_key: VecMap<String, ProcId>,
    attachments: VecMap<AttachId, Attachment>,
    /// Launches whose server asked for `roots/list`: keyed by roots from then on.
    roots_sensitive: VecSet<String>,
    next_process: ProcId,
    /// The id the next server request passed to a client gets ([`Mux::ask`]).
    next_ask: u64,
    effects: Vec<MuxEffect>,
    /// The handover grace when not [`HANDOVER_GRACE_MS`] (a benchmark that
    /// compresses time scales it as it scales the idle time).
    grace_ms: Option<u64>,
    /// The owner's clock at this step ([`Mux::at`]; an attach carries its own).
    now_ms: u64,
    /// The owner's linger when not `host_limits`' (`daemon run --linger-ms`).
    linger_ms: Option<u64>,
    /// Since when the owner has held nothing (see [`Mux::owner_exit_in`]).
    idle_since_ms: Option<u64>,
}

impl Mux {
    /// The grace a used process waits after its last client detached.
    pub fn set_handover_grace_ms(&mut self, ms: u64) {
        self.grace_ms = Some(ms);
    }

    pub fn new() -> Self {
        Mux {
            next_process: 1,
            ..Mux::default()
        }
    }

    /// The owner's clock for the next step (ms): calls are counted and idle
    /// times measured by it.
    pub fn at(&mut self, now_ms: u64) -> &mut Self {
        self.now_ms = now_ms;
        self
    }

    /// How long `p` is kept after its last use once no client holds it: the
    /// longest idle time its holders' settings give at its own call rate
    /// (from every client), so it stops when nobody has used it for that long
    /// (each client's own idle time, at its own lower rate, is never longer).
    fn kept_for(&self, p: &Proc) -> u64 {
        let calls = p.calls.in_last_hour(self.now_ms);
        let mut kept = kept_after_ms(p.left_idle.0, p.left_idle.1, calls);
        if !p.attachments.is_empty() {
            kept = 0;
            for a in p.attachments.iter().filter_map(|a| self.attachments.get(a)) {
                kept = kept.max(kept_after_ms(a.idle.0, a.idle.1, calls));
            }
        }
        kept
    }

    /// How long an owner holding nothing stays (`daemon run --linger-ms`).
    pub fn set_linger_ms(&mut self, ms: u64) {
        self.linger_ms = Some(ms);
    }

    /// When the owner exits: `None` while it holds something (a process or an
    /// attachment here, or `host_holds` things of the host's: sockets not
    /// attached yet, processes still closing); else the milliseconds left of
    /// its linger, counted from when it began to hold nothing (0: exit now).
    /// The host arms a timer for it and asks again at each step and when it fires.
    pub fn owner_exit_in(&mut self, now_ms: u64, host_holds: usize) -> Option<u64> {
        if host_holds > 0 || !self.is_idle() {
            self.idle_since_ms = None;
            return None;
        }
        let since = *self.idle_since_ms.get_or_insert(now_ms);
        let linger = self
            .linger_ms
            .unwrap_or(crate::host_limits::OWNER_LINGER_MS);
        Some(linger.saturating_sub(now_ms.saturating_sub(since)))
    }

    /// Nothing held: no process and no attachment (the owner may exit).
    pub fn is_idle(&self) -> bool {
        self.processes.is_empty() && self.attachments.is_empty()
    }

    pub fn status(&self) -> Vec<ProcessStatus> {
        self.processes
            .iter()
            .map(|(id, p)| ProcessStatus {
                process: *id,
                server: p.server.clone(),
                key: p.launch_key.chars().take(12).collect(),
                pid: p.pid,
                clients: p.attachments.len(),
                since_ms: p.since_ms,
                holders: self.holders(p),
                calls_last_hour: p.calls.in_last_hour(self.now_ms),
                idle_ms: self.kept_for(p),
                stops_at_ms: p.lingering.then_some(p.linger_until),
            })
            .collect()
    }

    pub fn handle(&mut self, event: MuxEvent) -> Vec<MuxEffect> {
        match event {
            MuxEvent::Attach {
                attach,
                server,
                launch,
                transport,
                cwd,
                env,
                now_ms,
            } => self.on_attach(attach, server, *launch, (transport, cwd, env), now_ms),
            MuxEvent::ClientMessage { attach, message } => self.on_client_message(attach, &message),
            MuxEvent::Detach { attach, idle } => self.on_detach(attach, idle),
            MuxEvent::ProcessOpened { process, pid } => self.on_opened(process, pid),
            MuxEvent::ServerMessage { process, message } => {
                self.on_server_message(process, &message)
            }
            MuxEvent::LingerEnded { process } => self.on_linger_ended(process),
            MuxEvent::ProcessClosed {
                process,
                reason,
                exit_code,
                stderr_tail,
            } => self.on_closed(process, reason, exit_code, stderr_tail),
        }
        std::mem::take(&mut self.effects)
    }

    /// `handle` for a client's message (the owner's hot path: no event to build).
    pub fn client_message(&mut self, attach: AttachId, text: &str) -> Vec<MuxEffect> {
        self.on_client_message(attach, text);
        std::mem::take(&mut self.effects)
    }

    /// `handle` for a server's message (the owner's hot path: no event to build).
    pub fn server_message(&mut self, process: ProcId, text: &str) -> Vec<MuxEffect> {
        self.on_server_message(process, text);
        std::mem::take(&mut self.effects)
    }

    /// Give back a step's effects once read: the next step pushes into their
    /// allocation (the owner's hot path allocates no list per message).
    pub fn recycle(&mut self, mut used: Vec<MuxEffect>) {
        if self.effects.is_empty() {
            used.clear();
            self.effects = used;
        }
    }

    /// `handle` for JSON: an event that does not parse gives no effects.
    pub fn handle_json(&mut self, event_json: &str) -> String {
        let effects = match crate::tagged_json::from_tagged_json::<MuxEvent>(event_json) {
            Ok(event) => self.handle(event),
            Err(_) => Vec::new(),
        };
        serde_json::to_string(&effects).unwrap_or_else(|_| "[]".into())
    }

    fn process_key(&self, launch: &SharedLaunch) -> String {
        if launch.roots_bound || self.roots_sensitive.contains(&launch.key) {
            format!("{}/{}", launch.key, launch.roots_key)
        } else {
            launch.key.clone()
        }
    }

    /// The running process an attach joins: one of the same launch and the
    /// same roots, whatever this client knows of the server asking for roots
    /// (another client of these roots may know more); else one of the launch
    /// not keyed by roots, when this client does not need its roots or all
    /// its holders have the same roots as this one.
    fn process_for(&self, launch: &SharedLaunch) -> Option<ProcId> {
        let bound = format!("{}/{}", launch.key, launch.roots_key);
        if let Some(process) = self.by_key.get(&bound) {
            return Some(*process);
        }
        let process = *self.by_key.get(&launch.key)?;
        let same_roots = |a: &AttachId| {
            self.attachments
                .get(a)
                .is_some_and(|a| a.roots_key == launch.roots_key)
        };
        let fits = !launch.roots_bound
            || self
                .processes
                .get(&process)
                .is_some_and(|p| p.attachments.iter().all(same_roots));
        fits.then_some(process)
    }

    /// A new process registered under `key`, to be spawned.
    fn new_process(
        &mut self,
        server: String,
        (key, launch_key, roots_bound): (String, String, bool),
        spawn: (Value, Option<String>, Value),
    ) -> ProcId {
        let process = self.next_process;
        self.next_process += 1;
        self.effects.push(MuxEffect::Spawn {
            process,
            server: server.clone(),
            transport: spawn.0.clone(),
            cwd: spawn.1.clone(),
            env: spawn.2.clone(),
        });
        self.processes.insert(
            process,
            Proc {
                server,
                key: Some(key.clone()),
                launch_key,
                roots_bound,
                pid: None,
                opened: false,
                attachments: Vec::new(),
                next_id: 1,
                pending: VecMap::new(),
                init: Init::None,
                init_id: None,
                initialized_sent: false,
                progress: VecMap::new(),
                asked: VecMap::new(),
                subscribers: Subscribers::default(),
                since_ms: self.now_ms,
                lingering: false,
                used: false,
                calls: RecentCalls::default(),
                last_use_ms: self.now_ms,
                left_idle: (0, false),
                linger_until: 0,
                spawn,
                init_request: None,
                own_handshake: false,
                held: Vec::new(),
                resubscribe: Vec::new(),
                handshake_over: false,
            },
        );
        self.by_key.insert(key, process);
        process
    }

    fn on_attach(
        &mut self,
        attach: AttachId,
        server: String,
        launch: SharedLaunch,
        spawn: (Value, Option<String>, Value),
        now_ms: u64,
    ) {
        if self.attachments.contains_key(&attach) {
            return;
        }
        self.now_ms = now_ms;
        let process = match self.process_for(&launch) {
            Some(process) => process,
            None => {
                let key = (
                    self.process_key(&launch),
                    launch.key.clone(),
                    launch.roots_bound,
                );
                self.new_process(server, key, spawn)
            }
        };
        self.attachments.insert(
            attach,
            Attachment {
                process,
                from: None,
                roots_key: launch.roots_key,
                holder: SharedHolder {
                    label: launch.holder,
                    since_ms: now_ms,
                },
                idle: (launch.idle_timeout_ms, launch.adaptive_idle),
                repeatable: launch.repeatable,
            },
        );
        if let Some(p) = self.processes.get_mut(&process) {
            p.lingering = false;
            p.attachments.push(attach);
            if p.opened {
                self.effects.push(MuxEffect::Opened { attach, pid: p.pid });
            }
        }
        self.announce_sharing(process);
    }

    /// Tells every attachment of an open process how many share it.
    fn announce_sharing(&mut self, process: ProcId) {
        let Some(p) = self.processes.get(&process).filter(|p| p.opened) else {
            return;
        };
        let clients = p.attachments.len();
        let holders = self.holders(p);
        for attach in &p.attachments {
            self.effects.push(MuxEffect::Sharing {
                attach: *attach,
                clients,
                holders: holders.clone(),
            });
        }
    }

    /// The process's holders in attach order.
    fn holders(&self, p: &Proc) -> Vec<SharedHolder> {
        p.attachments
            .iter()
            .filter_map(|a| self.attachments.get(a).map(|a| a.holder.clone()))
            .collect()
    }

    fn on_opened(&mut self, process: ProcId, pid: Option<u32>) {
        let Some(p) = self.processes.get_mut(&process) else {
            return;
        };
        p.opened = true;
        p.pid = pid;
        for attach in &p.attachments {
            self.effects.push(MuxEffect::Opened {
                attach: *attach,
                pid,
            });
        }
        self.own_handshake(process);
        self.announce_sharing(process);
    }

    fn on_client_message(&mut self, attach: AttachId, text: &str) {
        let Some((process, from)) = self.attachments.get(&attach).map(|a| (a.process, a.from))
        else {
            return;
        };
        if let Some(old) = from {
            if self.held(process, old, attach, text) {
                return;
            }
        }
        if self.forward_client_raw(attach, process, text) {
            return;
        }
        let Some((mut message, method, id)) = envelope(text) else {
            return;
        };
        // An answer to a request of the process it was moved from.
        let process = from
            .filter(|old| self.concerns(*old, attach, &message, id.as_ref()))
            .unwrap_or(process);
        let Some(p) = self.processes.get_mut(&process) else {
            return;
        };
        if let (
            Some(m @ (methods::RESOURCES_SUBSCRIBE | methods::RESOURCES_UNSUBSCRIBE)),
            Some(id),
        ) = (method.as_deref(), &id)
        {
            // One upstream subscription per URI for every attachment: only the first
            // subscribe and the last unsubscribe go to the server, the rest are answered
            // here, or with the first subscribe's answer while it is still to come.
            let uri = Params::read(MessageFields::of(&message).params).uri;
            let upstream = p.next_id;
            let step = match (m, uri) {
                (methods::RESOURCES_SUBSCRIBE, Some(uri)) => {
                    p.subscribers.subscribe(uri, attach, id.clone(), upstream)
                }
                (_, Some(uri)) if !p.subscribers.unsubscribe(uri, attach) => Subscribe::Answer,
                _ => Subscribe::Forward,
            };
            match step {
                Subscribe::Forward => {}
                Subscribe::Wait => return,
                Subscribe::Answer => {
                    self.effects.push(MuxEffect::ToClient {
                        attach,
                        message: format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#),
                    });
                    return;
                }
                Subscribe::Ask => {
                    // Not a call of `attach` (in `pending`): its detach must not cancel
                    // the answer the others wait for.
                    p.used = true;
                    p.next_id += 1;
                    message.insert("id".into(), json!(upstream));
                    self.effects.push(MuxEffect::ToServer {
                        process,
                        message: Value::Object(message).to_string(),
                    });
                    return;
                }
            }
        }
        match (method.as_deref(), id) {
            (Some(methods::INITIALIZE), Some(id)) => match &mut p.init {
                Init::Done(result) => {
                    // Text, not `json!`: each `json!` object is code in the `.wasm`.
                    self.effects.push(MuxEffect::ToClient {
                        attach,
                        message: format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#),
                    });
                }
                Init::InFlight { waiters } => waiters.push((attach, id)),
                Init::None => {
                    let upstream = p.next_id;
                    p.next_id += 1;
                    p.init = Init::InFlight {
                        waiters: vec![(attach, id)],
                    };
                    p.init_id = Some(upstream);
                    message.insert("id".into(), json!(upstream));
                    p.init_request = Some(message.clone());
                    self.effects.push(MuxEffect::ToServer {
                        process,
                        message: Value::Object(message).to_string(),
                    });
                }
            },
            (Some(method), Some(id)) => {
                p.requested(method, self.now_ms);
                let upstream = p.next_id;
                p.next_id += 1;
                let resend = (!p.roots_bound).then(|| text.to_string());
                p.pending.insert(upstream, Pending { attach, id, resend });
                message.insert("id".into(), json!(upstream));
                let token = message
                    .get_mut("params")
                    .and_then(|params| params.get_mut("_meta"))
                    .and_then(|meta| meta.get_mut("progressToken"));
                if let Some(token) = token {
                    let rewritten = format!("lazy-mcp-shared-{upstream}");
                    p.progress
                        .insert(rewritten.clone(), (attach, token.clone()));
                    *token = json!(rewritten);
                }
                self.effects.push(MuxEffect::ToServer {
                    process,
                    message: Value::Object(message).to_string(),
                });
            }
            (Some(methods::NOTIFICATIONS_INITIALIZED), None) => {
                if !p.initialized_sent {
                    p.initialized_sent = true;
                    self.effects.push(MuxEffect::ToServer {
                        process,
                        message: Value::Object(message).to_string(),
                    });
                }
            }
            (Some(methods::NOTIFICATIONS_CANCELLED), None) => {
                let theirs = Params::read(MessageFields::of(&message).params)
                    .request_id
                    .cloned();
                let upstream = theirs.and_then(|theirs| {
                    p.pending
                        .iter()
                        .find(|(_, pending)| pending.attach == attach && pending.id == theirs)
                        .map(|(upstream, _)| *upstream)
                });
                if let Some(upstream) = upstream {
                    p.pending.remove(&upstream);
                    p.progress.remove(&format!("lazy-mcp-shared-{upstream}"));
                    if let Some(params) = message.get_mut("params").and_then(Value::as_object_mut) {
                        params.insert("requestId".into(), json!(upstream));
                    }
                    self.effects.push(MuxEffect::ToServer {
                        process,
                        message: Value::Object(message).to_string(),
                    });
                }
            }
            (Some(_), None) => self.effects.push(MuxEffect::ToServer {
                process,
                message: Value::Object(message).to_string(),
            }),
            (None, Some(id)) => {
                // An answer to a server request: only from the attachment it was
                // asked of, with the server's own id again.
                let ours = id
                    .as_u64()
                    .filter(|o| p.asked.get(o).is_some_and(|a| a.attach == attach));
                if let Some(asked) = ours.and_then(|o| p.asked.remove(&o)) {
                    message.insert("id".into(), asked.id);
                    self.effects.push(MuxEffect::ToServer {
                        process,
                        message: Value::Object(message).to_string(),
                    });
                }
            }
            (None, None) => {}
        }
    }

    /// The hot path of `on_client_message` (same rules, bytes kept): `false`
    /// leaves the message to the full reading, nothing changed.
    fn forward_client_raw(&mut self, attach: AttachId, process: ProcId, text: &str) -> bool {
        let Some(routing) = Routing::read(text) else {
            return false;
        };
        let Some(p) = self.processes.get_mut(&process) else {
            return false;
        };
        let message = match (routing.method.as_deref(), &routing.id) {
            (
                Some(
                    methods::INITIALIZE
                    | methods::RESOURCES_SUBSCRIBE
                    | methods::RESOURCES_UNSUBSCRIBE,
                ),
                _,
            )
            | (None, _) => return false,
            (Some(method), Some((_, id_at))) => {
                let token = match routing.request_progress_token() {
                    Token::Unusual => return false,
                    Token::Absent => None,
                    Token::Found(theirs, at) => Some((theirs, at)),
                };
                let upstream = p.next_id;
                let new_id = json!(upstream);
                let rewritten = token
                    .as_ref()
                    .map(|(theirs, at)| (json!(format!("lazy-mcp-shared-{upstream}")), theirs, at));
                let spliced = match &rewritten {
                    Some((new_token, _, token_at)) => {
                        let (id, token) = ((id_at, &new_id), (*token_at, new_token));
                        // In the order they appear (no sort: each call site's copy costs the `.wasm`).
                        if id_at.start < token_at.start {
                            routing.splice(&[id, token])
                        } else {
                            routing.splice(&[token, id])
                        }
                    }
                    None => routing.splice(&[(id_at, &new_id)]),
                };
                let (Some(spliced), Some((id, _))) = (spliced, routing.id.clone()) else {
                    return false;
                };
                p.requested(method, self.now_ms);
                p.next_id += 1;
                let resend = (!p.roots_bound).then(|| text.to_string());
                p.pending.insert(upstream, Pending { attach, id, resend });
                if let Some((Value::String(new_token), theirs, _)) = rewritten {
                    p.progress.insert(new_token, (attach, theirs.clone()));
                }
                spliced
            }
            (Some(methods::NOTIFICATIONS_INITIALIZED | methods::NOTIFICATIONS_CANCELLED), None) => {
                return false
            }
            (Some(_), None) => text.to_string(),
        };
        self.effects.push(MuxEffect::ToServer { process, message });
        true
    }

    /// The hot path of `on_server_message` (same rules, bytes kept): `false`
    /// leaves the message to the full reading, nothing changed.
    fn forward_server_raw(&mut self, process: ProcId, text: &str) -> bool {
        let Some(routing) = Routing::read(text) else {
            return false;
        };
        let Some(p) = self.processes.get_mut(&process) else {
            return false;
        };
        match (routing.method.as_deref(), &routing.id) {
            (None, Some((id, id_at))) => {
                let Some(upstream) = id.as_u64().filter(|u| p.init_id != Some(*u)) else {
                    return false;
                };
                let Some(pending) = p.pending.get(&upstream) else {
                    return false;
                };
                let (attach, Some(message)) =
                    (pending.attach, routing.splice(&[(id_at, &pending.id)]))
                else {
                    return false;
                };
                p.pending.remove(&upstream);
                p.last_use_ms = self.now_ms;
                // No format per answer when no call asked for progress (the usual case).
                if !p.progress.is_empty() {
                    p.progress.remove(&format!("lazy-mcp-shared-{upstream}"));
                }
                self.effects.push(MuxEffect::ToClient { attach, message });
            }
            (Some(methods::NOTIFICATIONS_PROGRESS), None) => {
                let Token::Found(Value::String(token), token_at) =
                    routing.notification_progress_token()
                else {
                    return false;
                };
                let Some((attach, theirs)) = p.progress.get(&token) else {
                    return false;
                };
                let (attach, Some(message)) = (*attach, routing.splice(&[(&token_at, theirs)]))
                else {
                    return false;
                };
                self.effects.push(MuxEffect::ToClient { attach, message });
            }
            (
                Some(methods::NOTIFICATIONS_CANCELLED | methods::NOTIFICATIONS_RESOURCES_UPDATED),
                None,
            )
            | (Some(_), Some(_))
            | (None, None) => return false,
            (Some(_), None) => {
                for attach in &p.attachments {
                    self.effects.push(MuxEffect::ToClient {
                        attach: *attach,
                        message: text.to_string(),
                    });
                }
            }
        }
        true
    }

    fn on_server_message(&mut self, process: ProcId, text: &str) {
        if self.forward_server_raw(process, text) {
            return;
        }
        let Some((mut message, method, id)) = envelope(text) else {
            self.on_unreadable_server_line(process, text);
            return;
        };
        if let (Some(methods::ROOTS_LIST), Some(id)) = (method.as_deref(), &id) {
            if self.on_roots_request(process, id, &message) {
                return;
            }
        }
        let Some(p) = self.processes.get_mut(&process) else {
            return;
        };
        match (method.as_deref(), id) {
            (None, Some(id)) => {
                let Some(upstream) = id.as_u64() else {
                    return;
                };
                let result = MessageFields::of(&message).result;
                let mut flush = None;
                let waiters = if p.init_id == Some(upstream) {
                    p.init_id = None;
                    let waiters = match std::mem::replace(&mut p.init, Init::None) {
                        Init::InFlight { waiters } => waiters,
                        _ => Vec::new(),
                    };
                    if let Some(result) = result {
                        p.init = Init::Done(result.clone());
                    }
                    flush = Some(process);
                    Some(waiters)
                } else {
                    p.subscribers.answered(upstream, result.is_some())
                };
                // The handshake's or a subscribe's answer: the same to each who waits for it.
                if let Some(waiters) = waiters {
                    for (attach, id) in waiters {
                        message.insert("id".into(), id);
                        self.effects.push(MuxEffect::ToClient {
                            attach,
                            message: Value::Object(message.clone()).to_string(),
                        });
                    }
                    if let Some(process) = flush {
                        self.handshake_done(process);
                    }
                    return;
                }
                let Some(pending) = p.pending.remove(&upstream) else {
                    return;
                };
                p.last_use_ms = self.now_ms;
                p.progress.remove(&format!("lazy-mcp-shared-{upstream}"));
                message.insert("id".into(), pending.id);
                self.effects.push(MuxEffect::ToClient {
                    attach: pending.attach,
                    message: Value::Object(message).to_string(),
                });
            }
            (Some(_), Some(id)) => {
                let Some(attach) = asked_attachment(p, &self.attachments, &message) else {
                    self.effects.push(MuxEffect::ToServer {
                        process,
                        message: format!(
                            r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32603,"message":"no client is attached to this shared server"}}}}"#
                        ),
                    });
                    return;
                };
                self.ask(process, &[attach], attach, id, message);
            }
            (Some(methods::NOTIFICATIONS_PROGRESS), None) => {
                let token = Params::read(MessageFields::of(&message).params)
                    .progress_token
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let Some((attach, theirs)) = token.and_then(|t| p.progress.get(&t).cloned()) else {
                    return;
                };
                if let Some(params) = message.get_mut("params").and_then(Value::as_object_mut) {
                    params.insert("progressToken".into(), theirs);
                }
                self.effects.push(MuxEffect::ToClient {
                    attach,
                    message: Value::Object(message).to_string(),
                });
            }
            (Some(methods::NOTIFICATIONS_CANCELLED), None) => {
                let theirs = Params::read(MessageFields::of(&message).params).request_id;
                let asked = p
                    .asked
                    .iter()
                    .find(|(_, asked)| Some(&asked.id) == theirs)
                    .map(|(ours, asked)| (*ours, asked.attach));
                if let Some((ours, attach)) = asked {
                    p.asked.remove(&ours);
                    // The client knows the request by the id it got.
                    if let Some(params) = message.get_mut("params").and_then(Value::as_object_mut) {
                        params.insert("requestId".into(), json!(ours));
                    }
                    self.effects.push(MuxEffect::ToClient {
                        attach,
                        message: Value::Object(message).to_string(),
                    });
                }
            }
            (Some(method), None) => {
                // An update goes to its URI's subscribers; one nobody here subscribed to (a
                // server that tells anyway, a modern listen) to every holder, as before.
                let uri = (method == methods::NOTIFICATIONS_RESOURCES_UPDATED)
                    .then(|| Params::read(MessageFields::of(&message).params).uri)
                    .flatten();
                let subscribed = uri.map_or(&[][..], |uri| p.subscribers.of(uri));
                let to = if subscribed.is_empty() {
                    &p.attachments[..]
                } else {
                    subscribed
                };
                let text = Value::Object(message).to_string();
                for attach in to {
                    self.effects.push(MuxEffect::ToClient {
                        attach: *attach,
                        message: text.clone(),
                    });
                }
            }
            (None, None) => {}
        }
    }

    /// A line the mux cannot read. A reply to a call (found by a flat look at
    /// its `id`, e.g. nested deeper than serde reads) ends that call with an
    /// error, as a server of its own would for the client. Anything without an
    /// `id` (garbage on stdout) reaches every holder as the server wrote it, so
    /// each client's log (throttled) says what the server printed. An
    /// unreadable request is dropped: its `id` is the server's, no client's.
    fn on_unreadable_server_line(&mut self, process: ProcId, text: &str) {
        let Some(p) = self.processes.get_mut(&process) else {
            return;
        };
        let look = outline(text);
        if look.top != TopLevel::Object {
            return;
        }
        if !look.has_id {
            for attach in &p.attachments {
                self.effects.push(MuxEffect::ToClient {
                    attach: *attach,
                    message: text.to_string(),
                });
            }
            return;
        }
        let Some(pending) = look.id.and_then(|id| id.as_u64()).and_then(|upstream| {
            p.progress.remove(&format!("lazy-mcp-shared-{upstream}"));
            p.pending.remove(&upstream)
        }) else {
            return;
        };
        let why = if look.max_depth > MAX_DEPTH {
            format!("nested deeper than {MAX_DEPTH} levels")
        } else {
            "not a JSON-RPC object".to_string()
        };
        let why = format!(
            "MCP server '{}' sent a reply Lazy MCP cannot read: {why}",
            p.server
        );
        self.effects.push(MuxEffect::ToClient {
            attach: pending.attach,
            message: format!(
                r#"{{"jsonrpc":"2.0","id":{},"error":{{"code":-32603,"message":{}}}}}"#,
                pending.id,
                Value::String(why)
            ),
        });
    }

    /// Passes server request `id` of `process` to `to` under an id of the
    /// mux's own, unique among every process's requests: a client moved to a
    /// process of its own roots may still owe its first process an answer
    /// (a sampling) when its new process asks with the same id (each server
    /// counts from 0), and its answer must reach the process that asked.
    /// Only the answer of `asked` is passed back, with the server's id.
    fn ask(
        &mut self,
        process: ProcId,
        to: &[AttachId],
        asked: AttachId,
        id: Value,
        mut message: serde_json::Map<String, Value>,
    ) {
        let ours = self.next_ask;
        self.next_ask += 1;
        let Some(p) = self.processes.get_mut(&process) else {
            return;
        };
        p.asked.insert(
            ours,
            Pending {
                attach: asked,
                id,
                resend: None,
            },
        );
        message.insert("id".into(), json!(ours));
        let text = Value::Object(message).to_string();
        for attach in to {
            self.effects.push(MuxEffect::ToClient {
                attach: *attach,
                message: text.clone(),
            });
        }
    }

    /// The server asked for `roots/list` (false: no attachment, the general
    /// rule answers). Every holder is asked, so that each client records that
    /// the server asks for roots (its next launch is keyed by its roots); only
    /// the answer of the attachment the request goes to is forwarded. A
    /// process held by clients of different roots (a server catalogued as
    /// never asking that asks now) keeps the clients of that attachment's
    /// roots; the others move to a process of their own roots
    /// (`roots.rs`), so no client's roots reach another workspace's client.
    /// From then on the launch is keyed by roots.
    fn on_roots_request(
        &mut self,
        process: ProcId,
        id: &Value,
        message: &serde_json::Map<String, Value>,
    ) -> bool {
        let Some(p) = self.processes.get(&process) else {
            return false;
        };
        let newest_call = p.pending.values().next_back().map(|pending| pending.attach);
        let Some(target) = newest_call.or_else(|| p.attachments.first().copied()) else {
            return false;
        };
        let holders = p.attachments.clone();
        let Some(roots) = self.attachments.get(&target).map(|a| a.roots_key.clone()) else {
            return false;
        };
        self.ask(process, &holders, target, id.clone(), message.clone());
        self.move_other_roots(process, &roots);
        self.mark_roots_sensitive(process, target);
        true
    }

    /// A server asked for roots: from now on its launch is keyed by roots
    /// too; this process stays registered under the roots of the attachment
    /// asked, so others with those roots still reuse it.
    fn mark_roots_sensitive(&mut self, process: ProcId, asked: AttachId) {
        let Some(roots_key) = self.attachments.get(&asked).map(|a| a.roots_key.clone()) else {
            return;
        };
        let Some(p) = self.processes.get_mut(&process) else {
            return;
        };
        p.roots_bound = true;
        self.roots_sensitive.insert(p.launch_key.clone());
        let new_key = format!("{}/{}", p.launch_key, roots_key);
        // A stopping process (no key) takes no client.
        let Some(old) = p.key.replace(new_key.clone()) else {
            p.key = None;
            return;
        };
        self.by_key.remove(&old);
        self.by_key.insert(new_key, process);
    }

    /// `attach` no longer holds `process`: its subscriptions end (the server
    /// is unsubscribed from a URI it was the last subscriber of) and, with
    /// `calls` (it left), its calls in flight are cancelled upstream and the
    /// server's requests to it answered with an error; without (it moved), a
    /// subscribe of it still unanswered here is answered from here.
    fn let_go(&mut self, process: ProcId, attach: AttachId, calls: bool) {
        let Some(p) = self.processes.get_mut(&process) else {
            return;
        };
        p.attachments.retain(|a| *a != attach);
        if let Init::InFlight { waiters } = &mut p.init {
            waiters.retain(|(a, _)| *a != attach);
        }
        for uri in p.subscribers.detach(attach, !calls) {
            let upstream = p.next_id;
            p.next_id += 1;
            self.effects.push(MuxEffect::ToServer {
                process,
                message: uri_request(upstream, methods::RESOURCES_UNSUBSCRIBE, uri),
            });
        }
        if !calls {
            return;
        }
        for upstream in p.calls_of(attach) {
            p.pending.remove(&upstream);
            self.effects.push(MuxEffect::ToServer {
                process,
                message: cancel(upstream, "the client disconnected"),
            });
        }
        p.progress.retain(|_, (a, _)| *a != attach);
        for ours in of(&p.asked, attach) {
            let Some(Pending { id, .. }) = p.asked.remove(&ours) else {
                continue;
            };
            self.effects.push(MuxEffect::ToServer {
                process,
                message: format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32603,"message":"the client asked disconnected"}}}}"#
                ),
            });
        }
    }

    fn on_detach(&mut self, attach: AttachId, idle: bool) {
        let Some(attachment) = self.attachments.remove(&attach) else {
            return;
        };
        if let Some(from) = attachment.from {
            self.let_go(from, attach, true);
        }
        let process = attachment.process;
        self.let_go(process, attach, true);
        let Some(p) = self.processes.get_mut(&process) else {
            return;
        };
        if !p.attachments.is_empty() {
            self.announce_sharing(process);
        } else if p.used && matches!(p.init, Init::Done(_)) {
            // In use until now: kept the grace for a client a moment later (a
            // process that was only catalogued is not kept); after an idle stop,
            // until its idle time after its last use. A client that ended
            // (closed without an idle stop) gives only the grace: nobody is
            // left whose calls the idle time follows.
            p.lingering = true;
            p.left_idle = attachment.idle;
            let last_use = p.last_use_ms;
            let Some(p) = self.processes.get(&process) else {
                return;
            };
            let mut until = self.now_ms + self.grace_ms.unwrap_or(HANDOVER_GRACE_MS);
            if idle {
                until = until.max(last_use.saturating_add(self.kept_for(p)));
            }
            self.linger(process, until);
        } else {
            self.stop(process);
        }
    }

    /// Waits until `until` (the host's timer answers `lingerEnded`).
    fn linger(&mut self, process: ProcId, until: u64) {
        if let Some(p) = self.processes.get_mut(&process) {
            p.linger_until = until;
            self.effects.push(MuxEffect::Linger {
                process,
                ms: until.saturating_sub(self.now_ms),
            });
        }
    }

    fn on_linger_ended(&mut self, process: ProcId) {
        let Some(p) = self.processes.get(&process) else {
            return;
        };
        if !p.lingering || !p.attachments.is_empty() {
            return;
        }
        // An earlier linger's timer (a client came and went since): wait on.
        if p.linger_until > self.now_ms {
            let until = p.linger_until;
            self.linger(process, until);
        } else {
            self.stop(process);
        }
    }

    /// No client holds it: unregister its key (a new attach spawns anew) and stop it.
    fn stop(&mut self, process: ProcId) {
        if let Some(p) = self.processes.get_mut(&process) {
            p.lingering = false;
            if let Some(key) = p.key.take() {
                self.by_key.remove(&key);
            }
            self.effects.push(MuxEffect::StopProcess { process });
        }
    }

    fn on_closed(
        &mut self,
        process: ProcId,
        reason: String,
        exit_code: Option<i64>,
        stderr_tail: String,
    ) {
        let Some(p) = self.processes.remove(&process) else {
            return;
        };
        if let Some(key) = p.key {
            if self.by_key.get(&key) == Some(&process) {
                self.by_key.remove(&key);
            }
        }
        for attach in p.attachments {
            self.attachments.remove(&attach);
            self.effects.push(MuxEffect::CloseClient {
                attach,
                reason: reason.clone(),
                exit_code,
                stderr_tail: stderr_tail.clone(),
            });
        }
    }
}

/// The attachment a server's request (`roots/list`, sampling, elicitation)
/// goes to: the one whose call caused it when that is known (the request names
/// the call's progress token, or it is the only call in flight), else the
/// newest call's, else the oldest attachment; never one whose roots differ from
/// the process's (once it is keyed by roots). Over stdio the official SDKs'
/// servers name no call, so the token is a bonus, not the rule.
fn asked_attachment(
    p: &Proc,
    attachments: &VecMap<AttachId, Attachment>,
    message: &serde_json::Map<String, Value>,
) -> Option<AttachId> {
    // The roots in the process's key ("<launch key>/<roots key>").
    let roots = p
        .key
        .as_deref()
        .and_then(|k| k.get(p.launch_key.len() + 1..));
    // A process that is stopping has no key: any holder.
    let fits = |a: &AttachId| {
        !p.roots_bound
            || roots.is_none()
            || attachments
                .get(a)
                .is_some_and(|a| Some(a.roots_key.as_str()) == roots)
    };
    let token = Params::read(MessageFields::of(message).params)
        .meta()
        .progress_token
        .and_then(Value::as_str);
    let caller = token.and_then(|t| p.progress.get(t)).map(|(a, _)| *a);
    // With one call in flight, the newest call is the caller.
    caller
        .filter(fits)
        .or_else(|| p.pending.values().rev().map(|c| c.attach).find(fits))
        .or_else(|| p.attachments.iter().copied().find(fits))
}

/// The ids of `attach`'s requests in `map`.
fn of(map: &VecMap<u64, Pending>, attach: AttachId) -> Vec<u64> {
    map.iter()
        .filter(|(_, request)| request.attach == attach)
        .map(|(id, _)| *id)
        .collect()
}

/// A request that uses a server (a tool call, a read), not just the handshake,
/// a listing or a ping of cataloguing.
fn is_a_use(method: &str) -> bool {
    !(method.ends_with("/list")
        || matches!(
            method,
            methods::PING | methods::SERVER_DISCOVER | methods::INITIALIZE
        ))
}

/// The `notifications/cancelled` of upstream request `upstream`.
/// A `resources/subscribe` or `resources/unsubscribe` of `uri`, as the owner's own request `id`.
pub(super) fn uri_request(id: u64, method: &str, uri: String) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"uri":{}}}}}"#,
        Value::String(uri)
    )
}

fn cancel(upstream: u64, reason: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"{}","params":{{"requestId":{upstream},"reason":"{reason}"}}}}"#,
        methods::NOTIFICATIONS_CANCELLED
    )
}

/// A JSON-RPC message as the multiplexer reads it, from either side: the object
/// (to rewrite and pass on), its method and its id.
type Envelope = (
    serde_json::Map<String, Value>,
    Option<String>,
    Option<Value>,
);

/// `None` for anything that is not a JSON object: it is dropped.
fn envelope(text: &str) -> Option<Envelope> {
    let Ok(Value::Object(message)) = serde_json::from_str::<Value>(text) else {
        return None;
    };
    let read = MessageFields::of(&message);
    let method = read.method().map(str::to_string);
    let id = read.id.cloned();
    Some((message, method, id))
}
