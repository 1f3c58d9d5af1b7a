#!/usr/bin/env bash
# Columns from files whose rows name table rows by a key: add-column and
# replace-column from CSV, JSON Lines and Parquet (DuckDB's) keyed by _rowid or
# a key column, nested, vector and quantised columns through --schema, and
# `ingot update` (some rows' values, the rest kept). Bad input (keys given
# twice, keys naming no live row, live rows without a value under
# --require-all, a name that clashes, a type that changes) is refused naming
# the file and the column, with the table unchanged; a crash at every step of
# an update leaves the old version or the new one; a 1,000,000-row join stays
# within bounded memory.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

PQ=$ROOT/tests/parquet
T=$WORK/t
"$PY" - "$WORK" <<'PY'
import json, random, sys
w = sys.argv[1]
with open(f"{w}/a.csv", "w") as f:
    print("id,name,x", file=f)
    for i in range(5000):
        print(f"{i},n{i},{i * 0.5}", file=f)
# every third id, shuffled: the file's order is not the table's
ids = list(range(0, 5000, 3))
random.Random(3).shuffle(ids)
with open(f"{w}/labels.csv", "w") as f:
    print("id,label,score", file=f)
    for i in ids:
        if i != 6:  # erased below: a key naming no live row
            print(f"{i},L{i},{i * 2}", file=f)
with open(f"{w}/flags.jsonl", "w") as f:
    for i in range(10, 20):
        print(json.dumps({"_rowid": i, "flag": i % 2 == 0}), file=f)
with open(f"{w}/emb.jsonl", "w") as f:
    for i in reversed(range(5000)):
        if i != 6:
            print(json.dumps({"id": i, "emb": [i, i + 0.5, -i, 1.0]}), file=f)
with open(f"{w}/emb.schema", "w") as f:
    print("id int64\nemb vector<float32, 4> quantize=fp16", file=f)
with open(f"{w}/by_name.csv", "w") as f:
    print("name,nick", file=f)
    print("n5,five\nn4999,last", file=f)
with open(f"{w}/fix.csv", "w") as f:
    print("id,score", file=f)
    print("3,-5\n4,444\n4998,-1", file=f)
with open(f"{w}/fix_rowid.jsonl", "w") as f:
    for i in (9, 12):
        print(json.dumps({"_rowid": i, "score": 1000 + i}), file=f)
PY
"$INGOT" import --rows-per-group 1000 "$WORK/a.csv" "$T" >/dev/null 2>&1
"$INGOT" erase --row 6 "$T" >/dev/null

state() { (cd "$T" && sha256sum MANIFEST part-*); }
no_leftovers() { ! ls -A "$1/.ingot" | grep -q input; }

csv_by_id() {
    local out
    out=$("$INGOT" add-column "$T" "$WORK/labels.csv") || { echo "$out"; return 1; }
    grep -q "added 2 columns: version 3" <<<"$out" || { echo "$out"; return 1; }
    grep -q "^1666 rows matched; 3333 other live rows NULL; 0 rows" <<<"$out" || { echo "$out"; return 1; }
    # rows the file names (in another order than the table's) and rows it does not
    [ "$("$INGOT" cat --rows 0,1,3,4998,4999 "$T" label score | tr -d '\n')" = \
        '{"label":"L0","score":0}{"label":null,"score":null}{"label":"L3","score":6}{"label":"L4998","score":9996}{"label":null,"score":null}' ] ||
        { "$INGOT" cat --rows 0,1,3,4998,4999 "$T" label score; return 1; }
    # the key's values are the table's, the values the file's types
    "$INGOT" inspect --json "$T" | jq -r '.columns[] | select(.name == "score") | .schema_type' | grep -qx 'int64?' ||
        return 1
    "$INGOT" verify --deep "$T" >/dev/null || { "$INGOT" verify "$T"; return 1; }
    no_leftovers "$T"
}
check add_column_csv_keyed_by_id csv_by_id

jsonl_by_rowid() {
    "$INGOT" add-column "$T" "$WORK/flags.jsonl" | grep -q "version 4" || return 1
    [ "$("$INGOT" cat --rows 9,10,11,19,20 "$T" flag | tr -d '\n')" = \
        '{"flag":null}{"flag":true}{"flag":false}{"flag":false}{"flag":null}' ] || return 1
    # older versions do not show it
    ! "$INGOT" cat --version 3 "$T" flag >/dev/null 2>&1
}
check add_column_jsonl_keyed_by_rowid jsonl_by_rowid

