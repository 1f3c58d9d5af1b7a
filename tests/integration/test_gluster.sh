#!/usr/bin/env bash
# One table on shared storage (docs/DEPLOY.md): a single-node GlusterFS volume
# with two client mounts standing for two hosts, an ingot mount on each. An
# erase made through one host stops being served by the other within the
# bound, also while 100 erasures land with readers running on the other host; a
# crashed erase on one host is completed from the other; erasures from both at
# once serialise through fcntl locks on the volume. Skipped (SKIP line)
# where glusterd cannot run (not root, not installed, no FUSE).
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" != 0 ] || ! command -v glusterd >/dev/null || ! have_fuse; then
    skip gluster "needs root, glusterfs-server and /dev/fuse"
    exit 0
fi
VOL="ingottest$$"
HOST=$(hostname)
started_glusterd=""
gluster_cleanup() {
    # ingot mounts first, then the client mounts, the volume, our glusterd
    fusermount3 -u "$WORK/ia" 2>/dev/null
    fusermount3 -u "$WORK/ib" 2>/dev/null
    umount "$WORK/ca" 2>/dev/null || umount -l "$WORK/ca" 2>/dev/null
    umount "$WORK/cb" 2>/dev/null || umount -l "$WORK/cb" 2>/dev/null
    gluster --mode=script volume stop "$VOL" force >/dev/null 2>&1
    gluster --mode=script volume delete "$VOL" >/dev/null 2>&1
    [ -n "$started_glusterd" ] && kill "$started_glusterd" 2>/dev/null
    cleanup
}
trap gluster_cleanup EXIT
if ! pgrep -x glusterd >/dev/null; then
    glusterd --log-file="$WORK/glusterd.log" 2>/dev/null
    sleep 2
    started_glusterd=$(pgrep -n -x glusterd)
    [ -n "$started_glusterd" ] || { skip gluster "glusterd did not start"; exit 0; }
fi
mkdir -p "$WORK/brick" "$WORK/ca" "$WORK/cb" "$WORK/ia" "$WORK/ib"
if ! gluster --mode=script volume create "$VOL" "$HOST:$WORK/brick" force >/dev/null 2>&1 ||
    ! gluster --mode=script volume set "$VOL" performance.io-cache off >/dev/null 2>&1 ||
    ! gluster --mode=script volume set "$VOL" performance.read-ahead off >/dev/null 2>&1 ||
    ! gluster --mode=script volume set "$VOL" performance.quick-read off >/dev/null 2>&1 ||
    ! gluster --mode=script volume start "$VOL" >/dev/null 2>&1 ||
    ! timeout 60 mount -t glusterfs "$HOST:/$VOL" "$WORK/ca" ||
    ! timeout 60 mount -t glusterfs "$HOST:/$VOL" "$WORK/cb"; then
    skip gluster "cannot create and mount a GlusterFS volume here"
    exit 0
fi
A="$WORK/ca/t" B="$WORK/cb/t"
$PY -c "
print('id,caption')
for i in range(20000): print(f'{i},caption of row {i}')" >"$WORK/g.csv"
check gluster_import_on_a_verify_on_b bash -c "'$INGOT' import '$WORK/g.csv' '$A' >/dev/null && '$INGOT' verify '$B' >/dev/null"
"$INGOT" mount "$A" "$WORK/ia" && "$INGOT" mount "$B" "$WORK/ib" || { fail gluster_mounts; exit 0; }

