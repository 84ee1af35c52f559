//! Query-side typo correction (issue 27): a query word that neither the
//! catalogue nor the embedding table knows (`caculate`, `serch`, `fles`) is
//! replaced by the catalogue word it is a slip of (`calculate`, `search`,
//! `files`) before the lexical and the semantic side read the query. Without
//! it WordPiece cuts a slip into pieces whose vectors mean something else.

use super::embed::EmbeddingModel;
use super::search::edit_distance_within;
use super::text::is_stopword;
use std::borrow::Cow;
use std::collections::HashMap;

/// Query words corrected at most, per query: a thousand-word paste costs a
/// few vocabulary scans, not a thousand.
const MAX_CORRECTED_WORDS: usize = 8;
/// Words shorter than this are left alone (too many words are one edit from
/// a three-letter word).
const MIN_WORD: usize = 4;
/// Words longer than this are not words a person mistypes.
const MAX_WORD: usize = 30;
/// From this length on, two edits are a slip; below it, one.
const TWO_EDITS_FROM: usize = 6;

/// The catalogue's words (lower-case ASCII letters, identifiers split), each
/// with how often the catalogue uses it, sorted for lookups and first-letter
/// scans.
#[derive(Debug, Clone, Default)]
pub(super) struct Spelling {
    words: Vec<(Box<str>, u32)>,
}

/// The lower-case ASCII letter runs of `text`, split where an identifier
/// changes from lower to upper case (`getFileInfo` → get, file, info).
fn letter_runs(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while bytes.get(at).is_some_and(|b| !b.is_ascii_alphabetic()) {
            at += 1;
        }
        let start = at;
        while let Some(b) = bytes.get(at) {
            if !b.is_ascii_alphabetic() {
                break;
            }
            let split = at > start
                && b.is_ascii_uppercase()
                && bytes.get(at - 1).is_some_and(u8::is_ascii_lowercase);
            if split {
                break;
            }
            at += 1;
        }
        (at > start).then_some((start, at))
    })
}

impl Spelling {
    /// The vocabulary of the tools' texts (names, titles, descriptions,
    /// parameters, server names).
    pub fn build<'a>(texts: impl Iterator<Item = &'a str>) -> Spelling {
        let mut counts: HashMap<String, u32> = HashMap::new();
        for text in texts {
            for (start, end) in letter_runs(text) {
                let Some(word) = text.get(start..end) else {
                    continue;
                };
                if word.len() >= 2 && word.len() <= MAX_WORD {
                    *counts.entry(word.to_ascii_lowercase()).or_default() += 1;
                }
            }
        }
        let mut words: Vec<(Box<str>, u32)> = counts
            .into_iter()
            .map(|(w, n)| (w.into_boxed_str(), n))
            .collect();
        words.sort_unstable();
        Spelling { words }
    }

    fn knows(&self, word: &str) -> bool {
        self.words
            .binary_search_by(|(w, _)| w.as_ref().cmp(word))
            .is_ok()
    }

    /// The catalogue word `word` is most likely a slip of: fewest edits
    /// (insert, delete, substitute, swap; one for words under
    /// [`TWO_EDITS_FROM`] letters, two from there), then the most used, then
    /// the first alphabetically. The first letter must match: people rarely
    /// mistype it, and it keeps the scan to one slice of the vocabulary.
    fn nearest(&self, word: &str) -> Option<&str> {
        let first = word.get(..1)?;
        let max = if word.len() >= TWO_EDITS_FROM { 2 } else { 1 };
        let start = self.words.partition_point(|(w, _)| w.as_ref() < first);
        let mut best: Option<(usize, u32, &str)> = None;
        for (known, count) in self.words.get(start..).unwrap_or(&[]) {
            if !known.starts_with(first) {
                break;
            }
            if known.len().abs_diff(word.len()) > max || known.len() < MIN_WORD - 1 {
                continue;
            }
            let Some(edits) = (1..=max).find(|d| edit_distance_within(word, known, *d)) else {
                continue;
            };
            let better = best.is_none_or(|(e, c, _)| edits < e || (edits == e && *count > c));
            if better {
                best = Some((edits, *count, known));
            }
        }
        best.map(|(_, _, known)| known)
    }

    /// `query` with each slip replaced by the catalogue word it stands for. A
    /// word is left as typed when it is short, not plain ASCII letters,
    /// camelCase, a stopword, a catalogue word, or a whole word of the
    /// embedding table (a real word the catalogue lacks, such as `dollars`).
    pub fn correct<'q>(&self, query: &'q str, model: Option<&EmbeddingModel>) -> Cow<'q, str> {
        let mut out = String::new();
        let mut copied = 0;
        let mut budget = MAX_CORRECTED_WORDS;
        for (start, end) in letter_runs(query) {
            if budget == 0 {
                break;
            }
            let Some(typed) = query.get(start..end) else {
                continue;
            };
            // A run that an identifier split or a non-ASCII letter cut is
            // not a word as typed.
            let whole = |i: usize| query.get(i..).and_then(|s| s.chars().next());
            let before = query.get(..start).and_then(|s| s.chars().next_back());
            if !(MIN_WORD..=MAX_WORD).contains(&typed.len())
                || before.is_some_and(char::is_alphanumeric)
                || whole(end).is_some_and(char::is_alphanumeric)
            {
                continue;
            }
            let word = typed.to_ascii_lowercase();
            if is_stopword(&word) || self.knows(&word) || model.is_some_and(|m| m.knows_word(&word))
            {
                continue;
            }
            budget -= 1;
            if let Some(known) = self.nearest(&word) {
                out.push_str(query.get(copied..start).unwrap_or(""));
                out.push_str(known);
                copied = end;
            }
        }
        if copied == 0 {
            return Cow::Borrowed(query);
        }
        out.push_str(query.get(copied..).unwrap_or(""));
        Cow::Owned(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spelling() -> Spelling {
        Spelling::build(
            [
                "calculate_bmi",
                "Calculate the body mass index",
                "search_files",
                "Search for files matching a pattern. Lists files and directories.",
                "getFileInfo",
                "file size and modification time",
                "clear clean clean",
            ]
            .into_iter(),
        )
    }

    #[test]
    fn slips_become_the_catalogue_words_they_stand_for() {
        let s = spelling();
        assert_eq!(s.correct("caculate the bmi", None), "calculate the bmi");
        assert_eq!(s.correct("serch fles", None), "search files");
        assert_eq!(s.correct("Serch FLES please", None), "search files please");
        // Ties go to the word the catalogue uses more.
        assert_eq!(s.correct("clen", None), "clean");
    }

    #[test]
    fn real_words_identifiers_and_other_scripts_stay_as_typed() {
        let s = spelling();
        for query in [
            "search files",
            "get the size",
            "getFleInfo",     // camelCase: an identifier, not a slip
            "fles2",          // glued to a digit
            "dateien suchen", // German: too far from any catalogue word
            "ファイルを検索", // Japanese
            "séarch",         // a non-ASCII letter cuts the run
            "",
        ] {
            assert_eq!(s.correct(query, None), query, "{query}");
        }
        assert!(matches!(s.correct("search files", None), Cow::Borrowed(_)));
    }

    #[test]
    fn at_most_a_few_words_per_query_are_looked_up() {
        let s = spelling();
        let many = "zzzzz ".repeat(1_000) + "serch";
        assert_eq!(s.correct(&many, None), many);
        let few = "serch ".repeat(3);
        assert_eq!(s.correct(&few, None), "search ".repeat(3));
    }
}
