#!/usr/bin/env bash
# ingot import of Parquet files written by DuckDB (npm @duckdb/node-api, installed
# into tests/parquet/node_modules on first run): every compression DuckDB writes,
# data pages v1 and v2, dictionary on and off, one-row groups, nested lists,
# structs and maps with nulls at every level, a 100-column file. Each file's
# values are compared column by column with DuckDB's own JSON export of the same
# file imported under the same schema. Damaged, truncated and unsupported files
# give a message naming the file (and row group, column, page) and leave no table.
source "$(dirname "$0")/lib.sh"
PQ=$ROOT/tests/parquet
C=$WORK/corpus

need_duckdb parquet_corpus || exit 0
mkdir -p "$C"
check parquet_corpus node "$PQ/corpus.mjs" "$C"

# the same values as DuckDB reads them: import NAME.parquet, then DuckDB's JSON
# of it under the schema ingot chose, and compare `ingot cat` of every column
same_values() { # NAME
    local n=$1 col
    "$INGOT" import "$C/$n.parquet" "$WORK/$n" >/dev/null || return 1
    [ "$("$INGOT" inspect --json "$WORK/$n" | jq .rows)" = "$(cat "$C/$n.rows")" ] || { echo "row count differs"; return 1; }
    "$INGOT" inspect --json "$WORK/$n" | jq -r '.columns[] | select(.name | contains(".") | not) | "\"\(.name)\" \(.schema_type)"' >"$WORK/$n.schema"
    "$INGOT" import --schema "$WORK/$n.schema" "$C/$n.jsonl" "$WORK/$n.json" >/dev/null || return 1
    local cols=0
    for col in $("$INGOT" inspect --json "$WORK/$n" | jq -r '.columns[] | select(.name | contains(".") | not) | .name'); do
        cmp <("$INGOT" cat "$WORK/$n" "$col") <("$INGOT" cat "$WORK/$n.json" "$col") >/dev/null ||
            { echo "column $col differs:"; diff <("$INGOT" cat "$WORK/$n" "$col") <("$INGOT" cat "$WORK/$n.json" "$col") | head -5; return 1; }
        cols=$((cols + 1))
    done
    [ "$cols" -ge 2 ] || { echo "only $cols columns"; return 1; }
    "$INGOT" verify --deep "$WORK/$n" >/dev/null # text lengths measured = rendered
}
for n in snappy zstd gzip lz4 none v2 v2_snappy nodict v2_nodict groups tiny_groups wide; do
    check "parquet_same_values_$n" same_values "$n"
done

# each codec's library is loaded when a page first needs it: with a libsnappy
# that cannot be loaded a zstd file still imports and a snappy one fails with
# the file and the library named (no crash)
no_snappy() {
    mkdir -p "$WORK/nosnappy"
    : >"$WORK/nosnappy/libsnappy.so.1"
    LD_LIBRARY_PATH="$WORK/nosnappy" "$INGOT" import "$C/zstd.parquet" "$WORK/ns-zstd" >/dev/null || return 1
    local out rc
    out=$(LD_LIBRARY_PATH="$WORK/nosnappy" "$INGOT" import "$C/snappy.parquet" "$WORK/ns-snappy" 2>&1)
    rc=$?
    [ $rc -ne 0 ] && [ $rc -lt 124 ] || { echo "rc $rc: $out"; return 1; }
    printf '%s' "$out" | grep -q 'snappy.parquet' && printf '%s' "$out" | grep -q 'needs libsnappy.so.1' ||
        { echo "$out"; return 1; }
    [ ! -e "$WORK/ns-snappy" ] || { echo "a table was left behind"; return 1; }
}
check parquet_codec_library_missing no_snappy

# a 10,000-column file: every row as JSON (ingot cat --rows) equal to DuckDB's
# JSON of the same file, value for value
wide10k() {
    "$INGOT" import "$C/wide10k.parquet" "$WORK/wide10k" >/dev/null || return 1
    [ "$("$INGOT" inspect --columns "$WORK/wide10k" | wc -l)" = 10000 ] || return 1
    "$INGOT" cat --rows 0-99 "$WORK/wide10k" >"$WORK/wide10k.rows" || return 1
    "$PY" -c "
import json, sys
ours = [json.loads(l) for l in open(sys.argv[1])]
theirs = [json.loads(l) for l in open(sys.argv[2])]
assert len(ours) == len(theirs) == 100, (len(ours), len(theirs))
for i, (a, b) in enumerate(zip(ours, theirs)):
    assert list(a) == list(b), f'row {i}: columns differ'
    assert a == b, f'row {i}: ' + str([k for k in a if a[k] != b[k]][:3])" "$WORK/wide10k.rows" "$C/wide10k.jsonl"
}
check parquet_10000_columns wide10k