# a row and the views B's kernel holds, erased through A: gone from B within the
# bound (poll_ms 1000 plus the volume's 1 s metadata cache)
erased_elsewhere() { # ROW HOW
    local row=$1 how=$2 t0 seen="" n0
    grep -q "\"caption of row $row\"" "$WORK/ib/rows/$row" || return 1
    n0=$($PY -c "import numpy as np; print(len(np.load('$WORK/ib/columns/id.npy')))")
    case $how in
    cli) "$INGOT" erase --row "$row" "$A" >/dev/null || return 1 ;;
    rm) rm "$WORK/ia/rows/$row" || return 1 ;;
    esac
    t0=$(date +%s%N)
    for _ in $(seq 1 50); do
        if [ ! -e "$WORK/ib/rows/$row" ]; then seen=$((($(date +%s%N) - t0) / 1000000)); break; fi
        sleep 0.1
    done
    [ -n "$seen" ] || { echo "B still serves rows/$row 5 s after the erase"; return 1; }
    [ "$($PY -c "import numpy as np; print(len(np.load('$WORK/ib/columns/id.npy')))")" = $((n0 - 1)) ] ||
        { echo "B's id.npy kept its length"; return 1; }
    ! grep -q "caption of row $row$" "$WORK/ib/columns/caption" || { echo "B's caption column has the row"; return 1; }
    echo "B stopped serving row $row after $seen ms"
}
check gluster_cli_erase_on_a_reaches_b erased_elsewhere 5 cli
check gluster_rm_on_a_reaches_b erased_elsewhere 7 rm

# a column added on A (np.save through A's mount) shows on B within the bound,
# values and all, and a column dropped on A (the CLI) goes from B
column_elsewhere() {
    local t0 seen=""
    [ ! -e "$WORK/ib/columns/label.npy" ] || return 1 # B's kernel now holds the absence
    $PY -c "
import numpy as np
n = len(np.load('$WORK/ia/columns/id.npy'))
np.save('$WORK/ia/columns/label.npy', np.arange(n, dtype=np.int32) * 2)" || return 1
    t0=$(date +%s%N)
    for _ in $(seq 1 50); do
        if [ -e "$WORK/ib/columns/label.npy" ]; then seen=$((($(date +%s%N) - t0) / 1000000)); break; fi
        sleep 0.1
    done
    [ -n "$seen" ] || { echo "B does not show the column 5 s after it was added"; return 1; }
    $PY -c "
import numpy as np
a = np.load('$WORK/ib/columns/label.npy'); b = np.load('$WORK/ib/columns/id.npy')
assert len(a) == len(b) and (a == np.arange(len(b)) * 2).all(), a[:8]" || return 1
    "$INGOT" drop-column "$A" label >/dev/null || return 1
    local gone=""
    for _ in $(seq 1 50); do
        [ -e "$WORK/ib/columns/label.npy" ] || { gone=1; break; }
        sleep 0.1
    done
    [ -n "$gone" ] || { echo "B still shows a dropped column 5 s later"; return 1; }
    # B's versions/ lists the version that had it, and shows the column there
    local v
    v=$("$INGOT" versions --json "$A" | jq -r '[.[] | select(.change == "add-column label")][0].version')
    for _ in $(seq 1 50); do
        [ -e "$WORK/ib/versions/$v/columns/label.npy" ] && break
        sleep 0.1
    done
    $PY -c "
import numpy as np
a = np.load('$WORK/ib/versions/$v/columns/label.npy')
assert (a == np.arange(len(a)) * 2).all(), a[:8]" || { ls "$WORK/ib/versions"; return 1; }
    echo "B showed the column after $seen ms; the drop reached it too, and versions/$v/ keeps it"
}
check gluster_column_added_on_a_shows_on_b column_elsewhere

# an erase killed on A after its journal is committed is completed by the next
# command on B (the journal is on the shared volume)
crashed() {
    # a table no daemon mounts (a mount would notice the journal and finish it)
    local n a="$WORK/ca/tc" b="$WORK/cb/tc"
    "$INGOT" import "$WORK/g.csv" "$a" >/dev/null 2>&1 || return 1
    for n in 1 2 3 4 5 6 7 8 9 10; do
        rc=0
        INGOT_FAULT_AFTER=$n "$INGOT" erase --row 11 "$a" >/dev/null 2>&1 || rc=$?
        [ $rc = 137 ] || { echo "the erase ran to its end (exit $rc) before leaving a journal"; return 1; }
        [ -e "$a/.ingot/journal" ] && break
    done
    [ -e "$a/.ingot/journal" ] || { echo "no committed journal left by a crash"; return 1; }
    "$INGOT" verify "$b" >/dev/null || { "$INGOT" verify "$b"; return 1; } # B recovers, then verifies
    [ ! -e "$b/.ingot/journal" ] || { echo "journal still there"; return 1; }
    ! "$INGOT" cat --rows 11 "$b" >/dev/null 2>&1 || { echo "row 11 still readable"; return 1; }
    echo "crashed at durable step $n on A, completed on B"
}
check gluster_crash_on_a_recovered_on_b crashed

