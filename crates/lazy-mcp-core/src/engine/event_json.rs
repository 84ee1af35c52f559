//! An event's JSON form, `{"type": "...", ...fields}` (docs/engine-events-effects.md),
//! read and written without serde's internally tagged enums. Those buffer the
//! whole object into serde's `Content` before reading the variant, which
//! doubled every variant's reader in the WASM build (87 KB of the `.wasm`,
//! bench/README.md "WASM size"). Read with `crate::tagged_json`: the tag
//! first, then the same text again as that variant's fields.

use super::events::{Endpoint, Event};
use crate::tagged_json::required;
use serde::de::{Deserializer, Error, IgnoredAny, MapAccess, Visitor};
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

/// An event whose only field is one string or one list of strings (`signIn`,
/// `enable`, `clientDisconnected`, `tokensAvailable`, `dismissSignIn`, …) is
/// read by [`one_field`], one reader per field type, instead of a derived
/// reader per variant (about 0.5 KB of `.wasm` each, bench/README.md "WASM size").
pub(super) fn only_server<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    one_field(deserializer, "server", false)
}

pub(super) fn only_client<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    one_field(deserializer, "client", false)
}

pub(super) fn only_url<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    one_field(deserializer, "url", false)
}

pub(super) fn only_blob<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    one_field(deserializer, "blob", false)
}

pub(super) fn only_servers<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<String>, D::Error> {
    one_field(deserializer, "servers", false)
}

pub(super) fn only_folders<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<String>, D::Error> {
    one_field(deserializer, "folders", false)
}

/// `paths` may be left out (`#[serde(default)]` before): empty.
pub(super) fn only_paths<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<String>, D::Error> {
    one_field(deserializer, "paths", true)
}

/// The object's member `name` as `T`, other members ignored; serde's
/// "missing field" (unless `optional`: `T::default()`) and "duplicate field"
/// errors, as the derived readers word them.
fn one_field<'de, D, T>(deserializer: D, name: &'static str, optional: bool) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    struct OneField<T> {
        name: &'static str,
        optional: bool,
        value: std::marker::PhantomData<T>,
    }
    impl<'de, T: Deserialize<'de> + Default> Visitor<'de> for OneField<T> {
        type Value = T;

        fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(formatter, "an object with `{}`", self.name)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
            let mut value = None;
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                if key != self.name {
                    map.next_value::<IgnoredAny>()?;
                } else if value.is_some() {
                    return Err(A::Error::duplicate_field(self.name));
                } else {
                    value = Some(map.next_value()?);
                }
            }
            match value {
                Some(value) => Ok(value),
                None if self.optional => Ok(T::default()),
                None => Err(A::Error::missing_field(self.name)),
            }
        }
    }
    deserializer.deserialize_map(OneField {
        name,
        optional,
        value: std::marker::PhantomData,
    })
}
