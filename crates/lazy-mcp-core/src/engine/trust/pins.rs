//! Approved definitions and what is held, with the decisions over them: what a
//! listing holds against its baseline, when the baselines file is written,
//! what is announced, which call is refused and in what words. A part of
//! `Trust` (`trust/machine.rs`), apart from `held_definitions.rs` (which feeds
//! the catalogue and the settings in and writes the logs and effects) so that
//! `Trust` names it without importing the code that drives it (no import
//! cycle). Its fields are this file's own.

use crate::config::load::FileRead;
use crate::engine::aggregate_names::SEPARATOR;
use crate::engine::registry::catalogue::CatalogueEntry;
use crate::engine::server::calls::CallParams;
use crate::engine::trust::approved_definitions::{
    compare, ApprovedFile, Baseline, Change, Held, COMPARED_KINDS,
};
use crate::protocol::client_handshake::ListKind;
use crate::protocol::methods;
use crate::protocol::params::name_of;
use crate::vec_map::{Entry, VecMap};

#[derive(Debug, Default)]
pub(in crate::engine) struct Pins {
    /// The shared baselines file (None: kept in memory only, as in tests).
    file: Option<String>,
    approved: ApprovedFile,
    /// The file is configured and not read yet: nothing is compared or created.
    waiting_for_file: bool,
    /// The file could not be read: nothing is written over it.
    file_broken: bool,
    held: VecMap<String, Held>,
    /// The held set last announced per server, so each is told once.
    announced: VecMap<String, String>,
    write_pending: bool,
}

/// What reading the baselines file changed.
#[derive(Debug, PartialEq)]
pub(in crate::engine) enum FileReadOutcome {
    /// Nothing to compare again (no file configured, not read, or the same baselines).
    Unchanged,
    /// The baselines changed: compare every server again, after logging `error` if any.
    Recheck { error: Option<String> },
}

/// What comparing one server's listing changed.
#[derive(Debug, Default, PartialEq)]
pub(in crate::engine) struct Compared {
    /// What clients are shown changed (something became held or was released).
    pub(in crate::engine) exposure_changed: bool,
    /// A new announcement of what is held (each held set is told once).
    pub(in crate::engine) announce: Option<String>,
}

/// What an approval did: the names approved, and the names the server does not offer.
#[derive(Debug, Default, PartialEq)]
pub(in crate::engine) struct Approval {
    pub(in crate::engine) approved: Vec<String>,
    pub(in crate::engine) unknown: Vec<String>,
}

impl Pins {
    /// The baselines file the host's config sources name (read with the config).
    pub(in crate::engine) fn set_file(&mut self, path: Option<String>) {
        if self.file != path {
            self.waiting_for_file = path.is_some();
            self.file = path;
        }
    }

    /// The file's contents as the config round read them.
    pub(in crate::engine) fn file_read(&mut self, read: Option<&FileRead>) -> FileReadOutcome {
        let (Some(path), Some(read)) = (self.file.as_deref(), read) else {
            return FileReadOutcome::Unchanged;
        };
        self.waiting_for_file = false;
        let mut error = None;
        match &read.content {
            None => {
                self.file_broken = read.unreadable.is_some();
                self.approved.servers.retain(|_, _| false);
            }
            Some(text) => match ApprovedFile::parse(path, text) {
                Ok(file) => {
                    self.file_broken = false;
                    if file == self.approved {
                        return FileReadOutcome::Unchanged;
                    }
                    // Merged, the file winning: a baseline this process wrote while
                    // another process wrote the file from an older copy is kept (and
                    // written back), never lost and silently re-approved.
                    let ours = std::mem::replace(&mut self.approved, file);
                    for (key, baseline) in ours.servers {
                        if let Entry::Vacant(slot) = self.approved.servers.entry(key) {
                            slot.insert(baseline);
                            self.write_pending = true;
                        }
                    }
                }
                Err(why) => {
                    if !self.file_broken {
                        error = Some(why);
                    }
                    self.file_broken = true;
                }
            },
        }
        FileReadOutcome::Recheck { error }
    }

    /// Forgets what is held of servers that are gone.
    pub(in crate::engine) fn retain_servers(&mut self, exists: impl Fn(&str) -> bool) {
        self.held.retain(|name, _| exists(name));
    }

    /// Compares server `name`'s listing (`entry`, None: no current catalogue)
    /// with its baseline under `key`, creating the baseline at its first
    /// catalogue: empty with `hold_new_tools` (everything held), else the
    /// listing itself. Nothing is compared before the file is read.
    pub(in crate::engine) fn check(
        &mut self,
        name: &str,
        key: &str,
        entry: Option<&CatalogueEntry>,
        hold_new_tools: bool,
        now_ms: u64,
    ) -> Compared {
        if self.waiting_for_file {
            return Compared::default();
        }
        let Some(entry) = entry else {
            return Compared {
                exposure_changed: self.held.remove(name).is_some(),
                announce: None,
            };
        };
        let held = match self.approved.servers.get(key) {
            Some(baseline) => compare(baseline, entry),
            None => {
                let baseline = if hold_new_tools {
                    Baseline {
                        server: name.to_string(),
                        ..Baseline::default()
                    }
                } else {
                    Baseline::of_entry(name, entry, now_ms)
                };
                let held = compare(&baseline, entry);
                self.approved.servers.insert(key.to_string(), baseline);
                self.write_pending = true;
                held
            }
        };
        let previous = self.held.get(name);
        let exposure_changed = previous != Some(&held) && !(previous.is_none() && held.is_empty());
        if held.is_empty() {
            self.held.remove(name);
            self.announced.remove(name);
            return Compared {
                exposure_changed,
                announce: None,
            };
        }
        self.held.insert(name.to_string(), held);
        Compared {
            exposure_changed,
            announce: self.announcement(name),
        }
    }

