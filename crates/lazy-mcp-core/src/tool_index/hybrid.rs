//! The semantic half of tool search and its fusion with the lexical rank
//! (issue 27): one quantized vector per tool (from [`super::embed`]), the
//! query's vector, cosine over all tools, and a weighted sum of the two
//! normalized scores.

use super::best_first::positions_best_first;
use super::embed::{quantize, EmbeddingModel};
use crate::protocol::listed_item::ListedItem;
use serde_json::Value;
use std::sync::Arc;

/// Characters of a tool's description that go into its vector: the opening
/// says what the tool does; a huge description costs no more than this.
const DESCRIPTION_CHARS: usize = 1_500;
/// Characters of the parameters' names and descriptions that go in.
const PARAMETER_CHARS: usize = 1_000;

/// How the two ranks combine: `lexical × (BM25F / best BM25F) + semantic ×
/// cosine`. Fitted on the development sets (tests/fixtures/tool_index/*),
/// see docs/tool-index.md.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fusion {
    pub lexical: f32,
    pub semantic: f32,
    /// Above 0: reciprocal rank fusion with this `k` (`lexical / (k + lexical
    /// rank) + semantic / (k + semantic rank)`) instead of the score sum.
    pub rrf_k: f32,
}

impl Fusion {
    pub const DEFAULT: Fusion = Fusion {
        lexical: 0.5,
        semantic: 1.0,
        rrf_k: 0.0,
    };
    /// Lexical only (today's ranking; what a missing model gives).
    pub const LEXICAL: Fusion = Fusion {
        lexical: 1.0,
        semantic: 0.0,
        rrf_k: 0.0,
    };
}

/// Bump when [`tool_embedding_text`] changes: cached tool vectors are keyed
/// by the model version and this ([`vectors_key`]).
pub const TOOL_TEXT_VERSION: u32 = 2;

/// What cached tool vectors must have been made with to be reused.
pub fn vectors_key(model: &EmbeddingModel) -> String {
    format!("{}/text-{TOOL_TEXT_VERSION}", model.version())
}

/// The text a tool's vector is made of: its server's name (which world it
/// is in), its name (identifier pieces split), title, the start of its
/// description, and its parameters' names and descriptions (bounded).
pub fn tool_embedding_text(server: &str, tool: &Value) -> String {
    let tool = ListedItem::read(tool);
    let mut out = server.replace(['_', '-', '.'], " ");
    out.push_str(": ");
    out.push_str(&tool.name.unwrap_or("").replace(['_', '-', '.'], " "));
    out.push_str(". ");
    if let Some(title) = tool.display_title() {
        out.push_str(title);
        out.push_str(". ");
    }
    out.extend(
        tool.description
            .unwrap_or("")
            .chars()
            .take(DESCRIPTION_CHARS),
    );
    if let Some(schema) = tool.input_schema {
        let mut parameters = String::new();
        super::text::push_schema_words(schema, &mut parameters, 0);
        out.push(' ');
        out.extend(
            parameters
                .replace(['_', '-', '.'], " ")
                .chars()
                .take(PARAMETER_CHARS),
        );
    }
    out
}

/// A tool's quantized vector (what the catalogue caches), `None` when no
/// word of it is in the model's vocabulary.
pub fn tool_vector(model: &EmbeddingModel, server: &str, tool: &Value) -> Option<Vec<i8>> {
    model
        .embed(&tool_embedding_text(server, tool))
        .map(|unit| quantize(&unit))
}

