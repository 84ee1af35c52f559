//! The catalogue: what each server offers (tools, prompts, resources, templates),
//! learned once and persisted as a versioned JSON blob the host stores.

use crate::engine::stable_hash::Fnv1a64Writer;
use crate::protocol::client_discover::{self, CacheHint, Era};
use crate::protocol::client_handshake::{InitializeOutcome, ListKind};
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Tag of the blob, so a foreign file is never mistaken for a catalogue.
pub const BLOB_FORMAT: &str = "lazy-mcp-catalogue";
/// Bump when the entry shape changes: older blobs are then ignored and rebuilt.
pub const BLOB_VERSION: u32 = 1;

/// Everything learned about one server in one handshake. Read by hand
/// (`catalogue_entry_json.rs`): the serde attributes below are the writer's.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogueEntry {
    /// The config fingerprint the entry was built with; a different one makes it stale.
    pub fingerprint: String,
    pub catalogued_at_ms: u64,
    /// The protocol era the probe found (absent in entries written before eras: legacy).
    #[serde(default, skip_serializing_if = "is_legacy")]
    pub era: Era,
    /// `initialize` result, or for a modern server its `server/discover` result in the same shape.
    pub initialize: InitializeOutcome,
    /// The stricter `ttlMs`/`cacheScope` of the server's list results (modern servers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheHint>,
    #[serde(default)]
    pub tools: Vec<Value>,
    #[serde(default)]
    pub prompts: Vec<Value>,
    #[serde(default)]
    pub resources: Vec<Value>,
    #[serde(default)]
    pub resource_templates: Vec<Value>,
    /// An OAuth server's protected resource metadata URL (RFC 9728), as its last
    /// 401 challenge advertised it: a later sign-in in another run starts there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_metadata_url: Option<String>,
    /// The tools' vectors for hybrid search (`engine/clients/tool_vectors.rs`), one
    /// per tool in order; absent before a model was loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_vectors: Option<ToolVectors>,
    /// Whether the server asks its client for `roots/list`: `Some(false)` once a
    /// listing saw no such ask (its shared process may then serve several
    /// workspaces), `Some(true)` for good once one was seen; absent: not known
    /// (an entry written before this was recorded). `shared/launch.rs` keys a
    /// process by the client's roots unless this says `Some(false)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asks_roots: Option<bool>,
}

impl CatalogueEntry {
    /// An entry of one handshake with nothing listed yet (a first listing, or
    /// the hand reader's start before the members it reads).
    pub(crate) fn new(
        fingerprint: String,
        catalogued_at_ms: u64,
        era: Era,
        initialize: InitializeOutcome,
        cache: Option<CacheHint>,
    ) -> CatalogueEntry {
        CatalogueEntry {
            fingerprint,
            catalogued_at_ms,
            era,
            initialize,
            cache,
            tools: Vec::new(),
            prompts: Vec::new(),
            resources: Vec::new(),
            resource_templates: Vec::new(),
            resource_metadata_url: None,
            tool_vectors: None,
            asks_roots: None,
        }
    }
}

/// Tool vectors as cached in the catalogue: reused only under the same model
/// version and the same tools.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolVectors {
    /// The embedding model's version.
    model: String,
    /// FNV-1a 64 (hex) of the entry's `tools` as JSON when the vectors were made.
    tools: String,
    /// Per tool, its int8 vector in hex ("" when no word of it is known).
    vectors: Vec<String>,
}

fn is_legacy(era: &Era) -> bool {
    *era == Era::Legacy
}

impl CatalogueEntry {
    /// Past the `ttlMs` its server gave: shown as stale, re-listed at the next connect.
    pub fn is_stale(&self, now_ms: u64) -> bool {
        self.cache
            .as_ref()
            .is_some_and(|cache| now_ms >= self.catalogued_at_ms.saturating_add(cache.ttl_ms))
    }

    pub fn list(&self, kind: ListKind) -> &Vec<Value> {
        match kind {
            ListKind::Tools => &self.tools,
            ListKind::Prompts => &self.prompts,
            ListKind::Resources => &self.resources,
            ListKind::ResourceTemplates => &self.resource_templates,
        }
    }

    fn list_mut(&mut self, kind: ListKind) -> &mut Vec<Value> {
        match kind {
            ListKind::Tools => &mut self.tools,
            ListKind::Prompts => &mut self.prompts,
            ListKind::Resources => &mut self.resources,
            ListKind::ResourceTemplates => &mut self.resource_templates,
        }
    }

