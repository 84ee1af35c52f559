//! Static text embeddings for the semantic half of tool search (issue 27).
//!
//! A model2vec-style table (distilled from all-MiniLM-L6-v2 by
//! scripts/model/distill.py; licence and provenance in assets/model/): one
//! int8 row per WordPiece token. A text's vector is the normalized mean of its
//! tokens' rows, so embedding is a tokenizer pass and a few hundred additions:
//! no network, no inference runtime. The host hands the table over as bytes
//! (`Engine::load_embedding_model`); this module parses and uses it.

use super::term_map::TermMap;
use super::text::is_stopword;
use super::word_list::WordList;
use serde_json::Value;

/// Leading bytes of a table file.
const MAGIC: &[u8; 8] = b"LMCPSE01";

/// At most this many characters of a text are embedded: a 1 MB query costs no
/// more than a long paragraph.
pub const MAX_EMBED_CHARS: usize = 4_000;
/// At most this many WordPiece tokens are averaged.
pub const MAX_EMBED_TOKENS: usize = 512;
/// BERT's limit: a longer "word" is one unknown token.
const MAX_WORD_CHARS: usize = 100;

struct Header {
    version: String,
    dims: usize,
    vocab: usize,
}

impl Header {
    /// Reads the header's JSON through the `Value` reader of text the rest of
    /// the core uses: a derived reader of bytes would compile serde_json's
    /// byte reader a second time (about 8 KB of the `.wasm`).
    fn read(bytes: &[u8]) -> Result<Header, String> {
        let text = std::str::from_utf8(bytes).map_err(|_| "it is not UTF-8".to_string())?;
        let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let count = |field: &str| {
            value
                .get(field)
                .and_then(Value::as_u64)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| format!("no whole number `{field}`"))
        };
        Ok(Header {
            version: value
                .get("version")
                .and_then(Value::as_str)
                .ok_or("no string `version`")?
                .to_string(),
            dims: count("dims")?,
            vocab: count("vocab")?,
        })
    }
}

/// The parsed table: vocabulary, one scale per row, int8 rows.
#[derive(Debug)]
pub struct EmbeddingModel {
    version: String,
    dims: usize,
    vocab: TermMap,
    /// The whole-word tokens of three or more lower-case ASCII letters
    /// (stopwords left out), ranked by row (BERT's vocabulary lists common
    /// words first): words a query slip may be corrected to.
    whole_words: WordList,
    scales: Vec<f32>,
    rows: Vec<i8>,
}

/// Reads `n` bytes at `*at`, advancing it; `None` past the end.
fn take<'a>(bytes: &'a [u8], at: &mut usize, n: usize) -> Option<&'a [u8]> {
    let end = at.checked_add(n)?;
    let out = bytes.get(*at..end)?;
    *at = end;
    Some(out)
}

fn take_u32(bytes: &[u8], at: &mut usize) -> Option<usize> {
    let b = take(bytes, at, 4)?;
    let array: [u8; 4] = b.try_into().ok()?;
    usize::try_from(u32::from_le_bytes(array)).ok()
}

impl EmbeddingModel {
    /// Parses a table file; the error says what is wrong with it.
    pub fn from_bytes(bytes: &[u8]) -> Result<EmbeddingModel, String> {
        let truncated = || "the file is truncated".to_string();
        let mut at = 0;
        if take(bytes, &mut at, 8) != Some(MAGIC.as_slice()) {
            return Err("it is not a Lazy MCP embedding table (bad magic)".into());
        }
        let header_len = take_u32(bytes, &mut at).ok_or_else(truncated)?;
        let header = take(bytes, &mut at, header_len).ok_or_else(truncated)?;
        let header = Header::read(header).map_err(|e| format!("its header is unreadable ({e})"))?;
        if header.dims == 0 || header.dims > 1024 || header.vocab == 0 {
            return Err(format!(
                "its header has {} dimensions and {} tokens",
                header.dims, header.vocab
            ));
        }
        let block_len = take_u32(bytes, &mut at).ok_or_else(truncated)?;
        let block = take(bytes, &mut at, block_len).ok_or_else(truncated)?;
        let block = std::str::from_utf8(block).map_err(|_| "its vocabulary is not UTF-8")?;
        let mut vocab = TermMap::with_capacity(header.vocab);
        let mut whole_words = Vec::new();
        for (row, token) in block.split('\n').enumerate() {
            let row = u32::try_from(row).map_err(|_| "its vocabulary is too large")?;
            vocab.insert(Box::from(token), row as usize);
            if token.len() >= 3
                && token.bytes().all(|b| b.is_ascii_lowercase())
                && !is_stopword(token)
            {
                whole_words.push((token, row));
            }
        }
        let whole_words = WordList::new(whole_words);
        if vocab.len() != header.vocab {
            return Err(format!(
                "its vocabulary has {} distinct tokens, the header says {}",
                vocab.len(),
                header.vocab
            ));
        }
        let scale_bytes = take(bytes, &mut at, header.vocab * 4).ok_or_else(truncated)?;
        let scales = scale_bytes
            .chunks_exact(4)
            .filter_map(|c| <[u8; 4]>::try_from(c).ok().map(f32::from_le_bytes))
            .collect();
        let row_bytes = take(bytes, &mut at, header.vocab * header.dims).ok_or_else(truncated)?;
        if at != bytes.len() {
            return Err("it has trailing bytes".into());
        }
        Ok(EmbeddingModel {
            version: header.version,
            dims: header.dims,
            vocab,
            whole_words,
            scales,
            rows: row_bytes.iter().map(|b| *b as i8).collect(),
        })
    }

