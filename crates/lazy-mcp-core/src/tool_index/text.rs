//! Words out of tool names, descriptions and queries: split identifiers
//! (`snake_case`, `camelCase`, `kebab-case`, `dotted.names`), lowercase, drop
//! stopwords and one-letter pieces, strip common English suffixes, and expand a
//! query word to the few words software descriptions use for the same action.

use serde_json::Value;

/// Words too common in tool descriptions and requests to tell tools apart.
const STOPWORDS: &[&str] = &[
    "a", "about", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by",
    "can", "could", "do", "does", "e", "eg", "etc", "for", "from", "g", "give", "has", "have",
    "how", "i", "ie", "if", "in", "into", "is", "it", "its", "let", "me", "my", "of", "on", "one",
    "or", "our", "please", "so", "some", "such", "than", "that", "the", "their", "them", "then",
    "there", "these", "this", "those", "to", "tool", "tools", "us", "use", "used", "using", "via",
    "want", "was", "we", "were", "what", "when", "where", "which", "while", "who", "will", "with",
    "would", "you", "your",
];

/// Groups of words that name the same thing in tool vocabularies. A query word
/// in a group also searches for the group's other words, at a lower weight.
/// Kept small and general (CRUD verbs, files, version control), never tuned to
/// one query. Entries are written as they are *after* stemming.
const SYNONYM_GROUPS: &[&[&str]] = &[
    &[
        "delet", "remov", "eras", "drop", "destroy", "purg", "forget",
    ],
    &["get", "fetch", "retriev", "read", "obtain"],
    &["creat", "make", "new", "add"],
    &["updat", "modify", "chang", "edit", "alter"],
    &["list", "enumerat", "show", "display", "view"],
    &["search", "find", "look", "query", "locat", "lookup"],
    &["directory", "dir", "folder"],
    &["file", "document"],
    &["move", "renam", "relocat"],
    &["writ", "save", "stor", "persist"],
    &["imag", "pictur", "photo", "screenshot"],
    &["compress", "zip", "gzip", "archiv"],
    &["run", "execut", "trigger", "start", "launch", "kick"],
    &["size", "big", "larg", "byte"],
    &["repo", "repository"],
    &["commit", "revision"],
    &["env", "environment"],
    &["config", "configuration"],
    &["toggl", "enabl", "disabl", "switch"],
    &["sum", "add", "plus", "total"],
    &["summary", "overview"],
    &["diff", "differenc", "compar"],
    &["relation", "link", "connection", "edg"],
    &["current", "now", "today", "latest"],
    &["permission", "access", "allow", "permit"],
];

/// Weight of a synonym relative to the word the user typed.
pub(crate) const SYNONYM_WEIGHT: f32 = 0.4;

/// Per first letter (a–z), one bit per length a stopword of that letter has:
/// most words of a description are ruled out without a search (the index
/// build asks this of every word of every tool).
const STOPWORD_SHAPES: [u32; 26] = {
    let mut shapes = [0u32; 26];
    let mut i = 0;
    while i < STOPWORDS.len() {
        // Checked when compiling: a stopword is 1–31 bytes and starts with a–z.
        #[allow(clippy::indexing_slicing)]
        {
            let word = STOPWORDS[i].as_bytes();
            shapes[(word[0] - b'a') as usize] |= 1 << word.len();
        }
        i += 1;
    }
    shapes
};

pub(super) fn is_stopword(word: &str) -> bool {
    let shape = word
        .bytes()
        .next()
        .and_then(|first| STOPWORD_SHAPES.get(usize::from(first.wrapping_sub(b'a'))))
        .is_some_and(|lengths| word.len() < 32 && lengths & (1 << word.len()) != 0);
    shape && STOPWORDS.binary_search(&word).is_ok()
}

/// Whether an identifier splits between `prev` and `cur` (`cur` followed by
/// `next`): `getHTTPResponse2` → `get`, `HTTP`, `Response`, `2`.
fn is_boundary(prev: char, cur: char, next: Option<char>) -> bool {
    (prev.is_lowercase() && cur.is_uppercase())
        || (prev.is_uppercase() && cur.is_uppercase() && next.is_some_and(char::is_lowercase))
        || (prev.is_alphabetic() && cur.is_numeric())
        || (prev.is_numeric() && cur.is_alphabetic())
}

fn is_vowel(c: u8) -> bool {
    matches!(c, b'a' | b'e' | b'i' | b'o' | b'u')
}

/// A light suffix stripper (a small subset of Porter's step 1 plus a final
/// silent `e`), so that `files`/`file`, `branches`/`branch`, `entities`/`entity`,
/// `staged`/`stage`/`staging` and `committed`/`commit` meet. Words of four
/// letters or fewer, and non-ASCII words, are left alone.
pub fn stem(word: &str) -> String {
    let mut w = word.to_string();
    stem_in_place(&mut w);
    w
}