    /// The same listing as `other` (its age aside): what tells a changed listing.
    fn same_listing(&self, other: &CatalogueEntry) -> bool {
        self.fingerprint == other.fingerprint
            && self.resource_metadata_url == other.resource_metadata_url
            && self.initialize == other.initialize
            && self.era == other.era
            && self.cache == other.cache
            && ListKind::ALL
                .iter()
                .all(|kind| self.list(*kind) == other.list(*kind))
    }

    /// The cached vector (hex) of the tool at `position`, when made by `model_key`.
    pub fn tool_vector_hex(&self, model_key: &str, position: usize) -> Option<&str> {
        let vectors = self.tool_vectors.as_ref()?;
        if vectors.model != model_key {
            return None;
        }
        vectors.vectors.get(position).map(String::as_str)
    }
}

/// What the tool vectors of an entry were made from: FNV-1a 64 of its tools as JSON.
fn tools_hash(tools: &[Value]) -> String {
    let mut hasher = Fnv1a64Writer::default();
    // Writing into the hasher cannot fail; an error would only give another hash.
    let _ = serde_json::to_writer(&mut hasher, tools);
    format!("{:016x}", hasher.finish())
}

/// All entries, by server name. Entries of servers absent from the current config
/// are kept (another workspace may use them) until a config diff removes the server.
///
/// Its map is its own: an entry changes only through the inputs below
/// (`record_listing`, `loaded`, `adopt_shared`, `forget`, `update_tool_vectors`);
/// readers get `&CatalogueEntry` (whose fields they read, never write).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalogue {
    entries: VecMap<String, CatalogueEntry>,
    /// Changed since the last [`Catalogue::take_changed_blob`]: one
    /// `persistCatalogue` per event at most.
    changed: bool,
    /// Tool vectors may be missing or stale (entries loaded or taken from the
    /// shared catalogue, another embedding model).
    vectors_pending: bool,
}

/// One listing round's result, as [`Catalogue::record_listing`] takes it.
pub(in crate::engine) struct Listing {
    pub era: Era,
    pub initialize: InitializeOutcome,
    pub cache: Option<CacheHint>,
    /// The kinds listed (a partial re-list keeps the others).
    pub lists: VecMap<ListKind, Vec<Value>>,
    /// The resource metadata URL the server's challenges advertised, if any.
    pub resource_metadata_url: Option<String>,
    /// The server was seen asking for `roots/list` (on this listing's connection or before).
    pub asks_roots: bool,
}

/// What a listing did to the catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::engine) enum Recorded {
    /// The same as the entry held: only its age restarted (verified just now).
    Unchanged,
    /// A new or changed entry: what clients are shown may differ.
    Changed,
}

impl Catalogue {
    /// The entry of `server`, whatever its fingerprint.
    pub fn get(&self, server: &str) -> Option<&CatalogueEntry> {
        self.entries.get(server)
    }

    /// The entry of `server` when it was built with `fingerprint` (warm: usable
    /// without starting the server).
    pub fn warm(&self, server: &str, fingerprint: &str) -> Option<&CatalogueEntry> {
        self.entries
            .get(server)
            .filter(|entry| entry.fingerprint == fingerprint)
    }

    /// A listing round of `server` (config `fingerprint`) finished at `now_ms`:
    /// the listed kinds go into its entry (a new one when the fingerprint
    /// changed); an unchanged listing only restarts the entry's age.
    pub(in crate::engine) fn record_listing(
        &mut self,
        server: &str,
        fingerprint: &str,
        listing: Listing,
        now_ms: u64,
    ) -> Recorded {
        let Listing {
            era,
            initialize,
            cache,
            lists,
            resource_metadata_url,
            asks_roots,
        } = listing;
        let mut entry = match self.warm(server, fingerprint) {
            Some(entry) => {
                let mut entry = entry.clone();
                entry.initialize = initialize;
                entry.era = era;
                // A partial re-list keeps the hint of the lists it did not touch.
                entry.cache = client_discover::stricter(cache, None).or(entry.cache);
                entry
            }
            None => CatalogueEntry::new(fingerprint.to_string(), now_ms, era, initialize, cache),
        };
        // Once seen asking for roots, always so (a later listing may miss the ask).
        let asks_roots = Some(asks_roots || entry.asks_roots == Some(true));
        entry.asks_roots = asks_roots;
        for (kind, items) in lists {
            *entry.list_mut(kind) = items;
        }
        if let Some(url) = resource_metadata_url {
            entry.resource_metadata_url = Some(url);
        }
        entry.catalogued_at_ms = now_ms;
        match self.entries.get_mut(server) {
            Some(previous) if previous.same_listing(&entry) => {
                // Verified just now: the age restarts (persisted so it survives a restart).
                previous.catalogued_at_ms = now_ms;
                previous.asks_roots = asks_roots;
                self.changed = true;
                Recorded::Unchanged
            }
            _ => {
                self.entries.insert(server.to_string(), entry);
                self.changed = true;
                Recorded::Changed
            }
        }
    }

