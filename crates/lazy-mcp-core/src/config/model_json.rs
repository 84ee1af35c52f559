//! `Transport` and `ToolFilter` read from JSON inside other JSON (a server's
//! `transport` and `tools`): through one flat struct of every variant's fields
//! and the tag, not serde's `Content` buffer (`crate::tagged_json`). The same
//! JSON reads as with `#[serde(tag = ...)]` (kept for writing and the
//! contract); a variant's missing field is serde's "missing field" error.

use super::model::{ToolFilter, Transport};
use crate::tagged_json::required;
use crate::vec_map::VecMap;
use serde::de::{Deserializer, Error};
use serde::Deserialize;
use std::borrow::Cow;

impl<'de> Deserialize<'de> for Transport {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Fields<'a> {
            #[serde(rename = "type", borrow)]
            kind: Cow<'a, str>,
            command: Option<String>,
            #[serde(default)]
            args: Vec<String>,
            #[serde(default)]
            env: VecMap<String, String>,
            #[serde(default)]
            cwd: Option<String>,
            #[serde(default)]
            env_file: Option<String>,
            url: Option<String>,
            #[serde(default)]
            headers: VecMap<String, String>,
        }
        let fields = Fields::deserialize(deserializer)?;
        Ok(match &*fields.kind {
            "stdio" => Transport::Stdio {
                command: required(fields.command, "command")?,
                args: fields.args,
                env: fields.env,
                cwd: fields.cwd,
                env_file: fields.env_file,
            },
            "http" => Transport::Http {
                url: required(fields.url, "url")?,
                headers: fields.headers,
            },
            "sse" => Transport::Sse {
                url: required(fields.url, "url")?,
                headers: fields.headers,
            },
            other => return Err(D::Error::unknown_variant(other, &["stdio", "http", "sse"])),
        })
    }
}

impl<'de> Deserialize<'de> for ToolFilter {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Fields<'a> {
            #[serde(borrow)]
            kind: Cow<'a, str>,
            names: Option<Vec<String>>,
        }
        let fields = Fields::deserialize(deserializer)?;
        Ok(match &*fields.kind {
            "all" => ToolFilter::All,
            "only" => ToolFilter::Only(required(fields.names, "names")?),
            other => return Err(D::Error::unknown_variant(other, &["all", "only"])),
        })
    }
}
