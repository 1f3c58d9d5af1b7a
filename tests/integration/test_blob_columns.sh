#!/usr/bin/env bash
# Blob columns added to a table that has none, and replaced: their objects
# appended to each part's blob file (the objects there keep their offsets, so
# older versions read as they were), read through the mount, erased in every
# version, released by gc once no version shows them, and a crash at every
# durable step of the commit leaving the old table (no blob file, no byte of
# an object) or the new one.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

D=$WORK/b
T=$D/t
mkdir -p "$D/img" "$D/img2" "$D/m"
"$PY" - "$D" <<'PY'
import json, os, sys
d = sys.argv[1]
with open(f"{d}/base.jsonl", "w") as f:
    for i in range(300):
        print(json.dumps({"id": i, "x": i * 2}), file=f)
# objects of random bytes behind a PNG signature: the mount names them .png,
# and a run of their bytes is found in a file only if the object is there
for sub, ids, seed in (("img", (3, 150, 299), 1), ("img2", (3, 150), 2)):
    with open(f"{d}/{sub}.jsonl", "w") as f:
        for i in ids:
            body = os.urandom(700 + 37 * i)
            open(f"{d}/{sub}/p{i}.png", "wb").write(b"\x89PNG\r\n\x1a\n" + body)
            print(json.dumps({"id": i, "pic": f"{sub}/p{i}.png"}), file=f)
PY
printf 'id int64\npic blob?\n' >"$D/s.txt"
"$INGOT" import --rows-per-group 100 "$D/base.jsonl" "$T" >/dev/null 2>&1
cp -r "$T" "$D/before"

# is a run of object F's bytes anywhere in file IN?
holds() { "$PY" -c "import sys; sys.exit(0 if open(sys.argv[1], 'rb').read()[100:164] in open(sys.argv[2], 'rb').read() else 1)" "$1" "$2"; }

added() {
    "$INGOT" add-column --schema "$D/s.txt" "$T" "$D/img.jsonl" | grep -q "version 2" || return 1
    [ -e "$T/part-000000.blob" ] || { echo "no blob file"; return 1; }
    grep -q "blob=part-000000.blob" "$T/MANIFEST" || { cat "$T/MANIFEST"; return 1; }
    [ "$("$INGOT" cat --rows 150 "$T" pic)" = '{"pic":{"path":"blobs/pic/150.png","size":6258}}' ] ||
        { "$INGOT" cat --rows 150 "$T" pic; return 1; }
    [ "$("$INGOT" cat --rows 4 "$T" pic)" = '{"pic":null}' ] || return 1
    "$INGOT" verify --deep "$T" >/dev/null
}
check add_blob_column_by_key added

through_mount() {
    "$INGOT" mount "$T" "$D/m" || return 1
    local rc=0 got
    got=$(ls "$D/m/blobs/pic" | tr '\n' ' ')
    [ "$got" = "150.png 299.png 3.png " ] || { echo "objects: $got"; rc=1; }
    for i in 3 150 299; do cmp -s "$D/m/blobs/pic/$i.png" "$D/img/p$i.png" || { echo "object $i differs"; rc=1; }; done
    jq -e '.pic.path == "blobs/pic/150.png" and .x == 300' "$D/m/rows/150" >/dev/null || rc=1
    [ ! -e "$D/m/versions/1/blobs" ] || { echo "version 1 shows blobs"; rc=1; }
    fusermount3 -u "$D/m"
    return $rc
}
check blob_column_reads_through_mount through_mount

replaced_then_erased() {
    "$INGOT" replace-column --schema "$D/s.txt" "$T" "$D/img2.jsonl" | grep -q "version 3" || return 1
    "$INGOT" mount "$T" "$D/m" || return 1
    local rc=0
    cmp -s "$D/m/blobs/pic/150.png" "$D/img2/p150.png" || { echo "new 150"; rc=1; }
    [ ! -e "$D/m/blobs/pic/299.png" ] || { echo "299 still shown"; rc=1; }
    cmp -s "$D/m/versions/2/blobs/pic/299.png" "$D/img/p299.png" || { echo "version 2's 299"; rc=1; }
    fusermount3 -u "$D/m"
    [ $rc = 0 ] || return 1
    # row 150 erased: its object gone from both columns (versions 2 and 3)
    "$INGOT" erase --row 150 "$T" >/dev/null || return 1
    ! holds "$D/img/p150.png" "$T/part-000000.blob" || { echo "version 2's object 150 kept"; return 1; }
    ! holds "$D/img2/p150.png" "$T/part-000000.blob" || { echo "object 150 kept"; return 1; }
    holds "$D/img/p299.png" "$T/part-000000.blob" || { echo "object 299 lost"; return 1; }
    "$INGOT" verify --deep "$T" >/dev/null
}
check replace_blob_column_erase_reaches_both replaced_then_erased

