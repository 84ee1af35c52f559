//! Definition pinning: every listing of a server (catalogue, connect,
//! `list_changed`, Refresh, an era change) is compared with its approved
//! baseline (`approved_definitions.rs`). A changed or added tool, prompt or
//! resource template is held: left out of every list, the index and the
//! `auto` plan (`exposed_items`, `index_entries` ask here), and a call to it is
//! refused. Changed `instructions` are held by serving the approved ones. A
//! removed item is simply no longer listed. The user approves (`approveDefinitions`)
//! in any process; the baselines file is shared, read and watched through the
//! config rounds, and written by the host (`writeApprovedDefinitions`).

use crate::config::load::FileRead;
use crate::engine::effects::{AnnounceAction, Effect, LogLevel};
use crate::engine::router::Engine;
use crate::engine::server::calls::CallParams;
use crate::engine::trust::approved_definitions::{
    baseline_key, compare, ApprovedFile, Baseline, Change, COMPARED_KINDS,
};
use crate::engine::trust::definition_review::{
    compared_projection, review_text, unified_diff, warnings, DefinitionWarning,
};
use crate::protocol::client_handshake::ListKind;
use crate::protocol::methods;
use crate::protocol::params::name_of;
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub(in crate::engine) mod pins;

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

fn kind_word(kind: ListKind) -> &'static str {
    match kind {
        ListKind::Tools => "tool",
        ListKind::Prompts => "prompt",
        ListKind::ResourceTemplates => "resourceTemplate",
        ListKind::Resources => "resource",
    }
}

/// The kind a call names: `tools/call` a tool, `prompts/get` a prompt.
fn called_kind(method: &str) -> Option<ListKind> {
    match method {
        methods::TOOLS_CALL => Some(ListKind::Tools),
        methods::PROMPTS_GET => Some(ListKind::Prompts),
        _ => None,
    }
}

impl Engine {
    /// The baselines file the host's config sources name (read with the config).
    pub(in crate::engine) fn set_definitions_file(&mut self, path: Option<String>) {
        if self.pins.file != path {
            self.pins.waiting_for_file = path.is_some();
            self.pins.file = path;
        }
    }

    /// The file's contents as the config round read them.
    pub(in crate::engine) fn on_definitions_file_read(&mut self, read: Option<&FileRead>) {
        let Some(path) = self.pins.file.clone() else {
            return;
        };
        let Some(read) = read else {
            return;
        };
        self.pins.waiting_for_file = false;
        match &read.content {
            None => {
                self.pins.file_broken = read.unreadable.is_some();
                self.pins.approved.servers.retain(|_, _| false);
            }
            Some(text) => match ApprovedFile::parse(&path, text) {
                Ok(file) => {
                    self.pins.file_broken = false;
                    if file == self.pins.approved {
                        return;
                    }
                    // Merged, the file winning: a baseline this process wrote while
                    // another process wrote the file from an older copy is kept (and
                    // written back), never lost and silently re-approved.
                    let ours = std::mem::replace(&mut self.pins.approved, file);
                    for (key, baseline) in ours.servers {
                        if let crate::vec_map::Entry::Vacant(slot) =
                            self.pins.approved.servers.entry(key)
                        {
                            slot.insert(baseline);
                            self.pins.write_pending = true;
                        }
                    }
                }
                Err(why) => {
                    if !self.pins.file_broken {
                        self.log(LogLevel::Error, None, why);
                    }
                    self.pins.file_broken = true;
                }
            },
        }
        self.recheck_all_definitions();
    }

    pub(in crate::engine) fn recheck_all_definitions(&mut self) {
        let servers = &self.servers;
        self.pins.held.retain(|name, _| servers.contains_key(name));
        let names: Vec<String> = self.servers.keys().cloned().collect();
        for name in names {
            self.check_definitions(&name);
        }
    }

    /// Compares the server's listing with its baseline (creating the baseline
    /// at its first catalogue) and updates what is held.
    pub(in crate::engine) fn check_definitions(&mut self, name: &str) {
        if self.pins.waiting_for_file {
            return;
        }
        let Some(server) = self.servers.get(name) else {
            return;
        };
        let key = baseline_key(server.config());
        let Some(entry) = self.current_entry(name) else {
            if self.pins.held.remove(name).is_some() {
                self.clients.exposure_changed();
            }
            return;
        };
        let held = match self.pins.approved.servers.get(&key) {
            Some(baseline) => compare(baseline, entry),
            None => {
                let baseline = if self.settings().hold_new_tools {
                    Baseline {
                        server: name.to_string(),
                        ..Baseline::default()
                    }
                } else {
                    Baseline::of_entry(name, entry, self.now_ms)
                };
                let held = compare(&baseline, entry);
                self.pins.approved.servers.insert(key, baseline);
                self.pins.write_pending = true;
                held
            }
        };
        let previous = self.pins.held.get(name);
        if previous != Some(&held) && !(previous.is_none() && held.is_empty()) {
            self.clients.exposure_changed();
        }
        if held.is_empty() {
            self.pins.held.remove(name);
            self.pins.announced.remove(name);
        } else {
            self.pins.held.insert(name.to_string(), held);
            self.announce_held(name);
        }
    }