fn stem_in_place(w: &mut String) {
    if w.len() <= 4 || !w.is_ascii() {
        return;
    }
    if w.ends_with("ies") || w.ends_with("ied") {
        w.truncate(w.len() - 3);
        w.push('y');
    } else if ["sses", "ches", "shes", "xes", "zes"]
        .iter()
        .any(|s| w.ends_with(s))
    {
        w.truncate(w.len() - 2);
    } else if w.ends_with('s') && !["ss", "us", "is"].iter().any(|s| w.ends_with(s)) {
        w.truncate(w.len() - 1);
    } else if w.len() > 5 && w.ends_with("ly") {
        w.truncate(w.len() - 2);
    } else if w.len() > 5 && w.ends_with("ing") {
        w.truncate(w.len() - 3);
        undouble(w);
    } else if w.len() > 4 && w.ends_with("ed") && !w.ends_with("eed") {
        w.truncate(w.len() - 2);
        undouble(w);
    }
    if w.len() > 4 && w.ends_with('e') {
        let bytes = w.as_bytes();
        let before = bytes
            .get(bytes.len().wrapping_sub(2))
            .copied()
            .unwrap_or(b'a');
        if !is_vowel(before) {
            w.truncate(w.len() - 1);
        }
    }
}

/// `committ` → `commit`, `stopp` → `stop`; keeps `ll`, `ss`, `zz` (`install`).
fn undouble(w: &mut String) {
    let bytes = w.as_bytes();
    let n = bytes.len();
    if n >= 4 {
        if let (Some(&a), Some(&b)) = (bytes.get(n - 1), bytes.get(n - 2)) {
            if a == b && !is_vowel(a) && !matches!(a, b'l' | b's' | b'z') {
                w.truncate(n - 1);
            }
        }
    }
}

/// The index terms of `text`, in order, with repeats.
pub fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    tokenize_each(text, &mut |term| out.push(term.to_string()));
    out
}

/// [`tokenize`] without an allocation per term: each term is handed to
/// `found` from one reused buffer (the index build sees every word of every
/// tool, most of them already known).
pub(super) fn tokenize_each(text: &str, found: &mut dyn FnMut(&str)) {
    let mut term = String::new();
    for run in text.split(|c: char| !c.is_alphanumeric()) {
        let mut start = 0;
        let mut prev: Option<char> = None;
        let mut chars = run.char_indices().peekable();
        while let Some((i, cur)) = chars.next() {
            let next = chars.peek().map(|(_, c)| *c);
            if prev.is_some_and(|p| is_boundary(p, cur, next)) {
                push_term(run.get(start..i), &mut term, found);
                start = i;
            }
            prev = Some(cur);
        }
        push_term(run.get(start..), &mut term, found);
    }
}

/// Lowercases and stems one identifier piece into `term` and hands it on,
/// unless it is a single character or a stopword.
fn push_term(piece: Option<&str>, term: &mut String, found: &mut dyn FnMut(&str)) {
    let Some(piece) = piece else {
        return;
    };
    if piece.chars().nth(1).is_none() {
        return;
    }
    term.clear();
    if piece.is_ascii() {
        term.push_str(piece);
        term.make_ascii_lowercase();
    } else {
        // `to_lowercase` of the whole piece: a final sigma lowers apart.
        term.push_str(&piece.to_lowercase());
    }
    if is_stopword(term) {
        return;
    }
    stem_in_place(term);
    found(term);
}

/// A word of a request that names a file (`notes.txt`, `src/main.rs`): what
/// matters for finding a tool is that it is a file, not what it is called.
fn is_file_name(word: &str) -> bool {
    let word = word.trim_matches(|c: char| !c.is_alphanumeric());
    match word.rsplit_once('.') {
        Some((stem, ext)) => {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && ext.chars().any(|c| c.is_ascii_alphabetic())
        }
        None => false,
    }
}

/// The index terms of a request: like [`tokenize`], but quoted text (an
/// argument value, such as a commit message) is left out and a file name
/// becomes the word `file`.
pub fn tokenize_query(query: &str) -> Vec<String> {
    let mut kept = String::new();
    let mut quote: Option<char> = None;
    let mut prev = ' ';
    for c in query.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if matches!(c, '"' | '\'' | '`' | '“') && !prev.is_alphanumeric() => {
                quote = Some(if c == '“' { '”' } else { c });
            }
            None => kept.push(c),
        }
        prev = c;
    }
    let words: Vec<&str> = kept
        .split_whitespace()
        .map(|w| if is_file_name(w) { "file" } else { w })
        .collect();
    tokenize(&words.join(" "))
}

/// The words a query term also searches for (not including itself).
pub fn synonyms(term: &str) -> impl Iterator<Item = &'static str> + '_ {
    SYNONYM_GROUPS
        .iter()
        .filter(move |group| group.contains(&term))
        .flat_map(|group| group.iter().copied())
        .filter(move |w| *w != term)
}

