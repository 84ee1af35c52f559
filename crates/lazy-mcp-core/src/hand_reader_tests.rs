//! Tests' check shared by the hand-written readers (`*_json.rs`): each input
//! read by the reader and by a test-only copy of the derive it replaced.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// `text` read by the hand reader of `Hand` and by `Derived`, the test-only
/// copy of the derive it replaced, each written back as JSON (or its error;
/// the derive's names the type it was derived for, so `name` stands there).
pub(crate) fn read_both<Hand, Derived>(
    text: &str,
    name: &str,
) -> (Result<Value, String>, Result<Value, String>)
where
    Hand: DeserializeOwned + Serialize,
    Derived: DeserializeOwned + Serialize,
{
    let hand = serde_json::from_str::<Hand>(text)
        .map(|h| serde_json::to_value(h).unwrap())
        .map_err(|e| e.to_string());
    let derived = serde_json::from_str::<Derived>(text)
        .map(|d| serde_json::to_value(d).unwrap())
        .map_err(|e| {
            e.to_string()
                .replace("struct Derived", &format!("struct {name}"))
        });
    (hand, derived)
}

/// Every text reads the same with both (`both` gives the hand reader's result,
/// then the derive's), except an array, which the hand reader refuses as
/// "struct `name`" (the derive read the fields by position).
pub(crate) fn agree_with_derive(
    texts: &[String],
    both: impl Fn(&str) -> (Result<Value, String>, Result<Value, String>),
    name: &str,
) {
    let refusal = format!("invalid type: sequence, expected struct {name}");
    for text in texts {
        let (hand, derived) = both(text);
        if text.starts_with('[') {
            assert!(
                hand.as_ref().unwrap_err().starts_with(&refusal),
                "{text}: {hand:?}"
            );
        } else {
            assert_eq!(hand, derived, "{text}");
        }
    }
}

/// `full` (an object with every member set) reads the same with both and
/// back as itself; so does `full` without each one member (a member the hand
/// reader forgot would read as missing or empty). Gives each member's name
/// with the hand reader's result without it.
pub(crate) fn agree_without_each_member(
    full: &Value,
    both: impl Fn(&str) -> (Result<Value, String>, Result<Value, String>),
) -> Vec<(String, Result<Value, String>)> {
    let (hand, derived) = both(&full.to_string());
    assert_eq!(hand, derived);
    assert_eq!(hand.as_ref().unwrap(), full);
    let Value::Object(members) = full else {
        unreachable!()
    };
    let mut read = Vec::new();
    for name in members.keys() {
        let mut value = full.clone();
        value.as_object_mut().unwrap().remove(name);
        let (hand, derived) = both(&value.to_string());
        assert_eq!(hand, derived, "{name}");
        read.push((name.clone(), hand));
    }
    read
}
