//! `DiscoveryInput` read by hand: one loop over the object's members instead
//! of the derived reader (bench/README.md "WASM size"). As the derive read it:
//! camelCase names, `home` required, the others optional, unknown members
//! ignored, a member of the wrong type serde's error at that member. Unlike
//! it: a member given twice, the last wins, and an array is refused.

use super::discovery::DiscoveryInput;
use serde::de::{Deserializer, Error, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;

impl<'de> Deserialize<'de> for DiscoveryInput {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(DiscoveryReader)
    }
}

struct DiscoveryReader;

impl<'de> Visitor<'de> for DiscoveryReader {
    type Value = DiscoveryInput;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("struct DiscoveryInput")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<DiscoveryInput, A::Error> {
        let mut home = None;
        let mut input = DiscoveryInput::default();
        while let Some(name) = map.next_key::<Cow<'de, str>>()? {
            match &*name {
                "home" => home = Some(map.next_value()?),
                "workspaceFolders" => input.workspace_folders = map.next_value()?,
                "platform" => input.platform = map.next_value()?,
                "env" => input.env = map.next_value()?,
                "vscodeUserMcpJson" => input.vscode_user_mcp_json = map.next_value()?,
                "sources" => input.sources = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        input.home = home.ok_or_else(|| A::Error::missing_field("home"))?;
        Ok(input)
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::ConfigFormat;
    use super::*;
    use crate::vec_map::VecMap;
    use serde::Serialize;
    use serde_json::{json, Value};

    /// The reader serde derived before, to compare the hand reader against.
    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Derived {
        home: String,
        #[serde(default)]
        workspace_folders: Vec<String>,
        #[serde(default)]
        platform: String,
        #[serde(default)]
        env: VecMap<String, String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        vscode_user_mcp_json: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sources: Option<Vec<ConfigFormat>>,
    }

    fn both(text: &str) -> (Result<Value, String>, Result<Value, String>) {
        crate::hand_reader_tests::read_both::<DiscoveryInput, Derived>(text, "DiscoveryInput")
    }

    /// An input whose every member is set (none at its default).
    fn full() -> Value {
        json!({
            "home": "/h",
            "workspaceFolders": ["/w"],
            "platform": "linux",
            "env": { "XDG_CONFIG_HOME": "/x" },
            "vscodeUserMcpJson": "/p/mcp.json",
            "sources": ["claude-code"],
        })
    }

    #[test]
    fn every_member_reads_as_the_derive_did() {
        crate::hand_reader_tests::agree_without_each_member(&full(), both);
    }

    #[test]
    fn defaults_unknown_members_and_wrong_types_read_as_the_derive_did() {
        let mut texts: Vec<String> = ["{}", r#"{"home": "/h"}"#, "null", "[]", r#"{"home": "/h""#]
            .map(String::from)
            .to_vec();
        for (name, wrong) in [
            ("home", json!(1)),
            ("workspaceFolders", json!("/w")),
            ("platform", json!(null)),
            ("env", json!({ "A": 1 })),
            ("vscodeUserMcpJson", json!(null)),
            ("vscodeUserMcpJson", json!(false)),
            ("sources", json!(["word"])),
            ("sources", json!(null)),
            ("unknown", json!({ "a": [1] })),
        ] {
            let mut value = full();
            value[name] = wrong;
            texts.push(value.to_string());
        }
        crate::hand_reader_tests::agree_with_derive(&texts, both, "DiscoveryInput");
    }
}
