//! A shared process held by clients of different workspace roots that asks
//! for `roots/list` (a server catalogued as never asking, whose ask comes
//! later, as server-everything's 350 ms after `initialized`): one set of roots
//! answers it, so it keeps the clients of the roots asked and the others move,
//! each workspace to a process of its own roots (a running one, else one the
//! owner starts and does the handshake with, as their engines did theirs
//! already). Their messages wait for that handshake; their calls still in
//! flight on the old process are cancelled there (an answer from the old one
//! could hold the other workspace's roots) and sent again to the new one when
//! that is safe: any request but `tools/call`, and a call of a tool the
//! client's catalogue marks read-only or idempotent; any other call may have
//! run on the old process already, so it is answered with an error saying so.
//! Their subscriptions are made again on the new one. No server gets another
//! workspace's roots (docs/shared-servers.md, "Roots").

use super::{methods, uri_request, AttachId, Init, MessageFields, Mux, MuxEffect, Params, ProcId};
use serde_json::{json, Value};

impl Mux {
    /// Moves every holder of `process` whose roots are not `keep` to a process
    /// of its own roots.
    pub(super) fn move_other_roots(&mut self, process: ProcId, keep: &str) {
        let Some(p) = self.processes.get(&process) else {
            return;
        };
        let movers: Vec<(AttachId, String)> = p
            .attachments
            .iter()
            .filter_map(|a| {
                let roots = &self.attachments.get(a)?.roots_key;
                (roots != keep).then(|| (*a, roots.clone()))
            })
            .collect();
        let (server, launch_key) = (p.server.clone(), p.launch_key.clone());
        let (spawn, init) = (p.spawn.clone(), p.init_request.clone());
        let mut touched = vec![process];
        for (attach, roots) in movers {
            let key = format!("{launch_key}/{roots}");
            let target = match self.by_key.get(&key) {
                Some(target) if *target != process => *target,
                _ => {
                    let key = (key, launch_key.clone(), true);
                    let target = self.new_process(server.clone(), key, spawn.clone());
                    if let Some(t) = self.processes.get_mut(&target) {
                        t.own_handshake = true;
                        t.init_request = init.clone();
                        t.used = true;
                    }
                    target
                }
            };
            let uris = self
                .processes
                .get(&process)
                .map(|p| p.subscribers.uris_of(attach))
                .unwrap_or_default();
            let calls = self.take_calls(process, attach);
            self.let_go(process, attach, false);
            if let Some(a) = self.attachments.get_mut(&attach) {
                a.process = target;
                a.from = Some(process);
            }
            let Some(t) = self.processes.get_mut(&target) else {
                continue;
            };
            t.lingering = false;
            t.attachments.push(attach);
            for uri in uris {
                if t.subscribers.adopt(&uri, attach) {
                    t.resubscribe.push(uri);
                }
            }
            if t.opened {
                let pid = t.pid;
                self.effects.push(MuxEffect::Opened { attach, pid });
            }
            if !touched.contains(&target) {
                touched.push(target);
            }
            for call in calls {
                self.on_client_message(attach, &call);
            }
        }
        for t in touched {
            self.announce_sharing(t);
            if self.processes.get(&t).is_some_and(|p| p.handshake_over) {
                self.handshake_done(t);
            }
        }
    }

    /// A message of an attachment moved from `old` while its process's
    /// handshake is not done yet: held (true) until it is, but for an answer
    /// to a request of `old`.
    pub(super) fn held(
        &mut self,
        process: ProcId,
        old: ProcId,
        attach: AttachId,
        text: &str,
    ) -> bool {
        if self
            .processes
            .get(&process)
            .is_none_or(|p| p.handshake_over)
        {
            return false;
        }
        if let Some((message, _, id)) = super::envelope(text) {
            if self.concerns(old, attach, &message, id.as_ref()) {
                return false;
            }
        }
        if let Some(p) = self.processes.get_mut(&process) {
            p.held.push((attach, text.to_string()));
        }
        true
    }