# B's client keeps the name of a journal A completes and removes (a mount on B
# polls for it; GlusterFS remembers names and attributes for a second): B's
# next command must see that it is gone, not fail on the stale name
stale_journal_name() {
    local round n a="$WORK/ca/ts" b="$WORK/cb/ts" out looker
    "$INGOT" import "$WORK/g.csv" "$a" >/dev/null 2>&1 || return 1
    for round in 1 2 3 4 5 6; do
        for n in 1 2 3 4 5 6 7 8 9 10; do
            (INGOT_FAULT_AFTER=$n exec "$INGOT" erase --row $((round * 10 + n)) "$a" >/dev/null 2>&1) 2>/dev/null
            [ -e "$a/.ingot/journal" ] && break
        done
        [ -e "$a/.ingot/journal" ] || { echo "no committed journal left by a crash"; return 1; }
        (for _ in $(seq 40); do stat "$b/.ingot/journal" >/dev/null 2>&1; sleep 0.02; done) &
        looker=$!
        sleep 0.3
        "$INGOT" verify "$a" >/dev/null || { echo "A could not complete its journal"; return 1; }
        out=$("$INGOT" verify "$b" 2>&1) || { wait $looker; echo "round $round: $out" | tail -2; return 1; }
        wait $looker
    done
    echo "6 journals completed on A while B looked at them: B's next command saw each gone"
}
check gluster_stale_journal_name_on_b stale_journal_name

# erases from both hosts at once serialise; every one lands, checksums stay true
concurrent() {
    local i pids=() before
    before=$(grep -c "host=" "$A/.ingot/erasures")
    # An erase that meets a stale read refuses with an error and changes
    # nothing; as a user would, it is run again (at most twice). Known: about
    # one run in five here needs that (checksum mismatch after ~1.9 s of
    # re-reads): issue 16.
    erase_until() { # ROW TABLE
        local k
        for k in 1 2 3; do
            "$INGOT" erase --row "$1" "$2" >/dev/null 2>"$WORK/erase.$1.err" && return 0
            echo "erase of row $1 on $(basename "$(dirname "$2")") refused (try $k): $(tail -1 "$WORK/erase.$1.err")" >&2
            # a journal another host removed is never a reason to refuse
            ! grep -q "replaying an interrupted erase" "$WORK/erase.$1.err" || return 1
            sleep 1
        done
        return 1
    }
    for i in 0 1 2 3 4 5; do
        erase_until $((100 + i)) "$A" & pids+=($!)
        erase_until $((200 + i)) "$B" & pids+=($!)
    done
    for i in "${pids[@]}"; do wait "$i" || { echo "an erase failed three times"; return 1; }; done
    local vout
    vout=$("$INGOT" verify "$A" 2>&1) || { echo "$vout" | tail -3; return 1; }
    # a fresh reader on either host sees every erase once the volume's caches
    # have caught up (its metadata cache: about a second)
    local tries=0
    until [ "$("$INGOT" cat "$B" id | grep -cxE '10[0-5]|20[0-5]')" = 0 ]; do
        tries=$((tries + 1))
        [ $tries -lt 60 ] || { echo "erased rows still listed 6 s later"; return 1; }
        sleep 0.1
    done
    # each erase is in the audit log, with the host that made it
    tries=0
    until [ "$(grep -c "host=\"$HOST\"" "$B/.ingot/erasures")" -ge $((before + 12)) ]; do
        tries=$((tries + 1))
        [ $tries -lt 30 ] || { echo "audit lines: $(grep -c "host=" "$B/.ingot/erasures"), want $((before + 12))"; return 1; }
        sleep 0.1
    done
}
check gluster_erases_from_two_hosts_serialise concurrent