    /// The model's version: cached tool vectors are only reused under the same one.
    pub fn version(&self) -> &str {
        &self.version
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    pub fn vocab_len(&self) -> usize {
        self.vocab.len()
    }

    /// Whether `word` (lower-case) is one whole token of the table: a word
    /// the model knows as it is, not only as pieces.
    pub fn knows_word(&self, word: &str) -> bool {
        self.vocab.contains_key(word)
    }

    /// The table's whole words, for slip correction.
    pub(super) fn whole_words(&self) -> &WordList {
        &self.whole_words
    }

    /// The rows of `text`'s WordPiece tokens (unknown pieces left out), at most
    /// [`MAX_EMBED_TOKENS`] of the first [`MAX_EMBED_CHARS`] characters.
    /// Stopwords and punctuation say nothing about a tool and are left out:
    /// in a mean of a few vectors they would pull every text together.
    pub fn token_rows(&self, text: &str) -> Vec<u32> {
        let mut rows = Vec::new();
        for word in basic_words(text) {
            if rows.len() >= MAX_EMBED_TOKENS {
                break;
            }
            if is_stopword(&word) || !word.chars().any(char::is_alphanumeric) {
                continue;
            }
            self.word_pieces(&word, &mut rows);
        }
        rows.truncate(MAX_EMBED_TOKENS);
        rows
    }

    /// Greedy longest-match-first WordPiece, as BERT's tokenizer: a word with
    /// a piece the vocabulary lacks adds nothing (BERT's `[UNK]`).
    fn word_pieces(&self, word: &str, out: &mut Vec<u32>) {
        if word.chars().count() > MAX_WORD_CHARS {
            return;
        }
        let start_len = out.len();
        let mut start = 0;
        let mut piece = String::new();
        while start < word.len() {
            let mut end = word.len();
            let mut found = None;
            while end > start {
                let Some(sub) = word.get(start..end) else {
                    end -= 1;
                    continue;
                };
                piece.clear();
                if start > 0 {
                    piece.push_str("##");
                }
                piece.push_str(sub);
                if let Some(row) = self.vocab.get(piece.as_str()) {
                    found = u32::try_from(*row).ok();
                    break;
                }
                end -= 1;
            }
            let Some(row) = found else {
                out.truncate(start_len);
                return;
            };
            out.push(row);
            start = end;
        }
    }

    /// The unit vector of `text`, or `None` when no token of it is known.
    pub fn embed(&self, text: &str) -> Option<Vec<f32>> {
        let rows = self.token_rows(text);
        let mut sum = vec![0f32; self.dims];
        let mut any = false;
        for row in rows {
            let row = row as usize;
            let (Some(scale), Some(values)) = (
                self.scales.get(row),
                self.rows.get(row * self.dims..(row + 1) * self.dims),
            ) else {
                continue;
            };
            any = true;
            for (s, v) in sum.iter_mut().zip(values) {
                *s += f32::from(*v) * scale;
            }
        }
        let norm = sum.iter().map(|v| v * v).sum::<f32>().sqrt();
        if !any || norm <= f32::EPSILON || !norm.is_finite() {
            return None;
        }
        sum.iter_mut().for_each(|v| *v /= norm);
        Some(sum)
    }
}

/// A unit vector as int8 (×127): what tool vectors are kept and cached as.
pub fn quantize(unit: &[f32]) -> Vec<i8> {
    unit.iter()
        .map(|v| (v * 127.0).round().clamp(-127.0, 127.0) as i8)
        .collect()
}

/// Cosine of a unit query vector with a quantized unit vector.
pub fn cosine_quantized(query: &[f32], tool: &[i8]) -> f32 {
    let dot: f32 = query.iter().zip(tool).map(|(q, t)| q * f32::from(*t)).sum();
    dot / 127.0
}

/// Lower-case hex of quantized vectors (the catalogue's cache format).
pub fn vector_to_hex(vector: &[i8]) -> String {
    let mut out = String::with_capacity(vector.len() * 2);
    for v in vector {
        let b = *v as u8;
        for nibble in [b >> 4, b & 15] {
            out.extend(char::from_digit(u32::from(nibble), 16));
        }
    }
    out
}

/// The reverse of [`vector_to_hex`]; `None` for anything malformed.
pub fn vector_from_hex(hex: &str) -> Option<Vec<i8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| char::from(c).to_digit(16);
    hex.as_bytes()
        .chunks_exact(2)
        .map(|pair| {
            let hi = digit(*pair.first()?)?;
            let lo = digit(*pair.get(1)?)?;
            u8::try_from(hi * 16 + lo).ok().map(|b| b as i8)
        })
        .collect()
}

