#!/usr/bin/env python3
"""Generate a table's input (CSV or JSONL), its schema file and the expected
`ingot cat` output of every column and JSON of every row.

usage: gen_table.py OUTDIR ROWS SEED [csv|jsonl] [--no-nulls]
writes OUTDIR/input.{csv,jsonl}, OUTDIR/schema.txt, OUTDIR/expect/COLUMN.txt,
OUTDIR/rows.jsonl (one expected JSON object per row, in order)
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from render import csv_field, f32, json_value, jsonl_value, text_value  # noqa: E402

COLUMNS = [
    ("id", "int64", False),
    ("i8", "int8", True),
    ("i16", "int16", True),
    ("i32", "int32", True),
    ("u8", "uint8", True),
    ("u16", "uint16", True),
    ("u32", "uint32", True),
    ("u64", "uint64", True),
    ("flag", "bool", True),
    ("f32", "float32", True),
    ("f64", "float64", True),
    ("label", "string", True),
    ("blob", "binary", True),
    ("weird, name", "string", True),
    ("const", "int64", False),
]

RANGES = {
    "int8": (-128, 127), "int16": (-32768, 32767), "int32": (-2**31, 2**31 - 1),
    "int64": (-2**63, 2**63 - 1), "uint8": (0, 255), "uint16": (0, 65535),
    "uint32": (0, 2**32 - 1), "uint64": (0, 2**64 - 1),
}

WORDS = ["alpha", "beta", "gamma", "delta", "tab\there", "new\nline", "back\\slash",
         "quote\"d", "comma,sep", "", "ünïcødé ✓", "cr\rlf"]


def value(rng, name, typ, row):
    if name == "id":
        return row
    if name == "const":
        return 7
    if typ in RANGES:
        lo, hi = RANGES[typ]
        r = rng.random()
        if r < 0.05:
            return lo
        if r < 0.1:
            return hi
        if r < 0.5:
            return rng.randint(max(lo, -100), min(hi, 100))
        return rng.randint(lo, hi)
    if typ == "bool":
        return rng.random() < 0.5
    if typ in ("float32", "float64"):
        r = rng.random()
        special = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 1e16, 1e-5, 5e-324]
        if r < 0.1:
            v = rng.choice(special)
        elif r < 0.5:
            v = round(rng.uniform(-1000, 1000), rng.randint(0, 4))
        else:
            v = rng.uniform(-1, 1) * 10 ** rng.randint(-30, 30)
        return f32(v) if typ == "float32" else v
    if typ == "string":
        r = rng.random()
        if r < 0.6:
            return rng.choice(WORDS)
        if r < 0.62:
            return "L" * rng.randint(70000, 140000)  # longer than a page
        return "s%d" % rng.randint(0, 10 ** rng.randint(1, 9))
    if typ == "binary":
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 20)))
    raise ValueError(typ)


def main():
    out, rows, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    fmt = sys.argv[4] if len(sys.argv) > 4 else "csv"
    nulls = "--no-nulls" not in sys.argv
    rng = random.Random(seed)
    os.makedirs(os.path.join(out, "expect"), exist_ok=True)
    with open(os.path.join(out, "schema.txt"), "w") as f:
        f.write("# generated\n")
        for name, typ, nullable in COLUMNS:
            q = '"%s"' % name if " " in name else name
            f.write("%s %s%s\n" % (q, typ, "?" if nullable else ""))
    data = []
    for r in range(rows):
        row = []
        for name, typ, nullable in COLUMNS:
            # whole pages of NULL now and then: rows 200..499 of label are NULL
            if nullable and nulls and (rng.random() < 0.1 or (name == "label" and 200 <= r < 500)):
                row.append(None)
            else:
                row.append(value(rng, name, typ, r))
        data.append(row)
    if fmt == "csv":
        with open(os.path.join(out, "input.csv"), "w", newline="") as f:
            f.write(",".join(csv_field(n, "string") for n, _, _ in COLUMNS) + "\r\n")
            for row in data:
                f.write(",".join(csv_field(v, t) for v, (_, t, _) in zip(row, COLUMNS)) + "\n")
    else:
        with open(os.path.join(out, "input.jsonl"), "w") as f:
            for row in data:
                obj = {}
                for v, (n, t, _) in zip(row, COLUMNS):
                    if v is None and rng.random() < 0.5:
                        continue  # a missing key is NULL too
                    obj[n] = jsonl_value(v, t)
                f.write(json.dumps(obj, ensure_ascii=rng.random() < 0.5) + "\n")
    for i, (name, typ, _) in enumerate(COLUMNS):
        safe = name.replace(",", "_").replace(" ", "_")
        with open(os.path.join(out, "expect", safe + ".txt"), "w") as f:
            for row in data:
                f.write(text_value(row[i], typ) + "\n")
    with open(os.path.join(out, "rows.jsonl"), "w") as f:
        for row in data:
            f.write(json.dumps({n: json_value(v, t) for v, (n, t, _) in zip(row, COLUMNS)}) + "\n")


if __name__ == "__main__":
    main()
