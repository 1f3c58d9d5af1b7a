#!/usr/bin/env bash
# A table that changes: columns added, replaced and dropped as new versions
# (only the new column's bytes written), older versions read as they were,
# bad input refused with the table unchanged, a crash at every durable step of
# a commit leaving the old table or the new one, and an erasure reaching every
# version (a replaced column's old values included).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

T=$WORK/t
PQ=$ROOT/tests/parquet
"$PY" - "$WORK" <<'PY'
import sys, numpy as np
w = sys.argv[1]
with open(f"{w}/a.csv", "w") as f:
    print("id,name,x", file=f)
    for i in range(5000):
        print(f"{i},n{i},{i * 0.5}", file=f)
# 4,999 live rows once row 7 is erased: row k of these goes to the k-th live row
live = [i for i in range(5000) if i != 7]
np.save(f"{w}/score.npy", np.array([i * 10 for i in live], dtype=np.int64))
# a backfill of random values (stored plain: they do not compress), so that
# a value's bytes can be looked for in the files
rng = np.random.default_rng(5)
np.save(f"{w}/score2.npy", rng.integers(-(1 << 63), (1 << 63) - 1, size=len(live), dtype=np.int64))
np.save(f"{w}/emb.npy", np.arange(len(live) * 4, dtype=np.float32).reshape(-1, 4))
np.save(f"{w}/short.npy", np.arange(10, dtype=np.int64))
np.save(f"{w}/floats.npy", np.arange(len(live), dtype=np.float64))
PY
"$INGOT" import --rows-per-group 1000 "$WORK/a.csv" "$T" >/dev/null 2>&1
"$INGOT" erase --row 7 "$T" >/dev/null

# FILE N: a CSV of N rows: id, name ("n" and the id), x (the id halved)
id_name_x_csv() {
    "$PY" -c "
import sys
print('id,name,x')
for i in range(int(sys.argv[1])): print(f'{i},n{i},{i/2}')" "$2" >"$1"
}

state() { (cd "$T" && sha256sum MANIFEST part-*) ; }
state_of() { (cd "$1" && sha256sum MANIFEST part-*) ; }

add_column() {
    local before after
    before=$(stat -c %s "$T/part-000000.ingot")
    "$INGOT" add-column "$T" "$WORK/score.npy" | grep -q "version 3" || return 1
    after=$(stat -c %s "$T/part-000000.ingot")
    # only the new column and a footer were written (the int64s compress well)
    [ $((after - before)) -lt 40000 ] || { echo "grew by $((after - before)) bytes"; return 1; }
    # row 6 keeps score 60, row 8 (the 8th live row) gets 80
    [ "$("$INGOT" cat --rows 6,8 "$T" score | tr -d '\n')" = '{"score":60}{"score":80}' ] || return 1
    "$INGOT" verify --deep "$T" >/dev/null || { "$INGOT" verify "$T"; return 1; }
    # version 2 (the erase) does not show it
    ! "$INGOT" cat --version 2 "$T" score >/dev/null 2>&1
}
check add_column_writes_only_its_pages add_column

bad_input_refused() {
    local before out
    before=$(state)
    out=$("$INGOT" add-column "$T" "$WORK/short.npy" 2>&1) && return 1
    grep -q "short.npy: 10 rows; the table has 4999 live rows" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" add-column "$T" "$WORK/score.npy" 2>&1) && return 1
    grep -q "column 'score' exists" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" replace-column --name score "$T" "$WORK/floats.npy" 2>&1) && return 1
    grep -q "column 'score' is int64; the new values are float64" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" drop-column "$T" nosuch 2>&1) && return 1
    grep -q "no column 'nosuch'" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" add-column "$T" "$WORK/missing.npy" 2>&1) && return 1
    grep -q "missing.npy" <<<"$out" || { echo "$out"; return 1; }
    [ "$(state)" = "$before" ] || { echo "the table changed"; return 1; }
}
check bad_input_refused_table_unchanged bad_input_refused

# --- replace-column --retype: the new values' type becomes the column's (int64
# days a date column from a datetime64 .npy; int64 scores strings from a keyed
# CSV, inferred), older versions keep the old type; appends read the new one
retype() {
    local R=$WORK/rt out
    printf 'id,day,score\n1,19000,5\n2,19001,6\n3,,7\n' >"$R.csv"
    "$INGOT" import "$R.csv" "$R" >/dev/null 2>&1 || return 1
    "$PY" -c "import numpy as np; np.save('$R-day.npy', np.array(['2022-01-08', '2022-01-09', 'NaT'], dtype='datetime64[D]'))"
    out=$("$INGOT" replace-column --name day "$R" "$R-day.npy" 2>&1) && return 1
    grep -q "column 'day' is int64; the new values are date (--retype gives it their type)" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" add-column --retype "$R" "$R-day.npy" 2>&1) && return 1
    grep -q "usage: ingot add-column" <<<"$out" || { echo "$out"; return 1; }
    "$INGOT" replace-column --retype --name day "$R" "$R-day.npy" >/dev/null || return 1
    printf 'id,score\n1,x5\n3,x7\n' >"$R-score.csv"
    "$INGOT" replace-column --retype --key id "$R" "$R-score.csv" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 0-2 "$R" | tr -d '\n')" = \
        '{"id":1,"day":"2022-01-08","score":"x5"}{"id":2,"day":"2022-01-09","score":null}{"id":3,"day":null,"score":"x7"}' ] ||
        { "$INGOT" cat --rows 0-2 "$R"; return 1; }
    [ "$("$INGOT" cat --version 1 --rows 0 "$R")" = '{"id":1,"day":19000,"score":5}' ] || return 1
    [ "$("$INGOT" inspect --json "$R" | jq -r '[.columns[] | .schema_type] | join(",")')" = 'int64?,date?,string?' ] ||
        { "$INGOT" inspect --json "$R" | jq -c '[.columns[] | .schema_type]'; return 1; }
    printf 'id,day,score\n4,2023-05-01,z\n' >"$R-ap.csv"
    "$INGOT" import --append "$R-ap.csv" "$R" >/dev/null 2>&1 || return 1
    [ "$("$INGOT" cat --rows 3 "$R")" = '{"id":4,"day":"2023-05-01","score":"z"}' ] || { "$INGOT" cat --rows 3 "$R"; return 1; }
    "$INGOT" erase --where score=x7 "$R" >/dev/null || return 1
    "$INGOT" cat --version 1 "$R" score | grep -qx 7 && { echo "version 1 still shows the erased row"; return 1; }
    "$INGOT" verify --deep "$R" >/dev/null
}
check replace_column_retype retype