# the schema ingot derives: types, units and nesting as docs/IMPORT.md says
schema_types() {
    local want got
    want='id int64? i8 int8? i16 int16? i32 int32? i64 int64? u8 uint8? u16 uint16? u32 uint32? u64 uint64? f32 float32? f64 float64? flag bool? s string? s_len string? dec9 decimal(9, 2)? dec18 decimal(18, 4)? dec38 decimal(38, 3)? day date? ts timestamp(us)? raw binary? li list<int64?>? st struct<a:int64?, b:string?>? ll list<list<int64?>?>? lst list<struct<k:string?, v:int64?>?>? m list<struct<key:string, value:int64?>>?'
    got=$("$INGOT" inspect --json "$WORK/snappy" | jq -r '[.columns[] | select(.name | contains(".") | not) | "\(.name) \(.schema_type)"] | join(" ")')
    [ "$got" = "$want" ] || { echo "got: $got"; return 1; }
}
check parquet_schema_types schema_types

# a row group per row: as many ingot rows, in order
one_row_groups() {
    [ "$("$INGOT" cat "$WORK/tiny_groups" b | tr '\n' ' ')" = 'v0 v1 v2 v3 v4 ' ]
}
check parquet_one_row_groups one_row_groups

# the format is known by its magic without the extension; --append adds a part
magic_and_append() {
    cp "$C/zstd.parquet" "$WORK/data.bin"
    "$INGOT" import "$WORK/data.bin" "$WORK/magic" >/dev/null || return 1
    "$INGOT" import --append "$C/snappy.parquet" "$WORK/magic" >/dev/null || return 1
    [ "$("$INGOT" inspect --json "$WORK/magic" | jq .rows)" = 6000 ] || return 1
    [ "$("$INGOT" cat "$WORK/magic" id | sed -n 3001p)" = 0 ]
}
check parquet_magic_and_append magic_and_append

# a Parquet file's columns go to the table's by name, in any order (those it
# lacks NULL); one whose column has another type is refused, naming the
# column, the table unchanged
duck_copy() { # SQL: a COPY ... TO statement, run by DuckDB
    (cd "$ROOT/tests/parquet" && node --input-type=module -e "
import { DuckDBInstance } from '@duckdb/node-api';
const c = await (await DuckDBInstance.create(':memory:')).connect();
await c.run(process.argv[1]);" "$1")
}
by_name() {
    local out
    duck_copy "COPY (SELECT f64, s, id FROM read_parquet('$C/zstd.parquet') LIMIT 3) TO '$WORK/reordered.parquet' (FORMAT parquet)" || return 1
    "$INGOT" import --append "$WORK/reordered.parquet" "$WORK/magic" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 6000-6002 "$WORK/magic" id s f64 i8)" = "$("$INGOT" cat --rows 0-2 "$WORK/magic" id s f64 | jq -c '. + {i8: null}')" ] ||
        { "$INGOT" cat --rows 6000-6002 "$WORK/magic" id s f64 i8; return 1; }
    duck_copy "COPY (SELECT 'x' AS id) TO '$WORK/idstr.parquet' (FORMAT parquet)" || return 1
    out=$("$INGOT" import --append "$WORK/idstr.parquet" "$WORK/magic" 2>&1) && return 1
    grep -q "idstr.parquet.*column 'id'" <<<"$out" || { echo "$out"; return 1; }
    [ "$("$INGOT" inspect --json "$WORK/magic" | jq .rows)" = 6003 ] && [ "$("$INGOT" versions --json "$WORK/magic" | jq length)" = 3 ] || return 1
    # --schema: the file's columns by name into the schema's order; a nullable
    # column the file lacks NULL, as is a nullable struct field it lacks; a
    # column or a struct field not nullable refused
    local S=$WORK/bn
    duck_copy "COPY (SELECT (range * 1.5)::DOUBLE AS f64, 's' || range AS s, range AS id, {'a': range} AS p FROM range(3)) TO '$S.parquet' (FORMAT parquet)" || return 1
    printf 'id int64?\ns string?\nf64 float64?\np struct<a: int64?>?\nextra int64?\n' >"$S.1"
    "$INGOT" import --schema "$S.1" "$S.parquet" "$S-1" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 2 "$S-1")" = '{"id":2,"s":"s2","f64":3.0,"p":{"a":2},"extra":null}' ] || { "$INGOT" cat --rows 2 "$S-1"; return 1; }
    printf 'id int64?\ns string?\nf64 float64?\np struct<a: int64?>?\nextra int64\n' >"$S.2"
    out=$("$INGOT" import --schema "$S.2" "$S.parquet" "$S-2" 2>&1) && return 1
    grep -q "has no column 'extra', which is not nullable" <<<"$out" || { echo "$out"; return 1; }
    printf 'id int64?\ns string?\nf64 float64?\np struct<a: int64?, b: string?>?\n' >"$S.3"
    "$INGOT" import --schema "$S.3" "$S.parquet" "$S-3" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 2 "$S-3" p)" = '{"p":{"a":2,"b":null}}' ] || { "$INGOT" cat --rows 2 "$S-3" p; return 1; }
    printf 'id int64?\ns string?\nf64 float64?\np struct<a: int64?, b: string>?\n' >"$S.5"
    out=$("$INGOT" import --schema "$S.5" "$S.parquet" "$S-5" 2>&1) && return 1
    grep -q "has no field 'p.b', which is not nullable" <<<"$out" || { echo "$out"; return 1; }
    printf 'id int64?\ns string?\n' >"$S.4"
    out=$("$INGOT" import --schema "$S.4" "$S.parquet" "$S-4" 2>&1) && return 1
    grep -q "column 'f64' is not in the schema it is read with" <<<"$out" || { echo "$out"; return 1; }
    [ ! -e "$S-2" ] && [ ! -e "$S-4" ] && [ ! -e "$S-5" ]
}
check parquet_append_by_name_other_type_refused by_name

