//! A word list for slip lookups (issue 27): the catalogue's words
//! (`spelling.rs`) and the embedding table's whole words (`embed.rs`), each
//! found by the words within a few edits of a typed one.

/// Words longer than this are not words a person mistypes.
pub(super) const MAX_WORD: usize = 30;

/// The letters (a–z) a word has, one bit each. One edit adds at most one
/// letter to a word's set and takes at most one away, so two words whose
/// sets differ by more than `max` letters either way are more than `max`
/// edits apart: most candidates are ruled out without counting edits.
fn letter_set(word: &[u8]) -> u32 {
    word.iter()
        .filter(|b| b.is_ascii_lowercase())
        .fold(0, |set, b| set | 1 << (b - b'a'))
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    start: u32,
    rank: u32,
    letters: u32,
    first: u8,
    len: u8,
}

/// Words for slip lookups, each with a rank (lower is likelier), kept in one
/// text and ordered by first letter, length and word: a slip's candidates
/// (same first letter, a length within the edits allowed) are one slice.
#[derive(Debug, Clone, Default)]
pub(super) struct WordList {
    text: String,
    entries: Vec<Entry>,
}

impl WordList {
    /// Words of lower-case ASCII letters, at most [`MAX_WORD`] long (others
    /// are left out), with their ranks.
    pub fn new(mut words: Vec<(&str, u32)>) -> WordList {
        words.retain(|(w, _)| {
            (1..=MAX_WORD).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_lowercase())
        });
        crate::sorting::sort_by(&mut words, |a, b| {
            (a.0.as_bytes().first(), a.0.len(), a.0).cmp(&(b.0.as_bytes().first(), b.0.len(), b.0))
        });
        let mut list = WordList::default();
        for (word, rank) in words {
            let (Ok(start), Some(first)) = (u32::try_from(list.text.len()), word.bytes().next())
            else {
                continue;
            };
            list.text.push_str(word);
            list.entries.push(Entry {
                start,
                rank,
                letters: letter_set(word.as_bytes()),
                first,
                len: word.len() as u8,
            });
        }
        list
    }

    fn word(&self, entry: &Entry) -> &str {
        let start = entry.start as usize;
        self.text
            .get(start..start + usize::from(entry.len))
            .unwrap_or("")
    }

    /// The entries starting with `first`, `low..=high` letters long.
    fn slice(&self, first: u8, low: usize, high: usize) -> &[Entry] {
        let from = self
            .entries
            .partition_point(|e| (e.first, usize::from(e.len)) < (first, low));
        let to = self
            .entries
            .partition_point(|e| (e.first, usize::from(e.len)) <= (first, high));
        self.entries.get(from..to.max(from)).unwrap_or(&[])
    }

    pub fn contains(&self, word: &str) -> bool {
        let Some(first) = word.bytes().next() else {
            return false;
        };
        self.slice(first, word.len(), word.len())
            .iter()
            .any(|e| self.word(e) == word)
    }

    /// Words within `max` edits of `word` (same first letter), each with
    /// its edits and rank.
    pub(super) fn near<'a>(
        &'a self,
        word: &'a str,
        max: usize,
    ) -> impl Iterator<Item = (&'a str, usize, u32)> + 'a {
        let first = word.bytes().next().unwrap_or(0);
        let letters = letter_set(word.as_bytes());
        self.slice(first, word.len().saturating_sub(max), word.len() + max)
            .iter()
            .filter(move |e| {
                (letters & !e.letters).count_ones() as usize <= max
                    && (e.letters & !letters).count_ones() as usize <= max
            })
            .filter_map(move |e| {
                let known = self.word(e);
                edits_within(word.as_bytes(), known.as_bytes(), max).map(|d| (known, d, e.rank))
            })
    }
}

/// The number of edits (insert, delete, substitute, swap two adjacent
/// letters: optimal string alignment) between two ASCII words of at most
/// [`MAX_WORD`] letters, when it is at most `max`. Only a band of `max`
/// cells either side of the diagonal is filled, in three rows on the stack:
/// a query's slips are checked against thousands of words.
fn edits_within(a: &[u8], b: &[u8], max: usize) -> Option<usize> {
    const W: usize = MAX_WORD + 1;
    const FAR: u8 = u8::MAX / 2;
    if a.len() > MAX_WORD || b.len() > MAX_WORD || a.len().abs_diff(b.len()) > max {
        return None;
    }
    let at = |row: &[u8; W], j: usize| row.get(j).copied().unwrap_or(FAR);
    let mut before = [FAR; W];
    let mut previous = [FAR; W];
    for (j, cell) in previous.iter_mut().enumerate().take(b.len() + 1) {
        *cell = j as u8;
    }
    for i in 1..=a.len() {
        let mut current = [FAR; W];
        if let Some(first) = current.first_mut().filter(|_| i <= max) {
            *first = i as u8;
        }
        let ca = *a.get(i - 1)?;
        let mut row_min = at(&current, 0);
        for j in i.saturating_sub(max).max(1)..=(i + max).min(b.len()) {
            let cb = *b.get(j - 1)?;
            let mut best = (at(&previous, j) + 1)
                .min(at(&current, j - 1) + 1)
                .min(at(&previous, j - 1) + u8::from(ca != cb));
            if i > 1 && j > 1 && a.get(i - 2) == Some(&cb) && b.get(j - 2) == Some(&ca) {
                best = best.min(at(&before, j - 2) + 1);
            }
            if let Some(cell) = current.get_mut(j) {
                *cell = best;
            }
            row_min = row_min.min(best);
        }
        if usize::from(row_min) > max {
            return None;
        }
        before = previous;
        previous = current;
    }
    let edits = usize::from(at(&previous, b.len()));
    (edits <= max).then_some(edits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_are_counted_within_a_bound() {
        let e = |a: &str, b: &str, max| edits_within(a.as_bytes(), b.as_bytes(), max);
        assert_eq!(e("caculate", "calculate", 2), Some(1));
        assert_eq!(e("serch", "search", 1), Some(1));
        assert_eq!(e("fles", "files", 1), Some(1));
        assert_eq!(e("teh", "the", 1), Some(1), "a swap is one edit");
        assert_eq!(e("directroy", "directory", 2), Some(1));
        assert_eq!(e("stagge", "state", 2), Some(2));
        assert_eq!(e("same", "same", 0), Some(0));
        assert_eq!(e("status", "statue", 0), None);
        assert_eq!(e("zebra", "zzzzzzz", 2), None);
        assert_eq!(e("kitten", "sitting", 2), None);
        assert_eq!(e("kitten", "sitting", 3), Some(3));
        assert_eq!(
            e(&"a".repeat(40), &"a".repeat(40), 2),
            None,
            "longer than a word"
        );
    }
}
