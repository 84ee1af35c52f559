//! Approved definitions: each server's baseline of tool, prompt and resource
//! template definitions (and its `instructions`), the file every process of a
//! user shares (`approved-definitions.json`), and the comparison of a listing
//! with its baseline. Pure data: `held_definitions.rs` decides what it means.
//!
//! A baseline is keyed by the server's name and its launch identity (stdio:
//! command, args, cwd; HTTP: the URL). Env values and headers are left out: a
//! rotated token is the same server, and a secret never shapes the key.

use crate::config::model::{ServerConfig, Transport};
use crate::engine::registry::catalogue::CatalogueEntry;
use crate::engine::stable_hash::Fnv1a64Writer;
use crate::engine::trust::definition_review::{canonical_hash, compared_projection, item_hash};
use crate::protocol::client_handshake::ListKind;
use crate::protocol::params::name_of;
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::io::Write as _;

pub const FILE_FORMAT: &str = "lazy-mcp-approved-definitions";
pub const FILE_VERSION: u32 = 1;

/// The kinds whose definitions are compared (resources are data, not instructions).
pub const COMPARED_KINDS: [ListKind; 3] = [
    ListKind::Tools,
    ListKind::Prompts,
    ListKind::ResourceTemplates,
];

/// One approved definition: the compared fields and their hash.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovedItem {
    pub hash: String,
    pub definition: Value,
}

/// What the user approved for one server (read by hand: `baseline_json.rs`).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Baseline {
    pub server: String,
    /// None: nothing approved yet (`holdNewTools`: the first listing is held).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved_at_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    #[serde(default)]
    pub tools: VecMap<String, ApprovedItem>,
    #[serde(default)]
    pub prompts: VecMap<String, ApprovedItem>,
    #[serde(default)]
    pub resource_templates: VecMap<String, ApprovedItem>,
}

impl Baseline {
    pub fn items(&self, kind: ListKind) -> Option<&VecMap<String, ApprovedItem>> {
        match kind {
            ListKind::Tools => Some(&self.tools),
            ListKind::Prompts => Some(&self.prompts),
            ListKind::ResourceTemplates => Some(&self.resource_templates),
            ListKind::Resources => None,
        }
    }

    fn items_mut(&mut self, kind: ListKind) -> Option<&mut VecMap<String, ApprovedItem>> {
        match kind {
            ListKind::Tools => Some(&mut self.tools),
            ListKind::Prompts => Some(&mut self.prompts),
            ListKind::ResourceTemplates => Some(&mut self.resource_templates),
            ListKind::Resources => None,
        }
    }

    /// Approves one live definition as it is now.
    pub fn approve_item(&mut self, kind: ListKind, item: &Value) {
        let Some(name) = name_of(item) else {
            return;
        };
        let definition = compared_projection(item);
        let hash = format!("{:016x}", canonical_hash(&definition));
        if let Some(items) = self.items_mut(kind) {
            items.insert(name.to_string(), ApprovedItem { hash, definition });
        }
    }

    /// A baseline of everything the entry lists now.
    pub fn of_entry(server: &str, entry: &CatalogueEntry, now_ms: u64) -> Baseline {
        let mut baseline = Baseline {
            server: server.to_string(),
            approved_at_ms: Some(now_ms),
            instructions: entry.initialize.instructions.clone(),
            ..Baseline::default()
        };
        for kind in COMPARED_KINDS {
            for item in entry.list(kind) {
                baseline.approve_item(kind, item);
            }
        }
        baseline
    }
}

/// The shared file: baselines by key ([`baseline_key`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovedFile {
    pub format: String,
    pub version: u32,
    #[serde(default)]
    pub servers: VecMap<String, Baseline>,
}

impl Default for ApprovedFile {
    fn default() -> Self {
        ApprovedFile {
            format: FILE_FORMAT.into(),
            version: FILE_VERSION,
            servers: VecMap::new(),
        }
    }
}