gc_releases() {
    # version 2 goes: the replaced column's objects (299) are zeroed, version 3's (3) stay
    "$INGOT" gc --keep 1 "$T" >/dev/null || return 1
    ! holds "$D/img/p299.png" "$T/part-000000.blob" || { echo "object 299 kept after gc"; return 1; }
    holds "$D/img2/p3.png" "$T/part-000000.blob" || { echo "object 3 lost"; return 1; }
    "$INGOT" verify --deep "$T" >/dev/null
}
check gc_releases_replaced_blob_objects gc_releases

# every durable step killed in turn: the old table (no blob file) or the new one
crash_steps() {
    local k v out c=$D/crash
    for k in 1 2 3 4 5 6 7 8; do
        rm -rf "$c"; cp -r "$D/before" "$c"
        INGOT_FAULT_AFTER=$k "$INGOT" add-column --schema "$D/s.txt" "$c" "$D/img.jsonl" >/dev/null 2>&1
        out=$("$INGOT" verify "$c" 2>&1) || { echo "step $k: $out"; return 1; }
        v=$("$INGOT" versions --json "$c" | jq -r '.[-1].version')
        case $v in
        1) cmp -s "$c/part-000000.ingot" "$D/before/part-000000.ingot" || { echo "step $k: part differs"; return 1; }
           [ ! -e "$c/part-000000.blob" ] || { echo "step $k: blob file left"; return 1; } ;;
        2) [ "$("$INGOT" cat --rows 299 "$c" pic)" = '{"pic":{"path":"blobs/pic/299.png","size":11771}}' ] ||
               { echo "step $k: pic"; return 1; }
           "$INGOT" verify --deep "$c" >/dev/null || { echo "step $k: deep"; return 1; } ;;
        *) echo "step $k: version $v"; return 1 ;;
        esac
    done
}
check crash_at_every_step_old_or_new crash_steps

# a bad object path: refused, the table (and its blob file) unchanged
bad_path() {
    local before
    before=$(cat "$T/MANIFEST"; stat -c %s "$T/part-000000.blob")
    printf '{"id":5,"pic2":"img/missing.png"}\n' >"$D/bad.jsonl"
    printf 'id int64\npic2 blob?\n' >"$D/s2.txt"
    ! "$INGOT" add-column --schema "$D/s2.txt" "$T" "$D/bad.jsonl" 2>"$D/err" || return 1
    grep -q "missing.png" "$D/err" || { cat "$D/err"; return 1; }
    [ "$before" = "$(cat "$T/MANIFEST"; stat -c %s "$T/part-000000.blob")" ] || { echo "table changed"; return 1; }
}
check bad_blob_path_refused_table_unchanged bad_path

# a mounted table gains the blob column while a reader holds it open: the
# daemon sees the new version (and the blob file it now has) without a remount
live_mount() {
    local l=$D/live m=$D/lm i rc=1
    rm -rf "$l"; cp -r "$D/before" "$l"; mkdir -p "$m"
    "$INGOT" mount "$l" "$m" || return 1
    exec 7<"$m/rows/150"
    "$INGOT" add-column --schema "$D/s.txt" "$l" "$D/img.jsonl" >/dev/null || { exec 7<&-; fusermount3 -u "$m"; return 1; }
    # the kernel is told in the background: rows/150 (its size cached before,
    # and held open) shows the new key within moments, whole
    for i in $(seq 50); do
        cmp -s "$m/blobs/pic/150.png" "$D/img/p150.png" &&
            jq -e '.pic.path == "blobs/pic/150.png"' "$m/rows/150" >/dev/null 2>&1 && { rc=0; break; }
        sleep 0.1
    done
    [ $rc = 0 ] || echo "rows/150: $(cat "$m/rows/150")"
    exec 7<&-
    fusermount3 -u "$m"
    return $rc
}
check mounted_table_gains_blob_column live_mount
