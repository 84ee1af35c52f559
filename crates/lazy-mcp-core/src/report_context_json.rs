//! `ReportContext` read from the host's JSON by hand: one loop over the
//! object's members instead of the derived reader (its field-name visitor and
//! its reader from a JSON array cost the `.wasm` about 5 KB: bench/README.md
//! "WASM size"). As the derive read it: camelCase names, every field optional,
//! unknown members ignored, a member of the wrong type serde's error at that
//! member (the callers then use an empty context). Unlike it: a member given
//! twice, the last wins, and an array is refused.

use crate::diagnostics::ReportContext;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;

impl<'de> Deserialize<'de> for ReportContext {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ContextReader)
    }
}

struct ContextReader;

impl<'de> Visitor<'de> for ContextReader {
    type Value = ReportContext;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("struct ReportContext")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ReportContext, A::Error> {
        let mut context = ReportContext::default();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match &*key {
                "host" => context.host = map.next_value()?,
                "workspaceFolders" => context.workspace_folders = map.next_value()?,
                "home" => context.home = map.next_value()?,
                "links" => context.links = map.next_value()?,
                "nowMs" => context.now_ms = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(context)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;
    use serde_json::{json, Value};

    /// The reader serde derived before, to compare the hand reader against.
    #[derive(Default, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase", default)]
    struct Derived {
        host: String,
        workspace_folders: Vec<String>,
        home: String,
        links: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        now_ms: Option<u64>,
    }

    fn both(text: &str) -> (Result<Value, String>, Result<Value, String>) {
        crate::hand_reader_tests::read_both::<ReportContext, Derived>(text, "ReportContext")
    }

    /// A context whose every member is set.
    fn full() -> Value {
        serde_json::to_value(ReportContext {
            host: "Visual Studio Code 1.139.1".into(),
            workspace_folders: vec!["/w".into()],
            home: "/h".into(),
            links: true,
            now_ms: Some(12),
        })
        .unwrap()
    }

    #[test]
    fn every_member_reads_as_the_derive_did() {
        let Value::Object(members) = full() else {
            unreachable!()
        };
        let (hand, derived) = both(&Value::Object(members.clone()).to_string());
        assert_eq!(hand, derived);
        // A member the hand reader forgot would come back empty.
        let hand = hand.unwrap();
        for (name, value) in &members {
            let empty = serde_json::to_value(ReportContext::default()).unwrap();
            assert_ne!(hand[name], empty[name], "{name}");
            let one = json!({ name.clone(): value }).to_string();
            let (hand, derived) = both(&one);
            assert_eq!(hand, derived, "{name}");
        }
    }

    #[test]
    fn defaults_unknown_members_and_wrong_types_read_as_the_derive_did() {
        for text in [
            "{}",
            r#"{"unknown": {"a": [1]}, "links": true}"#,
            r#"{"nowMs": null}"#,
            r#"{"nowMs": "soon"}"#,
            r#"{"links": 1}"#,
            r#"{"workspaceFolders": {}}"#,
            // What hosts sent before the engine kept its config report: ignored.
            r#"{"servers": [{"name": "a"}], "problems": {}, "host": "h"}"#,
            "null",
            "[]",
            r#"{"host": "a""#,
        ] {
            let (hand, derived) = both(text);
            if text == "[]" {
                // An array: refused (the derive read the fields by position).
                assert!(hand
                    .unwrap_err()
                    .starts_with("invalid type: sequence, expected struct ReportContext"));
                assert!(derived.is_ok());
            } else {
                assert_eq!(hand, derived, "{text}");
            }
        }
    }
}
