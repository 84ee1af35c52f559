//! The multiplexer's hot path (`mux.rs`): a message is read only as far as
//! routing needs — its `method`, its `id` and a `progressToken` — and passed on
//! with just the id (and the token) rewritten in its bytes; every other byte is
//! kept as the peer sent it. No `Value` tree is built and nothing serialized
//! back. The engine's raw reading (`protocol::raw_message`) validates the text
//! and reads `id` and `method`; a progress token is found by a flat scan of the
//! params' top-level members (hand-written: a serde struct per level costs the
//! `.wasm` kilobytes).
//! Whatever is unusual (a duplicate key, an id that is not a string or number,
//! `_meta` that is not an object…) reads as `None`, and the multiplexer takes
//! its full reading (`serde_json::Value`), which decides as it always did.

use crate::protocol::outline::next_quote_or_backslash;
use crate::protocol::raw_message::{Raw, RawEnvelope};
use serde_json::Value;
use std::borrow::Cow;
use std::ops::Range;

/// A progress token looked for in a message.
#[derive(Debug, PartialEq)]
pub enum Token {
    Absent,
    /// Its value and its bytes' range.
    Found(Value, Range<usize>),
    /// Params or `_meta` of an unusual shape: the full reading decides.
    Unusual,
}

/// A message's routing fields, with where they sit in its text.
pub struct Routing<'a> {
    pub text: &'a str,
    pub method: Option<Cow<'a, str>>,
    /// The id (a string or a number) and its bytes' range.
    pub id: Option<(Value, Range<usize>)>,
    params: Option<Raw<'a>>,
}

