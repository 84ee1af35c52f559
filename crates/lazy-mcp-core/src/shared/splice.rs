//! The multiplexer's hot path (`mux.rs`): a message is read only as far as
//! routing needs — its `method`, its `id` and a `progressToken` — and passed on
//! with just the id (and the token) rewritten in its bytes; every other byte is
//! kept as the peer sent it. No `Value` tree is built and nothing serialized
//! back. serde_json validates the whole text, skipping the payloads without
//! building them and without recursion (as `protocol::raw_message` does).
//! Whatever is unusual (a duplicate key, an id that is not a string or number,
//! `_meta` that is not an object…) reads as `None`, and the multiplexer takes
//! its full reading (`serde_json::Value`), which decides as it always did.

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
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
    params: Option<&'a RawValue>,
}

impl<'a> Routing<'a> {
    /// `None` unless `text` is one valid JSON object whose `id`, when present,
    /// is a string or a number.
    pub fn read(text: &'a str) -> Option<Routing<'a>> {
        #[derive(Deserialize)]
        struct Envelope<'a> {
            /// Present even as `null` (an id the full reading sees), unlike a plain `Option`.
            #[serde(borrow, default, deserialize_with = "present")]
            id: Option<&'a RawValue>,
            #[serde(borrow, default)]
            method: Option<Cow<'a, str>>,
            #[serde(borrow, default)]
            params: Option<&'a RawValue>,
        }
        let envelope = object::<Envelope>(text)?;
        let id = match envelope.id {
            None => None,
            Some(raw) => {
                let plain = matches!(
                    raw.get().as_bytes().first(),
                    Some(b'"' | b'-' | b'0'..=b'9')
                );
                let id = serde_json::from_str(raw.get()).ok().filter(|_| plain)?;
                Some((id, range_in(text, raw.get())?))
            }
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
        // Only a params text naming it (or escaping some key) can hold one: most calls skip the peek.
        let text = params.get();
        if !text.contains("progressToken") && !text.contains('\\') {
            return Token::Absent;
        }
        #[derive(Deserialize)]
        struct Params<'a> {
            #[serde(borrow, default, rename = "_meta")]
            meta: Option<&'a RawValue>,
        }
        match object::<Params>(text).map(|p| p.meta) {
            Some(Some(meta)) => self.token_in(meta),
            Some(None) => Token::Absent,
            None => Token::Unusual,
        }
    }

    /// A notification's `params.progressToken`.
    pub fn notification_progress_token(&self) -> Token {
        match self.params {
            Some(params) => self.token_in(params),
            None => Token::Absent,
        }
    }

    fn token_in(&self, object_text: &RawValue) -> Token {
        #[derive(Deserialize)]
        struct Field<'a> {
            #[serde(borrow, default, rename = "progressToken")]
            token: Option<&'a RawValue>,
        }
        let raw = match object::<Field>(object_text.get()) {
            Some(Field { token: Some(raw) }) => raw.get(),
            Some(Field { token: None }) => return Token::Absent,
            None => return Token::Unusual,
        };
        match (serde_json::from_str(raw), range_in(self.text, raw)) {
            (Ok(value), Some(range)) => Token::Found(value, range),
            _ => Token::Unusual,
        }
    }

    /// The text with each range replaced by its JSON value (ranges in order, not overlapping).
    pub fn splice(&self, parts: &[(&Range<usize>, &Value)]) -> Option<String> {
        let mut out = String::with_capacity(self.text.len() + 32);
        let mut at = 0;
        for (range, value) in parts {
            out.push_str(self.text.get(at..range.start)?);
            out.push_str(&value.to_string());
            at = range.end;
        }
        out.push_str(self.text.get(at..)?);
        Some(out)
    }
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// A struct from a JSON object only (serde would also fill one from an array);
/// a duplicate key or anything else unusual is `None`.
fn object<'a, T: Deserialize<'a>>(text: &'a str) -> Option<T> {
    if !text.trim_start().starts_with('{') {
        return None;
    }
    serde_json::from_str(text).ok()
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
    fn an_escaped_key_is_read_as_its_decoded_name() {
        let text = r#"{"i\u0064":3,"method":"m","params":{"_meta":{"progress\u0054oken":5}}}"#;
        let r = Routing::read(text);
        assert_eq!(
            r.as_ref()
                .and_then(|r| r.id.as_ref().map(|(id, _)| id.clone())),
            Some(json!(3))
        );
        assert!(r.is_some_and(
            |r| matches!(r.request_progress_token(), Token::Found(t, _) if t == json!(5))
        ));
    }
}
