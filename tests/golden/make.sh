#!/usr/bin/env bash
# Golden tables: parts written by every format version the reader accepts, with
# the output the current reader must give for them (tests/integration/test_golden.sh).
#
#   tests/golden/make.sh tables V INGOT   write tests/golden/vV/* with binary INGOT
#                                          (a build of the commit that wrote version V)
#   tests/golden/make.sh --update          rewrite every expected output with build/ingot
#   tests/golden/make.sh expected T OUT    what $INGOT prints for table T, into OUT
#
# Tables are made once per version and never rewritten (they are the old files a
# new reader must keep reading). Binaries used (see git log for these commits):
#   v2: d8b26eb (the parent of 13201d9, "Format version 3")
#   v3: 5be4e82
#   v4: the commit that added v4/ (format version 4, blocks)
#   v5: the commit that added v5/ (format version 5, the huffman bytes scheme;
#       inputs/flat.txt asks huffman of txt since then, zstd before)
#   v6: the commit that added v6/ (format version 6, chunk records count
#       distinct strings: Parquet views' dictionary pages)
#   v7: the commit that added v7/ (format version 7, the sliding-window
#       dictionary bulk; from 7 also slidehash/: hashed ids, made by
#       slidehash_input below, which that bulk stores)
#   v8: the commit that added v8/ (format version 8, the decimal scheme for
#       float32 and float64; inputs/flat.txt asks decimal of f64 since then,
#       for before; from 8 also decimal/: float32 scores and float64 prices
#       with NULLs the writer stores as decimals, and a column that stops
#       being decimal in its last block)
#   v9: the commit that added v9/ (format version 9, chunk records bound flat
#       numeric leaves; from 9 also bounds/: every bounded type in groups of
#       100 rows, NULLs, NaNs, infinities and both zeros, a group of only
#       zeros, one of only NULLs and NaNs, rows erased inside and on bounds)
#   v10: the commit that added v10/ (format version 10, MANIFEST format 2:
#       versions; from 10 also evolved/: the flat table appended to, a column
#       added, one replaced, one dropped, a row erased, a version tagged)
#   v11: the commit that added v11/ (format version 11, logical types in
#       column records; from 11 also logical/: every logical type, nested in
#       a list and a struct too, with NULLs, rows erased)
#   v13: the commit that added v13/ (format version 13, a zstd dictionary per
#       string chunk, context kind 2; from 13 also zdict/: captions of words
#       in two row groups with a dictionary each, rows erased, one of them
#       the only holder of a word, whose segments the erase zeroed)
#   v14: the commit that added v14/ (format version 14, a value dictionary per
#       low-cardinality string chunk, context kind 3, and vdict blocks; from
#       14 also vdict/: maintainers and list<string> tags in two row groups
#       with a dictionary each, rows erased, one the only holder of a
#       maintainer and one of a tag, whose entries the erase erased)
#   v15: the commit that added v15/ (format version 15, huffman's slots:
#       items of one coded size without offsets; from 15 also slots/: MD5 and
#       SHA-256 hex digests in two row groups, NULLs among them, rows erased,
#       their slots zeroed in place)
#   v16: the commit that added v16/ (format version 16, plain bytes by their
#       lengths where zstd follows; from 16 also lengths/: names of a few to
#       sixty letters in two row groups, NULLs and empty ones among them, one
#       of 300 letters, rows erased, that one among them, so its block's
#       length width falls)
#   v17: the commit that added v17/ (format version 17, no deletion bitmap
#       until a part's first erase, which puts it past the footer; from 17
#       also unerased/: the flat table never erased, and erased_twice/: the
#       flat table erased twice, its bitmap written past the footer by the
#       first erase and changed in place by the second)
#   v18: the commit that added v18/ (format version 18, sliding-window pages
#       in list<T?> leaves, where a page holds no NULL item; from 18 also
#       slidenull/: list<int64?>? windows in pages of 200 rows, NULL lists,
#       empty ones, and NULL items in one stretch only (its pages level
#       streams), rows erased in both kinds of page)
#   v19: the commit that added v19/ (format version 19, a nested leaf's levels
#       as one rANS-coded stream; from 19 also structs/: a struct of a string
#       and a struct, and a list of structs, NULL and empty at every level in
#       two row groups, rows erased, one of them the only NULL event)
#   v20: the commit that added v20/ (format version 20, float32 lanes as
#       Huffman-coded exponents, the expo scheme; from 20 also expo/: Gaussian
#       float32 scores and vector<float32, 8> embeddings in two row groups,
#       NULLs, zeros, -0.0, a subnormal and the largest float among them, rows
#       erased, two of them the only holders of an exponent)
#   v21: the commit that added v21/ (format version 21, sliding-window pages
#       in lists of float32 and float64; from 21 also slidefloat/: windows of
#       float32 readings and of float64 ones that slide by 0-3 a row, NULL
#       lists and empty ones, and boxes of four floats that do not slide
#       (level streams), in pages of 2 KiB, rows erased; and tokens/: rows of
#       token ids that do not slide but repeat phrases, in sliding-window
#       pages whose bulk is plain 2-byte lanes under zstd, at most 32,768
#       values a page, rows erased)
#   v22: the commit that added v22/ (format version 22, chunk contexts
#       packed as one zstd frame where that is smaller: context/, zdict/
#       and vdict/ hold such; from 22 also ctxmoved/: the vdict input erased
#       with every context the erase wrote moved past the data
#       (INGOT_TEST_CONTEXT_MOVE=1), as a context packed again that outgrew
#       its place is, then erased again where they lie)
#   v12: the commit that added v12/ (format version 12, chunk contexts: fsst
#       symbol tables, and the alp scheme; from 12 also context/: notes of
#       ~70 bytes in two row groups of 300 (a symbol table each), float64
#       prices and float32 scores with NaN, -0.0, infinities and thirds among
#       them (alp's exceptions), rows erased, one of them an exception)
# Inputs are in inputs/: a flat table forcing one encoding per column (delta, rle,
# bitpack, dict, zstd or huffman, plain, for, bool) with NULLs and empty strings, rows erased;
# a nested table (list, struct, NULL at each level); a blob column; sliding
# windows, byte-stream split and fp16 quantised vectors.
#
# --update is for a deliberate change of what the reader prints; review the diff.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"

