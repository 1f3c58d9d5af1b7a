#!/usr/bin/env bash
# ingot import from standard input ("-") and from files compressed with gzip or
# zstd (spool.h): the table is the same byte for byte as from the plain file;
# concatenated members read in turn; a truncated or damaged stream, a .npy
# without a name, a format that cannot be told are refused naming the input,
# with no table made and no temporary file left (also when interrupted or
# killed); an append from a pipe.
source "$(dirname "$0")/lib.sh"
IN=$ROOT/tests/golden/inputs
export TMPDIR=$WORK/tmp # where the copies go: must be empty after every run
mkdir -p "$TMPDIR"

# every file of two tables the same (MANIFEST and versions but for their times)
same_table() {
    local a=$1 b=$2 f n=0
    for f in $(cd "$a" && find . -type f | sort); do
        case $f in
        ./MANIFEST | ./.ingot/versions/*)
            diff <(grep -v -e '^time ' -e '^end ' "$a/$f") <(grep -v -e '^time ' -e '^end ' "$b/$f") || return 1 ;;
        *) cmp "$a/$f" "$b/$f" || return 1 ;;
        esac
        n=$((n + 1))
    done
    [ "$n" -ge 2 ] && [ "$(cd "$b" && find . -type f | wc -l)" = "$n" ] || { echo "files: $n"; return 1; }
}
# each FILE (of flat.csv's rows) imported gives flat.csv's table
flat_same() {
    local f
    for f in "$@"; do
        rm -rf "$WORK/t"
        "$INGOT" import --schema "$IN/flat.txt" "$f" "$WORK/t" >/dev/null || return 1
        same_table "$WORK/plain" "$WORK/t" || { echo "$f"; return 1; }
    done
}
no_leftovers() { [ -z "$(ls -A "$TMPDIR")" ] || { echo "left in TMPDIR: $(ls -A "$TMPDIR")"; return 1; }; }

"$INGOT" import --schema "$IN/flat.txt" "$IN/flat.csv" "$WORK/plain" >/dev/null 2>&1
"$INGOT" import --schema "$IN/nested.txt" "$IN/nested.jsonl" "$WORK/nplain" >/dev/null 2>&1

compressed() {
    gzip -c "$IN/flat.csv" >"$WORK/flat.csv.gz" && zstd -q -c "$IN/flat.csv" >"$WORK/flat.csv.zst" || return 1
    # told by their first bytes, whatever the name (a gzip file named .csv)
    cp "$WORK/flat.csv.gz" "$WORK/gz-named.csv"
    flat_same "$WORK/flat.csv.gz" "$WORK/flat.csv.zst" "$WORK/gz-named.csv" || return 1
    # JSON Lines of nested records under zstd, on three threads
    zstd -q -c "$IN/nested.jsonl" >"$WORK/nested.jsonl.zst" && rm -rf "$WORK/t"
    "$INGOT" import -j 3 --schema "$IN/nested.txt" "$WORK/nested.jsonl.zst" "$WORK/t" >/dev/null || return 1
    same_table "$WORK/nplain" "$WORK/t" || return 1
    # the copy shows its progress: bytes of the compressed file, then of a pipe (no total)
    local err
    err=$(rm -rf "$WORK/t" && INGOT_TEST_PROGRESS=1 "$INGOT" import --schema "$IN/flat.txt" "$WORK/flat.csv.gz" "$WORK/t" 2>&1 >/dev/null)
    grep -q "importing $WORK/flat.csv.gz: *[0-9]*% [0-9.]* [KM]*i*B of [0-9.]* [KM]*i*B" <<<"$(tr '\r' '\n' <<<"$err")" || { echo "$err"; return 1; }
    err=$(rm -rf "$WORK/t" && cat "$WORK/flat.csv.gz" | INGOT_TEST_PROGRESS=1 "$INGOT" import --format csv --schema "$IN/flat.txt" - "$WORK/t" 2>&1 >/dev/null)
    grep -q "importing standard input: [0-9.]* [KM]*i*B, " <<<"$(tr '\r' '\n' <<<"$err")" || { echo "$err"; return 1; }
    no_leftovers
}
check compressed_inputs_give_the_same_table compressed

# A compressed input whose rows are read once is decompressed as it is read
# (a stream), not copied to disk first: no file the import writes may pass
# 3 MB (ulimit -f) while the CSV is 9 MB; the tables are those of the plain
# inputs; a row error early in a stream stops the import at once; garbage
# that parses is caught by the stream's CRC at its end.
streamed() {
    /usr/bin/python3 -c "
print('id,word,score')
for i in range(400000): print(f'{i},w{i % 50},{i % 1000 / 8}')" >"$WORK/big.csv" || return 1
    tail -n +2 "$WORK/big.csv" | head -100000 | sed 's/^/9/' | { echo id,word,score; cat; } >"$WORK/big2.csv"
    gzip -1 -c "$WORK/big.csv" >"$WORK/big.csv.gz" && zstd -q -c "$WORK/big2.csv" >"$WORK/big2.csv.zst" || return 1
    /usr/bin/python3 -c "
import json
for i in range(200000): print(json.dumps({'id': i, 'tags': ['t%d' % (i % 7)] * (i % 3), 's': {'a': i % 5}}))" |
        zstd -q -c >"$WORK/big.jsonl.zst" || return 1
    rm -rf "$WORK/bp" "$WORK/bs" "$WORK/bp2" "$WORK/bs2" "$WORK/jp" "$WORK/js"
    "$INGOT" import "$WORK/big.csv" "$WORK/bp" >/dev/null && "$INGOT" import "$WORK/big.csv" "$WORK/big2.csv" "$WORK/bp2" >/dev/null &&
        zstd -q -dc "$WORK/big.jsonl.zst" >"$WORK/big.jsonl" && "$INGOT" import "$WORK/big.jsonl" "$WORK/jp" >/dev/null || return 1
    local limited='trap "" XFSZ; ulimit -f 3000; exec "$@"'
    bash -c "$limited" _ "$INGOT" import -j 3 "$WORK/big.csv.gz" "$WORK/bs" >/dev/null || return 1
    same_table "$WORK/bp" "$WORK/bs" || return 1
    local err
    err=$(bash -c "$limited" _ env INGOT_TEST_PROGRESS=1 "$INGOT" import "$WORK/big.csv.gz" "$WORK/big2.csv.zst" "$WORK/bs2" 2>&1 >/dev/null) ||
        { echo "$err"; return 1; }
    same_table "$WORK/bp2" "$WORK/bs2" || return 1
    # the inputs' sampling shows a line of its own before the rows' (each input a head)
    grep -q "sampling the inputs for their types: 100% 2 of 2 inputs" <<<"$(tr '\r' '\n' <<<"$err")" &&
        [ "$(tr '\r' '\n' <<<"$err" | grep 'importing 2 inputs:' | tail -1 | grep -o ': *[0-9]*%')" = ': 100%' ] ||
        { echo "$err"; return 1; } # counted as the inputs lie (compressed), to the end
    bash -c "$limited" _ "$INGOT" import "$WORK/big.jsonl.zst" "$WORK/js" >/dev/null || return 1
    same_table "$WORK/jp" "$WORK/js" || return 1
    # an append streams too
    bash -c "$limited" _ "$INGOT" import --append "$WORK/big2.csv.zst" "$WORK/bs" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 400000 "$WORK/bs")" = '{"id":90,"word":"w0","score":0.0}' ] || return 1
    # a bad row early: named at once, the stream stopped (no hang), nothing written
    { head -1000 "$WORK/big.csv"; echo '5,"open'; tail -n +1001 "$WORK/big.csv"; } | gzip -1 -c >"$WORK/badrow.csv.gz"
    local out
    out=$(timeout 60 "$INGOT" import "$WORK/badrow.csv.gz" "$WORK/bad" 2>&1) && return 1
    grep -q "badrow.csv.gz:1001: " <<<"$out" && [ ! -e "$WORK/bad" ] || { echo "$out"; return 1; }
    # damage that decompresses to rows that parse: the CRC at the end stops it
    gzip -1 -c "$WORK/big.csv" >"$WORK/crc.csv.gz"
    local size
    size=$(stat -c %s "$WORK/crc.csv.gz")
    printf '\x00\x00\x00\x00' | dd of="$WORK/crc.csv.gz" bs=1 seek=$((size - 8)) conv=notrunc 2>/dev/null
    out=$("$INGOT" import "$WORK/crc.csv.gz" "$WORK/bad" 2>&1) && return 1
    grep -q "crc.csv.gz: damaged gzip data near byte" <<<"$out" && [ ! -e "$WORK/bad" ] || { echo "$out"; return 1; }
    no_leftovers
}
check compressed_inputs_stream_without_a_copy streamed

members() { # cat a.gz b.gz, and zstd frames one after another, as gzip -d and zstd -d read them
    head -41 "$IN/flat.csv" | gzip -c >"$WORK/two.csv.gz" && tail -n +42 "$IN/flat.csv" | gzip -c >>"$WORK/two.csv.gz"
    head -41 "$IN/flat.csv" | zstd -q -c >"$WORK/two.csv.zst" && tail -n +42 "$IN/flat.csv" | zstd -q -c >>"$WORK/two.csv.zst"
    flat_same "$WORK/two.csv.gz" "$WORK/two.csv.zst"
}
check concatenated_members_are_read_in_turn members

from_stdin() {
    rm -rf "$WORK/t"
    "$INGOT" import --format csv --schema "$IN/flat.txt" - "$WORK/t" <"$IN/flat.csv" >/dev/null || return 1
    same_table "$WORK/plain" "$WORK/t" || return 1
    # through a pipe, compressed: decompressed as it comes
    rm -rf "$WORK/t"
    gzip -c "$IN/flat.csv" | "$INGOT" import --format csv --schema "$IN/flat.txt" - "$WORK/t" >/dev/null || return 1
    same_table "$WORK/plain" "$WORK/t" || return 1
    # a pipe by name (process substitution), read once: its first bytes not lost
    rm -rf "$WORK/t"
    "$INGOT" import --schema "$IN/flat.txt" --format csv <(cat "$IN/flat.csv") "$WORK/t" >/dev/null || return 1
    same_table "$WORK/plain" "$WORK/t" || return 1
    rm -rf "$WORK/t"
    "$INGOT" import --schema "$IN/flat.txt" --format csv <(gzip -c "$IN/flat.csv") "$WORK/t" >/dev/null || return 1
    same_table "$WORK/plain" "$WORK/t" || return 1
    # Parquet and .npy are told by their magic
    rm -rf "$WORK/pq"
    "$INGOT" import - "$WORK/pq" <"$ROOT/tests/parquet-testing/data/alltypes_plain.parquet" >/dev/null || return 1
    [ "$("$INGOT" cat "$WORK/pq" id | tr '\n' ,)" = '4,5,6,7,2,3,0,1,' ] || { "$INGOT" cat "$WORK/pq" id; return 1; }
    # an append from a pipe continues the row ids
    printf 'id,name\n' >"$WORK/ap.csv" && printf '1,a\n2,b\n' >>"$WORK/ap.csv"
    rm -rf "$WORK/ap" && "$INGOT" import "$WORK/ap.csv" "$WORK/ap" >/dev/null 2>&1 || return 1
    printf 'id,name\n3,c\n' | "$INGOT" import --append --format csv - "$WORK/ap" >/dev/null 2>&1 || return 1
    [ "$("$INGOT" cat --rows 2 "$WORK/ap")" = '{"id":3,"name":"c"}' ] || { "$INGOT" cat --rows 0-2 "$WORK/ap"; return 1; }
    no_leftovers
}
check standard_input_imports from_stdin

npy_names() { # x.npy.gz names its column x; a .npy on standard input has no name
    "$PY" -c "import numpy as np; np.save('$WORK/emb.npy', np.arange(12, dtype=np.float32).reshape(4, 3))" || return 1
    gzip -c "$WORK/emb.npy" >"$WORK/emb.npy.gz" && rm -rf "$WORK/t"
    "$INGOT" import "$WORK/emb.npy.gz" "$WORK/t" >/dev/null 2>&1 || return 1
    [ "$("$INGOT" cat --rows 1 "$WORK/t")" = '{"emb":[3.0,4.0,5.0]}' ] || { "$INGOT" cat --rows 1 "$WORK/t"; return 1; }
    local out
    out=$("$INGOT" import - "$WORK/t2" <"$WORK/emb.npy" 2>&1) && return 1
    grep -q 'standard input: a .npy array names its column by its file name' <<<"$out" || { echo "$out"; return 1; }
    [ ! -e "$WORK/t2" ] && no_leftovers
}
check npy_named_without_compression_suffix npy_names

refused() { # a clear error naming the input; no table, nothing left behind
    local out z
    gzip -c "$IN/flat.csv" >"$WORK/f.csv.gz"
    head -c 300 "$WORK/f.csv.gz" >"$WORK/cut.csv.gz"
    zstd -q -c "$IN/flat.csv" | head -c 300 >"$WORK/cut.csv.zst"
    for z in cut.csv.gz cut.csv.zst; do
        out=$("$INGOT" import --schema "$IN/flat.txt" "$WORK/$z" "$WORK/bad" 2>&1) && return 1
        grep -q "$WORK/$z: the .* data ends early, at byte 300 (a truncated file?)" <<<"$out" || { echo "$out"; return 1; }
    done
    # a byte changed inside the deflate stream: the CRC or the stream says so
    cp "$WORK/f.csv.gz" "$WORK/dam.csv.gz"
    printf '\xff\xff\xff\xff' | dd of="$WORK/dam.csv.gz" bs=1 seek=200 conv=notrunc 2>/dev/null
    out=$("$INGOT" import --schema "$IN/flat.txt" "$WORK/dam.csv.gz" "$WORK/bad" 2>&1) && return 1
    grep -q "$WORK/dam.csv.gz: damaged gzip data near byte" <<<"$out" || { echo "$out"; return 1; }
    # bytes after a member that are not gzip
    { cat "$WORK/f.csv.gz"; printf 'junk'; } >"$WORK/tail.csv.gz"
    out=$("$INGOT" import --schema "$IN/flat.txt" "$WORK/tail.csv.gz" "$WORK/bad" 2>&1) && return 1
    grep -q "tail.csv.gz: byte [0-9]*: not gzip after the end of a gzip member" <<<"$out" || { echo "$out"; return 1; }
    # a text format from a pipe must be named
    out=$(printf 'a\n1\n' | "$INGOT" import - "$WORK/bad" 2>&1) && return 1
    grep -q 'standard input: cannot tell the format from the first bytes; pass --format' <<<"$out" || { echo "$out"; return 1; }
    # no room for the copy: the directory is named
    out=$(TMPDIR=$WORK/none "$INGOT" import --format csv - "$WORK/bad" <"$IN/flat.csv" 2>&1) && return 1
    grep -q "$WORK/none: cannot make a temporary file for the input" <<<"$out" || { echo "$out"; return 1; }
    [ ! -e "$WORK/bad" ] && no_leftovers
}
check bad_streams_are_refused_naming_the_input refused

stopped() { # interrupted while it waits on a pipe, or killed: no table, no copy left
    local pid
    sleep 3 | "$INGOT" import --format csv - "$WORK/int" >"$WORK/int.out" 2>&1 &
    pid=$!
    sleep 0.5
    kill -INT $pid || return 1
    wait $pid
    grep -q 'standard input: interrupted; nothing was written' "$WORK/int.out" || { cat "$WORK/int.out"; return 1; }
    [ ! -e "$WORK/int" ] || return 1
    { head -c 2000000 /dev/zero | tr '\0' '7' | fold -w 9 | sed 's/^/1,/'; sleep 3; } |
        "$INGOT" import --format csv - "$WORK/kill" >/dev/null 2>&1 &
    pid=$!
    sleep 1
    kill -KILL $pid || return 1
    wait $pid 2>/dev/null
    [ ! -e "$WORK/kill" ] && no_leftovers
}
check interrupted_or_killed_leaves_nothing stopped

# ---- several inputs: one table, one version ---------------------------------
head -1 "$IN/flat.csv" >"$WORK/head.csv"
{ cat "$WORK/head.csv"; sed -n 2,150p "$IN/flat.csv"; } >"$WORK/f1.csv"
{ cat "$WORK/head.csv"; sed -n 151,300p "$IN/flat.csv"; } >"$WORK/f2.csv"
{ cat "$WORK/head.csv"; sed -n '301,$p' "$IN/flat.csv"; } | gzip -c >"$WORK/f3.csv.gz"

many() { # three files (one compressed), rows in order: the same table as the whole file, on any thread count
    local j
    for j in 1 3; do
        rm -rf "$WORK/whole" "$WORK/t"
        "$INGOT" import -j $j --schema "$IN/flat.txt" --rows-per-group 37 "$IN/flat.csv" "$WORK/whole" >/dev/null 2>&1 || return 1
        "$INGOT" import -j $j --schema "$IN/flat.txt" --rows-per-group 37 "$WORK/f1.csv" "$WORK/f2.csv" \
            "$WORK/f3.csv.gz" "$WORK/t" >/dev/null 2>&1 || return 1
        same_table "$WORK/whole" "$WORK/t" || { echo "-j $j"; return 1; }
    done
    [ "$("$INGOT" versions --json "$WORK/t" | jq length)" = 1 ] || return 1
    # a directory: its files whose names show a format, in name order (not README.md, not .hidden.csv)
    mkdir -p "$WORK/shards" && cp "$WORK/f1.csv" "$WORK/shards/part-00.csv" && cp "$WORK/f2.csv" "$WORK/shards/part-01.csv"
    cp "$WORK/f3.csv.gz" "$WORK/shards/part-02.csv.gz" && echo notes >"$WORK/shards/README.md" && cp "$WORK/f1.csv" "$WORK/shards/.hidden.csv"
    rm -rf "$WORK/t"
    "$INGOT" import -j 1 --schema "$IN/flat.txt" --rows-per-group 37 "$WORK/shards" "$WORK/t" >/dev/null 2>&1 || return 1
    same_table "$WORK/whole" "$WORK/t" || return 1
    # an append of two inputs: one version more, ids continue
    "$INGOT" import --append "$WORK/f1.csv" "$WORK/f2.csv" "$WORK/t" >/dev/null 2>&1 || return 1
    [ "$("$INGOT" versions --json "$WORK/t" | jq length)" = 2 ] || { "$INGOT" versions "$WORK/t"; return 1; }
    [ "$("$INGOT" inspect --json "$WORK/t" | jq .rows)" = 699 ] || { "$INGOT" inspect "$WORK/t" | head -3; return 1; }
    "$INGOT" verify "$WORK/t" >/dev/null && no_leftovers
}
check several_inputs_make_one_table many

many_blobs() { # blob paths relative to each input's own directory
    mkdir -p "$WORK/ba/blobs" "$WORK/bb/blobs"
    head -6 "$IN/blob.jsonl" >"$WORK/ba/a.jsonl" && tail -n +7 "$IN/blob.jsonl" >"$WORK/bb/b.jsonl"
    local i
    for i in 0 1 2 3 4 5; do cp "$IN/blobs/$i.bin" "$WORK/ba/blobs/"; done
    for i in 6 7 8 9 10 11; do cp "$IN/blobs/$i.bin" "$WORK/bb/blobs/"; done
    rm -rf "$WORK/bw" "$WORK/bt"
    (cd "$IN" && "$INGOT" import --schema blob.txt blob.jsonl "$WORK/bw" >/dev/null 2>&1) || return 1
    "$INGOT" import --schema "$IN/blob.txt" "$WORK/ba/a.jsonl" "$WORK/bb/b.jsonl" "$WORK/bt" >/dev/null || return 1
    same_table "$WORK/bw" "$WORK/bt"
}
check several_inputs_blobs_relative_to_each many_blobs

many_parquet() { # shards as DuckDB writes them; a shard of another type is refused by name
    need_duckdb several_inputs_parquet || return 0
    (cd "$ROOT/tests/parquet" && node --input-type=module -e "
import { DuckDBInstance } from '@duckdb/node-api';
const c = await (await DuckDBInstance.create(':memory:')).connect();
for (let k = 0; k < 3; k++)
  await c.run(\`COPY (SELECT i::BIGINT AS id, 'r' || i AS name, [i, i + 1] AS l FROM range(\${k * 1000}, \${k * 1000 + 1000}) t(i))
               TO '$WORK/pq-\${k}.parquet' (FORMAT parquet)\`);
await c.run(\"COPY (SELECT 'x' AS id, 'x' AS name, [1::BIGINT] AS l) TO '$WORK/pq-odd.parquet' (FORMAT parquet)\");
await c.run(\"COPY (SELECT 'z' AS name, 7::BIGINT AS id, 0.5::DOUBLE AS score) TO '$WORK/pq-new.parquet' (FORMAT parquet)\");") || return 1
    rm -rf "$WORK/pqt"
    "$INGOT" import "$WORK/pq-0.parquet" "$WORK/pq-1.parquet" "$WORK/pq-2.parquet" "$WORK/pqt" >/dev/null 2>&1 || return 1
    [ "$("$INGOT" cat --rows 1999 "$WORK/pqt")" = '{"id":1999,"name":"r1999","l":[1999,2000]}' ] || { "$INGOT" cat --rows 1999 "$WORK/pqt"; return 1; }
    [ "$("$INGOT" cat "$WORK/pqt" id | awk '$1 != NR - 1' | wc -l)" = 0 ] || return 1
    local out
    out=$("$INGOT" import "$WORK/pq-0.parquet" "$WORK/pq-odd.parquet" "$WORK/pqbad" 2>&1) && return 1
    grep -q "pq-odd.parquet: column 'id' holds string?, where .*pq-0.parquet has int64?: no type holds the values of both" <<<"$out" && [ ! -e "$WORK/pqbad" ] || { echo "$out"; return 1; }
    # columns by name: a shard without l, with a new score, in another order
    rm -rf "$WORK/pqu"
    "$INGOT" import "$WORK/pq-0.parquet" "$WORK/pq-new.parquet" "$WORK/pqu" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 999,1000 "$WORK/pqu" | tr '\n' ' ')" = \
        '{"id":999,"name":"r999","l":[999,1000],"score":null} {"id":7,"name":"z","l":null,"score":0.5} ' ] \
        || { "$INGOT" cat --rows 999,1000 "$WORK/pqu"; return 1; }
    "$INGOT" import --append "$WORK/pq-1.parquet" "$WORK/pq-new.parquet" "$WORK/pqt" >/dev/null || return 1
    [ "$("$INGOT" inspect --schema "$WORK/pqt" | tr '\n' ' ')" = 'id int64? name string? l list<int64?>? score float64? ' ] \
        || { "$INGOT" inspect --schema "$WORK/pqt"; return 1; }
}
check several_inputs_parquet many_parquet

# Shards that give a column in two types (Spark's int and bigint, pandas's
# int64 and float64, timestamps in ms and in us): the type that holds both,
# every value as DuckDB's union_by_name reads it; a value the wider type
# cannot hold exactly refused by row, nothing written; appends widen a
# narrower column into the table's and refuse a wider one.
widened_parquet() {
    need_duckdb parquet_shards_widen || return 0
    (cd "$ROOT/tests/parquet" && node --input-type=module -e "
import { DuckDBInstance } from '@duckdb/node-api';
const c = await (await DuckDBInstance.create(':memory:')).connect();
await c.run(\`COPY (SELECT i::INTEGER AS a, (i * 7 - 3000)::BIGINT AS b, (i - 500)::SMALLINT AS f,
                     make_timestamp(i * 1000037)::TIMESTAMP_MS AS t, (i / 7)::DECIMAL(9, 2) AS d,
                     (i * 4000000)::UINTEGER AS u, CASE WHEN i % 9 = 0 THEN NULL ELSE i END::INTEGER AS n
              FROM range(1000) r(i)) TO '$WORK/w1.parquet' (FORMAT parquet)\`);
await c.run(\`COPY (SELECT i::BIGINT AS a, (i + 0.5)::DOUBLE AS b, (i * 0.25)::FLOAT AS f,
                     make_timestamp(i * 1000037) AS t, (i / 13)::DECIMAL(12, 4) AS d, (-i)::INTEGER AS u,
                     (i * 1.5)::DOUBLE AS n
              FROM range(1000, 2500) r(i)) TO '$WORK/w2.parquet' (FORMAT parquet)\`);
await c.run(\`COPY (SELECT a, b, f, epoch_us(t) AS t, d::VARCHAR AS d, u, n
              FROM read_parquet(['$WORK/w1.parquet', '$WORK/w2.parquet'], union_by_name = true))
              TO '$WORK/w-duck.csv' (HEADER false)\`);
await c.run(\"COPY (SELECT 9007199254740993::BIGINT AS b FROM range(3)) TO '$WORK/w-inexact.parquet' (FORMAT parquet)\");
await c.run(\"COPY (SELECT '3000-01-01'::TIMESTAMP_S AS t) TO '$WORK/w-far.parquet' (FORMAT parquet)\");
await c.run(\"COPY (SELECT '2026-12-01 10:00:00.123456789'::TIMESTAMP_NS AS t) TO '$WORK/w-ns.parquet' (FORMAT parquet)\");
await c.run(\"COPY (SELECT 5::INTEGER AS a) TO '$WORK/w-narrow.parquet' (FORMAT parquet)\");
await c.run(\"COPY (SELECT i::INTEGER AS id, [i::INTEGER, -i::INTEGER] AS l, {'a': i::SMALLINT, 'b': [1.5::FLOAT]} AS st FROM range(3) r(i)) TO '$WORK/w-n1.parquet' (FORMAT parquet)\");
await c.run(\"COPY (SELECT i::BIGINT AS id, [i * 4000000000] AS l, {'a': i::INTEGER, 'b': [0.1::DOUBLE]} AS st FROM range(3, 5) r(i)) TO '$WORK/w-n2.parquet' (FORMAT parquet)\");
await c.run(\"COPY (SELECT 9::BIGINT AS id, ['x'] AS l FROM range(1)) TO '$WORK/w-n3.parquet' (FORMAT parquet)\");
await c.run(\"COPY (SELECT '2026-12-06'::DATE AS d) TO '$WORK/w-d1.parquet' (FORMAT parquet)\");
await c.run(\"COPY (SELECT '2026-12-07 10:30:00.25'::TIMESTAMP AS d) TO '$WORK/w-d2.parquet' (FORMAT parquet)\");
await c.run(\"COPY (SELECT 5::BIGINT AS a) TO '$WORK/w-wide.parquet' (FORMAT parquet)\");
") || return 1
    rm -rf "$WORK/wt" "$WORK/wbad" "$WORK/wn"
    "$INGOT" import "$WORK/w1.parquet" "$WORK/w2.parquet" "$WORK/wt" >/dev/null || return 1
    [ "$("$INGOT" inspect --schema "$WORK/wt" | tr '\n' ' ')" = \
        'a int64? b float64? f float32? t timestamp(us)? d decimal(12, 4)? u int64? n float64? ' ] \
        || { "$INGOT" inspect --schema "$WORK/wt"; return 1; }
    local c
    for c in a b f t d u n; do "$INGOT" cat "$WORK/wt" $c >"$WORK/w-$c.txt" || return 1; done
    /usr/bin/python3 - "$WORK" <<'PY' || return 1
import csv, sys, datetime, decimal
w = sys.argv[1]
cols = {c: open(f"{w}/w-{c}.txt").read().split("\n")[:-1] for c in "abftdun"}
rows = list(csv.reader(open(f"{w}/w-duck.csv")))
assert len(rows) == 2500 and all(len(cols[c]) == 2500 for c in cols), (len(rows), {c: len(cols[c]) for c in cols})
epoch = datetime.datetime(1970, 1, 1)
def us(s):
    d = datetime.datetime.fromisoformat(s) - epoch
    return (d.days * 86400 + d.seconds) * 1000000 + d.microseconds
for i, r in enumerate(rows):
    for k, c in enumerate("abftdun"):
        mine, duck = cols[c][i], r[k]
        if duck == "" or mine == "\\N":  # NULL
            assert duck == "" and mine == "\\N", (i, c, mine, duck)
        elif c == "t":
            assert us(mine) == int(duck), (i, c, mine, duck)
        elif c == "d":
            assert decimal.Decimal(mine) == decimal.Decimal(duck), (i, c, mine, duck)
        else:
            assert float(mine) == float(duck), (i, c, mine, duck)
PY
    local out
    out=$("$INGOT" import "$WORK/w1.parquet" "$WORK/w2.parquet" "$WORK/w-inexact.parquet" "$WORK/wbad" 2>&1) && return 1
    grep -q "w-inexact.parquet: row group 0, column 'b', row 0: a value the table's type cannot hold exactly: 9007199254740993" \
        <<<"$out" && [ ! -e "$WORK/wbad" ] || { echo "$out"; return 1; }
    # seconds into nanoseconds: the year 3000 is past the year 2262, where they end
    out=$("$INGOT" import "$WORK/w-ns.parquet" "$WORK/w-far.parquet" "$WORK/wbad" 2>&1) && return 1
    grep -q "w-far.parquet: row group 0, column 't', row 0: a value the table's type cannot hold exactly" <<<"$out" \
        && [ ! -e "$WORK/wbad" ] || { echo "$out"; return 1; }
    "$INGOT" import "$WORK/w1.parquet" "$WORK/wn" >/dev/null || return 1
    "$INGOT" import --append "$WORK/w2.parquet" "$WORK/wn" 2>"$WORK/w.err" && return 1
    grep -q "w2.parquet: column 'a' is int32 in the table, int64 here: a column keeps its type" "$WORK/w.err" \
        || { cat "$WORK/w.err"; return 1; }
    "$INGOT" import --append "$WORK/w-wide.parquet" "$WORK/wn" 2>/dev/null && return 1
    [ "$("$INGOT" inspect --json "$WORK/wn" | jq .rows)" = 1000 ] || return 1
    "$INGOT" import --append "$WORK/w1.parquet" "$WORK/w-narrow.parquet" "$WORK/wt" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 3499,3500 "$WORK/wt" a t | tr '\n' ' ')" = \
        '{"a":999,"t":"1970-01-01T00:16:39.037000"} {"a":5,"t":null} ' ] \
        || { "$INGOT" cat --rows 3499,3500 "$WORK/wt" a t; return 1; }
    "$INGOT" verify "$WORK/wt" >/dev/null || return 1
    # leaves inside lists and structs widen too; a list of strings does not
    rm -rf "$WORK/wl"
    "$INGOT" import "$WORK/w-n1.parquet" "$WORK/w-n2.parquet" "$WORK/wl" >/dev/null || return 1
    [ "$("$INGOT" inspect --schema "$WORK/wl" | tr '\n' ' ')" = \
        'id int64? l list<int64?>? st struct<a:int32?, b:list<float64?>?>? ' ] || { "$INGOT" inspect --schema "$WORK/wl"; return 1; }
    [ "$("$INGOT" cat --rows 2,4 "$WORK/wl" | tr '\n' ' ')" = \
        '{"id":2,"l":[2,-2],"st":{"a":2,"b":[1.5]}} {"id":4,"l":[16000000000],"st":{"a":4,"b":[0.1]}} ' ] ||
        { "$INGOT" cat --rows 2,4 "$WORK/wl"; return 1; }
    # a date and a timestamp: the timestamp, the date at its midnight (as DuckDB's union_by_name)
    rm -rf "$WORK/wd"
    "$INGOT" import "$WORK/w-d1.parquet" "$WORK/w-d2.parquet" "$WORK/wd" >/dev/null || return 1
    [ "$("$INGOT" cat "$WORK/wd" d | tr '\n' ' ')" = '2026-12-06T00:00:00.000000 2026-12-07T10:30:00.250000 ' ] ||
        { "$INGOT" cat "$WORK/wd" d; return 1; }
    # and an append of the narrower file into the wider table
    rm -rf "$WORK/wla"
    "$INGOT" import "$WORK/w-n2.parquet" "$WORK/wla" >/dev/null && "$INGOT" import --append "$WORK/w-n1.parquet" "$WORK/wla" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 4 "$WORK/wla")" = '{"id":2,"l":[2,-2],"st":{"a":2,"b":[1.5]}}' ] || { "$INGOT" cat --rows 4 "$WORK/wla"; return 1; }
    out=$("$INGOT" import "$WORK/w-n1.parquet" "$WORK/w-n3.parquet" "$WORK/wbad" 2>&1) && return 1
    grep -q "w-n3.parquet: column 'l' holds list<string?>?, where .*w-n1.parquet has list<int32?>?: no type holds" \
        <<<"$out" && [ ! -e "$WORK/wbad" ] || { echo "$out"; return 1; }
}
check parquet_shards_widen widened_parquet

# Shards whose structs gain and lose fields (a field one shard adds, one it
# no longer writes, at any depth, inside lists): fields united by name, each
# row as DuckDB's union_by_name reads it, in either order of the shards, with
# NULLs and empty lists at every level; an append of a shard that lacks
# fields of the table's struct, and one that adds a field refused.
struct_fields() {
    need_duckdb parquet_shards_struct_fields || return 0
    (cd "$ROOT/tests/parquet" && node --input-type=module -e "
import { DuckDBInstance } from '@duckdb/node-api';
const W = '$WORK';
const c = await (await DuckDBInstance.create(':memory:')).connect();
const nul = (p, e) => \`CASE WHEN random() < \${p} THEN NULL ELSE \${e} END\`;
const lst = (e) => \`CASE WHEN random() < 0.15 THEN NULL WHEN random() < 0.2 THEN [] ELSE list_transform(range((random() * 4)::INT), j -> \${e}) END\`;
await c.run('SELECT setseed(0.42)');
await c.run(\`COPY (SELECT i::INTEGER AS id,
  \${nul(0.1, \`{'a': \${nul(0.2, 'i::INTEGER')}, 'b': \${lst(nul(0.2, '(i * j)::INTEGER'))}, 'inner': \${nul(0.2, \`{'p': \${nul(0.2, 'i::INTEGER')}, 'q': \${lst(nul(0.2, \"'q' || j\"))}}\`)}}\`)} AS st,
  \${lst(nul(0.2, \`{'x': \${nul(0.2, 'j::INTEGER')}, 'y': \${lst(nul(0.1, '(j + i)::INTEGER'))}, 'w': \${nul(0.3, \`{'u': \${nul(0.3, 'i::INTEGER')}}\`)}}\`))} AS ls
  FROM range(3000) r(i)) TO '\${W}/sf1.parquet' (FORMAT parquet, ROW_GROUP_SIZE 1000)\`);
await c.run(\`COPY (SELECT i::BIGINT AS id,
  \${nul(0.1, \`{'inner': \${nul(0.2, \`{'r': \${nul(0.2, \"'r' || i\")}, 'p': \${nul(0.2, 'i::INTEGER')}}\`)}, 'a': \${nul(0.2, 'i::INTEGER')}}\`)} AS st,
  \${lst(nul(0.2, \`{'y': \${lst(nul(0.1, '(j - i)::INTEGER'))}, 'x': \${nul(0.2, 'j::INTEGER')}}\`))} AS ls
  FROM range(3000, 5000) r(i)) TO '\${W}/sf2.parquet' (FORMAT parquet, ROW_GROUP_SIZE 700)\`);
for (const [name, files] of [['12', ['sf1.parquet', 'sf2.parquet']], ['21', ['sf2.parquet', 'sf1.parquet']]])
  await c.run(\`COPY (SELECT * FROM read_parquet([\${files.map(f => \"'\" + W + '/' + f + \"'\").join(', ')}], union_by_name = true))
                TO '\${W}/sf-duck\${name}.json' (FORMAT json)\`);
await c.run(\`COPY (SELECT 7::INTEGER AS id, {'a': 7, 'inner': {'p': 8}} AS st FROM range(2)) TO '\${W}/sf-less.parquet' (FORMAT parquet)\`);
await c.run(\`COPY (SELECT 9::INTEGER AS id, {'a': 9, 'more': 1} AS st) TO '\${W}/sf-more.parquet' (FORMAT parquet)\`);
") || return 1
    local order
    for order in 12 21; do
        rm -rf "$WORK/sf"
        if [ $order = 12 ]; then
            "$INGOT" import "$WORK/sf1.parquet" "$WORK/sf2.parquet" "$WORK/sf" >/dev/null || return 1
        else
            "$INGOT" import "$WORK/sf2.parquet" "$WORK/sf1.parquet" "$WORK/sf" >/dev/null || return 1
        fi
        "$INGOT" cat --rows 0-4999 "$WORK/sf" >"$WORK/sf-mine$order.json" || return 1
        /usr/bin/python3 - "$WORK/sf-mine$order.json" "$WORK/sf-duck$order.json" <<'PY' || return 1
import json, sys
mine = sorted((json.loads(l) for l in open(sys.argv[1])), key=lambda r: r["id"])
duck = sorted((json.loads(l) for l in open(sys.argv[2])), key=lambda r: r["id"])
assert len(mine) == len(duck) == 5000, (len(mine), len(duck))
for a, b in zip(mine, duck):
    assert a == b, (a, b)
# the case this is about: rows of each shard with a field the other added
assert any(r["st"] and r["st"]["inner"] and r["st"]["inner"]["q"] for r in mine)
assert any(r["st"] and r["st"]["inner"] and r["st"]["inner"]["r"] for r in mine)
assert any(r["ls"] and any(e and e["y"] == [] for e in r["ls"]) for r in mine)
PY
    done
    [ "$("$INGOT" inspect --schema "$WORK/sf" | tr '\n' ' ')" = \
        'id int64? st struct<inner:struct<r:string?, p:int32?, q:list<string?>?>?, a:int32?, b:list<int32?>?>? ls list<struct<y:list<int32?>?, x:int32?, w:struct<u:int32?>?>?>? ' ] \
        || { "$INGOT" inspect --schema "$WORK/sf"; return 1; }
    "$INGOT" verify "$WORK/sf" >/dev/null || return 1
    # an append of a shard without some of the struct's fields: NULL there
    "$INGOT" import --append "$WORK/sf-less.parquet" "$WORK/sf" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 5001 "$WORK/sf")" = \
        '{"id":7,"st":{"inner":{"r":null,"p":8,"q":null},"a":7,"b":null},"ls":null}' ] ||
        { "$INGOT" cat --rows 5001 "$WORK/sf"; return 1; }
    # one that adds a field would change the table's type
    local out
    out=$("$INGOT" import --append "$WORK/sf-more.parquet" "$WORK/sf" 2>&1) && return 1
    grep -q "sf-more.parquet: column 'st' is .* in the table, struct<a:int32, more:int32> here: a column keeps its type" \
        <<<"$out" || { echo "$out"; return 1; }
    [ "$("$INGOT" inspect --json "$WORK/sf" | jq .rows)" = 5002 ] && "$INGOT" verify "$WORK/sf" >/dev/null
}
check parquet_shards_struct_fields struct_fields

many_refused() {
    local out
    out=$("$INGOT" import "$WORK/f1.csv" "$ROOT/tests/parquet-testing/data/alltypes_plain.parquet" "$WORK/bad" 2>&1) && return 1
    grep -q 'alltypes_plain.parquet: Parquet, where the first input (.*f1.csv) is CSV: the inputs of one import share a format' <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" import --format csv - - "$WORK/bad" </dev/null 2>&1) && return 1
    grep -q 'standard input (-) is named 2 times' <<<"$out" || { echo "$out"; return 1; }
    "$PY" -c "import numpy as np; np.save('$WORK/v.npy', np.arange(3))" || return 1
    out=$("$INGOT" import "$WORK/v.npy" "$WORK/v.npy" "$WORK/bad" 2>&1) && return 1
    grep -q 'a .npy array fills one column named after its file' <<<"$out" || { echo "$out"; return 1; }
    mkdir -p "$WORK/nothing" && echo x >"$WORK/nothing/notes.txt"
    out=$("$INGOT" import "$WORK/nothing" "$WORK/bad" 2>&1) && return 1
    grep -q "nothing: no file in it whose name shows a format to import" <<<"$out" || { echo "$out"; return 1; }
    # a value past a later file's sample that does not fit the types: named with its line
    printf 'id,name\n1,a\n' >"$WORK/k1.csv" && printf 'id,name\n2,b\nseven,c\n' >"$WORK/k2.csv"
    out=$("$INGOT" import --sample-rows 1 "$WORK/k1.csv" "$WORK/k2.csv" "$WORK/bad" 2>&1) && return 1
    grep -q "k2.csv:3: column 'id'" <<<"$out" || { echo "$out"; return 1; }
    [ ! -e "$WORK/bad" ] && no_leftovers
}
check several_inputs_refused_clearly many_refused

shards_by_name() { # shards whose fields come and go: columns by name from every shard, typed by all
    local out d=$WORK/drift
    rm -rf "$d" && mkdir -p "$d"
    # day 1: a, b; day 2 (gzip, more lines than its head sampled): a with fractions, a new list c
    # from its first line, b gone; day 3 from standard input: a new n
    printf '{"a": 1, "b": "x"}\n{"a": 2, "b": null}\n' >"$d/d1.jsonl"
    "$PY" -c "
import json
with open('$d/d2.jsonl', 'w') as f:
    for i in range(3000): f.write(json.dumps({'a': i + 0.5, 'c': [i, i + 1]}) + '\n')
" || return 1
    gzip -c "$d/d2.jsonl" >"$d/d2.jsonl.gz"
    printf '{"n": 7, "a": 9}\n' >"$d/d3.jsonl"
    rm -rf "$WORK/u" "$WORK/u1"
    "$INGOT" import --sample-rows 100 "$d/d1.jsonl" "$d/d2.jsonl.gz" - "$WORK/u" <"$d/d3.jsonl" >/dev/null || return 1
    [ "$("$INGOT" inspect --schema "$WORK/u" | tr '\n' ' ')" = 'a float64? b string? c list<int64?>? n int64? ' ] \
        || { "$INGOT" inspect --schema "$WORK/u"; return 1; }
    [ "$("$INGOT" cat --rows 0,2,3002 "$WORK/u" | tr '\n' ' ')" = \
        '{"a":1.0,"b":"x","c":null,"n":null} {"a":0.5,"b":null,"c":[0,1],"n":null} {"a":9.0,"b":null,"c":null,"n":7} ' ] \
        || { "$INGOT" cat --rows 0,2,3002 "$WORK/u"; return 1; }
    # the same table as the rows in one file, inferred from it alone
    cat "$d/d1.jsonl" "$d/d2.jsonl" "$d/d3.jsonl" >"$d/all.jsonl"
    "$INGOT" import "$d/all.jsonl" "$WORK/u1" >/dev/null || return 1
    same_table "$WORK/u1" "$WORK/u" || return 1
    # --print-schema of the directory says the same; a pipe as a later shard
    [ "$("$INGOT" import --print-schema --sample-rows 100 "$d/d1.jsonl" "$d/d2.jsonl.gz" <(cat "$d/d3.jsonl") | tr '\n' ' ')" = \
        'a float64? b string? c list<int64?>? n int64? ' ] || return 1
    # CSV shards: headers in another order, a column more; a gzip'd one of 2 MB whose
    # quoted values hold newlines, its head copied for a sample of 5 (cut inside a value)
    printf 'id,name\n1,ann\n' >"$d/c1.csv"
    "$PY" -c "
with open('$d/c2.csv', 'w') as f:
    f.write('score,id,name\n')
    for i in range(60000): f.write('%d.25,%d,\"line one\nline %d\"\n' % (i, i + 2, i))
" || return 1
    gzip -c "$d/c2.csv" >"$d/c2.csv.gz"
    rm -rf "$WORK/uc"
    "$INGOT" import --sample-rows 5 "$d/c1.csv" "$d/c2.csv.gz" "$WORK/uc" >/dev/null || return 1
    [ "$("$INGOT" inspect --schema "$WORK/uc" | tr '\n' ' ')" = 'id int64? name string? score float64? ' ] \
        || { "$INGOT" inspect --schema "$WORK/uc"; return 1; }
    [ "$("$INGOT" cat --rows 0,60000 "$WORK/uc" | tr '\n' ' ')" = \
        '{"id":1,"name":"ann","score":null} {"id":60001,"name":"line one\nline 59999","score":59999.25} ' ] \
        || { "$INGOT" cat --rows 0,60000 "$WORK/uc"; return 1; }
    # an append of shards adds their new columns (one version), then their rows (another)
    printf '{"a": 3, "z": true}\n' >"$d/d4.jsonl" && printf '{"a": 4, "y": "2024-01-02"}\n' >"$d/d5.jsonl"
    "$INGOT" import --append "$d/d4.jsonl" "$d/d5.jsonl" "$WORK/u" >/dev/null || return 1
    [ "$("$INGOT" versions --json "$WORK/u" | jq -r '.[].change' | tr '\n' '|')" = \
        'import 3003 rows|add-column z, y|append 2 rows|' ] || { "$INGOT" versions "$WORK/u"; return 1; }
    [ "$("$INGOT" cat --rows 3003,3004 "$WORK/u" | tr '\n' ' ')" = \
        '{"a":3.0,"b":null,"c":null,"n":null,"z":true,"y":null} {"a":4.0,"b":null,"c":null,"n":null,"z":null,"y":"2024-01-02"} ' ] \
        || { "$INGOT" cat --rows 3003,3004 "$WORK/u"; return 1; }
    # one field, two kinds in two shards: both named, no table
    printf '{"a": "three"}\n' >"$d/d6.jsonl"
    out=$("$INGOT" import "$d/d1.jsonl" "$d/d6.jsonl" "$WORK/bad" 2>&1) && return 1
    grep -q "field 'a' mixes JSON types: a number in .*d1.jsonl, a string in .*d6.jsonl; pass --schema" <<<"$out" \
        && [ ! -e "$WORK/bad" ] || { echo "$out"; return 1; }
    # a damaged line in a shard sampled on the second thread; in two shards, the first named
    printf '{"a": 1}\n' >"$d/e1.jsonl" && printf '{"a": 2}\n{"a": \n' >"$d/e3.jsonl" && printf '{"a" 3}\n' >"$d/e2.jsonl"
    out=$("$INGOT" import "$d/d1.jsonl" "$d/e1.jsonl" "$d/d1.jsonl" "$d/e3.jsonl" "$WORK/bad" 2>&1) && return 1
    grep -q "e3.jsonl:2: " <<<"$out" && [ ! -e "$WORK/bad" ] || { echo "$out"; return 1; }
    out=$("$INGOT" import "$d/d1.jsonl" "$d/e2.jsonl" "$d/d1.jsonl" "$d/e3.jsonl" "$WORK/bad" 2>&1) && return 1
    grep -q "e2.jsonl:1: " <<<"$out" && [ ! -e "$WORK/bad" ] || { echo "$out"; return 1; }
    out=$("$INGOT" import --append "$d/d1.jsonl" "$d/d6.jsonl" "$WORK/u" 2>&1) && return 1
    [ "$("$INGOT" versions --json "$WORK/u" | jq length)" = 3 ] || return 1
    "$INGOT" verify "$WORK/u" >/dev/null && no_leftovers
}
check shards_give_their_columns_by_name shards_by_name

# ---- the files of add-column, replace-column and update --------------------
columns_from() { # keyed files gzip, zstd or piped; a .npy.gz named without its suffixes
    local C=$WORK/cols out
    printf 'id,name\n1,a\n2,b\n3,c\n' >"$WORK/cbase.csv"
    rm -rf "$C" && "$INGOT" import "$WORK/cbase.csv" "$C" >/dev/null 2>&1 || return 1
    printf 'id,label\n2,two\n1,one\n' | gzip -c >"$WORK/lab.csv.gz"
    "$INGOT" add-column --key id "$C" "$WORK/lab.csv.gz" >/dev/null 2>&1 || return 1
    printf 'id,score\n3,0.5\n' | "$INGOT" add-column --key id --format csv "$C" - >/dev/null 2>&1 || return 1
    "$PY" -c "import numpy as np; np.save('$WORK/emb.npy', np.arange(6, dtype=np.float32).reshape(3, 2))" || return 1
    gzip -c "$WORK/emb.npy" >"$WORK/emb.npy.gz"
    "$INGOT" add-column "$C" "$WORK/emb.npy.gz" >/dev/null 2>&1 || return 1
    out=$("$INGOT" add-column --format npy "$C" - <"$WORK/emb.npy" 2>&1) && return 1
    grep -q 'a .npy on standard input names no column: pass --name' <<<"$out" || { echo "$out"; return 1; }
    printf 'id,label\n3,THREE\n' | zstd -q -c >"$WORK/fix.csv.zst"
    "$INGOT" update "$C" --column label --key id --from "$WORK/fix.csv.zst" >/dev/null 2>&1 || return 1
    [ "$("$INGOT" cat --rows 2 "$C")" = '{"id":3,"name":"c","label":"THREE","score":0.5,"emb":[4.0,5.0]}' ] ||
        { "$INGOT" cat --rows 0-2 "$C"; return 1; }
    [ "$("$INGOT" cat "$C" label | tr '\n' ,)" = 'one,two,THREE,' ] || return 1
    # a truncated file: named, the table as it was
    head -c 10 "$WORK/lab.csv.gz" >"$WORK/cut.lab.csv.gz"
    out=$("$INGOT" add-column --key id --name other "$C" "$WORK/cut.lab.csv.gz" 2>&1) && return 1
    grep -q "cut.lab.csv.gz: the gzip data ends early" <<<"$out" || { echo "$out"; return 1; }
    [ "$("$INGOT" versions --json "$C" | jq length)" = 5 ] || { "$INGOT" versions "$C"; return 1; }
    "$INGOT" verify "$C" >/dev/null && no_leftovers
}
check column_files_compressed_or_piped columns_from

columns_from_shards() { # a feature table in shards (a directory, several files): one version
    local C=$WORK/colsh F=$WORK/feat out
    printf 'id,name\n1,a\n2,b\n3,c\n4,d\n' >"$WORK/fbase.csv"
    rm -rf "$C" "$F" && "$INGOT" import "$WORK/fbase.csv" "$C" >/dev/null 2>&1 || return 1
    mkdir -p "$F" && printf 'id,score\n1,0.5\n2,1\n' >"$F/part-0.csv"
    printf 'id,flag,score\n3,true,2\n' | gzip -c >"$F/part-1.csv.gz" # a column more, another order
    "$INGOT" add-column "$C" "$F" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 0-3 "$C" | tr '\n' ' ')" = \
        '{"id":1,"name":"a","score":0.5,"flag":null} {"id":2,"name":"b","score":1.0,"flag":null} {"id":3,"name":"c","score":2.0,"flag":true} {"id":4,"name":"d","score":null,"flag":null} ' ] \
        || { "$INGOT" cat --rows 0-3 "$C"; return 1; }
    # update from two files; replace-column from two, one of them piped
    printf 'id,score\n4,9.5\n' >"$WORK/u1.csv" && printf 'id,score\n1,7\n' >"$WORK/u2.csv"
    "$INGOT" update "$C" --column score --from "$WORK/u1.csv" --from "$WORK/u2.csv" >/dev/null || return 1
    [ "$("$INGOT" cat "$C" score | tr '\n' ,)" = '7.0,1.0,2.0,9.5,' ] || { "$INGOT" cat "$C" score; return 1; }
    printf 'id,flag\n4,false\n' >"$WORK/r1.csv"
    printf 'id,flag\n2,true\n' | "$INGOT" replace-column "$C" "$WORK/r1.csv" - >/dev/null || return 1
    [ "$("$INGOT" cat "$C" flag | tr '\n' ,)" = '\N,t,\N,f,' ] || { "$INGOT" cat "$C" flag; return 1; }
    [ "$("$INGOT" versions --json "$C" | jq -r '.[].change' | tr '\n' '|')" = \
        'import 4 rows|add-column score, flag|update score|replace-column flag|' ] || { "$INGOT" versions "$C"; return 1; }
    # a key in two files: named, nothing changed; several .npy refused
    printf 'id,z\n1,1\n' >"$WORK/z1.csv" && printf 'id,z\n1,2\n' >"$WORK/z2.csv"
    out=$("$INGOT" add-column "$C" "$WORK/z1.csv" "$WORK/z2.csv" 2>&1) && return 1
    grep -q "z1.csv and 1 more file: id 1 is given twice" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" add-column "$C" "$WORK/emb.npy" "$WORK/emb.npy" 2>&1) && return 1
    grep -q "a .npy array is one column: add them one at a time" <<<"$out" || { echo "$out"; return 1; }
    [ "$("$INGOT" versions --json "$C" | jq length)" = 4 ] && "$INGOT" verify "$C" >/dev/null && no_leftovers
}
check column_files_in_shards columns_from_shards

# ---- schema files: printed from an input, and from a table -------------------
schema_files() {
    local n f
    # a table's columns as a schema file give the same table again, byte for byte
    for n in flat nested slide logical decimal bounds blob; do
        f=$(cd "$IN" && ls "$n.csv" "$n.jsonl" 2>/dev/null | head -1)
        rm -rf "$WORK/s1" "$WORK/s2"
        (cd "$IN" && "$INGOT" import --schema "$n.txt" "$f" "$WORK/s1" >/dev/null 2>&1) || return 1
        "$INGOT" inspect --schema "$WORK/s1" >"$WORK/s.txt" || return 1
        (cd "$IN" && "$INGOT" import --schema "$WORK/s.txt" "$f" "$WORK/s2" >/dev/null 2>&1) || { cat "$WORK/s.txt"; return 1; }
        same_table "$WORK/s1" "$WORK/s2" || { echo "$n:"; diff "$IN/$n.txt" "$WORK/s.txt"; return 1; }
    done
    # the defaults unsaid: nested.txt comes back as it was written
    rm -rf "$WORK/s1" && "$INGOT" import --schema "$IN/nested.txt" "$IN/nested.jsonl" "$WORK/s1" >/dev/null 2>&1
    diff <(grep -v '^#' "$IN/nested.txt") <("$INGOT" inspect --schema "$WORK/s1") || return 1
    # what an import would infer, printed (nothing written): the same table as inferring
    rm -rf "$WORK/s1" "$WORK/s2"
    "$INGOT" import --print-schema "$WORK/flat.csv.gz" >"$WORK/inferred.txt" || return 1
    grep -qx 'f32 float64?' "$WORK/inferred.txt" || { cat "$WORK/inferred.txt"; return 1; }
    "$INGOT" import "$IN/flat.csv" "$WORK/s1" >/dev/null 2>&1 || return 1
    "$INGOT" import --schema "$WORK/inferred.txt" "$IN/flat.csv" "$WORK/s2" >/dev/null 2>&1 || return 1
    same_table "$WORK/s1" "$WORK/s2" || return 1
    [ "$(cd "$ROOT/tests/parquet-testing/data" && "$INGOT" import --print-schema alltypes_plain.parquet | grep -c .)" = 11 ] || return 1
    no_leftovers
}
check schema_files_print_and_round_trip schema_files

# ---- JSON Lines with arrays and objects, without a schema -------------------
nested_inferred() {
    cat >"$WORK/nj.jsonl" <<'JSON'
{"id": 1, "tags": [1, 2, null], "doc": {"name": "a", "score": 1.5, "when": "2024-01-02"}, "m": [[1, 2], [3]], "objs": [{"k": 1}, {"k": 2, "v": "x"}], "e": []}
{"id": 2, "tags": [], "doc": {"name": "b", "odd key": [0.5]}, "m": [], "objs": null, "e": []}
{"id": 3, "tags": null, "doc": null, "m": [[]], "objs": [{}], "e": null}
JSON
    "$INGOT" import --print-schema "$WORK/nj.jsonl" >"$WORK/nj.txt" || return 1
    diff "$WORK/nj.txt" - <<'TXT' || return 1
id int64?
tags list<int64?>?
doc struct<name:string?, score:float64?, when:date?, "odd key":list<float64?>?>?
m list<list<int64?>?>?
objs list<struct<k:int64?, v:string?>?>?
e list<string?>?
TXT
    rm -rf "$WORK/nj" && "$INGOT" import "$WORK/nj.jsonl" "$WORK/nj" >/dev/null 2>&1 || return 1
    diff <("$INGOT" cat --rows 0-2 "$WORK/nj") - <<'ROWS' || return 1
{"id":1,"tags":[1,2,null],"doc":{"name":"a","score":1.5,"when":"2024-01-02","odd key":null},"m":[[1,2],[3]],"objs":[{"k":1,"v":null},{"k":2,"v":"x"}],"e":[]}
{"id":2,"tags":[],"doc":{"name":"b","score":null,"when":null,"odd key":[0.5]},"m":[],"objs":null,"e":[]}
{"id":3,"tags":null,"doc":null,"m":[[]],"objs":[{"k":null,"v":null}],"e":null}
ROWS
    "$INGOT" verify "$WORK/nj" >/dev/null || return 1
    # what cannot be one type: the field's path named
    local out
    out=$(printf '{"a": [1, "x"]}\n' | "$INGOT" import --format jsonl - "$WORK/bad" 2>&1) && return 1
    grep -q "standard input: field 'a\[\]' mixes JSON types in the sample; pass --schema" <<<"$out" || { echo "$out"; return 1; }
    out=$(printf '{"a": {"b": [{"c": 1}]}}\n{"a": {"b": [{"c": [2]}]}}\n' | "$INGOT" import --format jsonl - "$WORK/bad" 2>&1) && return 1
    grep -q "field 'a.b\[\].c' mixes JSON types" <<<"$out" || { echo "$out"; return 1; }
    out=$(printf '{"a": {}}\n' | "$INGOT" import --format jsonl - "$WORK/bad" 2>&1) && return 1
    grep -q "field 'a' holds only empty objects in the sample" <<<"$out" || { echo "$out"; return 1; }
    out=$(printf '{"a": {"x.y": 1}}\n' | "$INGOT" import --format jsonl - "$WORK/bad" 2>&1) && return 1
    grep -q "field 'a.x.y': a member name with '.'" <<<"$out" || { echo "$out"; return 1; }
    # an object used as a map (ids as keys): more than 10,000 members is not a record
    "$PY" -c "
import json
for r in range(3): print(json.dumps({'id': r, 'm': {'u%d' % (r * 6000 + i): i for i in range(6000)}}))" >"$WORK/map.jsonl"
    out=$("$INGOT" import "$WORK/map.jsonl" "$WORK/bad" 2>&1) && return 1
    grep -q "field 'm' holds objects of more than 10000 distinct members in the sample (a map" <<<"$out" || { echo "$out"; return 1; }
    # a value past the sample that does not fit: its line named
    { for i in $(seq 1 5); do printf '{"t": [%d]}\n' "$i"; done; printf '{"t": ["x"]}\n'; } >"$WORK/late.jsonl"
    out=$("$INGOT" import --sample-rows 5 "$WORK/late.jsonl" "$WORK/bad" 2>&1) && return 1
    grep -q "late.jsonl:6: field 't': expected int64, got string" <<<"$out" || { echo "$out"; return 1; }
    [ ! -e "$WORK/bad" ] && no_leftovers
}
check jsonl_arrays_and_objects_inferred nested_inferred

embeddings() { # float32 embeddings written as JSON numbers: a vector column, read as .npy through a mount
    "$PY" - "$WORK" <<'PY' || return 1
import json, sys, numpy as np
w = sys.argv[1]
e = np.random.default_rng(1).standard_normal((300, 16)).astype(np.float32)
np.save(f"{w}/emb_ref.npy", e)
with open(f"{w}/emb.jsonl", "w") as f:
    for i in range(300):
        f.write(json.dumps({"id": i, "emb": [float(x) for x in e[i]],
                            "geo": [round(float(x), 7) for x in e[i][:2]],  # not float32's: stays float64
                            "ragged": [0.5] * (1 + i % 3)}) + "\n")
PY
    "$INGOT" import --print-schema "$WORK/emb.jsonl" >"$WORK/emb.txt" || return 1
    diff "$WORK/emb.txt" - <<'TXT' || return 1
id int64?
emb vector<float32, 16>?
geo list<float64?>?
ragged list<float64?>?
TXT
    rm -rf "$WORK/et" && "$INGOT" import "$WORK/emb.jsonl" "$WORK/et" >/dev/null 2>&1 || return 1
    have_fuse || return 0
    mkdir -p "$WORK/mnt" && "$INGOT" mount "$WORK/et" "$WORK/mnt" || return 1
    "$PY" -c "
import numpy as np
a = np.load('$WORK/mnt/columns/emb.npy', mmap_mode='r'); b = np.load('$WORK/emb_ref.npy')
assert a.shape == (300, 16) and a.dtype == np.float32 and (a == b).all(), (a.shape, a.dtype)"
    local rc=$?
    fusermount3 -u "$WORK/mnt"
    return $rc
}
check jsonl_float32_embeddings_become_vectors embeddings

delimiters() { # a tab for .tsv; ';' or '|' where the first lines show it and no comma
    local out
    "$PY" - "$IN/flat.csv" "$WORK" <<'PY' || return 1
import sys
text = open(sys.argv[1]).read()
for name, d in (("flat.tsv", "\t"), ("semi.csv", ";")):  # commas outside quotes become d, quoting kept
    out, quoted = [], False
    for c in text:
        quoted ^= c == '"'
        out.append(d if c == "," and not quoted else c)
    open(f"{sys.argv[2]}/{name}", "w").write("".join(out))
PY
    gzip -c "$WORK/flat.tsv" >"$WORK/flat.tsv.gz"
    cp "$WORK/flat.tsv" "$WORK/flat.tab" && cp "$WORK/flat.tsv.gz" "$WORK/FLAT.TSV.GZ" # names in any case
    flat_same "$WORK/flat.tsv" "$WORK/flat.tsv.gz" "$WORK/semi.csv" "$WORK/flat.tab" "$WORK/FLAT.TSV.GZ" || return 1
    # said outright, the delimiter is taken as said: one column of 'id;small;...'
    printf 'a;b\n1;2\n' >"$WORK/ab.csv"
    [ "$("$INGOT" import --print-schema "$WORK/ab.csv" | tr '\n' ' ')" = 'a int64? b int64? ' ] || return 1
    [ "$("$INGOT" import --print-schema --delimiter , "$WORK/ab.csv")" = 'a;b string?' ] ||
        { "$INGOT" import --print-schema --delimiter , "$WORK/ab.csv"; return 1; }
    # a keyed file of add-column too
    printf 'id\tlabel\n1\tone\n' >"$WORK/lab.tsv"
    rm -rf "$WORK/kt" && printf 'id,x\n1,2\n' >"$WORK/kt.csv" && "$INGOT" import "$WORK/kt.csv" "$WORK/kt" >/dev/null 2>&1 || return 1
    "$INGOT" add-column --key id "$WORK/kt" "$WORK/lab.tsv" >/dev/null 2>&1 || return 1
    [ "$("$INGOT" cat --rows 0 "$WORK/kt")" = '{"id":1,"x":2,"label":"one"}' ] || { "$INGOT" cat --rows 0 "$WORK/kt"; return 1; }
}
check delimiters_found_from_name_and_first_lines delimiters

wide_jsonl() { # 20,000 fields a row, types inferred: each field found by hash (a scan of the columns per field took minutes)
    "$PY" -c "
import json
keys = ['f%05d' % k for k in range(20000)]
with open('$WORK/wide.jsonl', 'w') as f:
    for r in range(30): f.write(json.dumps({k: (r + i) % 97 for i, k in enumerate(keys)}) + '\n')" || return 1
    rm -rf "$WORK/wide" && "$INGOT" import "$WORK/wide.jsonl" "$WORK/wide" >/dev/null 2>&1 || return 1
    [ "$("$INGOT" inspect --columns "$WORK/wide" | wc -l)" = 20000 ] || return 1
    [ "$("$INGOT" cat --rows 3 "$WORK/wide" f19999)" = '{"f19999":20}' ] || { "$INGOT" cat --rows 3 "$WORK/wide" f19999; return 1; }
}
check wide_jsonl_of_20000_fields_inferred wide_jsonl

json_result() { # import --json names the table as a JSON string, whatever the path holds
    local T="$WORK/a \"quoted\" \\ name" out
    out=$("$INGOT" import --json "$IN/flat.csv" "$T" 2>/dev/null) || return 1
    [ "$(jq -r .table <<<"$out")" = "$T" ] && [ "$(jq .rows <<<"$out")" = 400 ] || { echo "$out"; return 1; }
}
check import_json_result_escapes_the_table json_result

empty_first_shard() { # a first shard without records: types from the first that has some
    local out
    mkdir -p "$WORK/sh-csv" "$WORK/sh-json" "$WORK/sh-none"
    printf 'id,v\n' >"$WORK/sh-csv/part-0.csv" && printf 'id,v\n1,1.5\n2,2.5\n' >"$WORK/sh-csv/part-1.csv"
    : >"$WORK/sh-json/part-0.jsonl" && printf '{"id": 1, "t": [1, 2]}\n' >"$WORK/sh-json/part-1.jsonl"
    : >"$WORK/sh-none/a.jsonl" && : >"$WORK/sh-none/b.jsonl"
    rm -rf "$WORK/e1" "$WORK/e2"
    "$INGOT" import "$WORK/sh-csv" "$WORK/e1" >/dev/null 2>&1 || return 1
    [ "$("$INGOT" inspect --schema "$WORK/e1" | tr '\n' ' ')" = 'id int64? v float64? ' ] || { "$INGOT" inspect --schema "$WORK/e1"; return 1; }
    "$INGOT" import "$WORK/sh-json" "$WORK/e2" >/dev/null 2>&1 || return 1
    [ "$("$INGOT" cat --rows 0 "$WORK/e2")" = '{"id":1,"t":[1,2]}' ] || { "$INGOT" cat --rows 0 "$WORK/e2"; return 1; }
    out=$("$INGOT" import "$WORK/sh-none" "$WORK/bad" 2>&1) && return 1
    grep -q 'no records to infer a schema from in the 2 inputs' <<<"$out" && [ ! -e "$WORK/bad" ] || { echo "$out"; return 1; }
}
check empty_first_shard_types_from_the_next empty_first_shard
