//! The hot path's view of a JSON-RPC message: the envelope (`id`, `method`,
//! `jsonrpc`) read, the payload (`params`, `result`, `error`) kept as the raw
//! bytes the peer sent. A forwarded call and its answer are rebuilt by splicing
//! those bytes behind a new envelope, so a 10 MB result is validated once and
//! copied once instead of parsed into a tree and serialized back.
//!
//! Reading one succeeds only for valid JSON (serde_json validates every skipped
//! or raw value and the trailing bytes) and never recurses (raw and ignored
//! values are skipped with an explicit stack). Anything unusual — a duplicate
//! key, an escaped `"jsonrpc"`, an odd id — makes [`RawEnvelope::read`] return
//! `None` and the caller falls back to the full [`super::jsonrpc::Message`]
//! reading, which gives exactly the answers and errors it always gave.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;

/// One JSON-RPC object with its payload left raw.
#[derive(Debug, Deserialize)]
pub struct RawEnvelope<'a> {
    #[serde(borrow, default)]
    pub jsonrpc: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub params: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub error: Option<&'a RawValue>,
}

/// A struct from a JSON object only: serde would also fill one from an array
/// (`["echo"]` as `{"name":"echo"}`), which no JSON-RPC reading does.
fn object_from<'a, T: Deserialize<'a>>(text: &'a str) -> Option<T> {
    if !text.trim_start().starts_with('{') {
        return None;
    }
    serde_json::from_str(text).ok()
}

/// What a response carries, raw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawOutcome<'a> {
    Result(&'a str),
    Error(&'a str),
}

impl<'a> RawEnvelope<'a> {
    /// The envelope of `text` when it is one valid JSON object, `None` otherwise.
    /// Callers check depth first ([`super::outline`]) where they refuse deep input.
    pub fn read(text: &'a str) -> Option<RawEnvelope<'a>> {
        object_from(text)
    }

    /// `"jsonrpc": "2.0"` written plainly (an escaped form falls back to the full reading).
    pub fn is_version_2(&self) -> bool {
        self.jsonrpc.is_some_and(|v| v.get() == "\"2.0\"")
    }

    /// The id when it is a JSON string or number (a request's valid id).
    pub fn plain_id(&self) -> Option<Value> {
        let raw = self.id?.get();
        match raw.as_bytes().first()? {
            b'"' | b'-' | b'0'..=b'9' => serde_json::from_str(raw).ok(),
            _ => None,
        }
    }

    /// A response (no method; exactly one of result/error), with its outcome.
    pub fn response(&self) -> Option<RawOutcome<'a>> {
        if self.method.is_some() {
            return None;
        }
        // Both present: the full reading decides, as it always did.
        match (self.result, self.error) {
            (Some(result), None) => Some(RawOutcome::Result(result.get())),
            (None, Some(error)) => Some(RawOutcome::Error(error.get())),
            _ => None,
        }
    }
}

/// `{"jsonrpc":"2.0","id":<id>,"result"|"error":<raw>}`: a response with a new id.
pub fn splice_response(id: &Value, outcome: RawOutcome<'_>) -> String {
    let (field, raw) = match outcome {
        RawOutcome::Result(raw) => ("result", raw),
        RawOutcome::Error(raw) => ("error", raw),
    };
    let mut text = String::with_capacity(raw.len() + 64);
    text.push_str("{\"jsonrpc\":\"2.0\",\"id\":");
    super::json_text::push_value(&mut text, id);
    text.push_str(",\"");
    text.push_str(field);
    text.push_str("\":");
    text.push_str(raw);
    text.push('}');
    text
}

/// `{"jsonrpc":"2.0","id":<id>,"method":<method>,"params":<raw>}`: a request with a new id.
pub fn splice_request(id: u64, method: &str, params: &RawValue) -> String {
    let raw = params.get();
    let mut text = String::with_capacity(raw.len() + method.len() + 64);
    text.push_str("{\"jsonrpc\":\"2.0\",\"id\":");
    super::json_text::push_u64(&mut text, id);
    text.push_str(",\"method\":");
    super::json_text::push_str(&mut text, method);
    text.push_str(",\"params\":");
    text.push_str(raw);
    text.push('}');
    text
}

/// The few fields of a `tools/call`'s params the engine routes by; the arguments
/// stay raw (skipped, validated, never built into a tree). Also the `_meta` of
/// any request's params, for the gateway's routing ([`MetaOnly`]).
#[derive(Debug, Deserialize)]
pub struct CallPeek<'a> {
    #[serde(borrow, rename = "name")]
    name_raw: &'a RawValue,
    #[serde(default, rename = "_meta", deserialize_with = "meta_object")]
    pub meta: Option<MetaPeek>,
    /// The params text this was read from (to splice a new name in).
    #[serde(skip)]
    params: &'a str,
}

