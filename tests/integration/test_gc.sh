#!/usr/bin/env bash
# ingot gc: old versions go (never the current or a tagged one, --keep and
# --older-than both have their say), and the column records no version kept
# shows are released: a replaced column's old values are in no file after it,
# the versions kept read as before, a removed version says gc removed it,
# verify --deep passes, a crash at every durable step leaves a table that
# reads and verifies (and the next gc finishes), a blob column's objects go
# with its pages, and an erasure's audit line names the versions it reached.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

T=$WORK/t
"$PY" - "$WORK" <<'PY'
import sys, numpy as np
w = sys.argv[1]
with open(f"{w}/a.csv", "w") as f:
    print("id,name,x", file=f)
    for i in range(5000):
        print(f"{i},n{i},{i * 0.5}", file=f)
live = [i for i in range(5000) if i != 7]
# random values (stored plain: they do not compress), so that a value's bytes
# can be looked for in the files; then the backfill that replaces them
rng = np.random.default_rng(11)
np.save(f"{w}/old.npy", rng.integers(-(1 << 63), (1 << 63) - 1, size=len(live), dtype=np.int64))
np.save(f"{w}/new.npy", np.array([i * 10 for i in live], dtype=np.int64))
# the live rows once row 9 is erased too
np.save(f"{w}/late.npy", np.arange(len(live) - 1, dtype=np.float64))
PY
"$INGOT" import --rows-per-group 1000 "$WORK/a.csv" "$T" >/dev/null 2>&1 # version 1
"$INGOT" erase --row 7 "$T" >/dev/null                                     # 2
"$INGOT" add-column --name score "$T" "$WORK/old.npy" >/dev/null            # 3
"$INGOT" replace-column --name score "$T" "$WORK/new.npy" >/dev/null        # 4
"$INGOT" drop-column "$T" x >/dev/null                                      # 5
"$INGOT" tag "$T" first 1 >/dev/null
cp -r "$T" "$WORK/before"

# does any file of TABLE hold row 8's old score (the 8th live row's)?
holds_old() {
    "$PY" - "$1" "$WORK/old.npy" <<'PY'
import glob, os, sys, numpy as np
t = sys.argv[1]
needle = np.load(sys.argv[2])[7].tobytes()
for path in glob.glob(f"{t}/part-*") + glob.glob(f"{t}/.ingot/**", recursive=True):
    if os.path.isfile(path) and needle in open(path, "rb").read():
        sys.exit(0)
sys.exit(1)
PY
}

versions_of() { "$INGOT" versions --json "$1" | jq -r '[.[].version] | join(",")'; }

refuses_without_rules() {
    local out
    out=$("$INGOT" gc "$T" 2>&1) && return 1
    grep -q "say which versions go" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" gc --older-than 3 "$T" 2>&1) && return 1
    grep -q "older-than: expected a number and a unit" <<<"$out" || { echo "$out"; return 1; }
}
check gc_refuses_without_rules refuses_without_rules