# a flat column OPTIONAL in the file (DuckDB writes every column so) goes
# into one the table does not let be NULL while it holds no NULL, and a
# REQUIRED one (the corpus's) into a nullable column; a NULL there is refused, naming the
# file, row group, column and row, the table unchanged; the same for a
# struct's fields, lists and their items
nullability_across() {
    local T=$WORK/nn out
    printf 'id int64\nx float64?\n' >"$T.schema"
    duck_copy "COPY (SELECT range AS id, (range * 0.5)::DOUBLE AS x FROM range(3)) TO '$T-1.parquet' (FORMAT parquet)" || return 1
    "$INGOT" import --schema "$T.schema" "$T-1.parquet" "$T" >/dev/null || return 1
    "$INGOT" import --append "$T-1.parquet" "$T" >/dev/null || return 1
    [ "$("$INGOT" inspect --json "$T" | jq -r '.columns[0].schema_type, .rows' | tr '\n' ,)" = "int64,6," ] || return 1
    duck_copy "COPY (SELECT CASE WHEN range = 4 THEN NULL ELSE range END AS id, 1.0::DOUBLE AS x FROM range(6)) TO '$T-2.parquet' (FORMAT parquet)" || return 1
    out=$("$INGOT" import --append "$T-2.parquet" "$T" 2>&1) && return 1
    grep -q "nn-2.parquet: row group 0, column 'id', row 4: NULL, where the table's column cannot hold one" <<<"$out" ||
        { echo "$out"; return 1; }
    [ "$("$INGOT" inspect --json "$T" | jq .rows)" = 6 ] || return 1
    (cd "$ROOT/tests/parquet" && node --input-type=module -e "
import { DuckDBInstance } from '@duckdb/node-api';
const c = await (await DuckDBInstance.create(':memory:')).connect();
await c.run('CREATE TABLE t (id BIGINT NOT NULL, x DOUBLE NOT NULL)');
await c.run('INSERT INTO t VALUES (7, 2.5)');
await c.run(\"COPY t TO '$T-3.parquet' (FORMAT parquet)\");") || return 1
    "$INGOT" import --append "$T-3.parquet" "$T" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 6 "$T")" = '{"id":7,"x":2.5}' ] || { "$INGOT" cat --rows 6 "$T"; return 1; }
    # REQUIRED columns (DuckDB writes none; the corpus has them) into nullable ones
    local R=$ROOT/tests/parquet-testing/data/datapage_v1-uncompressed-checksum.parquet
    printf 'a int32?\nb int32?\n' >"$T.r"
    "$INGOT" import --schema "$T.r" "$R" "$T-r" >/dev/null || return 1
    [ "$("$INGOT" inspect --json "$T-r" | jq -r '.columns[].schema_type' | tr '\n' ,)" = "int32?,int32?," ] || return 1
    [ "$("$INGOT" cat "$T-r" a | head -3)" = "$("$INGOT" import "$R" "$T-r2" >/dev/null 2>&1 && "$INGOT" cat "$T-r2" a | head -3)" ] || return 1
    # nested: a struct, lists and their items that cannot be NULL, from
    # DuckDB's OPTIONAL everything; a NULL item, list or field refused
    printf 's struct<a: int64, b: list<string>?>\ntags list<int64>\nll list<list<int32>?>?\n' >"$T.s"
    duck_copy "COPY (SELECT {'a': range, 'b': CASE WHEN range = 1 THEN NULL ELSE ['x', 'y'] END} AS s,
        CASE WHEN range = 0 THEN []::BIGINT[] ELSE [range, 7] END AS tags,
        CASE WHEN range = 2 THEN NULL ELSE [[1, 2], NULL, []] END AS ll FROM range(3)) TO '$T-4.parquet' (FORMAT parquet)" || return 1
    "$INGOT" import --schema "$T.s" "$T-4.parquet" "$T-s" >/dev/null || return 1
    out=$("$INGOT" cat --rows 0-2 "$T-s" | tr -d '\n')
    [ "$out" = '{"s":{"a":0,"b":["x","y"]},"tags":[],"ll":[[1,2],null,[]]}{"s":{"a":1,"b":null},"tags":[1,7],"ll":[[1,2],null,[]]}{"s":{"a":2,"b":["x","y"]},"tags":[2,7],"ll":null}' ] ||
        { echo "$out"; return 1; }
    "$INGOT" import --append "$T-4.parquet" "$T-s" >/dev/null || return 1
    "$INGOT" verify --deep "$T-s" >/dev/null || return 1
    local bad
    for bad in "{'a': NULL::BIGINT, 'b': ['x']} AS s, [1]::BIGINT[] AS tags" \
        "{'a': 1::BIGINT, 'b': ['x']} AS s, [1, NULL]::BIGINT[] AS tags" "{'a': 1::BIGINT, 'b': ['x']} AS s, NULL::BIGINT[] AS tags" \
        "NULL::STRUCT(a BIGINT, b VARCHAR[]) AS s, [1]::BIGINT[] AS tags"; do
        duck_copy "COPY (SELECT $bad, [[1]] AS ll) TO '$T-5.parquet' (FORMAT parquet)" || return 1
        out=$("$INGOT" import --append "$T-5.parquet" "$T-s" 2>&1) && { echo "taken: $bad"; return 1; }
        grep -q "nn-5.parquet: row group 0, column '.*', row 0: NULL, where the table's column cannot hold one" <<<"$out" ||
            { echo "$bad: $out"; return 1; }
    done
    [ "$("$INGOT" inspect --json "$T-s" | jq .rows)" = 6 ] || return 1
    "$INGOT" verify --deep "$T" >/dev/null
}
check parquet_nullability_of_flat_columns_across nullability_across