#[derive(Debug, Clone, Deserialize)]
pub struct MetaPeek {
    /// Present (even `null`) or absent, exactly as the full reading sees it.
    #[serde(default, rename = "progressToken", deserialize_with = "present")]
    pub progress_token: Option<Value>,
    /// The modern era's (2026-07-28) envelope key: such a request is read in full
    /// (its envelope is checked and removed, its answer stamped).
    #[serde(
        default,
        rename = "io.modelcontextprotocol/protocolVersion",
        deserialize_with = "present"
    )]
    pub protocol_version: Option<Value>,
}

impl MetaPeek {
    pub fn is_modern(&self) -> bool {
        self.protocol_version.is_some()
    }
}

/// `_meta` must be an object: `null` or any other value fails the raw reading,
/// so the full reading answers it as it always did.
/// (serde alone would also fill the struct from an array.)
fn meta_object<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<MetaPeek>, D::Error> {
    let raw = Box::<RawValue>::deserialize(d)?;
    object_from(raw.get())
        .map(Some)
        .ok_or_else(|| serde::de::Error::custom("_meta is not an object"))
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl<'a> CallPeek<'a> {
    /// `None` unless `params` is an object with a string `name`.
    pub fn read(params: &'a RawValue) -> Option<CallPeek<'a>> {
        let mut peek: CallPeek<'a> = object_from(params.get())?;
        peek.params = params.get();
        peek.name().map(|_| peek)
    }

    /// The tool's name (`None` when `name` is not a string).
    pub fn name(&self) -> Option<Cow<'a, str>> {
        serde_json::from_str::<Cow<'a, str>>(self.name_raw.get()).ok()
    }

    /// The params with `name` replaced by `new_name` and every other byte kept.
    pub fn with_name(&self, new_name: &str) -> Option<Box<RawValue>> {
        // The raw name is a slice of the params text: its offset says where to cut.
        let start =
            (self.name_raw.get().as_ptr() as usize).checked_sub(self.params.as_ptr() as usize)?;
        let end = start.checked_add(self.name_raw.get().len())?;
        let text = format!(
            "{}{}{}",
            self.params.get(..start)?,
            Value::from(new_name),
            self.params.get(end..)?
        );
        RawValue::from_string(text).ok()
    }

    /// `_meta.progressToken` as sent (progress from the server is matched against it).
    pub fn progress_token(&self) -> Option<Value> {
        self.meta.as_ref().and_then(|m| m.progress_token.clone())
    }

    /// The request carries the modern era's envelope.
    pub fn is_modern(&self) -> bool {
        self.meta.as_ref().is_some_and(MetaPeek::is_modern)
    }
}

/// Only `_meta` of a request's params (the progress token routes progress to its POST).
#[derive(Debug, Deserialize)]
pub struct MetaOnly {
    #[serde(default, rename = "_meta", deserialize_with = "meta_object")]
    pub meta: Option<MetaPeek>,
}

impl MetaOnly {
    pub fn read(params: &RawValue) -> Option<MetaOnly> {
        object_from(params.get())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_envelope_and_keeps_the_payload_bytes() {
        let text = r#"{"jsonrpc":"2.0","id":7,"result":{"b":1, "a":[1.50,"\u00e9"]}}"#;
        let env = RawEnvelope::read(text).map(|e| (e.is_version_2(), e.plain_id(), e.response()));
        assert_eq!(
            env,
            Some((
                true,
                Some(json!(7)),
                Some(RawOutcome::Result(r#"{"b":1, "a":[1.50,"\u00e9"]}"#))
            ))
        );
        assert_eq!(
            splice_response(&json!("c-1"), RawOutcome::Result("[1.50]")),
            r#"{"jsonrpc":"2.0","id":"c-1","result":[1.50]}"#
        );
    }

    #[test]
    fn a_spliced_id_or_method_is_written_as_serde_writes_it() {
        for id in [
            json!(0),
            json!(u64::MAX),
            json!(-4),
            json!(2.5),
            json!("q\"\\\u{1}é/"),
        ] {
            assert_eq!(
                splice_response(&id, RawOutcome::Error("{}")),
                format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{}}}}"#)
            );
        }
        let params = serde_json::from_str::<Box<RawValue>>("{}").unwrap_or_default();
        for method in ["tools/call", "a\"b\\c\n"] {
            let written = serde_json::to_string(method).unwrap_or_default();
            assert_eq!(
                splice_request(u64::MAX, method, &params),
                format!(
                    r#"{{"jsonrpc":"2.0","id":{},"method":{written},"params":{{}}}}"#,
                    u64::MAX
                )
            );
        }
    }

    #[test]
    fn a_meta_that_is_not_an_object_or_carries_the_modern_envelope_is_left_to_the_full_reading() {
        let meta = |params: &str| {
            let raw = serde_json::from_str::<Box<RawValue>>(params).unwrap();
            MetaOnly::read(&raw).map(|m| m.meta.map(|m| m.is_modern()))
        };
        for not_an_object in [r#"{"_meta":[]}"#, r#"{"_meta":null}"#, r#"{"_meta":"x"}"#] {
            assert!(meta(not_an_object).is_none(), "{not_an_object}");
        }
        assert_eq!(meta(r#"{"x":1}"#), Some(None));
        assert_eq!(meta(r#"{"_meta":{"progressToken":1}}"#), Some(Some(false)));
        let modern = r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#;
        assert_eq!(meta(modern), Some(Some(true)));
    }

    #[test]
    fn anything_but_one_valid_object_is_not_read() {
        for text in [
            "{",
            "[]",
            "{\"id\":1} x",
            "{\"id\":1,\"id\":2}",
            "{\"result\":[1,}",
            "\"x\"",
            "",
            "[\"2.0\",1]",
        ] {
            assert!(RawEnvelope::read(text).is_none(), "{text}");
        }
        let both = RawEnvelope::read(r#"{"id":1,"result":1,"error":{}}"#);
        assert_eq!(both.and_then(|e| e.response()), None);
        let Ok(array) = RawValue::from_string(r#"["echo"]"#.to_string()) else {
            panic!("not raw");
        };
        assert!(CallPeek::read(&array).is_none());
        let escaped = RawEnvelope::read(r#"{"jsonrpc":"2\u002e0","id":1}"#);
        assert_eq!(escaped.map(|e| e.is_version_2()), Some(false));
        for id in ["null", "true", "{}", "[1]"] {
            let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"m"}}"#);
            assert_eq!(
                RawEnvelope::read(&text).and_then(|e| e.plain_id()),
                None,
                "{id}"
            );
        }
    }

    #[test]
    fn a_request_is_rebuilt_around_its_raw_params() {
        let params = r#"{"name":"echo","arguments":{"message":"x"},"_meta":{"progressToken":"p"}}"#;
        let Some(raw) = RawEnvelope::read(&format!(r#"{{"params":{params}}}"#))
            .and_then(|e| e.params.map(|p| p.get().to_string()))
        else {
            panic!("no params");
        };
        let Ok(boxed) = RawValue::from_string(raw) else {
            panic!("not raw");
        };
        let peek = CallPeek::read(&boxed);
        assert_eq!(
            peek.as_ref().and_then(|p| p.name()).as_deref(),
            Some("echo")
        );
        assert_eq!(
            peek.as_ref().and_then(|p| p.progress_token()),
            Some(json!("p"))
        );
        let renamed = peek
            .and_then(|p| p.with_name("a\"b"))
            .map(|r| r.get().to_string());
        assert_eq!(
            renamed.as_deref(),
            Some(r#"{"name":"a\"b","arguments":{"message":"x"},"_meta":{"progressToken":"p"}}"#)
        );
        let Ok(numeric) = RawValue::from_string(r#"{"name":5}"#.to_string()) else {
            panic!("not raw");
        };
        assert!(CallPeek::read(&numeric).is_none());
        assert_eq!(
            splice_request(3, "tools/call", &boxed),
            format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{params}}}"#)
        );
    }
}
