#!/usr/bin/env bash
# Chunk zstd dictionaries (format 13, context kind 2): a string chunk large
# enough gets one and its blocks are compressed against it; a row read alone
# equals the same row of a whole-column read; an erase zeroes the segments
# only erased values held (a word only they had is gone from every byte of
# the file) and verify --deep checks the rule; a damaged dictionary is named.
source "$(dirname "$0")/lib.sh"

# 30,000 captions of words from a 300-word vocabulary (one chunk of ~2 MB),
# every 500th from row 7 made of a word no other row holds, every 500th from
# row 250 a long caption that holds most of it past its first 4 KiB (it stays:
# frames that reached into the erased word's bytes in the dictionary are
# compressed again). The trainer reads a value's first 4 KiB only, so the
# dictionary cannot hold that part of the word from these rows, however its
# sample falls; with the word at their start, a sample that took one of them
# kept a segment of its own for the staying rows' frames to match.
"$PY" - "$WORK/in.csv" <<'PY'
import random, sys
rng = random.Random(42)
vocab = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9))) for _ in range(300)]
with open(sys.argv[1], "w") as f:
    f.write("id,caption\n")
    for i in range(30000):
        if i % 500 == 7:
            c = " ".join(["SECRETWORDQZX"] * 6)
        elif i % 500 == 250:
            words = []
            while len(" ".join(words)) < 4200:
                words.append(rng.choice(vocab))
            c = " ".join(words + ["SECRETWORDQ"] + [rng.choice(vocab) for _ in range(4)])
        else:
            c = " ".join(rng.choice(vocab) for _ in range(rng.randint(6, 14)))
        f.write(f"{i},{c}\n")
PY
"$INGOT" import "$WORK/in.csv" "$WORK/t" >/dev/null 2>&1 || fail zdict_import "import failed"
P=$WORK/t/part-000000.ingot

uses_dict() {
    "$INGOT" inspect --json "$WORK/t" | "$PY" -c '
import json, sys
j = json.load(sys.stdin)
assert j["format_version"] >= 13, j["format_version"]' || return 1
    # the vocabulary in plain bytes once (the dictionary, its context packed),
    # far fewer times than rows
    local n
    plain_view "$P" "$WORK/t.plain" || return 1
    n=$(grep -c -a -o 'SECRETWORDQZX' "$WORK/t.plain")
    [ "$n" -ge 1 ] || { echo "secret word not in the file before the erase"; return 1; }
    # smaller than the same table without dictionaries (zstd alone per block;
    # the dictionary's frames are small, for row reads: 3 % here)
    printf 'id int64\ncaption string compression=zstd encoding=plain\n' >"$WORK/s.txt"
    "$INGOT" import --schema "$WORK/s.txt" "$WORK/in.csv" "$WORK/plain" >/dev/null 2>&1 || return 1
    local a b
    a=$(du -sb "$WORK/t" | cut -f1)
    b=$(du -sb "$WORK/plain" | cut -f1)
    [ "$a" -lt $((b * 99 / 100)) ] || { echo "with dictionary $a bytes, without $b"; return 1; }
}
check zdict_written_and_smaller uses_dict

rows_alone() {
    "$INGOT" cat "$WORK/t" caption >"$WORK/all.txt" || return 1
    local ids
    ids=$("$PY" -c 'import random; r = random.Random(3); print(",".join(str(r.randrange(30000)) for _ in range(300)))')
    "$INGOT" cat --rows "$ids" "$WORK/t" >"$WORK/rows.jsonl" || return 1
    "$PY" - "$WORK/all.txt" "$WORK/rows.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().split("\n")
n = 0
for l in open(sys.argv[2]):
    r = json.loads(l)
    assert r["caption"] == lines[r["id"]], r["id"]
    n += 1
assert n == 300, n
PY
}
check zdict_row_alone_equals_column rows_alone

erased() {
    cp -r "$WORK/t" "$WORK/e"
    seq 7 500 29999 >"$WORK/kill.ids"
    seq 100 997 29999 >>"$WORK/kill.ids"
    sort -n -o "$WORK/kill.ids" "$WORK/kill.ids"
    local out
    out=$("$INGOT" erase --json --rows-from "$WORK/kill.ids" "$WORK/e") || { echo "$out"; return 1; }
    "$PY" -c '
import json, sys
j = json.loads(sys.argv[1])
assert j["dict_segments_zeroed"] > 0 and j["dict_blocks_recompressed"] > 0, j' "$out" || return 1
    plain_view "$WORK/e/part-000000.ingot" "$WORK/e.plain" || return 1
    ! grep -q -a 'SECRETWORDQZX' "$WORK/e.plain" || { echo "the erased word survived"; return 1; }
    "$INGOT" verify --deep "$WORK/e" >/dev/null || { "$INGOT" verify --deep "$WORK/e"; return 1; }
    # every other row reads as before
    "$INGOT" cat "$WORK/e" caption >"$WORK/after.txt"
    "$PY" - "$WORK/all.txt" "$WORK/after.txt" "$WORK/kill.ids" <<'PY' || return 1
import sys
before = open(sys.argv[1]).read().split("\n")[:-1]
after = open(sys.argv[2]).read().split("\n")[:-1]
gone = {int(x) for x in open(sys.argv[3]).read().split()}
kept = [b for i, b in enumerate(before) if i not in gone]
assert len(kept) == len(after), (len(kept), len(after))
for i, (k, a) in enumerate(zip(kept, after)):
    assert a == k, i
PY
    # never grows but by the deletion bitmap: every block erased in its room
    grew_by_bitmap "$(stat -c %s "$P")" "$(stat -c %s "$WORK/e/part-000000.ingot")" 30000
}
check zdict_erase_zeroes_what_only_erased_values_held erased

damaged() {
    cp -r "$WORK/t" "$WORK/d"
    local at size out
    # a byte in the middle of the caption chunk's context (its dictionary)
    read -r at size < <(context_at "$WORK/d/part-000000.ingot" 'SECRETWORDQZX')
    [ -n "$size" ] || { echo "no dictionary bytes found"; return 1; }
    at=$((at + size / 2))
    printf 'Z' | dd of="$WORK/d/part-000000.ingot" bs=1 seek="$at" conv=notrunc status=none
    out=$("$INGOT" verify "$WORK/d" 2>&1) && { echo "verify passed"; return 1; }
    grep -q "column 'caption' row group 0: chunk context: checksum mismatch" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" cat --rows 5 "$WORK/d" 2>&1) && { echo "read passed: $out"; return 1; }
    grep -q "column 'caption' page [0-9]*: row group 0: chunk context" <<<"$out" || { echo "$out"; return 1; }
}
check zdict_damage_named damaged