    /// Whether anything is held at all (the warm call path checks only this).
    pub(in crate::engine) fn any_held(&self) -> bool {
        !self.pins.held.is_empty()
    }

    /// Whether `item` of `kind` of server `name` is held.
    pub(in crate::engine) fn is_held(&self, name: &str, kind: ListKind, item: &str) -> bool {
        self.pins
            .held
            .get(name)
            .is_some_and(|held| held.holds(kind, item))
    }

    /// Whether anything of `kind` of server `name` is held (the filter is skipped otherwise).
    pub(in crate::engine) fn holds_kind(&self, name: &str, kind: ListKind) -> bool {
        self.pins
            .held
            .get(name)
            .is_some_and(|held| held.holds_kind(kind))
    }

    /// The instructions clients are given: the approved ones while changed ones are held.
    pub(in crate::engine) fn served_instructions(&self, name: &str) -> Option<&str> {
        let entry = self.current_entry(name)?;
        if self.pins.held.get(name).is_some_and(|h| h.instructions) {
            let key = baseline_key(self.servers.get(name)?.config());
            return self
                .pins
                .approved
                .servers
                .get(&key)?
                .instructions
                .as_deref();
        }
        entry.initialize.instructions.as_deref()
    }

    /// The refusal of a call to a held tool or prompt, naming what changed and how to review.
    pub(in crate::engine) fn held_call_refusal(
        &self,
        name: &str,
        method: &str,
        params: &CallParams,
    ) -> Option<String> {
        let held = self.pins.held.get(name)?;
        let kind = called_kind(method)?;
        let item = params.name()?;
        let change = held.items.get(&(kind, item.clone()))?;
        Some(held_message(name, kind, &item, change))
    }

    /// The refusal for an aggregate name (`server__tool`) that is held, if it is one.
    pub(in crate::engine) fn held_aggregate_refusal(
        &self,
        kind: ListKind,
        exposed: &str,
    ) -> Option<String> {
        self.pins.held.iter().find_map(|(name, held)| {
            let prefix = format!(
                "{}{}",
                name,
                crate::engine::clients::aggregate_names::SEPARATOR
            );
            let item = exposed.strip_prefix(&prefix)?;
            let change = held.items.get(&(kind, item.to_string()))?;
            Some(held_message(name, kind, item, change))
        })
    }

    /// The refusal for `server/tool` (the index's spelling) that is held, if it is one.
    pub(in crate::engine) fn held_tool_by_slash(&self, name: &str) -> Option<String> {
        let (server, tool) = name.split_once('/')?;
        let change = self
            .pins
            .held
            .get(server)?
            .items
            .get(&(ListKind::Tools, tool.to_string()))?;
        Some(held_message(server, ListKind::Tools, tool, change))
    }

    fn announce_held(&mut self, name: &str) {
        let Some(held) = self.pins.held.get(name) else {
            return;
        };
        let mut counts: VecMap<ListKind, usize> = VecMap::new();
        for (kind, _) in held.items.keys() {
            *counts.entry(*kind).or_default() += 1;
        }
        let mut parts: Vec<String> = counts
            .iter()
            .map(|(kind, count)| {
                let word = match kind {
                    ListKind::ResourceTemplates => "resource template",
                    other => kind_word(*other),
                };
                format!("{count} {word}{}", if *count == 1 { "" } else { "s" })
            })
            .collect();
        if held.instructions {
            parts.push("its instructions".into());
        }
        let names: Vec<&str> = held
            .items
            .keys()
            .map(|(_, item)| item.as_str())
            .take(5)
            .collect();
        let summary = match parts.as_slice() {
            [init @ .., last] if !init.is_empty() => format!("{} and {last}", init.join(", ")),
            _ => parts.join(""),
        };
        let message = if names.is_empty() {
            format!("{name} changed {summary} — held until you review them")
        } else {
            format!(
                "{name} changed {summary} ({}) — held until you review them",
                names.join(", ")
            )
        };
        if self.pins.announced.get(name) == Some(&message) {
            return;
        }
        self.pins
            .announced
            .insert(name.to_string(), message.clone());
        self.log(
            LogLevel::Warn,
            Some(name),
            format!("{message}; review with `lazy-mcp tools diff {name}`, approve with `lazy-mcp tools approve {name}`"),
        );
        self.effects.push(Effect::Announce {
            level: LogLevel::Warn,
            server: Some(name.to_string()),
            message,
            actions: vec![
                AnnounceAction::ReviewDefinitions,
                AnnounceAction::ApproveDefinitions,
                AnnounceAction::KeepBlocked,
            ],
            servers: vec![name.to_string()],
        });
    }