dry_run() {
    local before out
    before=$(cd "$T" && sha256sum MANIFEST part-* .ingot/versions/*)
    out=$("$INGOT" gc --keep 2 --dry-run --json "$T") || return 1
    [ "$(jq -c .removed <<<"$out")" = "[2,3]" ] || { echo "$out"; return 1; }
    [ "$(jq -c .kept <<<"$out")" = "[1,4,5]" ] || { echo "$out"; return 1; }
    [ "$(jq .columns <<<"$out")" = 1 ] && [ "$(jq .pages <<<"$out")" = 5 ] || { echo "$out"; return 1; }
    [ "$(cd "$T" && sha256sum MANIFEST part-* .ingot/versions/*)" = "$before" ] || { echo "the table changed"; return 1; }
}
check gc_dry_run_changes_nothing dry_run

# --keep 2 keeps 4 and 5, the tag keeps 1: 2 and 3 go, and with them the only
# versions that showed the replaced score's old values (record 3)
keep_and_release() {
    local out want
    holds_old "$T" || { echo "the old value is not in the files before gc: the check proves nothing"; return 1; }
    want=$("$INGOT" cat --version 4 "$T" score | sha256sum)
    out=$("$INGOT" gc --keep 2 --json "$T") || return 1
    [ "$(jq -c .removed <<<"$out")" = "[2,3]" ] || { echo "$out"; return 1; }
    [ "$(jq .column_records <<<"$out")" = 1 ] || { echo "$out"; return 1; }
    [ "$(versions_of "$T")" = "1,4,5" ] || { versions_of "$T"; return 1; }
    ! holds_old "$T" || { echo "a file still holds row 8's old score"; return 1; }
    # the versions kept read as before
    [ "$("$INGOT" cat --version 4 "$T" score | sha256sum)" = "$want" ] || { echo "version 4 changed"; return 1; }
    [ "$("$INGOT" cat --version first --rows 8 "$T" x)" = '{"x":4.0}' ] || return 1
    [ "$("$INGOT" cat --version 4 --rows 8 "$T" x score)" = '{"x":4.0,"score":80}' ] || return 1
    [ "$("$INGOT" cat --rows 8 "$T")" = '{"id":8,"name":"n8","score":80}' ] || return 1
    # a removed version says so
    out=$("$INGOT" cat --version 3 --rows 8 "$T" 2>&1) && return 1
    grep -q "version 3 was removed by ingot gc" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" verify --deep --json "$T") || { echo "$out"; return 1; }
    [ "$(jq .released_pages <<<"$out")" = 5 ] || { echo "$out"; return 1; }
    "$INGOT" inspect "$T" | grep -q "^columns    3 (and 1 record older versions show; ingot gc frees them; 1 record released by ingot gc)" ||
        { "$INGOT" inspect "$T" | sed -n 3p; return 1; }
    # nothing more to do: a second gc changes no byte
    local sum
    sum=$(cd "$T" && sha256sum MANIFEST part-*)
    "$INGOT" gc --keep 2 "$T" | grep -q "removed no version" || return 1
    [ "$(cd "$T" && sha256sum MANIFEST part-*)" = "$sum" ]
}
check gc_keeps_tagged_current_newest_and_releases_old_values keep_and_release

# a released page cannot pass for a live one: verify names a damaged one
released_damage() {
    local d=$WORK/damaged off
    rm -rf "$d"; cp -r "$T" "$d"
    # a byte of the first released page's extent, no longer zero
    off=$("$PY" - "$d/part-000000.ingot" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
fo, fs = struct.unpack_from("<QQ", d, len(d) - 64)
f = d[fo:fo + fs]
poff, psize = struct.unpack_from("<QQ", f, 80 + 16 * 6)
for i in range(psize // 64):
    r = f[poff + 64 * i: poff + 64 * i + 64]
    if r[34] & 4:
        print(struct.unpack_from("<Q", r, 0)[0] + 3)
        break
PY
)
    [ -n "$off" ] || { echo "no released page"; return 1; }
    printf '\x55' | dd of="$d/part-000000.ingot" bs=1 seek="$off" conv=notrunc status=none
    local out
    out=$("$INGOT" verify "$d" 2>&1) && { echo "verify passed: $out"; return 1; }
    grep -q "released, but its extent is not zero" <<<"$out" || { echo "$out"; return 1; }
}
check gc_verify_finds_data_in_released_page released_damage

# an erasure reaches the versions kept and its audit line names them; a
# column added after gc grafts onto footers with released pages
after_gc() {
    "$INGOT" erase --row 9 "$T" >/dev/null || return 1
    tail -1 "$T/.ingot/erasures" | grep -q " versions=1,4-6$" || { tail -1 "$T/.ingot/erasures"; return 1; }
    "$INGOT" add-column --name late "$T" "$WORK/late.npy" >/dev/null || return 1
    [ "$("$INGOT" cat --rows 10 "$T" late)" = '{"late":8.0}' ] || { "$INGOT" cat --rows 10 "$T" late; return 1; }
    "$INGOT" verify --deep "$T" >/dev/null || { "$INGOT" verify "$T"; return 1; }
}
check gc_then_erase_and_add_column after_gc

# --older-than: nothing is older than a day; with --keep too, a version goes
# only if both rules let it; once versions are old enough they go, and x (shown
# by versions 1 and 4 only, once the tag is gone) is released
older_than() {
    "$INGOT" gc --older-than 1d "$T" | grep -q "removed no version" || return 1
    "$INGOT" tag --delete "$T" first >/dev/null || return 1
    sleep 2
    "$INGOT" gc --keep 1 --older-than 1d "$T" | grep -q "removed no version" || return 1
    local out
    out=$("$INGOT" gc --older-than 1s --keep 2 --json "$T") || return 1
    [ "$(jq -c .removed <<<"$out")" = "[1,4,5]" ] || { echo "$out"; return 1; }
    [ "$(versions_of "$T")" = "6,7" ] || { versions_of "$T"; return 1; }
    [ "$(jq .column_records <<<"$out")" = 1 ] || { echo "$out"; return 1; }
    ! "$INGOT" cat --version 4 "$T" x >/dev/null 2>&1 || return 1
    "$INGOT" verify --deep "$T" >/dev/null || { "$INGOT" verify "$T"; return 1; }
}
check gc_older_than_and_keep_both_agree older_than

# every durable step of gc killed in turn: the table reads and verifies, the
# current version reads as before, and a gc run afterwards finishes the work
crash_steps() {
    local k rc out base=$WORK/crash want
    want=$("$INGOT" cat "$WORK/before" score | sha256sum)
    for k in $(seq 1 40); do
        rm -rf "$base"; cp -r "$WORK/before" "$base"
        INGOT_FAULT_AFTER=$k "$INGOT" gc --keep 2 "$base" >/dev/null 2>&1
        rc=$?
        out=$("$INGOT" verify "$base" 2>&1) || { echo "step $k: $out"; return 1; }
        [ "$("$INGOT" cat "$base" score | sha256sum)" = "$want" ] || { echo "step $k: score changed"; return 1; }
        [ "$("$INGOT" cat --version 4 --rows 8 "$base" x score)" = '{"x":4.0,"score":80}' ] ||
            { echo "step $k: version 4"; return 1; }
        "$INGOT" gc --keep 2 "$base" >/dev/null || { echo "step $k: gc again failed"; return 1; }
        ! holds_old "$base" || { echo "step $k: the old value survived"; return 1; }
        out=$("$INGOT" verify --deep "$base" 2>&1) || { echo "step $k, after: $out"; return 1; }
        [ $rc = 0 ] && { echo "gc ran through after $((k - 1)) steps"; return 0; }
    done
    echo "gc still killed at step 40"
    return 1
}
check gc_crash_at_every_step_reads_and_verifies crash_steps

# a blob column dropped and collected: its objects are zeroed with its pages
blobs() {
    local d=$WORK/b out
    mkdir -p "$d/objs"
    for i in $(seq 0 19); do
        "$PY" -c "import sys; sys.stdout.write('BLOBSECRET%04d' % $i * 300)" >"$d/objs/$i.bin"
        echo "{\"id\": $i, \"obj\": \"objs/$i.bin\"}"
    done >"$d/in.jsonl"
    printf 'id int64\nobj blob?\n' >"$d/s.txt"
    (cd "$d" && "$INGOT" import --format jsonl --schema s.txt in.jsonl t >/dev/null 2>&1) || return 1
    grep -q BLOBSECRET0007 "$d/t/part-000000.blob" || { echo "no object in the blob file"; return 1; }
    "$INGOT" drop-column "$d/t" obj >/dev/null || return 1
    out=$("$INGOT" gc --keep 1 --json "$d/t") || return 1
    [ "$(jq .blob_objects <<<"$out")" = 20 ] || { echo "$out"; return 1; }
    ! grep -q BLOBSECRET "$d/t/part-000000.blob" || { echo "an object survived"; return 1; }
    "$INGOT" verify --deep "$d/t" >/dev/null || { "$INGOT" verify "$d/t"; return 1; }
    [ "$("$INGOT" cat --rows 7 "$d/t")" = '{"id":7}' ]
}
check gc_zeroes_a_released_blob_columns_objects blobs

# a string column dropped and collected: its chunk's context (the fsst symbol
# table learnt from its values) is zeroed with its pages, and forgotten
contexts() {
    local d=$WORK/c out
    mkdir -p "$d"
    "$PY" - "$d/in.csv" <<'PY'
import random, sys
random.seed(5)
with open(sys.argv[1], "w") as f:
    print("id,note", file=f)
    for i in range(6000):
        # two random numbers a note: its chunk trains a symbol table (with
        # CTXSECRET among its symbols) whatever its blocks end up as
        print(f"{i},CTXSECRET{random.randrange(10**6):06d} patient note {random.randrange(10**6):06d} "
              f"{random.choice('abcdef')}", file=f)
PY
    "$INGOT" import --rows-per-group 3000 "$d/in.csv" "$d/t" >/dev/null 2>&1 || return 1
    grep -q CTXSECR "$d/t/part-000000.ingot" || { echo "no symbol in the part: the check proves nothing"; return 1; }
    "$INGOT" drop-column "$d/t" note >/dev/null || return 1
    out=$("$INGOT" gc --keep 1 --json "$d/t") || return 1
    ! grep -q CTXSECR "$d/t/part-000000.ingot" || { echo "a context survived: $out"; return 1; }
    "$INGOT" verify --deep "$d/t" >/dev/null || { "$INGOT" verify "$d/t"; return 1; }
    [ "$("$INGOT" cat --rows 7 "$d/t")" = '{"id":7}' ]
}
check gc_zeroes_a_released_chunks_context contexts

# the space of a large released column goes back to the file system
space() {
    local d=$WORK/s out before after
    "$PY" - "$WORK" <<'PY'
import sys, numpy as np
w = sys.argv[1]
with open(f"{w}/big.csv", "w") as f:
    print("id", file=f)
    for i in range(200000):
        print(i, file=f)
np.save(f"{w}/big.npy", np.random.default_rng(3).integers(0, 1 << 62, size=200000, dtype=np.int64))
PY
    "$INGOT" import "$WORK/big.csv" "$d" >/dev/null 2>&1 || return 1
    "$INGOT" add-column --name r "$d" "$WORK/big.npy" >/dev/null || return 1
    "$INGOT" drop-column "$d" r >/dev/null || return 1
    before=$(du -k "$d/part-000000.ingot" | cut -f1)
    out=$("$INGOT" gc --keep 1 --json "$d") || return 1
    after=$(du -k "$d/part-000000.ingot" | cut -f1)
    # 1.6 MB of random int64s: at least 1 MB of it given back
    [ $((before - after)) -ge 1024 ] || { echo "du $before KiB -> $after KiB; $out"; return 1; }
    [ "$(jq '.disk_bytes_before - .disk_bytes_after >= 1048576' <<<"$out")" = true ] || { echo "$out"; return 1; }
    "$INGOT" verify "$d" >/dev/null
}
check gc_gives_the_space_back space

# a part older than format 10 (an older release's table, a column dropped
# since) keeps those pages: said, not failed
old_parts() {
    local d=$WORK/old out
    cp -r "$INGOT_ROOT/tests/golden/v9/flat" "$d"
    local col
    col=$("$INGOT" inspect --columns "$d" | tail -1)
    "$INGOT" drop-column "$d" "$col" >/dev/null || return 1
    out=$("$INGOT" gc --keep 1 "$d") || return 1
    grep -q "1 part older than format 10 keeps the pages" <<<"$out" || { echo "$out"; return 1; }
    "$INGOT" verify "$d" >/dev/null
}
check gc_leaves_old_parts_as_they_are old_parts

# listed, with its own help, example and man page entry
documented() {
    "$INGOT" help | grep -qE "^  gc " || { echo "help lacks gc"; return 1; }
    "$INGOT" help gc | grep -q "^example:" || return 1
    "$INGOT" gc --help | grep -q "usage: ingot gc" || return 1
    man -l "$INGOT_ROOT/docs/man/ingot.1" 2>/dev/null | grep -qE "^ +gc( |$)" || { echo "man page lacks gc"; return 1; }
}
check gc_help_and_man documented
