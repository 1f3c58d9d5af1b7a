#!/usr/bin/env bash
# The mount's views read back identically by independent, strict readers.
#
# Tables: every type the views show, nested at every depth, with blobs and
# vectors (every_type.py; rows erased, a row group erased whole so its views
# are empty); every flat type and quantisation with NULLs, NaN, infinities,
# empty and non-ASCII strings and a dictionary-sized string column, over many
# pages and groups; DuckDB-written Parquet files (the corpus of
# test_parquet.sh) imported.
#
# On each table's views: the spec checkers of tests/spec (FlatBuffers and
# Arrow IPC rules for arrow/G.arrow, Thrift IDL and Parquet rules for
# parquet/G.parquet) pass, and catch the faults selftest.py makes in them;
# DuckDB, nodejs-polars (Parquet, Arrow read and memory-mapped) and hyparquet
# read the same rows as a reference, both ways, with the same column types
# (tests/parquet/readers.mjs), and apache-arrow reads every value as rows/ID
# shows it (arrow_check.mjs). The reference is DuckDB's reading of the
# table's source (an imported Parquet file, its types as ingot stores them)
# or of the mount's jsonl/G.jsonl (ingot's own JSON rendering). The checkers
# also pass files DuckDB and Polars write, so they hold the views to what
# others write, not to ingot's own habits.
source "$(dirname "$0")/lib.sh"
PQ=$ROOT/tests/parquet
SPEC=$ROOT/tests/spec
have_fuse || { skip view_readers "no /dev/fuse"; exit 0; }
need_duckdb view_readers || exit 0

