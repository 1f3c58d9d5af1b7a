#!/usr/bin/env python3
"""tokens_gen - rows of token ids from real text, as a pretokenized training set
stores them: JSON Lines of {"id": N, "tokens": [ids...]}.

usage: tokens_gen.py SHAPE OUT.jsonl

The text is what this machine's Debian packages ship in /usr/share/doc and
/usr/share/man (decompressed, each distinct file once, copyright files and
changelogs left out: they repeat across packages), split into words and
punctuation. A token's id is its rank by frequency, shuffled within each
thousand (a tokenizer's ids follow its merges, roughly by frequency); a word
outside the vocabulary becomes the ids of its first eight characters, as a
byte-level tokenizer spells rare words. The text runs on from row to row,
nothing repeated by the generator. Shapes:
  docs   vocabulary 50,000, rows of 64-512 tokens (pretraining chunks)
  short  vocabulary 50,000, rows of 8-64 tokens (captions, instructions)
  wide   vocabulary 200,000, rows of 64-512 (ids past 65,535: 4-byte lanes)
  bytes  the text's UTF-8 bytes (vocabulary 256), 50,000 rows of 256-1,024
"""
import collections, json, os, random, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from deb_data import doc_texts  # noqa: E402

shape, out = sys.argv[1], sys.argv[2]
texts = doc_texts()
text = " ".join(texts)
rng = random.Random(1)
if shape == "bytes":
    seq, lo, hi, rows = list(text.encode()), 256, 1024, 50000
else:
    vocab_size = 200000 if shape == "wide" else 50000
    toks = re.findall(r"\w+|[^\w\s]", text)
    ranked = [w for w, _ in collections.Counter(toks).most_common(vocab_size)]
    ids = list(range(len(ranked)))
    for a in range(0, len(ids), 1000):
        seg = ids[a:a + 1000]
        rng.shuffle(seg)
        ids[a:a + 1000] = seg
    vocab = {w: ids[i] for i, w in enumerate(ranked)}
    seq = []
    for t in toks:
        if t in vocab:
            seq.append(vocab[t])
        else:
            seq.extend(vocab.get(ch, len(ranked) - 1) for ch in t[:8])
    lo, hi, rows = (8, 64, 200000) if shape == "short" else (64, 512, 100000)
with open(out, "w") as f:
    pos = n = 0
    while n < rows and pos + hi < len(seq):
        k = rng.randint(lo, hi)
        f.write(json.dumps({"id": n, "tokens": seq[pos:pos + k]}) + "\n")
        pos, n = pos + k, n + 1
print(f"{shape}: {n} rows, {pos} tokens from {len(texts)} files", file=sys.stderr)
