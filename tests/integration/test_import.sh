#!/usr/bin/env bash
# ingot import on several threads: the table is the same byte for byte as on
# one (flat, nested, blob, sliding-window/quantised and .npy inputs, many small
# row groups so that groups really overlap), and an interrupted threaded
# import leaves no table.
source "$(dirname "$0")/lib.sh"
IN=$ROOT/tests/golden/inputs

# import INPUT with -j 1 and with -j N, compare every file of the two tables
same_bytes() { # NAME -j... import-args...
    local name=$1 j=$2; shift 2
    rm -rf "$WORK/$name.1" "$WORK/$name.n"
    (cd "$IN" && "$INGOT" import -j 1 "$@" "$WORK/$name.1" >/dev/null) || return 1
    (cd "$IN" && "$INGOT" import -j "$j" "$@" "$WORK/$name.n" >/dev/null) || return 1
    local f n=0
    for f in $(cd "$WORK/$name.1" && find . -type f | sort); do
        case $f in
        ./MANIFEST | ./.ingot/versions/*) # say when they were made (seconds): all else the same
            diff <(grep -v -e '^time ' -e '^end ' "$WORK/$name.1/$f") \
                <(grep -v -e '^time ' -e '^end ' "$WORK/$name.n/$f") || return 1 ;;
        *) cmp "$WORK/$name.1/$f" "$WORK/$name.n/$f" || return 1 ;;
        esac
        n=$((n + 1))
    done
    [ "$n" -ge 2 ] || { echo "only $n files"; return 1; }
    [ "$(cd "$WORK/$name.n" && find . -type f | wc -l)" = "$n" ] || { echo "file count differs"; return 1; }
    "$INGOT" verify "$WORK/$name.n" >/dev/null
}

check threads_flat_csv same_bytes flat 3 --schema flat.txt --rows-per-group 37 flat.csv
check threads_nested_jsonl same_bytes nested 4 --format jsonl --schema nested.txt --rows-per-group 29 nested.jsonl
check threads_blob_jsonl same_bytes blob 2 --format jsonl --schema blob.txt --rows-per-group 3 blob.jsonl
check threads_slide_quantised same_bytes slide 2 --format jsonl --schema slide.txt --rows-per-group 41 slide.jsonl

# a wide inferred CSV: more columns than threads, many groups
$PY - "$WORK/wide.csv" <<'PY'
import random, sys
random.seed(7)
with open(sys.argv[1], "w") as f:
    f.write(",".join(f"c{i}" for i in range(40)) + "\n")
    for r in range(20000):
        f.write(",".join(str(random.random()) if i % 3 == 0 else str(random.randint(0, 10**i % 99991))
                         if i % 3 == 1 else f"w{random.randint(0, 50)}" for i in range(40)) + "\n")
PY
wide() {
    "$INGOT" import -j 1 --rows-per-group 1000 "$WORK/wide.csv" "$WORK/wide1" >/dev/null &&
        "$INGOT" import -j 7 --rows-per-group 1000 "$WORK/wide.csv" "$WORK/wide7" >/dev/null &&
        cmp "$WORK/wide1/part-000000.ingot" "$WORK/wide7/part-000000.ingot" &&
        [ "$("$INGOT" cat "$WORK/wide7" c39 | wc -l)" = 20000 ]
}
check threads_wide_csv wide

# .npy: float32 vectors
$PY -c "
import numpy as np
np.save('$WORK/emb.npy', np.random.default_rng(3).standard_normal((30000, 16), dtype=np.float32))
"
npy() {
    "$INGOT" import -j 1 --rows-per-group 4096 "$WORK/emb.npy" "$WORK/e1" >/dev/null &&
        "$INGOT" import -j 2 --rows-per-group 4096 "$WORK/emb.npy" "$WORK/e2" >/dev/null &&
        cmp "$WORK/e1/part-000000.ingot" "$WORK/e2/part-000000.ingot" &&
        "$PY" -c "
import numpy as np, subprocess, sys
a = np.load('$WORK/emb.npy')
out = subprocess.run(['$INGOT', 'cat', '$WORK/e2', 'emb'], capture_output=True, text=True, check=True).stdout
b = np.array([[float(x) for x in l.strip('[]').split(',')] for l in out.splitlines()], dtype=np.float32)
sys.exit(0 if b.shape == a.shape and (a == b).all() else 1)"
}
check threads_npy_vectors npy

# One column large enough to be encoded in segments by several threads (over
# 2 MiB in a group): 40,000 x 64 float32 of every kind the writer measures
# apart (normal, rounded and repeating, zero and -0, NaN, infinities,
# subnormals, the powers of two kept in the search's form) and runs of
# random and constant rows (zstd given up on, then wanted again). The table is
# the same for -j 1, 2 and 3, reads back equal, and every stored text length is
# what rendering gives (verify --deep).
$PY -c "
import numpy as np
r = np.random.default_rng(5)
a = r.standard_normal((40000, 64), dtype=np.float32)
a[10000:20000] = np.round(a[10000:20000] * 64) / 64
a[20000:24000] = 0.5
special = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-45, -3e-39, 2.0**-96, 2.0**87, 2.0**90,
                    -2.0**90, 1.0, 100.0, 1e10, 3.4028235e38], dtype=np.float32)
a[24000:28000] = special[r.integers(0, len(special), (4000, 64))]
np.save('$WORK/seg.npy', a)
"
segmented() {
    local j
    for j in 1 2 3; do
        rm -rf "$WORK/seg$j"
        "$INGOT" import -j $j "$WORK/seg.npy" "$WORK/seg$j" >/dev/null || return 1
    done
    cmp "$WORK/seg1/part-000000.ingot" "$WORK/seg2/part-000000.ingot" &&
        cmp "$WORK/seg1/part-000000.ingot" "$WORK/seg3/part-000000.ingot" &&
        "$INGOT" verify --deep "$WORK/seg2" >/dev/null &&
        "$PY" -c "
import numpy as np, subprocess, sys
a = np.load('$WORK/seg.npy')
out = subprocess.run(['$INGOT', 'cat', '$WORK/seg2', 'seg'], capture_output=True, text=True, check=True).stdout
conv = lambda x: float({'NaN': 'nan', 'Infinity': 'inf', '-Infinity': '-inf'}.get(x.strip(chr(34)), x))
b = np.array([[conv(x) for x in l.strip('[]').split(',')] for l in out.splitlines()], dtype=np.float32)
same = b.shape == a.shape and np.array_equal(a.view(np.uint32), b.view(np.uint32))
sys.exit(0 if same else 1)"
}
check threads_one_column_in_segments segmented

# Pages of few distinct values are counted once (a census of each block's
# values: the encoder's dictionary and the page's text length come from it):
# flat columns of few values (small ints, floats rounded to 1/64 with NaN and
# infinities among them, bools, repeating int64 ids, a nullable column with
# NULLs, whose text counts \N), lists of few values with NULL elements and
# NULL lists, structs and vectors that are never NULL (every row the same
# shape: one row's brackets and names counted for all); each column's text
# through the mount is as long as its stated size, and verify --deep (every
# value rendered) agrees with every stored length.
census_lengths() {
    "$PY" - "$WORK" <<'PY' || return 1
import json, random, sys
w = sys.argv[1]
r = random.Random(9)
vals = [round(r.gauss(0, 1) * 64) / 64 for _ in range(50)] + ["NaN", "Infinity", "-Infinity"]
with open(f"{w}/few.csv", "w") as f:
    f.write("id,small,f,g,b,rep,opt\n")
    for i in range(30000):
        opt = "" if i % 7 == 0 else str(i % 5)
        f.write(f"{i},{r.randrange(-3, 9)},{r.choice(vals)},{r.choice(vals[:20])},{r.random() < 0.3},"
                f"{(i // 100) * 1000003},{opt}\n")
open(f"{w}/few.txt", "w").write("id int64\nsmall int32\nf float32\ng float64\nb bool\nrep int64\nopt int16?\n")
with open(f"{w}/fewl.jsonl", "w") as f:
    for i in range(20000):
        l = None if i % 11 == 0 else [None if r.random() < 0.05 else r.choice(vals[:30]) for _ in range(r.randrange(0, 9))]
        f.write(json.dumps({"id": i, "xs": l, "ks": [r.randrange(0, 40) for _ in range(r.randrange(1, 6))],
                            "s": {"a": r.randrange(-5, 5) * 10**r.randrange(0, 12), "b": r.random() < 0.5,
                                  "c": r.choice(vals), "d": {"e": r.randrange(0, 3)}},
                            "v": [r.choice(vals) for _ in range(3)]}) + "\n")
open(f"{w}/fewl.txt", "w").write("id int64\nxs list<float32?>?\nks list<int64>\n"
                                 "s struct<a:int64, b:bool, c:float32, d:struct<e:uint8>>\nv vector<float32, 3>\n")
PY
    rm -rf "$WORK/few" "$WORK/fewl"
    "$INGOT" import --schema "$WORK/few.txt" "$WORK/few.csv" "$WORK/few" >/dev/null &&
        "$INGOT" import --format jsonl --schema "$WORK/fewl.txt" "$WORK/fewl.jsonl" "$WORK/fewl" >/dev/null &&
        "$INGOT" verify --deep "$WORK/few" >/dev/null && "$INGOT" verify --deep "$WORK/fewl" >/dev/null ||
        return 1
    "$INGOT" inspect "$WORK/few" | grep -q "dict" || { echo "no dictionary page: the census went unused"; return 1; }
    local t c m=$WORK/few_m
    for t in few fewl; do
        mkdir -p "$m"
        "$INGOT" mount "$WORK/$t" "$m" || return 1
        for c in "$m"/columns/*; do
            [ -f "$c" ] || continue
            [ "$(stat -c %s "$c")" = "$(cat "$c" | wc -c)" ] || { echo "$c: stat $(stat -c %s "$c"), read $(cat "$c" | wc -c)"; fusermount3 -u "$m"; return 1; }
        done
        fusermount3 -u "$m" || return 1
    done
}
check census_text_lengths_exact census_lengths

# The AVX-512 kernels (float32 text lengths, encoder statistics) and the scalar
# paths beside them (INGOT_NO_AVX512=1) write the same bytes: the .npy of every
# float kind above and a mixed CSV (on a CPU without AVX-512 both runs are scalar)
scalar_same() {
    rm -rf "$WORK/x8" "$WORK/sc" "$WORK/x8c" "$WORK/scc"
    "$INGOT" import "$WORK/seg.npy" "$WORK/x8" >/dev/null &&
        INGOT_NO_AVX512=1 "$INGOT" import "$WORK/seg.npy" "$WORK/sc" >/dev/null &&
        cmp "$WORK/x8/part-000000.ingot" "$WORK/sc/part-000000.ingot" || return 1
    "$PY" - "$WORK/mixed.csv" <<'PY'
import random, sys
random.seed(9)
with open(sys.argv[1], "w") as f:
    f.write("id,n,small,f,g,s\n")
    for i in range(30000):
        f.write(f"{i},{random.randrange(-2**40, 2**40)},{i % 7 if i % 500 else ''},{random.random() * 100:.6g},"
                f"{random.choice([0.5, 1.25, 3.0, -2.75])},{random.choice(['a', 'bb', 'c d', 'é'])}\n")
PY
    "$INGOT" import "$WORK/mixed.csv" "$WORK/x8c" >/dev/null &&
        INGOT_NO_AVX512=1 "$INGOT" import "$WORK/mixed.csv" "$WORK/scc" >/dev/null &&
        cmp "$WORK/x8c/part-000000.ingot" "$WORK/scc/part-000000.ingot"
}
check avx512_and_scalar_write_the_same_bytes scalar_same

# -j is checked like every count
expect_fail threads_zero_refused "$INGOT" import -j 0 "$IN/flat.csv" "$WORK/j0"
check threads_in_help bash -c "'$INGOT' import --help | grep -q -- '--threads'"

# interrupted while threads encode: no table, no temporary files
interrupted() {
    { echo a,b,c; seq 1 6000000 | awk '{ print $1 "," $1 * 0.37 ",x" $1 % 977 }'; } >"$WORK/big.csv"
    "$INGOT" import -j 2 --rows-per-group 5000 "$WORK/big.csv" "$WORK/big" 2>/dev/null &
    local pid=$! i
    # signal it once it has begun writing its part (a new table is made in
    # .NAME.importing-PID beside the name, renamed into place at the end)
    for i in $(seq 300); do
        [ -n "$(find "$WORK" -path "*/.big.importing-*/*" -size +1M 2>/dev/null | head -1)" ] && break
        sleep 0.01
    done
    kill -INT $pid
    wait $pid && { echo "import finished before the signal"; return 1; }
    [ ! -e "$WORK/big/MANIFEST" ] || { echo "MANIFEST left behind"; return 1; }
    [ ! -e "$WORK/big" ] || { echo "table left: $(ls -A "$WORK/big")"; return 1; }
    [ -z "$(find "$WORK" -maxdepth 1 -name '.big.importing-*')" ] || { echo "temporary directory left"; return 1; }
}
check threads_interrupted_leaves_nothing interrupted

# verify --cold: accepted, still names damage (the files are dropped from the
# page cache first, as on shared storage)
cold() {
    (cd "$IN" && "$INGOT" import --schema flat.txt flat.csv "$WORK/cold" >/dev/null) || return 1
    "$INGOT" verify --cold "$WORK/cold" >/dev/null || return 1
    local part="$WORK/cold/part-000000.ingot"
    printf '\xff\xff\xff\xff' | dd of="$part" bs=1 seek=200 conv=notrunc 2>/dev/null
    local out
    out=$("$INGOT" verify --cold "$WORK/cold" 2>&1) && { echo "damage not found"; return 1; }
    grep -q "part-000000.ingot" <<<"$out" || { echo "$out" | head -3; return 1; }
}
check verify_cold_finds_damage cold

# float64 prices (2 places, negatives, zeros) are stored as decimals (format 8,
# the writer's choice): they read back as imported, an erased row's value is
# gone and verify holds; thirds (16 digits) are not decimals; a schema forcing
# decimal onto them is refused, naming the column
decimal_prices() {
    local d="$WORK/dec"
    rm -rf "$d" "$d.in"; mkdir -p "$d.in"
    /usr/bin/python3 -c '
print("id,price,odd")
for i in range(3000):
    print(f"{i},{(i * 7919) % 200000 / 100 - 1000:.2f},{i / 3!r}")' >"$d.in/p.csv"
    "$INGOT" import "$d.in/p.csv" "$d" >/dev/null || return 1
    "$INGOT" inspect --json "$d" | /usr/bin/python3 -c '
import json, sys
c = {c["name"]: c for c in json.load(sys.stdin)["columns"]}
assert "decimal" in c["price"]["encodings"], c["price"]
assert "decimal" not in c["odd"]["encodings"], c["odd"]' || return 1
    cut -d, -f2 "$d.in/p.csv" | tail -n +2 | /usr/bin/python3 -c '
import sys; print("\n".join(repr(float(x)) for x in sys.stdin.read().split()))' >"$d.want"
    "$INGOT" cat "$d" price >"$d.got" || return 1
    cmp "$d.want" "$d.got" || return 1
    "$INGOT" erase --row 17 "$d" >/dev/null || return 1
    "$INGOT" verify "$d" >/dev/null || return 1
    [ "$("$INGOT" cat "$d" price | wc -l)" = 2999 ] || return 1
    printf 'id int64\nprice float64 encoding=decimal\nodd float64 encoding=decimal\n' >"$d.in/s.txt"
    rm -rf "$d.f"
    local out
    out=$("$INGOT" import --schema "$d.in/s.txt" "$d.in/p.csv" "$d.f" 2>&1) && return 1
    grep -q "decimal cannot represent" <<<"$out" && grep -q "odd" <<<"$out" || { echo "$out"; return 1; }
    [ ! -e "$d.f" ] || return 1
}
check float64_prices_stored_as_decimals decimal_prices
