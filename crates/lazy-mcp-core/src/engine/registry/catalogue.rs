//! The catalogue: what each server offers (tools, prompts, resources, templates),
//! learned once and persisted as a versioned JSON blob the host stores.

use crate::protocol::client_discover::{CacheHint, Era};
use crate::protocol::client_handshake::{InitializeOutcome, ListKind};
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Tag of the blob, so a foreign file is never mistaken for a catalogue.
pub const BLOB_FORMAT: &str = "lazy-mcp-catalogue";
/// Bump when the entry shape changes: older blobs are then ignored and rebuilt.
pub const BLOB_VERSION: u32 = 1;

/// Everything learned about one server in one handshake.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
}

/// Tool vectors as cached in the catalogue: reused only under the same model
/// version and the same tools.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolVectors {
    /// The embedding model's version.
    pub model: String,
    /// FNV-1a 64 (hex) of the entry's `tools` as JSON when the vectors were made.
    pub tools: String,
    /// Per tool, its int8 vector in hex ("" when no word of it is known).
    pub vectors: Vec<String>,
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

    pub fn list_mut(&mut self, kind: ListKind) -> &mut Vec<Value> {
        match kind {
            ListKind::Tools => &mut self.tools,
            ListKind::Prompts => &mut self.prompts,
            ListKind::Resources => &mut self.resources,
            ListKind::ResourceTemplates => &mut self.resource_templates,
        }
    }
}

/// All entries, by server name. Entries of servers absent from the current config
/// are kept (another workspace may use them) until a config diff removes the server.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalogue {
    pub entries: VecMap<String, CatalogueEntry>,
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
}