# windows of feature ids as DuckDB writes them (items OPTIONAL): sliding-window
# pages (format 18) where no item is NULL, level streams where one is; rows
# read back as DuckDB reads them; an erase in either kind of page verifies
optional_items_slide() {
    local T=$WORK/win out want
    duck_copy "COPY (SELECT range AS id, CASE WHEN range BETWEEN 5000 AND 5009 THEN [range, NULL]
        ELSE list_transform(range(12), x -> ((range + x) * 7919 % 1000003)::BIGINT) END AS clk
        FROM range(20000)) TO '$T.parquet' (FORMAT parquet)" || return 1
    "$INGOT" import "$T.parquet" "$T" >/dev/null || return 1
    out=$("$INGOT" inspect --json "$T" | jq -c '.columns[1] | [.schema_type, (.encodings | has("slide")), .stored_bytes < 300000]')
    [ "$out" = '["list<int64?>?",true,true]' ] || { echo "$out"; "$INGOT" inspect "$T"; return 1; }
    [ "$("$INGOT" cat --rows 5003 "$T")" = '{"id":5003,"clk":[5003,null]}' ] || { "$INGOT" cat --rows 5003 "$T"; return 1; }
    want=$(cd "$ROOT/tests/parquet" && node --input-type=module -e "
import { DuckDBInstance } from '@duckdb/node-api';
const c = await (await DuckDBInstance.create(':memory:')).connect();
const r = await c.runAndReadAll(\"SELECT sum(list_sum(clk)), count(*) FROM '$T.parquet'\");
console.log(r.getRows()[0].map(String).join(' '));") || return 1
    out=$("$INGOT" cat "$T" clk | jq -s '[(map(select(. != null) | map(. // 0) | add // 0) | add), length] | map(tostring) | join(" ")' -r)
    [ "$out" = "$want" ] || { echo "ingot $out, DuckDB $want"; return 1; }
    "$INGOT" erase --row 17 --row 5004 "$T" >/dev/null && "$INGOT" verify --deep "$T" >/dev/null
}
check parquet_optional_list_items_sliding_windows optional_items_slide

# a NULL item in one row in 20: the stretches between are too short to pay
# for pages of their own, so the column is level streams in pages of the
# usual size (cut at every NULL item: 1,868 pages, 2.2x the bytes of level
# streams forced)
frequent_null_items() {
    local T=$WORK/winnull slide levels pages
    duck_copy "COPY (SELECT range AS id, list_transform(range(12), x -> CASE WHEN x = 3 AND hash(range) % 20 = 0
        THEN NULL ELSE ((range + x) * 7919 % 1000003)::BIGINT END) AS clk FROM range(20000)) TO '$T.parquet' (FORMAT parquet)" || return 1
    "$INGOT" import "$T.parquet" "$T" >/dev/null || return 1
    printf 'id int64?\nclk list<int64?>? encoding=delta\n' >"$T.schema"
    "$INGOT" import --schema "$T.schema" "$T.parquet" "$T-lv" >/dev/null || return 1
    slide=$("$INGOT" inspect --json "$T" | jq '.columns[1].stored_bytes')
    levels=$("$INGOT" inspect --json "$T-lv" | jq '.columns[1].stored_bytes')
    pages=$("$INGOT" inspect --json "$T" | jq '.columns[1].encodings | add')
    echo "clk $slide bytes in $pages pages, level streams forced $levels"
    [ "$pages" -lt 200 ] && [ "$((slide * 4))" -le "$((levels * 5))" ] || return 1
    [ "$("$INGOT" cat "$T" clk | md5sum)" = "$("$INGOT" cat "$T-lv" clk | md5sum)" ] && "$INGOT" verify --deep "$T" >/dev/null
}
check parquet_frequent_null_items_stay_level_streams frequent_null_items

