//! Counts in words, for every text the core writes (logs, announcements, the
//! snapshot's summary, MCP Diagnostics): "1 tool", "2 tools", never "1 tools".

/// `n` and the noun, singular for exactly one: `count(1, "tool")` → "1 tool".
/// Regular plurals only (noun + "s"); use [`count_as`] for any other.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `n` with `one` when it is exactly one, else `many`: a verb phrase or an
/// irregular plural (`count_as(2, "needs auth", "need auth")` → "2 need auth").
pub fn count_as(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_everything_else_plural() {
        assert_eq!(count(0, "tool"), "0 tools");
        assert_eq!(count(1, "tool"), "1 tool");
        assert_eq!(count(2, "server"), "2 servers");
        assert_eq!(count(1, "resource template"), "1 resource template");
        assert_eq!(count_as(1, "needs auth", "need auth"), "1 needs auth");
        assert_eq!(count_as(3, "needs auth", "need auth"), "3 need auth");
    }
}
