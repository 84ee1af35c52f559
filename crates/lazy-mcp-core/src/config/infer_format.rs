//! The format of a file named outside the discovery plan (the CLI's
//! `--config FILE` without `--format`): by the tool's file name first, then by
//! the file's top-level keys. `None` when neither tells.

use super::jsonc_positions::{parse_jsonc, strip_bom};
use super::model::ConfigFormat;
use jsonc_parser::ast::Value;

pub(crate) fn infer_format(path: &str, content: Option<&str>) -> Option<ConfigFormat> {
    let name = path
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(path)
        .to_ascii_lowercase();
    match name.as_str() {
        "opencode.json" | "opencode.jsonc" => return Some(ConfigFormat::OpenCode),
        "mcp-config.json" => return Some(ConfigFormat::CopilotCli),
        ".mcp.json" | ".claude.json" => return Some(ConfigFormat::ClaudeCode),
        "claude_desktop_config.json" => return Some(ConfigFormat::ClaudeDesktop),
        _ => {}
    }
    let text = content?;
    let Ok(Some(Value::Object(root))) = parse_jsonc(strip_bom(text)) else {
        return None;
    };
    if root.get("servers").is_some() {
        return Some(ConfigFormat::VsCode);
    }
    if root.get("mcp").is_some() {
        return Some(ConfigFormat::OpenCode);
    }
    let servers = root.get("mcpServers")?;
    // Copilot CLI writes stdio servers as `type: "local"`, which Claude Code does not know.
    let copilot = servers.value.as_object().is_some_and(|servers| {
        servers.properties.iter().any(|entry| {
            entry
                .value
                .as_object()
                .and_then(|e| e.get("type"))
                .and_then(|t| t.value.as_string_lit())
                .is_some_and(|t| t.value.as_ref() == "local")
        })
    });
    Some(if copilot {
        ConfigFormat::CopilotCli
    } else {
        ConfigFormat::ClaudeCode
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_name_then_by_shape() {
        let f = |path, content| infer_format(path, Some(content));
        assert_eq!(f("/x/opencode.jsonc", "{}"), Some(ConfigFormat::OpenCode));
        assert_eq!(
            f("/x/mcp-config.json", "{}"),
            Some(ConfigFormat::CopilotCli)
        );
        assert_eq!(f("/x/.mcp.json", "{}"), Some(ConfigFormat::ClaudeCode));
        assert_eq!(
            f("/x/a.json", r#"{"servers":{}}"#),
            Some(ConfigFormat::VsCode)
        );
        assert_eq!(
            f("/x/a.json", r#"{"mcp":{}}"#),
            Some(ConfigFormat::OpenCode)
        );
        assert_eq!(
            f("/x/a.json", r#"{"mcpServers":{"a":{"command":"x"}}}"#),
            Some(ConfigFormat::ClaudeCode)
        );
        assert_eq!(
            f(
                "/x/a.json",
                r#"{"mcpServers":{"a":{"type":"local","command":"x"}}}"#
            ),
            Some(ConfigFormat::CopilotCli)
        );
        assert_eq!(f("/x/a.json", r#"{"other":1}"#), None);
        assert_eq!(f("/x/a.json", "not json"), None);
        assert_eq!(infer_format("/x/a.json", None), None);
    }
}
