//! Merging definitions by server name.
//!
//! Every definition has a rank (lower wins):
//! 1. level: project (Claude Code local entries and workspace files) before user;
//! 2. tool: VS Code, Claude Code, Copilot CLI, OpenCode, Claude Desktop;
//! 3. inside a tool: Claude Code local before `.mcp.json`; then file order in the
//!    discovery plan.
//!
//! Per name: each workspace folder keeps its best project definition; user
//! definitions lose to any project definition. Losers are reported as shadowed,
//! except identical duplicates (same fingerprint and flags), which collapse
//! silently. When several folders keep different definitions of one name, each
//! is renamed `name (folder)` (`name (folder 2)`, ... if folder names repeat).

use super::model::{ConfigScope, ServerConfig};
use super::paths::Platform;
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};

/// A definition that lost to another one with the same name.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Shadowed {
    pub name: String,
    pub winner: super::model::SourceRef,
    pub loser: super::model::SourceRef,
}

/// A loaded definition waiting to be merged.
pub(crate) struct Definition {
    pub server: ServerConfig,
    pub rank: Rank,
    /// Index of the workspace folder (project and local scope), for ordering.
    pub folder_index: Option<usize>,
}

/// Lower wins; see the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Rank {
    pub level: u8,
    pub tool: u8,
    pub within_tool: u8,
    pub file_order: usize,
    /// Entry order inside the file (duplicate keys never reach the merge: the
    /// later one wins while reading, as with JSON.parse).
    pub entry_order: usize,
}

/// Same launch config and same flags: a duplicate, not a conflict.
pub(crate) fn identical(a: &ServerConfig, b: &ServerConfig) -> bool {
    a.fingerprint == b.fingerprint
        && a.transport == b.transport
        && a.enabled == b.enabled
        && a.auto_connect == b.auto_connect
        && a.tools == b.tools
        && a.timeout_ms == b.timeout_ms
}

pub(crate) fn merge(
    definitions: Vec<Definition>,
    platform: Platform,
) -> (Vec<ServerConfig>, Vec<Shadowed>) {
    let mut by_name: VecMap<String, Vec<Definition>> = VecMap::new();
    for definition in definitions {
        by_name
            .entry(definition.server.name.clone())
            .or_default()
            .push(definition);
    }
    let mut servers = Vec::new();
    let mut shadowed = Vec::new();
    for (name, mut group) in by_name {
        crate::sorting::sort_by_key(&mut group, |d| d.rank);
        let (project, user): (Vec<Definition>, Vec<Definition>) = group
            .into_iter()
            .partition(|d| d.server.source.scope != ConfigScope::User);

        // Best project definition per folder, in folder order.
        let mut per_folder: VecMap<Option<usize>, Vec<Definition>> = VecMap::new();
        for definition in project {
            per_folder
                .entry(definition.folder_index)
                .or_default()
                .push(definition);
        }
        let mut kept: Vec<ServerConfig> = Vec::new();
        for (_, folder_group) in per_folder {
            let mut folder_group = folder_group.into_iter();
            let Some(best) = folder_group.next() else {
                continue;
            };
            for loser in folder_group {
                record_loser(&name, &best.server, &loser.server, &mut shadowed);
            }
            match kept.iter().find(|k| identical(k, &best.server)) {
                Some(_) => {}
                None => kept.push(best.server),
            }
        }
        let mut user = user.into_iter();
        if kept.is_empty() {
            if let Some(best) = user.next() {
                kept.push(best.server);
            }
        }
        for loser in user {
            let winner = kept
                .iter()
                .find(|k| identical(k, &loser.server))
                .or(kept.first());
            if let Some(winner) = winner {
                record_loser(&name, winner, &loser.server, &mut shadowed);
            }
        }
        if kept.len() > 1 {
            rename_per_folder(&name, &mut kept, platform);
        }
        servers.extend(kept);
    }
    crate::sorting::sort_by(&mut servers, |a, b| a.name.cmp(&b.name));
    (servers, shadowed)
}

fn record_loser(
    name: &str,
    winner: &ServerConfig,
    loser: &ServerConfig,
    shadowed: &mut Vec<Shadowed>,
) {
    if !identical(winner, loser) {
        shadowed.push(Shadowed {
            name: name.to_string(),
            winner: winner.source.clone(),
            loser: loser.source.clone(),
        });
    }
}

fn rename_per_folder(name: &str, kept: &mut [ServerConfig], platform: Platform) {
    let mut used: VecMap<String, usize> = VecMap::new();
    for server in kept.iter_mut() {
        let folder = server
            .source
            .workspace_folder
            .as_deref()
            .map(|folder| platform.basename(folder))
            .unwrap_or_default();
        let count = used.entry(folder.clone()).or_insert(0);
        *count += 1;
        server.name = if *count == 1 {
            format!("{name} ({folder})")
        } else {
            format!("{name} ({folder} {count})")
        };
    }
}
