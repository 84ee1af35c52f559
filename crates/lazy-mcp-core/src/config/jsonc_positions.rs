//! JSONC parsing with positions: byte offsets from the `jsonc-parser` AST turned
//! into 1-based line:column, and syntax errors turned into positioned messages.

use jsonc_parser::ast::{ObjectProp, ObjectPropName, Value};
use jsonc_parser::common::Range;
use jsonc_parser::{CollectOptions, ParseOptions};

/// Byte offset → 1-based (line, column). Line breaks are `\n`, `\r\n` and a lone
/// `\r` (as in `jsonc-parser`); columns count Unicode scalar values.
pub(crate) struct LineIndex<'t> {
    text: &'t str,
    line_starts: Vec<usize>,
    /// Per line: contains only ASCII, so a column is a byte difference (O(1)).
    line_is_ascii: Vec<bool>,
}

impl<'t> LineIndex<'t> {
    pub(crate) fn new(text: &'t str) -> Self {
        let mut line_starts = vec![0];
        let mut line_is_ascii = Vec::new();
        let mut ascii = true;
        let bytes = text.as_bytes();
        for (i, b) in bytes.iter().enumerate() {
            ascii &= b.is_ascii();
            let is_break = *b == b'\n' || (*b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
            if is_break {
                line_starts.push(i + 1);
                line_is_ascii.push(ascii);
                ascii = true;
            }
        }
        line_is_ascii.push(ascii);
        LineIndex {
            text,
            line_starts,
            line_is_ascii,
        }
    }

    pub(crate) fn position(&self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|start| *start <= offset);
        let line_index = line.saturating_sub(1);
        let line_start = self.line_starts.get(line_index).copied().unwrap_or(0);
        let column = if self.line_is_ascii.get(line_index).copied().unwrap_or(false) {
            offset - line_start
        } else {
            self.text
                .get(line_start..offset)
                .map_or(0, |s| s.chars().count())
        };
        (to_u32(line.max(1)), to_u32(column + 1))
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A syntax error, positioned.
pub(crate) struct SyntaxError {
    pub offset: usize,
    pub message: String,
}

/// Strict JSONC as VS Code reads it: JSON plus comments and trailing commas.
fn jsonc_options() -> ParseOptions {
    ParseOptions {
        allow_comments: true,
        allow_loose_object_property_names: false,
        allow_trailing_commas: true,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// Parse JSONC text into an AST (`None` for an empty document).
pub(crate) fn parse_jsonc(text: &str) -> Result<Option<Value<'_>>, SyntaxError> {
    jsonc_parser::parse_to_ast(text, &CollectOptions::default(), &jsonc_options())
        .map(|result| result.value)
        .map_err(|error| SyntaxError {
            offset: next_token(text, error.range().start),
            message: error.kind().to_string(),
        })
}

/// The start of the next token at or after `offset`, skipping whitespace and
/// comments: where VS Code's JSON language service reports an error (a missing
/// comma is reported at the token that should have followed one).
fn next_token(text: &str, offset: usize) -> usize {
    let bytes = text.as_bytes();
    let mut at = offset;
    loop {
        match (bytes.get(at), bytes.get(at + 1)) {
            (Some(b' ' | b'\t' | b'\n' | b'\r'), _) => at += 1,
            (Some(b'/'), Some(b'/')) => {
                while bytes.get(at).is_some_and(|b| *b != b'\n') {
                    at += 1;
                }
            }
            (Some(b'/'), Some(b'*')) => {
                let Some(end) = text.get(at + 2..).and_then(|rest| rest.find("*/")) else {
                    return offset;
                };
                at += 2 + end + 2;
            }
            _ => return at.min(text.len()),
        }
    }
}

/// The text without a leading byte-order mark (editors on Windows write one).
pub(crate) fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

pub(crate) fn value_range(value: &Value<'_>) -> Range {
    match value {
        Value::StringLit(v) => v.range,
        Value::NumberLit(v) => v.range,
        Value::BooleanLit(v) => v.range,
        Value::Object(v) => v.range,
        Value::Array(v) => v.range,
        Value::NullKeyword(v) => v.range,
    }
}

pub(crate) fn key_range(prop: &ObjectProp<'_>) -> Range {
    match &prop.name {
        ObjectPropName::String(lit) => lit.range,
        ObjectPropName::Word(word) => word.range,
    }
}

/// Short JSON type name for messages ("a string", "an array", ...).
pub(crate) fn type_name(value: &Value<'_>) -> &'static str {
    match value {
        Value::StringLit(_) => "a string",
        Value::NumberLit(_) => "a number",
        Value::BooleanLit(_) => "a boolean",
        Value::Object(_) => "an object",
        Value::Array(_) => "an array",
        Value::NullKeyword(_) => "null",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based_and_count_characters() {
        let index = LineIndex::new("ab\ncdé\r\nx\ry");
        assert_eq!(index.position(0), (1, 1));
        assert_eq!(index.position(1), (1, 2));
        assert_eq!(index.position(3), (2, 1));
        // 'é' is two bytes: byte 7 is the '\r' after it, column 4.
        assert_eq!(index.position(7), (2, 4));
        assert_eq!(index.position(9), (3, 1));
        assert_eq!(index.position(11), (4, 1));
        assert_eq!(index.position(1000), (4, 2));
    }

    #[test]
    fn syntax_errors_carry_an_offset_and_what_was_expected() {
        let Err(error) = parse_jsonc("{\n  \"a\": 1\n  \"b\": 2\n}") else {
            panic!("expected a syntax error");
        };
        let index = LineIndex::new("{\n  \"a\": 1\n  \"b\": 2\n}");
        // Where VS Code's JSON language service reports it: at `"b"` on line 3,
        // not at the end of the previous (possibly long, off-screen) line.
        assert_eq!(index.position(error.offset), (3, 3));
        let text = "{\n  \"a\": 1 // note\n  /* c */ \"b\": 2\n}";
        let Err(error) = parse_jsonc(text) else {
            panic!("expected a syntax error");
        };
        assert_eq!(LineIndex::new(text).position(error.offset), (3, 11));
        assert_eq!(error.message, "Expected comma");
    }

    #[test]
    fn comments_and_trailing_commas_are_accepted() {
        let parsed = parse_jsonc("// c\n{ /* b */ \"a\": [1, 2,], }");
        assert!(matches!(parsed, Ok(Some(Value::Object(_)))));
    }
}