/// BERT's basic tokenizer, lower-cased (the model is uncased): control
/// characters dropped, accents folded for Latin letters, CJK ideographs and
/// punctuation made words of their own; plus camelCase split first, since
/// tool names are identifiers. Reads at most [`MAX_EMBED_CHARS`] characters.
fn basic_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    let flush = |word: &mut String, words: &mut Vec<String>| {
        if !word.is_empty() {
            words.push(std::mem::take(word));
        }
    };
    for c in text.chars().take(MAX_EMBED_CHARS) {
        if c.is_whitespace() || c.is_control() || c == '\u{fffd}' {
            flush(&mut word, &mut words);
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower {
            flush(&mut word, &mut words);
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        if is_cjk(c) || !(c.is_alphanumeric()) {
            flush(&mut word, &mut words);
            words.push(fold(c).to_string());
            continue;
        }
        for lower in c.to_lowercase() {
            word.push(fold(lower));
        }
    }
    flush(&mut word, &mut words);
    words
}

fn is_cjk(c: char) -> bool {
    matches!(u32::from(c),
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2CEAF
        | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

/// Latin letters with diacritics → the base letter (BERT uncased strips accents).
fn fold(c: char) -> char {
    match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => 'a',
        'ç' | 'ć' | 'č' => 'c',
        'ď' => 'd',
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ė' | 'ę' | 'ě' => 'e',
        'ì' | 'í' | 'î' | 'ï' | 'ī' | 'į' => 'i',
        'ñ' | 'ń' | 'ň' => 'n',
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => 'o',
        'ř' => 'r',
        'ś' | 'š' | 'ş' => 's',
        'ť' | 'ţ' => 't',
        'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' => 'u',
        'ý' | 'ÿ' => 'y',
        'ź' | 'ż' | 'ž' => 'z',
        other => other,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A tiny table in the real file format, for tests that need no real model.
    pub(crate) fn tiny_table(tokens: &[&str], rows: &[&[i8]]) -> Vec<u8> {
        let dims = rows.first().map_or(1, |r| r.len());
        let header = format!(
            "{{\"version\":\"tiny-1\",\"dims\":{dims},\"vocab\":{}}}",
            tokens.len()
        );
        let block = tokens.join("\n");
        let mut out = MAGIC.to_vec();
        out.extend((header.len() as u32).to_le_bytes());
        out.extend(header.as_bytes());
        out.extend((block.len() as u32).to_le_bytes());
        out.extend(block.as_bytes());
        for _ in tokens {
            out.extend(1.0f32.to_le_bytes());
        }
        for row in rows {
            out.extend(row.iter().map(|v| *v as u8));
        }
        out
    }

    #[test]
    fn wordpiece_matches_longest_pieces_and_drops_unknown_words() {
        let table = tiny_table(
            &[
                "[UNK]", "play", "##ing", "##er", "un", "##aff", "##able", "!",
            ],
            &[
                &[1, 0],
                &[2, 0],
                &[0, 1],
                &[0, 2],
                &[1, 1],
                &[3, 0],
                &[0, 3],
                &[1, 0],
            ],
        );
        let model = EmbeddingModel::from_bytes(&table).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(model.token_rows("Playing"), vec![1, 2]);
        // Punctuation and stopwords carry no meaning: left out of the mean.
        assert_eq!(model.token_rows("unaffable player!"), vec![4, 5, 6, 1, 3]);
        assert_eq!(model.token_rows("the playing of it"), vec![1, 2]);
        // "plays": "play" then "##s" is unknown: the whole word is dropped.
        assert_eq!(model.token_rows("plays"), Vec::<u32>::new());
        assert_eq!(model.token_rows("playPlaying"), vec![1, 1, 2]);
        assert!(model.embed("zzz").is_none());
        let v = model.embed("play").unwrap_or_default();
        assert!((v.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn damaged_tables_are_refused_with_a_reason() {
        let good = tiny_table(&["a", "b"], &[&[1, 2], &[3, 4]]);
        assert!(EmbeddingModel::from_bytes(&good).is_ok());
        assert!(EmbeddingModel::from_bytes(b"nope").is_err());
        for cut in [8, 12, 20, good.len() - 1] {
            let err = EmbeddingModel::from_bytes(&good[..cut])
                .err()
                .unwrap_or_default();
            assert!(!err.is_empty(), "cut at {cut}");
        }
        let mut long = good.clone();
        long.push(0);
        assert!(EmbeddingModel::from_bytes(&long).is_err());
    }

    /// `tiny_table(["a", "b"], 2 dims)` with its header replaced.
    fn with_header(header: &[u8]) -> Vec<u8> {
        let good = tiny_table(&["a", "b"], &[&[1, 2], &[3, 4]]);
        let old_len = u32::from_le_bytes([good[8], good[9], good[10], good[11]]) as usize;
        let mut out = MAGIC.to_vec();
        out.extend((header.len() as u32).to_le_bytes());
        out.extend(header);
        out.extend(&good[12 + old_len..]);
        out
    }

    #[test]
    fn the_header_is_read_field_by_field() {
        let read = |header: &str| EmbeddingModel::from_bytes(&with_header(header.as_bytes()));
        // Fields in any order, unknown ones ignored (as the table writer may add some).
        let model = read(r#"{"vocab":2,"note":[1,{"x":null}],"dims":2,"version":"v\u00e9"}"#)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (model.version(), model.dims(), model.vocab_len()),
            ("vé", 2, 2)
        );
        for (header, reason) in [
            (r#"{"version":"v","dims":2}"#, "no whole number `vocab`"),
            (
                r#"{"version":"v","dims":"2","vocab":2}"#,
                "no whole number `dims`",
            ),
            (
                r#"{"version":"v","dims":2.5,"vocab":2}"#,
                "no whole number `dims`",
            ),
            (
                r#"{"version":"v","dims":-2,"vocab":2}"#,
                "no whole number `dims`",
            ),
            (r#"{"version":1,"dims":2,"vocab":2}"#, "no string `version`"),
            (
                r#"{"version":"v","dims":2,"vocab":2"#,
                "EOF while parsing an object",
            ),
            ("[1]", "no string `version`"),
        ] {
            let err = read(header).err().unwrap_or_default();
            assert!(
                err.starts_with("its header is unreadable (") && err.contains(reason),
                "{header}: {err}"
            );
        }
        let err = EmbeddingModel::from_bytes(&with_header(b"{\"version\":\"\xff\"}"))
            .err()
            .unwrap_or_default();
        assert_eq!(err, "its header is unreadable (it is not UTF-8)");
        let err = read(r#"{"version":"v","dims":0,"vocab":2}"#)
            .err()
            .unwrap_or_default();
        assert_eq!(err, "its header has 0 dimensions and 2 tokens");
    }

    #[test]
    fn basic_words_split_like_bert() {
        assert_eq!(
            basic_words("getHTTPResponse, café\u{0}x 中文"),
            vec!["get", "httpresponse", ",", "cafe", "x", "中", "文"]
        );
        assert_eq!(basic_words(&"a ".repeat(10_000)).len(), MAX_EMBED_CHARS / 2);
    }

    #[test]
    fn hex_round_trips_and_rejects_garbage() {
        let v = vec![-127i8, -1, 0, 1, 127];
        assert_eq!(vector_from_hex(&vector_to_hex(&v)), Some(v));
        assert_eq!(vector_from_hex("zz"), None);
        assert_eq!(vector_from_hex("abc"), None);
    }
}
