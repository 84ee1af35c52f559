//! The tool index: what lets a model work with hundreds of catalogued tools
//! while its context holds only a compact list and the few schemas it uses.
//!
//! Pure functions over MCP tool objects tagged with their server name; the
//! engine decides when to expose what (modes `full` / `index` / `auto`, see
//! docs/tool-index.md) and this module answers:
//!
//! - [`ToolIndex`]: ranked lexical search (BM25F over name, title, description,
//!   parameters, server), fused with cosine over static embeddings when the
//!   host loaded the model ([`EmbeddingModel`], issue 27), and name
//!   resolution with "did you mean" errors;
//! - [`one_line_summary`], [`render_compact_index`] (`name — summary` lines),
//!   [`render_names_index`] (names only, for big catalogues), [`IndexDetail`],
//!   [`estimate_tokens`]: the text the model reads instead of schemas, and
//!   what it costs;
//! - [`meta_tools`]: `search_tools`, `load_tools`, `unload_tools`, `call_tool`, and
//!   [`meta_tools_with_index`] carrying the compact index;
//! - [`validate_arguments`]: rejects malformed arguments before any server
//!   starts; [`closest_names`] for unknown names.

mod best_first;
mod compact;
mod embed;
mod hybrid;
mod meta_tools;
mod search;
mod spelling;
mod term_map;
mod text;
mod validate;
mod word_list;

pub use compact::{
    estimate_definition_tokens, estimate_tokens, one_line_summary, render_compact_index,
    render_names_index, IndexDetail, SUMMARY_MAX_CHARS,
};
pub use embed::{
    cosine_quantized, quantize, vector_from_hex, vector_to_hex, EmbeddingModel, MAX_EMBED_CHARS,
    MAX_EMBED_TOKENS,
};
pub use hybrid::{tool_embedding_text, tool_vector, vectors_key, Fusion, TOOL_TEXT_VERSION};
pub use meta_tools::{
    closest_names, meta_tools, meta_tools_with_index, CALL_TOOL, LOAD_TOOLS, SEARCH_DEFAULT_LIMIT,
    SEARCH_MAX_LIMIT, SEARCH_TOOLS, UNLOAD_TOOLS,
};
pub use search::{render_search_results, SearchHit, ToolIndex, MAX_QUERY_CHARS};
pub use text::{stem, tokenize};
pub use validate::validate_arguments;
