#!/usr/bin/env bash
# Golden tables (tests/golden): parts written by every format version the reader
# accepts (2, 3, 4), read by today's reader: cat of every column, rows by id,
# verify and inspect --json must print exactly what they printed when the files
# were made. A reader change that breaks an old file fails here. And damage in
# an old part is still found and named.
. "$(dirname "$0")/lib.sh"
G="$INGOT_ROOT/tests/golden"

for t in "$G"/v*/*/; do
    t=${t%/}
    rel=${t#"$G"/}
    golden() {
        rm -rf "$WORK/$rel" "$WORK/out/$rel"
        mkdir -p "$(dirname "$WORK/$rel")"
        cp -r "$t" "$WORK/$rel" # a copy: reading must not need to write, but never risk the originals
        INGOT="$INGOT" "$G/make.sh" expected "$WORK/$rel" "$WORK/out/$rel" || return 1
        diff -r "$G/expected/$rel" "$WORK/out/$rel" | head -20
        diff -rq "$G/expected/$rel" "$WORK/out/$rel" >/dev/null
    }
    check "golden_${rel/\//_}" golden
done

# the same data in every version reads the same
same() {
    local v
    for v in "$G"/expected/v*/; do
        diff -r -x inspect.json -x verify.txt "$G/expected/v2" "$v" >/dev/null || { echo "differs: $v"; return 1; }
    done
}
check golden_versions_read_alike same

# damage in an old part: verify fails and names the part, column and page
damaged() {
    local v out
    for v in 2 3 4; do
        rm -rf "$WORK/dmg$v"
        cp -r "$G/v$v/flat" "$WORK/dmg$v"
        # the txt column's first page: its offset from inspect --json would be
        # circular; the data region starts right after the 256-byte header
        printf '\xff' | dd of="$WORK/dmg$v/part-000000.ingot" bs=1 seek=300 conv=notrunc status=none
        out=$("$INGOT" verify "$WORK/dmg$v" 2>&1) && { echo "v$v: verify passed"; return 1; }
        grep -q "part-000000.ingot" <<<"$out" && grep -q "column '" <<<"$out" && grep -q "page " <<<"$out" ||
            { echo "v$v: $out"; return 1; }
    done
}
check golden_damage_named_in_old_parts damaged
