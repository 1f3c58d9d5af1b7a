#!/usr/bin/env python3
"""every_type.py DIR [ROWS]: a table with every type the views show, for the
view tests (test_arrow_view.sh, test_view_readers.sh): DIR/schema.txt, DIR/in.jsonl
of ROWS rows (5,000), the objects its blob columns name in DIR/objs, and
DIR/duckdb_types.txt, the types DuckDB reads from its Parquet views. Every
ingot type (ints of every width and sign, bool, floats, fp16-quantised floats,
strings with escapes and non-ASCII, binary, vectors, blobs), lists of each and
of lists (four deep), structs in structs, lists of structs holding lists,
vectors and blobs, with NULLs at every level each can hold."""
import json
import os
import random
import sys

SCHEMA = """\
id int64
b bool?
i8 int8
u16 uint16
i32 int32?
u64 uint64
f float32
d float64?
h float32 quantize=fp16
s string?
bin binary
v vector<float32, 4>
vn vector<float32, 3>?
l list<int64>
ln list<int32?>?
ls list<string?>?
lbin list<binary>
lb list<bool?>
st struct<a:int64, n:string?, g:float64?, t:bool>?
nest struct<x:list<int64>>
sl struct<k:int32, tags:list<string?>?>?
ll list<list<int32>>
lls list<list<string?>?>?
l3 list<list<list<int32>?>>?
mp list<struct<key:string, value:float64?, ok:bool>?>?
ss struct<in:struct<z:int64>>
ns struct<a:int32, in:struct<b:string?, c:list<int64>?, deep:struct<x:float64?>?>?>?
sv struct<v:vector<float32, 2>?, w:int32>?
img blob?
frames list<blob>?
lv list<vector<float32, 3>>
lvn list<vector<float32, 2>?>?
l4 list<list<list<list<int32>>?>>?
lsv list<struct<name:string, emb:vector<float32, 2>?>?>?
llv list<list<vector<float32, 2>>?>
sb struct<img:blob?, label:int32>?
fn list<blob?>?
sls struct<n:int32, objs:list<struct<label:string, score:float32?>?>?>?
lob list<struct<img:blob?, cap:string>?>?
ann list<struct<bbox:list<float32>?, label:string?, tags:list<string?>>?>?
det list<struct<box:struct<x:float32, y:float32?>?, cls:int32>?>?
seg list<struct<segmentation:list<list<float32>?>?, crowd:bool>?>?
poly list<struct<rings:list<list<list<int32?>>?>, name:string>>
fe list<struct<name:string, embs:list<vector<float32, 2>?>?>?>?
obj list<struct<id:int32, meta:struct<tags:list<string?>?, emb:vector<float32, 2>?, pic:blob?, deep:struct<n:int32?, pts:list<list<int32>>>?>?>?>?
clip list<struct<name:string, frames:list<blob?>?>?>?
shots list<struct<takes:list<list<blob>>>>
vid list<struct<t:int32, objs:list<struct<x:int32?, lab:string, pts:list<float32>>?>?>?>?
svid struct<n:int32, clips:list<struct<objs:list<struct<box:struct<x:float32, y:float32>?, name:string?>>?>>>?
dv list<struct<objs:list<struct<emb:vector<float32, 2>?, k:int32>>>>?
db list<struct<objs:list<struct<img:blob?>>>>?
"""