tables() {
    local v=$1 ingot=$2 d="$here/v$1"
    [ ! -e "$d" ] || { echo "$d exists: golden tables are never rewritten" >&2; exit 2; }
    mkdir -p "$d"
    (
        cd inputs
        "$ingot" import --schema flat.txt flat.csv "$d/flat"
        "$ingot" erase --row 5 --row 77 --row 399 "$d/flat"
        "$ingot" import --format jsonl --schema nested.txt nested.jsonl "$d/nested"
        "$ingot" erase --row 13 --row 200 "$d/nested"
        "$ingot" import --format jsonl --schema blob.txt blob.jsonl "$d/blob"
        "$ingot" erase --row 3 "$d/blob"
        "$ingot" import --format jsonl --schema slide.txt slide.jsonl "$d/slide"
        "$ingot" erase --row 150 "$d/slide"
        if [ "$v" -ge 7 ]; then
            slidehash_input >"$d.slidehash.jsonl"
            "$ingot" import --format jsonl --schema slide.txt "$d.slidehash.jsonl" "$d/slidehash"
            rm "$d.slidehash.jsonl"
            "$ingot" erase --row 7 --row 300 --row 301 "$d/slidehash"
        fi
        if [ "$v" -ge 8 ]; then
            "$ingot" import --schema decimal.txt --rows-per-group 250 decimal.csv "$d/decimal"
            "$ingot" erase --row 3 --row 260 --row 499 "$d/decimal"
        fi
        if [ "$v" -ge 9 ]; then
            "$ingot" import --schema bounds.txt --rows-per-group 100 bounds.csv "$d/bounds"
            "$ingot" erase --row 150 --row 299 --row 400 "$d/bounds"
        fi
        if [ "$v" -ge 10 ]; then
            "$ingot" import --schema flat.txt --rows-per-group 150 flat.csv "$d/evolved"
            "$ingot" erase --row 5 "$d/evolved"
            evolved_arrays "$d"
            "$ingot" add-column --name score "$d/evolved" "$d.score.npy"
            "$ingot" add-column --name emb "$d/evolved" "$d.emb.npy"
            "$ingot" tag "$d/evolved" with-score
            "$ingot" replace-column --name score "$d/evolved" "$d.score2.npy"
            "$ingot" drop-column "$d/evolved" f64
            "$ingot" erase --row 77 --row 200 "$d/evolved"
            rm "$d".*.npy
        fi
        if [ "$v" -ge 11 ]; then
            "$ingot" import --format jsonl --schema logical.txt --rows-per-group 150 logical.jsonl "$d/logical"
            "$ingot" erase --row 4 --row 151 --row 399 "$d/logical"
        fi
        if [ "$v" -ge 12 ]; then
            context_input >"$d.context.csv"
            printf 'id int64\nnote string?\nprice float64?\nscore float32\n' >"$d.context.txt"
            "$ingot" import --schema "$d.context.txt" --rows-per-group 300 "$d.context.csv" "$d/context"
            rm "$d.context.csv" "$d.context.txt"
            "$ingot" erase --row 4 --row 17 --row 150 --row 299 --row 450 "$d/context"
        fi
        if [ "$v" -ge 13 ]; then
            zdict_input >"$d.zdict.csv"
            "$ingot" import --rows-per-group 4500 "$d.zdict.csv" "$d/zdict"
            rm "$d.zdict.csv"
            # row 7 holds a word no other row does: its segments are zeroed
            "$ingot" erase --row 7 --row 40 --row 4600 --row 8999 "$d/zdict"
        fi
        if [ "$v" -ge 14 ]; then
            vdict_input >"$d.vdict.jsonl"
            printf 'id int64\nmaintainer string?\ntags list<string>? encoding=vdict\n' >"$d.vdict.txt"
            "$ingot" import --format jsonl --schema "$d.vdict.txt" --rows-per-group 3000 "$d.vdict.jsonl" "$d/vdict"
            rm "$d.vdict.jsonl" "$d.vdict.txt"
            # row 7 alone names its maintainer, row 9 alone its first tag: both
            # entries are erased from their chunks' dictionaries
            "$ingot" erase --row 7 --row 9 --row 40 --row 3001 --row 5999 "$d/vdict"
        fi
        if [ "$v" -ge 15 ]; then
            slots_input >"$d.slots.csv"
            printf 'id int64\nmd5 string\nsha256 string?\n' >"$d.slots.txt"
            "$ingot" import --schema "$d.slots.txt" --rows-per-group 2000 "$d.slots.csv" "$d/slots"
            rm "$d.slots.csv" "$d.slots.txt"
            "$ingot" erase --row 3 --row 150 --row 1999 --row 2000 --row 3998 "$d/slots"
        fi
        if [ "$v" -ge 16 ]; then
            lengths_input >"$d.lengths.csv"
            printf 'id int64\nname string? encoding=plain\n' >"$d.lengths.txt"
            "$ingot" import --schema "$d.lengths.txt" --rows-per-group 2000 "$d.lengths.csv" "$d/lengths"
            rm "$d.lengths.csv" "$d.lengths.txt"
            # row 1234 is the one of 300 letters
            "$ingot" erase --row 3 --row 150 --row 1234 --row 2000 --row 3998 "$d/lengths"
        fi
        if [ "$v" -ge 17 ]; then
            # never erased: no deletion bitmap; erased twice: its bitmap past
            # the footer, written by the first erase, changed by the second
            "$ingot" import --schema flat.txt --rows-per-group 150 flat.csv "$d/unerased"
            "$ingot" import --schema flat.txt --rows-per-group 150 flat.csv "$d/erased_twice"
            "$ingot" erase --row 5 --row 200 "$d/erased_twice"
            "$ingot" erase --row 6 --row 399 "$d/erased_twice"
        fi
        if [ "$v" -ge 18 ]; then
            slidenull_input >"$d.slidenull.jsonl"
            printf 'uid int64\nclk list<int64?>? page_size=4096\n' >"$d.slidenull.txt"
            "$ingot" import --format jsonl --schema "$d.slidenull.txt" "$d.slidenull.jsonl" "$d/slidenull"
            rm "$d.slidenull.jsonl" "$d.slidenull.txt"
            # row 150 in a page of windows, row 420 among the NULL items
            "$ingot" erase --row 7 --row 150 --row 420 --row 599 "$d/slidenull"
        fi
        if [ "$v" -ge 19 ]; then
            structs_input >"$d.structs.jsonl"
            printf 'id int64\nevent struct<kind:string?, meta:struct<x:int32?, y:int32?>?>?\nitems list<struct<sku:string?, qty:int32?>?>?\n' >"$d.structs.txt"
            "$ingot" import --format jsonl --schema "$d.structs.txt" --rows-per-group 1000 "$d.structs.jsonl" "$d/structs"
            rm "$d.structs.jsonl" "$d.structs.txt"
            # row 1500 alone has a NULL event in its group's second half
            "$ingot" erase --row 3 --row 150 --row 999 --row 1000 --row 1500 --row 1777 "$d/structs"
        fi
        if [ "$v" -ge 20 ]; then
            expo_input >"$d.expo.jsonl"
            printf 'id int64\nscore float32?\nemb vector<float32, 8>\n' >"$d.expo.txt"
            "$ingot" import --format jsonl --schema "$d.expo.txt" --rows-per-group 1000 "$d.expo.jsonl" "$d/expo"
            rm "$d.expo.jsonl" "$d.expo.txt"
            # row 17 alone holds its score's exponent, row 1200 its vector's
            "$ingot" erase --row 4 --row 17 --row 999 --row 1000 --row 1200 "$d/expo"
        fi
        if [ "$v" -ge 21 ]; then
            slidefloat_input >"$d.slidefloat.jsonl"
            printf 'id int64\nr list<float32>? page_size=2048\nd list<float64> page_size=2048\nbox list<float32>?\n' >"$d.slidefloat.txt"
            "$ingot" import --format jsonl --schema "$d.slidefloat.txt" "$d.slidefloat.jsonl" "$d/slidefloat"
            rm "$d.slidefloat.jsonl" "$d.slidefloat.txt"
            "$ingot" erase --row 0 --row 150 --row 151 --row 333 --row 599 "$d/slidefloat"
            tokens_input >"$d.tokens.jsonl"
            printf 'id int64\ntok list<int32>\n' >"$d.tokens.txt"
            "$ingot" import --format jsonl --schema "$d.tokens.txt" "$d.tokens.jsonl" "$d/tokens"
            rm "$d.tokens.jsonl" "$d.tokens.txt"
            "$ingot" erase --row 0 --row 700 --row 701 --row 1999 "$d/tokens"
        fi
        if [ "$v" -ge 22 ]; then
            vdict_input >"$d.ctxmoved.jsonl"
            printf 'id int64\nmaintainer string?\ntags list<string>? encoding=vdict\n' >"$d.ctxmoved.txt"
            "$ingot" import --format jsonl --schema "$d.ctxmoved.txt" --rows-per-group 3000 "$d.ctxmoved.jsonl" "$d/ctxmoved"
            rm "$d.ctxmoved.jsonl" "$d.ctxmoved.txt"
            # row 7 alone names its maintainer: its entry is erased, and the
            # group's two contexts move; then row 9's tag, where they lie
            INGOT_TEST_CONTEXT_MOVE=1 "$ingot" erase --row 7 --row 40 --row 5999 "$d/ctxmoved"
            "$ingot" erase --row 9 --row 3001 "$d/ctxmoved"
        fi
    )
    # the audit log holds times and hosts: not part of what a reader must read
    rm -f "$d"/*/.ingot/erasures
}

# The evolved table's new columns, for its live rows (row 5 erased before):
# deterministic arrays.
evolved_arrays() {
    /usr/bin/python3 - "$1" <<'PY'
import sys, numpy as np
d = sys.argv[1]
live = 400 - 1
np.save(f"{d}.score.npy", np.arange(live, dtype=np.int64) * 3)
np.save(f"{d}.score2.npy", np.arange(live, dtype=np.int64) * 3 + 1)
np.save(f"{d}.emb.npy", (np.arange(live * 4, dtype=np.float32) / 8).reshape(live, 4))
PY
}

# 600 rows of windows of readings (float32, and float64 ones) that slide by
# 0-3 new ones a row, every 37th row a NULL list of float32 and every 53rd an
# empty one, the window starting again every 100 rows; boxes of four floats
# (two of them the same each row) that do not slide: deterministic.
slidefloat_input() {
    /usr/bin/python3 -c '
import json, math, random, struct
rng = random.Random(21)
f32 = lambda x: struct.unpack("<f", struct.pack("<f", x))[0]
win, dwin = [], []
for i in range(600):
    if i % 100 == 0:
        win, dwin = [], []
    for _ in range(rng.randint(0, 3) if win else 24):
        win.append(f32(math.sin(i / 7.0 + rng.random()) * 50))
        dwin.append(rng.uniform(-1e6, 1e6))
    win, dwin = win[-24:], dwin[-24:]
    r = None if i % 37 == 4 else [] if i % 53 == 6 else list(win)
    box = None if i % 41 == 2 else [f32(rng.random() * 640), f32(rng.random() * 480), 32.0, 32.0]
    print(json.dumps({"id": i, "r": r, "d": list(dwin), "box": box}))
'
}

# 2,000 rows of 20-79 token ids, phrases of 3-11 ids (ids of a 60,000-token
# vocabulary, most of them small) drawn again and again: deterministic.
tokens_input() {
    /usr/bin/python3 -c '
import json, random
rng = random.Random(31)
phrases = [[int(60000 * rng.random() ** 3) for _ in range(rng.randrange(3, 12))] for _ in range(400)]
for i in range(2000):
    t, want = [], rng.randrange(20, 80)
    while len(t) < want:
        t += phrases[int(400 * rng.random() ** 2)]
    print(json.dumps({"id": i, "tok": t}))
'
}

# 600 rows of windows of up to 8 ids that slide by 0-2 new ones, the ids drawn
# from 40 random 62-bit ones, a few far more often (hashed feature ids):
# deterministic, so the same input every time.
slidehash_input() {
    /usr/bin/python3 -c '
import json, random
rng = random.Random(7)
pool = [rng.getrandbits(62) for _ in range(40)]
win = []
for uid in range(600):
    if uid % 50 == 0:
        win = []
    for _ in range(rng.randint(0, 2) if win else 8):
        win.insert(0, pool[int(40 * rng.random() ** 3)])
    win = win[:8]
    print(json.dumps({"uid": uid, "clk": win, "emb": [0.5, -0.25, 0.125, 1.0], "q": [0.5, 0.25, -0.5, 1.0]}))
'
}

# 2,000 rows of Gaussian scores (a NULL, a zero, -0.0, a subnormal and the
# largest float32 among them) and 8-float Gaussian vectors, row 17's score and
# row 1200's first float of an exponent no other value has: deterministic, so
# the same input every time.
expo_input() {
    /usr/bin/python3 -c '
import json, random
rng = random.Random(20)
odd = {3: None, 5: 0.0, 6: -0.0, 7: 1e-40, 8: 3.4e38, 17: 1e30}
for i in range(2000):
    score = odd.get(i, rng.gauss(0, 0.05)) if i % 100 else None
    emb = [rng.gauss(0, 0.35) for _ in range(8)]
    if i == 1200:
        emb[0] = -2e25
    print(json.dumps({"id": i, "score": score, "emb": emb}))
'
}

# 600 rows of notes made of a few hundred words, prices of two places and
# scores of three, with values that are no such decimals every so often:
# deterministic, so the same input every time.
context_input() {
    /usr/bin/python3 -c '
import random
rng = random.Random(12)
words = ["patient", "reports", "mild", "pain", "after", "exercise", "no", "fever", "follow", "up",
         "in", "two", "weeks", "prescribed", "rest", "and", "fluids", "blood", "pressure", "normal"]
odd = ["nan", "-0.0", "inf", "-inf", repr(1 / 3)]
print("id,note,price,score")
for i in range(600):
    note = " ".join(rng.choice(words) for _ in range(rng.randint(6, 14))) if i % 37 else ""
    price = "%.2f" % (rng.randrange(100000) / 100) if i % 23 != 4 else odd[i % 5]
    score = "%.3f" % (rng.randrange(-1000, 1000) / 1000) if i % 29 != 17 else odd[(i + 1) % 5]
    print(f"{i},{note},{price},{score}")
'
}

# 9,000 captions of words from a 200-word vocabulary in two row groups of
# 4,500 (about 280 KB of text each: a zstd dictionary per chunk), row 7 made
# of a word no other row holds: deterministic, so the same input every time.
zdict_input() {
    /usr/bin/python3 -c '
import random
rng = random.Random(13)
vocab = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9))) for _ in range(200)]
print("id,caption")
for i in range(9000):
    c = " ".join(["uniquewordq"] * 5) if i == 7 else " ".join(rng.choice(vocab) for _ in range(rng.randint(6, 14)))
    print(f"{i},{c}")
'
}

# 6,000 rows of a maintainer of 150 (NULLs, empty strings) and up to 5 tags of
# 80 (NULL lists, empty ones); row 7's maintainer and row 9's first tag occur
# nowhere else: deterministic.
vdict_input() {
    /usr/bin/python3 -c '
import json, random
rng = random.Random(14)
names = ["Maintainer %d <m%d@example.org>" % (i, i) for i in range(150)]
tags = ["role::%d" % i for i in range(80)]
for i in range(6000):
    m = "onlymaintainerq" if i == 7 else (None if i % 41 == 0 else ("" if i % 43 == 0 else rng.choice(names)))
    t = ["onlytagq", "role::1"] if i == 9 else (None if i % 37 == 0 else [rng.choice(tags) for _ in range(rng.randint(0, 5))])
    print(json.dumps({"id": i, "maintainer": m, "tags": t}))
'
}

# 4,000 rows of the MD5 and SHA-256 hex digests of "row N" (every 97th
# SHA-256 NULL): deterministic.
slots_input() {
    /usr/bin/python3 -c '
import hashlib
print("id,md5,sha256")
for i in range(4000):
    b = b"row %d" % i
    sha = "" if i % 97 == 5 else hashlib.sha256(b).hexdigest()
    print(f"{i},{hashlib.md5(b).hexdigest()},{sha}")
'
}

# 4,000 names of syllables, a few to sixty letters, every 89th NULL (an empty
# field) and every 97th empty (""), row 1234 of 300 letters: deterministic, so
# the same input every time.
lengths_input() {
    /usr/bin/python3 -c '
import random
rng = random.Random(16)
syl = ["ka", "ro", "mi", "ten", "sul", "vor", "ae", "li", "qua", "dre", "no", "pix"]
print("id,name")
for i in range(4000):
    if i == 1234:
        name = "x" * 300
    elif i % 89 == 7:
        name = ""
    elif i % 97 == 11:
        name = "\"\""
    else:
        name = " ".join("".join(rng.choice(syl) for _ in range(rng.randint(1, 4))) for _ in range(rng.randint(1, 5)))
    print(f"{i},{name}")
'
}

# 600 rows of windows of up to 8 ids that slide by 0-2 new ones, every 41st
# row a NULL list and every 43rd an empty one; rows 400-449 hold a NULL item
# each: deterministic.
slidenull_input() {
    /usr/bin/python3 -c '
import json, random
rng = random.Random(18)
win = []
for uid in range(600):
    if uid % 50 == 0:
        win = []
    for _ in range(rng.randint(0, 2) if win else 8):
        win.insert(0, rng.randrange(1, 1 << 40))
    win = win[:8]
    clk = None if uid % 41 == 3 else [] if uid % 43 == 5 else list(win)
    if clk and 400 <= uid < 450:
        clk[rng.randrange(len(clk))] = None
    print(json.dumps({"uid": uid, "clk": clk}))
'
}
# 2,000 rows of an event (a kind of 12, a meta of two numbers; NULL events
# every 31st row but in 1,400-1,999, where only row 1,500's is, NULL fields
# and metas here and there) and 0-4 items (NULL lists, empty ones, NULL items
# and fields): deterministic.
structs_input() {
    /usr/bin/python3 -c '
import json, random
rng = random.Random(19)
for i in range(2000):
    if (i % 31 == 0 and not 1400 <= i < 2000) or i == 1500:
        event = None
    else:
        meta = None if rng.random() < 0.05 else {"x": rng.randrange(1000), "y": None if rng.random() < 0.1 else rng.randrange(50)}
        event = {"kind": None if rng.random() < 0.02 else "k%d" % rng.randrange(12), "meta": meta}
    if i % 29 == 0:
        items = None
    else:
        items = [None if rng.random() < 0.03 else {"sku": None if rng.random() < 0.05 else "s%d" % rng.randrange(300),
                 "qty": rng.randrange(1, 4)} for _ in range(rng.randrange(5))]
    print(json.dumps({"id": i, "event": event, "items": items}))
'
}

# What the current reader prints for table dir $1 (run from its parent, so
# paths are relative), into directory $2.
expected() {
    local t=$1 out=$2 ingot=${INGOT:-$here/../../build/ingot}
    rm -rf "$out"
    mkdir -p "$out"
    (
        cd "$(dirname "$t")"
        local name
        name=$(basename "$t")
        "$ingot" inspect --json "$name" >"$out/inspect.json"
        "$ingot" verify "$name" >"$out/verify.txt" 2>&1 || true
        "$ingot" cat --rows 0-40,150,200,290-299 "$name" >"$out/rows.jsonl" 2>/dev/null || true
        if [ -d "$name/.ingot/versions" ]; then # format 10: every version as it was
            "$ingot" versions --json "$name" >"$out/versions.json" 2>&1 || true
            for v in $(ls "$name/.ingot/versions"); do
                v=$((10#$v))
                "$ingot" cat --version $v --rows 0-12,76-78,199-201,398-399 "$name" >"$out/rows.v$v.jsonl" 2>/dev/null || true
            done
        fi
        /usr/bin/python3 -c '
import json, sys
for c in json.load(open(sys.argv[1]))["columns"]:
    print(c["name"])' "$out/inspect.json" | while IFS= read -r col; do
            "$ingot" cat "$name" "$col" >"$out/cat.$col" 2>&1 || true
        done
    )
}

case ${1:-} in
tables) tables "$2" "$3" ;;
expected) expected "$2" "$3" ;; # TABLE OUT: what $INGOT prints (the test's side)
--update)
    for t in v*/*/; do
        t=${t%/}
        expected "$here/$t" "$here/expected/$t"
    done
    ;;
*) sed -n '2,60p' "$0"; exit 2 ;;
esac