# --- a replaced column keeps its place: rows, listings, schema.json and the
# Parquet and Arrow views show it where the column it replaces was (a struct
# with its fields); a column added goes last, one dropped leaves; restoring
# an older version restores its order
keeps_place() {
    local R=$WORK/kp RM=$WORK/kpm want='id,s,b,c' got
    printf 'id int64?\ns struct<x:int64, y:string>?\nb float64?\nc string?\n' >"$R.schema"
    printf '{"id":1,"s":{"x":1,"y":"a"},"b":2.5,"c":"u"}\n{"id":2,"s":{"x":2,"y":"b"},"b":3.5,"c":"v"}\n' >"$R.jsonl"
    "$INGOT" import --schema "$R.schema" "$R.jsonl" "$R" >/dev/null 2>&1 || return 1
    printf 's struct<x:int64, y:string>?\nid int64?\n' >"$R-s.schema"
    printf '{"id":1,"s":{"x":10,"y":"q"}}\n{"id":2,"s":{"x":20,"y":"r"}}\n' >"$R-s.jsonl"
    "$INGOT" replace-column --schema "$R-s.schema" --key id "$R" "$R-s.jsonl" >/dev/null || return 1
    "$PY" -c "import numpy as np; np.save('$R-b.npy', np.array([7.5, 8.5]))"
    "$INGOT" replace-column --name b "$R" "$R-b.npy" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 0 "$R")" = '{"id":1,"s":{"x":10,"y":"q"},"b":7.5,"c":"u"}' ] || { "$INGOT" cat --rows 0 "$R"; return 1; }
    [ "$("$INGOT" inspect --columns "$R" | paste -sd,)" = 'id,s,s.x,s.y,b,c' ] || { "$INGOT" inspect --columns "$R"; return 1; }
    [ "$("$INGOT" inspect --json "$R" | jq -r '[.columns[].name] | join(",")')" = 'id,s,s.x,s.y,b,c' ] || return 1
    grep -q '^ingot-manifest 4$' "$R/MANIFEST" && grep -q '^order ' "$R/MANIFEST" || { cat "$R/MANIFEST"; return 1; }
    "$INGOT" verify --deep "$R" >/dev/null || return 1
    mkdir -p "$RM" && "$INGOT" mount "$R" "$RM" || return 1
    got=$("$PY" - "$RM" <<'PY'
import json, sys
m = sys.argv[1]
row = json.load(open(f"{m}/rows/0"))
line = json.loads(open(f"{m}/jsonl/0.jsonl").readline())
tops = [c["name"] for c in json.load(open(f"{m}/schema.json"))["columns"] if "." not in c["name"]]
assert list(row) == list(line) == tops, (row, line, tops)
print(",".join(tops))
PY
) || { fusermount3 -u "$RM"; return 1; }
    [ "$got" = "$want" ] || { echo "mount: $got"; fusermount3 -u "$RM"; return 1; }
    # a replacement written into the mount (a .npy) takes the place as well
    "$PY" -c "import numpy as np; np.save('$RM/columns/id.npy', np.array([5, 6]))" || { fusermount3 -u "$RM"; return 1; }
    [ "$(jq -c . "$RM/rows/1")" = '{"id":6,"s":{"x":20,"y":"r"},"b":8.5,"c":"v"}' ] || { cat "$RM/rows/1"; fusermount3 -u "$RM"; return 1; }
    if need_duckdb replaced_column_keeps_its_place; then
        got=$(cd "$PQ" && node --input-type=module -e "
import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import { readFileSync } from 'fs';
const c = await (await DuckDBInstance.create(':memory:')).connect();
const r = await c.runAndReadAll(\"SELECT * FROM '$RM/parquet/0.parquet'\");
const a = tableFromIPC(readFileSync('$RM/arrow/0.arrow'));
console.log(r.columnNames().join(','), String(r.getRows()[1][2]), a.schema.fields.map((f) => f.name).join(','));") ||
            { fusermount3 -u "$RM"; return 1; }
        [ "$got" = "$want 8.5 $want" ] || { echo "views: $got"; fusermount3 -u "$RM"; return 1; }
    fi
    fusermount3 -u "$RM"
    # added last, dropped gone; a version's order restored with its columns
    "$PY" -c "import numpy as np; np.save('$R-d.npy', np.array([1, 2], dtype=np.int32))"
    "$INGOT" add-column --name d "$R" "$R-d.npy" >/dev/null && "$INGOT" drop-column "$R" c >/dev/null || return 1
    [ "$("$INGOT" inspect --columns "$R" | paste -sd,)" = 'id,s,s.x,s.y,b,d' ] || { "$INGOT" inspect --columns "$R"; return 1; }
    printf '{"id":3,"s":{"x":3,"y":"c"},"b":1.5,"d":4}\n' >"$R-ap.jsonl"
    "$INGOT" import --append "$R-ap.jsonl" "$R" >/dev/null 2>&1 || return 1
    [ "$("$INGOT" cat --rows 2 "$R")" = '{"id":3,"s":{"x":3,"y":"c"},"b":1.5,"d":4}' ] || { "$INGOT" cat --rows 2 "$R"; return 1; }
    "$INGOT" restore-columns "$R" 1 >/dev/null || return 1
    ! grep -q '^order ' "$R/MANIFEST" || { cat "$R/MANIFEST"; return 1; }
    [ "$("$INGOT" cat --rows 0 "$R")" = '{"id":1,"s":{"x":1,"y":"a"},"b":2.5,"c":"u"}' ] || return 1
    "$INGOT" restore-columns "$R" 3 >/dev/null || return 1
    [ "$("$INGOT" cat --rows 0 "$R")" = '{"id":1,"s":{"x":10,"y":"q"},"b":7.5,"c":"u"}' ] || { "$INGOT" cat --rows 0 "$R"; return 1; }
    "$INGOT" verify --deep "$R" >/dev/null
}
check replaced_column_keeps_its_place keeps_place

# --- move-column: a column shown first or right after another (with its
# struct fields), a version of its own that rewrites nothing; a mount beside
# it shows the new order once it lands; older versions keep theirs; bad
# requests refused with MANIFEST unchanged; add-column --first / --after
move_column() {
    local R=$WORK/mv RM=$WORK/mvm before out
    printf 'id int64?\ns struct<x:int64, y:string>?\nb float64?\nc string?\n' >"$R.schema"
    printf '{"id":1,"s":{"x":1,"y":"a"},"b":2.5,"c":"u"}\n' >"$R.jsonl"
    "$INGOT" import --schema "$R.schema" "$R.jsonl" "$R" >/dev/null 2>&1 || return 1
    mkdir -p "$RM" && "$INGOT" mount "$R" "$RM" || return 1
    [ "$(jq -c 'keys_unsorted' "$RM/rows/0")" = '["id","s","b","c"]' ] || { fusermount3 -u "$RM"; return 1; }
    before=$(cat "$R"/part-*.ingot | sha256sum)
    "$INGOT" move-column "$R" c --first | grep -q "moved 'c' first: version 2" || { fusermount3 -u "$RM"; return 1; }
    "$INGOT" move-column "$R" s --after b >/dev/null || { fusermount3 -u "$RM"; return 1; }
    [ "$(cat "$R"/part-*.ingot | sha256sum)" = "$before" ] || { echo "a part was rewritten"; fusermount3 -u "$RM"; return 1; }
    [ "$("$INGOT" inspect --columns "$R" | paste -sd,)" = 'c,id,b,s,s.x,s.y' ] || { "$INGOT" inspect --columns "$R"; fusermount3 -u "$RM"; return 1; }
    for _ in $(seq 100); do
        [ "$(jq -c 'keys_unsorted' "$RM/rows/0")" = '["c","id","b","s"]' ] && break
        sleep 0.05
    done
    [ "$(jq -c 'keys_unsorted' "$RM/rows/0")" = '["c","id","b","s"]' ] || { echo "the mount: $(cat "$RM/rows/0")"; fusermount3 -u "$RM"; return 1; }
    [ "$(jq -c '[.columns[].name]' "$RM/schema.json")" = '["c","id","b","s","s.x","s.y"]' ] || { cat "$RM/schema.json"; fusermount3 -u "$RM"; return 1; }
    [ "$(jq -c 'keys_unsorted' "$RM/versions/1/rows/0")" = '["id","s","b","c"]' ] || { echo "version 1 moved"; fusermount3 -u "$RM"; return 1; }
    # columns/ lists in the same order (what os.listdir and glob give), a version in its own
    [ "$(ls -U "$RM/columns" | grep -v '[.]npy$' | paste -sd,)" = 'c,id,b,s,s.x,s.y' ] ||
        { ls -U "$RM/columns"; fusermount3 -u "$RM"; return 1; }
    [ "$(ls -U "$RM/versions/1/columns" | grep -v '[.]npy$' | paste -sd,)" = 'id,s,s.x,s.y,b,c' ] ||
        { ls -U "$RM/versions/1/columns"; fusermount3 -u "$RM"; return 1; }
    fusermount3 -u "$RM"
    [ "$("$INGOT" cat --rows 0 "$R")" = '{"c":"u","id":1,"b":2.5,"s":{"x":1,"y":"a"}}' ] || { "$INGOT" cat --rows 0 "$R"; return 1; }
    # the last after itself, a field, a column the version lacks: refused
    before=$(state_of "$R")
    out=$("$INGOT" move-column "$R" s --after s 2>&1) && return 1
    grep -q "column 's' cannot follow itself" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" move-column "$R" s.x --first 2>&1) && return 1
    grep -q "'s.x' is a field of a struct; only whole columns are moved" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" move-column "$R" nosuch --after id 2>&1) && return 1
    grep -q "no column 'nosuch'" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" move-column "$R" id 2>&1) && return 1
    grep -q "usage: ingot move-column" <<<"$out" || { echo "$out"; return 1; }
    [ "$(state_of "$R")" = "$before" ] || { echo "a refused move changed the table"; return 1; }
    # moved back into id order: no order line is written
    "$INGOT" move-column "$R" c --after s >/dev/null && "$INGOT" move-column "$R" s --after id >/dev/null || return 1
    ! grep -q '^order ' "$R/MANIFEST" && grep -q '^ingot-manifest 2$' "$R/MANIFEST" || { cat "$R/MANIFEST"; return 1; }
    [ "$("$INGOT" versions --json "$R" | jq -r '.[-1].change')" = 'move-column s after id' ] || return 1
    # added where asked: --after a column, or --first (a keyed file's columns in
    # its order); a column to follow that is not one refused before anything
    "$PY" -c "import numpy as np; np.save('$R-d.npy', np.array([4], dtype=np.int32))"
    "$INGOT" add-column --name d --after id "$R" "$R-d.npy" >/dev/null || return 1
    printf '_rowid,e,f\n0,1,x\n' >"$R-ef.csv"
    "$INGOT" add-column --first "$R" "$R-ef.csv" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 0 "$R")" = '{"e":1,"f":"x","id":1,"d":4,"s":{"x":1,"y":"a"},"b":2.5,"c":"u"}' ] ||
        { "$INGOT" cat --rows 0 "$R"; return 1; }
    before=$(state_of "$R")
    out=$("$INGOT" add-column --name g --after s.y "$R" "$R-d.npy" 2>&1) && return 1
    grep -q "'s.y' is a field of a struct; new columns go after a whole column" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" add-column --name g --after nosuch "$R" "$R-d.npy" 2>&1) && return 1
    grep -q "no column 'nosuch'" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" add-column --name g --first --after id "$R" "$R-d.npy" 2>&1) && return 1
    grep -q "usage: ingot add-column" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" replace-column --name d --first "$R" "$R-d.npy" 2>&1) && return 1
    grep -q "usage: ingot replace-column" <<<"$out" || { echo "$out"; return 1; }
    [ "$(state_of "$R")" = "$before" ] || { echo "a refused add changed the table"; return 1; }
    "$INGOT" verify --deep "$R" >/dev/null
}
check move_column_first_or_after_another move_column