impl ApprovedFile {
    /// Reads the file; the error is the log line that says why it was not used.
    pub fn parse(path: &str, text: &str) -> Result<ApprovedFile, String> {
        let file: ApprovedFile = serde_json::from_str(text).map_err(|e| {
            format!("{path}: cannot read the approved tool definitions ({e}); fix or delete the file (every server's definitions are then approved again as they are)")
        })?;
        if file.format != FILE_FORMAT || file.version != FILE_VERSION {
            return Err(format!(
                "{path}: not a Lazy MCP approved-definitions file of version {FILE_VERSION}; it is left alone"
            ));
        }
        Ok(file)
    }

    pub fn to_text(&self) -> String {
        approved_text(self)
    }
}

/// `name` plus a hash of the launch identity (see the module documentation).
pub fn baseline_key(config: &ServerConfig) -> String {
    let mut hash = Fnv1a64Writer::default();
    // Writing into a hasher cannot fail.
    let mut field = |text: &str| {
        let _ = hash.write_all(&(text.len() as u64).to_le_bytes());
        let _ = hash.write_all(text.as_bytes());
    };
    match &config.transport {
        Transport::Stdio {
            command, args, cwd, ..
        } => {
            field("stdio");
            field(command);
            for arg in args {
                field(arg);
            }
            field(cwd.as_deref().unwrap_or_default());
        }
        Transport::Http { url, .. } | Transport::Sse { url, .. } => {
            field("url");
            field(url);
        }
    }
    format!("{} {:016x}", config.name, hash.finish())
}

/// How a live definition differs from the approved one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Not in the baseline (a new tool, or the new name of a renamed one).
    Added,
    /// These compared fields differ (`description`, `inputSchema`, …).
    Changed(Vec<String>),
}

impl Change {
    /// "it is new since …" / "its description and inputSchema changed since …".
    pub fn describe(&self) -> String {
        match self {
            Change::Added => "it was added after the server's definitions were approved".into(),
            Change::Changed(fields) => {
                let fields = match fields.as_slice() {
                    [] => "definition".to_string(),
                    [one] => one.clone(),
                    [init @ .., last] => format!("{} and {last}", init.join(", ")),
                };
                format!("its {fields} changed since it was approved")
            }
        }
    }
}

/// What of one server's listing is not approved.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Held {
    pub items: VecMap<(ListKind, String), Change>,
    /// The live `instructions` differ from the approved ones (the approved ones are served).
    pub instructions: bool,
}

impl Held {
    pub fn is_empty(&self) -> bool {
        self.items.is_empty() && !self.instructions
    }

    pub fn holds(&self, kind: ListKind, name: &str) -> bool {
        self.items.contains_key(&(kind, name.to_string()))
    }

    pub fn holds_kind(&self, kind: ListKind) -> bool {
        self.items.keys().any(|(k, _)| *k == kind)
    }
}

/// Compares a listing with its baseline: one hash per item, the fields only for
/// those whose hash differs. Removed items need nothing: they are not listed.
pub fn compare(baseline: &Baseline, entry: &CatalogueEntry) -> Held {
    let mut held = Held {
        instructions: entry.initialize.instructions != baseline.instructions,
        ..Held::default()
    };
    for kind in COMPARED_KINDS {
        let Some(approved) = baseline.items(kind) else {
            continue;
        };
        for item in entry.list(kind) {
            let Some(name) = name_of(item) else {
                continue;
            };
            let change = match approved.get(name) {
                None => Some(Change::Added),
                // One hash per item, no copy; the fields are compared only when it differs.
                Some(old) if u64::from_str_radix(&old.hash, 16).ok() != Some(item_hash(item)) => {
                    Some(Change::Changed(changed_fields(
                        &old.definition,
                        &compared_projection(item),
                    )))
                }
                Some(_) => None,
            };
            if let Some(change) = change {
                held.items.insert((kind, name.to_string()), change);
            }
        }
    }
    held
}