# The column types DuckDB reads from the Parquet views of this table (the
# types docs/FILESYSTEM.md gives each ingot type), in schema order.
DUCKDB_TYPES = """\
id BIGINT
b BOOLEAN
i8 TINYINT
u16 USMALLINT
i32 INTEGER
u64 UBIGINT
f FLOAT
d DOUBLE
h FLOAT
s VARCHAR
bin BLOB
v FLOAT[]
vn FLOAT[]
l BIGINT[]
ln INTEGER[]
ls VARCHAR[]
lbin BLOB[]
lb BOOLEAN[]
st STRUCT(a BIGINT, n VARCHAR, g DOUBLE, t BOOLEAN)
nest STRUCT(x BIGINT[])
sl STRUCT(k INTEGER, tags VARCHAR[])
ll INTEGER[][]
lls VARCHAR[][]
l3 INTEGER[][][]
mp STRUCT("key" VARCHAR, "value" DOUBLE, ok BOOLEAN)[]
ss STRUCT("in" STRUCT(z BIGINT))
ns STRUCT(a INTEGER, "in" STRUCT(b VARCHAR, c BIGINT[], deep STRUCT(x DOUBLE)))
sv STRUCT(v FLOAT[], w INTEGER)
img STRUCT(path VARCHAR, size BIGINT)
frames STRUCT(path VARCHAR, size BIGINT)[]
lv FLOAT[][]
lvn FLOAT[][]
l4 INTEGER[][][][]
lsv STRUCT("name" VARCHAR, emb FLOAT[])[]
llv FLOAT[][][]
sb STRUCT(img STRUCT(path VARCHAR, size BIGINT), "label" INTEGER)
fn STRUCT(path VARCHAR, size BIGINT)[]
sls STRUCT(n INTEGER, objs STRUCT("label" VARCHAR, score FLOAT)[])
lob STRUCT(img STRUCT(path VARCHAR, size BIGINT), cap VARCHAR)[]
ann STRUCT(bbox FLOAT[], "label" VARCHAR, tags VARCHAR[])[]
det STRUCT(box STRUCT(x FLOAT, y FLOAT), cls INTEGER)[]
seg STRUCT(segmentation FLOAT[][], crowd BOOLEAN)[]
poly STRUCT(rings INTEGER[][][], "name" VARCHAR)[]
fe STRUCT("name" VARCHAR, embs FLOAT[][])[]
obj STRUCT(id INTEGER, meta STRUCT(tags VARCHAR[], emb FLOAT[], pic STRUCT(path VARCHAR, size BIGINT), deep STRUCT(n INTEGER, pts INTEGER[][])))[]
clip STRUCT("name" VARCHAR, frames STRUCT(path VARCHAR, size BIGINT)[])[]
shots STRUCT(takes STRUCT(path VARCHAR, size BIGINT)[][])[]
vid STRUCT(t INTEGER, objs STRUCT(x INTEGER, lab VARCHAR, pts FLOAT[])[])[]
svid STRUCT(n INTEGER, clips STRUCT(objs STRUCT(box STRUCT(x FLOAT, y FLOAT), "name" VARCHAR)[])[])
dv STRUCT(objs STRUCT(emb FLOAT[], k INTEGER)[])[]
db STRUCT(objs STRUCT(img STRUCT(path VARCHAR, size BIGINT))[])[]
"""


