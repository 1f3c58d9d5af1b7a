#!/usr/bin/env bash
# Golden tables (tests/golden): parts written by every format version the reader
# accepts (2 to the current one), read by today's reader: cat of every column, rows by id,
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
        diff -r -x inspect.json -x verify.txt -x slidehash -x decimal -x bounds -x evolved -x logical -x context -x zdict -x vdict -x slots -x lengths -x unerased -x erased_twice -x slidenull -x structs -x expo -x slidefloat -x tokens -x ctxmoved -x versions.json -x "rows.v*.jsonl" "$G/expected/v2" "$v" >/dev/null ||
            { echo "differs: $v"; return 1; }
    done
}
check golden_versions_read_alike same

# damage in an old part: verify fails and names the part, column and page
damaged() {
    local v out
    for v in 2 3 4 5; do
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

# damage in a chunk context (a symbol table's byte): verify names the part,
# column and row group, and says nothing more of the blocks that need it;
# reading the column fails with the same names, never a crash
context_damaged() {
    local d=$WORK/ctxdmg out at
    rm -rf "$d"
    cp -r "$G/v12/context" "$d"
    # the first symbol table holds the notes' commonest words (its pages hold codes)
    at=$(grep -boa -m1 'patient' "$d/part-000000.ingot" | head -1 | cut -d: -f1)
    [ -n "$at" ] || { echo "no symbol found"; return 1; }
    printf 'P' | dd of="$d/part-000000.ingot" bs=1 seek="$at" conv=notrunc status=none
    out=$("$INGOT" verify "$d" 2>&1) && { echo "verify passed"; return 1; }
    grep -q "part-000000.ingot: column 'note' row group 0: chunk context: checksum mismatch" <<<"$out" &&
        [ "$(grep -c FAIL <<<"$out")" = 1 ] || { echo "$out"; return 1; }
    out=$("$INGOT" cat "$d" note 2>&1) && { echo "cat passed"; return 1; }
    grep -q "column 'note' page [0-9]*: row group 0: chunk context" <<<"$out" || { echo "$out"; return 1; }
    [ "$("$INGOT" cat "$d" price | wc -l)" = 595 ] # other columns read
}
check golden_context_damage_named context_damaged

# a table of mixed versions: a version-3 part with a part of this version appended;
# rows read by id from both, an erase in both, and each part keeps its version
mixed() {
    local m="$WORK/mixed" out
    rm -rf "$m"; cp -r "$G/v3/flat" "$m"
    # the schema the v3 table was made with (inputs/flat.txt asks for huffman since
    # v5, decimal since v8)
    sed 's/encoding=huffman/compression=zstd/; s/encoding=decimal/encoding=for/' "$G/inputs/flat.txt" >"$WORK/flat_v3.txt"
    "$INGOT" import --append --schema "$WORK/flat_v3.txt" "$G/inputs/flat.csv" "$m" >/dev/null || return 1
    "$INGOT" inspect --json "$m" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["rows"] == 800, d["rows"]' || return 1
    # the appended rows read as the original ones (ids 400.. = 0..)
    out=$("$INGOT" cat --rows 1,401,398,798 "$m" word txt) || return 1
    [ "$(sed -n 1p <<<"$out")" = "$(sed -n 2p <<<"$out")" ] && [ "$(sed -n 3p <<<"$out")" = "$(sed -n 4p <<<"$out")" ] ||
        { echo "$out"; return 1; }
    "$INGOT" erase --row 1,401,398,798 "$m" >/dev/null || return 1
    "$INGOT" verify "$m" >/dev/null || { "$INGOT" verify "$m"; return 1; }
    out=$("$INGOT" cat --rows 1,401,2 "$m" id 2>&1) && return 1
    grep -q "row 1: no such row" <<<"$out" && grep -q "row 401: no such row" <<<"$out" || { echo "$out"; return 1; }
    # 400 rows (3 erased when made, 2 now) and 400 appended (2 erased now)
    [ "$("$INGOT" cat "$m" word | wc -l)" = $((400 - 3 - 2 + 400 - 2)) ] || return 1
    # the old part is still version 3 (the erase kept it), the new one the version this writer writes
    local writes
    writes=$("$INGOT" --version | sed -n 's/.*writes format version \([0-9]*\).*/\1/p')
    "$INGOT" inspect --json "$m" | /usr/bin/python3 -c '
import json, sys
got = [p["format_version"] for p in json.load(sys.stdin)["parts"]]
assert got == [3, int(sys.argv[1])], got' "$writes" || return 1
    # bounds: the new part's group only (the old part has none, so inspect
    # shows no range); an erase on a bound of the new part (row 400 holds its
    # smallest id, 1000) takes them again, and verify --deep holds them to the
    # values
    "$INGOT" inspect --json "$m" | jq -e '.columns[] | select(.name == "id") | .bounded_groups == 1 and (has("min") | not)' >/dev/null ||
        { "$INGOT" inspect --json "$m" | jq -c '.columns[0]'; return 1; }
    "$INGOT" erase --row 400 "$m" >/dev/null || return 1
    "$INGOT" inspect --json "$m" | jq -e '.columns[] | select(.name == "id") | .bounded_groups == 1' >/dev/null || return 1
    "$INGOT" verify --deep "$m" >/dev/null || { "$INGOT" verify --deep "$m"; return 1; }
}
check golden_mixed_versions_read_and_erase mixed
