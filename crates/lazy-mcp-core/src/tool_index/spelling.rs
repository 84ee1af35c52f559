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
/// From this length on, two edits are a slip; below it, one (as the lexical
/// side's own typo lookup).
const TWO_EDITS_FROM: usize = 8;

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

    /// The word `word` is most likely a slip of: fewest edits (insert,
    /// delete, substitute, swap; one for words under [`TWO_EDITS_FROM`]
    /// letters, two from there); at equal edits a catalogue word before a
    /// word only the embedding table knows, the catalogue's most used word,
    /// the table's commonest. The first letter must match: people rarely
    /// mistype it, and it keeps the scan to one slice of each vocabulary.
    fn nearest<'a>(&'a self, word: &'a str, model: Option<&'a EmbeddingModel>) -> Option<&'a str> {
        let first = word.get(..1)?;
        let max = if word.len() >= TWO_EDITS_FROM { 2 } else { 1 };
        let start = self.words.partition_point(|(w, _)| w.as_ref() < first);
        let catalogue = self
            .words
            .get(start..)
            .unwrap_or(&[])
            .iter()
            .take_while(|(known, _)| known.starts_with(first))
            .map(|(known, count)| (known.as_ref(), (0u8, u32::MAX - count)));
        let table = model
            .into_iter()
            .flat_map(|m| m.words_starting_with(first))
            .map(|(known, row)| (known, (1u8, row)));
        let mut best: Option<((usize, u8, u32), &str)> = None;
        for (known, (source, order)) in catalogue.chain(table) {
            if known.len().abs_diff(word.len()) > max
                || known.len() < MIN_WORD - 1
                || is_stopword(known)
            {
                continue;
            }
            let Some(edits) = (1..=max).find(|d| edit_distance_within(word, known, *d)) else {
                continue;
            };
            let key = (edits, source, order);
            if best.is_none_or(|(b, _)| key < b) {
                best = Some((key, known));
            }
        }
        best.map(|(_, known)| known)
    }

    /// `query` with each slip replaced by the word it stands for. Only
    /// words as typed are looked at: a whitespace-separated token of ASCII
    /// letters (edge punctuation aside), so file names, paths, identifiers,
    /// numbers and other scripts stay as they are. A word is also left as
    /// typed when it is short, camelCase, capitalized after the first word
    /// (a name: `Acme`, `Northwind`), a stopword, a catalogue word, a
    /// whole word of the embedding table (a real word the catalogue lacks,
    /// such as `dollars`), or when `index_knows` it (a stem the index has).
    pub fn correct<'q>(
        &self,
        query: &'q str,
        model: Option<&EmbeddingModel>,
        index_knows: &dyn Fn(&str) -> bool,
    ) -> Cow<'q, str> {
        let mut out = String::new();
        let mut copied = 0;
        let mut budget = MAX_CORRECTED_WORDS;
        let base = query.as_ptr() as usize;
        for (i, token) in query.split_whitespace().enumerate() {
            if budget == 0 {
                break;
            }
            let typed = token.trim_matches(|c: char| c.is_ascii_punctuation());
            let start = typed.as_ptr() as usize - base;
            let end = start + typed.len();
            let camel = typed
                .as_bytes()
                .windows(2)
                .any(|w| matches!(w, [a, b] if a.is_ascii_lowercase() && b.is_ascii_uppercase()));
            let proper_noun = i > 0 && typed.starts_with(|c: char| c.is_ascii_uppercase());
            if !(MIN_WORD..=MAX_WORD).contains(&typed.len())
                || !typed.bytes().all(|b| b.is_ascii_alphabetic())
                || camel
                || proper_noun
            {
                continue;
            }
            let word = typed.to_ascii_lowercase();
            if is_stopword(&word)
                || self.knows(&word)
                || model.is_some_and(|m| m.knows_word(&word))
                || index_knows(&word)
            {
                continue;
            }
            budget -= 1;
            if let Some(known) = self.nearest(&word, model) {
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

    fn fix<'q>(s: &Spelling, query: &'q str, model: Option<&EmbeddingModel>) -> Cow<'q, str> {
        s.correct(query, model, &|_| false)
    }

    #[test]
    fn slips_become_the_catalogue_words_they_stand_for() {
        let s = spelling();
        assert_eq!(fix(&s, "caculate the bmi", None), "calculate the bmi");
        assert_eq!(fix(&s, "serch fles", None), "search files");
        assert_eq!(fix(&s, "Serch fles please", None), "search files please");
        // Ties go to the word the catalogue uses more.
        assert_eq!(fix(&s, "clen", None), "clean");
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
            assert_eq!(fix(&s, query, None), query, "{query}");
        }
        assert!(matches!(fix(&s, "search files", None), Cow::Borrowed(_)));
    }

    #[test]
    fn at_most_a_few_words_per_query_are_looked_up() {
        let s = spelling();
        let many = "zzzzz ".repeat(1_000) + "serch";
        assert_eq!(fix(&s, &many, None), many);
        let few = "serch ".repeat(3);
        assert_eq!(fix(&s, &few, None), "search ".repeat(3));
    }
}