impl<'a> Routing<'a> {
    /// `None` unless `text` is one valid JSON object (the engine's raw reading,
    /// `RawEnvelope`, checks it) whose `id`, when present, is a string or a number.
    pub fn read(text: &'a str) -> Option<Routing<'a>> {
        let envelope = RawEnvelope::read(text)?;
        let id = match envelope.id {
            Some(raw) => Some((envelope.plain_id()?, range_in(text, raw.get())?)),
            // Absent, or `null` (which the full reading takes for an id): only text
            // that names no `"id"` anywhere is surely without one.
            None if text.contains("\"id\"") => return None,
            None => None,
        };
        Some(Routing {
            text,
            method: envelope.method,
            id,
            params: envelope.params,
        })
    }

    /// A request's `params._meta.progressToken`.
    pub fn request_progress_token(&self) -> Token {
        let Some(params) = self.params else {
            return Token::Absent;
        };
        // Only a params text naming it (or escaping some key) can hold one: most calls skip the look.
        let text = params.get();
        if !text.contains("progressToken") && !text.contains('\\') {
            return Token::Absent;
        }
        match member(self.text, params.get(), "\"_meta\"") {
            Ok(Some(meta)) => self.token_in(self.text.get(meta).unwrap_or_default()),
            Ok(None) => Token::Absent,
            Err(Unusual) => Token::Unusual,
        }
    }

    /// A notification's `params.progressToken`.
    pub fn notification_progress_token(&self) -> Token {
        match self.params {
            Some(params) => self.token_in(params.get()),
            None => Token::Absent,
        }
    }

    /// `progressToken` of the object `object` (a part of the text).
    fn token_in(&self, object: &str) -> Token {
        let range = match member(self.text, object, "\"progressToken\"") {
            Ok(Some(range)) => range,
            Ok(None) => return Token::Absent,
            Err(Unusual) => return Token::Unusual,
        };
        match self.text.get(range.clone()).map(serde_json::from_str) {
            Some(Ok(value)) => Token::Found(value, range),
            _ => Token::Unusual,
        }
    }

    /// The text with each range replaced by its JSON value (ranges in order, not overlapping).
    pub fn splice(&self, parts: &[(&Range<usize>, &Value)]) -> Option<String> {
        let mut out = String::with_capacity(self.text.len() + 32);
        let mut at = 0;
        for (range, value) in parts {
            out.push_str(self.text.get(at..range.start)?);
            // The id or token written straight in (as serde writes it), no string of its own.
            crate::protocol::json_text::push_value(&mut out, value);
            at = range.end;
        }
        out.push_str(self.text.get(at..)?);
        Some(out)
    }
}

/// Not the usual shape: left to the full reading.
struct Unusual;

/// The range (in `text`) of the value of `key` (a key's literal, quotes included)
/// among the top-level members of `object`, a valid JSON object within `text`.
/// Unusual when `object` is not an object, a key is escaped or `key` repeats.
fn member(text: &str, object: &str, key: &str) -> Result<Option<Range<usize>>, Unusual> {
    let base = range_in(text, object).ok_or(Unusual)?.start;
    let bytes = object.as_bytes();
    let mut i = skip_space(bytes, 0);
    if bytes.get(i) != Some(&b'{') {
        return Err(Unusual);
    }
    i += 1;
    let mut found = None;
    loop {
        i = skip_space(bytes, i);
        match bytes.get(i) {
            Some(b'}') => return Ok(found),
            Some(b',') => i += 1,
            Some(b'"') => {
                let key_end = string_end(bytes, i);
                let literal = object.get(i..key_end).ok_or(Unusual)?;
                if literal.contains('\\') || (literal == key && found.is_some()) {
                    return Err(Unusual);
                }
                i = skip_space(bytes, key_end);
                if bytes.get(i) != Some(&b':') {
                    return Err(Unusual);
                }
                let start = skip_space(bytes, i + 1);
                i = value_end(bytes, start);
                if literal == key {
                    found = Some(base + start..base + i);
                }
            }
            _ => return Err(Unusual),
        }
    }
}

fn skip_space(bytes: &[u8], mut i: usize) -> usize {
    while matches!(bytes.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// After the string starting at `start` (its opening quote).
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    loop {
        i = next_quote_or_backslash(bytes, i);
        match bytes.get(i) {
            Some(b'\\') => i += 2,
            Some(_) => return i + 1,
            None => return bytes.len(),
        }
    }
}

/// After the value starting at `start` (valid JSON: brackets balance).
fn value_end(bytes: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    while let Some(&byte) = bytes.get(i) {
        match byte {
            b'"' => {
                i = string_end(bytes, i);
                if depth == 0 {
                    return i;
                }
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth <= 1 => return if depth == 0 { i } else { i + 1 },
            b'}' | b']' => depth -= 1,
            b',' | b' ' | b'\t' | b'\n' | b'\r' if depth == 0 => return i,
            _ => {}
        }
        i += 1;
    }
    i
}

/// Where `part` (a slice serde_json borrowed from `text`) sits in `text`.
fn range_in(text: &str, part: &str) -> Option<Range<usize>> {
    let start = (part.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    let end = start.checked_add(part.len())?;
    (end <= text.len()).then_some(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_id_and_the_token_change_every_other_byte_is_kept() {
        let text = r#"{ "jsonrpc":"2.0", "method":"tools/call","params":{"name":"x","arguments":{"a":1.50,"b":"\u00e9"},"_meta":{"progressToken":"t"}},"id":7 }"#;
        let Some(r) = Routing::read(text) else {
            panic!("not read");
        };
        assert_eq!(r.method.as_deref(), Some("tools/call"));
        let Some((id, id_at)) = r.id.clone() else {
            panic!("no id");
        };
        assert_eq!(id, json!(7));
        let Token::Found(token, token_at) = r.request_progress_token() else {
            panic!("no token");
        };
        assert_eq!(token, json!("t"));
        let spliced = r.splice(&[(&token_at, &json!("p-9")), (&id_at, &json!(12))]);
        assert_eq!(
            spliced.as_deref(),
            Some(
                r#"{ "jsonrpc":"2.0", "method":"tools/call","params":{"name":"x","arguments":{"a":1.50,"b":"\u00e9"},"_meta":{"progressToken":"p-9"}},"id":12 }"#
            )
        );
    }

    #[test]
    fn anything_unusual_is_left_to_the_full_reading() {
        for text in [
            r#"{"id":null,"method":"m"}"#,
            r#"{"id":1,"id":2,"method":"m"}"#,
            r#"{"id":1,"method":5}"#,
            "[1]",
            "{",
        ] {
            assert!(Routing::read(text).is_none(), "{text}");
        }
        for params in [
            r#"{"_meta":[1],"progressToken":1}"#,
            r#"{"_meta":{"progressToken":1,"progressToken":2}}"#,
            r#"{"_meta":{"progressToken":1},"_meta":{}}"#,
        ] {
            let text = format!(r#"{{"id":1,"method":"m","params":{params}}}"#);
            let r = Routing::read(&text);
            assert!(
                r.is_some_and(|r| r.request_progress_token() == Token::Unusual),
                "{params}"
            );
        }
        let text = r#"{"method":"notifications/progress","params":[1]}"#;
        assert!(
            Routing::read(text).is_some_and(|r| r.notification_progress_token() == Token::Unusual)
        );
    }

    #[test]
    fn an_escaped_id_key_is_read_decoded_an_escaped_params_key_is_left_to_the_full_reading() {
        let text = r#"{"i\u0064":3,"method":"m","params":{"_meta":{"progress\u0054oken":5}}}"#;
        let r = Routing::read(text);
        assert_eq!(
            r.as_ref()
                .and_then(|r| r.id.as_ref().map(|(id, _)| id.clone())),
            Some(json!(3))
        );
        assert!(r.is_some_and(|r| r.request_progress_token() == Token::Unusual));
        // `"id": null` is an id to the full reading: not read here.
        assert!(Routing::read(r#"{"method":"m","id":null}"#).is_none());
        assert!(Routing::read(r#"{"method":"m","params":{"id":1}}"#).is_none());
        let plain = Routing::read(r#"{"method":"m","params":{}}"#);
        assert!(plain.is_some_and(|r| r.id.is_none()));
    }

    #[test]
    fn the_scan_finds_members_after_nested_values_strings_and_spaces() {
        let text = r#"{"params":{"a":[1,{"progressToken":9}],"s":"}\"]","n": -1.5e3 ,"_meta":{ "x":{}, "progressToken" : "t" } },"method":"m"}"#;
        let Some(r) = Routing::read(text) else {
            panic!("not read");
        };
        let Token::Found(token, at) = r.request_progress_token() else {
            panic!("no token");
        };
        assert_eq!((token, &text[at]), (json!("t"), r#""t""#));
        let twice = r#"{"method":"m","params":{"_meta":{"progressToken":1,"progressToken":2}}}"#;
        assert!(Routing::read(twice).is_some_and(|r| r.request_progress_token() == Token::Unusual));
    }
}