/// The semantic side of a built index: the model (for queries) and the
/// tools' vectors, in index order, laid out for a fast scan (a tool without
/// a vector is all zeros: cosine 0).
///
/// Why the layout: the release build is size-optimized (no auto-vectorizing)
/// and the product runs as WASM, so the cosine scan is scalar. Storing the
/// vectors dimension by dimension, two tools per `u64` (one per 32-bit half),
/// makes one 64-bit multiply-add serve two tools: with the query's component
/// `q` for dimension `d`, `acc += (t1 << 32 + t0) × q` accumulates
/// `2^32 × Σ t1·q + Σ t0·q`, and both sums fit in an i32 (see
/// [`QUERY_SCALE`]), so the halves come apart exactly. A query over 2,000
/// tools costs half the multiplies of the plain row-by-row dot products.
#[derive(Debug, Clone)]
pub(super) struct Semantic {
    model: Arc<EmbeddingModel>,
    tools: usize,
    /// `dims` columns of `tools.div_ceil(2)` packed pairs.
    columns: Vec<u64>,
}

/// Query components are scaled to i16. A dot product with an int8 tool vector
/// is then at most `127 × Σ|q_i|` ≤ `127 × 32,767 × √dims` (the query is a
/// unit vector), below 2^31 for the 1,024 dimensions a table may have.
const QUERY_SCALE: f32 = 32_767.0;

impl Semantic {
    pub fn new(model: Arc<EmbeddingModel>, vectors: Vec<Option<Vec<i8>>>) -> Semantic {
        let dims = model.dims();
        let tools = vectors.len();
        let pairs = tools.div_ceil(2);
        let mut columns = vec![0u64; dims * pairs];
        for (i, vector) in vectors.iter().enumerate() {
            let Some(v) = vector.as_ref().filter(|v| v.len() == dims) else {
                continue;
            };
            let (pair, shift) = (i / 2, if i % 2 == 1 { 32 } else { 0 });
            for (d, value) in v.iter().enumerate() {
                if let Some(slot) = columns.get_mut(d * pairs + pair) {
                    // Wrapping: a negative low half borrows from the high one,
                    // which the unpacking in `similarities` gives back.
                    *slot = slot.wrapping_add((i64::from(*value) << shift) as u64);
                }
            }
        }
        Semantic {
            model,
            tools,
            columns,
        }
    }

    pub fn model(&self) -> &EmbeddingModel {
        &self.model
    }

    /// Cosine of the query with every tool (0 for a tool without a vector);
    /// `None` when the query has no known word.
    pub fn similarities(&self, query: &str) -> Option<Vec<f32>> {
        let unit = self.model.embed(query)?;
        let pairs = self.tools.div_ceil(2);
        let mut acc = vec![0u64; pairs];
        if pairs > 0 {
            for (column, q) in self.columns.chunks_exact(pairs).zip(&unit) {
                let q = (q * QUERY_SCALE).round().clamp(-QUERY_SCALE, QUERY_SCALE) as i64 as u64;
                for (a, packed) in acc.iter_mut().zip(column) {
                    *a = a.wrapping_add(packed.wrapping_mul(q));
                }
            }
        }
        let scale = 1.0 / (127.0 * QUERY_SCALE);
        let mut out = Vec::with_capacity(pairs * 2);
        for a in acc {
            let low = a as u32 as i32;
            let high = ((a as i64).wrapping_sub(i64::from(low)) >> 32) as i32;
            out.push(low as f32 * scale);
            out.push(high as f32 * scale);
        }
        out.truncate(self.tools);
        Some(out)
    }
}

/// Fused scores: `lexical` are raw BM25F scores per tool (0 = no match),
/// `semantic` cosines per tool.
pub(super) fn fuse(lexical: &[f32], semantic: Option<&[f32]>, fusion: Fusion) -> Vec<f32> {
    let best = lexical.iter().copied().fold(0f32, f32::max);
    let lex = |i: usize| {
        if best > 0.0 {
            lexical.get(i).copied().unwrap_or(0.0) / best
        } else {
            0.0
        }
    };
    match semantic {
        Some(cosines) if fusion.semantic > 0.0 && fusion.rrf_k > 0.0 => {
            let lexical_rank = ranks(lexical, true);
            let semantic_rank = ranks(cosines, false);
            (0..cosines.len())
                .map(|i| {
                    let l = lexical_rank
                        .get(i)
                        .copied()
                        .flatten()
                        .map_or(0.0, |r| fusion.lexical / (fusion.rrf_k + r as f32));
                    let s = semantic_rank
                        .get(i)
                        .copied()
                        .flatten()
                        .map_or(0.0, |r| fusion.semantic / (fusion.rrf_k + r as f32));
                    l + s
                })
                .collect()
        }
        Some(cosines) if fusion.semantic > 0.0 => cosines
            .iter()
            .enumerate()
            .map(|(i, cos)| fusion.lexical * lex(i) + fusion.semantic * cos)
            .collect(),
        _ => (0..lexical.len()).map(lex).collect(),
    }
}

