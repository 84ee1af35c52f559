//! What the engine reads of one item of the four catalogued lists (a tool, a
//! prompt, a resource, a resource template): its names, texts and schemas.
//! The item itself is kept as the server sent it; this typed view borrows
//! from it, filled in one pass (see `message_fields.rs` for why views and not
//! serde derives).

use super::message_fields::members;
use serde_json::Value;

#[derive(Debug, Default, Clone, Copy)]
pub struct ListedItem<'a> {
    pub name: Option<&'a str>,
    pub title: Option<&'a str>,
    pub description: Option<&'a str>,
    /// A tool's `annotations.title` (its display title when it has no `title`).
    pub annotations_title: Option<&'a str>,
    /// A tool's annotations say running it twice is harmless: `readOnlyHint`
    /// or `idempotentHint` is `true` (MCP's defaults: neither).
    pub repeatable: bool,
    /// A tool's schemas, as sent (JSON Schema: read by `tool_index`).
    pub input_schema: Option<&'a Value>,
    pub output_schema: Option<&'a Value>,
    /// A resource's URI, a template's pattern.
    pub uri: Option<&'a str>,
    pub uri_template: Option<&'a str>,
    /// A prompt's arguments.
    pub arguments: Option<&'a [Value]>,
}

impl<'a> ListedItem<'a> {
    pub fn read(item: &'a Value) -> ListedItem<'a> {
        let mut read = ListedItem::default();
        for (key, member) in members(Some(item)) {
            match key {
                "name" => read.name = member.as_str(),
                "title" => read.title = member.as_str(),
                "description" => read.description = member.as_str(),
                "annotations" => {
                    for (key, hint) in members(Some(member)) {
                        match key {
                            "title" => read.annotations_title = hint.as_str(),
                            "readOnlyHint" | "idempotentHint" if hint == &Value::Bool(true) => {
                                read.repeatable = true
                            }
                            _ => {}
                        }
                    }
                }
                "inputSchema" => read.input_schema = Some(member),
                "outputSchema" => read.output_schema = Some(member),
                "uri" => read.uri = member.as_str(),
                "uriTemplate" => read.uri_template = member.as_str(),
                "arguments" => read.arguments = member.as_array().map(Vec::as_slice),
                _ => {}
            }
        }
        read
    }

    /// The display title: `title`, else `annotations.title`.
    pub fn display_title(&self) -> Option<&'a str> {
        self.title.or(self.annotations_title)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_item_reads_as_the_get_chains_did() {
        let tool = json!({"name": "t", "description": "d", "annotations": {"title": "T"}, "inputSchema": {"type": "object"}});
        let read = ListedItem::read(&tool);
        assert_eq!((read.name, read.description), (Some("t"), Some("d")));
        assert_eq!(read.display_title(), Some("T"));
        assert_eq!(read.input_schema, Some(&json!({"type": "object"})));
        let titled = json!({"title": "Own", "annotations": {"title": "T"}});
        assert_eq!(ListedItem::read(&titled).display_title(), Some("Own"));
        let odd = json!({"name": 1, "annotations": "x", "uri": [], "arguments": {}});
        let read = ListedItem::read(&odd);
        assert_eq!(
            (read.name, read.display_title(), read.uri),
            (None, None, None)
        );
        assert!(read.arguments.is_none());
        let template = json!({"uriTemplate": "file:///{path}"});
        assert_eq!(
            ListedItem::read(&template).uri_template,
            Some("file:///{path}")
        );
    }
}