def main(d, rows):
    os.makedirs(f"{d}/objs", exist_ok=True)
    with open(f"{d}/schema.txt", "w") as f:
        f.write(SCHEMA)
    with open(f"{d}/duckdb_types.txt", "w") as f:
        f.write(DUCKDB_TYPES)
    objs = f"{d}/objs"
    random.seed(3)
    with open(f"{d}/in.jsonl", "w") as f:
        for i in range(rows):
            img = None
            if i % 3:
                img = f"{objs}/{i}.jpg" if i % 2 else f"{objs}/{i}.bin"
                with open(img, "wb") as o:
                    o.write((b"\xff\xd8\xff\xe0" if i % 2 else b"") + bytes([i % 256]) * (i % 50))
            f.write(json.dumps({
                "id": i, "b": None if i % 7 == 0 else i % 3 == 0, "i8": i % 256 - 128, "u16": i % 65536,
                "i32": None if i % 5 == 0 else i * 1000 - 7, "u64": 2**64 - 1 - i, "f": i / 8.0,
                "d": None if i % 11 == 0 else i * 0.1, "h": (i % 100) / 4.0,
                "s": None if i % 13 == 0 else "é" * (i % 4) + f"s{i}" + ("" if i % 17 else "\n\t\"x"),
                "bin": "\\x" + f"{i % 256:02x}" * (i % 5),
                "v": [i, i + 0.5, -i, 1.25], "vn": None if i % 9 == 0 else [i, 2 * i, 3 * i],
                "l": list(range(i % 6)),
                "ln": None if i % 10 == 0 else [None if (i + k) % 4 == 0 else k * i for k in range(i % 5)],
                "ls": None if i % 8 == 0 else [None if (i + k) % 5 == 0 else "é" * (k % 2) + f"t{i}.{k}" for k in range(i % 4)],
                "lbin": ["\\x" + f"{(i + k) % 256:02x}" * k for k in range(i % 3)],
                "lb": [None if (i + k) % 6 == 0 else (i + k) % 2 == 0 for k in range(i % 5)],
                "st": None if i % 6 == 1 else {"a": i, "n": None if i % 4 == 2 else f"n{i}\u00e9",
                                              "g": None if i % 5 == 3 else i / 3, "t": i % 2 == 0},
                "nest": {"x": [i]},
                "sl": None if i % 7 == 3 else {"k": i, "tags": None if i % 5 == 1 else
                                               [None if (i + k) % 3 == 0 else f"g{i}.{k}" for k in range(i % 4)]},
                "ll": [[i, k] for k in range(i % 3)],
                "lls": None if i % 9 == 2 else [None if (i + j) % 4 == 1 else
                                                [None if (i + j + k) % 5 == 0 else f"q{i}.{j}.{k}" for k in range((i + j) % 3)]
                                                for j in range(i % 4)],
                "l3": None if i % 10 == 7 else [[None if (j + k) % 3 == 2 else [i, j, k][: (i + j + k) % 4]
                                                  for k in range((i + j) % 3)] for j in range(i % 3)],
                "mp": None if i % 13 == 5 else [None if (i + k) % 7 == 3 else
                                                 {"key": f"k{k}é", "value": None if (i + k) % 4 == 0 else i * 0.25 + k,
                                                  "ok": (i + k) % 2 == 0} for k in range(i % 4)],
                "ss": {"in": {"z": i}},
                "ns": None if i % 9 == 4 else {"a": i, "in": None if i % 7 == 2 else {
                    "b": None if i % 5 == 0 else f"b{i}", "c": None if i % 6 == 1 else list(range(i % 3)),
                    "deep": None if i % 4 == 3 else {"x": None if i % 8 == 5 else i / 4}}},
                "sv": None if i % 8 == 6 else {"v": None if i % 5 == 4 else [i, -i], "w": i}, "img": img,
                "frames": None if i % 11 == 4 else [f"{objs}/{(i + k) % 40 * 6 + 1}.jpg" for k in range(i % 4)],
                "lv": [[i, k, -0.5 * k] for k in range(i % 4)],
                "lvn": None if i % 6 == 0 else [None if (i + k) % 3 == 0 else [k, -i] for k in range(i % 3)],
                "l4": None if i % 9 == 3 else [[None if (i + j + k) % 4 == 3 else
                                                 [[i, j, k][: (i + k + q) % 4] for q in range((j + k) % 3)]
                                                 for k in range((i + j) % 3)] for j in range(i % 3)],
                "lsv": None if i % 7 == 5 else [None if (i + k) % 5 == 4 else
                                                 {"name": f"o{i}.{k}", "emb": None if (i + k) % 3 == 1 else [i, k]}
                                                 for k in range(i % 3)],
                "llv": [None if (i + j) % 4 == 2 else [[i, j * 10 + k] for k in range((i + j) % 3)]
                        for j in range(i % 3)],
                "sb": None if i % 5 == 4 else {"img": None if i % 3 == 1 else f"{objs}/{i % 40 * 6 + 1}.jpg",
                                               "label": i},
                "fn": None if i % 10 == 7 else [None if (i + k) % 3 == 2 else f"{objs}/{(i + k) % 40 * 6 + 1}.jpg"
                                                for k in range(i % 4)],
                "sls": None if i % 8 == 3 else {"n": i, "objs": None if i % 5 == 2 else [
                    None if (i + k) % 4 == 1 else {"label": f"L{k}", "score": None if (i + k) % 3 == 0 else (i + k) / 4}
                    for k in range(i % 3)]},
                "lob": None if i % 9 == 1 else [None if (i + k) % 4 == 2 else
                                                {"img": None if (i + k) % 3 == 1 else f"{objs}/{(i + k) % 40 * 6 + 1}.jpg",
                                                 "cap": f"c{k}"} for k in range(i % 3)],
                "ann": None if i % 11 == 6 else [None if (i + k) % 5 == 3 else {
                    "bbox": None if (i + k) % 4 == 1 else [i, k, i + k][: (i + k) % 4],
                    "label": None if (i + k) % 6 == 0 else f"a{k}",
                    "tags": [None if (i + k + q) % 3 == 0 else f"t{q}" for q in range((i + k) % 3)]}
                    for k in range(i % 4)],
                "det": None if i % 13 == 4 else [None if (i + k) % 5 == 1 else {
                    "box": None if (i + k) % 4 == 3 else {"x": i + k, "y": None if (i + k) % 3 == 0 else k / 2},
                    "cls": k} for k in range(i % 3)],
                "seg": None if i % 7 == 2 else [None if (i + k) % 6 == 5 else {
                    "segmentation": None if (i + k) % 4 == 2 else [
                        None if (i + k + j) % 5 == 4 else [i + j, k / 2, j - k][: (i + j) % 4] for j in range((i + k) % 3)],
                    "crowd": (i + k) % 2 == 0} for k in range(i % 3)],
                "poly": [{"rings": [None if (i + k + j) % 4 == 3 else
                                    [[None if (i + q) % 5 == 0 else i + j + q for q in range((k + q0) % 3)]
                                     for q0 in range((i + j) % 3)] for j in range((i + k) % 3)],
                          "name": f"p{k}"} for k in range(i % 3)],
                "fe": None if i % 10 == 3 else [None if (i + k) % 7 == 6 else {
                    "name": f"f{k}", "embs": None if (i + k) % 5 == 2 else [
                        None if (i + k + j) % 4 == 1 else [i + j, k - j / 4] for j in range((i + k) % 4)]}
                    for k in range(i % 3)],
                "obj": None if i % 12 == 7 else [None if (i + k) % 6 == 2 else {
                    "id": k, "meta": None if (i + k) % 5 == 3 else {
                        "tags": None if (i + k) % 4 == 0 else [None if (i + q) % 3 == 1 else f"g{q}" for q in range(k % 3)],
                        "emb": None if (i + k) % 3 == 2 else [i, k],
                        "pic": None if (i + k) % 4 == 1 else f"{objs}/{(i + k) % 40 * 6 + 1}.jpg",
                        "deep": None if (i + k) % 7 == 4 else {
                            "n": None if (i + k) % 2 else i,
                            "pts": [[i, q][: (i + q) % 3] for q in range((i + k) % 3)]}}}
                    for k in range(i % 4)],
                "clip": None if i % 9 == 5 else [None if (i + k) % 5 == 4 else {
                    "name": f"c{k}", "frames": None if (i + k) % 4 == 3 else [
                        None if (i + k + j) % 3 == 2 else f"{objs}/{(i + k + j) % 40 * 6 + 1}.jpg" for j in range((i + k) % 3)]}
                    for k in range(i % 3)],
                "shots": [{"takes": [[f"{objs}/{(i + j + q) % 40 * 6 + 1}.jpg" for q in range((j + k) % 3)]
                                     for j in range((i + k) % 3)]} for k in range(i % 3)],
                "vid": None if i % 8 == 1 else [None if (i + k) % 5 == 2 else {
                    "t": k, "objs": None if (i + k) % 4 == 3 else [
                        None if (i + k + q) % 6 == 5 else {"x": None if (i + q) % 3 == 0 else i + q,
                                                           "lab": f"o{q}\u00e9\"", "pts": [q / 4, -i][: (i + q) % 3]}
                        for q in range((i + k) % 4)]} for k in range(i % 3)],
                "svid": None if i % 7 == 6 else {"n": i, "clips": [{"objs": None if (i + k) % 5 == 1 else [
                    {"box": None if (i + q) % 4 == 0 else {"x": q, "y": i / 2},
                     "name": None if (i + q) % 3 == 2 else f"n{q}"} for q in range((i + k) % 3)]}
                    for k in range(i % 3)]},
                "dv": None if i % 6 == 5 else [{"objs": [{"emb": None if (i + q) % 3 == 1 else [i, q / 2], "k": q}
                                                         for q in range((i + k) % 3)]} for k in range(i % 2 + 1)],
                "db": None if i % 4 == 3 else [{"objs": [{"img": None if (i + q) % 3 == 0 else f"{objs}/{(i + q) % 40 * 6 + 1}.jpg"}
                                                         for q in range(i % 3)]}]}) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5000)
