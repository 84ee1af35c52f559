#!/usr/bin/env python3
"""Word neighbours of the tool-search embedding table (issue 27, round 6).

For every whole-word token of the table (three or more lower-case ASCII
letters, not a stopword of crates/lazy-mcp-core/src/tool_index/text.rs: the
words a query or a tool text uses as they are), its K nearest whole words by
cosine of their rows, leaving out a word's own inflections (one a prefix of
the other within three letters: `file`/`files`, which the stemmer already
joins). Computed once here so that the core never scans the table for a
query word; appended to a copy of the table as a section the core reads
(`embed.rs`):

  b"LMCPNB01"
  u32 K
  for every row of the table, K x (u16 neighbour row, u8 similarity x 255);
  similarity 0 is an empty slot (not a whole word, or nothing similar).

Needs numpy only. Run with any Python that has numpy, e.g. the venv of
distill.py:

  /root/.cache/lazy-mcp-tools/py-distill/bin/python scripts/model/neighbours.py \
      assets/model/tool-embeddings.bin /tmp/tool-embeddings-nbr.bin

Settings: K (default 8). The same input gives the same bytes.
"""
import re
import struct
import sys
from pathlib import Path

import numpy as np

K = int(__import__("os").environ.get("K", "8"))
ROOT = Path(__file__).resolve().parents[2]
MAGIC = b"LMCPSE01"
SECTION = b"LMCPNB01"


def stopwords():
    text = (ROOT / "crates/lazy-mcp-core/src/tool_index/text.rs").read_text()
    block = text.split("const STOPWORDS: &[&str] = &[", 1)[1].split("];", 1)[0]
    return set(re.findall(r'"([^"]*)"', block))


def read_table(data):
    assert data[:8] == MAGIC, "not a Lazy MCP embedding table"
    at = 8
    (hlen,) = struct.unpack_from("<I", data, at)
    at += 4
    header = __import__("json").loads(data[at : at + hlen])
    at += hlen
    (blen,) = struct.unpack_from("<I", data, at)
    at += 4
    vocab = data[at : at + blen].decode("utf-8").split("\n")
    at += blen
    n, dims = header["vocab"], header["dims"]
    scales = np.frombuffer(data, dtype="<f4", count=n, offset=at)
    at += 4 * n
    rows = np.frombuffer(data, dtype=np.int8, count=n * dims, offset=at).reshape(n, dims)
    at += n * dims
    assert at == len(data), "the table already has trailing data"
    return vocab, rows.astype(np.float32) * scales[:, None]


def inflection(a, b):
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return long.startswith(short) and len(long) - len(short) <= 3


def main():
    src, dst = Path(sys.argv[1]), Path(sys.argv[2])
    data = src.read_bytes()
    vocab, rows = read_table(data)
    stop = stopwords()
    words = [
        i
        for i, t in enumerate(vocab)
        if len(t) >= 3 and t.isascii() and t.isalpha() and t.islower() and t not in stop
    ]
    m = rows[words]
    m /= np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
    out = np.zeros((len(vocab), K, 3), dtype=np.uint8)
    block = 1024
    for start in range(0, len(words), block):
        sims = m[start : start + block] @ m.T
        for j in range(sims.shape[0]):
            sims[j, start + j] = -1.0
        order = np.argsort(-sims, axis=1)[:, : K + 8]
        for j in range(sims.shape[0]):
            row = words[start + j]
            word = vocab[row]
            slot = 0
            for c in order[j]:
                if slot == K:
                    break
                other = vocab[words[c]]
                if inflection(word, other):
                    continue
                sim = float(sims[j, c])
                if sim <= 0:
                    break
                nrow = words[c]
                out[row, slot] = (nrow & 255, nrow >> 8, min(255, max(1, round(sim * 255))))
                slot += 1
    assert len(vocab) < 65536
    section = SECTION + struct.pack("<I", K) + out.tobytes()
    dst.write_bytes(data + section)
    print(f"{len(words)} whole words, K={K}, section {len(section)} bytes -> {dst}")
    for w in ["euro", "dollar", "cook", "dinner", "weather", "owns", "remember", "fearful", "leetcode"]:
        if w in vocab:
            r = vocab.index(w)
            ns = [(vocab[int(a) | int(b) << 8], round(int(s) / 255, 2)) for a, b, s in out[r] if s]
            print(f"  {w}: {ns}")


if __name__ == "__main__":
    main()
