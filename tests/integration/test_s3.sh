#!/usr/bin/env bash
# Tables on object storage (s3://bucket/prefix) against a real S3 gateway
# (Ceph's radosgw, started and stopped here by scripts/s3-local): import,
# inspect, cat, mount (rows, columns, blobs and frames by path), erase through
# rm and the CLI with no older object version left behind, a kill at every
# step of an erase (and inside a multipart upload), an import cut into parts
# and an erase rewriting only the parts it touches, tags under the writers'
# lock, gc deleting objects (killed at every step), columns added, updated,
# replaced and dropped (by the CLI and through the mount; killed at every step
# of an add-column, and of a blob column's), two mounts as two hosts, writers
# racing, and what goes
# wrong on the network: wrong credentials, a missing bucket, a truncated
# object, 503s, dropped and stalled connections, the gateway gone. Each ends
# in a clear error or a retry: never a hang, never a wrong byte.
. "$(dirname "$0")/lib.sh"

env_out=$("$ROOT/scripts/s3-local" start 2>"$WORK/s3-local.err")
case $? in
0) ;;
3) skip s3 "Ceph's radosgw is not installed (scripts/deps installs ceph-mon ceph-osd radosgw)"; exit 0 ;;
*) fail s3_gateway_starts "$(tail -5 "$WORK/s3-local.err")"; exit 0 ;;
esac
eval "$env_out"
PROXY_PID=
stop_all() {
    for m in "$WORK"/mnt*; do [ -d "$m" ] && { fusermount3 -u "$m" 2>/dev/null || fusermount3 -uz "$m" 2>/dev/null; }; done
    [ -n "$PROXY_PID" ] && kill "$PROXY_PID" 2>/dev/null
    "$ROOT/scripts/s3-local" stop "$S3_LOCAL_DIR"
}
trap 'stop_all; cleanup' EXIT
pass s3_gateway_starts

s3() { # s3 METHOD PATH [curl args...]: a signed request to the gateway
    local method=$1 path=$2
    shift 2
    curl -s --aws-sigv4 "aws:amz:$AWS_REGION:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -X "$method" "$AWS_ENDPOINT_URL$path" "$@"
}
s3 PUT /tables -o /dev/null
s3 PUT /vtables -o /dev/null
s3 PUT '/vtables?versioning=' -d '<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>' -o /dev/null

# the data: a table of a few columns, and media with blobs and frames
/usr/bin/python3 - "$WORK" <<'EOF'
import random, sys
w = sys.argv[1]
random.seed(7)
with open(f"{w}/t.csv", "w") as f:
    f.write("id,user,caption,score\n")
    for i in range(30000):
        f.write(f"{i},{i % 1000},caption {i} {random.randrange(10**9)},{random.random():.6f}\n")
EOF
have_media=0
if command -v ffmpeg >/dev/null; then
    bash "$ROOT/scripts/make_media.sh" "$WORK/media" 4 && have_media=1
fi

T=s3://tables/t
check s3_import "$INGOT" import "$WORK/t.csv" "$T"
"$INGOT" import "$WORK/t.csv" "$WORK/local" >/dev/null 2>&1
check s3_import_refuses_an_existing_table expect_fail "$INGOT" import "$WORK/t.csv" "$T"

