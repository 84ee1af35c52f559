//! What a user reviews before approving a changed definition: the compared
//! fields in one canonical form (sorted keys; invisible characters written as
//! `\uXXXX` escapes, which is the same JSON, so nothing is rewritten, only made
//! visible), a unified diff of old against new, and the warnings about the
//! parts that deserve a second look.

use crate::engine::stable_hash::Fnv1a64Writer;
use crate::protocol::listed_item::ListedItem;
use crate::protocol::params::name_of;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::io::Write as _;

/// The fields of a tool, prompt or resource template that are compared.
const COMPARED_FIELDS: [&str; 9] = [
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "arguments",
    "uriTemplate",
    "mimeType",
];

/// The compared fields of one definition, in a fixed order.
pub fn compared_projection(item: &Value) -> Value {
    let mut object = Map::new();
    for field in COMPARED_FIELDS {
        if let Some(value) = item.get(field) {
            object.insert(field.to_string(), value.clone());
        }
    }
    Value::Object(object)
}

/// FNV-1a over the value with object keys sorted (key order is not a change).
pub fn canonical_hash(value: &Value) -> u64 {
    let mut hasher = Fnv1a64Writer::default();
    hash_into(&mut hasher, value);
    hasher.finish()
}

/// [`canonical_hash`] of [`compared_projection`]`(item)`, without building it:
/// the listing's per-item hash, computed at every comparison.
pub fn item_hash(item: &Value) -> u64 {
    let mut hasher = Fnv1a64Writer::default();
    let Some(object) = item.as_object() else {
        hash_into(&mut hasher, &Value::Object(Map::new()));
        return hasher.finish();
    };
    // One pass over the item's own keys (no lookups), sorted as `hash_into` sorts them.
    let mut present: Vec<(&String, &Value)> = object
        .iter()
        .filter(|(key, _)| COMPARED_FIELDS.contains(&key.as_str()))
        .collect();
    crate::sorting::sort_by_key(&mut present, |(key, _)| *key);
    write_len(&mut hasher, b'{', present.len());
    for (key, value) in present {
        write_str(&mut hasher, key);
        hash_into(&mut hasher, value);
    }
    hasher.finish()
}

fn write_len(hasher: &mut Fnv1a64Writer, tag: u8, len: usize) {
    // Writing into a hasher cannot fail.
    let _ = hasher.write_all(&[tag]);
    let _ = hasher.write_all(&(len as u64).to_le_bytes());
}

fn write_str(hasher: &mut Fnv1a64Writer, text: &str) {
    write_len(hasher, b's', text.len());
    let _ = hasher.write_all(text.as_bytes());
}

/// Tagged, length-prefixed bytes: `["a b"]` and `["a", "b"]` differ, strings are
/// hashed as they are (no escaping pass).
fn hash_into(hasher: &mut Fnv1a64Writer, value: &Value) {
    match value {
        Value::Object(object) => {
            let mut keys: Vec<&String> = object.keys().collect();
            crate::sorting::sort(&mut keys);
            write_len(hasher, b'{', keys.len());
            for key in keys {
                write_str(hasher, key);
                if let Some(inner) = object.get(key) {
                    hash_into(hasher, inner);
                }
            }
        }
        Value::Array(items) => {
            write_len(hasher, b'[', items.len());
            for inner in items {
                hash_into(hasher, inner);
            }
        }
        Value::String(text) => write_str(hasher, text),
        Value::Number(number) => {
            let text = number.to_string();
            write_len(hasher, b'#', text.len());
            let _ = hasher.write_all(text.as_bytes());
        }
        Value::Bool(true) => write_len(hasher, b't', 0),
        Value::Bool(false) => write_len(hasher, b'f', 0),
        Value::Null => write_len(hasher, b'n', 0),
    }
}

/// Invisible or direction-changing characters a model reads and a user does not see.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{E0000}'..='\u{E007F}'
        | '\u{200B}'..='\u{200F}'
        | '\u{2060}'..='\u{2064}'
        | '\u{FEFF}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2066}'..='\u{2069}'
        | '\u{00AD}'
        | '\u{180E}')
}

