//! Ranked lexical search over tools: BM25F with one document per tool and
//! fields weighted by how much they say about what the tool does.

use super::best_first::best;
use super::compact::{is_deprecated, one_line_summary};
use super::embed::EmbeddingModel;
use super::hybrid::{fuse, tool_vector, Fusion, Semantic};
use super::meta_tools::closest_names;
use super::spelling::Spelling;
use super::term_map::TermMap;
use super::text::{synonyms, tokenize_each, tokenize_query, SYNONYM_WEIGHT};
use crate::protocol::listed_item::ListedItem;
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;

/// A query is read up to this many characters (a 1 MB paste costs no more).
pub const MAX_QUERY_CHARS: usize = 2_000;
/// Typed words beyond this many are ignored (coordination counts 64 bits).
const MAX_QUERY_WORDS: usize = 64;
/// Unknown query words looked up with typo tolerance, per query.
const MAX_FUZZY_WORDS: usize = 8;

/// BM25 term-frequency saturation.
const K1: f32 = 1.2;

/// The fields of a tool document: (weight, length normalization `b`).
/// Name and title say what the tool is; the description how; parameter names
/// and descriptions what it works on; the server name which world it is in;
/// the output schema what it gives back (weighted like the parameters).
const FIELDS: [(f32, f32); 6] = [
    (3.0, 0.3),  // name
    (2.0, 0.3),  // title
    (1.0, 0.75), // description
    (0.5, 0.75), // parameter names, titles, descriptions and enum values
    (0.7, 0.0),  // server name
    (0.5, 0.75), // output schema: property names, titles and descriptions
];

/// The share of the query's `typed` words a tool matched (`covered` bits).
fn coordination(covered: u64, typed: u32) -> f32 {
    covered.count_ones() as f32 / typed.max(1) as f32
}

/// Shortest shared part for an unknown query word to stand for an index term.
const AFFIX_MIN: usize = 5;

/// Whether a query word the index does not know (`uncommitted` → `uncommit`,
/// `downloadable` → `downloadabl`) stands for the index term `known`: `known`
/// is its prefix (a derivation the stemmer does not strip), its suffix (after
/// a prefix such as `un-`, `re-`, `sub-`), or starts with it (a truncated
/// word), sharing at least [`AFFIX_MIN`] letters. Such terms are searched at
/// the synonym weight.
fn affix_related(unknown: &str, known: &str) -> bool {
    let shared = if unknown.starts_with(known) || unknown.ends_with(known) {
        known.len()
    } else if known.starts_with(unknown) {
        unknown.len()
    } else {
        0
    };
    shared >= AFFIX_MIN
}

/// One search result: which tool, how well it matched, and what it does.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    pub server: String,
    pub tool: String,
    pub score: f32,
    pub summary: String,
    /// No indexed word of the tool matched: it is only the nearest in meaning
    /// (or, without the embedding model, in name).
    pub weak: bool,
}

impl SearchHit {
    /// `server/tool`, the form the meta-tools accept.
    pub fn qualified_name(&self) -> String {
        format!("{}/{}", self.server, self.tool)
    }
}

/// The text result of `search_tools`: one `server/tool — summary` line per
/// hit, best first, or a hint when nothing matched.
pub fn render_search_results(query: &str, hits: &[SearchHit]) -> String {
    if hits.is_empty() {
        if query.trim().is_empty() || query.chars().all(|c| c.is_control() || c.is_whitespace()) {
            return "The query is empty: describe the task in a few words.".to_string();
        }
        return format!(
            "No tools match \"{}\". Try other words, or a tool name from the index.",
            shown_query(query)
        );
    }
    let mut out = String::new();
    if hits.iter().all(|hit| hit.weak) {
        out.push_str(&format!(
            "No tool shares a word with \"{}\"; the nearest (a weak match):\n",
            shown_query(query)
        ));
    }
    for hit in hits {
        out.push_str(&hit.qualified_name());
        if !hit.summary.is_empty() {
            out.push_str(" — ");
            out.push_str(&hit.summary);
        }
        out.push('\n');
    }
    out
}

/// The query as echoed back: one line, at most 80 characters.
fn shown_query(query: &str) -> String {
    let flat: String = query
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(81)
        .collect();
    if flat.chars().count() > 80 {
        format!("{}…", flat.chars().take(79).collect::<String>().trim_end())
    } else {
        flat
    }
}

#[derive(Debug, Clone)]
struct IndexedTool {
    server: String,
    tool: String,
    summary: String,
    /// Multiplies the score: below 1 for a tool its description deprecates,
    /// so its replacement ranks first.
    prior: f32,
}

