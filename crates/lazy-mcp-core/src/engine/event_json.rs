//! An event's JSON form, `{"type": "...", ...fields}` (docs/engine-events-effects.md),
//! read and written without serde's internally tagged enums. Those buffer the
//! whole object into serde's `Content` before reading the variant, which
//! doubled every variant's reader in the WASM build (87 KB of the `.wasm`,
//! bench/README.md "WASM size"). Here the tag is read first, then the same
//! text is read again as that variant's fields (`type` among them, ignored),
//! straight from the JSON text.

use super::events::Event;
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, VariantAccess, Visitor,
};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::borrow::Cow;

impl Event {
    /// Reads one event from its JSON form. Unknown fields are ignored; a missing
    /// or unknown `type` is an error naming it, as serde words it.
    pub fn from_json(text: &str) -> Result<Event, serde_json::Error> {
        #[derive(Deserialize)]
        struct Tag<'a> {
            #[serde(rename = "type", borrow)]
            tag: Cow<'a, str>,
        }
        let Tag { tag } = serde_json::from_str(text)?;
        let mut fields = serde_json::Deserializer::from_str(text);
        let event = Event::deserialize(Tagged {
            tag: &tag,
            fields: &mut fields,
        })?;
        fields.end()?;
        Ok(event)
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

/// The variant named by `tag`, its fields read from `fields`.
struct Tagged<'t, 'f, 'de> {
    tag: &'t str,
    fields: &'f mut serde_json::Deserializer<serde_json::de::StrRead<'de>>,
}

impl<'de> Deserializer<'de> for Tagged<'_, '_, 'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("an event is read as an enum"))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_enum(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

impl<'de> EnumAccess<'de> for Tagged<'_, '_, 'de> {
    type Error = serde_json::Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self), Self::Error> {
        let name: de::value::StrDeserializer<'_, serde_json::Error> = self.tag.into_deserializer();
        Ok((seed.deserialize(name)?, self))
    }
}

impl<'de> VariantAccess<'de> for Tagged<'_, '_, 'de> {
    type Error = serde_json::Error;

    fn unit_variant(self) -> Result<(), Self::Error> {
        de::IgnoredAny::deserialize(&mut *self.fields).map(|_| ())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<T::Value, Self::Error> {
        seed.deserialize(&mut *self.fields)
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.fields.deserialize_tuple(len, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.fields.deserialize_struct("", fields, visitor)
    }
}