fn changed_fields(old: &Value, new: &Value) -> Vec<String> {
    let mut keys: Vec<&String> = Vec::new();
    for object in [old, new].into_iter().filter_map(Value::as_object) {
        for key in object.keys() {
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    keys.into_iter()
        .filter(|key| {
            let a = old.get(key.as_str());
            let b = new.get(key.as_str());
            a.map(canonical_hash) != b.map(canonical_hash)
        })
        .cloned()
        .collect()
}

// `approved-definitions.json`'s text: the file built as a JSON value by hand,
// then written by serde's pretty writer for `Value` (in the `.wasm` anyway,
// for the definition review). Byte for byte what
// `serde_json::to_string_pretty(file)` writes (object members keep their
// order; the test below holds them equal), without that writer compiled for
// each of the file's types (bench/README.md "WASM size").

/// The file's text, as `serde_json::to_string_pretty(file)` writes it.
fn approved_text(file: &ApprovedFile) -> String {
    let mut out = Map::new();
    out.insert("format".into(), Value::String(file.format.clone()));
    out.insert("version".into(), Value::from(file.version));
    let servers = file.servers.iter();
    let servers = servers.map(|(name, baseline)| (name.clone(), baseline_value(baseline)));
    out.insert("servers".into(), Value::Object(servers.collect()));
    serde_json::to_string_pretty(&Value::Object(out)).unwrap_or_default()
}

/// One baseline's members, in `Baseline`'s field order (absent options left out).
fn baseline_value(baseline: &Baseline) -> Value {
    let mut out = Map::new();
    out.insert("server".into(), Value::String(baseline.server.clone()));
    if let Some(at) = baseline.approved_at_ms {
        out.insert("approvedAtMs".into(), Value::from(at));
    }
    if let Some(text) = &baseline.instructions {
        out.insert("instructions".into(), Value::String(text.clone()));
    }
    out.insert("tools".into(), items_value(&baseline.tools));
    out.insert("prompts".into(), items_value(&baseline.prompts));
    out.insert(
        "resourceTemplates".into(),
        items_value(&baseline.resource_templates),
    );
    Value::Object(out)
}

fn items_value(items: &VecMap<String, ApprovedItem>) -> Value {
    let items = items.iter().map(|(name, item)| {
        let mut out = Map::new();
        out.insert("hash".into(), Value::String(item.hash.clone()));
        out.insert("definition".into(), item.definition.clone());
        (name.clone(), Value::Object(out))
    });
    Value::Object(items.collect())
}

#[cfg(test)]
mod pretty_text_tests {
    use super::*;
    use serde_json::json;

    fn baseline(server: &str, at: Option<u64>, instructions: Option<&str>) -> Baseline {
        let mut baseline = Baseline {
            server: server.into(),
            approved_at_ms: at,
            instructions: instructions.map(str::to_string),
            ..Baseline::default()
        };
        let item = |hash: &str, definition: Value| ApprovedItem {
            hash: hash.into(),
            definition,
        };
        baseline.tools.insert(
            "zeta".into(),
            item("00ff", json!({"name": "zeta", "inputSchema": {"type": "object", "b": [1, 2.5, null], "a": {}}})),
        );
        baseline
            .tools
            .insert("alpha \"q\"\n".into(), item("", json!([])));
        baseline.prompts.insert(
            "p".into(),
            item(
                "01",
                json!({"name": "p", "arguments": [{"z": true, "a": "ü\t"}]}),
            ),
        );
        baseline
    }

    #[test]
    fn written_as_serde_json_pretty_writes_it() {
        let mut full = ApprovedFile::default();
        full.servers.insert(
            "b".into(),
            baseline("b", Some(1_700_000_000_000), Some("Use\nit")),
        );
        full.servers.insert("a".into(), baseline("a", None, None));
        full.servers.insert("empty".into(), Baseline::default());
        for file in [ApprovedFile::default(), full] {
            assert_eq!(
                approved_text(&file),
                serde_json::to_string_pretty(&file).unwrap(),
                "{file:?}"
            );
        }
    }
}
