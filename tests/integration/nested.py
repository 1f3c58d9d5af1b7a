#!/usr/bin/env python3
"""Nested test data: a type language mirroring ingot's schema syntax, the
expected (normalised) JSON of a record, and a random record generator.

  nested.py random OUTDIR ROWS SEED   writes OUTDIR/schema.txt, input.jsonl and
                                      expect/<column>.jsonl (one JSON value per row)
"""
import json
import os
import random
import sys

# A type: ("prim", name, nullable) | ("list", elem, nullable) | ("struct", [(name, type)], nullable)
#         | ("vector", dim, nullable)


def text(t):
    k = t[0]
    if k == "prim":
        s = t[1]
    elif k == "list":
        s = "list<%s>" % text(t[1])
    elif k == "vector":
        s = "vector<float32, %d>" % t[1]
    else:
        s = "struct<%s>" % ", ".join("%s:%s" % (n, text(f)) for n, f in t[1])
    return s + ("?" if t[2] else "")


def normalise(t, v, missing=False):
    """The value as ingot renders it: missing optional -> null, missing list -> []."""
    k = t[0]
    if v is None:
        if k == "list" and missing and not t[2]:
            return []
        return None
    if k == "list":
        return [normalise(t[1], e) for e in v]
    if k == "struct":
        return {n: normalise(f, v.get(n), n not in v) for n, f in t[1]}
    return v


def gen(t, rng, depth=0):
    k = t[0]
    if t[2] and rng.random() < 0.2:
        return None
    if k == "prim":
        n = t[1]
        if n == "int64":
            return rng.choice([0, 1, -7, 2**63 - 1, -2**63, rng.randint(-10**6, 10**6)])
        if n == "int32":
            return rng.randint(-2**31, 2**31 - 1)
        if n == "string":
            return rng.choice(["", "x", "tab\there", "quote\"", "ünï", "s%d" % rng.randint(0, 999)])
        if n == "bool":
            return rng.random() < 0.5
        if n == "float64":
            return rng.choice([0.5, -1.25, 1e-5, 123.0, 0.1])
    if k == "vector":
        return [rng.choice([0.5, -0.25, 1.0, 0.0]) for _ in range(t[1])]
    if k == "list":
        return [gen(t[1], rng, depth + 1) for _ in range(rng.choice([0, 0, 1, 2, 3, 5]))]
    obj = {}
    for n, f in t[1]:
        if rng.random() < 0.15 and (f[2] or f[0] == "list"):
            continue  # a missing key (only where that is allowed)
        obj[n] = gen(f, rng, depth + 1)
    return obj


SCHEMA = [
    ("id", ("prim", "int64", False)),
    ("tags", ("list", ("prim", "string", False), True)),
    ("nums", ("list", ("prim", "int64", True), False)),
    ("grid", ("list", ("list", ("prim", "int32", False), True), False)),
    ("doc", ("struct", [("title", ("prim", "string", True)),
                        ("links", ("list", ("struct", [("url", ("prim", "string", False)),
                                                      ("weight", ("prim", "float64", True))], False), True)),
                        ("meta", ("struct", [("ok", ("prim", "bool", True)),
                                             ("score", ("prim", "float64", True))], True))], True)),
    ("vec", ("vector", 3, True)),
    ("deep", ("list", ("struct", [("a", ("list", ("list", ("prim", "int64", True), False), True)),
                                  ("b", ("struct", [("c", ("prim", "string", True))], True))], True), True)),
]


def main():
    out, rows, seed = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    rng = random.Random(seed)
    os.makedirs(os.path.join(out, "expect"), exist_ok=True)
    with open(os.path.join(out, "schema.txt"), "w") as f:
        for n, t in SCHEMA:
            f.write("%s %s\n" % (n, text(t)))
    recs = []
    for r in range(rows):
        rec = {}
        for n, t in SCHEMA:
            if n == "id":
                rec[n] = r
                continue
            if rng.random() < 0.1:
                continue
            rec[n] = gen(t, rng)
        recs.append(rec)
    with open(os.path.join(out, "input.jsonl"), "w") as f:
        for rec in recs:
            f.write(json.dumps(rec) + "\n")
    for n, t in SCHEMA:
        with open(os.path.join(out, "expect", n + ".jsonl"), "w") as f:
            for rec in recs:
                f.write(json.dumps(normalise(t, rec.get(n), n not in rec)) + "\n")


if __name__ == "__main__" and sys.argv[1] == "random":
    main()