# --- a non-nullable column replaced: appends are taken (CSV, JSON Lines,
# Parquet) while a version that shows the old column is kept, which reads as
# it was; the old column, with no value in the rows appended, is released in
# their part, and restoring it is refused; erasures, gc and verify --deep as
# ever
append_after_non_nullable_replaced() {
    local R=$WORK/nn out
    printf 'id int64\nb float64?\n' >"$R.schema"
    printf 'id,b\n1,2.5\n2,3.5\n' >"$R.csv"
    "$INGOT" import --schema "$R.schema" "$R.csv" "$R" >/dev/null 2>&1 || return 1
    "$PY" -c "import numpy as np; np.save('$R-id.npy', np.array([7, 8]))"
    "$INGOT" replace-column --name id "$R" "$R-id.npy" >/dev/null || return 1
    printf 'id,b\n3,4.5\n' >"$R-ap.csv"
    out=$("$INGOT" import --append "$R-ap.csv" "$R" 2>&1) || { echo "$out"; return 1; }
    grep -q "1 column only older versions show cannot be NULL and has no value in these rows: restore-columns can no longer show it" <<<"$out" ||
        { echo "$out"; return 1; }
    # the old id holds no value in the row appended: version 1 reads as it
    # was, but cannot be restored (released in the new part)
    [ "$("$INGOT" cat --version 1 "$R" id | tr '\n' ,)" = '1,2,' ] || { "$INGOT" cat --version 1 "$R" id; return 1; }
    out=$("$INGOT" restore-columns "$R" 1 2>&1) && return 1
    grep -q "column 'id' cannot be shown again: rows appended while it was hidden (part-000001.ingot) hold no value" <<<"$out" ||
        { echo "$out"; return 1; }
    "$INGOT" verify --deep "$R" >/dev/null || return 1
    "$INGOT" gc --keep 1 "$R" >/dev/null || return 1
    printf '{"id":4,"b":1}\n' >"$R-ap.jsonl"
    "$INGOT" import --append "$R-ap.jsonl" "$R" >/dev/null 2>&1 || return 1
    if need_duckdb append_after_non_nullable_replaced; then
        (cd "$PQ" && node --input-type=module -e "
import { DuckDBInstance } from '@duckdb/node-api';
const c = await (await DuckDBInstance.create(':memory:')).connect();
await c.run(\"COPY (SELECT 5::BIGINT AS id, 0.5::DOUBLE AS b) TO '$R-ap.parquet' (FORMAT parquet)\");") || return 1
        "$INGOT" import --append "$R-ap.parquet" "$R" >/dev/null 2>&1 || { "$INGOT" import --append "$R-ap.parquet" "$R"; return 1; }
        [ "$("$INGOT" cat --rows 4 "$R")" = '{"id":5,"b":0.5}' ] || { "$INGOT" cat --rows 4 "$R"; return 1; }
    fi
    [ "$("$INGOT" cat --rows 0-3 "$R" | tr -d '\n')" = '{"id":7,"b":2.5}{"id":8,"b":3.5}{"id":3,"b":4.5}{"id":4,"b":1.0}' ] ||
        { "$INGOT" cat --rows 0-3 "$R"; return 1; }
    "$INGOT" erase --where b=4.5 "$R" >/dev/null && "$INGOT" verify --deep "$R" >/dev/null || return 1
    "$INGOT" gc --keep 1 "$R" >/dev/null && "$INGOT" verify --deep "$R" >/dev/null
}
check append_after_non_nullable_replaced_old_versions_kept append_after_non_nullable_replaced

# An append of no rows (an empty shard of a daily load: a CSV of its header
# alone, an empty JSON Lines file, a .npy of shape (0,), Parquet of no rows)
# succeeds and changes nothing: no part, no version, the same MANIFEST; one
# whose header names a column the table has not adds it (a version) and no
# part. A new table from no rows is still refused.
append_of_no_rows() {
    local R=$WORK/empty out before
    printf 'a,b\n1,x\n2,y\n' >"$R.csv"
    "$INGOT" import "$R.csv" "$R" >/dev/null 2>&1 || return 1
    before=$(ls -A "$R" "$R/.ingot" | grep -vx lock | md5sum) # a writer makes the lock file
    cp "$R/MANIFEST" "$R.manifest"
    printf 'a,b\n' >"$R-0.csv"
    : >"$R-0.jsonl"
    local inputs=("$R-0.csv" "$R-0.jsonl")
    if need_duckdb append_of_no_rows; then
        (cd "$PQ" && node --input-type=module -e "
import { DuckDBInstance } from '@duckdb/node-api';
const c = await (await DuckDBInstance.create(':memory:')).connect();
await c.run(\"COPY (SELECT 1::BIGINT AS a, 'x' AS b LIMIT 0) TO '$R-0.parquet' (FORMAT parquet)\");") || return 1
        inputs+=("$R-0.parquet")
    fi
    local f
    for f in "${inputs[@]}"; do
        out=$("$INGOT" import --append "$f" "$R" 2>&1) || { echo "$f: $out"; return 1; }
        grep -qF "no rows in $f: nothing appended, the table is unchanged" <<<"$out" || { echo "$out"; return 1; }
        out=$("$INGOT" import --append --json "$f" "$R" 2>/dev/null) || return 1
        [ "$(jq -c '[.rows, .parts, .part, .columns_version]' <<<"$out")" = '[0,0,"",0]' ] || { echo "$out"; return 1; }
    done
    cmp -s "$R/MANIFEST" "$R.manifest" || { echo "MANIFEST changed"; return 1; }
    [ "$(ls -A "$R" "$R/.ingot" | grep -vx lock | md5sum)" = "$before" ] || { ls -A "$R" "$R/.ingot"; return 1; }
    [ "$("$INGOT" versions --json "$R" | jq length)" = 1 ] || { "$INGOT" versions "$R"; return 1; }
    # a header with a column the table has not: the column, and no rows
    printf 'a,b,c\n' >"$R-c.csv"
    out=$("$INGOT" import --append "$R-c.csv" "$R" 2>&1) || { echo "$out"; return 1; }
    grep -qF "nothing appended; its new columns were added (version 2)" <<<"$out" || { echo "$out"; return 1; }
    [ "$("$INGOT" cat "$R" c | tr '\n' ,)" = '\N,\N,' ] || { "$INGOT" cat "$R" c; return 1; }
    [ "$(ls "$R"/part-* | wc -l)" = 1 ] || { ls "$R"; return 1; }
    "$INGOT" verify --deep "$R" >/dev/null || return 1
    # a .npy of no rows appended to a table made from a .npy
    mkdir -p "$R-npy/0"
    "$PY" -c "import numpy as np; np.save('$R-npy/x.npy', np.arange(5)); np.save('$R-npy/0/x.npy', np.arange(0))" || return 1
    "$INGOT" import "$R-npy/x.npy" "$R-x" >/dev/null 2>&1 || return 1
    "$INGOT" import --append "$R-npy/0/x.npy" "$R-x" >/dev/null 2>&1 || return 1
    [ "$("$INGOT" cat "$R-x" x | tr '\n' ,)" = '0,1,2,3,4,' ] || return 1
    # no table is made from no rows
    out=$("$INGOT" import "$R-0.csv" "$R-new" 2>&1) && return 1
    grep -qF "$R-0.csv: no rows to import" <<<"$out" && [ ! -e "$R-new" ] || { echo "$out"; ls -d "$R-new"*; return 1; }
}
check append_of_no_rows_changes_nothing append_of_no_rows

# nested columns that cannot be NULL (a vector, a struct of a fixed-width
# binary, a string and a list, a blob, lists of them), replaced or dropped:
# JSON Lines, CSV (one thread and two) and Parquet append, before gc and
# after, the hidden records holding their least values, released in the new
# parts (older versions read as they were; restore-columns is refused)
append_after_nested_non_nullable_dropped() {
    local R=$WORK/nnn out
    printf 'one' >"$R-a.bin" && printf 'two' >"$R-b.bin"
    printf 'id int64?\nemb vector<float32, 3>\ns struct<u:uuid, w:string, l:list<int64>>\nlb list<struct<k:int32>>\nf blob\nfs list<blob>\n' >"$R.schema"
    printf '{"id":1,"emb":[1,2,3],"s":{"u":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","w":"x","l":[1,2]},"lb":[{"k":1}],"f":"nnn-a.bin","fs":["nnn-a.bin","nnn-b.bin"]}\n' >"$R.jsonl"
    printf '{"id":2,"emb":[4,5,6],"s":{"u":"6ba7b810-9dad-11d1-80b4-00c04fd430c9","w":"y","l":[]},"lb":[],"f":"nnn-b.bin","fs":[]}\n' >>"$R.jsonl"
    "$INGOT" import --schema "$R.schema" "$R.jsonl" "$R" >/dev/null || return 1
    "$PY" -c "import numpy as np; np.save('$R-emb.npy', np.ones((2, 3), dtype=np.float32))"
    "$INGOT" replace-column --name emb "$R" "$R-emb.npy" >/dev/null || return 1
    "$INGOT" drop-column "$R" s lb f fs >/dev/null || return 1
    printf '{"id":3,"emb":[7,8,9]}\n' >"$R-ap.jsonl"
    out=$("$INGOT" import --append --json "$R-ap.jsonl" "$R" 2>/dev/null | jq .released_columns)
    [ "$out" = 5 ] || { echo "released: $out"; "$INGOT" import --append "$R-ap.jsonl" "$R"; return 1; }
    out=$("$INGOT" cat --version 1 --rows 1 "$R" | jq -c '[.emb, .s.w, .lb, .fs]')
    [ "$out" = '[[4,5,6],"y",[],[]]' ] || { echo "$out"; return 1; }
    out=$("$INGOT" restore-columns "$R" 1 2>&1) && return 1
    grep -q "column 'emb' cannot be shown again: rows appended while it was hidden" <<<"$out" || { echo "$out"; return 1; }
    "$INGOT" verify --deep "$R" >/dev/null || return 1
    "$INGOT" gc --keep 1 "$R" >/dev/null || return 1
    printf 'id\n4\n5\n' >"$R-ap.csv"
    out=$("$INGOT" import --append "$R-ap.csv" "$R" 2>&1) && return 1
    grep -q "non-nullable column 'emb' is missing" <<<"$out" || { echo "$out"; return 1; }
    "$INGOT" drop-column "$R" emb >/dev/null && "$INGOT" gc --keep 1 "$R" >/dev/null || return 1
    out=$("$INGOT" import --append --json "$R-ap.csv" "$R" 2>/dev/null | jq .released_columns)
    [ "$out" = 0 ] || { echo "released after gc: $out"; return 1; } # gc let them go already
    "$INGOT" import --append -j 2 "$R-ap.csv" "$R" >/dev/null 2>&1 || return 1
    if need_duckdb append_after_nested_non_nullable_dropped; then
        (cd "$PQ" && node --input-type=module -e "
import { DuckDBInstance } from '@duckdb/node-api';
const c = await (await DuckDBInstance.create(':memory:')).connect();
await c.run(\"COPY (SELECT 6::BIGINT AS id) TO '$R-ap.parquet' (FORMAT parquet)\");") || return 1
        "$INGOT" import --append "$R-ap.parquet" "$R" >/dev/null 2>&1 || { "$INGOT" import --append "$R-ap.parquet" "$R"; return 1; }
    fi
    out=$("$INGOT" cat --rows 0-5 "$R" | tr -d '\n')
    [ "$out" = '{"id":1}{"id":2}{"id":3}{"id":4}{"id":5}{"id":4}' ] || { echo "$out"; return 1; }
    "$INGOT" verify --deep "$R" >/dev/null || return 1
    "$INGOT" erase --where id=4 "$R" >/dev/null && "$INGOT" verify --deep "$R" >/dev/null || return 1
    "$INGOT" gc --keep 1 "$R" >/dev/null && "$INGOT" verify --deep "$R" >/dev/null
}
check append_after_nested_non_nullable_dropped append_after_nested_non_nullable_dropped

replace_and_drop() {
    "$INGOT" replace-column --name score "$T" "$WORK/score2.npy" | grep -q "version 4" || return 1
    local want
    want=$("$PY" -c "import numpy as np; print(np.load('$WORK/score2.npy')[7])")
    [ "$("$INGOT" cat --rows 8 "$T" score)" = "{\"score\":$want}" ] || return 1
    [ "$("$INGOT" cat --version 3 --rows 8 "$T" score)" = '{"score":80}' ] || return 1
    "$INGOT" add-column "$T" "$WORK/emb.npy" | grep -q "version 5" || return 1
    "$INGOT" drop-column "$T" x | grep -q "version 6" || return 1
    ! "$INGOT" cat "$T" x >/dev/null 2>&1 || return 1
    [ "$("$INGOT" cat --version 5 --rows 8 "$T" x)" = '{"x":4.0}' ] || return 1
    "$INGOT" tag "$T" before-drop 5 >/dev/null || return 1
    [ "$("$INGOT" cat --version before-drop --rows 8 "$T" x)" = '{"x":4.0}' ] || return 1
    local v
    v=$("$INGOT" versions --json "$T")
    [ "$(jq length <<<"$v")" = 6 ] || { echo "$v"; return 1; }
    [ "$(jq -r '.[4].tags[0]' <<<"$v")" = before-drop ] || { echo "$v"; return 1; }
    [ "$(jq -r '.[5].change' <<<"$v")" = "drop-column x" ] || { echo "$v"; return 1; }
    [ "$(jq -r '[.[].columns] | join(",")' <<<"$v")" = "3,3,4,4,5,4" ] || { echo "$v"; return 1; }
    "$INGOT" verify --deep "$T" >/dev/null
}
check replace_drop_tag_versions replace_and_drop

# every durable step of add-column killed in turn: the table afterwards (once a
# reader recovered it) is the old version or the new one, verifies, and holds
# no byte of an uncommitted column
crash_steps() {
    local k v out base=$WORK/crash
    for k in 1 2 3 4 5 6 7 8; do
        rm -rf "$base"; cp -r "$T" "$base"
        INGOT_FAULT_AFTER=$k "$INGOT" add-column --name late "$base" "$WORK/floats.npy" >/dev/null 2>&1
        out=$("$INGOT" verify "$base" 2>&1) || { echo "step $k: $out"; return 1; }
        v=$("$INGOT" versions --json "$base" | jq -r '.[-1].version')
        case $v in
        6) # rolled back: the part file is as it was, byte for byte
            cmp -s "$base/part-000000.ingot" "$T/part-000000.ingot" || { echo "step $k: part differs"; return 1; }
            [ ! -e "$base/.ingot/commit" ] || { echo "step $k: record left"; return 1; }
            ;;
        7) [ "$("$INGOT" cat --rows 8 "$base" late)" = '{"late":7.0}' ] || { echo "step $k: late"; return 1; } ;;
        *) echo "step $k: version $v"; return 1 ;;
        esac
    done
}
check crash_at_every_commit_step_old_or_new crash_steps

