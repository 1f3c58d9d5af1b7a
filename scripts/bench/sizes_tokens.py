#!/usr/bin/python3
"""sizes_tokens.py - what a word-token dictionary would store for one column.

  scripts/bench/sizes_tokens.py FILE COLUMN ROWS_PER_CHUNK

FILE is CSV (with a header) or JSON Lines, as scripts/bench/sizes makes them.
An estimate, not an encoder: each chunk's values are cut into tokens (a run of
letters, digits and bytes >= 0x80, then the spaces and punctuation after it; at
most 32 bytes) kept once per chunk in a dictionary (the tokens' bytes, with 2.5
bytes of offset and use count each); each block of about 4 KiB of text holds
its items' token counts and codes, as whichever is smaller: the codes packed at
the dictionary's width, or zstd -3 over varint counts and 3-byte codes.
Prints MB of the dictionaries, the blocks and both.
"""
import csv, json, math, re, struct, subprocess, sys

TOKEN = re.compile(rb"[A-Za-z0-9\x80-\xff]*[^A-Za-z0-9\x80-\xff]*")
BLOCK_TEXT = 4096


def values(path, col):
    if path.endswith(".csv"):
        with open(path, newline="") as f:
            return [r[col].encode() for r in csv.DictReader(f)]
    out = []
    for line in open(path, encoding="utf-8"):
        v = json.loads(line).get(col)
        if isinstance(v, str):
            out.append(v.encode())
    return out


def varint(n):
    b = bytearray()
    while n >= 0x80:
        b.append(n & 0x7F | 0x80)
        n >>= 7
    b.append(n)
    return bytes(b)


def chunk_bytes(vals):
    ids, items = {}, []
    for v in vals:
        codes = []
        for t in TOKEN.findall(v):
            while t:
                codes.append(ids.setdefault(t[:32], len(ids) + 1))
                t = t[32:]
        items.append(codes)
    width = max(1, math.ceil(math.log2(len(ids) + 1)))
    dict_bytes = sum(len(t) for t in ids) + 2.5 * len(ids)
    blocks, run, text = 0.0, [], 0
    for v, codes in zip(vals + [b""], items + [None]):
        if codes is not None:
            run.append(codes)
            text += len(v)
        if run and (codes is None or text >= BLOCK_TEXT):
            raw = b"".join(varint(len(c)) for c in run) + b"".join(
                struct.pack("<I", x)[:3] for c in run for x in c)
            z = subprocess.run(["zstd", "-3", "-c", "-q"], input=raw, capture_output=True, check=True).stdout
            packed = len(run) + sum(len(c) for c in run) * width / 8
            blocks += min(len(z), packed)
            run, text = [], 0
    return dict_bytes, blocks


def main():
    path, col, per = sys.argv[1], sys.argv[2], int(sys.argv[3])
    vals = values(path, col)
    d = b = 0.0
    for a in range(0, len(vals), per):
        cd, cb = chunk_bytes(vals[a:a + per])
        d, b = d + cd, b + cb
    print(f"{col}: dictionaries {d / 1e6:.3f} MB, blocks {b / 1e6:.3f} MB, both {(d + b) / 1e6:.3f} MB")


if __name__ == "__main__":
    main()
