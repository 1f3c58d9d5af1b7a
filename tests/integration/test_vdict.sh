#!/usr/bin/env bash
# Chunk value dictionaries (format 14, context kind 3): a low-cardinality
# string column and a list<string> column store their distinct values once per
# chunk and only codes in their blocks (vdict); the table is smaller than with
# each block's own dictionary; rows read alone, whole columns, the C API's
# take, a mount's rows/, jsonl/ and parquet/ views all agree; an erase (CLI or
# `rm rows/ID`) erases every entry only erased rows named, so no byte of it is
# left in the file, and verify --deep recounts every entry's uses; damaged
# contexts and codes are named.
source "$(dirname "$0")/lib.sh"

# 40,000 rows: a maintainer of 600, tags from 300, NULLs and empty strings;
# row 7 alone has SECRETMAINTAINERQZX, row 9 alone the tag SECRETTAGQZX
"$PY" - "$WORK/in.jsonl" <<'PY'
import json, random, sys
rng = random.Random(5)
names = ["Maintainer %d <m%d@lists.example.org>" % (i, i) for i in range(600)]
tags = ["role::%d" % i for i in range(40)] + ["implemented-in::%d" % i for i in range(260)]
with open(sys.argv[1], "w") as f:
    for i in range(40000):
        m = "SECRETMAINTAINERQZX" if i == 7 else (None if i % 61 == 0 else ("" if i % 67 == 0 else rng.choice(names)))
        t = ["SECRETTAGQZX", "role::1"] if i == 9 else (None if i % 59 == 0 else [rng.choice(tags) for _ in range(rng.randint(0, 5))])
        f.write(json.dumps({"id": i, "maintainer": m, "tags": t}) + "\n")
PY
printf 'id int64\nmaintainer string?\ntags list<string>?\n' >"$WORK/s.txt"
"$INGOT" import --format jsonl --schema "$WORK/s.txt" "$WORK/in.jsonl" "$WORK/t" >/dev/null 2>&1 || fail vdict_import "import failed"
P=$WORK/t/part-000000.ingot

written() {
    local j
    j=$("$INGOT" inspect --json "$WORK/t") || return 1
    "$PY" -c '
import json, sys
j = json.loads(sys.argv[1])
assert j["format_version"] >= 14, j["format_version"]
enc = {c["name"]: c["encodings"] for c in j["columns"]}
assert "vdict" in enc["maintainer"], enc
assert any("vdict" in e for n, e in enc.items() if n.startswith("tags")), enc' "$j" || return 1
    # each value once: in its chunk's dictionary (its context packed: none
    # in plain bytes)
    plain_view "$P" "$WORK/t.plain" || return 1
    [ "$(grep -c -a -o 'Maintainer 17 <m17@' "$WORK/t.plain")" = 1 ] || { echo "a maintainer is not stored once"; return 1; }
    [ "$(grep -c -a -o 'Maintainer 17 <m17@' "$P")" = 0 ] || { echo "a value dictionary is not packed"; return 1; }
    # smaller than each block with its own dictionary
    printf 'id int64\nmaintainer string? encoding=dict\ntags list<string>? encoding=dict\n' >"$WORK/d.txt"
    "$INGOT" import --format jsonl --schema "$WORK/d.txt" "$WORK/in.jsonl" "$WORK/own" >/dev/null 2>&1 || return 1
    local a b
    a=$(stat -c %s "$P"); b=$(stat -c %s "$WORK/own/part-000000.ingot")
    [ "$a" -lt $((b * 80 / 100)) ] || { echo "with value dictionaries $a bytes, without $b"; return 1; }
    "$INGOT" verify --deep "$WORK/t" >/dev/null
}
check vdict_written_once_and_smaller written

