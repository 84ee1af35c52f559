//! `{"type": "...", ...fields}` JSON read into an enum without serde's
//! internally tagged enums (`#[serde(tag = "type")]`). Those buffer the whole
//! object into serde's `Content` before reading the variant, which doubles
//! every variant's reader in the `.wasm` (bench/README.md "WASM size"). Here
//! the tag is read first, then the same text is read again as that variant's
//! fields (`type` among them, ignored), straight from the JSON text. The enum
//! derives `Deserialize` externally tagged (no `tag` attribute).

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, VariantAccess, Visitor,
};
use serde::Deserialize;
use std::borrow::Cow;

/// Reads one `{"type": "variant", ...fields}` object as the enum `T`. Unknown
/// fields are ignored; a missing or unknown `type` is an error naming it, as
/// serde words it.
pub fn from_tagged_json<'de, T: Deserialize<'de>>(text: &'de str) -> Result<T, serde_json::Error> {
    #[derive(Deserialize)]
    struct Tag<'a> {
        #[serde(rename = "type", borrow)]
        tag: Cow<'a, str>,
    }
    let Tag { tag } = serde_json::from_str(text)?;
    let mut fields = serde_json::Deserializer::from_str(text);
    let value = T::deserialize(Tagged {
        tag: &tag,
        fields: &mut fields,
    })?;
    fields.end()?;
    Ok(value)
}

/// The variant named by `tag`, its fields read from `fields`.
struct Tagged<'t, 'f, 'de> {
    tag: &'t str,
    fields: &'f mut serde_json::Deserializer<serde_json::de::StrRead<'de>>,
}

impl<'de> Deserializer<'de> for Tagged<'_, '_, 'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("a tagged object is read as an enum"))
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
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        // As a map only: the fields are the tagged object's own, never an array,
        // and no variant's array reader is compiled.
        self.fields.deserialize_map(visitor)
    }
}

/// `value`, or serde's "missing field" error naming `field`: a tagged type's
/// variant read from one flat struct of every variant's fields (the readers of
/// `Transport`, `ToolFilter` in `config/model_json.rs` and `Endpoint` in
/// `engine/event_json.rs`), instead of serde's `Content` buffer.
pub fn required<T, E: de::Error>(value: Option<T>, field: &'static str) -> Result<T, E> {
    value.ok_or_else(|| E::missing_field(field))
}
