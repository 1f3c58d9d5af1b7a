#!/usr/bin/env bash
# Erase under load: readers of every kind of file keep reading a mounted table
# while rows are erased through the mount and by the CLI, about three a second.
# No read may be torn or mix two generations (load_reader.py says what each
# reader checks); the daemon must stay up and the table verify afterwards.
#   LOAD_SECONDS=30 (default), LOAD_ROWS=200000
set -uo pipefail
. "$(dirname "$0")/lib.sh"
if ! have_fuse; then skip load "no /dev/fuse"; exit 0; fi
SECS=${LOAD_SECONDS:-30}
ROWS=${LOAD_ROWS:-200000}

# the table: id, val = id / 2, txt = "t<id>", img = one of 64 small JPEG-like
# objects, h = random floats (plain pages, which the daemon serves from its
# mapping of the part; their values kept in h.npy for the readers)
mkdir -p "$WORK/img"
"$PY" - "$WORK" "$ROWS" <<'PY'
import sys
import numpy as np
w, rows = sys.argv[1], int(sys.argv[2])
for k in range(64):
    open(f"{w}/img/{k}.jpg", "wb").write(b"\xff\xd8\xff" + (b"blob %02d " % k) * 20)
h = np.random.default_rng(3).standard_normal(rows)
np.save(f"{w}/h.npy", h)
with open(f"{w}/load.csv", "w") as f:
    f.write("id,val,txt,img,h\n")
    for i in range(rows):
        f.write(f"{i},{i / 2!r},t{i},img/{i % 64}.jpg,{h[i]!r}\n")
open(f"{w}/load.txt", "w").write("id int64\nval float64?\ntxt string\nimg blob\nh float64\n")
PY
"$INGOT" import --schema "$WORK/load.txt" --rows-per-group 20000 "$WORK/load.csv" "$WORK/t" >/dev/null ||
    { fail load_import "import failed"; exit 0; }
mkdir -p "$WORK/m"
"$INGOT" mount "$WORK/t" "$WORK/m" || { fail load_mount "mount failed"; exit 0; }
daemon=$(pgrep -f "ingot mount $WORK/t " | head -1)

# erasers: disjoint random ids, one through the mount (rm rows/ID), one by the CLI
"$PY" -c "import random; ids=list(range($ROWS)); random.Random(1).shuffle(ids); print('\n'.join(map(str, ids[:1000])))" >"$WORK/ids"
eraser() { # how: mount|cli, ids on stdin; ~1.5 erases a second until the deadline
    local how=$1 end=$((SECONDS + SECS)) n=0 bad=0 id
    while read -r id && [ $SECONDS -lt $end ]; do
        if [ "$how" = mount ]; then rm "$WORK/m/rows/$id" 2>>"$WORK/eraser.err" || bad=$((bad + 1))
        else "$INGOT" erase --row "$id" "$WORK/t" >/dev/null 2>>"$WORK/eraser.err" || bad=$((bad + 1)); fi
        n=$((n + 1))
        sleep 0.6
    done
    echo "$how $n $bad" >>"$WORK/erasers"
}
: >"$WORK/erasers"
sed -n '1~2p' "$WORK/ids" | eraser mount &
e1=$!
sed -n '2~2p' "$WORK/ids" | eraser cli &
e2=$!

pids=()
k=0
for mode in npy npy mmap mmap text text row row blob blob; do
    k=$((k + 1))
    "$PY" "$ROOT/tests/integration/load_reader.py" "$mode" "$WORK/m" "$SECS" "$k" "$WORK/h.npy" >"$WORK/r$k.json" 2>"$WORK/r$k.err" &
    pids+=($!)
done
# a DuckDB reader of the Parquet views (their names are cached by the kernel)
if need_duckdb load_parquet_reader; then
    node "$ROOT/tests/parquet/load_views.mjs" "$WORK/m" "$SECS" "$ROWS" >"$WORK/pq.out" 2>"$WORK/pq.err" &
    pids+=($!)
fi
peak=0
end=$((SECONDS + SECS))
while [ $SECONDS -lt $end ]; do
    hwm=$(awk '/VmHWM/ {print $2}' "/proc/$daemon/status" 2>/dev/null || echo 0)
    [ "${hwm:-0}" -gt "$peak" ] && peak=$hwm
    sleep 1
done
for p in "${pids[@]}"; do wait "$p"; done
wait $e1 $e2
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$daemon/status" 2>/dev/null || echo 0)
[ "${hwm:-0}" -gt "$peak" ] && peak=$hwm

summary=$("$PY" - "$WORK" "$SECS" <<'PY'
import glob, json, sys
w, secs = sys.argv[1], float(sys.argv[2])
tot = {"reads": 0, "enoent": 0, "estale": 0, "retried": 0}
errors, missing = [], 0
for path in sorted(glob.glob(f"{w}/r*.json")):
    try:
        s = json.load(open(path))
    except ValueError:
        missing += 1
        errors.append(f"{path}: no report; stderr: {open(path[:-5] + '.err').read()[-300:]}")
        continue
    for k in tot:
        tot[k] += s[k]
    errors += s["errors"]
print(f"{tot['reads'] / secs:.0f} reads/s, {tot['enoent']} ENOENT, {tot['estale']} ESTALE reopened, "
      f"{tot['retried']} re-reads after a generation moved")
for e in errors[:10]:
    print("ERROR", e)
PY
)
echo "     $summary; daemon peak RSS ${peak} KiB; erasures: $(tr '\n' ' ' <"$WORK/erasers")"
if [ -e "$WORK/pq.out" ]; then
    pq=$(cat "$WORK/pq.out")
    echo "     DuckDB over parquet/*.parquet: $pq"
    # failed queries (ESTALE, DuckDB's reads across two generations) are counted,
    # and how many there are follows how often erasures land while a query runs
    # (a loaded machine: more); a query that succeeded must not mix, and more
    # must succeed than fail
    if [ "$(jq -r '.errors | length' <<<"$pq" 2>/dev/null)" = 0 ] &&
        [ "$(jq -r '.reads >= 5 and .reads > .estale + .reader_mixed' <<<"$pq")" = true ]; then
        pass load_parquet_views_one_generation
    else
        fail load_parquet_views_one_generation "${pq:-no report: $(tail -c 300 "$WORK/pq.err")}"
    fi
fi
if grep -q '^ERROR' <<<"$summary"; then fail load_no_torn_or_mixed_reads "$(grep '^ERROR' <<<"$summary")"; else pass load_no_torn_or_mixed_reads; fi
erased=$(awk '{n += $2 - $3} END {print n + 0}' "$WORK/erasers")
if [ "$erased" -ge $((SECS * 2)) ] && [ ! -s "$WORK/eraser.err" ]; then pass load_erasures_ran
else fail load_erasures_ran "$erased erasures; $(head -3 "$WORK/eraser.err")"; fi
if kill -0 "$daemon" 2>/dev/null && [ -r "$WORK/m/schema.json" ]; then pass load_daemon_alive; else fail load_daemon_alive; fi
live=$(jq .live_rows "$WORK/m/schema.json")
if [ "$live" = $((ROWS - erased)) ]; then pass load_rows_gone; else fail load_rows_gone "live $live, want $((ROWS - erased))"; fi
fusermount3 -u "$WORK/m"
check load_verify_after "$INGOT" verify "$WORK/t"
