//! `CatalogueEntry` read from the persisted catalogue by hand: one loop over
//! the object's members instead of the derived reader (its field-name visitor
//! and its reader from a JSON array: bench/README.md "WASM size"). As the
//! derive read it: camelCase names, `fingerprint`, `cataloguedAtMs` and
//! `initialize` required (serde's "missing field" error, in that order), the
//! rest optional, unknown members ignored, a member of the wrong type serde's
//! error at that member (the blob is then rebuilt). Unlike it: a member given
//! twice, the last wins, and an array is refused.

use super::catalogue::CatalogueEntry;
use crate::protocol::client_handshake::InitializeOutcome;
use crate::protocol::methods::INITIALIZE;
use serde::de::{Deserializer, Error, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;

impl<'de> Deserialize<'de> for CatalogueEntry {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(EntryReader)
    }
}

struct EntryReader;

impl<'de> Visitor<'de> for EntryReader {
    type Value = CatalogueEntry;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("struct CatalogueEntry")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CatalogueEntry, A::Error> {
        let mut entry = CatalogueEntry::new(
            String::new(),
            0,
            Default::default(),
            InitializeOutcome::default(),
            None,
        );
        // The required members seen: fingerprint, cataloguedAtMs, initialize.
        let mut seen = [false; 3];
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match &*key {
                "fingerprint" => {
                    entry.fingerprint = map.next_value()?;
                    seen[0] = true;
                }
                "cataloguedAtMs" => {
                    entry.catalogued_at_ms = map.next_value()?;
                    seen[1] = true;
                }
                // Named after the method whose result it holds.
                INITIALIZE => {
                    entry.initialize = map.next_value()?;
                    seen[2] = true;
                }
                "era" => entry.era = map.next_value()?,
                "cache" => entry.cache = map.next_value()?,
                "tools" => entry.tools = map.next_value()?,
                "prompts" => entry.prompts = map.next_value()?,
                "resources" => entry.resources = map.next_value()?,
                "resourceTemplates" => entry.resource_templates = map.next_value()?,
                "resourceMetadataUrl" => entry.resource_metadata_url = map.next_value()?,
                "toolVectors" => entry.tool_vectors = map.next_value()?,
                "asksRoots" => entry.asks_roots = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        for (seen, name) in seen
            .into_iter()
            .zip(["fingerprint", "cataloguedAtMs", INITIALIZE])
        {
            if !seen {
                return Err(A::Error::missing_field(name));
            }
        }
        Ok(entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::registry::catalogue::ToolVectors;
    use crate::protocol::client_discover::{CacheHint, Era};
    use serde_json::{json, Value};

    /// The reader serde derived before (the same fields and attributes), to
    /// compare the hand reader against.
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Derived {
        fingerprint: String,
        catalogued_at_ms: u64,
        #[serde(default)]
        era: Era,
        initialize: InitializeOutcome,
        #[serde(default)]
        cache: Option<CacheHint>,
        #[serde(default)]
        tools: Vec<Value>,
        #[serde(default)]
        prompts: Vec<Value>,
        #[serde(default)]
        resources: Vec<Value>,
        #[serde(default)]
        resource_templates: Vec<Value>,
        #[serde(default)]
        resource_metadata_url: Option<String>,
        #[serde(default)]
        tool_vectors: Option<ToolVectors>,
        #[serde(default)]
        asks_roots: Option<bool>,
    }

    fn both(
        text: &str,
    ) -> (
        Result<CatalogueEntry, String>,
        Result<CatalogueEntry, String>,
    ) {
        let hand = serde_json::from_str::<CatalogueEntry>(text).map_err(|e| e.to_string());
        let derived = serde_json::from_str::<Derived>(text)
            .map(|d| CatalogueEntry {
                fingerprint: d.fingerprint,
                catalogued_at_ms: d.catalogued_at_ms,
                era: d.era,
                initialize: d.initialize,
                cache: d.cache,
                tools: d.tools,
                prompts: d.prompts,
                resources: d.resources,
                resource_templates: d.resource_templates,
                resource_metadata_url: d.resource_metadata_url,
                tool_vectors: d.tool_vectors,
                asks_roots: d.asks_roots,
            })
            // The derive names the type it was derived for.
            .map_err(|e| {
                e.to_string()
                    .replace("struct Derived", "struct CatalogueEntry")
            });
        (hand, derived)
    }

    /// Every member set to a value that is not its default.
    fn full() -> Value {
        json!({
            "fingerprint": "f",
            "cataloguedAtMs": 7,
            "era": "modern",
            "initialize": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                           "serverInfo": {"name": "s"}, "instructions": "use it"},
            "cache": {"ttlMs": 10, "cacheScope": "private"},
            "tools": [{"name": "t"}],
            "prompts": [{"name": "p"}],
            "resources": [{"uri": "r"}],
            "resourceTemplates": [{"uriTemplate": "u"}],
            "resourceMetadataUrl": "https://a/.well-known/oauth-protected-resource",
            "toolVectors": {"model": "m", "tools": "h", "vectors": ["00"]},
            "asksRoots": false,
        })
    }

    #[test]
    fn every_member_reads_as_the_derive_did() {
        let text = full().to_string();
        let (hand, derived) = both(&text);
        assert!(hand.is_ok(), "{hand:?}");
        assert_eq!(hand, derived);
        // Round trip through the writer.
        let entry = hand.unwrap();
        let written = serde_json::to_string(&entry).unwrap();
        assert_eq!(
            serde_json::from_str::<CatalogueEntry>(&written).unwrap(),
            entry
        );
        // Each optional member alone beside the required ones: read, and read
        // as the derive did (a member the hand reader forgot stays empty).
        let Value::Object(members) = full() else {
            unreachable!()
        };
        let required =
            json!({"fingerprint": "f", "cataloguedAtMs": 7, "initialize": full()["initialize"]});
        let (bare, _) = both(&required.to_string());
        for (name, value) in members {
            if required.get(&name).is_some() {
                continue; // each one's absence: the test below
            }
            let mut one = required.clone();
            one[&name] = value;
            let (hand, derived) = both(&one.to_string());
            assert_ne!(hand, bare, "{name}");
            assert_eq!(hand, derived, "{name}");
        }
    }

    #[test]
    fn missing_members_unknown_members_and_wrong_types_read_as_the_derive_did() {
        let mut cases = vec![];
        for name in ["fingerprint", "cataloguedAtMs", "initialize"] {
            let mut without = full();
            without.as_object_mut().unwrap().remove(name);
            cases.push(without.to_string());
        }
        for (name, wrong) in [
            ("fingerprint", json!(1)),
            ("cataloguedAtMs", json!(-1)),
            ("cataloguedAtMs", json!("now")),
            ("era", json!("future")),
            ("era", json!(null)),
            ("initialize", json!({})),
            ("cache", json!(null)),
            ("cache", json!({"ttlMs": 1})),
            ("tools", json!({})),
            ("asksRoots", json!("yes")),
            ("toolVectors", json!(null)),
            ("other", json!({"x": [1, 2]})),
        ] {
            let mut entry = full();
            entry[name] = wrong;
            cases.push(entry.to_string());
        }
        cases.extend(["{}".into(), "null".into(), r#"{"fingerprint": "f""#.into()]);
        for text in cases {
            let (hand, derived) = both(&text);
            assert_eq!(hand, derived, "{text}");
        }
        let (hand, _) = both(r#"{"cataloguedAtMs": 1}"#);
        assert!(hand.unwrap_err().starts_with("missing field `fingerprint`"));
    }

    #[test]
    fn what_the_hand_reader_reads_differently() {
        // A member given twice: the last wins (the derive refused it).
        let mut text = full().to_string();
        text.insert_str(1, r#""cataloguedAtMs": 3, "#);
        let (hand, derived) = both(&text);
        assert_eq!(hand.unwrap().catalogued_at_ms, 7);
        assert!(derived
            .unwrap_err()
            .starts_with("duplicate field `cataloguedAtMs`"));
        // An array: refused (the derive read the fields by position).
        let (hand, _) = both(r#"["f", 7, "legacy", {"protocolVersion": "v"}]"#);
        assert!(hand
            .unwrap_err()
            .starts_with("invalid type: sequence, expected struct CatalogueEntry"));
    }
}
