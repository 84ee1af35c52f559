//! Readers of the events whose only field is one string or one list of
//! strings, shared by all of them (one compiled reader per field type instead
//! of one derived reader per event: bench/README.md "WASM size"). Apart from
//! `event_json.rs` because `events.rs` names them in its serde attributes and
//! `event_json.rs` imports `events.rs` (no import cycle). Imports only serde.

use serde::de::{Deserializer, Error, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;

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

/// The events whose fields are a connection and an HTTP status (`httpStatus`,
/// `connectAnswered`) or a connection only (`connectStarted`), read by one
/// reader instead of a derived one each; serde's "missing field" and
/// "duplicate field" errors, as the derived readers word them.
pub(super) fn conn_status<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<(u64, u16), D::Error> {
    let (conn, status) = conn_and_status(deserializer)?;
    Ok((
        conn,
        status.ok_or_else(|| D::Error::missing_field("status"))?,
    ))
}

pub(super) fn only_conn<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    conn_and_status(deserializer).map(|(conn, _)| conn)
}

fn conn_and_status<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<(u64, Option<u16>), D::Error> {
    struct ConnStatus;
    impl<'de> Visitor<'de> for ConnStatus {
        type Value = (u64, Option<u16>);

        fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
            formatter.write_str("an object with `conn`")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let (mut conn, mut status) = (None, None);
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                match &*key {
                    "conn" if conn.is_some() => return Err(A::Error::duplicate_field("conn")),
                    "conn" => conn = Some(map.next_value()?),
                    "status" if status.is_some() => {
                        return Err(A::Error::duplicate_field("status"))
                    }
                    "status" => status = Some(map.next_value()?),
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            let conn = conn.ok_or_else(|| A::Error::missing_field("conn"))?;
            Ok((conn, status))
        }
    }
    deserializer.deserialize_map(ConnStatus)
}