/// The words of a JSON schema a search matches: property names, titles,
/// descriptions and enum choices, a few levels deep.
pub(super) fn push_schema_words(schema: &Value, out: &mut String, depth: usize) {
    if depth > 3 {
        return;
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            out.push_str(name);
            out.push(' ');
            for key in ["title", "description"] {
                if let Some(d) = property.get(key).and_then(Value::as_str) {
                    out.push_str(d);
                    out.push(' ');
                }
            }
            let choices = property.get("enum").and_then(Value::as_array);
            for choice in choices.into_iter().flatten().filter_map(Value::as_str) {
                out.push_str(choice);
                out.push(' ');
            }
            push_schema_words(property, out, depth + 1);
        }
    }
    if let Some(items) = schema.get("items") {
        push_schema_words(items, out, depth + 1);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        let variants = schema.get(key).and_then(Value::as_array);
        for variant in variants.into_iter().flatten() {
            push_schema_words(variant, out, depth + 1);
        }
    }
    for key in ["$defs", "definitions"] {
        let defs = schema.get(key).and_then(Value::as_object);
        for def in defs.into_iter().flat_map(|d| d.values()) {
            push_schema_words(def, out, depth + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stopwords_are_sorted_for_binary_search() {
        let mut sorted = STOPWORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOPWORDS);
    }

    #[test]
    fn identifiers_split_in_every_common_style() {
        assert_eq!(tokenize("list_directory"), ["list", "directory"]);
        assert_eq!(tokenize("get-tiny-image"), ["get", "tiny", "imag"]);
        assert_eq!(tokenize("readMultipleFiles"), ["read", "multipl", "file"]);
        assert_eq!(tokenize("browser.navigate"), ["browser", "navigat"]);
        assert_eq!(tokenize("getHTTPResponse"), ["get", "http", "respons"]);
        assert_eq!(tokenize("sha256Sum"), ["sha", "256", "sum"]);
    }

    #[test]
    fn stopwords_and_single_letters_are_dropped() {
        assert_eq!(tokenize("What is the time in a city?"), ["time", "city"]);
        assert_eq!(tokenize("get_sum(a, b)"), ["get", "sum"]);
    }

    #[test]
    fn inflections_meet_at_one_stem() {
        for group in [
            &["file", "files"][..],
            &["branch", "branches"],
            &["entity", "entities"],
            &["directory", "directories"],
            &["stage", "staged", "staging", "stages"],
            &["commit", "commits", "committed", "committing"],
            &["create", "creates", "created", "creating"],
            &["delete", "deleted", "deletes", "deleting"],
            &["modify", "modified", "modifies"],
            &["search", "searches", "searching"],
            &["observation", "observations"],
        ] {
            let stems: Vec<String> = group.iter().map(|w| stem(w)).collect();
            assert!(
                stems.iter().all(|s| s == &stems[0]),
                "{group:?} → {stems:?}"
            );
        }
    }

    #[test]
    fn short_and_double_letter_words_survive_stemming() {
        assert_eq!(stem("status"), "status");
        assert_eq!(stem("access"), "access");
        assert_eq!(stem("analysis"), "analysis");
        assert_eq!(stem("install"), "install");
        assert_eq!(stem("uses"), "uses");
        assert_eq!(stem("need"), "need");
        assert_eq!(stem("enabled"), stem("enable"));
        assert_eq!(stem("toggles"), stem("toggle"));
    }

    #[test]
    fn queries_drop_quoted_values_and_see_file_names_as_files() {
        assert_eq!(
            tokenize_query("commit with the message 'fix typo' now"),
            ["commit", "messag", "now"]
        );
        assert_eq!(tokenize_query("save it to notes.txt"), ["save", "file"]);
        assert_eq!(tokenize_query("open src/main.rs, please"), ["open", "file"]);
        assert_eq!(
            tokenize_query("don't stage 'a b' yet"),
            ["don", "stag", "yet"]
        );
        assert_eq!(tokenize_query("bump to 1.2"), ["bump"]);
    }

    #[test]
    fn synonym_groups_are_written_as_stems() {
        for group in SYNONYM_GROUPS {
            for word in *group {
                assert_eq!(&stem(word), word, "synonym entry {word:?} is not a stem");
            }
        }
    }

    #[test]
    fn synonyms_expand_both_ways_but_not_to_themselves() {
        let of_remove: Vec<&str> = synonyms(&stem("remove")).collect();
        assert!(of_remove.contains(&"delet"));
        assert!(!of_remove.contains(&"remov"));
        assert!(synonyms("folder").any(|w| w == "directory"));
        assert!(synonyms("directory").any(|w| w == "folder"));
        assert_eq!(synonyms("zebra").count(), 0);
    }
}