    /// The user approved `items` of `server` (empty: everything held, and its instructions).
    pub(in crate::engine) fn on_approve_definitions(&mut self, server: &str, items: &[String]) {
        let Some(config) = self.servers.get(server).map(|s| s.config().clone()) else {
            self.refuse_action(
                None,
                format!("Lazy MCP has no server named '{server}' to approve"),
            );
            return;
        };
        let Some(entry) = self.current_entry(server).cloned() else {
            self.refuse_action(
                Some(server),
                format!("{server} has no catalogue yet: there is nothing to approve"),
            );
            return;
        };
        let key = baseline_key(&config);
        let held = self.pins.held.get(server).cloned().unwrap_or_default();
        let now = self.now_ms;
        let baseline = self
            .pins
            .approved
            .servers
            .entry(key)
            .or_insert_with(|| Baseline {
                server: server.to_string(),
                ..Baseline::default()
            });
        let mut approved = Vec::new();
        let mut unknown: Vec<String> = items.to_vec();
        for kind in COMPARED_KINDS {
            for item in entry.list(kind) {
                let Some(item_name) = name_of(item) else {
                    continue;
                };
                let wanted = if items.is_empty() {
                    held.holds(kind, item_name)
                } else {
                    items.iter().any(|i| i == item_name)
                };
                if wanted {
                    unknown.retain(|i| i != item_name);
                    baseline.approve_item(kind, item);
                    approved.push(item_name.to_string());
                }
            }
        }
        if items.is_empty() || items.iter().any(|i| i == "instructions") {
            unknown.retain(|i| i != "instructions");
            if held.instructions {
                approved.push("instructions".into());
            }
            baseline.instructions = entry.initialize.instructions.clone();
        }
        if baseline.approved_at_ms.is_none() || !approved.is_empty() {
            baseline.approved_at_ms = Some(now);
        }
        if !unknown.is_empty() {
            self.refuse_action(
                Some(server),
                format!(
                    "{server} offers no tool, prompt or resource template named {}",
                    unknown.join(", ")
                ),
            );
        }
        self.pins.write_pending = true;
        if !approved.is_empty() {
            self.log(
                LogLevel::Info,
                Some(server),
                format!("approved: {}", approved.join(", ")),
            );
        }
        self.check_definitions(server);
    }

    /// `writeApprovedDefinitions` once per event, when a baseline changed.
    pub(in crate::engine) fn flush_definitions_write(&mut self) {
        if !std::mem::take(&mut self.pins.write_pending) || self.pins.file_broken {
            return;
        }
        if let Some(path) = self.pins.file.clone() {
            self.effects.push(Effect::WriteApprovedDefinitions {
                path,
                content: self.pins.approved.to_text(),
            });
        }
    }

    /// The snapshot's `definitions` of one server (None before its first baseline).
    pub(in crate::engine) fn definitions_status(&self, name: &str) -> Option<DefinitionsStatus> {
        let config = &self.servers.get(name)?.config();
        let baseline = self.pins.approved.servers.get(&baseline_key(config))?;
        let mut held = Vec::new();
        if let Some(h) = self.pins.held.get(name) {
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

    /// Everything held of `server` (or only `item`), ready to review.
    pub fn definitions_review(&self, server: &str, item: Option<&str>) -> DefinitionsReview {
        let mut review = DefinitionsReview {
            server: server.to_string(),
            approved_at_ms: None,
            items: Vec::new(),
            note: None,
        };
        let Some(config) = self.servers.get(server).map(|s| s.config()) else {
            review.note = Some(format!("Lazy MCP has no server named '{server}'"));
            return review;
        };
        let Some(entry) = self.current_entry(server) else {
            review.note = Some(format!("{server} has no catalogue yet: nothing to review"));
            return review;
        };
        let baseline = self.pins.approved.servers.get(&baseline_key(config));
        review.approved_at_ms = baseline.and_then(|b| b.approved_at_ms);
        let held = self.pins.held.get(server).cloned().unwrap_or_default();
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

    /// Held definitions of all servers (the status bar's count).
    pub(in crate::engine) fn held_count(&self) -> usize {
        self.pins
            .held
            .values()
            .map(|h| h.items.len() + usize::from(h.instructions))
            .sum()
    }
}

fn held_message(server: &str, kind: ListKind, item: &str, change: &Change) -> String {
    let word = match kind {
        ListKind::Prompts => "Prompt",
        _ => "Tool",
    };
    format!(
        "{word} '{item}' of MCP server '{server}' is held: {}. Review it with `lazy-mcp tools diff {server} {item}` (VS Code: the \"Review\" action of the notification, MCP Diagnostics or the Lazy MCP view), then approve it with `lazy-mcp tools approve {server} {item}`.",
        change.describe()
    )
}
