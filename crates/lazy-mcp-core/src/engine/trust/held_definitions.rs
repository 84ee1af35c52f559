//! Definition pinning: every listing of a server (catalogue, connect,
//! `list_changed`, Refresh, an era change) is compared with its approved
//! baseline (`approved_definitions.rs`). A changed or added tool, prompt or
//! resource template is held: left out of every list, the index and the
//! `auto` plan (`exposed_items`, `index_entries` ask here), and a call to it is
//! refused. Changed `instructions` are held by serving the approved ones. A
//! removed item is simply no longer listed. The user approves (`approveDefinitions`)
//! in any process; the baselines file is shared, read and watched through the
//! config rounds, and written by the host (`writeApprovedDefinitions`).

use crate::config::model::ServerConfig;
use crate::engine::announce::refusal;
use crate::engine::effects::{AnnounceAction, Effect, LogLevel};
use crate::engine::registry::catalogue::CatalogueEntry;
use crate::engine::server::Server;
use crate::engine::trust::approved_definitions::baseline_key;
use crate::engine::trust::definition_review::{
    compared_projection, review_text, unified_diff, warnings, DefinitionWarning,
};
use crate::engine::trust::machine::{Trust, TrustCtx};
use crate::engine::trust::pins::{kind_word, Approval, Pins};
use crate::protocol::params::name_of;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One held definition, as Diagnostics, the view and the status bar show it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HeldDefinition {
    /// `tool`, `prompt`, `resourceTemplate` or `instructions`.
    pub kind: String,
    pub name: String,
    /// What changed, in words ("its description changed since it was approved").
    pub change: String,
}

/// A server's approval status (the snapshot's `definitions`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DefinitionsStatus {
    /// When its definitions were approved (None: nothing approved yet, `holdNewTools`).
    pub approved_at_ms: Option<u64>,
    pub held: Vec<HeldDefinition>,
}

/// One held definition to review: approved and current text, their diff, warnings.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewItem {
    pub kind: String,
    pub name: String,
    pub change: String,
    /// The approved definition (empty when new), canonical JSON, invisible characters escaped.
    pub approved: String,
    pub current: String,
    /// Unified diff of `approved` against `current`.
    pub diff: String,
    pub warnings: Vec<DefinitionWarning>,
}

/// What `lazy-mcp tools diff` prints and VS Code's diff editor shows.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DefinitionsReview {
    pub server: String,
    pub approved_at_ms: Option<u64>,
    pub items: Vec<ReviewItem>,
    /// Why there is nothing to review (unknown server, not catalogued, nothing held).
    pub note: Option<String>,
}

/// What is said when definitions of `name` are held (`message`, from
/// `Pins::check`): the log line, with the commands, and the announcement
/// offering review and approval.
fn held_notice(name: &str, message: String) -> (String, Effect) {
    let line = format!("{message}; review with `lazy-mcp tools diff {name}`, approve with `lazy-mcp tools approve {name}`");
    let notice = Effect::Announce {
        level: LogLevel::Warn,
        server: Some(name.to_string()),
        message,
        actions: vec![
            AnnounceAction::ReviewDefinitions,
            AnnounceAction::ApproveDefinitions,
            AnnounceAction::KeepBlocked,
        ],
        servers: vec![name.to_string()],
    };
    (line, notice)
}

impl Trust {
    /// Compares `name`'s listing with its baseline (`Pins::check`); what is
    /// newly held is logged, with the commands, and announced. True: what
    /// clients are shown changed.
    pub(in crate::engine) fn check(&mut self, ctx: &TrustCtx, name: &str) -> bool {
        let Some(config) = ctx.servers.get(name).map(Server::config) else {
            return false;
        };
        let entry = ctx.catalogue.warm(name, &config.fingerprint);
        let key = baseline_key(config);
        let compared = (self.pins_mut()).check(name, &key, entry, ctx.hold_new_tools, ctx.now_ms);
        if let Some(message) = compared.announce {
            let (line, notice) = held_notice(name, message);
            self.outbox()
                .push((ctx.servers).log_line(LogLevel::Warn, Some(name), line));
            self.outbox().push(notice);
        }
        compared.exposure_changed
    }

