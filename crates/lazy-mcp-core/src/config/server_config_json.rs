//! `ServerConfig` read by hand: one loop over the object's members instead of
//! the derived reader, whose field-name visitor, array reader and slot per
//! field made it the largest derived reader left in the `.wasm`
//! (bench/README.md "WASM size"). As the derive read it: camelCase names,
//! `timeoutMs`, `toolExposure`, `oauth`, `secretValues` and `readFiles`
//! optional, the others required (the first missing one in the derive's order
//! is serde's "missing field" error), unknown members ignored, a member of the
//! wrong type serde's error at that member. Unlike it: a member given twice,
//! the last wins, and an array is refused.

use super::model::ServerConfig;
use serde::de::{Deserializer, Error, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;

impl<'de> Deserialize<'de> for ServerConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ServerConfigReader)
    }
}

struct ServerConfigReader;

fn required<T, E: Error>(value: Option<T>, name: &'static str) -> Result<T, E> {
    value.ok_or_else(|| E::missing_field(name))
}

impl<'de> Visitor<'de> for ServerConfigReader {
    type Value = ServerConfig;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("struct ServerConfig")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ServerConfig, A::Error> {
        let (mut name, mut transport, mut enabled, mut auto_connect) = (None, None, None, None);
        let (mut tools, mut source, mut loaded_by_vscode, mut fingerprint) =
            (None, None, None, None);
        let (mut timeout_ms, mut tool_exposure, mut oauth) = (None, None, None);
        let (mut secret_values, mut read_files) = (Vec::new(), Vec::new());
        while let Some(member) = map.next_key::<Cow<'de, str>>()? {
            match &*member {
                "name" => name = Some(map.next_value()?),
                "transport" => transport = Some(map.next_value()?),
                "enabled" => enabled = Some(map.next_value()?),
                "autoConnect" => auto_connect = Some(map.next_value()?),
                "tools" => tools = Some(map.next_value()?),
                "timeoutMs" => timeout_ms = map.next_value()?,
                "toolExposure" => tool_exposure = map.next_value()?,
                "oauth" => oauth = map.next_value()?,
                "source" => source = Some(map.next_value()?),
                "loadedByVscode" => loaded_by_vscode = Some(map.next_value()?),
                "fingerprint" => fingerprint = Some(map.next_value()?),
                "secretValues" => secret_values = map.next_value()?,
                "readFiles" => read_files = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(ServerConfig {
            name: required(name, "name")?,
            transport: required(transport, "transport")?,
            enabled: required(enabled, "enabled")?,
            auto_connect: required(auto_connect, "autoConnect")?,
            tools: required(tools, "tools")?,
            timeout_ms,
            tool_exposure,
            oauth,
            source: required(source, "source")?,
            loaded_by_vscode: required(loaded_by_vscode, "loadedByVscode")?,
            fingerprint: required(fingerprint, "fingerprint")?,
            secret_values,
            read_files,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::{OAuthConfig, SourceRef, ToolExposure, ToolFilter, Transport};
    use super::*;
    use serde::Serialize;
    use serde_json::{json, Value};

    /// The reader serde derived before, to compare the hand reader against.
    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Derived {
        name: String,
        transport: Transport,
        enabled: bool,
        auto_connect: bool,
        tools: ToolFilter,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_exposure: Option<ToolExposure>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        oauth: Option<OAuthConfig>,
        source: SourceRef,
        loaded_by_vscode: bool,
        fingerprint: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        secret_values: Vec<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        read_files: Vec<String>,
    }

    fn both(text: &str) -> (Result<Value, String>, Result<Value, String>) {
        crate::hand_reader_tests::read_both::<ServerConfig, Derived>(text, "ServerConfig")
    }

    /// A server whose every member is set (none at its default).
    fn full() -> Value {
        json!({
            "name": "files",
            "transport": { "type": "stdio", "command": "npx", "args": ["-y", "x"], "env": { "A": "1" } },
            "enabled": true,
            "autoConnect": true,
            "tools": { "kind": "only", "names": ["read"] },
            "timeoutMs": 5000,
            "toolExposure": "index",
            "oauth": { "clientId": "c" },
            "source": {
                "format": "claude-code", "scope": "project", "file": "/w/.mcp.json",
                "line": 1, "column": 2, "workspaceFolder": "/w",
            },
            "loadedByVscode": true,
            "fingerprint": "abc",
            "secretValues": ["s3cret"],
            "readFiles": ["/w/key"],
        })
    }

    #[test]
    fn every_member_reads_as_the_derive_did() {
        let read = crate::hand_reader_tests::agree_without_each_member(&full(), both);
        // Each member is one the reader reads: without it, it reads otherwise.
        for (name, hand) in read {
            assert_ne!(hand.map_err(|_| ()), Ok(full()), "{name}");
        }
    }

    #[test]
    fn defaults_unknown_members_and_wrong_types_read_as_the_derive_did() {
        let mut texts: Vec<String> = ["{}", r#"{"name": "a"}"#, "null", "[]", r#"{"name": "a""#]
            .map(String::from)
            .to_vec();
        for (name, wrong) in [
            ("name", json!(1)),
            ("transport", json!({ "type": "stdio" })),
            ("transport", json!({ "type": "pipe", "command": "x" })),
            ("enabled", json!("yes")),
            ("autoConnect", json!(null)),
            ("tools", json!({ "kind": "some" })),
            ("timeoutMs", json!(-1)),
            ("timeoutMs", json!(null)),
            ("toolExposure", json!("sideways")),
            ("oauth", json!({ "scopes": "a" })),
            ("oauth", json!(null)),
            ("source", json!({ "file": "/p" })),
            ("loadedByVscode", json!(0)),
            ("fingerprint", json!([])),
            ("secretValues", json!("s")),
            ("readFiles", json!([1])),
            ("unknown", json!({ "a": [1] })),
        ] {
            let mut value = full();
            value[name] = wrong;
            texts.push(value.to_string());
        }
        crate::hand_reader_tests::agree_with_derive(&texts, both, "ServerConfig");
    }
}