string_key() {
    "$INGOT" add-column --key name "$T" "$WORK/by_name.csv" | grep -q "version 5" || return 1
    [ "$("$INGOT" cat --rows 4,5,4999 "$T" nick | tr -d '\n')" = '{"nick":null}{"nick":"five"}{"nick":"last"}' ]
}
check add_column_keyed_by_string_column string_key

parquet_nested() {
    need_duckdb add_column_parquet_nested_keyed || return 0
    local out
    # ids in reverse order, lists, structs and NULLs as DuckDB writes them;
    # id 6 is erased in the table
    (cd "$PQ" && node --input-type=module -e "
import { DuckDBInstance } from '@duckdb/node-api';
const c = await (await DuckDBInstance.create(':memory:')).connect();
await c.run(process.argv[1]);" "COPY (SELECT (4998 - i)::BIGINT AS id, [i, i + 1]::INTEGER[] AS li,
        {'a': i, 'b': 'b' || i} AS st, CASE WHEN i % 4 = 0 THEN NULL ELSE i::DOUBLE END AS d
        FROM range(0, 5000, 2) r(i)) TO '$WORK/nested.parquet' (FORMAT parquet)") || return 1
    out=$("$INGOT" add-column "$T" "$WORK/nested.parquet" 2>&1) && return 1
    grep -q "nested.parquet: 1 key names no live row of $T: 6 (--ignore-missing" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" add-column --ignore-missing "$T" "$WORK/nested.parquet") || { echo "$out"; return 1; }
    grep -q "version 6" <<<"$out" && grep -q "2499 rows matched; 2500 other live rows NULL; 1 row of the file left out" <<<"$out" ||
        { echo "$out"; return 1; }
    [ "$("$INGOT" cat --rows 0,1,4996,4998 "$T" li st d | tr -d '\n')" = \
        '{"li":[4998,4999],"st":{"a":4998,"b":"b4998"},"d":4998.0}{"li":null,"st":null,"d":null}{"li":[2,3],"st":{"a":2,"b":"b2"},"d":2.0}{"li":[0,1],"st":{"a":0,"b":"b0"},"d":null}' ] ||
        { "$INGOT" cat --rows 0,1,4996,4998 "$T" li st d; return 1; }
    "$INGOT" verify --deep "$T" >/dev/null || { "$INGOT" verify "$T"; return 1; }
}
check add_column_parquet_nested_keyed parquet_nested

vector_schema() {
    local out
    # --require-all: every live row has a value, so the vector keeps the
    # file's type (not nullable); stored as fp16
    out=$("$INGOT" add-column --schema "$WORK/emb.schema" --require-all "$T" "$WORK/emb.jsonl") || { echo "$out"; return 1; }
    [ "$("$INGOT" cat --rows 0,5,4999 "$T" emb | tr -d '\n')" = \
        '{"emb":[0.0,0.5,0.0,1.0]}{"emb":[5.0,5.5,-5.0,1.0]}{"emb":[5000.0,5000.0,-5000.0,1.0]}' ] ||
        { "$INGOT" cat --rows 0,5,4999 "$T" emb; return 1; }
    local col
    col=$("$INGOT" inspect --json "$T" | jq -c '.columns[] | select(.name == "emb")')
    [ "$(jq -r .schema_type <<<"$col")" = "vector<float32, 4>" ] || { echo "$col"; return 1; }
    # without --require-all a nullable vector: the row of the file it lacks is NULL
    head -n 100 "$WORK/emb.jsonl" >"$WORK/emb_part.jsonl"
    "$INGOT" add-column --schema "$WORK/emb.schema" --name emb2 "$T" "$WORK/emb_part.jsonl" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 0,4999 "$T" emb2 | tr -d '\n')" = '{"emb2":null}{"emb2":[5000.0,5000.0,-5000.0,1.0]}' ] ||
        { "$INGOT" cat --rows 0,4999 "$T" emb2; return 1; }
    "$INGOT" verify --deep "$T" >/dev/null || { "$INGOT" verify "$T"; return 1; }
}
check add_column_vector_quantised_schema vector_schema

