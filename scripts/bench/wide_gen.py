#!/usr/bin/python3
"""wide_gen.py COLS ROWS OUT: a CSV of COLS string columns c0.. and ROWS rows,
each value four words of its column's own 300-word vocabulary of random
letters (fixed seed), so that each column gets a chunk context of its own (an
FSST symbol table). Used by wide_take and wide_jsonl."""
import random
import sys

cols, rows, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
r = random.Random(5)
abc = "abcdefghijklmnopqrstuvwxyz"
vocab = [["".join(r.choice(abc) for _ in range(r.randint(3, 8))) for _ in range(300)] for _ in range(cols)]
with open(out, "w") as f:
    f.write(",".join(f"c{c}" for c in range(cols)) + "\n")
    for _ in range(rows):
        f.write(",".join(" ".join(r.choice(vocab[c]) for _ in range(4)) for c in range(cols)) + "\n")
