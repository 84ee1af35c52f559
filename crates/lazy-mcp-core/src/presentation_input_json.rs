//! `PresentationInput` read from the host's JSON by hand: one loop over the
//! object's members instead of the derived reader (its field-name visitor and
//! its reader from a JSON array: bench/README.md "WASM size"). As the derive
//! read it: camelCase names, every field optional, unknown members ignored, a
//! member of the wrong type serde's error at that member. Unlike it: a member
//! given twice, the last wins, and an array is refused.

use crate::problem_presentation::PresentationInput;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;

impl<'de> Deserialize<'de> for PresentationInput {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(InputReader)
    }
}

struct InputReader;

impl<'de> Visitor<'de> for InputReader {
    type Value = PresentationInput;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("struct PresentationInput")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PresentationInput, A::Error> {
        let mut input = PresentationInput::default();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match &*key {
                "problems" => input.problems = map.next_value()?,
                "files" => input.files = map.next_value()?,
                "openDocuments" => input.open_documents = map.next_value()?,
                "previous" => input.previous = map.next_value()?,
                "home" => input.home = map.next_value()?,
                "workspaceFolders" => input.workspace_folders = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{normalize, FileReport, NormalizeInput, Problem};
    use crate::problem_presentation::OpenDocument;
    use serde::Serialize;
    use serde_json::{json, Value};

    /// The reader serde derived before, to compare the hand reader against.
    #[derive(Default, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase", default)]
    struct Derived {
        problems: Vec<Problem>,
        files: Vec<FileReport>,
        open_documents: Vec<OpenDocument>,
        previous: Vec<Problem>,
        home: String,
        workspace_folders: Vec<String>,
    }

    fn both(text: &str) -> (Result<Value, String>, Result<Value, String>) {
        crate::hand_reader_tests::read_both::<PresentationInput, Derived>(text, "PresentationInput")
    }

    /// An input whose every member is set, from a real config's normalization.
    fn full() -> Value {
        let input: NormalizeInput = serde_json::from_value(json!({
            "home": "/h", "workspaceFolders": ["/w"], "platform": "linux", "env": {},
            "files": [{"path": "/w/.mcp.json", "content": "{\"mcpServers\": {\"a\": {}}}"}]
        }))
        .unwrap();
        let result = normalize(&input);
        serde_json::to_value(PresentationInput {
            previous: result.problems.clone(),
            problems: result.problems,
            files: result.files,
            open_documents: vec![OpenDocument {
                path: "/w/.mcp.json".into(),
                language_id: "json".into(),
                in_tab: true,
            }],
            home: "/h".into(),
            workspace_folders: vec!["/w".into()],
        })
        .unwrap()
    }

    #[test]
    fn every_member_reads_as_the_derive_did() {
        let (hand, derived) = both(&full().to_string());
        assert_eq!(hand, derived);
        let hand = hand.unwrap();
        let empty = serde_json::to_value(PresentationInput::default()).unwrap();
        let Value::Object(members) = full() else {
            unreachable!()
        };
        for (name, value) in members {
            // A member the hand reader forgot would come back empty.
            assert_ne!(hand[&name], empty[&name], "{name}");
            let (hand, derived) = both(&json!({ name.clone(): value }).to_string());
            assert_eq!(hand, derived, "{name}");
        }
    }

    #[test]
    fn defaults_unknown_members_and_wrong_types_read_as_the_derive_did() {
        for text in [
            "{}",
            r#"{"unknown": {"a": [1]}, "home": "/h"}"#,
            r#"{"home": null}"#,
            r#"{"openDocuments": [{"path": 1}]}"#,
            r#"{"problems": [{"message": "m"}]}"#,
            r#"{"workspaceFolders": "/w"}"#,
            "null",
            r#"{"home": "/h""#,
        ] {
            let (hand, derived) = both(text);
            assert_eq!(hand, derived, "{text}");
        }
        // An array: refused (the derive read the fields by position).
        let (hand, derived) = both("[[]]");
        assert!(hand
            .unwrap_err()
            .starts_with("invalid type: sequence, expected struct PresentationInput"));
        assert!(derived.is_ok());
    }
}
