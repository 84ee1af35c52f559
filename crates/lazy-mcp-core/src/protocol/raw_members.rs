//! The members of one JSON object, each value left raw and validated, read by
//! hand: serde_json's `&RawValue` costs ~600 instructions even for `"2.0"` or `1`,
//! and these reads were a fifth of the core's work per forwarded call. Only the
//! plain case is read here, a strict subset of JSON as serde_json accepts it: a
//! member's key with an escape, a value nested deeper than [`MAX_NESTING`], or
//! anything malformed makes [`members`] give `None`, and the caller reads the
//! text with serde or leaves it to the full reading, which then decides exactly
//! as it always did. Tests hold the readings equal.

/// Deeper values are left to serde. A member of an object nested this deep is
/// at most `outline::MAX_DEPTH` deep, the object counted: so whatever the hand
/// reading reads is also plain in the outline's sense (`Outline::is_plain`), and
/// the raw path needs no outline of it.
pub const MAX_NESTING: u32 = super::outline::MAX_DEPTH as u32 - 1;

/// Longer numbers, and any with an exponent, are left to serde: the outline
/// calls them unusual (`Outline::unusual_number`).
const MAX_NUMBER_LEN: usize = 300;

/// JSON's whitespace (serde_json skips exactly these four). Inlined: called
/// around every token, and compact JSON usually has none to skip.
#[inline(always)]
fn skip_ws(bytes: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(at) {
        at += 1;
    }
    at
}

/// The end of the string whose opening quote is at `at`, when it is valid
/// (no control character, valid escapes) and has escapes only when `escapes`.
fn string_end(bytes: &[u8], at: usize, escapes: bool) -> Option<usize> {
    (bytes.get(at) == Some(&b'"')).then_some(())?;
    let mut i = at + 1;
    loop {
        i = next_special(bytes, i);
        match bytes.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' if escapes => match bytes.get(i + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                // Any four hex digits (serde checks no more when it skips a value).
                b'u' => {
                    let hex = bytes.get(i + 2..i + 6)?;
                    hex.iter().all(u8::is_ascii_hexdigit).then_some(())?;
                    i += 6;
                }
                _ => return None,
            },
            _ => return None,
        }
    }
}

/// The index of the first `"`, `\\` or control character at or after `from`
/// (the length if none), a word at a time (SWAR) as serde_json skips strings: a
/// 10 MB result is skipped, not stepped through.
fn next_special(bytes: &[u8], from: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // Each is non-zero when some byte matches. A borrow may flag bytes after a
    // match, never one before: the lowest flag of a little-endian word is the first.
    let equal = |word: u64, byte: u8| {
        let x = word ^ (ONES * u64::from(byte));
        x.wrapping_sub(ONES) & !x & HIGHS
    };
    let below_space = |word: u64| word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    let mut i = from;
    for chunk in bytes.get(from..).unwrap_or_default().chunks_exact(8) {
        let word = u64::from_le_bytes(<[u8; 8]>::try_from(chunk).unwrap_or([b'"'; 8]));
        let found = equal(word, b'"') | equal(word, b'\\') | below_space(word);
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&byte) = bytes.get(i) {
        if byte == b'"' || byte == b'\\' || byte < 0x20 {
            return i;
        }
        i += 1;
    }
    i
}

fn digits_end(bytes: &[u8], mut at: usize) -> usize {
    while let Some(b'0'..=b'9') = bytes.get(at) {
        at += 1;
    }
    at
}

/// The end of the number at `at`, in JSON's grammar (serde_json's, for skipped
/// values), unless it is unusual (an exponent, or long: [`MAX_NUMBER_LEN`]).
fn number_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start;
    if bytes.get(at) == Some(&b'-') {
        at += 1;
    }
    at = match bytes.get(at)? {
        b'0' => at + 1,
        b'1'..=b'9' => digits_end(bytes, at + 1),
        _ => return None,
    };
    if bytes.get(at) == Some(&b'.') {
        let end = digits_end(bytes, at + 1);
        (end > at + 1).then_some(())?;
        at = end;
    }
    // `01`: serde refuses a second leading digit; an exponent is left to serde.
    let usual = !matches!(bytes.get(at), Some(b'0'..=b'9' | b'e' | b'E'));
    (usual && at - start < MAX_NUMBER_LEN).then_some(at)
}