# DuckDB writes a list column's row group as one data page: 100,000 rows of
# 170 items are one page of 17 million values (a pretokenized training set of
# 100,000 rows is one of 29 million), which the reader once refused as
# "data page header is damaged"; every value reads back
one_page_lists() {
    local T=$WORK/bigpage out
    duck_copy "COPY (SELECT range AS id, list_transform(range(170), j -> ((range + j) % 7)::INTEGER) AS t
        FROM range(100000)) TO '$T.parquet' (FORMAT parquet)" || return 1
    out=$("$INGOT" import "$T.parquet" "$T" 2>&1) || { echo "$out"; return 1; }
    [ "$("$INGOT" cat --rows 99999 "$T" t | jq -c '.t | [length, .[0], .[169]]')" = '[170,4,5]' ] || return 1
    # every row's items are (id + j) % 7
    "$INGOT" cat "$T" t | "$PY" -c '
import json, sys
n = 0
for i, line in enumerate(sys.stdin):
    assert json.loads(line) == [(i + j) % 7 for j in range(170)], i
    n += 1
assert n == 100000, n'
}
check parquet_list_row_group_in_one_page one_page_lists

# an empty file: no rows, a clear message, no table
empty() {
    local out
    out=$("$INGOT" import "$C/empty.parquet" "$WORK/empty" 2>&1) && return 1
    echo "$out" | grep -q "no rows" && [ ! -e "$WORK/empty" ]
}
check parquet_empty_file empty