/// Each score's rank (1 = best); `None` for a score of 0 when `positive_only`.
fn ranks(scores: &[f32], positive_only: bool) -> Vec<Option<usize>> {
    let mut out = vec![None; scores.len()];
    for (rank, i) in positions_best_first(scores).into_iter().enumerate() {
        let keep = !positive_only || scores.get(i).is_some_and(|s| *s > 0.0);
        if let Some(slot) = out.get_mut(i) {
            *slot = keep.then_some(rank + 1);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fusion_adds_normalized_lexical_to_cosine() {
        let fused = fuse(
            &[2.0, 0.0, 1.0],
            Some(&[0.1, 0.9, 0.2]),
            Fusion {
                lexical: 0.5,
                semantic: 1.0,
                rrf_k: 0.0,
            },
        );
        assert_eq!(fused, vec![0.6, 0.9, 0.45]);
        // No model or no known word in the query: the lexical rank alone.
        assert_eq!(
            fuse(&[2.0, 0.0, 1.0], None, Fusion::DEFAULT),
            vec![1.0, 0.0, 0.5]
        );
        assert_eq!(fuse(&[0.0, 0.0], None, Fusion::DEFAULT), vec![0.0, 0.0]);
    }

    #[test]
    fn packed_scan_equals_plain_cosines() {
        use crate::tool_index::embed::{cosine_quantized, tests::tiny_table};
        let table = tiny_table(
            &["red", "blue", "green"],
            &[&[127, 0, 0], &[0, -127, 5], &[-90, 90, 0]],
        );
        let model = Arc::new(EmbeddingModel::from_bytes(&table).unwrap_or_else(|e| panic!("{e}")));
        // Odd count, a missing vector, extreme and negative values.
        let vectors = vec![
            Some(vec![127i8, -127, 0]),
            None,
            Some(vec![-127, -127, -127]),
            Some(vec![-1, 2, -3]),
            Some(vec![127, 127, 127]),
        ];
        let semantic = Semantic::new(model.clone(), vectors.clone());
        for query in ["red", "blue", "green", "red blue green", "blue green green"] {
            let got = semantic.similarities(query).unwrap_or_default();
            let unit = model.embed(query).unwrap_or_default();
            assert_eq!(got.len(), vectors.len());
            for (g, v) in got.iter().zip(&vectors) {
                let want = v.as_deref().map_or(0.0, |v| cosine_quantized(&unit, v));
                assert!((g - want).abs() < 1e-4, "{query}: {g} vs {want}");
            }
        }
        let empty = Semantic::new(model, Vec::new());
        assert_eq!(empty.similarities("red"), Some(Vec::new()));
    }

    #[test]
    fn embedding_text_bounds_huge_descriptions() {
        let tool = serde_json::json!({
            "name": "get_daily-challenge",
            "description": "x".repeat(1_000_000),
            "inputSchema": {"properties": {"user_id": {}}}
        });
        let text = tool_embedding_text("leet-code", &tool);
        assert!(
            text.starts_with("leet code: get daily challenge. "),
            "{text}"
        );
        assert!(text.ends_with(" user id "), "{text}");
        assert!(text.len() < 2_000);
    }
}