# every surface reads the same rows
agree() { # TABLE [ERASED IDS, comma-separated]
    local t=$1 gone=${2:-}
    "$INGOT" cat "$t" maintainer >"$WORK/m.txt" || return 1
    local ids
    ids=$("$PY" -c '
import sys
g = sorted({int(x) for x in sys.argv[1].split(",") if x}) + [40000]
r, a = [], 0
for b in g:
    if b > a: r.append("%d-%d" % (a, b - 1))
    a = b + 1
print(",".join(r))' "$gone")
    "$INGOT" cat --rows "$ids" "$t" >"$WORK/rows.jsonl" || return 1
    "$PY" - "$WORK/in.jsonl" "$WORK/rows.jsonl" "$WORK/m.txt" "$gone" <<'PY'
import json, sys
src = {}
for l in open(sys.argv[1]):
    r = json.loads(l); src[r["id"]] = r
gone = {int(x) for x in sys.argv[4].split(",") if x}
rows = [json.loads(l) for l in open(sys.argv[2])]
assert len(rows) == 40000 - len(gone), len(rows)
for r in rows:
    s = src[r["id"]]
    assert r["maintainer"] == s["maintainer"] and r["tags"] == s["tags"], (r, s)
# a column read skips the erased rows
m = open(sys.argv[3]).read().split("\n")[:-1]
want = ["\\N" if src[i]["maintainer"] is None else src[i]["maintainer"] for i in range(40000) if i not in gone]
assert m == want, [(a, b) for a, b in zip(m, want) if a != b][:3]
PY
}
check vdict_rows_and_columns_agree agree "$WORK/t"

take() {
    local b=$ROOT/build-dev/scripts/bench/bench_take
    [ -x "$b" ] || b=$(dirname "$INGOT")/scripts/bench/bench_take
    [ -x "$b" ] || { echo "no bench_take beside $INGOT"; return 0; }
    "$PY" -c 'import random; r = random.Random(9); print("\n".join(str(r.randrange(40000)) for _ in range(1000)))' >"$WORK/take.ids"
    local out
    out=$("$b" "$WORK/t" "$WORK/take.ids" 1) || return 1
    grep -q 'found=1000' <<<"$out" || { echo "$out"; return 1; }
}
check vdict_take take

erased() {
    cp -r "$WORK/t" "$WORK/e"
    local out before
    before=$(stat -c %s "$WORK/e/part-000000.ingot")
    plain_view "$WORK/e/part-000000.ingot" "$WORK/e.plain" || return 1
    grep -q -a 'SECRETMAINTAINERQZX' "$WORK/e.plain" || { echo "the maintainer is not there before"; return 1; }
    out=$("$INGOT" erase --json --row 7 --row 9 --row 100 "$WORK/e") || { echo "$out"; return 1; }
    "$PY" -c '
import json, sys
j = json.loads(sys.argv[1])
assert j["vdict_entries_zeroed"] == 2, j' "$out" || return 1
    plain_view "$WORK/e/part-000000.ingot" "$WORK/e.plain" || return 1
    ! grep -q -a 'SECRETMAINTAINERQZX' "$WORK/e.plain" || { echo "the erased maintainer survived"; return 1; }
    ! grep -q -a 'SECRETTAGQZX' "$WORK/e.plain" || { echo "the erased tag survived"; return 1; }
    grew_by_bitmap "$before" "$(stat -c %s "$WORK/e/part-000000.ingot")" 40000 || return 1
    "$INGOT" verify --deep "$WORK/e" >/dev/null || { "$INGOT" verify --deep "$WORK/e"; return 1; }
    agree "$WORK/e" "7,9,100"
}
check vdict_erase_leaves_no_byte_of_an_entry erased

# a crash at every durable step of an erase: the rows and their dictionary
# entries are either all there or all gone, and the table verifies (counts too)
crash_every_step() { # [VAR=VALUE ...]: the erase's environment besides
    local n=1 rc m g
    while :; do
        rm -rf "$WORK/c"; cp -r "$WORK/t" "$WORK/c"
        env "$@" INGOT_FAULT_AFTER=$n "$INGOT" erase --row 7 --row 9 "$WORK/c" >/dev/null 2>&1; rc=$?
        "$INGOT" verify --deep "$WORK/c" >/dev/null || { echo "step $n:"; "$INGOT" verify --deep "$WORK/c"; return 1; }
        plain_view "$WORK/c/part-000000.ingot" "$WORK/c.plain" || return 1
        m=$(grep -c -a 'SECRETMAINTAINERQZX' "$WORK/c.plain")
        g=$(grep -c -a 'SECRETTAGQZX' "$WORK/c.plain")
        [ "$m" = "$g" ] || { echo "step $n: half erased ($m, $g)"; return 1; }
        if [ $rc -eq 0 ]; then
            [ "$m" = 0 ] || { echo "completed but an entry is left"; return 1; }
            break
        fi
        [ $rc -eq 137 ] || { echo "step $n: exit $rc"; return 1; }
        n=$((n + 1))
        [ $n -lt 100 ] || { echo "never completed"; return 1; }
    done
    echo "crashed at each of $((n - 1)) steps"
}
check vdict_erase_crash_at_every_step crash_every_step

# a context packed again that no longer fits its place goes after the data
# (INGOT_TEST_CONTEXT_MOVE=1 moves every context an erase writes): read from
# there, erased again, crashed into at every step, its old place zeroed
moved() {
    rm -rf "$WORK/mv"; cp -r "$WORK/t" "$WORK/mv"
    local out
    out=$(INGOT_TEST_CONTEXT_MOVE=1 "$INGOT" erase --json --row 7 --row 100 "$WORK/mv") || { echo "$out"; return 1; }
    "$PY" -c '
import json, sys
j = json.loads(sys.argv[1])
assert j["contexts_moved"] == 2 and j["vdict_entries_zeroed"] == 1, j' "$out" || return 1
    tail -1 "$WORK/mv/.ingot/erasures" | grep -q " pages_moved=[0-9]* contexts_moved=2 " ||
        { echo "the audit line: $(tail -1 "$WORK/mv/.ingot/erasures")"; return 1; }
    "$INGOT" verify --deep "$WORK/mv" >/dev/null || { "$INGOT" verify --deep "$WORK/mv"; return 1; }
    agree "$WORK/mv" "7,100" || return 1
    plain_view "$WORK/mv/part-000000.ingot" "$WORK/mv.plain" || return 1
    ! grep -q -a 'SECRETMAINTAINERQZX' "$WORK/mv.plain" || { echo "the erased maintainer survived"; return 1; }
    # a moved context erased again where it now lies
    out=$("$INGOT" erase --json --row 9 "$WORK/mv") || { echo "$out"; return 1; }
    "$INGOT" verify --deep "$WORK/mv" >/dev/null || { "$INGOT" verify --deep "$WORK/mv"; return 1; }
    agree "$WORK/mv" "7,9,100" || return 1
    plain_view "$WORK/mv/part-000000.ingot" "$WORK/mv.plain" || return 1
    ! grep -q -a 'SECRETTAGQZX' "$WORK/mv.plain" || { echo "the erased tag survived"; return 1; }
    crash_every_step INGOT_TEST_CONTEXT_MOVE=1 >/dev/null || return 1
    # through a mount whose daemon moves them: rm rows/ID, then rows read
    have_fuse || return 0
    rm -rf "$WORK/mm"; cp -r "$WORK/t" "$WORK/mm"; mkdir -p "$WORK/mnt2"
    INGOT_TEST_CONTEXT_MOVE=1 "$INGOT" mount "$WORK/mm" "$WORK/mnt2" || return 1
    local why=""
    rm "$WORK/mnt2/rows/7" || why="rm rows/7 failed"
    [ -n "$why" ] || "$PY" - "$WORK/in.jsonl" "$WORK/mnt2" <<'PY' || why="rows differ after rm"
import json, os, sys
src = [json.loads(l) for l in open(sys.argv[1])]
assert not os.path.exists(sys.argv[2] + "/rows/7")
for i in (0, 1, 8, 9, 61, 67, 39999):
    r = json.load(open("%s/rows/%d" % (sys.argv[2], i)))
    assert r["maintainer"] == src[i]["maintainer"] and r["tags"] == src[i]["tags"], (i, r)
PY
    fusermount3 -u "$WORK/mnt2"
    [ -z "$why" ] || { echo "$why"; return 1; }
    "$INGOT" verify --deep "$WORK/mm" >/dev/null || { "$INGOT" verify --deep "$WORK/mm"; return 1; }
    plain_view "$WORK/mm/part-000000.ingot" "$WORK/mm.plain" || return 1
    ! grep -q -a 'SECRETMAINTAINERQZX' "$WORK/mm.plain" || { echo "rm rows/7 left the maintainer"; return 1; }
}
check vdict_context_moved_when_it_outgrows_its_place moved

damaged() {
    cp -r "$WORK/t" "$WORK/d"
    local at size out
    # a byte in the middle of the maintainer chunk's context
    read -r at size < <(context_at "$WORK/d/part-000000.ingot" 'Maintainer 17 <m17@')
    [ -n "$size" ] || { echo "no dictionary bytes found"; return 1; }
    at=$((at + size / 2))
    printf 'Z' | dd of="$WORK/d/part-000000.ingot" bs=1 seek="$at" conv=notrunc status=none
    out=$("$INGOT" verify "$WORK/d" 2>&1) && { echo "verify passed"; return 1; }
    grep -q "column 'maintainer' row group 0: chunk context: checksum mismatch" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" cat --rows 5 "$WORK/d" 2>&1) && { echo "read passed: $out"; return 1; }
    grep -q "column 'maintainer' page [0-9]*: row group 0: chunk context" <<<"$out" || { echo "$out"; return 1; }
}
check vdict_damage_named damaged

# through a mount: rows/ID, the jsonl and Parquet views, and rm rows/ID
mounted() {
    have_fuse || { echo "SKIP: no fuse"; return 0; }
    cp -r "$WORK/t" "$WORK/mt"
    mkdir -p "$WORK/mnt"
    "$INGOT" mount "$WORK/mt" "$WORK/mnt" || return 1
    local why=""
    "$PY" - "$WORK/in.jsonl" "$WORK/mnt" <<'PY' || why="rows/ or jsonl/ differ"
import json, sys
src = [json.loads(l) for l in open(sys.argv[1])]
for i in (0, 1, 7, 9, 61, 67, 39999):
    r = json.load(open("%s/rows/%d" % (sys.argv[2], i)))
    assert r["maintainer"] == src[i]["maintainer"] and r["tags"] == src[i]["tags"], (i, r)
n = 0
for l in open(sys.argv[2] + "/jsonl/0.jsonl"):
    r = json.loads(l)
    assert r["maintainer"] == src[r["id"]]["maintainer"] and r["tags"] == src[r["id"]]["tags"], r
    n += 1
assert n == 40000, n
PY
    if [ -z "$why" ]; then
        cp "$WORK/mnt/parquet/0.parquet" "$WORK/v.parquet" && "$INGOT" import "$WORK/v.parquet" "$WORK/back" >/dev/null &&
            cmp -s <("$INGOT" cat "$WORK/back" maintainer) <("$INGOT" cat "$WORK/t" maintainer) &&
            cmp -s <("$INGOT" cat "$WORK/back" tags) <("$INGOT" cat "$WORK/t" tags) || why="the Parquet view differs"
    fi
    [ -n "$why" ] || rm "$WORK/mnt/rows/7" || why="rm rows/7 failed"
    fusermount3 -u "$WORK/mnt"
    [ -z "$why" ] || { echo "$why"; return 1; }
    plain_view "$WORK/mt/part-000000.ingot" "$WORK/mt.plain" || return 1
    ! grep -q -a 'SECRETMAINTAINERQZX' "$WORK/mt.plain" || { echo "rm rows/7 left the maintainer"; return 1; }
    "$INGOT" verify --deep "$WORK/mt" >/dev/null
}
check vdict_mount_views_and_rm mounted
