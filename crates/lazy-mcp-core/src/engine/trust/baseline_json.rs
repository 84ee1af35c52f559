//! `Baseline` (one server's approved definitions in `approved-definitions.json`)
//! read by hand: one loop over the object's members instead of the derived
//! reader, whose field-name visitor, array reader and slot per field cost the
//! `.wasm` more than the loop (bench/README.md "WASM size"). As the derive read
//! it: camelCase names, `server` required, the others optional, unknown
//! members ignored, a member of the wrong type serde's error at that member.
//! Unlike it: a member given twice, the last wins, and an array is refused.

use super::approved_definitions::Baseline;
use serde::de::{Deserializer, Error, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;

impl<'de> Deserialize<'de> for Baseline {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(BaselineReader)
    }
}

struct BaselineReader;

impl<'de> Visitor<'de> for BaselineReader {
    type Value = Baseline;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("struct Baseline")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Baseline, A::Error> {
        let mut server = None;
        let mut baseline = Baseline::default();
        while let Some(name) = map.next_key::<Cow<'de, str>>()? {
            match &*name {
                "server" => server = Some(map.next_value()?),
                "approvedAtMs" => baseline.approved_at_ms = map.next_value()?,
                "instructions" => baseline.instructions = map.next_value()?,
                "tools" => baseline.tools = map.next_value()?,
                "prompts" => baseline.prompts = map.next_value()?,
                "resourceTemplates" => baseline.resource_templates = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        baseline.server = server.ok_or_else(|| A::Error::missing_field("server"))?;
        Ok(baseline)
    }
}

#[cfg(test)]
mod tests {
    use super::super::approved_definitions::ApprovedItem;
    use super::*;
    use crate::vec_map::VecMap;
    use serde::Serialize;
    use serde_json::{json, Value};

    /// The reader serde derived before, to compare the hand reader against.
    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Derived {
        server: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        approved_at_ms: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        instructions: Option<String>,
        #[serde(default)]
        tools: VecMap<String, ApprovedItem>,
        #[serde(default)]
        prompts: VecMap<String, ApprovedItem>,
        #[serde(default)]
        resource_templates: VecMap<String, ApprovedItem>,
    }

    fn both(text: &str) -> (Result<Value, String>, Result<Value, String>) {
        crate::hand_reader_tests::read_both::<Baseline, Derived>(text, "Baseline")
    }

    fn item(hash: &str) -> Value {
        json!({ "hash": hash, "definition": { "name": hash } })
    }

    /// A baseline whose every member is set.
    fn full() -> Value {
        json!({
            "server": "files",
            "approvedAtMs": 12,
            "instructions": "Use it.",
            "tools": { "read": item("t") },
            "prompts": { "ask": item("p") },
            "resourceTemplates": { "doc": item("r") },
        })
    }

    #[test]
    fn every_member_reads_as_the_derive_did() {
        let (hand, derived) = both(&full().to_string());
        assert_eq!(hand, derived);
        let hand = hand.unwrap();
        let Value::Object(members) = full() else {
            unreachable!()
        };
        // A member the hand reader forgot would come back empty.
        let empty = serde_json::to_value(Baseline::default()).unwrap();
        for (name, value) in &members {
            assert_eq!(hand[name], *value, "{name}");
            assert_ne!(hand[name], empty[name], "{name}");
            let one = json!({ "server": "s", name.clone(): value }).to_string();
            let (hand, derived) = both(&one);
            assert_eq!(hand, derived, "{name}");
        }
    }

    #[test]
    fn defaults_unknown_members_and_wrong_types_read_as_the_derive_did() {
        let texts: Vec<String> = [
            "{}",
            r#"{"tools": {}}"#,
            r#"{"server": "s"}"#,
            r#"{"server": "s", "unknown": {"a": [1]}, "approvedAtMs": 3}"#,
            r#"{"server": "s", "approvedAtMs": null, "instructions": null}"#,
            r#"{"server": "s", "approvedAtMs": "soon"}"#,
            r#"{"server": 1}"#,
            r#"{"server": "s", "tools": []}"#,
            r#"{"server": "s", "prompts": {"a": {"hash": "h"}}}"#,
            r#"{"server": "s", "resourceTemplates": {"a": 1}}"#,
            "null",
            "[]",
            r#"["s"]"#,
            r#"{"server": "s""#,
        ]
        .iter()
        .map(|t| t.to_string())
        .collect();
        crate::hand_reader_tests::agree_with_derive(&texts, both, "Baseline");
    }
}