    /// The user approved `items` of `server` (empty: everything held, and its
    /// instructions). Refused, saying why, without such a server or its
    /// catalogue; an item it does not offer is refused, the rest approved
    /// and logged. True: the server is to be compared again.
    pub(in crate::engine) fn approve(
        &mut self,
        ctx: &TrustCtx,
        server: &str,
        items: &[String],
    ) -> bool {
        let Some(config) = ctx.servers.get(server).map(Server::config) else {
            let why = format!("Lazy MCP has no server named '{server}' to approve");
            self.outbox().push(refusal(None, why));
            return false;
        };
        let Some(entry) = ctx.catalogue.warm(server, &config.fingerprint) else {
            let why = format!("{server} has no catalogue yet: there is nothing to approve");
            self.outbox().push(refusal(Some(server), why));
            return false;
        };
        let key = baseline_key(config);
        let Approval { approved, unknown } =
            (self.pins_mut()).approve(server, &key, entry, items, ctx.now_ms);
        if !unknown.is_empty() {
            let why = format!(
                "{server} offers no tool, prompt or resource template named {}",
                unknown.join(", ")
            );
            self.outbox().push(refusal(Some(server), why));
        }
        if !approved.is_empty() {
            let line = format!("approved: {}", approved.join(", "));
            self.outbox()
                .push((ctx.servers).log_line(LogLevel::Info, Some(server), line));
        }
        true
    }
}

impl Pins {
    /// The snapshot's `definitions` of one server (None before its first baseline).
    pub(in crate::engine) fn status(
        &self,
        name: &str,
        config: &ServerConfig,
    ) -> Option<DefinitionsStatus> {
        let baseline = self.baseline(&baseline_key(config))?;
        let mut held = Vec::new();
        if let Some(h) = self.held(name) {
            for ((kind, item), change) in &h.items {
                held.push(HeldDefinition {
                    kind: kind_word(*kind).into(),
                    name: item.clone(),
                    change: change.describe(),
                });
            }
            if h.instructions {
                held.push(HeldDefinition {
                    kind: "instructions".into(),
                    name: "instructions".into(),
                    change: "the server's instructions changed since they were approved".into(),
                });
            }
        }
        Some(DefinitionsStatus {
            approved_at_ms: baseline.approved_at_ms,
            held,
        })
    }

    /// Everything held of `server` (or only `item`), ready to review:
    /// `config`, its definition, and `entry`, its current catalogue entry.
    pub(in crate::engine) fn review(
        &self,
        server: &str,
        config: Option<&ServerConfig>,
        entry: Option<&CatalogueEntry>,
        item: Option<&str>,
    ) -> DefinitionsReview {
        let mut review = DefinitionsReview {
            server: server.to_string(),
            approved_at_ms: None,
            items: Vec::new(),
            note: None,
        };
        let Some(config) = config else {
            review.note = Some(format!("Lazy MCP has no server named '{server}'"));
            return review;
        };
        let Some(entry) = entry else {
            review.note = Some(format!("{server} has no catalogue yet: nothing to review"));
            return review;
        };
        let baseline = self.baseline(&baseline_key(config));
        review.approved_at_ms = baseline.and_then(|b| b.approved_at_ms);
        let held = self.held(server).cloned().unwrap_or_default();
        for ((kind, name), change) in &held.items {
            if item.is_some_and(|wanted| wanted != name) {
                continue;
            }
            let Some(live) = entry.list(*kind).iter().find(|i| name_of(i) == Some(name)) else {
                continue;
            };
            let current = compared_projection(live);
            let old = baseline
                .and_then(|b| b.items(*kind))
                .and_then(|items| items.get(name))
                .map(|approved| &approved.definition);
            let approved_text = old.map(review_text).unwrap_or_default();
            let current_text = review_text(&current);
            review.items.push(ReviewItem {
                kind: kind_word(*kind).into(),
                name: name.clone(),
                change: change.describe(),
                diff: unified_diff(
                    &approved_text,
                    &current_text,
                    &format!("{server}/{name} (approved)"),
                    &format!("{server}/{name} (current)"),
                ),
                approved: approved_text,
                current: current_text,
                warnings: warnings(old, &current),
            });
        }
        if held.instructions && item.is_none_or(|i| i == "instructions") {
            let approved = baseline
                .and_then(|b| b.instructions.clone())
                .unwrap_or_default();
            let current = entry.initialize.instructions.clone().unwrap_or_default();
            let as_value = |text: &str| Value::from(text);
            review.items.push(ReviewItem {
                kind: "instructions".into(),
                name: "instructions".into(),
                change: "the server's instructions changed since they were approved".into(),
                diff: unified_diff(
                    &approved,
                    &current,
                    &format!("{server} instructions (approved)"),
                    &format!("{server} instructions (current)"),
                ),
                warnings: warnings(Some(&as_value(&approved)), &as_value(&current)),
                approved,
                current,
            });
        }
        if review.items.is_empty() {
            review.note = Some(match item {
                Some(item) => format!("{server}: '{item}' is not held (nothing to review)"),
                None => format!("{server}: no definition is held (nothing to review)"),
            });
        }
        review
    }
}
