//! The one word-keyed map type of tool search: the index's terms
//! (`search.rs`), the catalogue's word counts (`spelling.rs`) and the
//! embedding table's vocabulary (`embed.rs`). Each map type compiles its own
//! copy of the hash table's code into the `.wasm`; one type for all three
//! keeps one copy (bench/README.md "WASM size"). `Box<str>` keys: no spare
//! capacity, and 4 bytes less than a `String` per word.

use std::collections::HashMap;

/// Words (or `first second` pairs) to a number: a term's id, a count, a row.
pub(super) type TermMap = HashMap<Box<str>, usize>;