# spec NAME MOUNT: the checkers on every view of MOUNT, and their self-test
spec() {
    local m=$1 a p
    a=$(ls "$m"/arrow/*.arrow) && p=$(ls "$m"/parquet/*.parquet) || return 1
    # shellcheck disable=SC2086
    "$PY" "$SPEC/arrow_ipc.py" $a || return 1
    # shellcheck disable=SC2086
    "$PY" "$SPEC/parquet_file.py" $p || return 1
    (cd "$SPEC" && "$PY" selftest.py "$m/arrow/0.arrow" "$m/parquet/0.parquet")
}

# readers MOUNT TAG [SOURCE.parquet] [TYPES]: DuckDB (types held against
# TYPES, a file of "name TYPE" lines, when given), Polars, hyparquet
readers() {
    local m=$1 tag=$2 src=${3:-} types=${4:-} got
    local ref=$WORK/$tag.ref.parquet
    got=$(cd "$PQ" && node readers.mjs duckdb "$m" "$ref" $src) || return 1
    if [ -n "$types" ] && [ "$got" != "$(cat "$types")" ]; then
        diff <(printf '%s\n' "$got") "$types" | head -10
        return 1
    fi
    (cd "$PQ" && node readers.mjs polars "$m" "$ref") || return 1
    (cd "$PQ" && node readers.mjs hyparquet "$m" "$ref")
}

# all_readers TAG MOUNT TYPES: the checkers, DuckDB, Polars, hyparquet and
# apache-arrow on a table made from JSON Lines (its reference: jsonl/G.jsonl)
all_readers() {
    local tag=$1 m=$2 types=$3
    check "view_readers_${tag}_spec" spec "$m"
    check "view_readers_${tag}_readers" readers "$m" "$tag" "" "$types"
    check "view_readers_${tag}_apache_arrow" node "$PQ/arrow_check.mjs" "$m"
}

# ---- every type, nested, blobs, vectors; erased rows and an empty group ----
E=$WORK/every
mkdir -p "$E/m"
"$PY" "$ROOT/tests/integration/every_type.py" "$E" 5000 || { fail view_readers "every_type.py failed"; exit 0; }
if "$INGOT" import --schema "$E/schema.txt" --rows-per-group 2000 --page-size 4K "$E/in.jsonl" "$E/t" >/dev/null 2>&1 &&
    "$INGOT" erase --row 3,17,1999,2500 "$E/t" >/dev/null && "$INGOT" erase --rows-from <(seq 4000 4999) "$E/t" >/dev/null &&
    "$INGOT" mount "$E/t" "$E/m"; then
    empty_group() { # group 2's rows are all erased: its views are empty, still files readers take
        [ "$(ls "$E/m/arrow" | sort -n | tr '\n' ' ')" = "0.arrow 1.arrow 2.arrow " ] || return 1
        "$PY" "$SPEC/arrow_ipc.py" "$E/m/arrow/2.arrow" | grep -q "1 record batch(es), 0 rows" &&
            "$PY" "$SPEC/parquet_file.py" "$E/m/parquet/2.parquet" | grep -q " 0 rows"
    }
    check view_readers_every_type_empty_group empty_group
    all_readers every_type "$E/m" "$E/duckdb_types.txt"
else
    fail view_readers_every_type "import, erase or mount failed"
fi

# ---- every flat type and quantisation, many pages and groups ----
F=$WORK/flat
mkdir -p "$F/m" "$F/objs"
cat >"$F/schema.txt" <<'S'
id int64
b bool?
i8 int8?
i16 int16
i32 int32?
i64 int64?
u8 uint8
u16 uint16?
u32 uint32
u64 uint64?
f32 float32?
f64 float64?
h float32? quantize=fp16
bf float32 quantize=bf16
e4 float32? quantize=fp8_e4m3
e5 float32 quantize=fp8_e5m2
s string?
cat string
bin binary?
v vector<float32, 8>?
img blob?
S
"$PY" - "$F/in.jsonl" "$F/objs" <<'PY'
import json, math, sys
objs = sys.argv[2]
specials = [float("nan"), float("inf"), -float("inf"), -0.0, 5e-324, 1.7976931348623157e308, 1e-40]
def f(x):  # JSON has no NaN or infinities: ingot reads these words
    return x if math.isfinite(x) else ("NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity"))
with open(sys.argv[1], "w") as out:
    for i in range(12000):
        img = None
        if i % 4:
            img = f"{objs}/{i % 50}.bin"
            with open(img, "wb") as o:
                o.write(bytes([i % 256]) * (i % 50))
        out.write(json.dumps({
            "id": i, "b": None if i % 7 == 0 else i % 3 == 0, "i8": None if i % 9 == 0 else i % 256 - 128,
            "i16": i * 7 % 65536 - 32768, "i32": None if i % 5 == 0 else (i * 2654435761) % 2**32 - 2**31,
            "i64": None if i % 11 == 0 else (i * 11400714819323198485) % 2**64 - 2**63,
            "u8": i % 256, "u16": None if i % 13 == 0 else i * 3 % 65536, "u32": i * 2654435761 % 2**32,
            "u64": None if i % 17 == 0 else 2**64 - 1 - i * 1000003,
            "f32": None if i % 6 == 0 else f(specials[i % 7] if i % 10 == 1 else i / 7),
            "f64": None if i % 8 == 0 else f(specials[i % 7] if i % 10 == 2 else i * 0.1 + 1e-9),
            "h": None if i % 5 == 1 else (i % 300) / 3, "bf": i * 1.5 - 9000,
            "e4": None if i % 4 == 2 else (i % 40) / 8, "e5": (i % 60) - 30.5,
            "s": None if i % 10 == 3 else ["", "é" * (i % 5), f"s{i}\t\"q\"\\", "日本語" + str(i), "x" * (i % 300)][i % 5],
            "cat": ["red", "green", "blue", "ünï", ""][i % 5],
            "bin": None if i % 12 == 5 else "\\x" + bytes([(i + k) % 256 for k in range(i % 9)]).hex(),
            "v": None if i % 15 == 0 else [i, -i, i / 2, 0.25, -0.0, 1e-3, i % 7, 3],
            "img": img}) + "\n")
PY
if "$INGOT" import --schema "$F/schema.txt" --rows-per-group 4096 --page-size 4K "$F/in.jsonl" "$F/t" >/dev/null 2>&1 &&
    "$INGOT" erase --rows-from <(seq 0 37 11999) "$F/t" >/dev/null && "$INGOT" mount "$F/t" "$F/m"; then
    cat >"$F/types.txt" <<'T'
id BIGINT
b BOOLEAN
i8 TINYINT
i16 SMALLINT
i32 INTEGER
i64 BIGINT
u8 UTINYINT
u16 USMALLINT
u32 UINTEGER
u64 UBIGINT
f32 FLOAT
f64 DOUBLE
h FLOAT
bf FLOAT
e4 FLOAT
e5 FLOAT
s VARCHAR
cat VARCHAR
bin BLOB
v FLOAT[]
img STRUCT(path VARCHAR, size BIGINT)
T
    dictionary() { # the low-cardinality column's Parquet chunks are a dictionary and its codes
        local d
        d=$(node "$PQ/views.mjs" "$F/m" - "SELECT count(*) AS n FROM parquet_metadata('$F/m/parquet/*.parquet')
            WHERE path_in_schema = 'cat' AND dictionary_page_offset IS NOT NULL") || return 1
        [ "$(jq -r .n <<<"$d")" = "$(ls "$F/m/parquet" | wc -l)" ] || { echo "dictionary chunks: $d"; return 1; }
    }
    check view_readers_flat_dictionary dictionary
    all_readers flat "$F/m" "$F/types.txt"
else
    fail view_readers_flat "import, erase or mount failed"
fi

# ---- Parquet files DuckDB writes, imported: the views are the source ----
C=$WORK/corpus
mkdir -p "$C"
if node "$PQ/corpus.mjs" "$C" >/dev/null 2>&1; then
    for n in none groups v2 tiny_groups; do
        mkdir -p "$WORK/m_$n"
        if "$INGOT" import "$C/$n.parquet" "$WORK/$n" >/dev/null 2>&1 && "$INGOT" mount "$WORK/$n" "$WORK/m_$n"; then
            check "view_readers_corpus_${n}_spec" spec "$WORK/m_$n"
            check "view_readers_corpus_${n}_readers" readers "$WORK/m_$n" "$n" "$C/$n.parquet"
        else
            fail "view_readers_corpus_$n" "import or mount failed"
        fi
    done
else
    fail view_readers_corpus "corpus.mjs failed"
fi

# ---- the checkers pass what other writers write ----
others() {
    local o=$WORK/others
    mkdir -p "$o"
    (cd "$PQ" && node -e "
const pl = require('nodejs-polars');
const o = process.argv[1];
const df = pl.DataFrame({ a: [1, 2, null], s: ['x', null, 'zé'], f: [0.5, NaN, 2], l: [[1], [], [2, 3]] });
df.writeIPC(o + '/polars.arrow');
df.writeParquet(o + '/polars.parquet', { compression: 'uncompressed' });
" "$o") || return 1
    "$PY" "$SPEC/arrow_ipc.py" "$o/polars.arrow" || return 1
    "$PY" "$SPEC/parquet_file.py" "$o/polars.parquet" "$C"/none.parquet "$C"/v2_nodict.parquet "$C"/snappy.parquet "$C"/groups.parquet
}
check view_readers_checkers_pass_other_writers others

for m in "$E/m" "$F/m" "$WORK"/m_*; do fusermount3 -u "$m" 2>/dev/null; done
