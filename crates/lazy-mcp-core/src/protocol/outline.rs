//! A flat, non-recursive look at a JSON text before anything recursive touches it:
//! how deeply it nests, the top-level `id` of an object (so even an unreadable
//! request can be answered with its own id), and where the elements of a
//! top-level array (a batch) begin and end. One pass over the bytes, constant
//! stack whatever the depth; works on truncated text (the head of an oversized line).

use serde_json::Value;

/// The deepest nesting of arrays/objects a message may have (the envelope counts:
/// `{"params":{"arguments":{…}}}` is already 3). serde_json stops at the same depth,
/// so nothing deeper is ever built into a `Value`, serialized or dropped recursively.
pub const MAX_DEPTH: usize = 127;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TopLevel {
    Object,
    Array,
    /// A string, number, literal, or nothing but whitespace/garbage.
    Other,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Outline {
    pub top: TopLevel,
    /// Deepest nesting seen (1 for `{}` or `[]`).
    pub max_depth: usize,
    /// The value of a top-level object's `"id"` key when it is a string or a number.
    pub id: Option<Value>,
    /// The top-level object has an `"id"` key (of any type).
    pub has_id: bool,
    /// Byte ranges of the elements of a top-level array.
    pub elements: Vec<(usize, usize)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    Key,
    Colon,
    Value,
    Comma,
}

/// Outlines `text` (see the module comment). Never fails; unreadable parts are skipped.
pub fn outline(text: &str) -> Outline {
    let mut out = Outline {
        top: TopLevel::Other,
        max_depth: 0,
        id: None,
        has_id: false,
        elements: Vec::new(),
    };
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut string_start = 0usize;
    let mut expect = Expect::Key;
    let mut key: Option<String> = None;
    let mut scalar_start: Option<usize> = None;
    let mut element_start = 0usize;
    let mut seen_top = false;

    for (i, &byte) in text.as_bytes().iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
                if depth == 1 && out.top == TopLevel::Object {
                    let literal = text.get(string_start..=i).unwrap_or("\"\"");
                    match expect {
                        Expect::Key => {
                            key = serde_json::from_str::<String>(literal).ok();
                            expect = Expect::Colon;
                        }
                        Expect::Value => {
                            if key.as_deref() == Some("id") {
                                out.has_id = true;
                                out.id = serde_json::from_str::<String>(literal)
                                    .ok()
                                    .map(Value::from);
                            }
                            expect = Expect::Comma;
                        }
                        Expect::Colon | Expect::Comma => {}
                    }
                }
            }
            continue;
        }
        match byte {
            b'"' => {
                in_string = true;
                string_start = i;
                if !seen_top {
                    seen_top = true;
                }
            }
            b'{' | b'[' => {
                if depth == 0 && !seen_top {
                    out.top = if byte == b'{' {
                        TopLevel::Object
                    } else {
                        TopLevel::Array
                    };
                    element_start = i + 1;
                }
                seen_top = true;
                if depth == 1 && out.top == TopLevel::Object && expect == Expect::Value {
                    if key.as_deref() == Some("id") {
                        out.has_id = true;
                        out.id = None;
                    }
                    expect = Expect::Comma;
                }
                depth += 1;
                out.max_depth = out.max_depth.max(depth);
            }
            b'}' | b']' => {
                if depth == 1 {
                    match out.top {
                        TopLevel::Object => {
                            finish_scalar(text, &mut scalar_start, i, &key, &mut out)
                        }
                        TopLevel::Array => push_element(text, element_start, i, &mut out),
                        TopLevel::Other => {}
                    }
                }
                depth = depth.saturating_sub(1);
            }
            b',' if depth == 1 => match out.top {
                TopLevel::Object => {
                    finish_scalar(text, &mut scalar_start, i, &key, &mut out);
                    expect = Expect::Key;
                    key = None;
                }
                TopLevel::Array => {
                    push_element(text, element_start, i, &mut out);
                    element_start = i + 1;
                }
                TopLevel::Other => {}
            },
            b':' if depth == 1 && expect == Expect::Colon => expect = Expect::Value,
            b' ' | b'\t' | b'\n' | b'\r' => {
                if depth == 1 && out.top == TopLevel::Object {
                    finish_scalar(text, &mut scalar_start, i, &key, &mut out);
                }
            }
            _ => {
                seen_top = true;
                if depth == 1
                    && out.top == TopLevel::Object
                    && expect == Expect::Value
                    && scalar_start.is_none()
                {
                    scalar_start = Some(i);
                    expect = Expect::Comma;
                }
            }
        }
    }
    // A truncated batch: what follows the last comma still counts as an element.
    if out.top == TopLevel::Array && depth >= 1 {
        push_element(text, element_start, text.len(), &mut out);
    }
    out
}

/// A number or literal at the top level of the object ended at `end`.
fn finish_scalar(
    text: &str,
    start: &mut Option<usize>,
    end: usize,
    key: &Option<String>,
    out: &mut Outline,
) {
    let Some(begin) = start.take() else {
        return;
    };
    if key.as_deref() != Some("id") {
        return;
    }
    out.has_id = true;
    out.id = text
        .get(begin..end)
        .and_then(|raw| serde_json::from_str::<Value>(raw.trim()).ok())
        .filter(Value::is_number);
}

fn push_element(text: &str, start: usize, end: usize, out: &mut Outline) {
    if text.get(start..end).is_some_and(|t| !t.trim().is_empty()) {
        out.elements.push((start, end));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_the_id_of_a_readable_top_level() {
        let o = outline(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#);
        assert_eq!(
            (o.top, o.max_depth, o.id),
            (TopLevel::Object, 1, Some(json!(7)))
        );
        let o = outline(r#" { "id" : "a\"b" , "x":[1,{"id":9}] }"#);
        assert_eq!((o.max_depth, o.id), (3, Some(json!("a\"b"))));
        let o = outline(r#"{"method":"x","id":-1.5e3}"#);
        assert_eq!(o.id, Some(json!(-1500.0)));
    }

    #[test]
    fn an_id_that_is_not_a_string_or_number_is_noted_but_not_recovered() {
        for text in [
            r#"{"id":null,"method":"x"}"#,
            r#"{"id":true}"#,
            r#"{"id":{"a":1}}"#,
            r#"{"id":[1]}"#,
        ] {
            let o = outline(text);
            assert!(o.has_id, "{text}");
            assert_eq!(o.id, None, "{text}");
        }
    }

    #[test]
    fn recovers_the_id_before_and_after_deep_nesting_and_from_a_truncated_head() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","params":{}{},"id":42,"method":"tools/call"}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let o = outline(&deep);
        assert_eq!((o.max_depth, o.id), (100_001, Some(json!(42))));
        let o = outline(r#"{"jsonrpc":"2.0","id":"x1","method":"tools/call","params":{"a":"aaaa"#);
        assert_eq!(o.id, Some(json!("x1")));
    }

    #[test]
    fn splits_a_batch_into_its_elements() {
        let text = r#"[{"id":1,"method":"a"}, {"id":2,"x":[1,2]} ,3]"#;
        let o = outline(text);
        let parts: Vec<&str> = o
            .elements
            .iter()
            .filter_map(|&(a, b)| text.get(a..b))
            .map(str::trim)
            .collect();
        assert_eq!(
            parts,
            vec![r#"{"id":1,"method":"a"}"#, r#"{"id":2,"x":[1,2]}"#, "3"]
        );
        assert_eq!(o.id, None);
    }
}