# the same for replace-column, drop-column and an erase that reaches versions 3
# to 6 (a replaced column among them): killed after each durable step, the
# table is version 6 as it was or version 7 whole, in every version
crash_op() { # NAME NEW-CHECK CMD... (@T: the table)
    local name=$1 new=$2 k v out c=$WORK/crash-op arg
    shift 2
    for k in 1 2 3 4 5 6 7 8; do
        rm -rf "$c"; cp -r "$T" "$c"
        local cmd=()
        for arg in "$@"; do [ "$arg" = @T ] && cmd+=("$c") || cmd+=("$arg"); done
        INGOT_FAULT_AFTER=$k "$INGOT" "${cmd[@]}" >/dev/null 2>&1
        out=$("$INGOT" verify --deep "$c" 2>&1) || { echo "$name step $k: $out"; return 1; }
        v=$("$INGOT" versions --json "$c" | jq -r '.[-1].version')
        case $v in
        6) [ "$("$INGOT" cat --rows 9 "$c" | md5sum)" = "$("$INGOT" cat --rows 9 "$T" | md5sum)" ] &&
               [ "$("$INGOT" cat --version 4 --rows 9 "$c" | md5sum)" = "$("$INGOT" cat --version 4 --rows 9 "$T" | md5sum)" ] ||
               { echo "$name step $k: version 6 changed"; return 1; }
           [ ! -e "$c/.ingot/commit" ] || { echo "$name step $k: record left"; return 1; } ;;
        7) $new "$c" || { echo "$name step $k: version 7 wrong"; return 1; } ;;
        *) echo "$name step $k: version $v"; return 1 ;;
        esac
    done
}
replaced() { [ "$("$INGOT" cat --rows 8 "$1" score)" = '{"score":80}' ]; }
dropped() { ! "$INGOT" cat "$1" emb >/dev/null 2>&1 && "$INGOT" cat --version 6 "$1" emb >/dev/null; }
erased_everywhere() {
    local v
    for v in 3 4 5 6 7; do ! "$INGOT" cat --version $v --rows 9 "$1" >/dev/null 2>&1 || return 1; done
}
crash_ops() {
    crash_op replace-column replaced replace-column --name score @T "$WORK/score.npy" &&
        crash_op drop-column dropped drop-column @T emb &&
        crash_op erase erased_everywhere erase --row 9 @T
}
check crash_replace_drop_erase_across_versions_old_or_new crash_ops

# an erasure reaches every version: the replaced column's old values and the
# new ones, in every file
holds_value() { # TABLE: does any file hold row 8's backfilled value's bytes?
    "$PY" - "$1" "$WORK/score2.npy" <<'PY'
import glob, sys, numpy as np
t = sys.argv[1]
needle = np.load(sys.argv[2])[7].tobytes()
for path in glob.glob(f"{t}/part-*") + glob.glob(f"{t}/.ingot/*"):
    try:
        if needle in open(path, "rb").read():
            sys.exit(0)
    except IsADirectoryError:
        pass
sys.exit(1)
PY
}

erase_all_versions() {
    local row=8
    holds_value "$T" || { echo "the value is not in the file before the erase: the check proves nothing"; return 1; }
    "$INGOT" erase --row $row "$T" >/dev/null || return 1
    "$INGOT" verify --deep "$T" >/dev/null || { "$INGOT" verify "$T"; return 1; }
    for v in 3 4 5; do
        ! "$INGOT" cat --version $v --rows $row "$T" >/dev/null 2>&1 || { echo "row $row in version $v"; return 1; }
    done
    # the backfill's value (version 4 on) is in no file any more
    ! holds_value "$T" || { echo "a file still holds row $row's backfilled value"; return 1; }
}
check erase_reaches_every_version erase_all_versions

# --- through the mount: np.save adds or replaces a column, cp replaces, rm
# drops; a bad array fails its write with EINVAL and changes nothing; a mount
# of an older version shows it as it was and takes no write
M=$WORK/m
mkdir -p "$M"
"$INGOT" mount "$T" "$M" || { fail mount_versions "mount failed"; exit 0; }

mount_writes() {
    local before
    "$PY" - "$M" <<'PY' || return 1
import numpy as np, shutil, sys, os
m = sys.argv[1]
n = len(np.load(f"{m}/columns/id.npy"))
np.save(f"{m}/columns/label.npy", np.arange(n, dtype=np.int32) % 7)       # a new column
assert (np.load(f"{m}/columns/label.npy") == np.arange(n) % 7).all()
np.save(f"{m}/columns/label.npy", np.arange(n, dtype=np.int32) % 5)       # its values replaced
assert (np.load(f"{m}/columns/label.npy") == np.arange(n) % 5).all()
np.save(f"/tmp/{os.getpid()}.npy", np.arange(n, dtype=np.int32) % 3)
shutil.copyfile(f"/tmp/{os.getpid()}.npy", f"{m}/columns/label.npy")      # cp
os.unlink(f"/tmp/{os.getpid()}.npy")
assert (np.load(f"{m}/columns/label.npy") == np.arange(n) % 3).all()
for bad in (np.arange(3, dtype=np.int32), np.arange(n, dtype=np.float64)):
    try:
        np.save(f"{m}/columns/label.npy", bad)
    except OSError as e:
        assert e.errno == 22, e
    else:
        sys.exit("a bad array was taken")
assert (np.load(f"{m}/columns/label.npy") == np.arange(n) % 3).all()
PY
    "$INGOT" versions "$T" | grep -q "add-column label" || return 1
    [ "$("$INGOT" versions --json "$T" | jq '[.[] | select(.change == "replace-column label")] | length')" = 2 ] || return 1
    before=$(jq length <<<"$("$INGOT" versions --json "$T")")
    rm "$M/columns/label" || return 1
    [ ! -e "$M/columns/label.npy" ] || return 1
    [ "$(jq length <<<"$("$INGOT" versions --json "$T")")" = $((before + 1)) ] || return 1
    ls "$T/.ingot" | grep -q stage && { echo "a staged file was left"; return 1; }
    "$INGOT" verify --deep "$T" >/dev/null
}
check mount_adds_replaces_drops_columns mount_writes

version_mount() {
    local V=$WORK/mv
    mkdir -p "$V"
    "$INGOT" mount --tag before-drop "$T" "$V" || return 1
    [ -e "$V/columns/x" ] && [ ! -e "$M/columns/x" ] || { ls "$V/columns"; fusermount3 -u "$V"; return 1; }
    [ "$(head -1 "$V/columns/x")" = 0.0 ] || { head -3 "$V/columns/x"; fusermount3 -u "$V"; return 1; }
    local out
    out=$("$PY" -c "import numpy as np; np.save('$V/columns/y.npy', np.zeros(3))" 2>&1)
    fusermount3 -u "$V"
    grep -q "Read-only file system\|Permission denied" <<<"$out" || { echo "$out"; return 1; }
}
check mount_of_a_version_reads_as_it_was version_mount