    /// What is held of `name`, in words, unless that was already said.
    fn announcement(&mut self, name: &str) -> Option<String> {
        let held = self.held.get(name)?;
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
        if self.announced.get(name) == Some(&message) {
            return None;
        }
        self.announced.insert(name.to_string(), message.clone());
        Some(message)
    }

    /// The user approved `items` of server `name` (empty: everything held, and
    /// its instructions): they join its baseline under `key`.
    pub(in crate::engine) fn approve(
        &mut self,
        name: &str,
        key: &str,
        entry: &CatalogueEntry,
        items: &[String],
        now_ms: u64,
    ) -> Approval {
        let held = self.held.get(name).cloned().unwrap_or_default();
        let baseline = self
            .approved
            .servers
            .entry(key.to_string())
            .or_insert_with(|| Baseline {
                server: name.to_string(),
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
            baseline.approved_at_ms = Some(now_ms);
        }
        self.write_pending = true;
        Approval { approved, unknown }
    }

    /// The file to write and its text, once per event when a baseline changed
    /// (never over a file that could not be read).
    pub(in crate::engine) fn take_write(&mut self) -> Option<(String, String)> {
        if !std::mem::take(&mut self.write_pending) || self.file_broken {
            return None;
        }
        Some((self.file.clone()?, self.approved.to_text()))
    }

    /// Whether anything is held at all (the warm call path checks only this).
    pub(in crate::engine) fn any_held(&self) -> bool {
        !self.held.is_empty()
    }

    /// Whether `item` of `kind` of server `name` is held.
    pub(in crate::engine) fn is_held(&self, name: &str, kind: ListKind, item: &str) -> bool {
        self.held
            .get(name)
            .is_some_and(|held| held.holds(kind, item))
    }

    /// Whether anything of `kind` of server `name` is held (the filter is skipped otherwise).
    pub(in crate::engine) fn holds_kind(&self, name: &str, kind: ListKind) -> bool {
        self.held
            .get(name)
            .is_some_and(|held| held.holds_kind(kind))
    }

    /// Held definitions of all servers (the status bar's count).
    pub(in crate::engine) fn held_count(&self) -> usize {
        self.held
            .values()
            .map(|h| h.items.len() + usize::from(h.instructions))
            .sum()
    }

    /// What is held of server `name`.
    pub(in crate::engine) fn held(&self, name: &str) -> Option<&Held> {
        self.held.get(name)
    }

    /// The baseline under `key`.
    pub(in crate::engine) fn baseline(&self, key: &str) -> Option<&Baseline> {
        self.approved.servers.get(key)
    }

    /// Whether server `name`'s changed instructions are held (the approved ones are served).
    pub(in crate::engine) fn held_instructions(&self, name: &str) -> bool {
        self.held.get(name).is_some_and(|h| h.instructions)
    }

    /// The refusal of a `method` call (`tools/call`, `prompts/get`) of server
    /// `name` when what it calls is held, naming what changed and how to review.
    pub(in crate::engine) fn call_refusal(
        &self,
        name: &str,
        method: &str,
        params: &CallParams,
    ) -> Option<String> {
        let held = self.held.get(name)?;
        let kind = called_kind(method)?;
        let item = params.name()?;
        let change = held.items.get(&(kind, item.clone()))?;
        Some(held_message(name, kind, &item, change))
    }

    /// The refusal for an aggregate name (`server__tool`) that is held, if it is one.
    pub(in crate::engine) fn aggregate_refusal(
        &self,
        kind: ListKind,
        exposed: &str,
    ) -> Option<String> {
        self.held.iter().find_map(|(name, held)| {
            let prefix = format!("{name}{SEPARATOR}");
            let item = exposed.strip_prefix(&prefix)?;
            let change = held.items.get(&(kind, item.to_string()))?;
            Some(held_message(name, kind, item, change))
        })
    }

    /// The refusal for `server/tool` (the index's spelling) that is held, if it is one.
    pub(in crate::engine) fn slash_refusal(&self, name: &str) -> Option<String> {
        let (server, tool) = name.split_once('/')?;
        let change = self
            .held
            .get(server)?
            .items
            .get(&(ListKind::Tools, tool.to_string()))?;
        Some(held_message(server, ListKind::Tools, tool, change))
    }
}

/// The kind's word in the contract (`tool`, `prompt`, `resourceTemplate`).
pub(in crate::engine) fn kind_word(kind: ListKind) -> &'static str {
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

#[cfg(test)]
#[path = "pins_tests.rs"]
mod tests;