/// Pretty JSON with sorted keys and every invisible character as a `\uXXXX` escape.
pub fn review_text(value: &Value) -> String {
    let text = serde_json::to_string_pretty(&sorted(value)).unwrap_or_default();
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_invisible(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(object) => {
            let mut keys: Vec<&String> = object.keys().collect();
            crate::sorting::sort(&mut keys);
            let mut out = Map::new();
            for key in keys {
                if let Some(inner) = object.get(key) {
                    out.insert(key.clone(), sorted(inner));
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum WarningKind {
    /// Tag characters, zero-width characters, bidi overrides.
    InvisibleUnicode,
    /// Text addressed to the model: "ignore previous instructions", `<IMPORTANT>`,
    /// secrets, keys, SSH, `.env`, passwords.
    InstructionLike,
    /// A parameter the approved definition did not have.
    NewParameter,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DefinitionWarning {
    pub kind: WarningKind,
    /// Where: `description`, `inputSchema.properties.context.description`, …
    pub field: String,
    /// What was found, in words (code points, the phrase, the parameter).
    pub detail: String,
}

/// Phrases that address the model rather than describe a tool. Matched in
/// lower case; a phrase the approved text already had is not flagged again.
const INSTRUCTION_PHRASES: [&str; 24] = [
    "ignore previous instructions",
    "ignore all previous",
    "ignore the previous",
    "disregard previous",
    "disregard all previous",
    "forget previous instructions",
    "<important>",
    "</important>",
    "do not tell the user",
    "don't tell the user",
    "without telling the user",
    "do not mention",
    "system prompt",
    "~/.ssh",
    ".ssh/",
    "id_rsa",
    "id_ed25519",
    ".env",
    "password",
    "passwd",
    "secret",
    "private key",
    "api key",
    "credentials",
];

/// The warnings for `new` (approved as `old`, or new when `old` is None).
pub fn warnings(old: Option<&Value>, new: &Value) -> Vec<DefinitionWarning> {
    let mut found = Vec::new();
    let old_text = old
        .map(|o| collect_text(o).to_lowercase())
        .unwrap_or_default();
    let mut strings = Vec::new();
    walk_strings(new, String::new(), &mut strings);
    for (field, text) in &strings {
        let invisible: Vec<String> = text
            .chars()
            .filter(|c| is_invisible(*c))
            .map(|c| format!("U+{:04X}", u32::from(c)))
            .fold(Vec::new(), |mut seen, code| {
                if !seen.contains(&code) {
                    seen.push(code);
                }
                seen
            });
        if !invisible.is_empty() {
            let count = text.chars().filter(|c| is_invisible(*c)).count();
            let shown: Vec<String> = invisible.iter().take(6).cloned().collect();
            found.push(DefinitionWarning {
                kind: WarningKind::InvisibleUnicode,
                field: field.clone(),
                detail: format!(
                    "{count} invisible character(s) a model reads and you do not see: {}",
                    shown.join(", ")
                ),
            });
        }
        let lower = text.to_lowercase();
        for phrase in INSTRUCTION_PHRASES {
            if lower.contains(phrase) && !old_text.contains(phrase) {
                found.push(DefinitionWarning {
                    kind: WarningKind::InstructionLike,
                    field: field.clone(),
                    detail: format!("mentions \"{phrase}\""),
                });
            }
        }
    }
    if let Some(old) = old {
        let before = parameters(old);
        for parameter in parameters(new) {
            if !before.contains(&parameter) {
                found.push(DefinitionWarning {
                    kind: WarningKind::NewParameter,
                    field: format!("inputSchema.properties.{parameter}"),
                    detail: format!("new parameter '{parameter}'"),
                });
            }
        }
    }
    found
}

fn parameters(definition: &Value) -> Vec<String> {
    let properties = definition
        .pointer("/inputSchema/properties")
        .and_then(Value::as_object);
    let mut names: Vec<String> = properties
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    // Prompts: their `arguments`.
    if let Some(arguments) = ListedItem::read(definition).arguments {
        names.extend(
            arguments
                .iter()
                .filter_map(|a| name_of(a))
                .map(str::to_string),
        );
    }
    names
}

/// Every string (and object key) with the path to it, iteratively (any depth).
fn walk_strings(value: &Value, path: String, out: &mut Vec<(String, String)>) {
    let mut stack = vec![(value, path)];
    while let Some((value, path)) = stack.pop() {
        let join = |key: &str| {
            if path.is_empty() {
                key.to_string()
            } else {
                format!("{path}.{key}")
            }
        };
        match value {
            Value::String(text) => out.push((path.clone(), text.clone())),
            Value::Object(object) => {
                for (key, inner) in object {
                    out.push((join(key), key.clone()));
                    stack.push((inner, join(key)));
                }
            }
            Value::Array(items) => {
                for (index, inner) in items.iter().enumerate() {
                    stack.push((inner, join(&index.to_string())));
                }
            }
            _ => {}
        }
    }
    crate::sorting::sort(out);
    out.dedup();
}

fn collect_text(value: &Value) -> String {
    let mut strings = Vec::new();
    walk_strings(value, String::new(), &mut strings);
    strings
        .into_iter()
        .map(|(_, text)| text)
        .collect::<Vec<_>>()
        .join("\n")
}

/// A unified diff (3 lines of context) of two texts, headed `--- old_label` /
/// `+++ new_label`. Line-based longest common subsequence; definitions are small.
pub fn unified_diff(old: &str, new: &str, old_label: &str, new_label: &str) -> String {
    let a: Vec<&str> = if old.is_empty() {
        Vec::new()
    } else {
        old.lines().collect()
    };
    let b: Vec<&str> = new.lines().collect();
    let ops = diff_ops(&a, &b);
    let mut out = format!("--- {old_label}\n+++ {new_label}\n");
    const CONTEXT: usize = 3;
    let changed: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, op)| !matches!(op, Op::Same(_)))
        .map(|(i, _)| i)
        .collect();
    let mut index = 0;
    while index < changed.len() {
        let first = changed.get(index).copied().unwrap_or_default();
        let mut last = first;
        let mut next = index + 1;
        while let Some(&candidate) = changed.get(next) {
            if candidate <= last + 2 * CONTEXT + 1 {
                last = candidate;
                next += 1;
            } else {
                break;
            }
        }
        let start = first.saturating_sub(CONTEXT);
        let end = (last + CONTEXT + 1).min(ops.len());
        let (mut old_start, mut new_start) = (1, 1);
        for op in ops.iter().take(start) {
            match op {
                Op::Same(_) => {
                    old_start += 1;
                    new_start += 1;
                }
                Op::Removed(_) => old_start += 1,
                Op::Added(_) => new_start += 1,
            }
        }
        let hunk = ops.get(start..end).unwrap_or_default();
        let old_len = hunk.iter().filter(|o| !matches!(o, Op::Added(_))).count();
        let new_len = hunk.iter().filter(|o| !matches!(o, Op::Removed(_))).count();
        out.push_str(&format!(
            "@@ -{},{old_len} +{},{new_len} @@\n",
            if old_len == 0 {
                old_start - 1
            } else {
                old_start
            },
            if new_len == 0 {
                new_start - 1
            } else {
                new_start
            }
        ));
        for op in hunk {
            match op {
                Op::Same(line) => out.push_str(&format!(" {line}\n")),
                Op::Removed(line) => out.push_str(&format!("-{line}\n")),
                Op::Added(line) => out.push_str(&format!("+{line}\n")),
            }
        }
        index = next;
    }
    out
}

enum Op<'a> {
    Same(&'a str),
    Removed(&'a str),
    Added(&'a str),
}

fn diff_ops<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<Op<'a>> {
    // Too big for the quadratic table: show it as replaced in full.
    if a.len().saturating_mul(b.len()) > 4_000_000 {
        let mut ops: Vec<Op> = a.iter().map(|l| Op::Removed(l)).collect();
        ops.extend(b.iter().map(|l| Op::Added(l)));
        return ops;
    }
    let width = b.len() + 1;
    let mut table = vec![0u32; (a.len() + 1) * width];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            let value = if a.get(i) == b.get(j) {
                table.get((i + 1) * width + j + 1).copied().unwrap_or(0) + 1
            } else {
                let down = table.get((i + 1) * width + j).copied().unwrap_or(0);
                let right = table.get(i * width + j + 1).copied().unwrap_or(0);
                down.max(right)
            };
            if let Some(cell) = table.get_mut(i * width + j) {
                *cell = value;
            }
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut ops = Vec::new();
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                ops.push(Op::Same(x));
                i += 1;
                j += 1;
            }
            (Some(x), Some(_))
                if table.get((i + 1) * width + j).copied().unwrap_or(0)
                    >= table.get(i * width + j + 1).copied().unwrap_or(0) =>
            {
                ops.push(Op::Removed(x));
                i += 1;
            }
            (_, Some(y)) => {
                ops.push(Op::Added(y));
                j += 1;
            }
            (Some(x), None) => {
                ops.push(Op::Removed(x));
                i += 1;
            }
            (None, None) => break,
        }
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_item_hash_is_the_hash_of_its_projection() {
        let item = json!({"name": "t", "description": "d", "_meta": {"x": 1}, "inputSchema": {"type": "object"}});
        assert_eq!(
            item_hash(&item),
            canonical_hash(&compared_projection(&item))
        );
        assert_ne!(
            canonical_hash(&json!(["a b"])),
            canonical_hash(&json!(["a", "b"]))
        );
    }

    #[test]
    fn key_order_is_not_a_change_and_text_is_escaped() {
        let a = json!({"name": "t", "description": "d"});
        let b = json!({"description": "d", "name": "t"});
        assert_eq!(canonical_hash(&a), canonical_hash(&b));
        let text = review_text(&json!({"description": "a\u{200B}b"}));
        assert!(text.contains("a\\u200bb"), "{text}");
    }

    #[test]
    fn unified_diff_marks_the_changed_line() {
        let diff = unified_diff("a\nb\nc\n", "a\nB\nc\n", "old", "new");
        assert!(diff.contains("-b\n+B\n"), "{diff}");
        assert!(diff.contains("@@ -1,3 +1,3 @@"), "{diff}");
    }
}
