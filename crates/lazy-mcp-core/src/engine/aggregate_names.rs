//! Names of tools and prompts on the aggregate endpoint.
//!
//! The rule (stable, valid, collision-free):
//!
//! 1. The plain name is `<server>__<tool>`, where every character of the server
//!    and tool names outside `[A-Za-z0-9_-]` is replaced by `_`.
//! 2. When the plain name is longer than 64 characters, or another (server, tool)
//!    pair of the same list produces the same plain name, the name becomes the
//!    first 55 characters of the plain name, `_`, and 8 lower-case hex digits of
//!    the FNV-1a 64-bit hash of `server` + NUL + `tool` (low 32 bits) — 64
//!    characters at most.
//! 3. Should that still collide (never seen in practice), a counter is hashed in
//!    too, in the order of (server, tool), until the name is unique.
//!
//! A name therefore only depends on its own server and tool, except when two
//! pairs would otherwise collide — then both get the hashed form.

use crate::engine::stable_hash::fnv1a64;
use crate::vec_map::VecSet;

pub const SEPARATOR: &str = "__";
pub const MAX_LEN: usize = 64;
const KEEP: usize = 55;

fn sanitize(part: &str) -> String {
    part.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn plain_name(server: &str, item: &str) -> String {
    format!("{}{SEPARATOR}{}", sanitize(server), sanitize(item))
}

fn hashed_name(plain: &str, server: &str, item: &str, salt: u32) -> String {
    let mut key = format!("{server}\u{0}{item}");
    if salt > 0 {
        key.push_str(&format!("\u{0}{salt}"));
    }
    let hash = fnv1a64(key.as_bytes()) & 0xffff_ffff;
    let head: String = plain.chars().take(KEEP).collect();
    format!("{head}_{hash:08x}")
}

/// Exposed names for `(server, item)` pairs, in the same order as given.
pub fn aggregate_names(pairs: &[(String, String)]) -> Vec<String> {
    let plains: Vec<String> = pairs
        .iter()
        .map(|(server, item)| plain_name(server, item))
        .collect();
    // Sorted, so a name's count is the length of its run (thousands of tools:
    // no per-name insert).
    let mut sorted_plains: Vec<&String> = plains.iter().collect();
    crate::sorting::sort(&mut sorted_plains);
    let mut names: Vec<String> = pairs
        .iter()
        .zip(&plains)
        .map(|((server, item), plain)| {
            let first = sorted_plains.partition_point(|p| *p < plain);
            let unique = sorted_plains.partition_point(|p| *p <= plain) - first <= 1;
            if unique && plain.len() <= MAX_LEN {
                plain.clone()
            } else {
                hashed_name(plain, server, item, 0)
            }
        })
        .collect();
    // Rule 3: resolve any remaining duplicate, in (server, item) order.
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    crate::sorting::sort_by(&mut order, |a, b| pairs.get(*a).cmp(&pairs.get(*b)));
    let mut taken: VecSet<String> = VecSet::new();
    for index in order {
        let (Some((server, item)), Some(plain)) = (pairs.get(index), plains.get(index)) else {
            continue;
        };
        let Some(name) = names.get_mut(index) else {
            continue;
        };
        let mut salt = 1;
        while taken.contains(name.as_str()) {
            *name = hashed_name(plain, server, item, salt);
            salt += 1;
        }
        taken.insert(name.clone());
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(server: &str, item: &str) -> (String, String) {
        (server.to_string(), item.to_string())
    }

    fn valid(name: &str) -> bool {
        name.len() <= MAX_LEN
            && !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    }

    #[test]
    fn plain_names_when_short_and_unique() {
        let names = aggregate_names(&[pair("github", "create_issue"), pair("my.server", "a/b")]);
        assert_eq!(names, vec!["github__create_issue", "my_server__a_b"]);
    }

    #[test]
    fn long_and_colliding_names_are_shortened_deterministically() {
        let long_tool = "x".repeat(80);
        let pairs = vec![
            pair("srv", &long_tool),
            pair("a.b", "t"),
            pair("a_b", "t"),
            pair("everything", "echo"),
        ];
        let names = aggregate_names(&pairs);
        assert_eq!(names, aggregate_names(&pairs), "same input, same names");
        assert!(names.iter().all(|n| valid(n)), "{names:?}");
        let unique: VecSet<&String> = names.iter().collect();
        assert_eq!(unique.len(), names.len());
        assert_eq!(names.get(3).map(String::as_str), Some("everything__echo"));
        assert_eq!(names.first().map(String::len), Some(64));
        // Order of the input does not change a name.
        let mut reversed = pairs.clone();
        reversed.reverse();
        let mut again = aggregate_names(&reversed);
        again.reverse();
        assert_eq!(again, names);
    }
}
