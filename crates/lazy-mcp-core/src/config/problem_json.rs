//! `Problem` read by hand (the host sends problems back in a presentation
//! input or a report context): one loop over the object's members instead of
//! the derived reader (its field-name visitor and its reader from a JSON
//! array: bench/README.md "WASM size"). As the derive read it: camelCase
//! names, every field but `server` and `field` required (serde's "missing
//! field" error, in the derive's order), unknown members ignored, a member of
//! the wrong type serde's error at that member. Unlike it: a member given
//! twice, the last wins, and an array is refused.

use super::problem::{Problem, Severity};
use serde::de::{Deserializer, Error, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;

impl<'de> Deserialize<'de> for Problem {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ProblemReader)
    }
}

struct ProblemReader;

/// The required members, in the derive's order.
const REQUIRED: [&str; 5] = ["severity", "file", "line", "column", "message"];

impl<'de> Visitor<'de> for ProblemReader {
    type Value = Problem;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("struct Problem")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Problem, A::Error> {
        let mut problem = Problem {
            severity: Severity::Error,
            file: String::new(),
            line: 0,
            column: 0,
            server: None,
            field: None,
            message: String::new(),
        };
        // Bit i: `REQUIRED[i]` was seen.
        let mut seen = 0u8;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match &*key {
                "severity" => {
                    problem.severity = map.next_value()?;
                    seen |= 1;
                }
                "file" => {
                    problem.file = map.next_value()?;
                    seen |= 2;
                }
                "line" => {
                    problem.line = map.next_value()?;
                    seen |= 4;
                }
                "column" => {
                    problem.column = map.next_value()?;
                    seen |= 8;
                }
                "message" => {
                    problem.message = map.next_value()?;
                    seen |= 16;
                }
                "server" => problem.server = map.next_value()?,
                "field" => problem.field = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        for (bit, name) in REQUIRED.into_iter().enumerate() {
            if seen & (1 << bit) == 0 {
                return Err(A::Error::missing_field(name));
            }
        }
        Ok(problem)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// The reader serde derived before (the same fields and attributes).
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Derived {
        severity: Severity,
        file: String,
        line: u32,
        column: u32,
        #[serde(default)]
        server: Option<String>,
        #[serde(default)]
        field: Option<String>,
        message: String,
    }

    fn both(text: &str) -> (Result<Problem, String>, Result<Problem, String>) {
        let hand = serde_json::from_str::<Problem>(text).map_err(|e| e.to_string());
        let derived = serde_json::from_str::<Derived>(text)
            .map(|d| Problem {
                severity: d.severity,
                file: d.file,
                line: d.line,
                column: d.column,
                server: d.server,
                field: d.field,
                message: d.message,
            })
            // The derive names the type it was derived for.
            .map_err(|e| e.to_string().replace("struct Derived", "struct Problem"));
        (hand, derived)
    }

    fn full() -> Value {
        json!({"severity": "warning", "file": "/w/.mcp.json", "line": 3, "column": 7,
               "server": "a", "field": "args[2]", "message": "m"})
    }

    #[test]
    fn every_member_reads_as_the_derive_did() {
        let (hand, derived) = both(&full().to_string());
        assert_eq!(hand, derived);
        let problem = hand.unwrap();
        // A member the hand reader forgot would keep its placeholder.
        assert_eq!(serde_json::to_value(&problem).unwrap(), full());
        let Value::Object(members) = full() else {
            unreachable!()
        };
        for (name, _) in members {
            let mut without = full();
            without.as_object_mut().unwrap().remove(&name);
            let (hand, derived) = both(&without.to_string());
            assert_eq!(hand, derived, "{name}");
        }
    }

    #[test]
    fn missing_members_unknown_members_and_wrong_types_read_as_the_derive_did() {
        let mut cases: Vec<String> = vec!["{}".into(), "null".into(), r#"{"file": "f""#.into()];
        for (name, wrong) in [
            ("severity", json!("fatal")),
            ("file", json!(null)),
            ("line", json!(-1)),
            ("column", json!(4294967296u64)),
            ("server", json!(null)),
            ("field", json!(1)),
            ("message", json!([])),
            ("other", json!({"x": 1})),
        ] {
            let mut problem = full();
            problem[name] = wrong;
            cases.push(problem.to_string());
        }
        cases.push(json!({"message": "m", "column": 1}).to_string());
        for text in cases {
            let (hand, derived) = both(&text);
            assert_eq!(hand, derived, "{text}");
        }
        let (hand, _) = both(r#"{"message": "m", "file": "f"}"#);
        assert!(hand.unwrap_err().starts_with("missing field `severity`"));
    }

    #[test]
    fn what_the_hand_reader_reads_differently() {
        let (hand, derived) = both(
            r#"{"severity": "info", "file": "", "line": 1, "line": 2, "column": 0, "message": ""}"#,
        );
        assert_eq!(hand.unwrap().line, 2);
        assert!(derived.unwrap_err().starts_with("duplicate field `line`"));
        let (hand, _) = both(r#"["info", "", 1, 0, null, null, ""]"#);
        assert!(hand
            .unwrap_err()
            .starts_with("invalid type: sequence, expected struct Problem"));
    }
}