/// The end of the JSON value starting at `at` (no leading whitespace), when it
/// is plain (module comment). Nesting is tracked without recursion.
fn value_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    // A stack of bits, the innermost container lowest: set when it is an object.
    // Shifted by one (inline), never by a variable amount (a 128-bit shift call).
    let mut objects: u128 = 0;
    let mut depth: u32 = 0;
    loop {
        // A value at `at`.
        at = match bytes.get(at)? {
            b'"' => string_end(bytes, at, true)?,
            b'-' | b'0'..=b'9' => number_end(bytes, at)?,
            b't' => literal(bytes, at, b"true")?,
            b'f' => literal(bytes, at, b"false")?,
            b'n' => literal(bytes, at, b"null")?,
            open @ (b'{' | b'[') => {
                (depth < MAX_NESTING).then_some(())?;
                let object = *open == b'{';
                objects = (objects << 1) | u128::from(object);
                depth += 1;
                at = skip_ws(bytes, at + 1);
                let close = if object { b'}' } else { b']' };
                if bytes.get(at) == Some(&close) {
                    depth -= 1;
                    objects >>= 1;
                    at + 1
                } else {
                    if object {
                        at = key_then_colon(bytes, at)?;
                    }
                    continue;
                }
            }
            _ => return None,
        };
        // After a value: close containers or go on to the next member/element.
        loop {
            if depth == 0 {
                return Some(at);
            }
            at = skip_ws(bytes, at);
            let object = objects & 1 != 0;
            match (bytes.get(at)?, object) {
                (b',', _) => {
                    at = skip_ws(bytes, at + 1);
                    if object {
                        at = key_then_colon(bytes, at)?;
                    }
                    break;
                }
                (b'}', true) | (b']', false) => {
                    depth -= 1;
                    objects >>= 1;
                    at += 1;
                }
                _ => return None,
            }
        }
    }
}

/// A member's key and colon at `at`; the offset of its value.
fn key_then_colon(bytes: &[u8], at: usize) -> Option<usize> {
    let at = skip_ws(bytes, string_end(bytes, at, true)?);
    (bytes.get(at) == Some(&b':')).then(|| skip_ws(bytes, at + 1))
}

fn literal(bytes: &[u8], at: usize, word: &[u8]) -> Option<usize> {
    let end = at + word.len();
    (bytes.get(at..end) == Some(word)).then_some(end)
}

