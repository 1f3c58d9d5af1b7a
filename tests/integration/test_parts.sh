#!/usr/bin/env bash
# A local table whose imports are cut into parts (ingot import --part-size):
# the same bytes of each part for any thread count, inspect and verify,
# rows/ID and the Parquet views of row groups across part boundaries in a
# mount, an erase of rows in several parts, appends cut too, versions, a
# keyed add-column and a replace-column over every part, and gc releasing
# the replaced column's pages in every part. (On object storage: test_s3.sh.)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

"$PY" - "$WORK" <<'PY'
import random, sys
w = sys.argv[1]
r = random.Random(5)
with open(f"{w}/t.csv", "w") as f:
    print("id,name,score", file=f)
    for i in range(40000):
        print(f"{i},n{r.randrange(10**9)},{r.random():.6f}", file=f)
with open(f"{w}/labels.csv", "w") as f:  # every seventh row, keyed by _rowid
    print("_rowid,label", file=f)
    for i in range(0, 40000, 7):
        print(f"{i},L{i % 13}", file=f)
with open(f"{w}/score2.csv", "w") as f:
    print("_rowid,score", file=f)
    for i in range(40000):
        print(f"{i},{i * 0.25}", file=f)
PY
T=$WORK/t
"$INGOT" import "$WORK/t.csv" "$WORK/one" >/dev/null 2>&1
CUT=(--rows-per-group 4096 --part-size 96K)

same_parts_any_threads() {
    "$INGOT" import "${CUT[@]}" -j 1 "$WORK/t.csv" "$T" >/dev/null 2>&1 || return 1
    "$INGOT" import "${CUT[@]}" -j 3 "$WORK/t.csv" "$WORK/t3" >/dev/null 2>&1 || return 1
    local n
    n=$(grep -c '^part ' "$T/MANIFEST")
    [ "$n" -ge 4 ] || { echo "$n parts"; return 1; }
    for p in "$T"/part-*.ingot; do cmp "$p" "$WORK/t3/$(basename "$p")" || return 1; done
    [ "$(ls "$WORK/t3" | grep -c '^part-')" = "$n" ] || return 1
    "$INGOT" inspect "$T" | grep -q "in $n parts" || return 1
    "$INGOT" verify "$T" >/dev/null || return 1
    for c in id name score; do
        cmp <("$INGOT" cat "$T" $c) <("$INGOT" cat "$WORK/one" $c) || { echo "column $c"; return 1; }
    done
    echo "$n parts"
}
check parts_same_bytes_any_threads same_parts_any_threads

# rows on both sides of each part's first row
edges() { awk '$1 == "part" && $3 > 0 { printf "%s%d,%d", s, $3 - 1, $3; s = "," }' "$T/MANIFEST"; }
mount_across_parts() {
    have_fuse || { echo "no FUSE"; return 0; }
    local m=$WORK/mnt ids r g
    mkdir -p "$m"
    "$INGOT" mount "$T" "$m" || return 1
    ids=$(edges)
    for r in ${ids//,/ }; do
        [ "$(jq -c . "$m/rows/$r")" = "$("$INGOT" cat --rows "$r" "$WORK/one" | jq -c .)" ] || { echo "rows/$r"; return 1; }
    done
    [ "$(ls "$m/rows" | wc -l)" = 40000 ] || return 1
    g=$("$INGOT" inspect "$T" | awk '$1 == "row" && $2 == "groups" { print $3 }')
    [ "$(ls "$m/parquet" | wc -l)" = "$g" ] || { echo "views: $(ls "$m/parquet" | wc -l), groups $g"; return 1; }
    # the last group's view (in the last part) holds that group's rows
    "$INGOT" import "$m/parquet/$((g - 1)).parquet" "$WORK/back" >/dev/null 2>&1 || return 1
    cmp <("$INGOT" cat "$WORK/back" name) <("$INGOT" cat --group $((g - 1)) "$T" name) || return 1
    fusermount3 -u "$m"
}
check parts_mount_rows_and_views_across_parts mount_across_parts

erase_across_parts() {
    local ids
    ids=$(edges)
    echo "$ids" >"$WORK/erased"
    "$INGOT" erase --row "$ids" "$T" >/dev/null || return 1
    for r in ${ids//,/ }; do "$INGOT" cat --rows "$r" "$T" >/dev/null 2>&1 && { echo "row $r"; return 1; }; done
    "$INGOT" verify "$T" >/dev/null || return 1
    # an append is cut too, its ids after the table's
    "$INGOT" import --append "${CUT[@]}" "$WORK/t.csv" "$T" >/dev/null 2>&1 || return 1
    "$INGOT" cat --rows 40000,79999 "$T" | grep -c '"id"' | grep -qx 2 || return 1
    awk '$1 == "part" { if ($3 != next_row) bad = 1; next_row = $3 + $4 } END { exit bad }' next_row=0 "$T/MANIFEST" || return 1
    "$INGOT" versions "$T" | grep -q "append 40000 rows (current)" || return 1
    "$INGOT" verify "$T" >/dev/null
}
check parts_erase_and_append_across_parts erase_across_parts

columns_across_parts() {
    "$INGOT" add-column --ignore-missing "$T" "$WORK/labels.csv" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 35000 "$T" label | jq -r .label)" = "L$((35000 % 13))" ] || return 1
    [ "$("$INGOT" cat "$T" label | grep -vc '^\\N$')" = "$(($(wc -l <"$WORK/labels.csv") - 1 - $(tr ',' '\n' <"$WORK/erased" | awk '$1 % 7 == 0' | wc -l)))" ] ||
        { echo "labels: $("$INGOT" cat "$T" label | grep -vc '^\\N$')"; return 1; }
    "$INGOT" replace-column --ignore-missing "$T" "$WORK/score2.csv" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 39999 "$T" score | jq .score)" = 9999.75 ] || return 1
    local out parts
    out=$("$INGOT" gc --keep 1 --json "$T") || { echo "$out"; return 1; }
    parts=$(grep -c '^part ' "$T/MANIFEST")
    # the old score's pages released in every part of the first import (the
    # appended parts' score was replaced too)
    [ "$(jq .pages <<<"$out")" -ge "$parts" ] || { echo "$out"; return 1; }
    "$INGOT" verify "$T" >/dev/null
}
check parts_keyed_columns_and_gc_over_every_part columns_across_parts