# rolling windows (each row the last readings, slid on by one) added to a table
# with an erased row: their pages are sliding-window pages, and the erased
# row's place in them is erased as an erase would (it once failed: "page body
# flags 0x10 do not fit the column")
sliding_after_erase() {
    local out
    "$PY" - "$WORK/windows.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(5000):
        if i != 6:
            print(json.dumps({"id": i, "win": list(range(i, i + 24)),
                              "fwin": [x * 0.25 for x in range(i, i + 20 + i % 3)]}), file=f)
PY
    out=$("$INGOT" add-column "$T" "$WORK/windows.jsonl" 2>&1) || { echo "$out"; return 1; }
    [ "$("$INGOT" inspect --json "$T" | jq -r '.columns[] | select(.name == "win" or .name == "fwin") |
        select(.encodings | keys == ["slide"]) | .name' | wc -l)" = 2 ] || { "$INGOT" inspect "$T" | grep win; return 1; }
    [ "$("$INGOT" cat --rows 5,7,4999 "$T" fwin | tr -d '\n')" = \
        '{"fwin":[1.25,1.5,1.75,2.0,2.25,2.5,2.75,3.0,3.25,3.5,3.75,4.0,4.25,4.5,4.75,5.0,5.25,5.5,5.75,6.0,6.25,6.5]}{"fwin":[1.75,2.0,2.25,2.5,2.75,3.0,3.25,3.5,3.75,4.0,4.25,4.5,4.75,5.0,5.25,5.5,5.75,6.0,6.25,6.5,6.75]}{"fwin":[1249.75,1250.0,1250.25,1250.5,1250.75,1251.0,1251.25,1251.5,1251.75,1252.0,1252.25,1252.5,1252.75,1253.0,1253.25,1253.5,1253.75,1254.0,1254.25,1254.5,1254.75]}' ] ||
        { "$INGOT" cat --rows 5,7,4999 "$T" fwin; return 1; }
    "$INGOT" cat "$T" win | "$PY" -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin]
ids = [i for i in range(5000) if i != 6]
assert len(rows) == len(ids), len(rows)
for i, r in zip(ids, rows):
    assert r == list(range(i, i + 24)), (i, r)' || return 1
    "$INGOT" verify --deep "$T" >/dev/null || { "$INGOT" verify "$T"; return 1; }
}
check add_column_sliding_windows_after_erase sliding_after_erase