/// Weight of two adjacent query words found adjacent in a field (the ordered
/// bigram of Metzler and Croft's sequential dependence model, whose usual
/// weights are 0.85 for words and 0.10 for ordered pairs).
const PHRASE_WEIGHT: f32 = 0.1;

/// Score factor of a deprecated tool.
const DEPRECATED_PRIOR: f32 = 0.8;

/// A search index over catalogued tools, built once per catalogue change;
/// [`ToolIndex::search`] then only touches the postings of the query's words.
#[derive(Debug, Clone, Default)]
pub struct ToolIndex {
    tools: Vec<IndexedTool>,
    terms: TermMap,
    /// Per term: its inverse document frequency and, for every tool that has
    /// it, the tool's saturated BM25F term weight.
    postings: Vec<(f32, Vec<(u32, f32)>)>,
    /// The single-word terms, sorted, to find those starting with a word.
    vocabulary: Vec<String>,
    /// The embedding side (absent without a model: lexical search only).
    semantic: Option<Semantic>,
    /// The catalogue's words, to correct slips in queries.
    spelling: Spelling,
}

/// The index's two-word terms while it is built: per first word's term id,
/// the second words' term ids (sorted) with the pair's own term id. A term is
/// followed by few distinct words, so a lookup is a short binary search; a
/// hash map keyed by id pairs would be one more map type in the `.wasm`.
#[derive(Default)]
struct Bigrams {
    by_first: Vec<Vec<(usize, usize)>>,
}

impl Bigrams {
    /// The term id of `first second`, a new posting list in `postings` at
    /// first sight.
    fn id(&mut self, first: usize, second: usize, postings: &mut Vec<Posting>) -> usize {
        if self.by_first.len() <= first {
            self.by_first.resize_with(first + 1, Vec::new);
        }
        let Some(seconds) = self.by_first.get_mut(first) else {
            return 0;
        };
        match seconds.binary_search_by(|(s, _)| s.cmp(&second)) {
            Ok(at) => seconds.get(at).map_or(0, |(_, id)| *id),
            Err(at) => {
                postings.push((0.0, Vec::new()));
                let id = postings.len() - 1;
                seconds.insert(at, (second, id));
                id
            }
        }
    }

    /// Every pair as `(first, second, id)`.
    fn iter(&self) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
        self.by_first
            .iter()
            .enumerate()
            .flat_map(|(first, seconds)| {
                seconds
                    .iter()
                    .map(move |(second, id)| (first, *second, *id))
            })
    }
}

/// A term's inverse document frequency and, per tool that has it, the tool's
/// saturated BM25F term weight.
type Posting = (f32, Vec<(u32, f32)>);

/// The texts of a tool's fields, in [`FIELDS`] order.
fn field_texts<'a>(server: &'a str, tool: &'a Value) -> [Cow<'a, str>; 6] {
    let tool = ListedItem::read(tool);
    let mut parameters = String::new();
    if let Some(schema) = tool.input_schema {
        super::text::push_schema_words(schema, &mut parameters, 0);
    }
    let mut output = String::new();
    if let Some(schema) = tool.output_schema {
        super::text::push_schema_words(schema, &mut output, 0);
    }
    [
        Cow::Borrowed(tool.name.unwrap_or("")),
        Cow::Borrowed(tool.display_title().unwrap_or("")),
        Cow::Borrowed(tool.description.unwrap_or("")),
        Cow::Owned(parameters),
        Cow::Borrowed(server),
        Cow::Owned(output),
    ]
}

/// Whether `a` and `b` are within `max` edits (insert, delete, substitute,
/// swap two adjacent letters: optimal string alignment), without filling
/// more than a band of the table.
fn edit_distance_within(a: &str, b: &str, max: usize) -> bool {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > max {
        return false;
    }
    let width = b.len() + 1;
    let mut table = vec![usize::MAX / 2; (a.len() + 1) * width];
    let at = |i: usize, j: usize| i * width + j;
    for (j, cell) in table.iter_mut().enumerate().take(width) {
        *cell = j;
    }
    for i in 1..=a.len() {
        if let Some(cell) = table.get_mut(at(i, 0)) {
            *cell = i;
        }
        let mut row_min = usize::MAX;
        let low = i.saturating_sub(max).max(1);
        let high = (i + max).min(b.len());
        for j in low..=high {
            let (Some(ca), Some(cb)) = (a.get(i - 1), b.get(j - 1)) else {
                continue;
            };
            let cost = usize::from(ca != cb);
            let get = |i: usize, j: usize| table.get(at(i, j)).copied().unwrap_or(usize::MAX / 2);
            let mut best = (get(i - 1, j) + 1)
                .min(get(i, j - 1) + 1)
                .min(get(i - 1, j - 1) + cost);
            if i > 1 && j > 1 && a.get(i - 1) == b.get(j - 2) && a.get(i - 2) == b.get(j - 1) {
                best = best.min(get(i - 2, j - 2) + 1);
            }
            if let Some(cell) = table.get_mut(at(i, j)) {
                *cell = best;
            }
            row_min = row_min.min(best);
        }
        if row_min > max {
            return false;
        }
    }
    table.get(at(a.len(), b.len())).is_some_and(|d| *d <= max)
}

