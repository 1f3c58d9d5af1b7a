#!/usr/bin/env bash
# Huffman's slots (format 15): columns of hex digests (MD5, SHA-256) store
# each digest in 4 bits a digit with no offsets (item i at i * stride), so the
# table holds them at their entropy; whole columns, rows by id, a mount's
# columns/ and rows/ read them back exactly; an erase (CLI or `rm rows/ID`)
# zeroes the row's slot in place, never growing a page, and verify --deep
# insists on it.
source "$(dirname "$0")/lib.sh"

rows=20000
"$PY" - "$WORK/in.csv" "$rows" <<'PY'
import hashlib, sys
with open(sys.argv[1], "w") as f:
    f.write("id,md5,sha256\n")
    for i in range(int(sys.argv[2])):
        b = b"user %d" % i
        sha = "" if i % 101 == 3 else hashlib.sha256(b).hexdigest()
        f.write(f"{i},{hashlib.md5(b).hexdigest()},{sha}\n")
PY
printf 'id int64\nmd5 string\nsha256 string?\n' >"$WORK/s.txt"
"$INGOT" import --schema "$WORK/s.txt" "$WORK/in.csv" "$WORK/t" >/dev/null 2>&1 || fail slots_import "import failed"

at_entropy() {
    "$INGOT" inspect --json "$WORK/t" | "$PY" -c '
import json, sys
j = json.load(sys.stdin)
assert j["format_version"] >= 15, j["format_version"]
c = {c["name"]: c for c in j["columns"]}
rows = int(sys.argv[1])
for name, digits in (("md5", 32), ("sha256", 64)):
    enc, stored = c[name]["encodings"], c[name]["stored_bytes"]
    assert "huffman" in enc, (name, enc)
    # digits / 2 bytes a row, and a few percent: blocks fitted to disk pages,
    # slots of NULLs, a code table a block; an index of offsets would add
    # ~1.6 bytes a row more (10 % of an MD5, 5 % of a SHA-256)
    assert stored <= rows * digits / 2 * 1.07, (name, stored, stored / rows)
    print(name, round(stored / rows, 2), "bytes a row")' "$rows"
}
check slots_digests_at_their_entropy at_entropy

read_back() {
    [ "$("$INGOT" cat "$WORK/t" md5 | md5sum)" = "$(tail -n +2 "$WORK/in.csv" | cut -d, -f2 | md5sum)" ] || { echo "md5 column"; return 1; }
    [ "$("$INGOT" cat "$WORK/t" sha256 | grep -cx "\\\\N")" = "$(awk -F, 'NR > 1 && $3 == ""' "$WORK/in.csv" | wc -l)" ] || { echo "sha256 NULLs"; return 1; }
    local r
    for r in 0 1 4096 12345 19999; do
        "$INGOT" cat --rows $r "$WORK/t" | grep -q "\"md5\":\"$(sed -n "$((r + 2))p" "$WORK/in.csv" | cut -d, -f2)\"" || { echo "row $r"; return 1; }
    done
}
check slots_columns_and_rows_read_back read_back

erased() {
    cp -r "$WORK/t" "$WORK/e"
    local before after
    before=$(stat -c %s "$WORK/e/part-000000.ingot")
    "$INGOT" erase --row 7 --row 12345 "$WORK/e" >/dev/null || return 1
    after=$(stat -c %s "$WORK/e/part-000000.ingot")
    grew_by_bitmap "$before" "$after" "$rows" || return 1
    "$INGOT" cat "$WORK/e" md5 | grep -q "$(sed -n 9p "$WORK/in.csv" | cut -d, -f2)" && { echo "row 7's digest still read"; return 1; }
    [ "$("$INGOT" cat "$WORK/e" md5 | wc -l)" = $((rows - 2)) ] || return 1
    "$INGOT" verify --deep "$WORK/e" >/dev/null
}
check slots_erase_in_place_verified erased

mounted() {
    have_fuse || { echo "no FUSE"; return 0; }
    cp -r "$WORK/t" "$WORK/m"
    mkdir -p "$WORK/mnt"
    "$INGOT" mount "$WORK/m" "$WORK/mnt" || return 1
    [ "$(md5sum <"$WORK/mnt/columns/md5")" = "$("$INGOT" cat "$WORK/t" md5 | md5sum)" ] || { echo "columns/md5"; return 1; }
    [ "$(jq -r .sha256 "$WORK/mnt/rows/999")" = "$(sed -n 1001p "$WORK/in.csv" | cut -d, -f3)" ] || { echo "rows/999"; return 1; }
    rm "$WORK/mnt/rows/999" || return 1
    [ ! -e "$WORK/mnt/rows/999" ] || return 1
    fusermount3 -u "$WORK/mnt"
    "$INGOT" verify --deep "$WORK/m" >/dev/null
}
check slots_mount_reads_and_rm mounted
