//! Ranked lexical search over tools: BM25F with one document per tool and
//! fields weighted by how much they say about what the tool does.

use super::compact::{is_deprecated, one_line_summary, tool_title};
use super::meta_tools::closest_names;
use super::text::{synonyms, tokenize, tokenize_query, SYNONYM_WEIGHT};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

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
        return format!(
            "No tools match \"{query}\". Try other words, or a tool name from the index."
        );
    }
    let mut out = String::new();
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
    terms: HashMap<String, usize>,
    /// Per term: its inverse document frequency and, for every tool that has
    /// it, the tool's saturated BM25F term weight.
    postings: Vec<(f32, Vec<(u32, f32)>)>,
    /// The single-word terms, sorted, to find those starting with a word.
    vocabulary: Vec<String>,
}

fn push_schema_words(schema: &Value, out: &mut String, depth: usize) {
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

fn fields_of(server: &str, tool: &Value) -> [Vec<String>; 6] {
    let text = |key: &str| tool.get(key).and_then(Value::as_str).unwrap_or("");
    let mut parameters = String::new();
    if let Some(schema) = tool.get("inputSchema") {
        push_schema_words(schema, &mut parameters, 0);
    }
    let mut output = String::new();
    if let Some(schema) = tool.get("outputSchema") {
        push_schema_words(schema, &mut output, 0);
    }
    [
        tokenize(text("name")),
        tokenize(tool_title(tool).unwrap_or("")),
        tokenize(text("description")),
        tokenize(&parameters),
        tokenize(server),
        tokenize(&output),
    ]
}

impl ToolIndex {
    /// Indexes `(server, tool)` pairs, `tool` being an MCP tool object
    /// (`name`, `title?`, `description?`, `inputSchema`, `annotations?`).
    /// Entries without a string `name` are skipped.
    pub fn build(entries: &[(&str, &Value)]) -> ToolIndex {
        let mut tools = Vec::new();
        let mut docs: Vec<[Vec<String>; 6]> = Vec::new();
        for (server, tool) in entries {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
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
            docs.push(fields_of(server, tool));
        }
        let n = docs.len().max(1) as f32;
        let mut average = [0f32; 6];
        for doc in &docs {
            for (sum, field) in average.iter_mut().zip(doc.iter()) {
                *sum += field.len() as f32 / n;
            }
        }

        let mut terms: HashMap<String, usize> = HashMap::new();
        let mut postings: Vec<(f32, Vec<(u32, f32)>)> = Vec::new();
        for (doc_id, doc) in docs.iter().enumerate() {
            // Per term, the length-normalized, weighted frequency over fields.
            let mut weighted: HashMap<String, f32> = HashMap::new();
            for ((field, (weight, b)), avg) in doc.iter().zip(FIELDS).zip(average) {
                let norm = if avg > 0.0 {
                    1.0 - b + b * field.len() as f32 / avg
                } else {
                    1.0
                };
                for term in field {
                    *weighted.entry(term.clone()).or_default() += weight / norm;
                }
                for pair in field.windows(2) {
                    if let [first, second] = pair {
                        *weighted.entry(format!("{first} {second}")).or_default() += weight / norm;
                    }
                }
            }
            let mut sorted: Vec<(String, f32)> = weighted.into_iter().collect();
            sorted.sort_by(|a, b| a.0.cmp(&b.0));
            for (term, tf) in sorted {
                let id = match terms.get(&term) {
                    Some(id) => *id,
                    None => {
                        postings.push((0.0, Vec::new()));
                        terms.insert(term, postings.len() - 1);
                        postings.len() - 1
                    }
                };
                if let Some((_, list)) = postings.get_mut(id) {
                    list.push((doc_id as u32, tf / (K1 + tf)));
                }
            }
        }
        for (idf, list) in &mut postings {
            let df = list.len() as f32;
            *idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        }
        let mut vocabulary: Vec<String> =
            terms.keys().filter(|t| !t.contains(' ')).cloned().collect();
        vocabulary.sort_unstable();
        ToolIndex {
            tools,
            terms,
            postings,
            vocabulary,
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
        let mut typed = tokenize_query(query);
        let mut seen = HashSet::new();
        typed.retain(|t| seen.insert(t.clone()));
        let bit = |i: usize| if i < 64 { 1u64 << i } else { 0 };
        for (i, term) in typed.iter().enumerate() {
            put(term, 1.0, bit(i));
        }
        for (i, pair) in typed.windows(2).enumerate() {
            if let [first, second] = pair {
                let joined = format!("{first}{second}");
                if self.terms.contains_key(&joined) {
                    put(&joined, 1.0, bit(i) | bit(i + 1));
                }
                let phrase = format!("{first} {second}");
                if self.terms.contains_key(&phrase) {
                    put(&phrase, PHRASE_WEIGHT, bit(i) | bit(i + 1));
                }
            }
        }
        for (i, term) in typed.iter().enumerate() {
            for synonym in synonyms(term) {
                put(synonym, SYNONYM_WEIGHT, bit(i));
            }
        }
        for (i, term) in typed.iter().enumerate() {
            if self.terms.contains_key(term) {
                continue;
            }
            for known in self.affix_related_terms(term) {
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
        related.sort_unstable();
        related.dedup();
        related
    }

    /// The `limit` tools that best match `query`, best first: the BM25F sum
    /// over the query's terms, times the share of typed words the tool
    /// matched (Lucene's classic coordination factor, so a tool matching
    /// three of four words beats one matching one word very well). Tools
    /// sharing no word (or synonym, or affix-related term) with the query are never returned, so the
    /// list may be shorter than `limit` or empty. Ties keep build order.
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        let mut scores = vec![0f32; self.tools.len()];
        let mut covered = vec![0u64; self.tools.len()];
        let (terms, typed) = self.query_terms(query);
        for (term, query_weight, mask) in terms {
            let Some((idf, list)) = self.terms.get(&term).and_then(|id| self.postings.get(*id))
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
        let mut ranked: Vec<(usize, f32)> = scores
            .into_iter()
            .zip(covered)
            .enumerate()
            .filter(|(_, (score, _))| *score > 0.0)
            .map(|(doc, (score, c))| {
                let prior = self.tools.get(doc).map_or(1.0, |t| t.prior);
                (doc, score * coordination(c, typed) * prior)
            })
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked
            .into_iter()
            .take(limit)
            .filter_map(|(doc, score)| {
                self.tools.get(doc).map(|t| SearchHit {
                    server: t.server.clone(),
                    tool: t.tool.clone(),
                    score,
                    summary: t.summary.clone(),
                })
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
        assert!(index.search("zebra", 5).is_empty());
        assert!(index.search("", 5).is_empty());
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
}