# --- versions/N/ and tags/NAME inside the mount: each version's table with
# the root's layout, read-only, read by NumPy and DuckDB; an erasure reaches
# them as it reaches the table
versions_in_mount() {
    local want got n tagged
    want=$("$INGOT" versions --json "$T" | jq -r '[.[].version] | map(tostring) | join(" ")')
    got=$(ls "$M/versions" | sort -n | tr '\n' ' ' | sed 's/ $//')
    [ "$got" = "$want" ] || { echo "versions/: '$got', ingot versions: '$want'"; return 1; }
    tagged=$("$INGOT" versions --json "$T" | jq -r '.[] | select(.tags | index("before-drop")) | .version')
    [ "$(readlink "$M/tags/before-drop")" = "../versions/$tagged" ] || { ls -l "$M/tags"; return 1; }
    # the dropped column x is in the tagged version, not in the table
    [ -e "$M/tags/before-drop/columns/x" ] && [ ! -e "$M/columns/x" ] || return 1
    [ "$(sed -n 7p "$M/tags/before-drop/columns/x")" = 3.0 ] || return 1 # row 6 (row 7 is erased)
    "$PY" - "$M/versions/$tagged" <<'PY' || return 1
import numpy as np, sys
v = sys.argv[1]
ids, x = np.load(f"{v}/columns/id.npy"), np.load(f"{v}/columns/x.npy", mmap_mode="r")
assert len(ids) == sum(1 for _ in open(f"{v}/columns/id")) and 7 not in ids, len(ids)
assert (x == ids * 0.5).all()
PY
    # the first version had no score column; its rows say so
    [ "$(jq -c 'has("score")' "$M/versions/1/rows/6")" = false ] || return 1
    [ "$(jq -c 'has("score")' "$M/rows/6")" = true ] || return 1
    if need_duckdb versions_inside_the_mount; then
        n=$(cd "$PQ" && node --input-type=module -e "
import { DuckDBInstance } from '@duckdb/node-api';
const c = await (await DuckDBInstance.create(':memory:')).connect();
const r = await c.runAndReadAll(process.argv[1]);
console.log(String(r.getRows()[0][0]));" "SELECT count(*) FROM '$M/versions/$tagged/parquet/*.parquet' WHERE x = id * 0.5") ||
            return 1
        [ "$n" = "$(wc -l <"$M/versions/$tagged/columns/id")" ] || { echo "DuckDB counted $n rows"; return 1; }
    fi
    # read-only: no erase, no column written, modes say so
    rm "$M/versions/1/rows/0" 2>/dev/null && return 1
    touch "$M/versions/1/columns/y.npy" 2>/dev/null && return 1
    [ ! -e "$M/versions/1/.ingot/erase" ] || return 1
    [ "$(stat -c %A "$M/versions/1/rows")" = dr-xr-xr-x ] || { stat -c %A "$M/versions/1/rows"; return 1; }
    [ ! -e "$M/versions/1/versions" ] || return 1
    [ ! -e "$M/versions/99999" ] || return 1
}
check versions_inside_the_mount versions_in_mount

# the row erased through the CLI and through rm is gone from versions/N/ too,
# pages the kernel cached before included (rm: by the time it returns)
erase_reaches_mounted_versions() {
    local tagged before
    tagged=$(readlink "$M/tags/before-drop" | sed 's|.*/||')
    before=$(wc -l <"$M/versions/1/columns/id")
    grep -qx n11 "$M/versions/$tagged/columns/name" && grep -qx n12 "$M/versions/1/columns/name" || return 1
    cat "$M/versions/1/rows/11" "$M/versions/$tagged/rows/12" >/dev/null || return 1
    "$INGOT" erase --row 11 "$T" >/dev/null || return 1
    for _ in $(seq 50); do
        grep -qx n11 "$M/versions/$tagged/columns/name" || break
        sleep 0.1
    done
    grep -qx n11 "$M/versions/$tagged/columns/name" && { echo "row 11 still in versions/$tagged"; return 1; }
    [ ! -e "$M/versions/1/rows/11" ] || { echo "versions/1/rows/11 still there"; return 1; }
    rm "$M/rows/12" || return 1
    # no wait: the erase answered once every version had dropped it
    [ ! -e "$M/versions/$tagged/rows/12" ] || { echo "versions/$tagged/rows/12 still there"; return 1; }
    grep -qx n12 "$M/versions/1/columns/name" && { echo "row 12 still in versions/1"; return 1; }
    "$PY" - "$M/versions/1" "$before" <<'PY'
import numpy as np, sys
ids = np.load(f"{sys.argv[1]}/columns/id.npy")
assert 11 not in ids and 12 not in ids and len(ids) == int(sys.argv[2]) - 2, len(ids)
PY
}
check erasure_reaches_versions_inside_the_mount erase_reaches_mounted_versions

# a training job reads a version (one generation at a time: the recipe of
# docs/FILESYSTEM.md) while columns are added and rows erased: every read it
# keeps shows the version's values exactly
train_on_a_version() {
    local tagged pid rc
    tagged=$(readlink "$M/tags/before-drop" | sed 's|.*/||')
    (
        for i in 1 2 3; do
            "$PY" -c "import numpy as np; np.save('$WORK/c$i.npy', np.arange($(("$INGOT" cat "$T" id | wc -l)) - $i + 1, dtype=np.int64))" 2>/dev/null
            "$INGOT" erase --row $((100 + i)) "$T" >/dev/null
            "$INGOT" add-column --name "c$i" "$T" "$WORK/c$i.npy" >/dev/null 2>&1
        done
    ) &
    pid=$!
    "$PY" - "$M/versions/$tagged" <<'PY'
import numpy as np, sys, time
v = sys.argv[1]
kept = 0
deadline = time.time() + 20
while time.time() < deadline and kept < 30:
    g = open(f"{v}/.ingot/generation").read()
    ids, x = np.load(f"{v}/columns/id.npy"), np.load(f"{v}/columns/x.npy")
    if open(f"{v}/.ingot/generation").read() != g:
        continue  # a change landed between the reads: read again
    assert len(ids) == len(x) and (x == ids * 0.5).all(), "a read mixed rows or values"
    kept += 1
assert kept >= 30, kept
PY
    rc=$?
    wait "$pid"
    return $rc
}
check training_reads_a_version_while_commits_land train_on_a_version
fusermount3 -u "$M"

# `ls -l rows/` of a table that changes: a listing's sizes are measured ahead
# of the lister, a run of 4,096 rows at a time (rowsizes.h), and only of the
# table as it is: after a column is added through the mount every row listed
# is as long as its file (longer than before), after rows are erased they are
# not listed, and listings that run while erasures land show each row whole
# or not at all (a size of an older table would show in a row read short)
listed_sizes_follow() {
    local L=$WORK/ls-t LM=$WORK/ls-m pid rc
    "$PY" -c "
import sys
with open('$WORK/ls.csv', 'w') as f:
    print('id,name', file=f)
    for i in range(10000):
        print(f'{i},n{i * 7919 % 10007}', file=f)"
    "$INGOT" import --rows-per-group 3000 "$WORK/ls.csv" "$L" >/dev/null 2>&1 || return 1
    mkdir -p "$LM"
    "$INGOT" mount "$L" "$LM" || return 1
    "$PY" - "$LM" <<'PY'
import numpy as np, os, sys, threading
m = sys.argv[1]
def listed():
    # a row erased between the listing and its stat is gone, as on any
    # file system (find(1) would exit 1 for it)
    sizes = {}
    with os.scandir(f"{m}/rows") as it:
        for e in it:
            try:
                sizes[int(e.name)] = e.stat().st_size
            except FileNotFoundError:
                pass
    return sizes
def exact(sizes, where):
    for row, size in sizes.items():
        try:
            with open(f"{m}/rows/{row}", "rb") as f:
                got = len(f.read())
        except FileNotFoundError:
            continue  # erased since it was listed
        assert got == size, (where, row, size, got)
before = listed()
assert len(before) == 10000, len(before)
exact(before, "first listing")
np.save(f"{m}/columns/label.npy", np.arange(10000, dtype=np.int64) * 1000003)
after = listed()
exact(after, "after a column was added")
assert all(after[r] > before[r] for r in before), "a row kept its old size"
gone = list(range(5, 10000, 997))
for r in gone:
    os.unlink(f"{m}/rows/{r}")
sizes = listed()
assert not set(gone) & set(sizes) and len(sizes) == 10000 - len(gone), len(sizes)
exact(sizes, "after erasures")
stop, bad = False, []
def lister():
    while not stop:
        try:
            exact(listed(), "while erasing")
        except Exception as e:
            bad.append(repr(e))
            return
t = threading.Thread(target=lister)
t.start()
for r in range(3, 10000, 1201):
    os.unlink(f"{m}/rows/{r}")
stop = True
t.join()
assert not bad, bad
PY
    rc=$?
    fusermount3 -u "$LM"
    return $rc
}
check listed_sizes_follow_each_version listed_sizes_follow

# --- appends that change the schema: an extra column is added first (the rows
# already there NULL in it), a missing nullable one is NULL in the appended
# rows, a declared type that differs is refused and nothing changes
append_evolves() {
    local A=$WORK/ap before out
    id_name_x_csv "$WORK/ap.csv" 100
    "$INGOT" import "$WORK/ap.csv" "$A" >/dev/null || return 1
    printf 'id,name,x,extra\n100,e,1.5,7\n' >"$WORK/ap2.csv"
    "$INGOT" import --append "$WORK/ap2.csv" "$A" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 0,100 "$A" extra | tr -d '\n')" = '{"extra":null}{"extra":7}' ] || return 1
    [ "$("$INGOT" versions --json "$A" | jq -r '[.[].change] | join(";")')" = \
        "import 100 rows;add-column extra;append 1 rows" ] || { "$INGOT" versions "$A"; return 1; }
    printf 'id,name\n101,m\n' >"$WORK/ap3.csv"
    "$INGOT" import --append "$WORK/ap3.csv" "$A" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 101 "$A" x extra)" = '{"x":null,"extra":null}' ] || return 1
    printf 'id int64?\nname string?\nx string?\n' >"$WORK/ap4.txt"
    printf 'id,name,x\n102,q,r\n' >"$WORK/ap4.csv"
    before=$(cd "$A" && sha256sum MANIFEST part-*)
    out=$("$INGOT" import --append --schema "$WORK/ap4.txt" "$WORK/ap4.csv" "$A" 2>&1) && return 1
    grep -q "column 'x' is float64 in the table, string here" <<<"$out" || { echo "$out"; return 1; }
    [ "$(cd "$A" && sha256sum MANIFEST part-*)" = "$before" ] || { echo "the table changed"; return 1; }
    # an append that fails after adding its new column (a bad value in its
    # second row) takes the column away again: the table shows what it did
    local rows_before
    rows_before=$("$INGOT" cat "$A" x | wc -l)
    printf 'id,name,x,late
