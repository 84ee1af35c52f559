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
    /// Some number has an exponent or over 300 characters: it may be out of the
    /// range serde_json reads (`1e999`), so the raw path leaves it to the full reading.
    pub unusual_number: bool,
}

impl Outline {
    /// Nothing the raw (byte-spliced) path must leave to the full reading: not
    /// deeper than [`MAX_DEPTH`] and no number serde_json's `Value` might refuse.
    pub fn is_plain(&self) -> bool {
        self.max_depth <= MAX_DEPTH && !self.unusual_number
    }
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
        unusual_number: false,
    };
    // Length of the number token being scanned, if the current scalar is a number.
    let mut number_len: Option<usize> = None;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut string_start = 0usize;
    let mut expect = Expect::Key;
    // The current top-level key is `"id"` (the only key the outline reads).
    let mut key_is_id = false;
    let mut scalar_start: Option<usize> = None;
    let mut element_start = 0usize;
    let mut seen_top = false;

    let bytes = text.as_bytes();
    let mut i = 0usize;
    while let Some(&byte) = bytes.get(i) {
        // Inside a string only `"` and `\` matter: skip to the next one, 8 bytes at a time.
        if in_string && !escaped && byte != b'"' && byte != b'\\' {
            i = next_quote_or_backslash(bytes, i);
            continue;
        }
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
                            key_is_id = is_id_key(literal);
                            expect = Expect::Colon;
                        }
                        Expect::Value => {
                            if key_is_id {
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
            i += 1;
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
                    if key_is_id {
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
                            finish_scalar(text, &mut scalar_start, i, key_is_id, &mut out)
                        }
                        TopLevel::Array => push_element(text, element_start, i, &mut out),
                        TopLevel::Other => {}
                    }
                }
                depth = depth.saturating_sub(1);
            }
            b',' if depth == 1 => match out.top {
                TopLevel::Object => {
                    finish_scalar(text, &mut scalar_start, i, key_is_id, &mut out);
                    expect = Expect::Key;
                    key_is_id = false;
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
                    finish_scalar(text, &mut scalar_start, i, key_is_id, &mut out);
                }
            }
            _ => {
                let starts = i.checked_sub(1).and_then(|p| bytes.get(p)).is_none_or(|b| {
                    matches!(
                        b,
                        b'"' | b'{'
                            | b'}'
                            | b'['
                            | b']'
                            | b','
                            | b':'
                            | b' '
                            | b'\t'
                            | b'\n'
                            | b'\r'
                    )
                });
                if starts {
                    number_len = (byte == b'-' || byte.is_ascii_digit()).then_some(0);
                }
                if let Some(len) = number_len.as_mut() {
                    *len += 1;
                    if byte == b'e' || byte == b'E' || *len > 300 {
                        out.unusual_number = true;
                    }
                }
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
        i += 1;
    }
    // A truncated batch: what follows the last comma still counts as an element.
    if out.top == TopLevel::Array && depth >= 1 {
        push_element(text, element_start, text.len(), &mut out);
    }
    out
}

/// The index of the first `"` or `\\` at or after `from` (the length if none). Word
/// at a time (SWAR): a 10 MB string result is skipped, not stepped through.
pub(crate) fn next_quote_or_backslash(bytes: &[u8], from: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // Non-zero when some byte of `word` equals `byte`. It may flag bytes after a
    // match too (a borrow runs upwards), never one before: the lowest flag of a
    // little-endian word is the first match.
    let has = |word: u64, byte: u8| {
        let x = word ^ (ONES * u64::from(byte));
        x.wrapping_sub(ONES) & !x & HIGHS
    };
    let mut i = from;
    for chunk in bytes.get(from..).unwrap_or_default().chunks_exact(8) {
        let word = u64::from_le_bytes(<[u8; 8]>::try_from(chunk).unwrap_or([b'"'; 8]));
        let found = has(word, b'"') | has(word, b'\\');
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&byte) = bytes.get(i) {
        if byte == b'"' || byte == b'\\' {
            return i;
        }
        i += 1;
    }
    i
}

