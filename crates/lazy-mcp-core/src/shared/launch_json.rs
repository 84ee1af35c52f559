//! `SharedLaunch` read from an attach by hand (the owner reads it): one loop
//! over the object's members instead of the derived reader, whose field-name
//! visitor, array reader and slot per field cost the `.wasm` about 540 bytes a
//! field (bench/README.md "WASM size"). As the derive read it: camelCase
//! names, `key`, `rootsKey` and `rootsBound` required, the others optional,
//! `workspaceCwd` and `omitEnv` skipped (only the client reads them), unknown
//! members ignored. Unlike it: a member given twice, the last wins, and an
//! array is refused.

use super::launch::SharedLaunch;
use serde::de::{Deserializer, Error, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;

impl<'de> Deserialize<'de> for SharedLaunch {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(LaunchReader)
    }
}

struct LaunchReader;

impl<'de> Visitor<'de> for LaunchReader {
    type Value = SharedLaunch;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("struct SharedLaunch")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SharedLaunch, A::Error> {
        let (mut key, mut roots_key, mut roots_bound) = (None, None, None);
        let mut launch = SharedLaunch {
            key: String::new(),
            roots_key: String::new(),
            roots_bound: false,
            workspace_cwd: false,
            omit_env: Vec::new(),
            holder: String::new(),
            idle_timeout_ms: 0,
            adaptive_idle: false,
            repeatable: Vec::new(),
        };
        while let Some(name) = map.next_key::<Cow<'de, str>>()? {
            match &*name {
                "key" => key = Some(map.next_value()?),
                "rootsKey" => roots_key = Some(map.next_value()?),
                "rootsBound" => roots_bound = Some(map.next_value()?),
                "holder" => launch.holder = map.next_value()?,
                "idleTimeoutMs" => launch.idle_timeout_ms = map.next_value()?,
                "adaptiveIdle" => launch.adaptive_idle = map.next_value()?,
                "repeatable" => launch.repeatable = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        launch.key = key.ok_or_else(|| A::Error::missing_field("key"))?;
        launch.roots_key = roots_key.ok_or_else(|| A::Error::missing_field("rootsKey"))?;
        launch.roots_bound = roots_bound.ok_or_else(|| A::Error::missing_field("rootsBound"))?;
        Ok(launch)
    }
}