impl ToolIndex {
    /// Indexes `(server, tool)` pairs, `tool` being an MCP tool object
    /// (`name`, `title?`, `description?`, `inputSchema`, `annotations?`).
    /// Entries without a string `name` are skipped.
    pub fn build(entries: &[(&str, &Value)]) -> ToolIndex {
        Self::build_hybrid(entries, None, &|_| None)
    }

    /// [`ToolIndex::build`] with the embedding model: each tool's vector is
    /// `cached(i)` for entry `i` when it has the model's dimensions (the
    /// catalogue's cache), else computed now.
    pub fn build_hybrid(
        entries: &[(&str, &Value)],
        model: Option<Arc<EmbeddingModel>>,
        cached: &dyn Fn(usize) -> Option<Vec<i8>>,
    ) -> ToolIndex {
        let mut tools = Vec::new();
        let mut docs: Vec<[Vec<usize>; 6]> = Vec::new();
        let mut vectors = Vec::new();
        let mut all_texts = Vec::new();
        // Every term is interned once, at first sight (its id is its
        // postings' index); documents hold ids. Issue 27: the first search
        // after a catalogue change builds this, 2,000 tools included, so the
        // build allocates per distinct term, not per occurrence.
        let mut terms = TermMap::new();
        let mut postings: Vec<(f32, Vec<(u32, f32)>)> = Vec::new();
        for (i, (server, tool)) in entries.iter().enumerate() {
            let Some(name) = ListedItem::read(tool).name else {
                continue;
            };
            if let Some(model) = &model {
                vectors.push(
                    cached(i)
                        .filter(|v| v.len() == model.dims())
                        .or_else(|| tool_vector(model, server, tool)),
                );
            }
            tools.push(IndexedTool {
                server: server.to_string(),
                tool: name.to_string(),
                summary: one_line_summary(tool),
                prior: if is_deprecated(tool) {
                    DEPRECATED_PRIOR
                } else {
                    1.0
                },
            });
            let texts = field_texts(server, tool);
            docs.push(texts.each_ref().map(|t| {
                let mut ids = Vec::new();
                tokenize_each(t, &mut |term| {
                    let id = match terms.get(term) {
                        Some(id) => *id,
                        None => {
                            terms.insert(Box::from(term), postings.len());
                            postings.push((0.0, Vec::new()));
                            postings.len() - 1
                        }
                    };
                    ids.push(id);
                });
                ids
            }));
            all_texts.push(texts);
        }
        let n = docs.len().max(1) as f32;
        let mut average = [0f32; 6];
        for doc in &docs {
            for (sum, field) in average.iter_mut().zip(doc.iter()) {
                *sum += field.len() as f32 / n;
            }
        }

        // A document's weights add up in a dense scratch row.
        let mut pairs = Bigrams::default();
        let mut weights: Vec<f32> = Vec::new();
        let mut touched: Vec<usize> = Vec::new();
        for (doc_id, doc) in docs.into_iter().enumerate() {
            for ((mut ids, (weight, b)), avg) in doc.into_iter().zip(FIELDS).zip(average) {
                let norm = if avg > 0.0 {
                    1.0 - b + b * ids.len() as f32 / avg
                } else {
                    1.0
                };
                for at in 1..ids.len() {
                    if let (Some(first), Some(second)) =
                        (ids.get(at - 1).copied(), ids.get(at).copied())
                    {
                        ids.push(pairs.id(first, second, &mut postings));
                    }
                }
                if weights.len() < postings.len() {
                    weights.resize(postings.len(), 0.0);
                }
                // Unigrams then bigrams: the order the weights always summed in.
                for id in &ids {
                    if let Some(w) = weights.get_mut(*id) {
                        if *w == 0.0 {
                            touched.push(*id);
                        }
                        *w += weight / norm;
                    }
                }
            }
            for id in touched.drain(..) {
                let tf = weights.get_mut(id).map_or(0.0, std::mem::take);
                if let Some((_, list)) = postings.get_mut(id) {
                    list.push((doc_id as u32, tf / (K1 + tf)));
                }
            }
        }
        // Bigrams are looked up as `first second`.
        let mut names: Vec<Option<&str>> = vec![None; postings.len()];
        for (term, id) in &terms {
            if let Some(slot) = names.get_mut(*id) {
                *slot = Some(term);
            }
        }
        let bigrams: Vec<(Box<str>, usize)> = pairs
            .iter()
            .filter_map(|(first, second, id)| {
                let first = names.get(first).copied().flatten()?;
                let second = names.get(second).copied().flatten()?;
                Some((format!("{first} {second}").into_boxed_str(), id))
            })
            .collect();
        terms.extend(bigrams);
        for (idf, list) in &mut postings {
            let df = list.len() as f32;
            *idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        }
        let mut vocabulary: Vec<String> = terms
            .keys()
            .filter(|t| !t.contains(' '))
            .map(|t| t.to_string())
            .collect();
        crate::sorting::sort(&mut vocabulary);
        ToolIndex {
            tools,
            terms,
            postings,
            vocabulary,
            // Slips are corrected only with the table (see `corrected_query`).
            spelling: match model {
                Some(_) => Spelling::build(all_texts.iter().flatten().map(|t| t.as_ref())),
                None => Spelling::default(),
            },
            semantic: model.map(|model| Semantic::new(model, vectors)),
        }
    }