103,a,1.0,4
not-a-number,b,2.0,5
' >"$WORK/ap5.csv"
    out=$("$INGOT" import --append "$WORK/ap5.csv" "$A" 2>&1) && return 1
    grep -q "ap5.csv:3: column 'id': invalid integer" <<<"$out" || { echo "$out"; return 1; }
    [ "$("$INGOT" cat --rows 0 "$A")" = '{"id":0,"name":"n0","x":0.0,"extra":null}' ] || { "$INGOT" cat --rows 0 "$A"; return 1; }
    [ "$("$INGOT" cat "$A" x | wc -l)" = "$rows_before" ] || return 1
    [ "$("$INGOT" versions --json "$A" | jq -r '.[-1].change')" = \
        "restore-columns 4 (the append that added them failed)" ] || { "$INGOT" versions "$A"; return 1; }
    printf 'id,name,x,late
103,a,1.0,4
' >"$WORK/ap6.csv" # fixed: appended, the column new again
    "$INGOT" import --append "$WORK/ap6.csv" "$A" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 0,102 "$A" late | tr -d '\n')" = '{"late":null}{"late":4}' ] || return 1
    "$INGOT" verify --deep "$A" >/dev/null
}
check append_adds_new_columns_and_fills_null append_evolves

# --- a column renamed: a new version, no part byte written; the old name is
# gone from it and stays in the versions before; clashes refused with the
# table unchanged; appends, erasures by value, new columns, gc and verify go
# by the new name; renaming back to the footer's name drops the name line;
# a struct's fields follow it
rename_cli() {
    local R=$WORK/rn S=$WORK/rs before parts out
    id_name_x_csv "$WORK/rn.csv" 300
    "$INGOT" import --rows-per-group 100 "$WORK/rn.csv" "$R" >/dev/null || return 1
    parts=$(cd "$R" && sha256sum part-*)
    "$INGOT" rename-column "$R" x quarter | grep -qx "renamed 'x' to 'quarter': version 2" || return 1
    [ "$(cd "$R" && sha256sum part-*)" = "$parts" ] || { echo "a part changed"; return 1; }
    [ "$(head -1 "$R/MANIFEST")" = "ingot-manifest 3" ] && grep -qx "name 2 quarter" "$R/MANIFEST" || { cat "$R/MANIFEST"; return 1; }
    [ "$("$INGOT" cat "$R" quarter | sed -n 5p)" = 2.0 ] || return 1
    out=$("$INGOT" cat "$R" x 2>&1) && return 1
    grep -q "no column 'x'" <<<"$out" || { echo "$out"; return 1; }
    [ "$("$INGOT" cat --version 1 "$R" x | sed -n 5p)" = 2.0 ] || return 1
    [ "$("$INGOT" cat --rows 4 "$R")" = '{"id":4,"name":"n4","quarter":2.0}' ] || { "$INGOT" cat --rows 4 "$R"; return 1; }
    [ "$("$INGOT" inspect --json "$R" | jq -r '[.columns[].name] | join(",")')" = id,name,quarter ] || return 1
    before=$(cd "$R" && sha256sum MANIFEST)
    out=$("$INGOT" rename-column "$R" quarter name 2>&1) && return 1
    grep -q "a column is named 'name' already" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" rename-column "$R" nope other 2>&1) && return 1
    grep -q "no column 'nope'" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" rename-column "$R" quarter quarter 2>&1) && return 1
    grep -q "has that name already" <<<"$out" || { echo "$out"; return 1; }
    [ "$(cd "$R" && sha256sum MANIFEST)" = "$before" ] || { echo "MANIFEST changed"; return 1; }
    printf 'id,name,quarter\n300,z,99.25\n' >"$WORK/rn2.csv"
    "$INGOT" import --append "$WORK/rn2.csv" "$R" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 300 "$R" quarter)" = '{"quarter":99.25}' ] || return 1
    [ "$("$INGOT" cat --version 1 "$R" x | grep -cx 2.5)" = 1 ] || return 1
    "$INGOT" erase --where quarter=2.5 "$R" >/dev/null || return 1
    [ "$("$INGOT" cat --version 1 "$R" x | grep -cx 2.5)" = 0 ] || { echo "version 1 still shows the erased value"; return 1; }
    "$INGOT" rename-column "$R" quarter x >/dev/null || return 1
    [ "$(head -1 "$R/MANIFEST")" = "ingot-manifest 2" ] && ! grep -q "^name " "$R/MANIFEST" || { cat "$R/MANIFEST"; return 1; }
    "$INGOT" rename-column --json "$R" x quarter | jq -e '.columns == 1' >/dev/null || return 1
    "$PY" -c "import numpy as np; np.save('$WORK/x.npy', np.arange(300, dtype=np.int32))"
    "$INGOT" add-column "$R" "$WORK/x.npy" >/dev/null || return 1 # the old name, a new column
    [ "$("$INGOT" cat --rows 300 "$R")" = '{"id":300,"name":"z","quarter":99.25,"x":299}' ] || { "$INGOT" cat --rows 300 "$R"; return 1; }
    out=$("$INGOT" rename-column "$R" quarter x 2>&1) && return 1
    grep -q "a column is named 'x' already" <<<"$out" || { echo "$out"; return 1; }
    "$INGOT" gc --keep 1 "$R" >/dev/null || return 1
    [ "$("$INGOT" cat "$R" quarter | sed -n 5p)" = 2.0 ] || return 1
    "$INGOT" verify --deep "$R" >/dev/null || return 1
    # a struct: its fields follow; a field alone is not renamed; a name a field has is taken
    printf '{"id":1,"p":{"x":1,"y":"a"}}\n{"id":2,"p":{"x":2,"y":"b"}}\n' >"$WORK/rs.jsonl"
    printf 'id int64\np struct<x: int64, y: string>\n' >"$WORK/rs.schema"
    "$INGOT" import --schema "$WORK/rs.schema" "$WORK/rs.jsonl" "$S" >/dev/null 2>&1 || return 1
    "$INGOT" rename-column "$S" p pos >/dev/null || return 1
    [ "$("$INGOT" cat --rows 1 "$S")" = '{"id":2,"pos":{"x":2,"y":"b"}}' ] || { "$INGOT" cat --rows 1 "$S"; return 1; }
    [ "$("$INGOT" cat --version 1 --rows 1 "$S")" = '{"id":2,"p":{"x":2,"y":"b"}}' ] || return 1
    out=$("$INGOT" rename-column "$S" pos.x z 2>&1) && return 1
    grep -q "field of a struct" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" rename-column "$S" id pos.y 2>&1) && return 1
    grep -q "a column is named 'pos.y' already" <<<"$out" || { echo "$out"; return 1; }
    # several pairs: one version, the names checked as they are after all of
    # them (a swap, the struct's fields following); clashes among the new
    # names or a column renamed twice refused with the table unchanged
    before=$(cd "$S" && sha256sum MANIFEST)
    out=$("$INGOT" rename-column "$S" id a pos a 2>&1) && return 1
    grep -q "two columns would be named 'a'" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" rename-column "$S" id a id b 2>&1) && return 1
    grep -q "column 'id' is renamed twice" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" rename-column "$S" id a pos 2>&1) && return 1
    grep -q "usage: ingot rename-column" <<<"$out" || { echo "$out"; return 1; }
    [ "$(cd "$S" && sha256sum MANIFEST)" = "$before" ] || { echo "MANIFEST changed"; return 1; }
    "$INGOT" rename-column "$S" id pos pos id --json | jq -e '.columns == 2' >/dev/null || return 1
    [ "$("$INGOT" cat --rows 1 "$S")" = '{"pos":2,"id":{"x":2,"y":"b"}}' ] || { "$INGOT" cat --rows 1 "$S"; return 1; }
    [ "$("$INGOT" cat "$S" id.y | tr '\n' ,)" = '{"y":"a"},{"y":"b"},' ] || { "$INGOT" cat "$S" id.y; return 1; }
    [ "$("$INGOT" versions --json "$S" | jq -r '.[-1].change')" = "rename-column id pos pos id" ] || return 1
    [ "$("$INGOT" cat --version 2 --rows 1 "$S")" = '{"id":2,"pos":{"x":2,"y":"b"}}' ] || return 1
    "$INGOT" verify "$S" >/dev/null
}
check rename_column_new_version_old_name_kept rename_cli

