#!/usr/bin/env bash
# Parquet views: parquet/G.parquet in a mount is row group G as a Parquet file.
# DuckDB (npm) reads the views of tables imported from its own corpus (every
# type, nested lists/structs/maps with nulls, many row groups) and copies them
# to a Parquet file; ingot imports that back and every column must equal the
# table's own `ingot cat`, before and after rows are erased. Sizes are exact at
# stat; blob columns show (path, size) references that lead to their objects;
# a view opened before an erase answers ESTALE; a damaged page answers EIO.
source "$(dirname "$0")/lib.sh"
PQ=$ROOT/tests/parquet
C=$WORK/corpus
have_fuse || { skip parquet_views "no /dev/fuse"; exit 0; }
need_duckdb parquet_views || exit 0
mkdir -p "$C"
node "$PQ/corpus.mjs" "$C" >/dev/null 2>&1 || { fail parquet_views "corpus.mjs failed"; exit 0; }

# DuckDB's copy of T's views, imported back, equals T column by column
views_equal() { # TABLE MOUNT TAG
    local t=$1 m=$2 tag=$3 col n=0
    rm -rf "$WORK/$tag.back" "$WORK/$tag.parquet"
    node "$PQ/views.mjs" "$m" "$WORK/$tag.parquet" || { echo "DuckDB could not read the views"; return 1; }
    "$INGOT" import "$WORK/$tag.parquet" "$WORK/$tag.back" >/dev/null || return 1
    local live
    live=$("$INGOT" inspect --json "$t" | jq '.rows - .deleted_rows')
    [ "$("$INGOT" inspect --json "$WORK/$tag.back" | jq .rows)" = "$live" ] || { echo "row count differs from $live"; return 1; }
    for col in $("$INGOT" inspect --json "$t" | jq -r '.columns[] | select(.name | contains(".") | not) | .name'); do
        cmp -s <("$INGOT" cat "$t" "$col") <("$INGOT" cat "$WORK/$tag.back" "$col") ||
            { echo "column $col differs:"; diff <("$INGOT" cat "$t" "$col") <("$INGOT" cat "$WORK/$tag.back" "$col") | head -5; return 1; }
        n=$((n + 1))
    done
    [ "$n" -ge 2 ] || { echo "only $n columns"; return 1; }
    # sizes at stat are the bytes a read gives
    for f in "$m"/parquet/*.parquet; do
        [ "$(stat -c %s "$f")" = "$(cat "$f" | wc -c)" ] || { echo "$f: stat size differs from its bytes"; return 1; }
    done
}

for n in snappy v2 groups tiny_groups; do
    "$INGOT" import "$C/$n.parquet" "$WORK/$n" >/dev/null || { fail "parquet_view_$n" "import failed"; continue; }
    mkdir -p "$WORK/m_$n"
    "$INGOT" mount "$WORK/$n" "$WORK/m_$n" || { fail "parquet_view_$n" "mount failed"; continue; }
    check "parquet_view_equals_table_$n" views_equal "$WORK/$n" "$WORK/m_$n" "$n"
done

listing() {
    local got want
    want=$("$INGOT" inspect --json "$WORK/groups" | jq '.groups | length')
    got=$(ls "$WORK/m_groups/parquet" | sort -n | tr '\n' ' ')
    [ "$got" = "$(seq -s ' ' -f '%g.parquet' 0 $((want - 1))) " ] || { echo "listed: $got (want $want groups)"; return 1; }
    [ ! -e "$WORK/m_groups/parquet/$want.parquet" ] && [ ! -e "$WORK/m_groups/parquet/01.parquet" ]
}
check parquet_view_one_file_per_group listing

# NULL counts at every level agree with DuckDB's own file: the views' footers
# say "no NULL" (statistics null_count 0, one RLE run of levels) only where a
# page proves it; a struct member is NULL where its struct is (st is NULL for
# i % 4 = 0 in the corpus), though its own page has no NULL values
null_counts() {
    local q="SELECT count(*) FILTER (WHERE st IS NULL) AS sn, count(*) FILTER (WHERE st.a IS NULL) AS an,
        count(*) FILTER (WHERE st.b IS NULL) AS bn, count(*) FILTER (WHERE id IS NULL) AS idn,
        count(*) FILTER (WHERE i32 IS NULL) AS i32n, count(*) FILTER (WHERE f32 > 10) AS big FROM t"
    local got want
    got=$(node "$PQ/views.mjs" "$WORK/m_snappy" - "$q") || return 1
    mkdir -p "$WORK/orig/parquet" && ln -sf "$C/snappy.parquet" "$WORK/orig/parquet/0.parquet"
    want=$(node "$PQ/views.mjs" "$WORK/orig" - "$q") || return 1
    [ "$got" = "$want" ] || { echo "views: $got; DuckDB's file: $want"; return 1; }
    [ "$(jq -r .an <<<"$got")" -gt 0 ] || { echo "no NULL struct in the corpus: $got"; return 1; }
    # the footers' own claims: null_count 0 for the NULL-free id, none for st's members
    local meta
    meta=$(node "$PQ/views.mjs" "$WORK/m_snappy" - "SELECT path_in_schema AS p, stats_null_count AS n
        FROM parquet_metadata('$WORK/m_snappy/parquet/*.parquet') WHERE path_in_schema IN ('id', 'st, a', 'st, b')") || return 1
    [ "$(jq -s 'map(select(.p == "id" and .n == "0")) | length' <<<"$meta")" -ge 1 ] || { echo "id: $meta"; return 1; }
    [ "$(jq -s 'map(select(.p != "id" and .n == "0")) | length' <<<"$meta")" = 0 ] ||
        { echo "a struct member's footer says it has no NULL: $meta"; return 1; }
}
check parquet_view_null_counts null_counts

# min/max statistics (format 9's chunk bounds) of every bounded type: they hold
# each view's values and are exact where no row was deleted, filters DuckDB
# prunes views by count what a full scan counts; an erase on a bound takes that
# group's bounds for the column again over the rows that stay (the erased id is
# nowhere in the view's footer) and keeps those an erase strictly inside leaves
bounds_hold() {
    local t=$WORK/bounds m=$WORK/m_bounds got
    rm -rf "$t"
    "$INGOT" import --schema "$ROOT/tests/golden/inputs/bounds.txt" --rows-per-group 100 \
        "$ROOT/tests/golden/inputs/bounds.csv" "$t" >/dev/null || return 1
    mkdir -p "$m"
    "$INGOT" mount "$t" "$m" || return 1
    node "$PQ/views.mjs" "$m" "$WORK/bounds_copy.parquet" || return 1
    got=$(node "$PQ/bounds.mjs" "$m" "$WORK/bounds_copy.parquet") || { echo "$got"; return 1; }
    # 5 views x 11 bounded columns, but for f64's group of only NULLs and NaNs
    # and f32's group with infinities (DuckDB reads no float bounds that are
    # infinite, and writes none either)
    [ "$(jq .bounded <<<"$got")" = 53 ] && [ "$(jq .exact <<<"$got")" = 53 ] || { echo "before: $got"; return 1; }
    "$INGOT" erase --row 150 --row 299 "$t" >/dev/null || return 1 # ids -250 (inside group 1), 197 (group 2's max)
    sleep 0.3
    node "$PQ/views.mjs" "$m" "$WORK/bounds_copy2.parquet" || return 1
    got=$(node "$PQ/bounds.mjs" "$m" "$WORK/bounds_copy2.parquet") || { echo "after: $got"; return 1; }
    local meta
    meta=$(node "$PQ/views.mjs" "$m" - "SELECT file_name AS f, stats_max_value AS mx FROM
        parquet_metadata('$m/parquet/*.parquet') WHERE path_in_schema = 'id' ORDER BY f") || return 1
    [ "$(jq -sc 'map(.mx)' <<<"$meta")" = '["-403","-103","194","497","797"]' ] || { echo "id's max per view: $meta"; return 1; }
    [ "$("$INGOT" inspect --json "$t" | jq '.columns[] | select(.name == "id") | .bounded_groups')" = 5 ] || return 1
    "$PY" - "$m/parquet/2.parquet" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
n = struct.unpack("<I", data[-8:-4])[0]
assert struct.pack("<q", 197) not in data[-8 - n:], "the erased id 197 is in the view's footer"
PY
}
check parquet_view_bounds bounds_hold

# erased rows leave the views (flat pages, nested pages with erased rows)
after_erase() {
    "$INGOT" erase --row 0,5,1234,2999 "$WORK/snappy" >/dev/null || return 1
    "$INGOT" erase --row 7,150,2500 "$WORK/groups" >/dev/null || return 1
    sleep 0.3 # the mounts reload on inotify
    views_equal "$WORK/snappy" "$WORK/m_snappy" snappy_erased || return 1
    views_equal "$WORK/groups" "$WORK/m_groups" groups_erased || return 1
    [ "$(node "$PQ/views.mjs" "$WORK/m_snappy" - "SELECT count(*) AS n FROM t")" = '{"n":"2996"}' ]
}
check parquet_view_after_erase after_erase

# a view held open across an erase answers ESTALE (its rows moved); reopened, it is new
stale() {
    "$PY" - "$WORK/m_v2" "$INGOT" "$WORK/v2" <<'PY'
import errno, os, subprocess, sys
m, ingot, t = sys.argv[1:]
fd = os.open(f"{m}/parquet/0.parquet", os.O_RDONLY)
assert os.pread(fd, 4, 0) == b"PAR1"
size = os.fstat(fd).st_size
subprocess.run([ingot, "erase", "--row", "3", t], check=True, stdout=subprocess.DEVNULL)
import time; time.sleep(0.3)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
try:
    os.pread(fd, 1 << 16, 1 << 12)
    sys.exit("an open view read after an erase")
except OSError as e:
    assert e.errno == errno.ESTALE, errno.errorcode.get(e.errno)
with open(f"{m}/parquet/0.parquet", "rb") as f:
    data = f.read()
assert data[:4] == b"PAR1" and data[-4:] == b"PAR1", data[:4]
assert len(data) == os.stat(f"{m}/parquet/0.parquet").st_size
PY
}
check parquet_view_open_across_erase_estale stale

# the kernel caches the views' names (an engine opens each several times a
# query); an erase drops them before the new generation shows, so a query run
# right after `rm rows/ID` returns reads the new views, not the cached old ones
cached_names_follow_erase() {
    local m=$WORK/m_groups n0 n1 id
    n0=$(node "$PQ/views.mjs" "$m" - "SELECT count(*) AS n FROM t" | jq -r .n) || return 1
    for id in 11 12 13; do
        node "$PQ/views.mjs" "$m" - "SELECT count(*) AS n FROM t" >/dev/null || return 1
        rm "$m/rows/$id" || return 1
        n1=$(node "$PQ/views.mjs" "$m" - "SELECT count(*) AS n FROM t" | jq -r .n) || { echo "query after rm rows/$id failed"; return 1; }
        n0=$((n0 - 1))
        [ "$n1" = "$n0" ] || { echo "after rm rows/$id: $n1 rows, want $n0"; return 1; }
    done
    [ "$(node "$PQ/views.mjs" "$m" - "SELECT count(*) AS n FROM t WHERE id IN (11, 12, 13)" | jq -r .n)" = 0 ] || return 1
    # at once: the file read the instant rm returns is the new one (the names
    # and pages of the old one would otherwise be served from the kernel's cache)
    "$PY" - "$m" <<'PY'
import os, sys
m = sys.argv[1]
def whole():
    with open(f"{m}/parquet/0.parquet", "rb") as f:
        return f.read()
for row in range(20, 40):
    before = whole()
    assert whole() == before  # held by the kernel now
    os.unlink(f"{m}/rows/{row}")
    after = whole()
    assert after != before, f"rm rows/{row}: parquet/0.parquet read the same bytes right after"
    assert len(after) == os.stat(f"{m}/parquet/0.parquet").st_size
PY
}
check parquet_view_cached_names_follow_erase cached_names_follow_erase

# erases through the mount while the views are read, one worker thread: the
# names are dropped off the workers (a worker waiting on the kernel could wait
# for a lookup only a worker can answer), so nothing hangs
one_worker() {
    local m=$WORK/m_one rc=0 r k
    mkdir -p "$m"
    "$INGOT" mount -o threads=1 "$WORK/groups" "$m" || return 1
    for k in 1 2 3 4; do
        timeout -s KILL 60 bash -c 'for _ in $(seq 60); do cat "$1"/parquet/*.parquet "$1"/arrow/*.arrow >/dev/null 2>&1; ls "$1/parquet" >/dev/null; done' _ "$m" &
    done
    for r in $(seq 1000 1079); do
        timeout -s KILL 30 rm "$m/rows/$r" &
        [ $((r % 8)) = 7 ] && { wait -n || rc=1; }
    done
    wait || rc=1
    timeout -s KILL 10 cat "$m/parquet/0.parquet" >/dev/null || rc=1
    [ "$(node "$PQ/views.mjs" "$m" - "SELECT count(*) AS n FROM t WHERE id BETWEEN 1000 AND 1079" | jq -r .n)" = 0 ] || rc=1
    fusermount3 -u "$m" 2>/dev/null || fusermount3 -uz "$m"
    return $rc
}
check parquet_view_erase_with_one_worker one_worker

# blobs: (path, size) references; the paths lead to the objects
blobs() {
    local d=$WORK/bl
    mkdir -p "$d/m"
    "$PY" - "$d" <<'PY'
import json, os, sys
d = sys.argv[1]
with open(f"{d}/b.jsonl", "w") as f:
    for i in range(40):
        open(f"{d}/o{i}.jpg", "wb").write(b"\xff\xd8\xff" + bytes([i]) * (100 + i))
        frames = [f"o{(i + k) % 40}.jpg" for k in range(i % 3)]
        img = None if i % 7 == 3 else f"o{i}.jpg"
        f.write(json.dumps({"id": i, "img": img, "frames": frames}) + "\n")
open(f"{d}/s.txt", "w").write("id int64\nimg blob?\nframes list<blob>\n")
PY
    "$INGOT" import --schema "$d/s.txt" "$d/b.jsonl" "$d/t" >/dev/null || return 1
    "$INGOT" mount "$d/t" "$d/m" || return 1
    node "$PQ/views.mjs" "$d/m" - "SELECT id, img.path AS p, img.size AS s, len(frames) AS nf, frames[1].path AS f1, frames[1].size AS s1 FROM t" >"$d/refs" || return 1
    "$PY" - "$d" <<'PY'
import json, os, sys
d = sys.argv[1]
rows = [json.loads(l) for l in open(f"{d}/refs")]
assert len(rows) == 40, len(rows)
for r in rows:
    i = int(r["id"])
    if i % 7 == 3:
        assert r["p"] is None, r
    else:
        assert r["p"] == f"blobs/img/{i}.jpg", r
        assert open(f"{d}/m/{r['p']}", "rb").read() == open(f"{d}/o{i}.jpg", "rb").read()
        assert int(r["s"]) == os.path.getsize(f"{d}/o{i}.jpg")
    assert int(r["nf"]) == i % 3, r
    if i % 3:
        assert r["f1"] == f"blobs/frames/{i}/0.jpg", r
        assert open(f"{d}/m/{r['f1']}", "rb").read() == open(f"{d}/o{i % 40}.jpg", "rb").read()
        assert int(r["s1"]) == 103 + i % 40
PY
    local rc=$?
    # erased rows leave (a list<blob> page is counted by decoding once erased)
    if [ $rc = 0 ]; then
        "$INGOT" erase --row 1,2,5 "$d/t" >/dev/null && sleep 0.3 &&
            [ "$(node "$PQ/views.mjs" "$d/m" - "SELECT count(*) AS n, sum(len(frames)) AS nf, count(img) AS ni FROM t")" = \
                '{"n":"37","nf":"34","ni":"31"}' ] || rc=1
    fi
    fusermount3 -u "$d/m"
    return $rc
}
check parquet_view_blob_references blobs

# vectors are lists of D floats in the views (nullable, quantised, inside a
# struct, in lists: per-frame embeddings, in a list's structs): DuckDB's copy
# imported back equals them, before and after erasures (an erased row's page
# is laid out from its decoded levels)
vectors() {
    local d=$WORK/vec
    mkdir -p "$d/m"
    cat >"$d/s.txt" <<'S'
id int64
v vector<float32, 4>
vn vector<float32, 3>?
h vector<float32, 4> quantize=fp16
st struct<a:int64, e:vector<float32, 2>?>?
lv list<vector<float32, 3>>
ln list<vector<float32, 2>?>?
lsv list<struct<name:string, emb:vector<float32, 2>?>?>?
llv list<list<vector<float32, 2>>?>
S
    "$PY" - "$d/in.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(3000):
        f.write(json.dumps({"id": i, "v": [i, i + 0.5, -i, 1.25], "vn": None if i % 9 == 0 else [i, 2 * i, 3.1 * i],
            "h": [(i % 100) / 4.0, 1, 2, 3],
            "st": None if i % 7 == 1 else {"a": i, "e": None if i % 5 == 2 else [i / 3, -i]},
            "lv": [[i, k, -0.5 * k] for k in range(i % 4)],
            "ln": None if i % 6 == 0 else [None if (i + k) % 3 == 0 else [k, -i] for k in range(i % 3)],
            "lsv": None if i % 7 == 5 else [None if (i + k) % 5 == 4 else
                                             {"name": f"o{i}.{k}", "emb": None if (i + k) % 3 == 1 else [i, k]}
                                             for k in range(i % 3)],
            "llv": [None if (i + j) % 4 == 2 else [[i, j * 10 + k] for k in range((i + j) % 3)]
                    for j in range(i % 3)]}) + "\n")
PY
    "$INGOT" import --schema "$d/s.txt" --rows-per-group 1000 "$d/in.jsonl" "$d/t" >/dev/null || return 1
    "$INGOT" mount "$d/t" "$d/m" || return 1
    local rc=0
    views_equal "$d/t" "$d/m" vec || rc=1
    [ "$(node "$PQ/views.mjs" "$d/m" - "SELECT len(v) AS a, len(vn) AS b FROM t WHERE id = 18")" = '{"a":"4","b":null}' ] ||
        { echo "DuckDB does not see v as a list of 4 and vn NULL at id 18"; rc=1; }
    [ "$(node "$PQ/views.mjs" "$d/m" - "SELECT lv[3][3] AS a, ln[2] AS b, len(ln) AS c FROM t WHERE id = 7")" = '{"a":-1,"b":null,"c":"1"}' ] ||
        { echo "DuckDB does not see lv and ln as lists of vectors at id 7"; rc=1; }
    fusermount3 -u "$d/m"
    [ $rc = 0 ] || return 1
    "$INGOT" erase --row 5,9,10,999,1000,2998 "$d/t" >/dev/null || return 1
    "$INGOT" mount "$d/t" "$d/m" || return 1
    views_equal "$d/t" "$d/m" vec_erased || rc=1
    fusermount3 -u "$d/m"
    return $rc
}
check parquet_view_vectors vectors

# string and binary chunks of few distinct values show as a dictionary page and
# one page of codes (flat, nullable, in lists, in structs, key/value structs); a
# column of unique strings stays PLAIN. DuckDB's copy equals the table before
# and after erasures; an erased value leaves the dictionary (its bytes are in no
# view), a group whose rows are all erased shows no dictionary, and a table of
# the format before (no counts) shows PLAIN pages
dictionaries() {
    local d=$WORK/dict
    mkdir -p "$d/m"
    cat >"$d/s.txt" <<'S'
id int64
tag string?
code binary
uniq string
tags list<string?>?
st struct<name:string, n:int32>?
kv list<struct<key:string, value:int64>>
S
    "$PY" - "$d/in.jsonl" <<'PY'
import base64, json, sys
words = ["red", "green", "blue", "", "cyan", "SECRET-7f3a9c-tag"]
with open(sys.argv[1], "w") as f:
    for i in range(3000):
        tag = None if i % 11 == 0 else ("SECRET-7f3a9c-tag" if i in (17, 1017, 2017) else words[i % 5])
        f.write(json.dumps({"id": i, "tag": tag, "code": base64.b64encode(b"c%d" % (i % 3)).decode(), "uniq": f"u{i * 7919}",
            "tags": None if i % 13 == 0 else [None if (i + k) % 4 == 3 else words[(i + k) % 5] for k in range(i % 4)],
            "st": None if i % 9 == 0 else {"name": words[i % 3], "n": i},
            "kv": [{"key": words[(i + k) % 3] + "k", "value": k} for k in range(i % 3)]}) + "\n")
PY
    "$INGOT" import --schema "$d/s.txt" --rows-per-group 1000 "$d/in.jsonl" "$d/t" >/dev/null || return 1
    "$INGOT" mount "$d/t" "$d/m" || return 1
    local rc=0 enc
    enc=$(node "$PQ/views.mjs" "$d/m" - "SELECT path_in_schema AS p, list(DISTINCT encodings) AS e
        FROM parquet_metadata('$d/m/parquet/*.parquet') GROUP BY ALL ORDER BY p") || rc=1
    for c in tag code 'tags, list, element' 'st, name' 'kv, list, element, key'; do
        jq -se --arg c "$c" 'map(select(.p == $c)) | length == 1 and .[0].e == ["PLAIN, RLE, RLE_DICTIONARY"]' <<<"$enc" >/dev/null ||
            { echo "$c is not dictionary-coded in every group: $enc"; rc=1; }
    done
    jq -se 'map(select(.p == "uniq")) | length == 1 and .[0].e == ["PLAIN, RLE"]' <<<"$enc" >/dev/null || { echo "uniq: $enc"; rc=1; }
    views_equal "$d/t" "$d/m" dict || rc=1
    grep -c SECRET-7f3a9c "$d"/m/parquet/*.parquet | grep -q ':1$' || { echo "the marker is not in the views"; rc=1; }
    # the marker's rows erased: the dictionaries keep their sizes with unused
    # entries of spaces where it was; rows 1000..1999 (group 1) all erased
    "$INGOT" erase --row 17,1017,2017 "$d/t" >/dev/null || rc=1
    "$INGOT" erase --row 1000-1016,1018-1999 "$d/t" >/dev/null || rc=1
    sleep 0.3
    views_equal "$d/t" "$d/m" dict_erased || rc=1
    if grep -l SECRET-7f3a9c "$d"/m/parquet/*.parquet; then echo "an erased value is in a view"; rc=1; fi
    [ "$(node "$PQ/views.mjs" "$d/m" - "SELECT count(*) AS n, count(DISTINCT tag) AS t FROM t")" = '{"n":"1998","t":"5"}' ] ||
        { echo "counts after erasing: $(node "$PQ/views.mjs" "$d/m" - "SELECT count(*) AS n, count(DISTINCT tag) AS t FROM t")"; rc=1; }
    enc=$(node "$PQ/views.mjs" "$d/m" - "SELECT count(*) AS n FROM parquet_metadata('$d/m/parquet/1.parquet')
        WHERE dictionary_page_offset IS NOT NULL") || rc=1
    [ "$(jq -r .n <<<"$enc")" = 0 ] || { echo "an empty group shows a dictionary: $enc"; rc=1; }
    fusermount3 -u "$d/m"
    # the format before this one: the same views, PLAIN
    "$INGOT" mount "$G5/flat" "$d/m" || return 1
    enc=$(node "$PQ/views.mjs" "$d/m" - "SELECT count(*) AS n FROM parquet_metadata('$d/m/parquet/*.parquet')
        WHERE dictionary_page_offset IS NOT NULL") || rc=1
    [ "$(jq -r .n <<<"$enc")" = 0 ] || { echo "a version-5 table shows a dictionary: $enc"; rc=1; }
    [ "$(node "$PQ/views.mjs" "$d/m" - "SELECT count(*) AS n FROM t" | jq -r .n)" = \
        "$("$INGOT" inspect --json "$G5/flat" | jq '.rows - .deleted_rows')" ] || { echo "version 5: row count"; rc=1; }
    fusermount3 -u "$d/m"
    return $rc
}
G5=$ROOT/tests/golden/v5
check parquet_view_dictionaries dictionaries

# a damaged page: EIO for the view's reads that need it, the daemon stays up
damaged() {
    local d=$WORK/dmg
    mkdir -p "$d/m"
    cp -r "$WORK/v2" "$d/t"
    local part=$d/t/part-000000.ingot
    "$PY" -c "
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
for k in range(200, 4000, 7): b[k] ^= 0x5A
open(p, 'wb').write(b)" "$part"
    "$INGOT" mount "$d/t" "$d/m" || return 1
    local rc=0
    if cat "$d/m/parquet/0.parquet" >/dev/null 2>"$d/err"; then echo "a damaged view read through"; rc=1; fi
    grep -q "Input/output error" "$d/err" || { cat "$d/err"; rc=1; }
    ls "$d/m/columns" >/dev/null || { echo "the daemon died"; rc=1; }
    fusermount3 -u "$d/m"
    return $rc
}
check parquet_view_damaged_page_eio damaged

for n in snappy v2 groups tiny_groups; do fusermount3 -u "$WORK/m_$n" 2>/dev/null; done