    /// Number of indexed tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Every indexed tool as `server/tool`, in build order.
    pub fn qualified_names(&self) -> Vec<String> {
        self.tools
            .iter()
            .map(|t| format!("{}/{}", t.server, t.tool))
            .collect()
    }

    /// The query's words with their weights: each typed word 1, two adjacent
    /// words that the index knows as one (`check out` → `checkout`, `look up`
    /// → `lookup`) 1, each synonym of a typed word [`SYNONYM_WEIGHT`] (unless
    /// it was typed too).
    ///
    /// Each term carries a bit mask of the typed words it stands for (a
    /// synonym for its word, a joined pair for both), and the number of
    /// distinct typed words (at most 64) comes along.
    fn query_terms(&self, query: &str) -> (Vec<(String, f32, u64)>, u32) {
        let mut weights: Vec<(String, f32, u64)> = Vec::new();
        let mut put = |term: &str, weight: f32, mask: u64| match weights
            .iter_mut()
            .find(|(t, _, _)| t == term)
        {
            Some((_, w, m)) => {
                *w = w.max(weight);
                *m |= mask;
            }
            None => weights.push((term.to_string(), weight, mask)),
        };
        // The first MAX_QUERY_WORDS distinct words, in order: a list, since
        // it is that short (a set type would be one more map in the .wasm).
        let mut typed: Vec<String> = Vec::new();
        for word in tokenize_query(query) {
            if typed.len() == MAX_QUERY_WORDS {
                break;
            }
            if !typed.contains(&word) {
                typed.push(word);
            }
        }
        let bit = |i: usize| if i < 64 { 1u64 << i } else { 0 };
        for (i, term) in typed.iter().enumerate() {
            put(term, 1.0, bit(i));
        }
        for (i, pair) in typed.windows(2).enumerate() {
            if let [first, second] = pair {
                let joined = format!("{first}{second}");
                if self.terms.contains_key(joined.as_str()) {
                    put(&joined, 1.0, bit(i) | bit(i + 1));
                }
                let phrase = format!("{first} {second}");
                if self.terms.contains_key(phrase.as_str()) {
                    put(&phrase, PHRASE_WEIGHT, bit(i) | bit(i + 1));
                }
            }
        }
        for (i, term) in typed.iter().enumerate() {
            for synonym in synonyms(term) {
                put(synonym, SYNONYM_WEIGHT, bit(i));
            }
        }
        let mut fuzzy_budget = MAX_FUZZY_WORDS;
        for (i, term) in typed.iter().enumerate() {
            if self.terms.contains_key(term.as_str()) {
                continue;
            }
            let related = self.affix_related_terms(term);
            if related.is_empty() && fuzzy_budget > 0 {
                fuzzy_budget -= 1;
                for known in self.misspelt_terms(term) {
                    put(known, SYNONYM_WEIGHT, bit(i));
                }
            }
            for known in related {
                put(known, SYNONYM_WEIGHT, bit(i));
            }
        }
        (weights, typed.len().min(64) as u32)
    }