    /// The persisted blob read back at start: its entries go under ours, except
    /// where ours is current (`fingerprint_of(server)`: the configured server's
    /// fingerprint; an entry of a server not configured here is kept).
    pub(in crate::engine) fn loaded(
        &mut self,
        blob: &str,
        fingerprint_of: impl Fn(&str) -> Option<String>,
    ) -> Result<(), String> {
        for (name, entry) in Catalogue::from_blob(blob)?.entries {
            let ours_is_current = match self.entries.get(&name) {
                Some(ours) => fingerprint_of(&name).is_none_or(|f| ours.fingerprint == f),
                None => false,
            };
            if !ours_is_current {
                self.entries.insert(name, entry);
            }
        }
        // Vectors made by another model version are recomputed (once).
        self.vectors_pending = true;
        Ok(())
    }

    /// An entry found in the shared catalogue becomes `server`'s; vectors made
    /// under another name (`writer`) are dropped (they embed the server's name).
    pub(in crate::engine) fn adopt_shared(
        &mut self,
        server: &str,
        writer: &str,
        entry: CatalogueEntry,
    ) {
        let mut entry = entry;
        if writer != server {
            entry.tool_vectors = None;
        }
        self.entries.insert(server.to_string(), entry);
        self.changed = true;
        self.vectors_pending = true;
    }

    /// `server` asked for `roots/list`: recorded in its entry for good (true:
    /// the entry changed and is persisted).
    pub(in crate::engine) fn mark_asks_roots(&mut self, server: &str) -> bool {
        let Some(entry) = self.entries.get_mut(server) else {
            return false;
        };
        let changed = entry.asks_roots != Some(true);
        entry.asks_roots = Some(true);
        self.changed |= changed;
        changed
    }

    /// The server was removed or its launch changed: its entry goes (the blob
    /// changes when there was one: true).
    pub(in crate::engine) fn forget(&mut self, server: &str) -> bool {
        let had = self.entries.remove(server).is_some();
        self.changed |= had;
        had
    }

    /// Another embedding model was loaded: every entry's vectors are made again.
    pub(in crate::engine) fn model_changed(&mut self) {
        self.vectors_pending = true;
    }

    /// Whether the vectors must be brought up to date at the end of this event
    /// (something changed, or they were marked pending; the mark is taken).
    pub(in crate::engine) fn take_vectors_due(&mut self) -> bool {
        std::mem::take(&mut self.vectors_pending) || self.changed
    }

    /// The blob to persist, once per change (`persistCatalogue`).
    pub(in crate::engine) fn take_changed_blob(&mut self) -> Option<String> {
        std::mem::take(&mut self.changed).then(|| self.to_blob())
    }

    /// The entry built with `fingerprint` in a shared catalogue file (a
    /// one-entry blob), with the name its writer gave the server.
    pub(in crate::engine) fn into_entry_for(
        self,
        fingerprint: &str,
    ) -> Option<(String, CatalogueEntry)> {
        self.entries
            .into_iter()
            .find(|(_, entry)| entry.fingerprint == fingerprint)
    }

    /// The one-entry blob of `server`'s entry (a shared catalogue file).
    pub(in crate::engine) fn one_entry_blob(
        &self,
        server: &str,
        fingerprint: &str,
    ) -> Option<String> {
        let entry = self.warm(server, fingerprint)?.clone();
        let mut one = Catalogue::default();
        one.entries.insert(server.to_string(), entry);
        Some(one.to_blob())
    }

