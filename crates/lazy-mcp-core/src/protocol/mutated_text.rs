//! Test support: JSON texts damaged on purpose, for the property tests that hold the hand
//! readers (`raw_members`, `raw_message`, `client_message`) equal to serde's reading.

/// `base` with each `(at, insert)` inserted in turn, `at` moved back to a char boundary.
pub(crate) fn with_inserts(base: &str, edits: &[(usize, &str)]) -> String {
    let mut text = base.to_string();
    for &(at, insert) in edits {
        let mut at = at.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        text.insert_str(at, insert);
    }
    text
}
