//! An event's JSON form, `{"type": "...", ...fields}` (docs/engine-events-effects.md),
//! read and written without serde's internally tagged enums. Those buffer the
//! whole object into serde's `Content` before reading the variant, which
//! doubled every variant's reader in the WASM build (87 KB of the `.wasm`,
//! bench/README.md "WASM size"). Read with `crate::tagged_json`: the tag
//! first, then the same text again as that variant's fields.

use super::events::{Endpoint, Event};
use crate::tagged_json::required;
use serde::de::{Deserializer, Error};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::borrow::Cow;

impl Event {
    /// Reads one event from its JSON form. Unknown fields are ignored; a missing
    /// or unknown `type` is an error naming it, as serde words it.
    pub fn from_json(text: &str) -> Result<Event, serde_json::Error> {
        crate::tagged_json::from_tagged_json(text)
    }

    /// The JSON form [`Event::from_json`] reads (what the host sends).
    pub fn to_json(&self) -> String {
        let tagged = match serde_json::to_value(self) {
            // A struct variant: `{"name": {fields}}` → `{"type": "name", fields}`.
            Ok(Value::Object(outer)) => {
                let mut out = Map::new();
                for (name, fields) in outer {
                    out.insert("type".into(), Value::String(name));
                    if let Value::Object(fields) = fields {
                        out.extend(fields);
                    }
                }
                out
            }
            // A unit variant: `"name"`.
            Ok(name @ Value::String(_)) => Map::from_iter([("type".to_string(), name)]),
            _ => Map::new(),
        };
        Value::Object(tagged).to_string()
    }
}

/// A client's `endpoint` read through one flat struct (`crate::tagged_json`),
/// not serde's `Content` buffer; written as `#[serde(tag = "kind")]`.
impl<'de> Deserialize<'de> for Endpoint {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Fields<'a> {
            #[serde(borrow)]
            kind: Cow<'a, str>,
            name: Option<String>,
        }
        let fields = Fields::deserialize(deserializer)?;
        Ok(match &*fields.kind {
            "server" => Endpoint::Server {
                name: required(fields.name, "name")?,
            },
            "aggregate" => Endpoint::Aggregate,
            other => return Err(D::Error::unknown_variant(other, &["server", "aggregate"])),
        })
    }
}