# 100 erasures through A while two readers keep reading B's rows/ID of the rows
# being erased and one keeps reading B's caption column: after its erase
# returned plus the bound (poll_ms 1000, the volume's 1 s metadata cache, and
# B's reload while it serves these readers; reloads under this load were seen
# to land up to 2.85 s after an erase here, and up to 4.4 s on a loaded
# two-core CI machine, so the bound is 6 s) no read on B shows an erased row,
# and no read fails (no EIO; a column read open across an erase answers ESTALE,
# as documented, and is opened again). Failing, it names the late rows and by
# how much.
under_load() {
    "$PY" - "$INGOT" "$A" "$WORK/ib" <<'PY'
import errno, os, random, subprocess, sys, threading, time
ingot, table, mount = sys.argv[1:4]
BOUND = 6.0
random.seed(23)
rows = random.sample(range(1000, 20000), 100)
erased_at = {}
seen, errors, stale = [], [], [0]
stop = threading.Event()
def rows_reader(seed):
    rnd = random.Random(seed)
    while not stop.is_set():
        r = rnd.choice(rows)
        t = time.monotonic()
        try:
            with open(f"{mount}/rows/{r}", "rb") as f: data = f.read()
            if f'"caption of row {r}"'.encode() in data: seen.append((t, r))
        except OSError as e:
            if e.errno != errno.ENOENT: errors.append(f"rows/{r}: {e}")
def column_reader():
    want = {f"caption of row {r}": r for r in rows}
    while not stop.is_set():
        t = time.monotonic()
        try:
            with open(f"{mount}/columns/caption", encoding="utf-8") as f:
                for line in f:
                    r = want.get(line.rstrip("\n"))
                    if r is not None: seen.append((t, r))
        except OSError as e:
            # a view open across an erase answers ESTALE (FILESYSTEM.md): open it again
            if e.errno == errno.ESTALE: stale[0] += 1
            else: errors.append(f"columns/caption: {e}")
        time.sleep(0.2)
readers = [threading.Thread(target=rows_reader, args=(k,)) for k in (1, 2)] + [threading.Thread(target=column_reader)]
for th in readers: th.start()
try:
    for r in rows:
        for attempt in range(3):  # a refused erase changes nothing: run it again (DEPLOY.md, known problem)
            p = subprocess.run([ingot, "erase", "--row", str(r), table], capture_output=True, text=True)
            if p.returncode == 0: break
            print(f"erase of row {r} refused: {p.stderr.strip()}", file=sys.stderr)
            time.sleep(1)
        else:
            sys.exit(f"erase of row {r} failed three times")
        erased_at[r] = time.monotonic()
    time.sleep(BOUND + 0.5)
finally:
    stop.set()
    for th in readers: th.join()
after = [(t - erased_at[r], r) for t, r in seen if r in erased_at and t > erased_at[r]]
late = [(dt, r) for dt, r in after if dt > BOUND]
if late:
    worst = {}
    for dt, r in late: worst[r] = max(dt, worst.get(r, 0))
    sys.exit(f"{len(late)} reads showed an erased row after the bound ({len(worst)} rows, the latest "
             f"{max(worst.values()):.2f} s after its erase): " + ", ".join(f"{r} {w:.2f} s" for r, w in list(worst.items())[:8]))
if errors:
    sys.exit(f"{len(errors)} reads failed, e.g. {errors[0]}")
still = [r for r in rows if os.path.exists(f"{mount}/rows/{r}")]
if still: sys.exit(f"B still lists rows/{still[0]}")
print(f"100 erasures, {len(seen)} reads of rows before their bound, 0 after (the latest "
      f"{max([dt for dt, r in after], default=0):.2f} s after its erase), 0 errors, {stale[0]} column reads reopened after ESTALE")
PY
}
check gluster_100_erasures_readers_on_b under_load