/// Calls `each(key, value)` for every member of the object `text`, in order,
/// while it returns `Some`; `value` is the member's raw JSON text. `None` when
/// `text` is not one plain object (module comment) or `each` gave `None`: the
/// caller then reads it with serde.
/// (`dyn`: one copy in the `.wasm` for its three callers.)
pub fn members<'a>(
    text: &'a str,
    each: &mut dyn FnMut(&'a str, &'a str) -> Option<()>,
) -> Option<()> {
    let bytes = text.as_bytes();
    let mut at = skip_ws(bytes, 0);
    (bytes.get(at) == Some(&b'{')).then_some(())?;
    at = skip_ws(bytes, at + 1);
    if bytes.get(at) == Some(&b'}') {
        at += 1;
    } else {
        loop {
            // Keys without escapes: serde matches field names after unescaping.
            let key_end = string_end(bytes, at, false)?;
            let key = text.get(at + 1..key_end - 1)?;
            at = skip_ws(bytes, key_end);
            (bytes.get(at) == Some(&b':')).then_some(())?;
            at = skip_ws(bytes, at + 1);
            let end = value_end(bytes, at)?;
            each(key, text.get(at..end)?)?;
            at = skip_ws(bytes, end);
            match bytes.get(at) {
                Some(b',') => at = skip_ws(bytes, at + 1),
                Some(b'}') => {
                    at += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    (skip_ws(bytes, at) == bytes.len()).then_some(())
}

/// Sets `slot` once: a second member of the same name gives `None` (serde's
/// derived reading refuses a duplicate field).
pub fn once<T>(slot: &mut Option<T>, seen: &mut bool, value: Option<T>) -> Option<()> {
    if std::mem::replace(seen, true) {
        return None;
    }
    *slot = value;
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::value::RawValue;

    fn read(text: &str) -> Option<Vec<(String, String)>> {
        let mut out = Vec::new();
        members(text, &mut |k, v| {
            out.push((k.to_string(), v.to_string()));
            Some(())
        })?;
        Some(out)
    }

    #[test]
    fn reads_plain_objects_and_leaves_anything_else_to_serde() {
        assert_eq!(read(" {} \n"), Some(vec![]));
        assert_eq!(
            read(r#"{"a" : -1.5 ,"b":[1,{"c":"\n\/"}, [ ], {}], "d":null,"e":"x\"y"}"#),
            Some(vec![
                ("a".into(), "-1.5".into()),
                ("b".into(), r#"[1,{"c":"\n\/"}, [ ], {}]"#.into()),
                ("d".into(), "null".into()),
                ("e".into(), r#""x\"y""#.into()),
            ])
        );
        for odd in [
            "",
            "[]",
            "{",
            "{,}",
            r#"{"a":1,}"#,
            r#"{"a":[1,]}"#,
            r#"{"a":{"b":1,}}"#,
            r#"{"a":[1}"#,
            r#"{"a":{"b"}}"#,
            r#"{"a":1 "b":2}"#,
            r#"{"a":}"#,
            r#"{"a":01}"#,
            r#"{"a":-}"#,
            r#"{"a":1.}"#,
            r#"{"a":1e}"#,
            r#"{"a":1e5}"#,
            r#"{"a":-0.5E-3}"#,
            r#"{"a":1x}"#,
            r#"{"a":nul}"#,
            r#"{"a":"\u00g9"}"#,
            r#"{"a":"\u00e"}"#,
            r#"{"a":"\x"}"#,
            r#"{"\u0061":1}"#,
            r#"{"a\n":1}"#,
            "{\"a\u{1}\":1}",
            "{\"a\":\"\t\"}",
            r#"{"a":1} x"#,
            "\u{a0}{}",
            r#"{"a":"b}"#,
            r#"{a:1}"#,
        ] {
            assert_eq!(read(odd), None, "{odd}");
        }
        let deep = |n: usize| format!(r#"{{"a":{}{}}}"#, "[".repeat(n), "]".repeat(n));
        assert!(read(&deep(126)).is_some());
        assert_eq!(read(&deep(127)), None);
        let long = |n: usize| format!(r#"{{"a":{}}}"#, "1".repeat(n));
        assert!(read(&long(299)).is_some());
        assert_eq!(read(&long(300)), None);
    }

    /// Every value the hand reading takes, serde takes whole, with the same text.
    #[test]
    fn every_value_read_by_hand_is_one_serde_reads() {
        for value in [
            "0",
            "-0.0",
            "123456789012345678901234567890",
            r#""é\\\"\b\f\n\r\t\/\uD800\u00e9\uFFFF""#,
            r#"[[],{},[{"a":[true,false,null]}]]"#,
            r#"{"":""}"#,
        ] {
            let text = format!(r#"{{"v":{value}}}"#);
            assert_eq!(read(&text), Some(vec![("v".into(), value.into())]));
            let serde = serde_json::from_str::<&RawValue>(value).map(RawValue::get);
            assert_eq!(serde.ok(), Some(value));
        }
    }

    proptest::proptest! {
        /// Token soup: whatever the hand reading takes as one value, serde takes whole.
        #[test]
        fn a_value_the_hand_reading_takes_serde_takes(
            tokens in proptest::collection::vec(proptest::sample::select(&[
                "{", "}", "[", "]", ",", ":", " ", "\n", "\"", "\"a\"", "\"\\n\"", "\\", "\\\"", "\\u0041",
                "0", "1", "-", ".", "5", "e", "E", "+", "true", "false", "null", "nul", "\u{1}", "é", "x",
            ][..]), 1..24),
        ) {
            let text: String = tokens.concat();
            if let Some(end) = value_end(text.as_bytes(), 0) {
                let value = text.get(..end).unwrap_or_default();
                let serde = serde_json::from_str::<&RawValue>(value).map(RawValue::get);
                proptest::prop_assert_eq!(serde.ok(), Some(value), "{:?}", text);
                // And where it stopped, serde's stream reading stops too.
                let mut stream = serde_json::Deserializer::from_str(&text).into_iter::<&RawValue>();
                if let Some(Ok(_)) = stream.next() {
                    proptest::prop_assert_eq!(stream.byte_offset(), end, "{:?}", text);
                }
            }
        }
    }

    #[test]
    fn the_word_at_a_time_skip_stops_at_the_first_special_byte() {
        for special in [b'"', b'\\', 0, 0x1f] {
            for at in 0..20 {
                let mut bytes = vec![b'a'; 20];
                bytes.extend_from_slice(&[0x20, 0x7f, 0x80, 0xff]);
                if let Some(b) = bytes.get_mut(at) {
                    *b = special;
                }
                // Bytes just above a match must not hide it.
                if let Some(b) = bytes.get_mut(at + 1) {
                    *b = 0x21;
                }
                assert_eq!(next_special(&bytes, 0), at, "{special} at {at}");
            }
        }
        assert_eq!(
            next_special(&[b' ', 0x7f, 0x80, 0xff, b'!', b'#', b'['], 0),
            7
        );
    }

    #[test]
    fn a_second_member_of_the_same_name_is_refused() {
        let (mut slot, mut seen) = (None, false);
        assert_eq!(once(&mut slot, &mut seen, Some(1)), Some(()));
        assert_eq!(once(&mut slot, &mut seen, Some(2)), None);
        assert_eq!(slot, Some(1));
    }
}