# brotli: read like the other codecs; LZO (the same file with its codec
# changed in the footer: path_in_schema ['a'], then codec 4 -> 3) is refused
# naming the compression and the column, and nothing is written
brotli_and_lzo() {
    local out
    "$INGOT" import "$C/brotli.parquet" "$WORK/brotli" >/dev/null || return 1
    [ "$("$INGOT" cat "$WORK/brotli" a | tr '\n' ' ')" = '0 1 2 3 4 5 6 7 8 9 ' ] || return 1
    python3 - "$C/brotli.parquet" "$WORK/lzo.parquet" <<'PY' || return 1
import sys
d = open(sys.argv[1], 'rb').read()
brotli = bytes([0x19, 0x18, 0x01, 0x61, 0x15, 0x08])  # the list ['a'], then field 4 (codec) = 4
assert d.count(brotli) == 1, 'codec not found'
open(sys.argv[2], 'wb').write(d.replace(brotli, brotli[:-1] + bytes([0x06])))
PY
    out=$("$INGOT" import "$WORK/lzo.parquet" "$WORK/lzo" 2>&1) && return 1
    echo "$out" | grep -q "lzo.parquet: row group 0, column 'a', page 0: lzo compression is not supported" || { echo "$out"; return 1; }
    [ ! -e "$WORK/lzo" ] && [ -z "$(ls -A "$WORK" | grep importing)" ]
}
check parquet_brotli_and_lzo brotli_and_lzo

# a STRING that is not UTF-8 is named (file, column, row) and nothing is
# written, also where it is not UTF-8 only on its own: row 3 ending in the
# first byte of 'é' and row 4 starting with its second are UTF-8 together
# (the import checks a group's strings together, then where each begins)
not_utf8() {
    local out how
    for how in 'pqAB/pqA\xc3/CDrs/CDrs' 'pqAB/pqA\xc3/CDrs/\xa9Drs' 'pqAB/pq\xff\x41/CDrs/CDrs'; do
        python3 - "$C/utf8.parquet" "$WORK/bad.parquet" "$how" <<'PY' || return 1
import sys
data = open(sys.argv[1], 'rb').read()
a, b, c, d = (x.encode('latin-1').decode('unicode_escape').encode('latin-1') for x in sys.argv[3].split('/'))
assert data.count(a) and data.count(c), 'strings not found'  # in the page and the statistics
open(sys.argv[2], 'wb').write(data.replace(a, b).replace(c, d))
PY
        out=$("$INGOT" import "$WORK/bad.parquet" "$WORK/bad" 2>&1) && { echo "$how: imported"; return 1; }
        echo "$out" | grep -q "bad.parquet: row group 0, column 's', row 3: a STRING that is not UTF-8" ||
            { echo "$how: $out"; return 1; }
        [ ! -e "$WORK/bad" ] || return 1
    done
    "$INGOT" import "$C/utf8.parquet" "$WORK/good" >/dev/null && [ "$("$INGOT" cat "$WORK/good" s | sed -n 4,5p | tr '\n' ' ')" = 'pqAB CDrs ' ]
}
check parquet_string_not_utf8 not_utf8

# truncated files and damaged bytes: an error naming the file, never a crash,
# never a table; a damaged page names row group, column and page
damaged() {
    local f=$C/snappy.parquet size out i rc
    size=$(stat -c %s "$f")
    for cut in 3 100 $((size / 2)) $((size - 9)) $((size - 1)); do
        head -c "$cut" "$f" >"$WORK/cut.parquet"
        out=$("$INGOT" import --format parquet "$WORK/cut.parquet" "$WORK/cut" 2>&1)
        rc=$?
        [ $rc = 2 ] || { echo "cut at $cut: exit $rc: $out"; return 1; }
        echo "$out" | grep -q "cut.parquet" || { echo "cut at $cut: $out"; return 1; }
        [ ! -e "$WORK/cut" ] || return 1
    done
    # overwrite 64 bytes in the middle of the data: a page's header or its values
    for i in 1 2 3 4 5 6 7 8; do
        cp "$f" "$WORK/bad.parquet"
        printf '\377\377\377\377\377\377\377\377%.0s' 1 2 3 4 5 6 7 8 |
            dd of="$WORK/bad.parquet" bs=1 seek=$((size * i / 20)) conv=notrunc 2>/dev/null
        out=$("$INGOT" import "$WORK/bad.parquet" "$WORK/bad" 2>&1)
        rc=$?
        [ $rc = 0 ] && { rm -rf "$WORK/bad"; continue; } # landed in slack: the values differ, that's all
        [ $rc = 2 ] || { echo "damage $i: exit $rc: $out"; return 1; }
        echo "$out" | grep -Eq "bad.parquet: row group 0, column '[^']*', (page|row) [0-9]" || { echo "damage $i: $out"; return 1; }
        [ ! -e "$WORK/bad" ] || return 1
    done
}
check parquet_damaged_files damaged