    /// `attach`'s calls in flight on `process`, cancelled there: the requests
    /// safe to send again (a cancel is advisory: the first process may have
    /// run the call already). Any other is answered at once with an error
    /// saying so; a later answer from `process` is dropped (no longer pending).
    fn take_calls(&mut self, process: ProcId, attach: AttachId) -> Vec<String> {
        let Some(p) = self.processes.get_mut(&process) else {
            return Vec::new();
        };
        let repeatable = self
            .attachments
            .get(&attach)
            .map_or(&[][..], |a| &a.repeatable[..]);
        let mut calls = Vec::new();
        for upstream in p.calls_of(attach) {
            p.progress.remove(&format!("lazy-mcp-shared-{upstream}"));
            let Some(call) = p.pending.remove(&upstream) else {
                continue;
            };
            self.effects.push(MuxEffect::ToServer {
                process,
                message: super::cancel(
                    upstream,
                    "its client moved to a process of its own workspace roots",
                ),
            });
            let why = match call.resend {
                Some(text) => match not_repeatable(&text, repeatable) {
                    None => {
                        calls.push(text);
                        continue;
                    }
                    Some(why) => why,
                },
                None => "its request was not kept".to_string(),
            };
            let why = format!(
                "'{}' began using workspace roots while this call was running, so this workspace was moved to a process of its own; the call was cancelled on the first process and not sent again because {why} (it may have run once). Call it again if it should run.",
                p.server
            );
            self.effects.push(MuxEffect::ToClient {
                attach,
                message: format!(
                    r#"{{"jsonrpc":"2.0","id":{},"error":{{"code":-32603,"message":{}}}}}"#,
                    call.id,
                    Value::String(why)
                ),
            });
        }
        calls
    }

    /// A moved attachment's answer to a request the process it was moved from
    /// asked it.
    pub(super) fn concerns(
        &self,
        old: ProcId,
        attach: AttachId,
        message: &serde_json::Map<String, Value>,
        id: Option<&Value>,
    ) -> bool {
        let Some(p) = self.processes.get(&old) else {
            return false;
        };
        match (MessageFields::of(message).method(), id) {
            (None, Some(id)) => id
                .as_u64()
                .and_then(|ours| p.asked.get(&ours))
                .is_some_and(|asked| asked.attach == attach),
            _ => false,
        }
    }

    /// A process the owner started for moved attachments is up: it sends the
    /// `initialize` their clients' first process got.
    pub(super) fn own_handshake(&mut self, process: ProcId) {
        let Some(p) = self.processes.get_mut(&process) else {
            return;
        };
        if !p.own_handshake || !matches!(p.init, Init::None) {
            return;
        }
        let Some(mut request) = p.init_request.clone() else {
            return self.handshake_done(process);
        };
        let upstream = p.next_id;
        p.next_id += 1;
        request.insert("id".into(), json!(upstream));
        p.init = Init::InFlight {
            waiters: Vec::new(),
        };
        p.init_id = Some(upstream);
        self.effects.push(MuxEffect::ToServer {
            process,
            message: Value::Object(request).to_string(),
        });
    }

    /// The process answered `initialize`: the owner's own handshake ends with
    /// `initialized`, subscriptions moved here are made, held messages go on.
    pub(super) fn handshake_done(&mut self, process: ProcId) {
        let Some(p) = self.processes.get_mut(&process) else {
            return;
        };
        p.handshake_over = true;
        if p.own_handshake && !p.initialized_sent {
            p.initialized_sent = true;
            self.effects.push(MuxEffect::ToServer {
                process,
                message: format!(
                    r#"{{"jsonrpc":"2.0","method":"{}"}}"#,
                    methods::NOTIFICATIONS_INITIALIZED
                ),
            });
        }
        for uri in std::mem::take(&mut p.resubscribe) {
            let upstream = p.next_id;
            p.next_id += 1;
            self.effects.push(MuxEffect::ToServer {
                process,
                message: uri_request(upstream, methods::RESOURCES_SUBSCRIBE, uri),
            });
        }
        for (attach, text) in std::mem::take(&mut p.held) {
            self.on_client_message(attach, &text);
        }
    }
}

/// Why `text` is not safe to send again (`None`: it is): a `tools/call` of a
/// tool not among `repeatable` (the client's tools marked read-only or
/// idempotent), or a request that no longer reads. Any other request (a read,
/// a listing) is.
fn not_repeatable(text: &str, repeatable: &[String]) -> Option<String> {
    let Some((message, method, _)) = super::envelope(text) else {
        return Some("its request could not be read again".to_string());
    };
    if method.as_deref() != Some(methods::TOOLS_CALL) {
        return None;
    }
    let tool = Params::read(MessageFields::of(&message).params)
        .name
        .unwrap_or_default();
    (!repeatable.iter().any(|r| r == tool))
        .then(|| format!("'{tool}' is not marked read-only or idempotent"))
}