bad_input_refused() {
    local before out
    before=$(state)
    expect() { # FILE-ARGS... -- PATTERN: the command fails saying PATTERN
        local pat=${*: -1}
        out=$("$INGOT" "${@:1:$#-1}" 2>&1) && { echo "succeeded: $*"; return 1; }
        grep -qF -- "$pat" <<<"$out" || { echo "$out (wanted: $pat)"; return 1; }
    }
    printf 'id,extra\n3,a\n5,b\n3,c\n' >"$WORK/dup.csv"
    expect add-column "$T" "$WORK/dup.csv" "dup.csv: id 3 is given twice (rows 1 and 3)" || return 1
    printf 'id,extra\n3,a\n9999,b\n-4,c\n' >"$WORK/extra.csv"
    expect add-column "$T" "$WORK/extra.csv" "extra.csv: 2 keys name no live row of $T: 9999, -4" || return 1
    printf 'id,extra\n3,a\n' >"$WORK/few.csv"
    expect add-column --require-all "$T" "$WORK/few.csv" \
        "few.csv: 4998 live rows of $T have no row in it (row ids 0, 1, 2, 4, 5, ...; --require-all)" || return 1
    expect add-column "$T" "$WORK/fix.csv" "fix.csv: column 'score' exists in $T (ingot replace-column or update" ||
        return 1
    printf 'x,extra\n1,a\n' >"$WORK/nokey.csv"
    expect add-column "$T" "$WORK/nokey.csv" "nokey.csv: no _rowid column and no key: give --key COLUMN" || return 1
    printf 'extra string?\n' >"$WORK/nokey.schema"
    expect add-column --schema "$WORK/nokey.schema" "$T" "$WORK/flags.jsonl" \
        "nokey.schema declares no '_rowid': a keyed file's schema names its key too, as '_rowid int64'" || return 1
    expect add-column --key x "$T" "$WORK/nokey.csv" "$T: column 'x' is float64; a key is a column of integers or strings" ||
        return 1
    printf '{"id": "abc", "extra": 1}\n' >"$WORK/strkey.jsonl"
    expect add-column "$T" "$WORK/strkey.jsonl" "strkey.jsonl:1: column 'id'" || return 1
    printf '{"_rowid": 3, "_rowid2": 1}\n{"_rowid": 3, "_rowid2": 2}\n' >"$WORK/duprow.jsonl"
    expect add-column "$T" "$WORK/duprow.jsonl" "duprow.jsonl: row id 3 is given twice (rows 1 and 2)" || return 1
    expect update "$T" --column nosuch --from "$WORK/fix.csv" "fix.csv: no column 'nosuch' to update" || return 1
    printf 'id,label\n3,x\n' >"$WORK/newcol.csv"
    expect replace-column --name nosuch "$T" "$WORK/newcol.csv" "newcol.csv: $T has no column 'nosuch' to replace" ||
        return 1
    if need_duckdb bad_input_parquet_types; then
        (cd "$PQ" && node --input-type=module -e "
import { DuckDBInstance } from '@duckdb/node-api';
const c = await (await DuckDBInstance.create(':memory:')).connect();
await c.run(process.argv[1]);" "COPY (SELECT i::BIGINT AS id, i::DOUBLE AS score, i::VARCHAR AS sid
            FROM range(0, 10) r(i)) TO '$WORK/int32.parquet' (FORMAT parquet)") || return 1
        # a wider type than the column's (a narrower one is widened: keyed_widen)
        expect update "$T" --column score --from "$WORK/int32.parquet" \
            "int32.parquet: column 'score' is float64; $T's is int64 (the type stays: cast it where the file is written)" ||
            return 1
        expect add-column --key sid --name n2 "$T" "$WORK/int32.parquet" "no column 'sid' to match" || return 1
        expect update "$T" --column li --from "$WORK/nested.parquet" \
            "$T: column 'li' is list<int32?>; update takes flat columns" || return 1
    fi
    # a key the table holds in two live rows
    local d=$WORK/dupkeys
    printf 'k,v\n1,a\n2,b\n1,c\n' >"$WORK/dupkeys.csv"
    "$INGOT" import "$WORK/dupkeys.csv" "$d" >/dev/null 2>&1 || return 1
    printf 'k,w\n1,x\n' >"$WORK/k1.csv"
    out=$("$INGOT" add-column --key k "$d" "$WORK/k1.csv" 2>&1) && return 1
    grep -qF "$d: k 1 names rows 0 and 2 (a key names one row)" <<<"$out" || { echo "$out"; return 1; }
    [ "$(state)" = "$before" ] || { echo "the table changed"; return 1; }
    no_leftovers "$T" || { ls -A "$T/.ingot"; return 1; }
}
check bad_input_refused_table_unchanged bad_input_refused

update_rows() {
    local v out
    v=$("$INGOT" versions --json "$T" | jq -r '.[-1].version')
    out=$("$INGOT" update "$T" --column score --from "$WORK/fix.csv") || { echo "$out"; return 1; }
    grep -q "updated 1 column: version $((v + 1))" <<<"$out" || { echo "$out"; return 1; }
    grep -q "^3 rows matched; 4996 other live rows kept their values" <<<"$out" || { echo "$out"; return 1; }
    [ "$("$INGOT" cat --rows 0,3,4,4998 "$T" score | tr -d '\n')" = \
        '{"score":0}{"score":-5}{"score":444}{"score":-1}' ] || { "$INGOT" cat --rows 0,3,4,4998 "$T" score; return 1; }
    # the version before keeps the old values
    [ "$("$INGOT" cat --version "$v" --rows 0,3,4,4998 "$T" score | tr -d '\n')" = \
        '{"score":0}{"score":6}{"score":null}{"score":9996}' ] || return 1
    [ "$("$INGOT" versions --json "$T" | jq -r '.[-1].change')" = "update score" ] || return 1
    # by row id, from JSON Lines
    "$INGOT" update "$T" --column score --from "$WORK/fix_rowid.jsonl" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 3,9,12 "$T" score | tr -d '\n')" = '{"score":-5}{"score":1009}{"score":1012}' ] || return 1
    "$INGOT" verify --deep "$T" >/dev/null || { "$INGOT" verify "$T"; return 1; }
}
check update_rows_then_versions update_rows