    /// The index terms an unknown query word stands for (see
    /// [`affix_related`]), sorted: its known prefixes and suffixes, and the
    /// known words it begins. Lookups only, no scan of the vocabulary.
    fn affix_related_terms(&self, unknown: &str) -> Vec<&str> {
        let mut related: Vec<&str> = Vec::new();
        for (i, _) in unknown.char_indices().skip(1) {
            for part in [unknown.get(..i), unknown.get(i..)].into_iter().flatten() {
                if let Some((known, _)) = self.terms.get_key_value(part) {
                    if affix_related(unknown, known) {
                        related.push(known);
                    }
                }
            }
        }
        let start = self.vocabulary.partition_point(|t| t.as_str() < unknown);
        let longer = self.vocabulary.get(start..).unwrap_or(&[]);
        for known in longer.iter().take_while(|t| t.starts_with(unknown)) {
            if affix_related(unknown, known) {
                related.push(known);
            }
        }
        crate::sorting::sort(&mut related);
        related.dedup();
        related
    }

    /// The index terms a misspelt query word may stand for: same first
    /// letter, within one edit (two for words of eight letters or more),
    /// words of five letters or more (`caculat` → `calculat`). A scan of the
    /// vocabulary slice under one letter, bounded per query by
    /// [`MAX_FUZZY_WORDS`].
    fn misspelt_terms(&self, unknown: &str) -> Vec<&str> {
        let len = unknown.chars().count();
        if !(5..=30).contains(&len) {
            return Vec::new();
        }
        let max = if len >= 8 { 2 } else { 1 };
        let Some(first) = unknown.chars().next() else {
            return Vec::new();
        };
        let mut prefix = [0u8; 4];
        let prefix: &str = first.encode_utf8(&mut prefix);
        let start = self.vocabulary.partition_point(|t| t.as_str() < prefix);
        let slice = self.vocabulary.get(start..).unwrap_or(&[]);
        slice
            .iter()
            .take_while(|t| t.starts_with(prefix))
            .filter(|t| t.chars().count().abs_diff(len) <= max)
            .filter(|t| edit_distance_within(unknown, t, max))
            .map(String::as_str)
            .collect()
    }

