//! What the engine reads of a server's self-description: an `initialize` or
//! `server/discover` result, its capabilities and its `serverInfo`/`clientInfo`.
//! Typed views borrowed from the parsed result, filled in one pass (see
//! `message_fields.rs` for why views and not serde derives).

use super::message_fields::members;
use serde_json::Value;

/// Where a `server/discover` result names its server (in its `_meta`).
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// An `initialize` result (2024-11-05 … 2025-11-25) or a `server/discover`
/// result (2026-07-28): the fields of both, as sent.
#[derive(Debug, Default, Clone, Copy)]
pub struct HandshakeResult<'a> {
    /// `initialize`: the version the server chose.
    pub protocol_version: Option<&'a str>,
    /// `server/discover`: the versions it speaks (its non-string entries skipped).
    pub supported_versions: Option<&'a [Value]>,
    /// As sent, of any type (`initialize` keeps it so; `server/discover` keeps an object only).
    pub capabilities: Option<&'a Value>,
    /// `serverInfo` at the top level (`initialize`).
    pub server_info: Option<&'a Value>,
    /// `_meta["io.modelcontextprotocol/serverInfo"]` (`server/discover`).
    pub meta_server_info: Option<&'a Value>,
    pub instructions: Option<&'a str>,
}

impl<'a> HandshakeResult<'a> {
    pub fn read(result: &'a Value) -> HandshakeResult<'a> {
        let mut read = HandshakeResult::default();
        for (key, member) in members(Some(result)) {
            match key {
                "protocolVersion" => read.protocol_version = member.as_str(),
                "supportedVersions" => {
                    read.supported_versions = member.as_array().map(Vec::as_slice)
                }
                "capabilities" => read.capabilities = Some(member),
                "serverInfo" => read.server_info = Some(member),
                "instructions" => read.instructions = member.as_str(),
                "_meta" => {
                    read.meta_server_info = members(Some(member))
                        .find(|(key, _)| *key == SERVER_INFO_KEY)
                        .map(|(_, info)| info);
                }
                _ => {}
            }
        }
        read
    }

    /// The string entries of `supportedVersions`.
    pub fn supported_versions(&self) -> Vec<&'a str> {
        self.supported_versions
            .unwrap_or_default()
            .iter()
            .filter_map(Value::as_str)
            .collect()
    }
}

/// A server's capabilities: which of them it declared (present, of any value),
/// and the two flags the engine reads. The rest stays unread.
#[derive(Debug, Default, Clone, Copy)]
pub struct ServerCapabilities<'a> {
    pub tools: Option<&'a Value>,
    pub prompts: Option<&'a Value>,
    pub resources: Option<&'a Value>,
    pub completions: Option<&'a Value>,
    pub logging: Option<&'a Value>,
}

impl<'a> ServerCapabilities<'a> {
    pub fn read(capabilities: &'a Value) -> ServerCapabilities<'a> {
        let mut read = ServerCapabilities::default();
        for (key, member) in members(Some(capabilities)) {
            match key {
                "tools" => read.tools = Some(member),
                "prompts" => read.prompts = Some(member),
                "resources" => read.resources = Some(member),
                "completions" => read.completions = Some(member),
                "logging" => read.logging = Some(member),
                _ => {}
            }
        }
        read
    }

    /// The capability by its key (`"tools"`, `"prompts"`, `"resources"`, …).
    pub fn named(&self, key: &str) -> Option<&'a Value> {
        match key {
            "tools" => self.tools,
            "prompts" => self.prompts,
            "resources" => self.resources,
            "completions" => self.completions,
            "logging" => self.logging,
            _ => None,
        }
    }

    /// `resources.subscribe`, when `true`.
    pub fn resources_subscribe(&self) -> bool {
        flag(self.resources, "subscribe")
    }

    /// `<key>.listChanged`, when `true`.
    pub fn list_changed(&self, key: &str) -> bool {
        flag(self.named(key), "listChanged")
    }
}

/// A boolean member of a capability object (`false` when absent or not a boolean).
fn flag(capability: Option<&Value>, name: &str) -> bool {
    members(capability)
        .find(|(key, _)| *key == name)
        .and_then(|(_, member)| member.as_bool())
        .unwrap_or(false)
}

/// `serverInfo` or `clientInfo` (an MCP `Implementation`): its name and version.
#[derive(Debug, Default, Clone, Copy)]
pub struct Implementation<'a> {
    pub name: Option<&'a str>,
    /// `"version"` as sent, of any type ([`Implementation::version`] is the string).
    pub version_member: Option<&'a Value>,
}

impl<'a> Implementation<'a> {
    pub fn read(info: &'a Value) -> Implementation<'a> {
        let mut read = Implementation::default();
        for (key, member) in members(Some(info)) {
            match key {
                "name" => read.name = member.as_str(),
                "version" => read.version_member = Some(member),
                _ => {}
            }
        }
        read
    }

    pub fn version(&self) -> Option<&'a str> {
        self.version_member.and_then(Value::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_handshake_result_reads_both_eras() {
        let initialize = json!({"protocolVersion": "2025-06-18", "capabilities": [1], "serverInfo": {"name": "s"}, "instructions": "hi"});
        let read = HandshakeResult::read(&initialize);
        assert_eq!(read.protocol_version, Some("2025-06-18"));
        assert_eq!(read.capabilities, Some(&json!([1])));
        assert_eq!(read.server_info, Some(&json!({"name": "s"})));
        assert_eq!(read.instructions, Some("hi"));
        let discover = json!({"supportedVersions": ["2026-07-28", 3], "_meta": {SERVER_INFO_KEY: {"name": "m"}}, "instructions": 1});
        let read = HandshakeResult::read(&discover);
        assert_eq!(read.supported_versions(), vec!["2026-07-28"]);
        assert_eq!(read.meta_server_info, Some(&json!({"name": "m"})));
        assert_eq!((read.server_info, read.instructions), (None, None));
        assert!(HandshakeResult::read(&json!("garbage"))
            .supported_versions()
            .is_empty());
    }

    #[test]
    fn capabilities_read_presence_and_flags() {
        let caps = json!({"tools": {"listChanged": true}, "resources": {"subscribe": "yes"}, "logging": null});
        let read = ServerCapabilities::read(&caps);
        assert!(read.tools.is_some() && read.prompts.is_none());
        assert_eq!(read.logging, Some(&Value::Null));
        assert!(read.list_changed("tools") && !read.list_changed("resources"));
        assert!(!read.resources_subscribe());
        assert!(!ServerCapabilities::read(&json!(null)).list_changed("tools"));
    }

    #[test]
    fn an_implementation_reads_name_and_version() {
        let info = json!({"name": "c", "version": 2});
        let read = Implementation::read(&info);
        assert_eq!((read.name, read.version()), (Some("c"), None));
        assert_eq!(read.version_member, Some(&json!(2)));
    }
}