# --- mv through the mount renames (the same view: NAME.npy to NEW.npy);
# NumPy, DuckDB and rows/ID see the new name, the version before the old one; a name
# taken is EEXIST, another view EPERM, a version's mount EROFS
mount_rename() {
    local R=$WORK/rn RM=$WORK/rnm out
    mkdir -p "$RM"
    "$INGOT" mount "$R" "$RM" || return 1
    "$PY" - "$RM" <<'PY' || { fusermount3 -u "$RM"; return 1; }
import errno, numpy as np, os, sys
m = sys.argv[1]
q = np.load(f"{m}/columns/quarter.npy")
before = max(int(v) for v in os.listdir(f"{m}/versions"))
os.rename(f"{m}/columns/quarter.npy", f"{m}/columns/q4.npy")
assert (np.load(f"{m}/columns/q4.npy") == q).all()
assert not os.path.exists(f"{m}/columns/quarter.npy") and not os.path.exists(f"{m}/columns/quarter")
assert "q4" in open(f"{m}/rows/0").read()
v = f"{m}/versions/{before}/columns"
assert os.path.exists(f"{v}/quarter.npy") and not os.path.exists(f"{v}/q4"), os.listdir(v)
for src, dst, want in (("q4", "name", errno.EEXIST), ("q4.npy", "q5", errno.EPERM),
                       ("q4", "q5.npy", errno.EPERM), ("_rowid.npy", "r.npy", errno.EPERM)):
    try:
        os.rename(f"{m}/columns/{src}", f"{m}/columns/{dst}")
    except OSError as e:
        assert e.errno == want, (src, dst, e)
    else:
        sys.exit(f"{src} -> {dst} was taken")
# renameat2(RENAME_EXCHANGE): two columns swap names in one version
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
def exchange(a, b):
    if libc.renameat2(-100, f"{m}/columns/{a}".encode(), -100, f"{m}/columns/{b}".encode(), 2):
        return ctypes.get_errno()
    return 0
ids = np.load(f"{m}/columns/id.npy")
assert exchange("q4.npy", "id.npy") == 0
assert (np.load(f"{m}/columns/id.npy") == q).all() and (np.load(f"{m}/columns/q4.npy") == ids).all()
assert list(__import__("json").loads(open(f"{m}/rows/0").read()))[:3] == ["q4", "name", "id"]
assert exchange("q4", "id.npy") == errno.EPERM and exchange("q4", "nope") == errno.ENOENT
assert exchange("id", "q4") == 0  # and back
assert (np.load(f"{m}/columns/q4.npy") == q).all()
try:
    os.rename(f"{v}/quarter", f"{v}/y")
except OSError as e:
    assert e.errno in (errno.EROFS, errno.EACCES), e
else:
    sys.exit("a version's column was renamed")
os.rename(f"{m}/columns/q4", f"{m}/columns/quarter")  # the text view renames as well
assert (np.load(f"{m}/columns/quarter.npy") == q).all()
PY
    if need_duckdb mount_renames_columns; then
        out=$(cd "$PQ" && node --input-type=module -e "
import { DuckDBInstance } from '@duckdb/node-api';
const c = await (await DuckDBInstance.create(':memory:')).connect();
const r = await c.runAndReadAll(process.argv[1]);
console.log(String(r.getRows()[0][0]));" "SELECT sum(quarter) FROM '$RM/parquet/*.parquet'") || { fusermount3 -u "$RM"; return 1; }
        [ "$out" = "$("$INGOT" cat "$R" quarter | "$PY" -c 'import sys; print(sum(float(l) for l in sys.stdin))')" ] ||
            { echo "DuckDB: $out"; fusermount3 -u "$RM"; return 1; }
    fi
    fusermount3 -u "$RM"
    [ "$("$INGOT" versions --json "$R" | jq -r '.[-1].change')" = "rename-column q4 quarter" ] || return 1
    "$INGOT" verify "$R" >/dev/null
}
check mount_renames_columns mount_rename

# readers of a mount while renames land (the CLI, beside the mount): a read
# that stays within one generation finds the column under the name that
# generation gives it, with its values, every time
renames_under_readers() {
    local R=$WORK/rn RM=$WORK/rnm pid rc
    "$INGOT" mount "$R" "$RM" || return 1
    (
        for i in $(seq 10); do
            sleep 0.15
            "$INGOT" rename-column "$R" quarter q_$i >/dev/null || exit 1
            sleep 0.15
            "$INGOT" rename-column "$R" q_$i quarter >/dev/null || exit 1
        done
    ) &
    pid=$!
    "$PY" - "$RM" "$pid" <<'PY'
import errno, json, numpy as np, os, sys, time
m, renamer = sys.argv[1], int(sys.argv[2])
want = None
kept = moved = 0
seen = set()
deadline = time.time() + 60
while time.time() < deadline and (kept < 40 or os.path.exists(f"/proc/{renamer}")):
    g = open(f"{m}/.ingot/generation").read()
    try:
        names = [c["name"] for c in json.load(open(f"{m}/schema.json"))["columns"]]
        q = [n for n in names if n == "quarter" or n.startswith("q_")]
        assert len(q) == 1, names
        a = np.load(f"{m}/columns/{q[0]}.npy")
    except OSError as e:  # a new generation between schema.json and the open:
        if e.errno not in (errno.ENOENT, errno.ESTALE):  # the name gone, or the file
            raise
        moved += 1
        continue
    if open(f"{m}/.ingot/generation").read() != g:
        continue
    if want is None:
        want = a
    assert len(a) == len(want) and (a == want).all(), "a renamed column read other values"
    kept += 1
    seen.add(q[0])
assert kept >= 40 and len(seen) >= 2, (kept, sorted(seen))
PY
    rc=$?
    wait "$pid" || rc=1
    fusermount3 -u "$RM"
    [ $rc = 0 ] && "$INGOT" verify "$R" >/dev/null
}
check renames_land_under_readers renames_under_readers

# --- the columns of an older version shown again (restore-columns): a bad
# backfill and a rename undone, rows appended since kept, rows erased since
# still erased; restoring forward again; the current version, one that never
# was and one gc let go refused
restore_columns() {
    local R=$WORK/rc out
    id_name_x_csv "$WORK/rc.csv" 200
    "$INGOT" import --rows-per-group 50 "$WORK/rc.csv" "$R" >/dev/null 2>&1 || return 1
    printf 'id,name,x\n200,late,100.0\n' >"$WORK/rc2.csv"
    "$INGOT" import --append "$WORK/rc2.csv" "$R" >/dev/null 2>&1 || return 1 # version 2
    "$PY" -c "import numpy as np; np.save('$WORK/rcx.npy', np.full(201, -1.0))"
    "$INGOT" replace-column --name x "$R" "$WORK/rcx.npy" >/dev/null || return 1 # 3
    "$INGOT" rename-column "$R" name who >/dev/null || return 1                    # 4
    "$INGOT" erase --row 5 "$R" >/dev/null || return 1                             # 5
    "$INGOT" restore-columns "$R" 2 | grep -qx "columns of version 2 restored: version 6" || return 1
    [ "$("$INGOT" cat --rows 4,200 "$R" | tr -d '\n')" = '{"id":4,"name":"n4","x":2.0}{"id":200,"name":"late","x":100.0}' ] ||
        { "$INGOT" cat --rows 4,200 "$R"; return 1; }
    "$INGOT" cat --rows 5 "$R" >/dev/null 2>&1 && { echo "row 5 shows again"; return 1; }
    [ "$("$INGOT" cat "$R" x | wc -l)" = 200 ] || return 1
    [ "$("$INGOT" versions --json "$R" | jq -r '.[-1].change')" = "restore-columns 2" ] || return 1
    "$INGOT" tag "$R" backfilled 4 >/dev/null || return 1
    "$INGOT" restore-columns --json "$R" backfilled | jq -e '.version == 7' >/dev/null || return 1
    [ "$("$INGOT" cat --rows 4 "$R")" = '{"id":4,"who":"n4","x":-1.0}' ] || { "$INGOT" cat --rows 4 "$R"; return 1; }
    out=$("$INGOT" restore-columns "$R" 7 2>&1) && return 1
    grep -q "version 7 is the current one" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" restore-columns "$R" 99 2>&1) && return 1
    grep -q "no version 99" <<<"$out" || { echo "$out"; return 1; }
    "$INGOT" gc --keep 1 "$R" >/dev/null || return 1
    out=$("$INGOT" restore-columns "$R" 2 2>&1) && return 1
    grep -q "version 2 was removed by ingot gc" <<<"$out" || { echo "$out"; return 1; }
    "$INGOT" verify --deep "$R" >/dev/null
}
check restore_columns_of_an_older_version restore_columns

# --- appends to a table that changed: after a replace, a drop and a rename
# the rows go in by the version's names, the hidden records NULL (older
# versions never list the new part); a rename then a new column of the old
# name (two records of one name in the footers); a Parquet file appended by
# position; a hidden non-nullable column refused
append_after_changes() {
    local A=$WORK/aac before out
    id_name_x_csv "$WORK/aac.csv" 100
    "$INGOT" import "$WORK/aac.csv" "$A" >/dev/null 2>&1 || return 1
    "$PY" -c "import numpy as np; np.save('$WORK/aacx.npy', np.full(100, 7.0))"
    "$INGOT" replace-column --name x "$A" "$WORK/aacx.npy" >/dev/null || return 1
    "$INGOT" drop-column "$A" name >/dev/null || return 1
    "$INGOT" rename-column "$A" x y >/dev/null || return 1
    "$PY" -c "import numpy as np; np.save('$WORK/aacx.npy', np.arange(100, dtype=np.int32))"
    "$INGOT" add-column --name x "$A" "$WORK/aacx.npy" >/dev/null || return 1
    printf 'id,y,x\n100,1.5,-1\n' >"$WORK/aac2.csv"
    "$INGOT" import --append "$WORK/aac2.csv" "$A" >/dev/null 2>&1 || { "$INGOT" import --append "$WORK/aac2.csv" "$A"; return 1; }
    printf '{"id":101,"x":-2}\n' >"$WORK/aac3.jsonl"
    "$INGOT" import --append "$WORK/aac3.jsonl" "$A" >/dev/null 2>&1 || return 1
    [ "$("$INGOT" cat --rows 99-101 "$A" | tr -d '\n')" = \
        '{"id":99,"y":7.0,"x":99}{"id":100,"y":1.5,"x":-1}{"id":101,"y":null,"x":-2}' ] || { "$INGOT" cat --rows 99-101 "$A"; return 1; }
    # the import's version does not list the new parts: it reads as it was
    [ "$("$INGOT" cat --version 1 "$A" x | wc -l)" = 100 ] || return 1
    # the columns of version 1 again: the appended rows hold no name and no old x
    "$INGOT" restore-columns "$A" 1 >/dev/null || return 1
    [ "$("$INGOT" cat --rows 100 "$A")" = '{"id":100,"name":null,"x":null}' ] || { "$INGOT" cat --rows 100 "$A"; return 1; }
    "$INGOT" verify --deep "$A" >/dev/null || return 1
    # a Parquet file of the version's columns (the mount's view of a row group:
    # id, name, x as version 1 had them) appended: by name onto the shown records
    mkdir -p "$WORK/aacm"
    "$INGOT" mount "$A" "$WORK/aacm" || return 1
    cp "$WORK/aacm/parquet/0.parquet" "$WORK/aac.parquet"
    fusermount3 -u "$WORK/aacm"
    "$INGOT" import --append "$WORK/aac.parquet" "$A" >/dev/null 2>&1 || { "$INGOT" import --append "$WORK/aac.parquet" "$A"; return 1; }
    [ "$("$INGOT" cat --rows 102,201 "$A" | tr -d '\n')" = '{"id":0,"name":"n0","x":0.0}{"id":99,"name":"n99","x":49.5}' ] ||
        { "$INGOT" cat --rows 102,201 "$A"; return 1; }
    # its columns go by the version's names: renamed, the file's 'name' is a
    # new column (as a CSV header's would be), the renamed one NULL in its rows
    "$INGOT" rename-column "$A" name nm >/dev/null || return 1
    "$INGOT" import --append "$WORK/aac.parquet" "$A" >/dev/null 2>&1 || { "$INGOT" import --append "$WORK/aac.parquet" "$A"; return 1; }
    [ "$("$INGOT" cat --rows 0,202 "$A" | tr -d '\n')" = '{"id":0,"nm":"n0","x":0.0,"name":null}{"id":0,"nm":null,"x":0.0,"name":"n0"}' ] ||
        { "$INGOT" cat --rows 0,202 "$A"; return 1; }
    "$INGOT" verify --deep "$A" >/dev/null || return 1
    # a hidden column that cannot be NULL: the rows appended leave it
    # released (older versions read as they were; restoring it is refused)
    local N=$WORK/aacn
    printf 'id int64\nname string\n' >"$WORK/aacn.schema"
    "$INGOT" import --schema "$WORK/aacn.schema" "$WORK/aac.csv" "$N" >/dev/null 2>&1 && return 1 # x is not declared
    printf 'id,name\n1,a\n' >"$WORK/aacn.csv"
    "$INGOT" import --schema "$WORK/aacn.schema" "$WORK/aacn.csv" "$N" >/dev/null 2>&1 || return 1
    "$INGOT" drop-column "$N" name >/dev/null || return 1
    "$INGOT" import --append "$WORK/aacn.csv" "$N" >/dev/null 2>&1 || return 1 # a new, nullable 'name'
    [ "$("$INGOT" cat --rows 1 "$N")" = '{"id":1,"name":"a"}' ] || { "$INGOT" cat --rows 1 "$N"; return 1; }
    out=$("$INGOT" restore-columns "$N" 1 2>&1) && return 1
    grep -q "column 'name' cannot be shown again: rows appended while it was hidden" <<<"$out" || { echo "$out"; return 1; }
    [ "$("$INGOT" cat --version 1 "$N" name)" = a ] || return 1
}
check append_after_replace_drop_rename append_after_changes

# DIR TYPE: a table of two rows, id int64 and emb TYPE (a vector of 4)
vector_table() {
    printf 'id int64\nemb %s\n' "$2" >"$1.schema"
    printf '{"id":1,"emb":[1,2,3,4]}\n{"id":2,"emb":[5,6,7,8]}\n' >"$1.jsonl"
    "$INGOT" import --schema "$1.schema" "$1.jsonl" "$1" >/dev/null 2>&1
}

# --- JSON Lines appended without a schema to a table with a vector column:
# the table's fields read with its types (a vector's arrays included), a new
# scalar field added as a column first
append_jsonl_nested() {
    local V=$WORK/ve out
    vector_table "$V" "vector<float32, 4>" || return 1
    printf '{"id":3,"emb":[9,10,11,12]}\n' >"$WORK/ve2.jsonl"
    "$INGOT" import --append "$WORK/ve2.jsonl" "$V" >/dev/null 2>&1 || { "$INGOT" import --append "$WORK/ve2.jsonl" "$V"; return 1; }
    printf '{"id":4,"emb":[1,1,1,1],"label":"x"}\n' >"$WORK/ve3.jsonl"
    "$INGOT" import --append "$WORK/ve3.jsonl" "$V" >/dev/null 2>&1 || return 1
    [ "$("$INGOT" cat --rows 2,3 "$V" | tr -d '\n')" = \
        '{"id":3,"emb":[9.0,10.0,11.0,12.0],"label":null}{"id":4,"emb":[1.0,1.0,1.0,1.0],"label":"x"}' ] ||
        { "$INGOT" cat --rows 2,3 "$V"; return 1; }
    # a new field holding arrays is inferred as a list, and added first
    printf '{"id":5,"emb":[1,1,1,1],"tags":[1,2]}\n' >"$WORK/ve4.jsonl"
    "$INGOT" import --append "$WORK/ve4.jsonl" "$V" >/dev/null 2>&1 || { "$INGOT" import --append "$WORK/ve4.jsonl" "$V"; return 1; }
    [ "$("$INGOT" inspect --schema "$V" | grep '^tags')" = 'tags list<int64?>?' ] || { "$INGOT" inspect --schema "$V"; return 1; }
    [ "$("$INGOT" cat "$V" tags | tr '\n' ' ')" = 'null null null null [1,2] ' ] || { "$INGOT" cat "$V" tags; return 1; }
    "$INGOT" verify "$V" >/dev/null
}
check append_jsonl_with_a_vector_without_schema append_jsonl_nested

# --- a nullable vector column dropped, then rows appended: CSV and JSON Lines
# leave it NULL (restored, the appended rows show null there)
append_hidden_vector() {
    local V=$WORK/vh out
    vector_table "$V" "vector<float32, 4>?" || return 1
    printf 'id,x\n1,2\n' >"$WORK/vh.csv"
    "$INGOT" add-column --key id "$V" "$WORK/vh.csv" >/dev/null || return 1
    "$INGOT" drop-column "$V" emb >/dev/null || return 1
    printf 'id,x\n3,4\n' >"$WORK/vh2.csv"
    "$INGOT" import --append "$WORK/vh2.csv" "$V" >/dev/null 2>&1 || { "$INGOT" import --append "$WORK/vh2.csv" "$V"; return 1; }
    printf '{"id":4,"x":5}\n' >"$WORK/vh3.jsonl"
    "$INGOT" import --append "$WORK/vh3.jsonl" "$V" >/dev/null 2>&1 || return 1
    [ "$("$INGOT" cat --rows 2,3 "$V" | tr -d '\n')" = '{"id":3,"x":4}{"id":4,"x":5}' ] || { "$INGOT" cat --rows 2,3 "$V"; return 1; }
    "$INGOT" restore-columns "$V" 1 >/dev/null || return 1
    [ "$("$INGOT" cat --rows 1-3 "$V" | tr -d '\n')" = '{"id":2,"emb":[5.0,6.0,7.0,8.0]}{"id":3,"emb":null}{"id":4,"emb":null}' ] ||
        { "$INGOT" cat --rows 1-3 "$V"; return 1; }
    "$INGOT" verify --deep "$V" >/dev/null
}

# --- CSV appended to a table with nested columns (a struct, a list, a
# vector) it cannot give: absent, they are NULL in its rows (on one thread and
# on several); named in the header, refused; not nullable, refused
append_csv_nested() {
    local N=$WORK/cn out
    printf 'id int64\np struct<x: int64, y: string>?\ntags list<string>?\nemb vector<float32, 2>?\nlabel string?\n' >"$N.schema"
    printf '{"id":1,"p":{"x":1,"y":"a"},"tags":["u","v"],"emb":[1,2],"label":"L"}\n' >"$N.jsonl"
    "$INGOT" import --schema "$N.schema" "$N.jsonl" "$N" >/dev/null 2>&1 || return 1
    printf 'id,label\n2,M\n3,\n' >"$N.csv"
    "$INGOT" import --append "$N.csv" "$N" >/dev/null 2>&1 || { "$INGOT" import --append "$N.csv" "$N"; return 1; }
    [ "$("$INGOT" cat --rows 1,2 "$N" | tr -d '\n')" = \
        '{"id":2,"p":null,"tags":null,"emb":null,"label":"M"}{"id":3,"p":null,"tags":null,"emb":null,"label":null}' ] ||
        { "$INGOT" cat --rows 1,2 "$N"; return 1; }
    "$PY" -c "
print('id,label')
for i in range(600000): print(f'{i},l{i % 7}')" >"$N-big.csv"
    "$INGOT" import --append --threads 4 "$N-big.csv" "$N" >/dev/null 2>&1 || return 1
    [ "$("$INGOT" cat --rows 400003 "$N")" = '{"id":400000,"p":null,"tags":null,"emb":null,"label":"l6"}' ] ||
        { "$INGOT" cat --rows 400003 "$N"; return 1; }
    printf 'id,p.x\n4,5\n' >"$N-2.csv"
    out=$("$INGOT" import --append "$N-2.csv" "$N" 2>&1) && return 1
    grep -q "column 'p.x' is nested: nested columns need JSON Lines input" <<<"$out" || { echo "$out"; return 1; }
    printf 'id int64\np struct<x: int64>\n' >"$N-3.schema"
    printf 'id\n5\n' >"$N-3.csv"
    out=$("$INGOT" import --schema "$N-3.schema" "$N-3.csv" "$N-3" 2>&1) && return 1
    grep -q "non-nullable column 'p' is missing from the header" <<<"$out" || { echo "$out"; return 1; }
    "$INGOT" verify --deep "$N" >/dev/null
}
check csv_append_leaves_nested_columns_null append_csv_nested
check append_leaves_a_hidden_vector_null append_hidden_vector