replace_keyed() {
    local v out
    v=$("$INGOT" versions --json "$T" | jq -r '.[-1].version')
    printf 'id,new_label\n1,one\n3,three\n' >"$WORK/relabel.csv"
    out=$("$INGOT" replace-column --name label "$T" "$WORK/relabel.csv") || { echo "$out"; return 1; }
    grep -q "replaced 'label': version $((v + 1))" <<<"$out" || { echo "$out"; return 1; }
    # replaced whole: the rows the file does not name are NULL now
    [ "$("$INGOT" cat --rows 0,1,3 "$T" label | tr -d '\n')" = '{"label":null}{"label":"one"}{"label":"three"}' ] ||
        return 1
    [ "$("$INGOT" cat --version "$v" --rows 0,1,3 "$T" label | tr -d '\n')" = \
        '{"label":"L0"}{"label":null}{"label":"L3"}' ] || return 1
    [ "$("$INGOT" versions --json "$T" | jq -r '.[-1].change')" = "replace-column label" ] || return 1
    "$INGOT" verify --deep "$T" >/dev/null || { "$INGOT" verify "$T"; return 1; }
}
check replace_column_keyed replace_keyed

# Keyed Parquet files whose columns are narrower than the table's (Spark's
# int where the table has int64, float32 scores): update, replace-column and
# the key widen them into the table's types, value by value.
keyed_widen() {
    need_duckdb keyed_parquet_widens || return 0
    local d=$WORK/kw
    rm -rf "$d"
    { echo id,score,cnt; for i in $(seq 0 99); do echo "$i,$i.5,$i"; done; } >"$WORK/kw.csv"
    "$INGOT" import "$WORK/kw.csv" "$d" >/dev/null || return 1
    (cd "$PQ" && node --input-type=module -e "
import { DuckDBInstance } from '@duckdb/node-api';
const c = await (await DuckDBInstance.create(':memory:')).connect();
for (const q of process.argv.slice(1)) await c.run(q);" \
        "COPY (SELECT i::INTEGER AS id, (i * 0.25)::FLOAT AS score FROM range(10, 20) r(i)) TO '$WORK/kw-fix.parquet' (FORMAT parquet)" \
        "COPY (SELECT i::SMALLINT AS id, (i * -2)::INTEGER AS cnt FROM range(0, 100) r(i)) TO '$WORK/kw-cnt.parquet' (FORMAT parquet)" \
        "COPY (SELECT 5::INTEGER AS id, 9007199254740993::BIGINT AS score) TO '$WORK/kw-inexact.parquet' (FORMAT parquet)") || return 1
    "$INGOT" update "$d" --column score --from "$WORK/kw-fix.parquet" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 9,10,19,20 "$d" score | tr -d '\n')" = \
        '{"score":9.5}{"score":2.5}{"score":4.75}{"score":20.5}' ] || { "$INGOT" cat --rows 9,10,19,20 "$d" score; return 1; }
    "$INGOT" replace-column "$d" "$WORK/kw-cnt.parquet" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 0,7,99 "$d" cnt | tr -d '\n')" = '{"cnt":0}{"cnt":-14}{"cnt":-198}' ] || return 1
    [ "$("$INGOT" inspect --schema "$d" | tr '\n' ' ')" = 'id int64? score float64? cnt int64? ' ] ||
        { "$INGOT" inspect --schema "$d"; return 1; }
    # an int64 float64 cannot hold exactly: refused by row, nothing changes
    local v out
    v=$("$INGOT" versions --json "$d" | jq length)
    out=$("$INGOT" update "$d" --column score --from "$WORK/kw-inexact.parquet" 2>&1) && return 1
    grep -q "kw-inexact.parquet: row group 0, column 'score', row 0: a value the table's type cannot hold exactly: 9007199254740993" \
        <<<"$out" || { echo "$out"; return 1; }
    [ "$("$INGOT" versions --json "$d" | jq length)" = "$v" ] || return 1
    "$INGOT" verify "$d" >/dev/null
}
check keyed_parquet_widens keyed_widen