/// A number or literal at the top level of the object ended at `end`.
fn finish_scalar(
    text: &str,
    start: &mut Option<usize>,
    end: usize,
    key_is_id: bool,
    out: &mut Outline,
) {
    let Some(begin) = start.take() else {
        return;
    };
    if !key_is_id {
        return;
    }
    out.has_id = true;
    out.id = text.get(begin..end).and_then(|raw| {
        let raw = raw.trim();
        // The usual id, a small integer, without a parser; anything else as serde_json reads it.
        plain_integer(raw).map(Value::from).or_else(|| {
            serde_json::from_str::<Value>(raw)
                .ok()
                .filter(Value::is_number)
        })
    });
}

/// `raw` as an unsigned integer when it is one exactly as JSON writes it (digits,
/// no leading zero) and short enough never to overflow; `None` for anything else.
fn plain_integer(raw: &str) -> Option<u64> {
    let bytes = raw.as_bytes();
    let plain = !bytes.is_empty()
        && bytes.len() <= 18
        && bytes.iter().all(u8::is_ascii_digit)
        && (bytes.len() == 1 || bytes.first() != Some(&b'0'));
    plain.then(|| {
        bytes
            .iter()
            .fold(0u64, |n, &d| n * 10 + u64::from(d - b'0'))
    })
}

/// Whether a key's string literal (quotes included) reads `id`: compared as bytes
/// when it has no escape (every key of a usual message), decoded otherwise.
fn is_id_key(literal: &str) -> bool {
    if literal == "\"id\"" {
        return true;
    }
    // Escapes only lengthen a key: one that reads `id` otherwise has a `\\`.
    if !literal.bytes().any(|b| b == b'\\') {
        return false;
    }
    serde_json::from_str::<String>(literal).is_ok_and(|key| key == "id")
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
    fn the_word_at_a_time_skip_finds_the_same_byte_as_a_plain_scan() {
        let alphabet = ["a", "\"", "\\", "é", "😀", " ", "\u{7f}", "\u{80}"];
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..2000 {
            let mut text = String::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 40) as usize;
            for k in 0..len {
                let pick = (seed.rotate_left(k as u32 * 3) % 23) as usize;
                text.push_str(alphabet.get(pick % 8).copied().unwrap_or("a"));
                if pick > 8 {
                    text.push_str("bcdefgh");
                }
            }
            let bytes = text.as_bytes();
            for from in 0..=bytes.len() {
                let plain = bytes
                    .iter()
                    .skip(from)
                    .position(|&b| b == b'"' || b == b'\\')
                    .map_or(bytes.len().max(from), |p| p + from);
                assert_eq!(
                    next_quote_or_backslash(bytes, from),
                    plain,
                    "{text:?} from {from}"
                );
            }
        }
    }

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
    fn a_key_is_the_id_key_by_its_decoded_text() {
        // Escaped keys are decoded (as serde_json reads them); plain ones compared as bytes.
        assert_eq!(outline(r#"{"i\u0064":3}"#).id, Some(json!(3)));
        assert_eq!(outline(r#"{"\u0069d":"x"}"#).id, Some(json!("x")));
        for text in [
            r#"{"idx":3}"#,
            r#"{"i":3}"#,
            r#"{"ID":3}"#,
            r#"{"i\d":3}"#,
            r#"{"x":{"id":3}}"#,
        ] {
            let o = outline(text);
            assert_eq!((o.has_id, o.id), (false, None), "{text}");
        }
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

    #[test]
    fn a_numeric_id_reads_as_serde_json_reads_it() {
        let ids = [
            "0",
            "7",
            "42",
            "007",
            "-1",
            "1.5",
            "1e3",
            "123456789012345678",
            "1234567890123456789",
            "18446744073709551615",
            "18446744073709551616",
            "+1",
            "0x1",
        ];
        for raw in ids {
            let text = format!(r#"{{"jsonrpc":"2.0","id":{raw},"method":"m"}}"#);
            let expected = serde_json::from_str::<Value>(raw)
                .ok()
                .filter(Value::is_number);
            assert_eq!(outline(&text).id, expected, "id {raw}");
        }
    }
}
