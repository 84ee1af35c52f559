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

use super::raw_members::{members, once};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;

/// A JSON value's text exactly as the peer sent it, validated: what a
/// `&RawValue` is, made by the hand reading (`raw_members`) or by serde's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Raw<'a>(&'a str);

impl<'a> Raw<'a> {
    pub fn get(self) -> &'a str {
        self.0
    }
}

impl<'a> From<&'a RawValue> for Raw<'a> {
    fn from(value: &'a RawValue) -> Self {
        Raw(value.get())
    }
}

/// One JSON-RPC object with its payload left raw.
#[derive(Debug)]
pub struct RawEnvelope<'a> {
    pub jsonrpc: Option<Raw<'a>>,
    pub id: Option<Raw<'a>>,
    pub method: Option<Cow<'a, str>>,
    pub params: Option<Raw<'a>>,
    pub result: Option<Raw<'a>>,
    pub error: Option<Raw<'a>>,
}

/// [`RawEnvelope`] as serde's derived reading sees it (the fallback of the hand reading).
#[derive(Deserialize)]
struct SerdeEnvelope<'a> {
    #[serde(borrow, default)]
    jsonrpc: Option<&'a RawValue>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

impl<'a> From<SerdeEnvelope<'a>> for RawEnvelope<'a> {
    fn from(e: SerdeEnvelope<'a>) -> Self {
        RawEnvelope {
            jsonrpc: e.jsonrpc.map(Raw::from),
            id: e.id.map(Raw::from),
            method: e.method,
            params: e.params.map(Raw::from),
            result: e.result.map(Raw::from),
            error: e.error.map(Raw::from),
        }
    }
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
        Self::read_plain(text).or_else(|| object_from::<SerdeEnvelope>(text).map(Into::into))
    }

    /// [`RawEnvelope::read`] of a text the raw path may take whole: one that is
    /// plain in the outline's sense (`Outline::is_plain`: not too deep, no unusual
    /// number). The hand reading reads only such text, so it needs no outline;
    /// any other text is outlined first, as before.
    pub fn read_if_plain(text: &'a str) -> Option<RawEnvelope<'a>> {
        Self::read_plain(text).or_else(|| {
            super::outline::outline(text)
                .is_plain()
                .then(|| object_from::<SerdeEnvelope>(text).map(Into::into))
                .flatten()
        })
    }

    /// The plain case without serde's derived visitor (`raw_members`); `None`
    /// leaves the text to it. A `null` member is absent, as for serde's `Option`.
    fn read_plain(text: &'a str) -> Option<RawEnvelope<'a>> {
        Self::read_plain_keyed(text).map(|(env, _)| env)
    }

    /// [`RawEnvelope::read_plain`], and whether the object has an `"id"` key (a
    /// `null` id is absent from the envelope): what the text's outline would say
    /// of it, for a text read by hand is plain (`read_if_plain`).
    pub fn read_plain_keyed(text: &'a str) -> Option<(RawEnvelope<'a>, bool)> {
        let mut env = RawEnvelope {
            jsonrpc: None,
            id: None,
            method: None,
            params: None,
            result: None,
            error: None,
        };
        let mut seen = [false; 6];
        let [s_jsonrpc, s_id, s_method, s_params, s_result, s_error] = &mut seen;
        let unless_null = |v: &'a str| (v != "null").then_some(Raw(v));
        members(text, &mut |key, value| match key {
            "jsonrpc" => once(&mut env.jsonrpc, s_jsonrpc, unless_null(value)),
            "id" => once(&mut env.id, s_id, unless_null(value)),
            "method" => {
                // A plain string (no escapes); `null` is absent; anything else: serde decides.
                let method = match value {
                    "null" => None,
                    raw => Some(Cow::Borrowed(
                        raw.strip_prefix('"')?
                            .strip_suffix('"')
                            .filter(|m| !m.contains('\\'))?,
                    )),
                };
                once(&mut env.method, s_method, method)
            }
            "params" => once(&mut env.params, s_params, unless_null(value)),
            "result" => once(&mut env.result, s_result, unless_null(value)),
            "error" => once(&mut env.error, s_error, unless_null(value)),
            _ => Some(()),
        })?;
        Some((env, *s_id))
    }

    /// `"jsonrpc": "2.0"` written plainly (an escaped form falls back to the full reading).
    pub fn is_version_2(&self) -> bool {
        self.jsonrpc.is_some_and(|v| v.get() == "\"2.0\"")
    }

    /// The id when it is a JSON string or number (a request's valid id).
    pub fn plain_id(&self) -> Option<Value> {
        let raw = self.id?.get();
        // The usual ids by hand (the text is valid JSON): digits that fit a u64, a
        // string without escapes. Any other number or string as serde reads it.
        // Digits folded by hand (`str::parse` checks overflow with 128-bit
        // arithmetic); one that overflows goes to serde as before.
        if !raw.is_empty() && raw.bytes().all(|b| b.is_ascii_digit()) {
            let n = raw.bytes().try_fold(0u64, |n, b| {
                n.checked_mul(10)?.checked_add(u64::from(b - b'0'))
            });
            if let Some(n) = n {
                return Some(Value::from(n));
            }
        }
        if let Some(text) = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
            if !text.contains('\\') {
                return Some(Value::from(text));
            }
        }
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
pub fn splice_request(id: u64, method: &str, raw: &str) -> String {
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
#[derive(Debug)]
pub struct CallPeek<'a> {
    name_raw: Raw<'a>,
    pub meta: Option<MetaPeek>,
    /// The params text this was read from (to splice a new name in).
    params: &'a str,
}

/// [`CallPeek`] as serde's derived reading sees it: the reference the hand reading is tested against.
#[cfg(test)]
#[derive(Deserialize)]
struct SerdeCallPeek<'a> {
    #[serde(borrow, rename = "name")]
    name_raw: &'a RawValue,
    #[serde(default, rename = "_meta", deserialize_with = "meta_object")]
    meta: Option<MetaPeek>,
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

#[cfg(test)]
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
    pub fn read(params: Raw<'a>) -> Option<CallPeek<'a>> {
        let peek = Self::read_plain(params.get())?;
        peek.name().map(|_| peek)
    }

    /// By hand (`raw_members`; `_meta`, when there is one, by serde as before).
    /// `None` (also for a top-level key with an escape) leaves the call to the full reading.
    fn read_plain(params: &'a str) -> Option<CallPeek<'a>> {
        let (mut name_raw, mut meta) = (None, None);
        let (mut seen_name, mut seen_meta) = (false, false);
        members(params, &mut |key, value| match key {
            "name" => once(&mut name_raw, &mut seen_name, Some(Raw(value))),
            "_meta" => once(&mut meta, &mut seen_meta, Some(object_from(value)?)),
            _ => Some(()),
        })?;
        Some(CallPeek {
            name_raw: name_raw?,
            meta,
            params,
        })
    }

    /// The tool's name (`None` when `name` is not a string).
    pub fn name(&self) -> Option<Cow<'a, str>> {
        let raw = self.name_raw.get();
        // A validated string without escapes is its own contents.
        match raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
            Some(plain) if !plain.contains('\\') => Some(Cow::Borrowed(plain)),
            _ => serde_json::from_str::<Cow<'a, str>>(raw).ok(),
        }
    }

    /// The params with `name` replaced by `new_name` and every other byte kept.
    pub fn with_name(&self, new_name: &str) -> Option<Box<str>> {
        // The raw name is a slice of the params text: its offset says where to cut.
        let start =
            (self.name_raw.get().as_ptr() as usize).checked_sub(self.params.as_ptr() as usize)?;
        let end = start.checked_add(self.name_raw.get().len())?;
        let mut text = String::with_capacity(self.params.len() + new_name.len() + 2);
        text.push_str(self.params.get(..start)?);
        super::json_text::push_str(&mut text, new_name);
        text.push_str(self.params.get(end..)?);
        Some(text.into_boxed_str())
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
#[derive(Debug)]
pub struct MetaOnly {
    pub meta: Option<MetaPeek>,
}

impl MetaOnly {
    pub fn read(params: Raw<'_>) -> Option<MetaOnly> {
        // By hand; `None` (also for a top-level key with an escape) leaves the request to the full reading.
        let (mut meta, mut seen) = (None, false);
        members(params.get(), &mut |key, value| match key {
            "_meta" => once(&mut meta, &mut seen, Some(object_from(value)?)),
            _ => Some(()),
        })?;
        Some(MetaOnly { meta })
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
                splice_request(u64::MAX, method, params.get()),
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
            MetaOnly::read(Raw::from(&*raw)).map(|m| m.meta.map(|m| m.is_modern()))
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
        assert!(CallPeek::read(Raw::from(&*array)).is_none());
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

    /// What an envelope read, comparable.
    type Seen = [Option<String>; 6];
    fn seen(e: &RawEnvelope<'_>) -> Seen {
        let raw = |v: Option<Raw<'_>>| v.map(|v| v.get().to_string());
        [
            raw(e.jsonrpc),
            raw(e.id),
            e.method.as_deref().map(str::to_string),
            raw(e.params),
            raw(e.result),
            raw(e.error),
        ]
    }

    /// The hand reading, when it reads anything, reads what serde's derived one reads.
    /// And it reads only text the outline calls plain.
    fn agrees(text: &str) -> Result<(), String> {
        let serde = object_from::<SerdeEnvelope>(text).map(|e| seen(&e.into()));
        match RawEnvelope::read_plain(text).map(|e| seen(&e)) {
            Some(plain) if Some(&plain) != serde.as_ref() => {
                Err(format!("{text:?}: hand {plain:?}, serde {serde:?}"))
            }
            Some(_) if !super::super::outline::outline(text).is_plain() => {
                Err(format!("{text:?}: read by hand, but not plain"))
            }
            _ => Ok(()),
        }
    }

    const ODD_ENVELOPES: &[&str] = &[
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}"#,
        r#"{"result":{"content":[]},"jsonrpc":"2.0","id":7}"#,
        r#" {"id":null,"method":null,"params":null,"result":null,"error":null,"jsonrpc":null} "#,
        r#"{"id":1,"id":2}"#,
        r#"{"id":null,"id":2}"#,
        r#"{"method":"a","method":"a"}"#,
        r#"{"method":5}"#,
        r#"{"method":"a\\b"}"#,
        r#"{"method":"a\u0062"}"#,
        r#"{"meth\u006fd":"x"}"#,
        r#"{"x":1,"x":2,"id":3}"#,
        r#"{"id":-0.5e3,"result":[1,{"a":true}],"error":false}"#,
        r#"{"id":1e999}"#,
        r#"{"id":01}"#,
        r#"{"id":1,}"#,
        r#"{"id" 1}"#,
        r#"{"params":"\ud800"}"#,
        "{\"params\":\"\t\"}",
        r#"{"id":1}]"#,
        "{\"id\":1}\u{a0}",
        "\t\r\n{\"id\":\"\u{e9}\"}\n",
        r#"["2.0",1]"#,
        r#"{"id":1,"result":1,"error":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":nul}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":truex}"#,
        r#"{"id":{"a":[[[[]]]]}}"#,
        r#"{"id":1,"result":{"n":[-0.5E-3,1.0e+2]}}"#,
    ];

    #[test]
    fn an_id_read_by_hand_is_the_id_serde_reads() {
        for id in [
            "0",
            "7",
            "18446744073709551615",
            "18446744073709551616",
            "-1",
            "-0",
            "1.5",
            r#""""#,
            r#""c-1 é""#,
            r#""a\"b""#,
            r#""\u0041""#,
        ] {
            let text = format!(r#"{{"id":{id}}}"#);
            let plain = RawEnvelope::read(&text).and_then(|e| e.plain_id());
            assert_eq!(plain, serde_json::from_str::<Value>(id).ok(), "{id}");
        }
    }

    #[test]
    fn only_plain_text_is_read_without_its_outline() {
        let nested =
            |n: usize| format!(r#"{{"id":1,"result":{}{}}}"#, "[".repeat(n), "]".repeat(n));
        for (text, plain) in [
            (nested(126), true),
            (nested(127), false),
            (r#"{"id":1,"result":1e2}"#.to_string(), false),
            (format!(r#"{{"id":1,"result":{}}}"#, "9".repeat(301)), false),
            (r#"{"id":1,"result":"é"}"#.to_string(), true),
        ] {
            assert_eq!(
                RawEnvelope::read_if_plain(&text).is_some(),
                plain,
                "{}",
                text.get(..40).unwrap_or(&text)
            );
            assert_eq!(super::super::outline::outline(&text).is_plain(), plain);
        }
    }

    #[test]
    fn the_hand_reading_of_an_envelope_agrees_with_serde() {
        for text in ODD_ENVELOPES {
            assert_eq!(agrees(text), Ok(()));
        }
        // The usual messages are read by hand (else the hand reading buys nothing).
        for usual in ODD_ENVELOPES.iter().take(3) {
            assert!(RawEnvelope::read_plain(usual).is_some(), "{usual}");
        }
    }

    proptest::proptest! {
        /// Odd bytes anywhere in an envelope: the hand reading never reads one differently.
        #[test]
        fn the_hand_reading_agrees_with_serde_over_mutated_envelopes(
            base in 0..ODD_ENVELOPES.len(),
            edits in proptest::collection::vec((0usize..200, proptest::sample::select(&[
                "\"", "\\", ",", ":", "{", "}", "[", "]", " ", "null", "1", "-", "e", "\\u0041",
                "\"id\":", "\"method\":", "\"result\":", "\u{1}", "é", "\"\"", "nul", "E", "0.", "[[[",
            ][..])), 1..4),
            cut in proptest::option::of(0usize..200),
        ) {
            let mut text = crate::protocol::mutated_text::with_inserts(
                ODD_ENVELOPES.get(base).copied().unwrap_or_default(),
                &edits,
            );
            if let Some(mut cut) = cut.filter(|&c| c < text.len()) {
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                text.truncate(cut);
            }
            proptest::prop_assert_eq!(agrees(&text), Ok(()));
        }
    }

    #[test]
    fn the_hand_reading_of_call_params_agrees_with_serde() {
        type Read = (String, Option<(Option<Value>, Option<Value>)>);
        let view = |p: CallPeek<'_>| -> Read {
            let meta = p.meta.map(|m| (m.progress_token, m.protocol_version));
            (p.name_raw.get().to_string(), meta)
        };
        for params in [
            r#"{"name":"echo","arguments":{"message":"x"}}"#,
            r#"{"arguments":{},"name":"echo","_meta":{"progressToken":"p"}}"#,
            r#"{"name":"e","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
            r#"{"name":"e","_meta":{"progressToken":null}}"#,
            r#"{"name":"e","_meta":null}"#,
            r#"{"name":"e","_meta":[]}"#,
            r#"{"name":"e","_meta":{},"_meta":{}}"#,
            r#"{"name":"e","name":"f"}"#,
            r#"{"name":null}"#,
            r#"{"name":5}"#,
            r#"{"nam\u0065":"e"}"#,
            r#"{"arguments":{}}"#,
            r#"{"name":"a\"b"}"#,
            "{}",
        ] {
            let serde = object_from::<SerdeCallPeek>(params).map(|p| {
                view(CallPeek {
                    name_raw: p.name_raw.into(),
                    meta: p.meta,
                    params,
                })
            });
            if let Some(plain) = CallPeek::read_plain(params).map(view) {
                assert_eq!(Some(plain), serde, "{params}");
            }
        }
        // The usual params, escapes in values included, are read by hand.
        for usual in [
            r#"{"name":"echo","arguments":{}}"#,
            r#"{"name":"e\u0063ho","arguments":{"m":"\u00e9\n"},"_meta":{"progressToken":1}}"#,
        ] {
            assert!(CallPeek::read_plain(usual).is_some(), "{usual}");
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
        let peek = CallPeek::read(Raw::from(&*boxed));
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
            .map(|r| r.to_string());
        assert_eq!(
            renamed.as_deref(),
            Some(r#"{"name":"a\"b","arguments":{"message":"x"},"_meta":{"progressToken":"p"}}"#)
        );
        let Ok(numeric) = RawValue::from_string(r#"{"name":5}"#.to_string()) else {
            panic!("not raw");
        };
        assert!(CallPeek::read(Raw::from(&*numeric)).is_none());
        assert_eq!(
            splice_request(3, "tools/call", boxed.get()),
            format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{params}}}"#)
        );
    }
}