# every durable step of an update killed in turn: the table afterwards (once
# the next writer recovered it) is the old version or the new one, verifies,
# and the temporary table the killed run left is removed by the next run
crash_steps() {
    local k v out base=$WORK/crash v0
    v0=$("$INGOT" versions --json "$T" | jq -r '.[-1].version')
    printf 'id,score\n3,77\n' >"$WORK/crash.csv"
    for k in 1 2 3 4 5 6 7 8; do
        rm -rf "$base"; cp -r "$T" "$base"
        INGOT_FAULT_AFTER=$k "$INGOT" update "$base" --column score --from "$WORK/crash.csv" >/dev/null 2>&1
        out=$("$INGOT" verify "$base" 2>&1) || { echo "step $k: $out"; return 1; }
        v=$("$INGOT" versions --json "$base" | jq -r '.[-1].version')
        case $v in
        "$v0") [ "$("$INGOT" cat --rows 3 "$base" score)" = '{"score":-5}' ] || { echo "step $k: old"; return 1; } ;;
        $((v0 + 1))) [ "$("$INGOT" cat --rows 3 "$base" score)" = '{"score":77}' ] || { echo "step $k: new"; return 1; } ;;
        *) echo "step $k: version $v"; return 1 ;;
        esac
        # the next writer finishes or undoes the commit, and clears what was left
        "$INGOT" update "$base" --column score --from "$WORK/fix_rowid.jsonl" >/dev/null || { echo "step $k: next"; return 1; }
        [ ! -e "$base/.ingot/commit" ] || { echo "step $k: record left"; return 1; }
        no_leftovers "$base" || { echo "step $k: $(ls -A "$base/.ingot")"; return 1; }
        "$INGOT" verify --deep "$base" >/dev/null || { echo "step $k: verify"; return 1; }
    done
}
check crash_at_every_update_step_old_or_new crash_steps

# 1,000,000 rows keyed by an int64 id, the file in random order (every row
# group of it is held until the end: the worst case)
peak_mib() { # CMD...: run it; print its peak resident memory in MiB
    "$PY" -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)' "$@"
}

million() {
    local d=$WORK/m
    "$PY" - "$WORK" <<'PY'
import random, sys
w = sys.argv[1]
n = 1_000_000
with open(f"{w}/m.csv", "w") as f:
    f.write("id,v\n")
    f.writelines(f"{i * 3},{i}\n" for i in range(n))
ids = list(range(n))
random.Random(1).shuffle(ids)
with open(f"{w}/m_shuf.csv", "w") as f:
    f.write("id,score\n")
    f.writelines(f"{i * 3},{i * 7}\n" for i in ids)
PY
    "$INGOT" import "$WORK/m.csv" "$d" >/dev/null 2>&1 || return 1
    # the peak memory of add-column beyond that of importing the same file
    # (which add-column does first, into a temporary table): the join's own
    # (~55 MiB in a plain build; ASan's allocator makes it ~130)
    local base add
    base=$(peak_mib "$INGOT" import "$WORK/m_shuf.csv" "$WORK/m_import") || return 1
    add=$(peak_mib "$INGOT" add-column "$d" "$WORK/m_shuf.csv") || return 1
    echo "$((add - base)) $add $base" >"$WORK/million.rss"
    [ $((add - base)) -lt 160 ] || { echo "add-column peaks at $add MiB, import at $base MiB"; return 1; }
    [ "$("$INGOT" cat --rows 0,123456,999999 "$d" score | tr -d '\n')" = \
        '{"score":0}{"score":864192}{"score":6999993}' ] || return 1
    "$INGOT" update "$d" --column score --from "$WORK/m_shuf.csv" >/dev/null || return 1
    "$INGOT" verify "$d" >/dev/null
}
check million_rows_keyed_bounded_memory million
[ -s "$WORK/million.rss" ] && read -r extra add base <"$WORK/million.rss" &&
    echo "1,000,000 shuffled int64 rows keyed by id: add-column peaks at $add MiB, $extra MiB above importing the file ($base MiB)"