    /// Makes the tool vectors of every entry whose vectors were not made by
    /// `model_key` from its current tools; `vector_of(server, tool)` makes one
    /// (hex). True when any entry changed.
    pub(in crate::engine) fn update_tool_vectors(
        &mut self,
        model_key: &str,
        mut vector_of: impl FnMut(&str, &Value) -> String,
    ) -> bool {
        let mut changed = false;
        for (server, entry) in self.entries.iter_mut() {
            let current = entry.tool_vectors.as_ref().is_some_and(|v| {
                v.model == model_key
                    && v.vectors.len() == entry.tools.len()
                    && v.tools == tools_hash(&entry.tools)
            });
            if current {
                continue;
            }
            let vectors = entry
                .tools
                .iter()
                .map(|tool| vector_of(server, tool))
                .collect();
            entry.tool_vectors = Some(ToolVectors {
                model: model_key.to_string(),
                tools: tools_hash(&entry.tools),
                vectors,
            });
            changed = true;
        }
        self.changed |= changed;
        changed
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Blob {
    format: String,
    version: u32,
    entries: VecMap<String, CatalogueEntry>,
}

impl Catalogue {
    /// The blob for `persistCatalogue`.
    pub fn to_blob(&self) -> String {
        let blob = Blob {
            format: BLOB_FORMAT.into(),
            version: BLOB_VERSION,
            entries: self.entries.clone(),
        };
        serde_json::to_string(&blob).unwrap_or_default()
    }

    /// Reads a blob; the error is the one log line explaining why it was ignored.
    pub fn from_blob(blob: &str) -> Result<Catalogue, String> {
        // First only the header (the entries are skipped, not built), so an old
        // format is recognized as such even when its entries no longer parse.
        let header: BlobHeader = serde_json::from_str(blob).map_err(|e| {
            format!("the persisted catalogue is corrupt or truncated ({e}); it will be rebuilt")
        })?;
        if header.format.as_deref() != Some(BLOB_FORMAT) {
            return Err(
                "the persisted catalogue is not a Lazy MCP catalogue; it will be rebuilt".into(),
            );
        }
        if header.version != Some(u64::from(BLOB_VERSION)) {
            return Err(format!(
                "the persisted catalogue has format version {} (this Lazy MCP reads {BLOB_VERSION}); it will be rebuilt",
                header
                    .version
                    .map_or_else(|| "none".to_string(), |v| v.to_string())
            ));
        }
        let blob: Blob = serde_json::from_str(blob).map_err(|e| {
            format!("the persisted catalogue has unexpected contents ({e}); it will be rebuilt")
        })?;
        Ok(Catalogue {
            entries: blob.entries,
            ..Catalogue::default()
        })
    }
}

#[derive(Deserialize)]
struct BlobHeader {
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    version: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_round_trips_and_rejects_damage() {
        let mut catalogue = Catalogue::default();
        catalogue.entries.insert(
            "a".into(),
            CatalogueEntry {
                fingerprint: "f".into(),
                catalogued_at_ms: 1,
                era: Era::Modern,
                initialize: InitializeOutcome::default(),
                cache: Some(CacheHint {
                    ttl_ms: 10,
                    cache_scope: "private".into(),
                }),
                tools: vec![serde_json::json!({"name": "t"})],
                prompts: vec![],
                resources: vec![],
                resource_templates: vec![],
                resource_metadata_url: Some("http://h/prm".into()),
                tool_vectors: Some(ToolVectors {
                    model: "m-1".into(),
                    tools: "0123456789abcdef".into(),
                    vectors: vec!["7f00".into()],
                }),
                asks_roots: Some(false),
            },
        );
        let blob = catalogue.to_blob();
        assert_eq!(Catalogue::from_blob(&blob), Ok(catalogue));
        let truncated = blob.get(..blob.len() / 2).unwrap_or_default();
        assert!(Catalogue::from_blob(truncated).is_err());
        assert!(Catalogue::from_blob(
            r#"{"format":"lazy-mcp-catalogue","version":0,"entries":{}}"#
        )
        .is_err_and(|e| e.contains("version 0")));
        assert!(Catalogue::from_blob("[]").is_err());
    }

    #[test]
    fn entries_from_before_eras_read_as_legacy_and_fresh() {
        let blob = r#"{"format":"lazy-mcp-catalogue","version":1,"entries":{"a":{"fingerprint":"f","cataloguedAtMs":1,"initialize":{"protocolVersion":"2025-11-25"}}}}"#;
        let entry = Catalogue::from_blob(blob)
            .ok()
            .and_then(|c| c.entries.get("a").cloned());
        assert_eq!(entry.as_ref().map(|e| e.era), Some(Era::Legacy));
        assert_eq!(entry.map(|e| e.is_stale(u64::MAX)), Some(false));
    }

    fn listing(lists: &[(ListKind, &[&str])]) -> Listing {
        let mut map = VecMap::new();
        for (kind, names) in lists {
            let items = names
                .iter()
                .map(|n| serde_json::json!({"name": n}))
                .collect();
            map.insert(*kind, items);
        }
        Listing {
            era: Era::Legacy,
            initialize: InitializeOutcome::default(),
            cache: None,
            lists: map,
            resource_metadata_url: None,
            asks_roots: false,
        }
    }

    #[test]
    fn a_server_seen_asking_for_roots_stays_so() {
        let mut catalogue = Catalogue::default();
        let tools = [(ListKind::Tools, &["a"][..])];
        let asks = |c: &Catalogue| c.get("s").and_then(|e| e.asks_roots);
        catalogue.record_listing("s", "f", listing(&tools), 1);
        assert_eq!(asks(&catalogue), Some(false), "listed without an ask");
        assert!(catalogue.mark_asks_roots("s"));
        assert!(!catalogue.mark_asks_roots("s"), "already known");
        catalogue.record_listing("s", "f", listing(&tools), 2);
        assert_eq!(
            asks(&catalogue),
            Some(true),
            "a later listing that missed the ask"
        );
        let old = r#"{"format":"lazy-mcp-catalogue","version":1,"entries":{"a":{"fingerprint":"f","cataloguedAtMs":1,"initialize":{"protocolVersion":"2025-11-25"}}}}"#;
        let entry = Catalogue::from_blob(old)
            .ok()
            .and_then(|c| c.entries.get("a").cloned());
        assert_eq!(
            entry.map(|e| e.asks_roots),
            Some(None),
            "an older entry: not known"
        );
    }

    fn names(entry: Option<&CatalogueEntry>, kind: ListKind) -> Vec<String> {
        entry
            .map(|e| e.list(kind).iter().map(|t| t["name"].to_string()).collect())
            .unwrap_or_default()
    }

    #[test]
    fn the_same_listing_again_only_restarts_the_entrys_age() {
        let mut catalogue = Catalogue::default();
        let tools = [(ListKind::Tools, &["a", "b"][..])];
        assert_eq!(
            catalogue.record_listing("s", "f1", listing(&tools), 10),
            Recorded::Changed
        );
        assert_eq!(
            catalogue.record_listing("s", "f1", listing(&tools), 20),
            Recorded::Unchanged
        );
        assert_eq!(catalogue.get("s").map(|e| e.catalogued_at_ms), Some(20));
        let fewer = [(ListKind::Tools, &["a"][..])];
        assert_eq!(
            catalogue.record_listing("s", "f1", listing(&fewer), 30),
            Recorded::Changed
        );
        assert_eq!(names(catalogue.get("s"), ListKind::Tools), vec!["\"a\""]);
        let mut with_url = listing(&fewer);
        with_url.resource_metadata_url = Some("http://h/prm".into());
        assert_eq!(
            catalogue.record_listing("s", "f1", with_url, 40),
            Recorded::Changed
        );
    }

    #[test]
    fn a_partial_relist_keeps_the_other_lists_a_new_fingerprint_does_not() {
        let mut catalogue = Catalogue::default();
        let mut first = listing(&[(ListKind::Tools, &["a"]), (ListKind::Prompts, &["p"])]);
        first.cache = Some(CacheHint {
            ttl_ms: 10,
            cache_scope: "public".into(),
        });
        first.resource_metadata_url = Some("http://h/prm".into());
        catalogue.record_listing("s", "f1", first, 1);
        catalogue.record_listing("s", "f1", listing(&[(ListKind::Tools, &["b"])]), 2);
        let entry = catalogue.get("s");
        assert_eq!(names(entry, ListKind::Tools), vec!["\"b\""]);
        assert_eq!(names(entry, ListKind::Prompts), vec!["\"p\""]);
        assert_eq!(
            entry.and_then(|e| e.cache.as_ref()).map(|c| c.ttl_ms),
            Some(10)
        );
        assert_eq!(
            entry.and_then(|e| e.resource_metadata_url.as_deref()),
            Some("http://h/prm")
        );
        catalogue.record_listing("s", "f2", listing(&[(ListKind::Tools, &["c"])]), 3);
        let entry = catalogue.get("s");
        assert_eq!(names(entry, ListKind::Prompts), Vec::<String>::new());
        assert_eq!(entry.and_then(|e| e.cache.as_ref()), None);
        assert_eq!(entry.map(|e| e.catalogued_at_ms), Some(3));
    }

    #[test]
    fn warm_only_for_its_fingerprint_and_loaded_entries_go_under_current_ones() {
        let mut ours = Catalogue::default();
        for (server, fingerprint) in [("current", "f"), ("stale", "old"), ("elsewhere", "x")] {
            ours.record_listing(
                server,
                fingerprint,
                listing(&[(ListKind::Tools, &["ours"])]),
                1,
            );
        }
        assert!(ours.warm("current", "f").is_some());
        assert!(ours.warm("stale", "f").is_none());
        let mut persisted = Catalogue::default();
        for (server, fingerprint) in [
            ("current", "f0"),
            ("stale", "f"),
            ("elsewhere", "y"),
            ("new", "n"),
        ] {
            persisted.record_listing(
                server,
                fingerprint,
                listing(&[(ListKind::Tools, &["theirs"])]),
                1,
            );
        }
        let configured = |name: &str| (name != "elsewhere").then(|| "f".to_string());
        assert_eq!(ours.loaded(&persisted.to_blob(), configured), Ok(()));
        let tools = |server| names(ours.get(server), ListKind::Tools);
        assert_eq!(tools("current"), vec!["\"ours\""]);
        assert_eq!(tools("stale"), vec!["\"theirs\""]);
        assert_eq!(tools("elsewhere"), vec!["\"ours\""]);
        assert_eq!(tools("new"), vec!["\"theirs\""]);
        assert!(ours.loaded("[]", configured).is_err());
        assert!(ours.forget("new"));
        assert!(!ours.forget("new"));
    }

    #[test]
    fn tool_vectors_are_made_once_per_model_and_tools() {
        let mut catalogue = Catalogue::default();
        catalogue.record_listing("s", "f", listing(&[(ListKind::Tools, &["a", "b"])]), 1);
        let made = std::cell::Cell::new(0);
        let mut vector_of = |server: &str, tool: &Value| {
            made.set(made.get() + 1);
            format!("{server}:{}", tool["name"].as_str().unwrap_or_default())
        };
        assert!(catalogue.update_tool_vectors("m1", &mut vector_of));
        assert!(!catalogue.update_tool_vectors("m1", &mut vector_of));
        assert!(catalogue.update_tool_vectors("m2", &mut vector_of));
        assert_eq!(made.get(), 4);
        let entry = catalogue.get("s");
        assert_eq!(entry.and_then(|e| e.tool_vector_hex("m2", 1)), Some("s:b"));
        assert_eq!(entry.and_then(|e| e.tool_vector_hex("m1", 1)), None);
        // Changed tools: made again; an entry taken under another name drops them.
        catalogue.record_listing("s", "f", listing(&[(ListKind::Tools, &["c"])]), 2);
        assert!(catalogue.update_tool_vectors("m2", &mut vector_of));
        let shared = catalogue.get("s").cloned();
        if let Some(entry) = shared {
            catalogue.adopt_shared("t", "s", entry);
        }
        assert_eq!(
            catalogue.get("t").and_then(|e| e.tool_vector_hex("m2", 0)),
            None
        );
        assert_eq!(catalogue.warm("t", "f").map(|e| e.tools.len()), Some(1));
    }

    #[test]
    fn a_change_is_persisted_once_and_a_load_only_remakes_vectors() {
        let mut catalogue = Catalogue::default();
        assert_eq!(catalogue.take_changed_blob(), None);
        catalogue.record_listing("s", "f", listing(&[(ListKind::Tools, &["a"])]), 1);
        assert!(catalogue.take_vectors_due());
        assert!(catalogue.take_changed_blob().is_some());
        assert_eq!(catalogue.take_changed_blob(), None);
        assert!(!catalogue.take_vectors_due());
        let blob = catalogue.to_blob();
        assert_eq!(catalogue.loaded(&blob, |_| None), Ok(()));
        assert_eq!(catalogue.take_changed_blob(), None);
        assert!(catalogue.take_vectors_due());
        assert!(!catalogue.take_vectors_due());
        assert!(!catalogue.forget("other"));
        assert_eq!(catalogue.take_changed_blob(), None);
        assert!(catalogue.forget("s"));
        assert!(catalogue.take_changed_blob().is_some());
    }
}