    /// The `limit` tools that best match `query`, best first, with the
    /// default [`Fusion`] of the lexical and (when a model is loaded) the
    /// semantic rank. Never empty while tools exist and the query has a
    /// word: without any lexical match the nearest tools come back marked
    /// [`SearchHit::weak`]. Only the first [`MAX_QUERY_CHARS`] characters are
    /// read.
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        self.search_with(query, limit, Fusion::DEFAULT)
    }

    /// Whether the index has the semantic side (a model was loaded).
    pub fn is_hybrid(&self) -> bool {
        self.semantic.is_some()
    }

    /// The query as searched: slips corrected to catalogue or table words
    /// (what the benchmark's `--misses` shows). Without the embedding table
    /// the query is searched as typed: only the table tells a real English
    /// word the catalogue lacks (`picture`, `people`) from a slip, and the
    /// lexical side has its own typo lookup.
    pub fn corrected_query(&self, query: &str) -> String {
        let query: String = query.chars().take(MAX_QUERY_CHARS).collect();
        let Some(semantic) = &self.semantic else {
            return query;
        };
        let index_knows = |word: &str| self.terms.contains_key(super::text::stem(word).as_str());
        self.spelling
            .correct(&query, Some(semantic.model()), &index_knows)
            .into_owned()
    }

    /// [`ToolIndex::search`] with explicit fusion weights (for the benchmark).
    pub fn search_with(&self, query: &str, limit: usize, fusion: Fusion) -> Vec<SearchHit> {
        let query = self.corrected_query(query);
        let lexical = self.lexical_scores(&query);
        let semantic = match &self.semantic {
            Some(semantic) if fusion.semantic > 0.0 => semantic.similarities(&query),
            _ => None,
        };
        let any_lexical = lexical.iter().any(|s| *s > 0.0);
        let fused = fuse(&lexical, semantic.as_deref(), fusion);
        let ranked: Vec<(usize, f32)> = fused
            .into_iter()
            .enumerate()
            .filter(|(doc, score)| {
                // Without a semantic score, only lexical matches rank.
                semantic.is_some() || (lexical.get(*doc).is_some_and(|l| *l > 0.0) && *score > 0.0)
            })
            .map(|(doc, score)| (doc, score * self.tools.get(doc).map_or(1.0, |t| t.prior)))
            .collect();
        // Only the best `limit` are ordered: with the semantic side every tool
        // has a score, and a full sort of 2,000 would cost more than the scoring.
        let ranked = best(ranked, limit);
        let hit = |doc: usize, score: f32, weak: bool| {
            self.tools.get(doc).map(|t| SearchHit {
                server: t.server.clone(),
                tool: t.tool.clone(),
                score,
                summary: t.summary.clone(),
                weak,
            })
        };
        if ranked.is_empty() {
            return self.nearest_names(&query, limit);
        }
        ranked
            .into_iter()
            .take(limit)
            .filter_map(|(doc, score)| {
                let weak = !any_lexical;
                hit(doc, score, weak)
            })
            .collect()
    }

    /// Raw lexical scores per tool (0: no match): the BM25F sum over the
    /// query's terms, times the share of typed words the tool matched
    /// (Lucene's classic coordination factor, so a tool matching three of
    /// four words beats one matching one word very well).
    pub fn lexical_scores(&self, query: &str) -> Vec<f32> {
        let mut scores = vec![0f32; self.tools.len()];
        let mut covered = vec![0u64; self.tools.len()];
        let (terms, typed) = self.query_terms(query);
        for (term, query_weight, mask) in terms {
            let Some((idf, list)) = self
                .terms
                .get(term.as_str())
                .and_then(|id| self.postings.get(*id))
            else {
                continue;
            };
            for (doc, weight) in list {
                if let (Some(score), Some(c)) = (
                    scores.get_mut(*doc as usize),
                    covered.get_mut(*doc as usize),
                ) {
                    *score += query_weight * idf * weight;
                    *c |= mask;
                }
            }
        }
        scores
            .iter_mut()
            .zip(covered)
            .for_each(|(score, c)| *score *= coordination(c, typed));
        scores
    }

    /// No match by word or meaning: the tools whose names are nearest the
    /// query's (edit distance and shared words), marked weak; empty only for
    /// a query without a letter or digit.
    fn nearest_names(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        let words: String = query
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .take(8)
            .collect::<Vec<_>>()
            .join("_");
        if words.is_empty() {
            return Vec::new();
        }
        let names: Vec<&str> = self.tools.iter().map(|t| t.tool.as_str()).collect();
        let mut near = closest_names(&words, &names, limit);
        if near.is_empty() {
            near = names.iter().take(limit).map(|n| n.to_string()).collect();
        }
        near.iter()
            .filter_map(|name| self.tools.iter().find(|t| &t.tool == name))
            .map(|t| SearchHit {
                server: t.server.clone(),
                tool: t.tool.clone(),
                score: 0.0,
                summary: t.summary.clone(),
                weak: true,
            })
            .collect()
    }

    /// Finds a tool by `server/tool`, or by bare `tool` when exactly one server
    /// has it. The error is for the model: it lists the closest names, or the
    /// servers to choose from when a bare name is ambiguous.
    pub fn resolve(&self, name: &str) -> Result<(&str, &str), String> {
        let exact = self.tools.iter().find(|t| {
            name.strip_prefix(t.server.as_str())
                .and_then(|r| r.strip_prefix('/'))
                == Some(t.tool.as_str())
        });
        if let Some(t) = exact {
            return Ok((&t.server, &t.tool));
        }
        let bare: Vec<&IndexedTool> = self.tools.iter().filter(|t| t.tool == name).collect();
        match bare.as_slice() {
            [only] => return Ok((&only.server, &only.tool)),
            [] => {}
            several => {
                let choices: Vec<String> = several
                    .iter()
                    .map(|t| format!("{}/{}", t.server, t.tool))
                    .collect();
                return Err(format!(
                    "Tool \"{name}\" exists on several servers; use one of: {}.",
                    choices.join(", ")
                ));
            }
        }
        let all = self.qualified_names();
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let near = closest_names(name, &all, 5);
        if near.is_empty() {
            Err(format!(
                "Unknown tool \"{name}\". Use search_tools to find one."
            ))
        } else {
            Err(format!(
                "Unknown tool \"{name}\". Closest: {}.",
                near.join(", ")
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools() -> Vec<(&'static str, Value)> {
        vec![
            (
                "git",
                json!({"name": "git_status", "description": "Shows the working tree status", "inputSchema": {"type": "object", "properties": {"repo_path": {"type": "string"}}}}),
            ),
            (
                "git",
                json!({"name": "git_checkout", "description": "Switches branches", "inputSchema": {"type": "object"}}),
            ),
            (
                "filesystem",
                json!({"name": "list_directory", "title": "List Directory", "description": "Get a detailed listing of all files and directories in a specified path.", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}),
            ),
            (
                "filesystem",
                json!({"name": "move_file", "description": "Move or rename files and directories.", "inputSchema": {"type": "object"}}),
            ),
            (
                "memory",
                json!({"name": "delete_entities", "description": "Delete multiple entities from the knowledge graph", "inputSchema": {"type": "object"}}),
            ),
            (
                "other",
                json!({"name": "read_file", "description": "Read a file", "inputSchema": {"type": "object"}}),
            ),
            (
                "filesystem",
                json!({"name": "read_file", "description": "Read a file from disk", "inputSchema": {"type": "object"}}),
            ),
            ("broken", json!({"description": "no name"})),
        ]
    }

    fn index() -> ToolIndex {
        let tools = tools();
        let refs: Vec<(&str, &Value)> = tools.iter().map(|(s, t)| (*s, t)).collect();
        ToolIndex::build(&refs)
    }

    fn top(index: &ToolIndex, query: &str) -> Option<String> {
        index
            .search(query, 1)
            .first()
            .map(SearchHit::qualified_name)
    }

    #[test]
    fn tools_without_a_name_are_not_indexed() {
        assert_eq!(index().len(), 7);
        assert!(!index().is_empty());
        assert!(ToolIndex::build(&[]).is_empty());
    }

    #[test]
    fn names_descriptions_and_synonyms_all_lead_to_the_tool() {
        let index = index();
        assert_eq!(top(&index, "git status").as_deref(), Some("git/git_status"));
        assert_eq!(
            top(&index, "what's in this folder").as_deref(),
            Some("filesystem/list_directory")
        );
        assert_eq!(
            top(&index, "rename a document").as_deref(),
            Some("filesystem/move_file")
        );
        assert_eq!(
            top(&index, "remove entities").as_deref(),
            Some("memory/delete_entities")
        );
        assert_eq!(
            top(&index, "check out main").as_deref(),
            Some("git/git_checkout")
        );
    }

    #[test]
    fn hits_carry_a_summary_and_are_ranked_and_limited() {
        let index = index();
        let hits = index.search("list files in a directory", 2);
        assert_eq!(hits.len(), 2);
        assert!(hits[0].score >= hits[1].score);
        assert_eq!(
            hits[0].summary,
            "Get a detailed listing of all files and directories in a specified path"
        );
        // Issue 27: a query with words never gets nothing while tools exist;
        // without a shared word the nearest come back, marked weak.
        let nearest = index.search("zebra", 5);
        assert!(!nearest.is_empty() && nearest.iter().all(|h| h.weak));
        assert!(render_search_results("zebra", &nearest)
            .starts_with("No tool shares a word with \"zebra\"; the nearest (a weak match):\n"));
        assert!(index.search("", 5).is_empty());
        assert!(index.search("\u{0}\u{1}  \t", 5).is_empty());
        assert_eq!(
            render_search_results("\u{0}", &[]),
            "The query is empty: describe the task in a few words."
        );
        assert!(index.search("git status", 0).is_empty());
    }

    #[test]
    fn a_deprecated_tool_ranks_below_its_replacement() {
        let tools = [
            json!({"name": "read_file", "description": "Read a file as text. DEPRECATED: use read_text_file."}),
            json!({"name": "read_text_file", "description": "Read a file as text."}),
        ];
        let index = ToolIndex::build(&[("fs", &tools[0]), ("fs", &tools[1])]);
        assert_eq!(
            top(&index, "read a file").as_deref(),
            Some("fs/read_text_file")
        );
    }

    #[test]
    fn unknown_words_stand_for_known_prefixes_and_suffixes() {
        assert!(affix_related("uncommit", "commit"));
        assert!(affix_related("downloadabl", "download"));
        assert!(affix_related("director", "directory"));
        assert!(!affix_related("unstag", "stag"), "too short to tell");
        assert!(!affix_related("commit", "submit"));
        let tools = [
            json!({"name": "download_artifact", "description": "Download an artifact"}),
            json!({"name": "upload_asset", "description": "Upload an asset"}),
        ];
        let index = ToolIndex::build(&[("forge", &tools[0]), ("forge", &tools[1])]);
        assert_eq!(
            top(&index, "downloadable artifacts").as_deref(),
            Some("forge/download_artifact")
        );
        assert_eq!(
            top(&index, "downloadable").as_deref(),
            Some("forge/download_artifact")
        );
    }

    #[test]
    fn search_results_render_as_lines_or_a_hint() {
        let index = index();
        let hits = index.search("git status", 1);
        assert_eq!(
            render_search_results("git status", &hits),
            "git/git_status — Shows the working tree status\n"
        );
        assert_eq!(
            render_search_results("zebra", &[]),
            "No tools match \"zebra\". Try other words, or a tool name from the index."
        );
    }

    #[test]
    fn resolve_accepts_qualified_and_unique_bare_names() {
        let index = index();
        assert_eq!(index.resolve("git/git_status"), Ok(("git", "git_status")));
        assert_eq!(index.resolve("git_status"), Ok(("git", "git_status")));
        assert_eq!(index.resolve("other/read_file"), Ok(("other", "read_file")));
    }

    #[test]
    fn resolve_explains_ambiguous_and_unknown_names() {
        let index = index();
        assert_eq!(
            index.resolve("read_file"),
            Err("Tool \"read_file\" exists on several servers; use one of: other/read_file, filesystem/read_file.".to_string())
        );
        assert_eq!(
            index.resolve("git/git_stauts"),
            Err(
                "Unknown tool \"git/git_stauts\". Closest: git/git_status, git/git_checkout."
                    .to_string()
            )
        );
        assert_eq!(
            index.resolve("qqqq"),
            Err("Unknown tool \"qqqq\". Use search_tools to find one.".to_string())
        );
    }

    #[test]
    fn misspelt_words_find_the_tools_they_meant() {
        let owned = tools();
        let entries: Vec<(&str, &Value)> = owned.iter().map(|(s, t)| (*s, t)).collect();
        let index = ToolIndex::build(&entries);
        let hits = index.search("lsit the directroy", 3);
        assert_eq!(hits[0].tool, "list_directory");
        assert!(!hits[0].weak);
        assert!(edit_distance_within("caculat", "calculat", 1));
        assert!(edit_distance_within("directroy", "directory", 2));
        assert!(!edit_distance_within("status", "statue", 0));
        assert!(!edit_distance_within("zebra", "zzzzzzz", 2));
    }

    #[test]
    fn bad_queries_stay_bounded_and_sane() {
        let owned = tools();
        let entries: Vec<(&str, &Value)> = owned.iter().map(|(s, t)| (*s, t)).collect();
        let index = ToolIndex::build(&entries);
        let huge = "status ".repeat(150_000); // ~1 MB
        assert_eq!(index.search(&huge, 5)[0].tool, "git_status");
        let thousand: String = (0..1000).map(|i| format!("word{i} ")).collect();
        assert!(!index.search(&thousand, 5).is_empty());
        let control: String = (0u8..32).map(char::from).collect();
        assert!(index.search(&control, 5).is_empty());
        assert!(!index.search("日本語のクエリ status", 5).is_empty());
        // Huge and empty descriptions build and search.
        let big = json!({"name": "big", "description": "lorem ipsum ".repeat(100_000)});
        let empty = json!({"name": "empty", "description": ""});
        let index = ToolIndex::build(&[("s", &big), ("s", &empty)]);
        assert_eq!(index.search("lorem", 5)[0].tool, "big");
        assert_eq!(index.search("empty", 5)[0].tool, "empty");
    }

    #[test]
    fn the_semantic_side_ranks_a_tool_sharing_no_word_and_fusion_keeps_lexical_wins() {
        use crate::tool_index::embed::tests::tiny_table;
        // Two "meanings": money (dimension 0) and files (dimension 1).
        let table = tiny_table(
            &[
                "dollars",
                "euros",
                "exchange",
                "rate",
                "currency",
                "file",
                "read",
                "list",
                "directory",
            ],
            &[
                &[9, 0],
                &[9, 0],
                &[8, 1],
                &[5, 1],
                &[9, 0],
                &[0, 9],
                &[1, 6],
                &[1, 5],
                &[0, 9],
            ],
        );
        let model = Arc::new(EmbeddingModel::from_bytes(&table).unwrap());
        let rate = json!({"name": "exchange_rate", "description": "Currency exchange rate"});
        let read = json!({"name": "read_file", "description": "Read a file"});
        let list = json!({"name": "list_directory", "description": "List a directory"});
        let entries = [("money", &rate), ("fs", &read), ("fs", &list)];
        let index = ToolIndex::build_hybrid(&entries, Some(model.clone()), &|_| None);
        assert!(index.is_hybrid());
        let hits = index.search("how many dollars is 100 euros", 3);
        assert_eq!(hits[0].tool, "exchange_rate");
        assert!(
            hits[0].weak,
            "no word shared: the answer says the match is weak"
        );
        assert_eq!(hits.len(), 3);
        let hits = index.search("list directory", 3);
        assert_eq!(hits[0].tool, "list_directory");
        assert!(!hits[0].weak);
        // Cached vectors of the model's size are used as they are.
        let cached = crate::tool_index::quantize(&[0.0, 1.0]);
        let index =
            ToolIndex::build_hybrid(&entries, Some(model), &|i| (i == 0).then(|| cached.clone()));
        assert_ne!(index.search("dollars", 1)[0].tool, "exchange_rate");
    }
}
