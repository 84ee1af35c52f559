//! The router's side of `Trust` (`trust/`): it hands the trust what it reads
//! (`TrustCtx`: the servers, the catalogue, `holdNewTools`, the time) and
//! carries out what its inputs return where other owners are concerned — the
//! clients told when what they are shown changed, every server compared again
//! after the baselines file was read. Here rather than in trust/ so the trust
//! does not import the router above it.

use crate::config::load::FileRead;
use crate::engine::effects::LogLevel;
use crate::engine::router::Engine;
use crate::engine::trust::held_definitions::DefinitionsReview;
use crate::engine::trust::machine::{Trust, TrustCtx};
use crate::engine::trust::pins::FileReadOutcome;

impl Engine {
    /// The file's contents as the config round read them.
    pub(in crate::engine) fn on_definitions_file_read(&mut self, read: Option<&FileRead>) {
        if let FileReadOutcome::Recheck { error } = self.trust.file_read(read) {
            if let Some(why) = error {
                self.log(LogLevel::Error, None, why);
            }
            self.recheck_all_definitions();
        }
    }

    pub(in crate::engine) fn recheck_all_definitions(&mut self) {
        for name in self.trust.recheck(&self.servers) {
            self.check_definitions(&name);
        }
    }

    /// Compares the server's listing with its baseline (`Trust::check`);
    /// clients are told when what they are shown changed.
    pub(in crate::engine) fn check_definitions(&mut self, name: &str) {
        if self.with_trust(|trust, ctx| trust.check(ctx, name)) {
            self.clients.exposure_changed();
        }
    }

    /// The user approved `items` of `server` (`Trust::approve`), compared again.
    pub(in crate::engine) fn on_approve_definitions(&mut self, server: &str, items: &[String]) {
        if self.with_trust(|trust, ctx| trust.approve(ctx, server, items)) {
            self.check_definitions(server);
        }
    }

    /// Everything held of `server` (or only `item`), ready to review.
    pub fn definitions_review(&self, server: &str, item: Option<&str>) -> DefinitionsReview {
        let config = self.servers.get(server).map(|s| s.config());
        (self.trust.pins()).review(server, config, self.current_entry(server), item)
    }

    /// Runs `input` on the trust with what it reads (`trust/machine.rs`'s
    /// `TrustCtx`), then drains what it yielded into the event's effects.
    fn with_trust<R>(&mut self, input: impl FnOnce(&mut Trust, &TrustCtx) -> R) -> R {
        let ctx = TrustCtx {
            servers: &self.servers,
            catalogue: self.registry.catalogue(),
            hold_new_tools: self.settings().hold_new_tools,
            now_ms: self.now_ms,
        };
        let result = input(&mut self.trust, &ctx);
        self.trust.poll_effects(&mut self.effects);
        result
    }
}