# inputs on object storage: an object (gzip too), a prefix of shards in name
# order (not its README, not deeper keys), into a local table and a bucket's
s3_inputs() {
    local out
    head -1001 "$WORK/t.csv" >"$WORK/in1.csv"
    { head -1 "$WORK/t.csv"; sed -n 1002,2001p "$WORK/t.csv"; } | gzip -c >"$WORK/in2.csv.gz"
    head -2001 "$WORK/t.csv" >"$WORK/in12.csv"
    s3 PUT /tables/raw/in1.csv -T "$WORK/in1.csv" -o /dev/null
    s3 PUT /tables/raw/in2.csv.gz -T "$WORK/in2.csv.gz" -o /dev/null
    s3 PUT /tables/raw/README.md -T "$WORK/in1.csv" -o /dev/null
    s3 PUT /tables/raw/old/in0.csv -T "$WORK/in1.csv" -o /dev/null
    "$INGOT" import "$WORK/in12.csv" "$WORK/in12" >/dev/null 2>&1 || return 1
    "$INGOT" import s3://tables/raw/ "$WORK/from-s3" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 0-1999 "$WORK/from-s3" | md5sum)" = "$("$INGOT" cat --rows 0-1999 "$WORK/in12" | md5sum)" ] || return 1
    [ "$("$INGOT" inspect --json "$WORK/from-s3" | jq .rows)" = 2000 ] || return 1
    "$INGOT" import s3://tables/raw/in2.csv.gz s3://tables/from-raw >/dev/null || return 1
    [ "$("$INGOT" cat --rows 0 s3://tables/from-raw)" = "$("$INGOT" cat --rows 1000 "$WORK/in12")" ] || return 1
    out=$("$INGOT" import s3://tables/raw/none.csv "$WORK/none" 2>&1) && return 1
    grep -q "s3://tables/raw/none.csv: no such object" <<<"$out" && [ ! -e "$WORK/none" ] || { echo "$out"; return 1; }
}
check s3_inputs_objects_and_prefixes s3_inputs

# rand_blob N FILE: N bytes, random but the first: a blob's file in a mount is
# named by its leading bytes, and one random byte in 2,048 would start what
# reads as an MP3 frame (blobs/img/0 would be blobs/img/0.mp3)
rand_blob() { { printf R; head -c $(($1 - 1)) /dev/urandom; } >"$2"; }

# blob paths in an input on object storage name objects beside it (or s3://
# whole, from a local input too): stored byte for byte, a .gz as it is
s3_blob_objects() {
    rand_blob 5000 "$WORK/o1.bin" && printf 'hello' | gzip -c >"$WORK/o2.gz"
    s3 PUT /tables/ds/img/a.bin -T "$WORK/o1.bin" -o /dev/null
    s3 PUT /tables/other/b.gz -T "$WORK/o2.gz" -o /dev/null
    printf '{"id": 1, "img": "img/a.bin"}\n{"id": 2, "img": "s3://tables/other/b.gz"}\n' >"$WORK/man.jsonl"
    s3 PUT /tables/ds/man.jsonl -T "$WORK/man.jsonl" -o /dev/null
    printf 'id int64\nimg blob\n' >"$WORK/blob.txt"
    rm -rf "$WORK/bt" "$WORK/bt2" "$WORK/bt3"
    "$INGOT" import --schema "$WORK/blob.txt" s3://tables/ds/man.jsonl "$WORK/bt" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 0,1 "$WORK/bt" | jq -c .img.size | tr '\n' ' ')" = "5000 $(stat -c %s "$WORK/o2.gz") " ] || return 1
    # an object named whole from a local manifest; the bytes as stored, read through a mount
    printf '{"id": 2, "img": "s3://tables/other/b.gz"}\n' >"$WORK/man2.jsonl"
    "$INGOT" import --schema "$WORK/blob.txt" "$WORK/man2.jsonl" "$WORK/bt2" >/dev/null || return 1
    mkdir -p "$WORK/mnt_blob" && "$INGOT" mount "$WORK/bt" "$WORK/mnt_blob" || return 1
    cmp "$WORK/mnt_blob/blobs/img/0" "$WORK/o1.bin" && cmp "$WORK/mnt_blob/blobs/img/1" "$WORK/o2.gz" ||
        { fusermount3 -u "$WORK/mnt_blob"; return 1; }
    fusermount3 -u "$WORK/mnt_blob" && "$INGOT" mount "$WORK/bt2" "$WORK/mnt_blob" || return 1
    cmp "$WORK/mnt_blob/blobs/img/0" "$WORK/o2.gz" || { fusermount3 -u "$WORK/mnt_blob"; return 1; }
    fusermount3 -u "$WORK/mnt_blob"
    # fetched ahead of the rows, several at a time: 40 objects, one named twice, a
    # list<blob> of them, and a CSV's blob column
    local i
    for i in $(seq 0 39); do rand_blob $((1000 + i * 37)) "$WORK/o-$i.bin"; s3 PUT /tables/many/img/$i.bin -T "$WORK/o-$i.bin" -o /dev/null; done
    { for i in $(seq 0 39); do printf '{"id": %d, "img": "img/%d.bin", "more": ["img/%d.bin", "img/0.bin"]}\n' $i $i $(((i + 1) % 40)); done; } >"$WORK/many.jsonl"
    { echo id,img; for i in $(seq 0 39); do echo "$i,img/$((39 - i)).bin"; done; } >"$WORK/many.csv"
    s3 PUT /tables/many/many.jsonl -T "$WORK/many.jsonl" -o /dev/null
    s3 PUT /tables/many/many.csv -T "$WORK/many.csv" -o /dev/null
    printf 'id int64\nimg blob\nmore list<blob>\n' >"$WORK/blob2.txt"
    rm -rf "$WORK/bt4" "$WORK/bt5"
    "$INGOT" import --schema "$WORK/blob2.txt" s3://tables/many/many.jsonl "$WORK/bt4" >/dev/null || return 1
    "$INGOT" import --schema "$WORK/blob.txt" s3://tables/many/many.csv "$WORK/bt5" >/dev/null || return 1
    # nothing fetched ahead (a budget of 0): each row fetches its own, the same table
    rm -rf "$WORK/bt6"
    INGOT_BLOB_FETCH_MB=0 "$INGOT" import --schema "$WORK/blob2.txt" s3://tables/many/many.jsonl "$WORK/bt6" >/dev/null || return 1
    cmp "$WORK/bt4/part-000000.blob" "$WORK/bt6/part-000000.blob" && cmp "$WORK/bt4/part-000000.ingot" "$WORK/bt6/part-000000.ingot" || return 1
    "$INGOT" mount "$WORK/bt4" "$WORK/mnt_blob" || return 1
    for i in 0 17 39; do
        cmp "$WORK/mnt_blob/blobs/img/$i" "$WORK/o-$i.bin" && cmp "$WORK/mnt_blob/blobs/more/$i/0" "$WORK/o-$(((i + 1) % 40)).bin" &&
            cmp "$WORK/mnt_blob/blobs/more/$i/1" "$WORK/o-0.bin" || { echo "row $i"; fusermount3 -u "$WORK/mnt_blob"; return 1; }
    done
    fusermount3 -u "$WORK/mnt_blob" && "$INGOT" mount "$WORK/bt5" "$WORK/mnt_blob" || return 1
    cmp "$WORK/mnt_blob/blobs/img/3" "$WORK/o-36.bin" || { fusermount3 -u "$WORK/mnt_blob"; return 1; }
    fusermount3 -u "$WORK/mnt_blob"
    "$INGOT" verify "$WORK/bt4" >/dev/null || return 1
    local out
    printf '{"id": 3, "img": "img/none.bin"}\n' >"$WORK/man3.jsonl"
    s3 PUT /tables/ds/man3.jsonl -T "$WORK/man3.jsonl" -o /dev/null
    out=$("$INGOT" import --schema "$WORK/blob.txt" s3://tables/ds/man3.jsonl "$WORK/bt3" 2>&1) && return 1
    grep -q "man3.jsonl:1: column 'img': s3://tables/ds/img/none.bin: no such object" <<<"$out" && [ ! -e "$WORK/bt3" ] ||
        { echo "$out"; return 1; }
}
check s3_blob_objects_fetched s3_blob_objects

# shards on object storage whose columns come and go: JSON Lines (gzip) typed from
# each one's head; Parquet, one of 32 MB whose schema is read from its tail alone
s3_shards_by_name() {
    need_duckdb s3_shards_by_name || return 0
    printf '{"id": 1, "a": "x"}\n' | gzip -c >"$WORK/j1.jsonl.gz"
    printf '{"id": 2.5, "b": [1, 2]}\n' | gzip -c >"$WORK/j2.jsonl.gz"
    s3 PUT /tables/drift/j1.jsonl.gz -T "$WORK/j1.jsonl.gz" -o /dev/null
    s3 PUT /tables/drift/j2.jsonl.gz -T "$WORK/j2.jsonl.gz" -o /dev/null
    "$INGOT" import s3://tables/drift/ s3://tables/drifted >/dev/null || return 1
    [ "$("$INGOT" cat --rows 0,1 s3://tables/drifted | tr '\n' ' ')" = \
        '{"id":1.0,"a":"x","b":null} {"id":2.5,"a":null,"b":[1,2]} ' ] || { "$INGOT" cat --rows 0,1 s3://tables/drifted; return 1; }
    (cd "$ROOT/tests/parquet" && node --input-type=module -e "
import { DuckDBInstance } from '@duckdb/node-api';
const c = await (await DuckDBInstance.create(':memory:')).connect();
await c.run(\"COPY (SELECT i AS id, md5(i::VARCHAR) || md5((i + 1)::VARCHAR) AS h FROM range(500000) t(i)) TO '$WORK/q1.parquet' (FORMAT parquet, COMPRESSION uncompressed)\");
await c.run(\"COPY (SELECT 7::BIGINT AS id, 0.5::DOUBLE AS score) TO '$WORK/q0.parquet' (FORMAT parquet)\");
const cols = []; for (let i = 0; i < 12000; i++) cols.push('(i + ' + i + ')::BIGINT AS column_' + i);
await c.run('COPY (SELECT ' + cols.join(', ') + \" FROM range(3) t(i)) TO '$WORK/wide.parquet' (FORMAT parquet)\");") || return 1
    [ "$(stat -c %s "$WORK/q1.parquet")" -gt $((17 << 20)) ] || return 1
    s3 PUT /tables/pq/q0.parquet -T "$WORK/q0.parquet" -o /dev/null
    s3 PUT /tables/pq/q1.parquet -T "$WORK/q1.parquet" -o /dev/null
    rm -rf "$WORK/pqs"
    "$INGOT" import s3://tables/pq/ "$WORK/pqs" >/dev/null || return 1
    [ "$("$INGOT" inspect --schema "$WORK/pqs" | tr '\n' ' ')" = 'id int64? score float64? h string? ' ] || { "$INGOT" inspect --schema "$WORK/pqs"; return 1; }
    [ "$("$INGOT" cat --rows 0,500000 "$WORK/pqs" | tr '\n' ' ')" = \
        "{\"id\":7,\"score\":0.5,\"h\":null} {\"id\":499999,\"score\":null,\"h\":\"$(printf 499999 | md5sum | cut -c1-32)$(printf 500000 | md5sum | cut -c1-32)\"} " ] \
        || { "$INGOT" cat --rows 0,500000 "$WORK/pqs"; return 1; }
    # a footer of 12,000 columns (1.25 MB), larger than the first tail fetched: fetched again whole
    s3 PUT /tables/pqw/a.parquet -T "$WORK/q0.parquet" -o /dev/null
    s3 PUT /tables/pqw/b.parquet -T "$WORK/wide.parquet" -o /dev/null
    rm -rf "$WORK/pqw"
    "$INGOT" import s3://tables/pqw/ "$WORK/pqw" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 3 "$WORK/pqw" | jq -c '[.id, .score, .column_0, .column_11999]')" = '[null,null,2,12001]' ] \
        || { "$INGOT" cat --rows 3 "$WORK/pqw" | cut -c1-300; return 1; }
}
check s3_shards_by_name s3_shards_by_name

# libcurl is loaded when a table on object storage is first opened, not at
# start: with a libcurl that cannot be loaded a local table still opens, and
# an s3:// one fails saying what is missing (no crash, no hang)
mkdir -p "$WORK/nocurl"
: >"$WORK/nocurl/libcurl.so.4"
: >"$WORK/nocurl/libcurl-gnutls.so.4"
check s3_local_tables_start_without_libcurl env LD_LIBRARY_PATH="$WORK/nocurl" "$INGOT" inspect "$WORK/local"
out=$(LD_LIBRARY_PATH="$WORK/nocurl" timeout 20 "$INGOT" inspect "$T" 2>&1)
rc=$?
if [ $rc -ne 0 ] && [ $rc -lt 124 ] && printf '%s' "$out" | grep -q "needs libcurl.so.4"; then
    pass s3_without_libcurl_says_so
else
    fail s3_without_libcurl_says_so "rc $rc: $out"
fi
same_as_local() {
    [ "$("$INGOT" cat "$T" caption | md5sum)" = "$("$INGOT" cat "$WORK/local" caption | md5sum)" ] &&
        [ "$("$INGOT" cat --rows 0,17,29999 "$T")" = "$("$INGOT" cat --rows 0,17,29999 "$WORK/local")" ] &&
        "$INGOT" inspect "$T" | grep -q "30000 live"
}
check s3_cat_and_inspect_read_what_was_imported same_as_local
check s3_verify "$INGOT" verify "$T"

mount_reads() {
    mkdir -p "$WORK/mnt1"
    # short network bounds: the last test stops the gateway under this mount
    INGOT_S3_STALL_S=1 INGOT_S3_RETRIES=2 "$INGOT" mount -o poll_ms=300 "$T" "$WORK/mnt1" || return 1
    [ "$(jq -c . "$WORK/mnt1/rows/17")" = "$("$INGOT" cat --rows 17 "$WORK/local" | jq -c .)" ] || { echo rows; return 1; }
    [ "$(jq -c . "$WORK/mnt1/rows/23456")" = "$("$INGOT" cat --rows 23456 "$WORK/local" | jq -c .)" ] || return 1
    cmp -s "$WORK/mnt1/columns/caption" <("$INGOT" cat "$WORK/local" caption) || { echo caption; return 1; }
    /usr/bin/python3 -c "
import numpy as np
a = np.load('$WORK/mnt1/columns/score.npy')
assert a.shape == (30000,), a.shape
assert abs(a[17] - float('$(jq .score "$WORK/mnt1/rows/17")')) < 1e-9
" || { echo npy; return 1; }
    [ "$(ls "$WORK/mnt1/rows" | wc -l)" = 30000 ] || { echo listing; return 1; }
}
check s3_mount_rows_columns_npy mount_reads

# A reader taking random rows keeps coming back to the same chunks: after a
# few rows a chunk is fetched whole, and the rest of its rows cost no request
# (the gateway's own count of GETs), every row still right.
gets() { ceph --admin-daemon "$S3_LOCAL_DIR/run/client.rgw.local.asok" perf dump |
    /usr/bin/python3 -c "import json, sys; print(json.load(sys.stdin)['rgw']['get'])"; }
dense_rows() {
    /usr/bin/python3 -c "
import random
r = random.Random(5)
with open('$WORK/dense.csv', 'w') as f:
    f.write('id,key\n')
    for i in range(100000): f.write(f'{i},{r.getrandbits(128):032x}\n')"
    "$INGOT" import --rows-per-group 100000 "$WORK/dense.csv" s3://tables/dense >/dev/null || return 1
    "$INGOT" import --rows-per-group 100000 "$WORK/dense.csv" "$WORK/dense" >/dev/null || return 1
    mkdir -p "$WORK/mnt_dense"
    "$INGOT" mount s3://tables/dense "$WORK/mnt_dense" || return 1
    local ids g0 g1 id
    ids=$(/usr/bin/python3 -c "import random; r = random.Random(3); print(*r.sample(range(100000), 80))")
    local t0 t1 polls
    g0=$(gets); t0=$(date +%s%N)
    for id in $ids; do cat "$WORK/mnt_dense/rows/$id"; echo; done >"$WORK/dense.got"
    g1=$(gets); t1=$(date +%s%N)
    fusermount3 -u "$WORK/mnt_dense"
    # mnt1 stays mounted and asks for MANIFEST every 300 ms meanwhile: its
    # polls are the gateway's GETs too (more of them on a loaded machine)
    polls=$(((t1 - t0) / 300000000 + 1))
    for id in $ids; do "$INGOT" cat --rows "$id" "$WORK/dense"; done >"$WORK/dense.want"
    [ "$(jq -c . "$WORK/dense.got")" = "$(jq -c . "$WORK/dense.want")" ] || { echo "rows differ"; return 1; }
    echo "$((g1 - g0)) GETs for 80 rows (up to $polls of them another mount's polls)"
    [ $((g1 - g0 - polls)) -le 20 ] || { echo "each row fetched on its own: $((g1 - g0)) GETs for 80 rows"; return 1; }
}
check s3_random_rows_fetch_their_chunk_whole dense_rows
# Who reads ahead is each read's to say: a column read through the mount
# (its view fetches its pages ahead itself) leaves the group file's reads of the
# same part object their store readahead (a flag on the shared handle once
# made them a GET a page: 107 GETs for jsonl/0.jsonl here instead of 4). The
# group file walks the ids' compressed blocks, each followed by its zeroed
# slack: reads that skip it are sequential still (store_fetch.c; a GET a
# block before: 125).
readahead_per_read() {
    mkdir -p "$WORK/mnt_ra"
    "$INGOT" mount s3://tables/dense "$WORK/mnt_ra" || return 1
    local g0 g1
    cat "$WORK/mnt_ra/columns/key" >/dev/null
    g0=$(gets)
    cmp -s "$WORK/mnt_ra/jsonl/0.jsonl" <("$INGOT" cat --rows 0-99999 "$WORK/dense") || { fusermount3 -u "$WORK/mnt_ra"; echo "jsonl differs"; return 1; }
    g1=$(gets)
    fusermount3 -u "$WORK/mnt_ra"
    echo "$((g1 - g0)) GETs for jsonl/0.jsonl after columns/key"
    [ $((g1 - g0)) -le 40 ] || { echo "the group file read a GET a page: $((g1 - g0)) GETs"; return 1; }
}
check s3_a_column_read_leaves_other_reads_their_readahead readahead_per_read

if [ $have_media = 1 ]; then
    M="$WORK/media"
    check s3_import_media "$INGOT" import --schema "$M/schema.txt" "$M/media.jsonl" s3://tables/media
    blobs_by_path() {
        mkdir -p "$WORK/mnt2"
        "$INGOT" mount s3://tables/media "$WORK/mnt2" || return 1
        cmp "$WORK/mnt2/blobs/video/0.mp4" "$M/vid/0.mp4" || return 1
        local src
        src=$(sed -n 3p "$M/media.jsonl" | jq -r '.frames[1]')
        cmp "$WORK/mnt2/blobs/frames/2/1.jpg" "$M/$src" || return 1
        ffprobe -v error -show_entries stream=codec_name -of csv=p=0 "$WORK/mnt2/blobs/video/0.mp4" | grep -q h264 ||
            { echo "ffprobe could not read the video"; return 1; }
        "$INGOT" verify s3://tables/media >/dev/null
    }
    check s3_blobs_and_frames_by_path blobs_by_path
else
    skip s3_blobs_and_frames_by_path "ffmpeg not installed"
fi

# ---- erasure ---------------------------------------------------------------
V=s3://vtables/t
"$INGOT" import "$WORK/t.csv" "$V" >/dev/null 2>&1
"$INGOT" import --append "$WORK/t.csv" "$V" >/dev/null 2>&1 # two parts
mkdir -p "$WORK/mnt3"
"$INGOT" mount -o poll_ms=300 "$V" "$WORK/mnt3"
versions_of() { s3 GET "/vtables?prefix=t%2F$1&versions=" | grep -o "<Version>" | wc -l; }
# an append of no rows (a header alone) writes no object and no object version
empty_append() {
    local before
    before=$(versions_of)
    head -1 "$WORK/t.csv" >"$WORK/header.csv"
    "$INGOT" import --append "$WORK/header.csv" "$V" 2>&1 | grep -q 'nothing appended, the table is unchanged' || return 1
    [ "$(versions_of)" = "$before" ] || { echo "object versions: $before, now $(versions_of)"; return 1; }
    [ "$("$INGOT" versions --json "$V" | jq length)" = 2 ] || { "$INGOT" versions "$V"; return 1; }
}
check s3_append_of_no_rows_writes_nothing empty_append
erase_cli() {
    local before
    grep -q '"caption 5 ' "$WORK/mnt3/rows/5" || return 1
    [ "$(versions_of part-000000.ingot)" = 1 ] || return 1
    "$INGOT" erase --row 5 --where user=7 "$V" || return 1
    "$INGOT" cat --rows 5 "$V" 2>/dev/null && { echo "row 5 still there"; return 1; }
    [ "$("$INGOT" cat "$V" user | grep -cx 7)" = 0 ] || { echo "user 7 still there"; return 1; }
    # every older version of every replaced object is gone: only the new one
    [ "$(versions_of part-000000.ingot)" = 1 ] || { echo "old versions of part 0 remain"; return 1; }
    [ "$(versions_of part-000001.ingot)" = 1 ] || { echo "old versions of part 1 remain"; return 1; }
    "$INGOT" verify "$V" | grep -q "none holding an erased value" || return 1
    s3 GET /vtables/t/.ingot/erasures | tail -1 | grep -q 'removed="part-000000.ingot@' || { echo "audit"; return 1; }
}
check s3_erase_cli_leaves_no_older_version erase_cli
erase_rm() {
    rm "$WORK/mnt3/rows/9" || return 1
    [ ! -e "$WORK/mnt3/rows/9" ] || return 1
    "$INGOT" cat --rows 9 "$V" 2>/dev/null && return 1
    grep -q '"caption 9 ' "$WORK/mnt3/columns/caption" && return 1
    "$INGOT" verify "$V" >/dev/null
}
check s3_erase_through_rm erase_rm
older_version_found() {
    # an older version an erase did not make (put back by hand) is found
    local key=/vtables/t/part-000000.ingot
    s3 GET "$key" -o "$WORK/p0"
    s3 PUT "$key" --data-binary @"$WORK/p0" -o /dev/null
    s3 PUT "$key" --data-binary @"$WORK/p0" -o /dev/null
    if "$INGOT" verify "$V" >"$WORK/vout" 2>&1; then echo "verify passed"; return 1; fi
    grep -q "older version of an object with erased rows" "$WORK/vout" || { cat "$WORK/vout"; return 1; }
    "$INGOT" erase --row 11 "$V" >/dev/null && "$INGOT" verify "$V" >/dev/null
}
check s3_verify_finds_an_older_version older_version_found

# every_fault_step STEP [MAX]: STEP N runs a writer killed after its Nth
# durable step (INGOT_FAULT_AFTER=N), leaves the writer's exit status in `st`
# and checks what the kill left; N = 1, 2, ... until the writer runs to its end
# (st is not 137: every step was tried), at most MAX (30) steps
every_fault_step() {
    local n=1 st
    while :; do
        "$1" $n || return 1
        [ "$st" = 137 ] || break
        n=$((n + 1))
        [ $n -le "${2:-30}" ] || { echo "more than ${2:-30} steps?"; return 1; }
    done
    echo "$((n - 1)) steps killed"
}

# a kill at every step of an erase: the table reads (each row whole or gone),
# and the erase completes by the next command
erase_step() {
    local n=$1 out r
    local K=s3://tables/k$n
    "$INGOT" import "$WORK/t.csv" "$K" >/dev/null 2>&1 && "$INGOT" import --append "$WORK/t.csv" "$K" >/dev/null 2>&1 ||
        return 1
    INGOT_FAULT_AFTER=$n "$INGOT" erase --row 3 --row 30003 "$K" >/dev/null 2>&1
    st=$?
    for r in 3 30003; do
        out=$("$INGOT" cat --rows $r "$K" 2>&1)
        if grep -q '"caption' <<<"$out"; then :; elif grep -q "no such row" <<<"$out"; then :; else
            echo "step $n: row $r unreadable: $out"; return 1
        fi
    done
    "$INGOT" verify "$K" >/dev/null || { echo "step $n: verify"; return 1; }
    for r in 3 30003; do
        "$INGOT" cat --rows $r "$K" >/dev/null 2>&1 && { echo "step $n: row $r not erased after recovery"; return 1; }
    done
    return 0 # (the loop's status is the last cat's, which fails)
}
check s3_kill_at_every_erase_step every_fault_step erase_step 20

# a kill inside the multipart upload that replaces a part: the upload is left
# incomplete (its parts copy the old object, the erased row too), verify says
# so before anything replays it, and the replay aborts it
kill_mid_upload() {
    /usr/bin/python3 -c "
import numpy as np
np.save('$WORK/v12.npy', np.random.default_rng(3).standard_normal((12288, 256), dtype=np.float32))" || return 1
    local U=s3://vtables/mu n left=0
    "$INGOT" import --part-size 0 "$WORK/v12.npy" "$U" >/dev/null 2>&1 || return 1
    uploads() { s3 GET '/vtables?prefix=mu%2F&uploads=' | grep -c '<Upload>'; }
    for n in 2 3 4 5; do
        # a 12 MiB part: changed ranges uploaded, the rest copied, a step each
        INGOT_S3_PATCH_WHOLE_MB=1 INGOT_FAULT_AFTER=$n "$INGOT" erase --row $((7000 + n)) "$U" >/dev/null 2>&1
        [ "$(uploads)" -gt 0 ] && left=$((left + 1))
        "$INGOT" verify "$U" >/dev/null || { echo "step $n: verify"; return 1; }
        [ "$(uploads)" = 0 ] || { echo "step $n: an upload is left after the replay"; return 1; }
        "$INGOT" cat --rows $((7000 + n)) "$U" >/dev/null 2>&1 && { echo "step $n: row not erased"; return 1; }
    done
    [ $left -gt 0 ] || { echo "no kill fell inside an upload"; return 1; }
    # verify reading the listing alone (a reader that cannot write) names one
    s3 POST '/vtables/mu/part-000000.ingot?uploads=' -o /dev/null
    local out
    out=$("$INGOT" verify "$U" 2>&1) && { echo "verify passed with an upload left"; return 1; }
    grep -q "a multipart upload never completed" <<<"$out" || { echo "$out"; return 1; }
    "$INGOT" gc --keep 1 "$U" | grep -q "aborted 1 multipart upload" && "$INGOT" verify "$U" >/dev/null
}
check s3_kill_inside_an_upload_leaves_nothing kill_mid_upload

# a part object replaced by a multipart upload whose copied ranges go in
# pieces of at most 10 MiB, several in flight at once (INGOT_S3_PART_PARALLEL): each
# lands as its own numbered part, so every row but the erased one reads back
# as it was, in order
parts_in_parallel() {
    /usr/bin/python3 -c "
import numpy as np
np.save('$WORK/v40.npy', np.random.default_rng(5).standard_normal((40960, 256), dtype=np.float32))" || return 1
    local P=s3://vtables/pp out copied
    "$INGOT" import --part-size 0 "$WORK/v40.npy" "$P" >/dev/null 2>&1 || return 1
    "$INGOT" cat "$P" v40 | sed '20001d' >"$WORK/pp.before" || return 1
    out=$(INGOT_S3_COPY_PART_MB=10 INGOT_S3_PART_PARALLEL=4 "$INGOT" erase --row 20000 "$P" 2>&1) || { echo "$out"; return 1; }
    copied=$(sed -n 's/.* \([0-9]*\) copied by the store.*/\1/p' <<<"$out")
    # (the part ~34 MB: Gaussian floats stored as expo, 0.84 of their bytes)
    [ "${copied:-0}" -ge $((25 << 20)) ] || { echo "copied ${copied:-?}: $out"; return 1; }
    "$INGOT" verify "$P" >/dev/null || return 1
    "$INGOT" cat --rows 20000 "$P" >/dev/null 2>&1 && { echo "row 20000 not erased"; return 1; }
    "$INGOT" cat "$P" v40 | cmp - "$WORK/pp.before" || { echo "the other rows changed"; return 1; }
    rm -f "$WORK/v40.npy" "$WORK/pp.before"
}
check s3_erase_copies_parts_in_parallel parts_in_parallel

# two mounts of one table are two hosts: an erase through one reaches the other
two_hosts() {
    mkdir -p "$WORK/mnt4"
    "$INGOT" mount -o poll_ms=300 "$V" "$WORK/mnt4" || return 1
    grep -q '"caption 21 ' "$WORK/mnt4/rows/21" || return 1
    rm "$WORK/mnt3/rows/21" || return 1
    local t0 ms=""
    t0=$(date +%s%N)
    for _ in $(seq 60); do
        [ -e "$WORK/mnt4/rows/21" ] || { ms=$((($(date +%s%N) - t0) / 1000000)); break; }
        sleep 0.05
    done
    [ -n "$ms" ] || { echo "the other mount still serves row 21 after 3 s"; return 1; }
    grep -q '"caption 21 ' "$WORK/mnt4/columns/caption" && return 1
    echo "the other mount dropped row 21 after $ms ms (poll_ms 300)"
}
check s3_two_mounts_two_hosts two_hosts

racing_writers() {
    local pids=() r
    for r in 100 200 300 400; do "$INGOT" erase --row $r "$V" >/dev/null 2>"$WORK/race.$r" & pids+=($!); done
    "$INGOT" import --append "$WORK/t.csv" "$V" >/dev/null 2>"$WORK/race.append" & pids+=($!)
    for p in "${pids[@]}"; do wait "$p" || { cat "$WORK"/race.*; return 1; }; done
    for r in 100 200 300 400; do "$INGOT" cat --rows $r "$V" 2>/dev/null && return 1; done
    "$INGOT" inspect "$V" | grep -Eq "^rows +90000 " || { echo "not 90000 rows"; return 1; }
    [ "$(s3 GET /vtables/t/.ingot/erasures | grep -c 'request="row [1-4]00"')" = 4 ] || return 1
    "$INGOT" verify "$V" >/dev/null
}
check s3_racing_writers_serialise racing_writers
held_lock() {
    # another host's writer holds the lock: a writer waits, then fails naming
    # it, changing nothing; once the holder stops renewing, it is taken over
    local before out
    before=$(s3 GET /tables/t/MANIFEST | md5sum)
    s3 PUT /tables/t/.ingot/lock/otherhost-4242-0000000000000000 --data-binary x -o /dev/null
    out=$(INGOT_S3_LOCK_WAIT_S=1 "$INGOT" erase --row 1 "$T" 2>&1) && { echo "erased under another's lock"; return 1; }
    grep -q "locked by another writer (otherhost-4242" <<<"$out" || { echo "$out"; return 1; }
    [ "$(s3 GET /tables/t/MANIFEST | md5sum)" = "$before" ] || return 1
    "$INGOT" cat --rows 1 "$T" >/dev/null || return 1
    INGOT_S3_LOCK_LEASE_S=0 "$INGOT" erase --row 1 "$T" >/dev/null || return 1
    [ -z "$(s3 GET '/tables?list-type=2&prefix=t%2F.ingot%2Flock%2F' | grep -o '<Key>')" ] || { echo "lock left"; return 1; }
}
check s3_writer_losing_the_lock_fails_cleanly held_lock

# ---- bounded parts: an import cut into parts, an erase rewriting only its own
C=s3://vtables/c
etag_of() { s3 HEAD "/vtables/c/$1" -I | tr -d '\r' | awk 'tolower($1) == "etag:" { print $2 }'; }
cut_import() {
    "$INGOT" import --rows-per-group 4096 --part-size 64K "$WORK/t.csv" "$C" >/dev/null 2>&1 || return 1
    local n
    n=$(s3 GET /vtables/c/MANIFEST | grep -c '^part ')
    [ "$n" -ge 4 ] || { echo "$n parts"; return 1; }
    [ "$("$INGOT" cat "$C" caption | md5sum)" = "$("$INGOT" cat "$WORK/local" caption | md5sum)" ] || return 1
    # rows on both sides of every part's first row, by the CLI and the mount
    local ids
    ids=$(s3 GET /vtables/c/MANIFEST | awk '$1 == "part" && $3 > 0 { printf "%s%d,%d", s, $3 - 1, $3; s = "," }')
    [ "$("$INGOT" cat --rows "$ids" "$C")" = "$("$INGOT" cat --rows "$ids" "$WORK/local")" ] || { echo "rows $ids"; return 1; }
    mkdir -p "$WORK/mnt5"
    "$INGOT" mount "$C" "$WORK/mnt5" || return 1
    local r
    for r in ${ids//,/ }; do
        [ "$(jq -c . "$WORK/mnt5/rows/$r")" = "$("$INGOT" cat --rows "$r" "$WORK/local" | jq -c .)" ] || { echo "rows/$r"; return 1; }
    done
    [ "$(ls "$WORK/mnt5/parquet" | wc -l)" = "$("$INGOT" inspect "$C" | awk '$1 == "row" && $2 == "groups" { print $3 }')" ] ||
        { echo "a Parquet view per row group"; ls "$WORK/mnt5/parquet"; return 1; }
    fusermount3 -u "$WORK/mnt5"
    "$INGOT" verify "$C" >/dev/null && echo "$n parts"
}
check s3_import_cut_into_parts cut_import

# an import into object storage builds its parts in a local stage and uploads
# them at the end: a line of its own (INGOT_TEST_PROGRESS draws every update),
# a step a part file, never backwards, ending at the whole and erased
upload_lines() {
    local err steps
    err=$(INGOT_TEST_PROGRESS=1 "$INGOT" import --rows-per-group 4096 --part-size 64K "$WORK/t.csv" \
        s3://vtables/prog 2>&1 >/dev/null) || { echo "$err"; return 1; }
    grep -qE "importing .*t.csv: +[0-9]+%" <<<"$err" || { echo "no import line"; return 1; }
    grep -qE "uploading to s3://vtables/prog: 100% [0-9.]+ [KM]iB of [0-9.]+ [KM]iB" <<<"$err" ||
        { tr '\r' '\n' <<<"$err" | tail -3; return 1; }
    steps=$(tr '\r' '\n' <<<"$err" | grep -oE "uploading to s3://vtables/prog: +[0-9]+%" | grep -oE "[0-9]+%$" | tr -d %)
    awk 'NR > 1 && $1 < last { bad = 1 } { last = $1; n++ } END { exit !(n >= 4 && !bad) }' <<<"$steps" ||
        { echo "steps:" $steps; return 1; }
    # erased before the import's summary
    [[ "$err" == *$'\r\033[K'"s3://vtables/prog: "*" rows "* ]] || { echo "line not erased at the end"; return 1; }
    err=$("$INGOT" import "$WORK/t.csv" s3://vtables/quiet 2>&1 >/dev/null) || return 1
    grep -q "uploading" <<<"$err" && { echo "a line without a terminal: $err"; return 1; }
    "$INGOT" verify s3://vtables/prog >/dev/null
}
check s3_import_upload_draws_its_line upload_lines
erase_one_part() {
    local parts firsts e_before e_after out k
    parts=($(s3 GET /vtables/c/MANIFEST | awk '$1 == "part" { print $2 }'))
    firsts=($(s3 GET /vtables/c/MANIFEST | awk '$1 == "part" { print $3 }'))
    e_before=$(for p in "${parts[@]}"; do etag_of "$p"; done)
    # a row of part 1: only that object is written again
    out=$("$INGOT" erase --row $((firsts[1] + 5)) "$C" 2>&1) || { echo "$out"; return 1; }
    grep -q "1 object replaced" <<<"$out" || { echo "$out"; return 1; }
    e_after=$(for p in "${parts[@]}"; do etag_of "$p"; done)
    [ "$(diff <(echo "$e_before") <(echo "$e_after") | grep -c '^>')" = 1 ] &&
        [ "$(etag_of "${parts[1]}")" != "$(sed -n 2p <<<"$e_before")" ] ||
        { echo "not exactly part 1 rewritten"; return 1; }
    "$INGOT" cat --rows $((firsts[1] + 5)) "$C" 2>/dev/null && return 1
    grep -q "replacing" <<<"$out" && { echo "a line without a terminal: $out"; return 1; }
    # rows spread over three parts: three objects, each with no older version;
    # after the erase's line the replacement draws its own, from 0 to the
    # three new objects' bytes (a HEAD of each ahead), never backwards, erased
    local total=0 steps row p
    out=$(INGOT_TEST_PROGRESS=1 "$INGOT" erase --row 1 --row $((firsts[2] + 1)) --row 29999 "$C" 2>&1) ||
        { echo "$out"; return 1; }
    for row in 1 $((firsts[2] + 1)) 29999; do # each in its own part
        for p in "${!firsts[@]}"; do [ "${firsts[$p]}" -le "$row" ] && k=$p; done
        total=$((total + $(s3 HEAD "/vtables/c/${parts[$k]}" -I | tr -d '\r' |
            awk 'tolower($1) == "content-length:" { print $2 }')))
    done
    grep -q "3 objects replaced" <<<"$out" || { echo "$out"; return 1; }
    grep -qE "erasing: +[0-9]+%" <<<"$out" || { echo "no erase line"; return 1; }
    steps=$(tr '\r' '\n' <<<"$out" | grep -oE "replacing objects of s3://vtables/c: +[0-9]+% [0-9.]+ [KMG]?i?B of [0-9.]+ [KMG]?i?B")
    grep -qE ": +0% 0 B of " <<<"$(head -1 <<<"$steps")" || { echo "first: $(head -1 <<<"$steps")"; return 1; }
    tail -1 <<<"$steps" | grep -qE ": 100% " || { echo "last: $(tail -1 <<<"$steps")"; return 1; }
    tail -1 <<<"$steps" | grep -qF " of $(/usr/bin/python3 -c "
v, i = float($total), 0
while v >= 1024 and i < 2: v, i = v / 1024, i + 1
print('%d B' % v if i == 0 else '%.1f %s' % (v, ['', 'KiB', 'MiB'][i]))")" ||
        { echo "total $total: $(tail -1 <<<"$steps")"; return 1; }
    sed -E 's/%.*//; s/.*: +//' <<<"$steps" | awk 'NR > 1 && $1 < last { bad = 1 } { last = $1 } END { exit bad }' ||
        { echo "backwards: $steps"; return 1; }
    [[ "$out" == *$'\r\033[K'"$C: erased 3 rows"* ]] || { echo "line not erased at the end"; return 1; }
    for k in "${parts[@]}"; do
        [ "$(s3 GET "/vtables?prefix=c%2F$k&versions=" | grep -o "<Version>" | wc -l)" = 1 ] || { echo "older $k"; return 1; }
    done
    "$INGOT" verify "$C" | grep -q "none holding an erased value"
}
check s3_erase_rewrites_only_the_parts_it_touches erase_one_part

# ---- tags and gc ------------------------------------------------------------
tags_on_s3() {
    "$INGOT" tag "$C" first 1 | grep -q "names version 1" || return 1
    "$INGOT" tag "$C" now | grep -q "names version 3" || return 1
    # the current version is MANIFEST's: a tag reads no part (one gone, it
    # still tags; a part object's footer was a request or two per part)
    "$INGOT" import --rows-per-group 4096 --part-size 64K "$WORK/t.csv" s3://tables/tagonly >/dev/null 2>&1 || return 1
    s3 DELETE /tables/tagonly/part-000001.ingot -o /dev/null
    "$INGOT" tag s3://tables/tagonly first | grep -q "names version 1" || { echo "a tag read the parts"; return 1; }
    "$INGOT" versions "$C" | grep -q "\[first\]" || return 1
    # the tagged version reads as it was, less the rows erased since
    "$INGOT" cat --version first --rows 0,2 "$C" | grep -q '"caption 2 ' || return 1
    "$INGOT" cat --version first --rows 1 "$C" 2>/dev/null && { echo "an erased row in version 1"; return 1; }
    expect_fail_quiet() { ! "$@" >/dev/null 2>&1; }
    expect_fail_quiet "$INGOT" tag "$C" nope 99 || return 1
    "$INGOT" tag --delete "$C" now >/dev/null || return 1
    expect_fail_quiet "$INGOT" tag --delete "$C" now || return 1
    mkdir -p "$WORK/mnt6"
    "$INGOT" mount "$C" "$WORK/mnt6" || return 1
    [ "$(readlink "$WORK/mnt6/tags/first")" = ../versions/1 ] || { ls -l "$WORK/mnt6/tags"; return 1; }
    # a tag made while mounted (another host's, as far as the mount knows)
    "$INGOT" tag "$C" mid 2 >/dev/null || return 1
    local k
    for k in $(seq 30); do [ "$(readlink "$WORK/mnt6/tags/mid" 2>/dev/null)" = ../versions/2 ] && break; sleep 0.1; done
    [ "$(readlink "$WORK/mnt6/tags/mid")" = ../versions/2 ] || { echo "the mount does not show a new tag"; return 1; }
    "$INGOT" tag --delete "$C" mid >/dev/null || return 1
    fusermount3 -u "$WORK/mnt6"
    # another writer holds the lock: the tag waits, fails naming it, changes nothing
    local before out
    before=$(s3 GET /vtables/c/.ingot/tags | md5sum)
    s3 PUT /vtables/c/.ingot/lock/otherhost-4243-0000000000000000 --data-binary x -o /dev/null
    out=$(INGOT_S3_LOCK_WAIT_S=1 "$INGOT" tag "$C" late 2>&1) && { echo "tagged under another's lock"; return 1; }
    grep -q "locked by another writer (otherhost-4243" <<<"$out" || { echo "$out"; return 1; }
    [ "$(s3 GET /vtables/c/.ingot/tags | md5sum)" = "$before" ] || return 1
    s3 DELETE /vtables/c/.ingot/lock/otherhost-4243-0000000000000000 -o /dev/null
    "$INGOT" tag "$C" late >/dev/null && "$INGOT" tag --delete "$C" late >/dev/null
}
check s3_tag_under_the_writers_lock tags_on_s3
listing() { s3 GET "/vtables?prefix=$1%2F&versions=" | grep -o "<Key>[^<]*</Key><VersionId>[^<]*</VersionId><IsLatest>[a-z]*" | sed 's/<[^>]*>/ /g'; }
gc_on_s3() {
    local out
    # a killed import's object, which no version names
    s3 PUT /vtables/c/part-000099.ingot --data-binary @"$WORK/t.csv" -o /dev/null
    # an object whose name only looks like a part's (not MANIFEST's form): not gc's
    s3 PUT /vtables/c/part-notes.ingot --data-binary x -o /dev/null
    # and an upload a killed writer started and never completed
    s3 POST '/vtables/c/part-000098.ingot?uploads=' -o /dev/null
    [ "$(s3 GET '/vtables?prefix=c%2F&uploads=' | grep -c '<Upload>')" = 1 ] || return 1
    out=$("$INGOT" verify "$C" 2>&1) && { echo "verify passed with a stray object and upload"; return 1; }
    grep -q "^FAIL part-000098.ingot: a multipart upload never completed" <<<"$out" || { echo "$out"; return 1; }
    grep -q "^FAIL part-000099.ingot.*: not part of the table.*ingot gc deletes it" <<<"$out" || { echo "$out"; return 1; }
    grep -q "^FAIL part-notes.ingot.*: not part of the table.*ingot gc leaves it" <<<"$out" || { echo "$out"; return 1; }
    "$INGOT" import --append "$WORK/t.csv" "$C" >/dev/null 2>&1 || return 1
    out=$("$INGOT" gc --keep 1 "$C") || { echo "$out"; return 1; }
    grep -q "removed 2 versions (2-3); kept 1,4" <<<"$out" || { echo "$out"; return 1; }
    grep -q "deleted 1 part object" <<<"$out" || { echo "$out"; return 1; }
    grep -q "aborted 1 multipart upload" <<<"$out" || { echo "$out"; return 1; }
    [ "$(s3 GET '/vtables?prefix=c%2F&uploads=' | grep -c '<Upload>')" = 0 ] || { echo "an upload is left"; return 1; }
    listing c | grep -q part-000099 && { echo "the stray object is left"; return 1; }
    listing c | grep -q part-notes.ingot || { echo "gc deleted an object no part is named as"; return 1; }
    s3 DELETE "/vtables/c/part-notes.ingot?versionId=$(listing c | awk '$1 == "c/part-notes.ingot" { print $2 }')" -o /dev/null
    listing c | grep -E 'MANIFEST|tags|versions/' | grep -q false && { echo "older versions of the table's files left"; listing c; return 1; }
    listing c | grep -q 'versions/000000000[23]' && return 1
    out=$("$INGOT" cat --version 2 --rows 0 "$C" 2>&1) && { echo "version 2 still reads"; return 1; }
    grep -q "removed by ingot gc" <<<"$out" || { echo "$out"; return 1; }
    "$INGOT" cat --version first --rows 0 "$C" | grep -q '"caption 0 ' || return 1
    [ "$("$INGOT" cat "$C" caption | wc -l)" = 59996 ] || return 1
    "$INGOT" verify "$C" >/dev/null
}
check s3_gc_deletes_objects_no_kept_version_names gc_on_s3
gc_step() {
    # a kill at every step of gc (a dropped column's pages released, objects
    # deleted): the versions kept read, and gc run again finishes
    local n=$1 G=s3://vtables/g$1
    "$INGOT" import "$WORK/t.csv" "$G" >/dev/null 2>&1 && "$INGOT" erase --row 3 "$G" >/dev/null 2>&1 &&
        "$INGOT" import --append "$WORK/t.csv" "$G" >/dev/null 2>&1 &&
        "$INGOT" drop-column "$G" score >/dev/null 2>&1 || return 1
    s3 PUT "/vtables/g$n/part-000077.ingot" --data-binary x -o /dev/null
    INGOT_FAULT_AFTER=$n "$INGOT" gc --keep 1 "$G" >/dev/null 2>&1
    st=$?
    [ "$("$INGOT" cat "$G" caption | wc -l)" = 59999 ] || { echo "step $n: the table does not read"; return 1; }
    "$INGOT" cat --rows 3 "$G" >/dev/null 2>&1 && { echo "step $n: row 3"; return 1; }
    "$INGOT" gc --keep 1 "$G" >/dev/null || { echo "step $n: gc again"; return 1; }
    listing "g$n" | grep -q part-000077 && { echo "step $n: the stray object is left"; return 1; }
    "$INGOT" verify "$G" >/dev/null || { echo "step $n: verify"; return 1; }
}
check s3_kill_at_every_gc_step every_fault_step gc_step 20

# ---- the table evolves on object storage --------------------------------------
# Columns added (from .npy and from a keyed CSV), updated, replaced, renamed,
# restored and dropped on a bucket that keeps versions: each a new table version; each part object
# replaced by one with the new columns after its bytes, no older object
# version left; a mount (another host) sees each version; older versions read.
E=s3://vtables/ev
ev_versions_of() { s3 GET "/vtables?prefix=ev%2F$1&versions=" | grep -o "<Version>" | wc -l; }
evolve_on_s3() {
    "$INGOT" import "$WORK/t.csv" "$E" >/dev/null 2>&1 && "$INGOT" import --append "$WORK/t.csv" "$E" >/dev/null 2>&1 ||
        return 1
    mkdir -p "$WORK/mnt_ev"
    "$INGOT" mount -o poll_ms=300 "$E" "$WORK/mnt_ev" || return 1
    /usr/bin/python3 -c "
import numpy as np
np.save('$WORK/emb.npy', np.arange(60000 * 8, dtype=np.float32).reshape(60000, 8))" || return 1
    "$INGOT" add-column "$E" "$WORK/emb.npy" | grep -q "version 3" || { echo "add-column emb.npy"; return 1; }
    printf '_rowid,label\n17,seventeen\n30017,thirty\n' >"$WORK/label.csv"
    "$INGOT" add-column "$E" "$WORK/label.csv" | grep -q "version 4" || { echo "add-column label"; return 1; }
    printf '_rowid,score\n17,0.5\n' >"$WORK/score.csv"
    "$INGOT" update "$E" --column score --from "$WORK/score.csv" | grep -q "version 5" || { echo update; return 1; }
    "$INGOT" drop-column "$E" user | grep -q "version 6" || { echo drop-column; return 1; }
    local r
    r=$("$INGOT" cat --rows 17 "$E") || return 1
    [ "$(jq -c '[.label, .score, .emb[0], .emb[7], has("user")]' <<<"$r")" = '["seventeen",0.5,136,143,false]' ] ||
        { echo "row 17: $r"; return 1; }
    [ "$(jq -r .label <<<"$("$INGOT" cat --rows 30017 "$E")")" = thirty ] || { echo "row 30017"; return 1; }
    r=$("$INGOT" cat --version 2 --rows 17 "$E") || return 1
    [ "$(jq -c '[has("label"), has("emb"), .user, .score == 0.5]' <<<"$r")" = '[false,false,17,false]' ] ||
        { echo "version 2, row 17: $r"; return 1; }
    [ "$("$INGOT" versions "$E" | grep -cE 'add-column|update|drop-column')" = 4 ] || { "$INGOT" versions "$E"; return 1; }
    local p
    for p in part-000000.ingot part-000001.ingot; do
        [ "$(ev_versions_of $p)" = 1 ] || { echo "older versions of $p remain"; return 1; }
    done
    [ "$(s3 HEAD /vtables/ev/.ingot/commit -I -o /dev/null -w '%{http_code}')" = 404 ] || { echo "a commit record is left"; return 1; }
    # the footer each change superseded keeps no value: version 2's footer of
    # part 0 holds no chunk bound (the scores' least and greatest there), the
    # current one does
    local end
    end=$(s3 GET /vtables/ev/.ingot/versions/0000000002 | sed -n 's/^part part-000000.ingot .*footer=\([0-9]*\).*/\1/p')
    [ -n "$end" ] && s3 GET /vtables/ev/part-000000.ingot -o "$WORK/part0" || return 1
    /usr/bin/python3 - "$WORK/part0" "$end" "$WORK/t.csv" <<'PY' || { echo "version 2's footer keeps bounds"; return 1; }
import struct, sys
b, end = open(sys.argv[1], 'rb').read(), int(sys.argv[2])
scores = [float(l.rsplit(',', 1)[1]) for l in open(sys.argv[3]).read().split('\n')[1:30001]]
foff, fsize = struct.unpack_from('<QQ', b, end - 64)
assert b[end - 8:end] == b'INGOTEND' and foff + fsize + 64 == end, 'no sealed tail at the old end'
old, new = b[foff:foff + fsize], b[end:]
for v in (min(scores), max(scores)):
    assert struct.pack('<d', v) in new, ('the new footer lacks', v)
    assert struct.pack('<d', v) not in old, ('the old footer keeps', v)
PY
    # the mount, opened at version 2, follows (it polls MANIFEST every 300 ms)
    for _ in $(seq 60); do
        [ -e "$WORK/mnt_ev/columns/label" ] && ! [ -e "$WORK/mnt_ev/columns/user" ] && break
        sleep 0.05
    done
    [ "$(jq -r .label "$WORK/mnt_ev/rows/17")" = seventeen ] || { echo "the mount does not show label"; return 1; }
    [ -e "$WORK/mnt_ev/columns/user" ] && { echo "the mount still shows user"; return 1; }
    /usr/bin/python3 -c "
import numpy as np
a = np.load('$WORK/mnt_ev/columns/emb.npy', mmap_mode='r')
assert a.shape == (60000, 8), a.shape
assert a[30017, 3] == 30017 * 8 + 3, a[30017]
" || { echo "emb.npy through the mount"; return 1; }
    # a blob column: each part's blob object made, then appended to (replaced)
    mkdir -p "$WORK/pics"
    local i k
    for k in 1 2; do
        for i in 17 30017; do rand_blob $((900 + i % 100 + k)) "$WORK/pics/$k-$i.bin"; done
        printf '{"_rowid":17,"pic":"%s"}\n{"_rowid":30017,"pic":"%s"}\n' "$WORK/pics/$k-17.bin" "$WORK/pics/$k-30017.bin" >"$WORK/pics/$k.jsonl"
    done
    printf '_rowid int64\npic blob?\n' >"$WORK/pics/schema.txt"
    "$INGOT" add-column --schema "$WORK/pics/schema.txt" "$E" "$WORK/pics/1.jsonl" >/dev/null || { echo "add-column pic"; return 1; }
    "$INGOT" replace-column --schema "$WORK/pics/schema.txt" "$E" "$WORK/pics/2.jsonl" >/dev/null || { echo "replace-column pic"; return 1; }
    for _ in $(seq 60); do [ -e "$WORK/mnt_ev/versions/8/blobs/pic/17" ] && break; sleep 0.05; done
    for k in 1 2; do
        for i in 17 30017; do
            cmp -s "$WORK/mnt_ev/versions/$((6 + k))/blobs/pic/$i" "$WORK/pics/$k-$i.bin" ||
                { ls "$WORK/mnt_ev/versions/$((6 + k))/blobs/pic"; echo "version $((6 + k)): blob $i"; return 1; }
        done
    done
    # through the mount: a column written as a .npy, another removed
    /usr/bin/python3 -c "
import numpy as np
np.save('$WORK/mnt_ev/columns/w.npy', np.arange(60000, dtype=np.int64) * 3)" || { echo "writing columns/w.npy"; return 1; }
    [ "$("$INGOT" cat --rows 30017 "$E" | jq .w)" = 90051 ] || { echo "w through the mount"; return 1; }
    rm "$WORK/mnt_ev/columns/label" || return 1
    "$INGOT" cat --rows 17 "$E" | jq -e 'has("label") | not' >/dev/null || { echo "label stays"; return 1; }
    "$INGOT" verify "$E" >/dev/null || { echo verify; return 1; }
    # renamed through the CLI (MANIFEST alone: no part object replaced), then
    # through the mount once it shows the new name
    local tag0 vbefore
    tag0=$(s3 HEAD /vtables/ev/part-000000.ingot -I | grep -i '^etag')
    vbefore=$("$INGOT" versions --json "$E" | jq '.[-1].version')
    "$INGOT" rename-column "$E" score grade | grep -q "renamed 'score' to 'grade'" || { echo rename-column; return 1; }
    [ "$(s3 HEAD /vtables/ev/part-000000.ingot -I | grep -i '^etag')" = "$tag0" ] || { echo "rename-column replaced a part"; return 1; }
    for _ in $(seq 60); do [ -e "$WORK/mnt_ev/columns/grade.npy" ] && break; sleep 0.05; done
    mv "$WORK/mnt_ev/columns/grade.npy" "$WORK/mnt_ev/columns/mark.npy" || { echo "mv through the mount"; return 1; }
    [ "$("$INGOT" cat --rows 17 "$E" | jq -c '[.mark, has("score"), has("grade")]')" = '[0.5,false,false]' ] ||
        { echo "row 17 after the renames"; return 1; }
    # the columns before the renames restored (a version alone), then renamed again
    "$INGOT" restore-columns "$E" "$vbefore" >/dev/null || { echo restore-columns; return 1; }
    [ "$("$INGOT" cat --rows 17 "$E" | jq -c '[.score, has("mark")]')" = '[0.5,false]' ] || { echo "row 17 restored"; return 1; }
    [ "$(s3 HEAD /vtables/ev/part-000000.ingot -I | grep -i '^etag')" = "$tag0" ] || { echo "restore-columns replaced a part"; return 1; }
    "$INGOT" rename-column "$E" score mark >/dev/null || return 1
    # moved first: MANIFEST alone again
    "$INGOT" move-column "$E" mark --first >/dev/null || { echo move-column; return 1; }
    [ "$("$INGOT" cat --rows 17 "$E" | jq -r 'keys_unsorted[0]')" = mark ] || { echo "row 17 after the move"; return 1; }
    [ "$(s3 HEAD /vtables/ev/part-000000.ingot -I | grep -i '^etag')" = "$tag0" ] || { echo "move-column replaced a part"; return 1; }
    # a part of 10.6 MB (12 MiB of Gaussian floats as expo), patched by a
    # multipart upload: its bytes copied by the store
    /usr/bin/python3 -c "
import numpy as np
np.save('$WORK/ev12.npy', np.random.default_rng(4).standard_normal((12288, 256), dtype=np.float32))
np.save('$WORK/ev12c.npy', np.arange(12288, dtype=np.int32))" || return 1
    "$INGOT" import --part-size 0 "$WORK/ev12.npy" s3://tables/ev12 >/dev/null 2>&1 || return 1
    r=$(INGOT_TEST_PROGRESS=1 INGOT_S3_PATCH_WHOLE_MB=1 "$INGOT" add-column --json s3://tables/ev12 "$WORK/ev12c.npy" \
        2>"$WORK/ev12.err") || { cat "$WORK/ev12.err"; return 1; }
    jq -e '.objects_replaced == 1 and .bytes_copied >= 10000000 and .bytes_uploaded < .bytes_copied' <<<"$r" >/dev/null ||
        { echo "12 MiB part: $r"; return 1; }
    # its lines: the rows, then the object's replacement from 0 to 100 %
    tr '\r' '\n' <"$WORK/ev12.err" | grep -q "^.*add-column: 100% 12288 of 12288 rows" &&
        tr '\r' '\n' <"$WORK/ev12.err" | grep -q "replacing objects of s3://tables/ev12:   0% 0 B of 10" &&
        tr '\r' '\n' <"$WORK/ev12.err" | grep -q "replacing objects of s3://tables/ev12: 100% " ||
        { echo "12 MiB part: the lines"; tr '\r' '\n' <"$WORK/ev12.err"; return 1; }
    [ "$("$INGOT" cat --rows 12000 s3://tables/ev12 | jq .ev12c)" = 12000 ] || { echo "12 MiB part: row 12000"; return 1; }
    # an erase reaches the new columns as the old
    "$INGOT" erase --row 30017 "$E" >/dev/null || return 1
    "$INGOT" cat --rows 30017 "$E" >/dev/null 2>&1 && { echo "row 30017 not erased"; return 1; }
    "$INGOT" verify "$E" >/dev/null || { echo "verify after the erase"; return 1; }
    # gc lets the older versions go and zeroes what only they showed: the
    # replaced blob column's object of row 17 (version 7's; row 30017's was
    # erased) leaves the blob object, the current one stays
    r=$("$INGOT" gc --keep 1 --json "$E") || { echo "gc: $r"; return 1; }
    jq -e '.columns >= 3 and .blob_objects == 1 and .objects_replaced >= 2' <<<"$r" >/dev/null || { echo "gc: $r"; return 1; }
    s3 GET /vtables/ev/part-000000.blob -o "$WORK/blob0" || return 1
    /usr/bin/python3 -c "
import sys
b = open('$WORK/blob0', 'rb').read()
old, new = (open(f'$WORK/pics/{k}-17.bin', 'rb').read()[100:164] for k in (1, 2))
sys.exit(0 if new in b and old not in b else 1)" || { echo "the replaced blob stays in part-000000.blob"; return 1; }
    [ "$(ev_versions_of part-000000.blob)" = 1 ] || { echo "older versions of part-000000.blob remain"; return 1; }
    [ "$("$INGOT" cat --rows 17 "$E" | jq -c '[.w, .mark]')" = '[51,0.5]' ] || { echo "row 17 after gc"; return 1; }
    "$INGOT" verify "$E" >/dev/null || return 1
    # rows appended to a changed table: by the version's names, the hidden records NULL
    local P=s3://vtables/ap
    "$INGOT" import "$WORK/t.csv" "$P" >/dev/null 2>&1 && "$INGOT" drop-column "$P" user >/dev/null &&
        "$INGOT" rename-column "$P" score mark >/dev/null || { echo "the table to append to"; return 1; }
    printf 'id,caption,mark\n30000,late,0.25\n' >"$WORK/late.csv"
    "$INGOT" import --append "$WORK/late.csv" "$P" >"$WORK/late.out" 2>&1 || { cat "$WORK/late.out"; echo "append after the changes"; return 1; }
    [ "$("$INGOT" cat --rows 30000 "$P")" = '{"id":30000,"caption":"late","mark":0.25}' ] || { "$INGOT" cat --rows 30000 "$P"; return 1; }
    [ "$("$INGOT" cat --version 1 --rows 29999 "$P" | jq -c 'has("user")')" = true ] || return 1
    "$INGOT" verify "$P" >/dev/null || { echo "verify after the append"; return 1; }
    # a dropped column that cannot be NULL: released in the part appended
    # (staged, then uploaded), version 1 read as it was, restoring it refused
    local Q=s3://vtables/nn
    printf 'id int64\nk int64\n' >"$WORK/nn.schema" && printf 'id,k\n1,10\n2,20\n' >"$WORK/nn.csv"
    "$INGOT" import --schema "$WORK/nn.schema" "$WORK/nn.csv" "$Q" >/dev/null 2>&1 && "$INGOT" drop-column "$Q" k >/dev/null &&
        printf 'id\n3\n' >"$WORK/nn2.csv" && "$INGOT" import --append "$WORK/nn2.csv" "$Q" >/dev/null 2>&1 ||
        { echo "append after dropping a non-nullable column"; return 1; }
    [ "$("$INGOT" cat --version 1 "$Q" k | tr '\n' ,)" = 10,20, ] || { echo "version 1 of nn"; return 1; }
    local out
    out=$("$INGOT" restore-columns "$Q" 1 2>&1) && { echo "restoring the dropped column"; return 1; }
    grep -q "rows appended while it was hidden (part-000001.ingot)" <<<"$out" || { echo "$out"; return 1; }
    "$INGOT" verify "$Q" >/dev/null || { echo "verify nn"; return 1; }
    # two columns swap names in one version; an append that fails after adding
    # its new column takes it away again
    "$INGOT" rename-column "$P" caption mark mark caption >/dev/null || { echo "the swap"; return 1; }
    [ "$("$INGOT" cat --rows 30000 "$P")" = '{"id":30000,"mark":"late","caption":0.25}' ] || { "$INGOT" cat --rows 30000 "$P"; return 1; }
    printf 'id,mark,caption,extra\n30001,x,0.5,1\nbad,y,0.5,2\n' >"$WORK/bad.csv"
    "$INGOT" import --append "$WORK/bad.csv" "$P" >"$WORK/bad.out" 2>&1 && { echo "a bad append was taken"; return 1; }
    grep -q "invalid integer" "$WORK/bad.out" || { cat "$WORK/bad.out"; return 1; }
    "$INGOT" cat --rows 0 "$P" | jq -e 'has("extra") | not' >/dev/null || { echo "the failed append's column stays"; return 1; }
    "$INGOT" verify "$P" >/dev/null || { echo "verify after the failed append"; return 1; }
    "$INGOT" verify "$E" >/dev/null
}
check s3_columns_added_updated_dropped evolve_on_s3

# A kill at every step of an add-column: the table reads throughout, the next
# writer (a tag) or verify settles it, and the column is there with its value or not at
# all; one rolled back leaves zeros past each part's footer, not its values,
# and the part's chunk bounds as they were.
tail_zeros() { # tail_zeros BUCKET PREFIX: every part object's bytes past MANIFEST's footer= are zero
    local m name end
    m=$(s3 GET "/$1/$2/MANIFEST")
    while read -r name end; do
        s3 GET "/$1/$2/$name" -o "$WORK/obj" || return 1
        /usr/bin/python3 -c "
import sys
b = open('$WORK/obj', 'rb').read()[$end:]
sys.exit(0 if b.count(0) == len(b) else 1)" || { echo "$name: bytes past $end"; return 1; }
    done < <(sed -n 's/^part \(part-[0-9]*\.ingot\) .*footer=\([0-9]*\).*/\1 \2/p' <<<"$m")
}
evolve_step() {
    local n=$1 v K=s3://tables/ke
    printf '_rowid,c%s\n5,value%s\n' $n $n >"$WORK/c.csv"
    INGOT_FAULT_AFTER=$n "$INGOT" add-column "$K" "$WORK/c.csv" >/dev/null 2>&1
    st=$?
    "$INGOT" cat --rows 5 "$K" | grep -q '"caption 5 ' || { echo "step $n: row 5 unreadable"; return 1; }
    # settled by the next writer (a tag), or by verify (odd steps)
    if [ $((n % 2)) = 1 ]; then
        "$INGOT" verify "$K" >"$WORK/ke.verify" 2>&1 || { echo "step $n: verify first"; cat "$WORK/ke.verify"; return 1; }
    else
        "$INGOT" tag "$K" "after$n" >/dev/null || { echo "step $n: the next writer"; return 1; }
    fi
    [ "$(s3 HEAD /tables/ke/.ingot/commit -I -o /dev/null -w '%{http_code}')" = 404 ] ||
        { echo "step $n: the record is left"; return 1; }
    v=$("$INGOT" cat --rows 5 "$K" | jq -r ".c$n // \"absent\"")
    case "$st:$v" in
    137:value$n | 137:absent | 0:value$n) ;;
    *) echo "step $n: exit $st, c$n is $v"; return 1 ;;
    esac
    tail_zeros tables ke || { echo "step $n"; return 1; }
    # the footer a rolled-back change left unbounded has its bounds again
    "$INGOT" inspect --json "$K" | jq -e '.columns[] | select(.name == "score") | .min and .max' >/dev/null ||
        { echo "step $n: score has no bounds"; return 1; }
    "$INGOT" verify "$K" >/dev/null || { echo "step $n: verify"; return 1; }
}
kill_evolve() {
    "$INGOT" import "$WORK/t.csv" s3://tables/ke >/dev/null 2>&1 || return 1
    # the writers' local stages, here to be counted: a killed one's is removed
    # by the next writer that makes one
    local -x INGOT_STAGE_DIR="$WORK/stages"
    mkdir -p "$INGOT_STAGE_DIR"
    every_fault_step evolve_step || return 1
    [ -z "$(ls -A "$INGOT_STAGE_DIR")" ] || { echo "stages left:"; ls -A "$INGOT_STAGE_DIR"; return 1; }
}
check s3_kill_at_every_add_column_step kill_evolve

# The same for a blob column, whose part had no blob object: rolled back, the
# blob object the change uploaded is deleted; finished, it is there.
blob_step() {
    local n=$1 has code K=s3://tables/kb$1
    "$INGOT" import "$WORK/t.csv" "$K" >/dev/null 2>&1 || return 1
    INGOT_FAULT_AFTER=$n "$INGOT" add-column --schema "$WORK/kb.txt" "$K" "$WORK/kb.jsonl" >/dev/null 2>&1
    st=$?
    "$INGOT" tag "$K" settled >/dev/null || { echo "step $n: the next writer"; return 1; }
    has=$("$INGOT" cat --rows 3 "$K" | jq -r 'has("pb")')
    code=$(s3 HEAD "/tables/kb$n/part-000000.blob" -I -o /dev/null -w '%{http_code}')
    case "$st:$has:$code" in
    137:false:404 | 137:true:200 | 0:true:200) ;;
    *) echo "step $n: exit $st, column $has, blob object $code"; return 1 ;;
    esac
    "$INGOT" verify "$K" >/dev/null || { echo "step $n: verify"; return 1; }
}
kill_blob_column() {
    rand_blob 3000 "$WORK/kb.bin"
    printf '{"_rowid":3,"pb":"%s"}\n' "$WORK/kb.bin" >"$WORK/kb.jsonl"
    printf '_rowid int64\npb blob?\n' >"$WORK/kb.txt"
    every_fault_step blob_step
}
check s3_kill_at_every_blob_column_step kill_blob_column

# A change of columns racing an erase while a mount reads: the writers take
# turns on the lock object (both land), and no read through the mount fails
# meanwhile (the parts it holds are replaced under it twice).
race_columns() {
    local R=s3://tables/rc reader a e
    "$INGOT" import "$WORK/t.csv" "$R" >/dev/null 2>&1 || return 1
    mkdir -p "$WORK/mnt_rc"
    "$INGOT" mount -o poll_ms=200 "$R" "$WORK/mnt_rc" || return 1
    rm -f "$WORK/rc.done"
    (
        n=0
        while [ ! -e "$WORK/rc.done" ] || [ $n -lt 20 ]; do
            grep -q '"caption 5 ' "$WORK/mnt_rc/rows/5" || echo "read $n failed"
            n=$((n + 1))
        done
    ) >"$WORK/rc.reads" 2>&1 &
    reader=$!
    printf '_rowid,tag\n5,five\n9,nine\n' >"$WORK/rc.csv"
    "$INGOT" add-column --ignore-missing "$R" "$WORK/rc.csv" >"$WORK/rc.add" 2>&1 & # row 9 may be gone first
    a=$!
    "$INGOT" erase --row 9 "$R" >"$WORK/rc.erase" 2>&1 &
    e=$!
    wait $a || { touch "$WORK/rc.done"; cat "$WORK/rc.add"; return 1; }
    wait $e || { touch "$WORK/rc.done"; cat "$WORK/rc.erase"; return 1; }
    touch "$WORK/rc.done"
    wait $reader
    [ ! -s "$WORK/rc.reads" ] || { head -3 "$WORK/rc.reads"; return 1; }
    [ "$("$INGOT" cat --rows 5 "$R" | jq -r .tag)" = five ] || { echo "row 5 has no tag"; return 1; }
    "$INGOT" cat --rows 9 "$R" >/dev/null 2>&1 && { echo "row 9 not erased"; return 1; }
    for _ in $(seq 40); do jq -e .tag "$WORK/mnt_rc/rows/5" >/dev/null 2>&1 && break; sleep 0.05; done
    [ "$(jq -r .tag "$WORK/mnt_rc/rows/5")" = five ] || { echo "the mount does not show tag"; return 1; }
    "$INGOT" verify "$R" >/dev/null
}
check s3_change_of_columns_races_an_erase_under_a_mount race_columns

# ---- what goes wrong --------------------------------------------------------
wrong_key() {
    local out st
    out=$(AWS_SECRET_ACCESS_KEY=wrong timeout 60 "$INGOT" inspect "$T" 2>&1); st=$?
    [ $st != 0 ] && [ $st != 124 ] && grep -q "access denied" <<<"$out" && grep -q "SignatureDoesNotMatch" <<<"$out" ||
        { echo "$st: $out"; return 1; }
    out=$(AWS_ACCESS_KEY_ID=nobody timeout 60 "$INGOT" cat "$T" caption 2>&1); st=$?
    [ $st != 0 ] && [ $st != 124 ] && grep -q "InvalidAccessKeyId" <<<"$out" || { echo "$st: $out"; return 1; }
    out=$(env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY HOME="$WORK" AWS_CONFIG_FILE=/dev/null \
        timeout 60 "$INGOT" inspect "$T" 2>&1); st=$?
    [ $st != 0 ] && grep -q "no S3 credentials" <<<"$out" || { echo "$st: $out"; return 1; }
}
check s3_wrong_credentials_are_named wrong_key
profile_creds() {
    mkdir -p "$WORK/home/.aws"
    printf '[team]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$AWS_ACCESS_KEY_ID" "$AWS_SECRET_ACCESS_KEY" \
        >"$WORK/home/.aws/credentials"
    printf '[profile team]\nregion = %s\nendpoint_url = %s\n' "$AWS_REGION" "$AWS_ENDPOINT_URL" >"$WORK/home/.aws/config"
    env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_ENDPOINT_URL -u AWS_REGION HOME="$WORK/home" \
        AWS_PROFILE=team "$INGOT" inspect "$T" | grep -Eq "^rows +30000 "
}
check s3_credentials_from_a_profile profile_creds
no_bucket() {
    local out
    out=$(timeout 60 "$INGOT" cat s3://nosuchbucket/t caption 2>&1) && return 1
    grep -q "no such bucket" <<<"$out" || { echo "$out"; return 1; }
    out=$(timeout 60 "$INGOT" inspect s3://tables/nosuchtable 2>&1) && return 1
    grep -q "not an ingot table" <<<"$out" || { echo "$out"; return 1; }
    out=$(timeout 60 "$INGOT" import "$WORK/t.csv" s3://nosuchbucket/t 2>&1) && return 1
    grep -q "no such bucket" <<<"$out" || { echo "$out"; return 1; }
}
check s3_missing_bucket_is_named no_bucket
truncated() {
    "$INGOT" import "$WORK/t.csv" s3://tables/tr >/dev/null 2>&1 || return 1
    s3 GET /tables/tr/part-000000.ingot -o "$WORK/whole"
    head -c 100000 "$WORK/whole" >"$WORK/cut"
    s3 PUT /tables/tr/part-000000.ingot --data-binary @"$WORK/cut" -o /dev/null
    local out st
    out=$(timeout 60 "$INGOT" cat s3://tables/tr caption 2>&1); st=$?
    [ $st != 0 ] && [ $st != 124 ] && grep -q "truncated" <<<"$out" || { echo "$st: $out"; return 1; }
    # the same length of other bytes: every block's checksum catches it
    head -c 100000 /dev/urandom >"$WORK/junk"
    tail -c +100001 "$WORK/whole" >>"$WORK/junk"
    s3 PUT /tables/tr/part-000000.ingot --data-binary @"$WORK/junk" -o /dev/null
    out=$(timeout 60 "$INGOT" cat s3://tables/tr caption 2>&1); st=$?
    [ $st != 0 ] && [ $st != 124 ] && grep -q "checksum" <<<"$out" || { echo "$st: $(tail -2 <<<"$out")"; return 1; }
}
check s3_truncated_or_damaged_object_is_an_error truncated

# a proxy between ingot and the gateway that fails requests on purpose
/usr/bin/python3 "$ROOT/tests/integration/s3_proxy.py" "${AWS_ENDPOINT_URL##*:}" "$WORK/mode" "$WORK/proxy.port" &
PROXY_PID=$!
for _ in $(seq 100); do [ -f "$WORK/proxy.port" ] && break; sleep 0.05; done
PROXY=http://127.0.0.1:$(cat "$WORK/proxy.port")
# T has lost rows to the erase tests above: the bytes wanted are its own, read directly
want=$("$INGOT" cat "$T" caption | md5sum)
through() { AWS_ENDPOINT_URL=$PROXY INGOT_S3_CACHE_MB=1 INGOT_S3_READAHEAD_MB=1 timeout 60 "$INGOT" "$@"; }
faults_retried() {
    local m got
    for m in "503-once 1" "drop-once 1"; do # a cat's first ranged GET fails, its retry is answered
        echo "$m" >"$WORK/mode"
        : >"$WORK/mode.log"
        got=$(through cat "$T" caption | md5sum)
        [ "$got" = "$want" ] || { echo "$m: wrong bytes"; return 1; }
        [ -s "$WORK/mode.log" ] || { echo "$m: the proxy did nothing"; return 1; }
        [ "$(through cat --rows 0,17,29999 "$T")" = "$("$INGOT" cat --rows 0,17,29999 "$WORK/local")" ] ||
            { echo "$m: rows"; return 1; }
    done
    echo "retried: $(cut -d' ' -f1 "$WORK/mode.log" | sort | uniq -c | tr '\n' ' ')"
}
check s3_5xx_and_dropped_connections_are_retried faults_retried
# faults in one of many ranges in flight: a batch of rows planned at once
# (every range its own request: INGOT_S3_COALESCE_KB=0) and a column scanned
# through a mount with readahead in the background (small windows in GETs
# of 1 MiB: many of them), of a table of blocks
# spread over 6 MB; every Nth GET of the batch, every 2nd of the scan, fails,
# drops or stalls: retried, or an error, never a wrong byte or a hang
faults_in_parallel_ranges() {
    local m ids got wantrows wantcol n
    /usr/bin/python3 -c "
import random
r = random.Random(5)
print('id,caption')
for i in range(100000): print(f'{i},{r.randrange(10**18):x} {r.randrange(10**18):x} {r.randrange(10**18):x}')" >"$WORK/pf.csv"
    "$INGOT" import "$WORK/pf.csv" s3://tables/pf >/dev/null 2>&1 || { echo import; return 1; }
    ids=$(/usr/bin/python3 -c "
import random; r = random.Random(3); print(','.join(map(str, sorted(r.sample(range(100000), 300)))))")
    wantrows=$("$INGOT" cat --rows "$ids" s3://tables/pf | md5sum)
    wantcol=$("$INGOT" cat s3://tables/pf caption | md5sum)
    [ "$wantcol" = "$(cut -d, -f2 "$WORK/pf.csv" | tail -n +2 | md5sum)" ] || { echo "caption differs from the CSV"; return 1; }
    for m in "503 7" "drop 5" "stall 9"; do
        echo "$m" >"$WORK/mode"
        : >"$WORK/mode.log"
        got=$(INGOT_S3_COALESCE_KB=0 INGOT_S3_STALL_S=1 through cat --rows "$ids" s3://tables/pf | md5sum)
        [ "$got" = "$wantrows" ] || { echo "$m: rows: wrong bytes"; return 1; }
        n=$(wc -l <"$WORK/mode.log")
        [ "$n" -ge 5 ] || { echo "$m: the proxy failed $n requests of the batch"; return 1; }
        # the scan's own count (a new mode restarts it), every 2nd ranged
        # GET: a scan of a few windows of 1 MiB meets faults however its
        # reads fall
        echo "${m% *} 2" >"$WORK/mode"
        mkdir -p "$WORK/mnt5"
        AWS_ENDPOINT_URL=$PROXY INGOT_S3_STALL_S=1 INGOT_S3_READAHEAD_MB=1 INGOT_S3_AHEAD_PIECE_MB=1 "$INGOT" mount -o poll_ms=0 s3://tables/pf "$WORK/mnt5" ||
            { echo "$m: mount"; return 1; }
        got=$(timeout 60 cat "$WORK/mnt5/columns/caption" | md5sum)
        fusermount3 -u "$WORK/mnt5"
        [ "$got" = "$wantcol" ] || { echo "$m: scan: wrong bytes or an error"; return 1; }
        [ "$(wc -l <"$WORK/mode.log")" -gt "$n" ] || { echo "$m: the scan met no fault"; return 1; }
    done
    echo pass >"$WORK/mode"
    echo "faults: $(cut -d' ' -f1 "$WORK/mode.log" | sort | uniq -c | tr '\n' ' ')"
}
check s3_faults_in_parallel_ranges_are_retried faults_in_parallel_ranges
# a vector column's .npy through a mount: its pages' bytes go into the
# replies from the fetched ranges themselves (pinned, not copied), in GETs of
# 1 MiB so many of them meet a fault; every byte as without faults, and a
# cache of 3 MiB evicts ranges while replies point into them
faults_under_a_pinned_scan() {
    local m got want
    mkdir -p "$WORK/pin"
    /usr/bin/python3 -c "
import numpy as np
np.save('$WORK/pin/v.npy', np.random.default_rng(3).standard_normal((6144, 256), dtype=np.float32))" ||
        { echo numpy; return 1; }
    "$INGOT" import --part-size 0 "$WORK/pin/v.npy" s3://tables/vec >/dev/null 2>&1 || { echo import; return 1; }
    want=$(/usr/bin/python3 -c "
import numpy as np, hashlib
print(hashlib.md5(np.ascontiguousarray(np.load('$WORK/pin/v.npy')).tobytes()).hexdigest())")
    mkdir -p "$WORK/mnt6"
    for m in pass "503 4" "drop 3" "stall 5"; do
        echo "$m" >"$WORK/mode"
        : >"$WORK/mode.log"
        AWS_ENDPOINT_URL=$PROXY INGOT_S3_STALL_S=1 INGOT_S3_CACHE_MB=3 INGOT_S3_READAHEAD_MB=2 INGOT_S3_AHEAD_PIECE_MB=1 \
            "$INGOT" mount -o poll_ms=0 s3://tables/vec "$WORK/mnt6" || { echo "$m: mount"; return 1; }
        got=$(timeout 60 /usr/bin/python3 -c "
import numpy as np, hashlib
print(hashlib.md5(np.ascontiguousarray(np.load('$WORK/mnt6/columns/v.npy')).tobytes()).hexdigest())")
        fusermount3 -u "$WORK/mnt6"
        [ "$got" = "$want" ] || { echo "$m: wrong bytes or an error ($got)"; return 1; }
        [ "$m" = pass ] || [ -s "$WORK/mode.log" ] || { echo "$m: the scan met no fault"; return 1; }
    done
    echo pass >"$WORK/mode"
}
check s3_faults_under_a_pinned_scan faults_under_a_pinned_scan
# a damaged block under a mount's .npy: its page is checked where it is
# pinned (fetched ahead, in the cache), and a check that passed is remembered
# with the cached bytes so two reads sharing a page compute it once; one that
# failed never is: every read that reaches the page fails (EIO), the first,
# a second, and one starting in the page before it; pages around it read
damaged_page_every_read() {
    local out
    mkdir -p "$WORK/dam" "$WORK/mnt7"
    /usr/bin/python3 -c "
import numpy as np
np.save('$WORK/dam/v.npy', np.random.default_rng(4).standard_normal((6144, 256), dtype=np.float32))" ||
        { echo numpy; return 1; }
    printf 'v vector<float32, 256> encoding=plain\n' >"$WORK/dam/schema.txt"
    "$INGOT" import --schema "$WORK/dam/schema.txt" --part-size 0 "$WORK/dam/v.npy" s3://tables/dam >/dev/null 2>&1 ||
        { echo import; return 1; }
    s3 GET /tables/dam/part-000000.ingot -o "$WORK/dam/part" || { echo get; return 1; }
    # one byte of row 3000's vector flipped where the part stores it (plain: verbatim)
    /usr/bin/python3 -c "
import numpy as np
v = np.load('$WORK/dam/v.npy'); b = bytearray(open('$WORK/dam/part', 'rb').read())
at = bytes(b).find(v[3000].tobytes()); assert at > 0 and bytes(b).find(v[3000].tobytes(), at + 1) < 0
b[at + 512] ^= 0x40; open('$WORK/dam/part', 'wb').write(b)" || { echo damage; return 1; }
    s3 PUT /tables/dam/part-000000.ingot --data-binary @"$WORK/dam/part" -o /dev/null
    INGOT_S3_READAHEAD_MB=2 INGOT_S3_AHEAD_PIECE_MB=1 "$INGOT" mount -o poll_ms=0 s3://tables/dam "$WORK/mnt7" ||
        { echo mount; return 1; }
    out=$(timeout 60 /usr/bin/python3 - "$WORK/mnt7/columns/v.npy" "$WORK/dam/v.npy" <<'PY' 2>&1
import errno, os, sys
import numpy as np
v = np.load(sys.argv[2])
fd = os.open(sys.argv[1], os.O_RDONLY)
head = os.pread(fd, 4096, 0)
h = head.index(b"\n") + 1  # the .npy header's length
def row(i):  # one row's bytes: a FUSE read of the pages around it
    return os.pread(fd, 1024, h + 1024 * i)
def fails(what, f):
    try:
        f()
    except OSError as e:
        if e.errno != errno.EIO: sys.exit(f"{what}: {e}")
        return
    sys.exit(f"{what}: read without an error")
assert row(100) == v[100].tobytes(), "row 100"
fails("the whole file", lambda: open(sys.argv[1], "rb").read())
fails("row 3000", lambda: row(3000))
fails("row 3000 again", lambda: row(3000))
fails("from row 2990 on", lambda: os.pread(fd, 1 << 20, h + 1024 * 2990))
assert row(2000) == v[2000].tobytes() and row(5000) == v[5000].tobytes(), "rows around it"
fails("row 3000 after them", lambda: row(3000))
print("ok")
PY
)
    fusermount3 -u "$WORK/mnt7"
    [ "$out" = ok ] || { echo "$out"; return 1; }
}
check s3_damaged_page_fails_every_read damaged_page_every_read
faults_reported() {
    local out st t0
    echo always503 >"$WORK/mode"
    t0=$(date +%s)
    out=$(INGOT_S3_RETRIES=2 through cat "$T" caption 2>&1 >/dev/null); st=$?
    [ $st != 0 ] && [ $st != 124 ] && grep -q "server error HTTP 503" <<<"$out" || { echo "$st: $out"; return 1; }
    echo "stall 1" >"$WORK/mode"
    out=$(INGOT_S3_RETRIES=1 INGOT_S3_STALL_S=1 through cat "$T" caption 2>&1 >/dev/null); st=$?
    [ $st != 0 ] && [ $st != 124 ] || { echo "stall: $st: $out"; return 1; }
    echo pass >"$WORK/mode"
    echo "gave up with a message after $(($(date +%s) - t0)) s"
}
check s3_persistent_faults_end_in_an_error faults_reported
# the store refuses the new part object (a PUT of it fails, again and again)
# after the erase's journal is committed: the erase ends in an error naming
# the object, its lines erased (the replacement's was drawn: its workers
# failed and left), and the next writer completes it from the journal
refused_replacement() {
    local size out st
    size=$(s3 HEAD /tables/pf/part-000000.ingot -I | tr -d '\r' | awk 'tolower($1) == "content-length:" { print $2 }')
    echo "put503 $((size / 2))" >"$WORK/mode"
    : >"$WORK/mode.log"
    out=$(AWS_ENDPOINT_URL=$PROXY INGOT_S3_RETRIES=1 INGOT_TEST_PROGRESS=1 timeout 60 \
        "$INGOT" erase --row 4242 s3://tables/pf 2>&1); st=$?
    echo pass >"$WORK/mode"
    [ $st = 2 ] || { echo "exit $st: $out"; return 1; }
    grep -q "replacing part-000000.ingot: .*503" <<<"$out" || { echo "$out"; return 1; }
    grep -qE "replacing objects of s3://tables/pf: +0% 0 B of " <<<"$out" || { echo "no replacement line: $out"; return 1; }
    grep -q "^503 " "$WORK/mode.log" || { echo "the proxy refused nothing"; return 1; }
    out=$("$INGOT" verify --json s3://tables/pf) || { echo "verify did not complete it"; return 1; }
    # what the listing proved, as the text tells it: the part, MANIFEST, the logs
    /usr/bin/python3 -c "
import json, sys
r = json.loads(sys.argv[1])
assert r['ok'] and r['objects'] >= 2 and r['object_versions'] == 0, r
" "$out" || { echo "$out"; return 1; }
    "$INGOT" cat --rows 4242 s3://tables/pf 2>/dev/null && { echo "row 4242 still there"; return 1; }
    "$INGOT" cat --rows 4241,4243 s3://tables/pf >/dev/null || return 1
    # --json tells what crossed the network, as the text does
    out=$("$INGOT" erase --json --row 4243 s3://tables/pf) || return 1
    /usr/bin/python3 -c "
import json, sys
r = json.loads(sys.argv[1])
assert r['rows'] == 1 and r['objects_replaced'] == 1, r
assert r['bytes_uploaded'] + r['bytes_copied'] >= $size // 2, r
assert r['object_versions_removed'] == 0, r  # a bucket without versions
" "$out" || { echo "$out"; return 1; }
}
check s3_refused_replacement_is_completed_later refused_replacement
gateway_gone() {
    local out st
    kill -STOP "$(cat "$S3_LOCAL_DIR/rgw.pid")"
    out=$(INGOT_S3_RETRIES=1 INGOT_S3_STALL_S=1 INGOT_S3_CONNECT_TIMEOUT_MS=500 timeout 60 "$INGOT" inspect "$T" 2>&1); st=$?
    kill -CONT "$(cat "$S3_LOCAL_DIR/rgw.pid")"
    [ $st != 0 ] && [ $st != 124 ] || { echo "$st: $out"; return 1; }
    # and a mount reading when the gateway stops answering: an error, not a hang
    kill -STOP "$(cat "$S3_LOCAL_DIR/rgw.pid")"
    out=$(timeout 60 cat "$WORK/mnt1/rows/23456" 2>&1); st=$?
    kill -CONT "$(cat "$S3_LOCAL_DIR/rgw.pid")"
    [ $st != 124 ] || { echo "the mount hung"; return 1; }
    grep -q '"caption 23456 ' "$WORK/mnt1/rows/23456"
}
check s3_gateway_gone_is_an_error_not_a_hang gateway_gone
