#!/usr/bin/env bash
# Erasure: values physically gone from every file, every encoding, checksums
# true, crash-safe at every write, through the CLI and through the mount.
source "$(dirname "$0")/lib.sh"
EC="$PY $ROOT/tests/integration/erase_check.py"
MARKED="100 2500 4999"
$EC make "$WORK/in.csv" 5000 $MARKED

schema() { # ENCODING COMPRESSION [ERASE-LEVEL-FOR-name]
    local e=$1 z=$2 lvl=${3:-}
    printf 'id int64 encoding=%s compression=%s\n' "$e" "$z"
    printf 'name string encoding=%s compression=%s%s\n' "$([ "$e" = plain ] || [ "$e" = dict ] && echo "$e" || echo auto)" "$z" "${lvl:+ erase=$lvl}"
    printf 'amount int64 encoding=%s compression=%s\n' "$e" "$z"
    printf 'score float64 encoding=%s compression=%s\n' "$([ "$e" = plain ] || [ "$e" = dict ] || [ "$e" = rle ] && echo "$e" || echo auto)" "$z"
    printf 'small int8 encoding=%s compression=%s\n' "$e" "$z"
    printf 'cat string? encoding=%s compression=%s\n' "$([ "$e" = plain ] || [ "$e" = dict ] && echo "$e" || echo auto)" "$z"
}

others_unchanged() { # BEFORE-DIR AFTER-TABLE: every column renders as before minus erased rows
    local c
    for c in id name amount score small cat; do
        "$PY" - "$1/$c.txt" <("$INGOT" cat "$2" "$c") "$1/id.txt" $MARKED <<'PY' || { echo "column $c"; return 1; }
import sys
before = open(sys.argv[1]).read().split("\n")[:-1]
after = open(sys.argv[2]).read().split("\n")[:-1]
ids = open(sys.argv[3]).read().split("\n")[:-1]
gone = set(sys.argv[4:])
want = [v for v, i in zip(before, ids) if i not in gone]
assert after == want, (len(after), len(want))
PY
    done
}

snapshot() { # TABLE DIR
    mkdir -p "$2"
    for c in id name amount score small cat; do "$INGOT" cat "$1" "$c" >"$2/$c.txt"; done
}

# a pristine table for the crash test (the loops below erase their own copies)
schema rle zstd >"$WORK/s.txt"
"$INGOT" import --schema "$WORK/s.txt" --rows-per-group 2000 --page-size 4096 "$WORK/in.csv" "$WORK/pristine" >/dev/null 2>&1

# --- every encoding, plain and zstd pages: markers visible before, gone after
for enc in plain bitpack varint rle dict for delta; do
    for z in none zstd; do
        t="$WORK/t_${enc}_$z"
        schema "$enc" "$z" >"$WORK/s.txt"
        if ! "$INGOT" import --schema "$WORK/s.txt" --rows-per-group 2000 --page-size 4096 "$WORK/in.csv" "$t" >/dev/null 2>&1; then
            fail "erase_${enc}_$z" "import failed: $("$INGOT" import --schema "$WORK/s.txt" "$WORK/in.csv" "$t.x" 2>&1)"
            continue
        fi
        snapshot "$t" "$WORK/before_${enc}_$z"
        erase_enc() {
            local before after
            if [ "$z" = none ] && [ "$enc" = plain ]; then
                before=$($EC count "$t" $MARKED)
                [ "$before" -ge 9 ] || { echo "markers not visible before: $before"; return 1; }
            fi
            "$INGOT" erase --row 100 --where name=MARKER002500XYZ --where amount=987654325999 "$t" >/dev/null || return 1
            after=$($EC count "$t" $MARKED)
            [ "$after" = 0 ] || { echo "$after marker patterns still on disk"; return 1; }
            "$INGOT" verify "$t" >/dev/null || { "$INGOT" verify "$t"; return 1; }
            others_unchanged "$WORK/before_${enc}_$z" "$t" || return 1
            [ "$("$INGOT" inspect --json "$t" | jq .deleted_rows)" = 3 ]
        }
        check "erase_${enc}_$z" erase_enc
    done
done

# --- whole runs of an RLE column: neighbouring runs need wider lengths, so the page
# is re-encoded; whatever scheme that picks must mark the erased slots its own way
rle_runs() {
    "$PY" -c "print('user_id'); [print(100000 + u) for u in range(5000) for k in range(20)]" >"$WORK/u.csv"
    printf 'user_id int64\n' >"$WORK/u.txt"
    "$INGOT" import --schema "$WORK/u.txt" "$WORK/u.csv" "$WORK/tu" >/dev/null 2>&1 || return 1
    "$INGOT" erase $(seq -f '--row %g' 64420 64459) "$WORK/tu" >/dev/null || return 1
    "$INGOT" verify "$WORK/tu" >/dev/null || { "$INGOT" verify "$WORK/tu"; return 1; }
    [ "$("$INGOT" cat "$WORK/tu" user_id | grep -c -e '^103221$' -e '^103222$')" = 0 ] &&
        [ "$("$INGOT" cat "$WORK/tu" user_id | wc -l)" = 99960 ]
}
check erase_rle_runs_reencoded_verifies rle_runs

# --- many --where clauses on one column: one scan, every value matched (0.0 = -0.0)
where_many() {
    printf 'id,x,s\n' >"$WORK/w.csv"
    for i in $(seq 0 999); do echo "$i,$((i % 50)).5,s$((i % 7))"; done >>"$WORK/w.csv"
    echo "1000,-0.0,zero" >>"$WORK/w.csv"
    "$INGOT" import "$WORK/w.csv" "$WORK/tw" >/dev/null 2>&1 || return 1
    local args=() k
    for k in $(seq 0 2 48); do args+=(--where "x=$k.5"); done
    "$INGOT" erase "${args[@]}" --where x=0.0 --where s=s3 --where s=nothing "$WORK/tw" >/dev/null || return 1
    # x = 0.5, 2.5, ... 48.5 (500 rows), -0.0 (1 row), s3 among the odd x (~71 more)
    [ "$("$INGOT" cat "$WORK/tw" x | grep -c -E '^(0|[0-9]*[02468])\.5$')" = 0 ] || return 1
    ! "$INGOT" cat "$WORK/tw" s | grep -qx -e s3 -e zero || return 1
    [ "$("$INGOT" inspect --json "$WORK/tw" | jq .deleted_rows)" = "$("$PY" -c "print(sum(1 for i in range(1000) if (i % 50) % 2 == 0 or i % 7 == 3) + 1)")" ]
}
check erase_many_where_clauses_one_scan where_many

# --- the same row twice, a missing row, a bad --where: errors, nothing changed
t="$WORK/t_plain_none"
unchanged_on_error() {
    local before after
    before=$(cd "$t" && sha256sum part-* MANIFEST)
    grep -q "already erased" <<<"$("$INGOT" erase --row 100 "$t" 2>&1)" || return 1
    grep -q "does not exist" <<<"$("$INGOT" erase --row 5000 "$t" 2>&1)" || return 1
    grep -q "no column 'nosuch'" <<<"$("$INGOT" erase --row 7 --where nosuch=1 "$t" 2>&1)" || return 1
    grep -q "column 'amount'" <<<"$("$INGOT" erase --where amount=notanumber "$t" 2>&1)" || return 1
    after=$(cd "$t" && sha256sum part-* MANIFEST)
    [ "$before" = "$after" ] && grep -qx 7 < <("$INGOT" cat "$t" id)
}
check erase_errors_change_nothing unchanged_on_error
check erase_where_no_match_is_not_an_error bash -c "'$INGOT' erase --where name=nobody '$t' | grep -q 'erased 0 rows'"
audit_ok() {
    local log="$t/.ingot/erasures"
    [ "$(wc -l <"$log")" -ge 1 ] || return 1
    grep -q 'rows=3' "$log" || return 1
    ! grep -q "MARKER" "$log" && ! grep -q "987654325999" "$log" && grep -q '<redacted>' "$log"
}
check audit_log_has_no_values audit_ok

# --- compliance level 1: the row disappears, the bytes stay (documented)
schema plain none 1 >"$WORK/s1.txt"
"$INGOT" import --schema "$WORK/s1.txt" "$WORK/in.csv" "$WORK/t_l1" >/dev/null 2>&1
level1() {
    "$INGOT" erase --row 2500 "$WORK/t_l1" >/dev/null || return 1
    ! grep -q MARKER002500XYZ < <("$INGOT" cat "$WORK/t_l1" name) || { echo "row still visible"; return 1; }
    grep -qa MARKER002500XYZ "$WORK/t_l1/part-000000.ingot" || { echo "level 1 should keep the bytes"; return 1; }
    [ "$($EC count "$WORK/t_l1" 2500)" -eq 1 ] || { echo "other columns (level 2) must be scrubbed"; return 1; }
    "$INGOT" verify "$WORK/t_l1" >/dev/null
}
check erase_level1_hides_only level1

# --- crash at every durable step: the row is either fully erased or fully present
gen_of() { sed -n 's/^generation //p' "$1/MANIFEST"; }
crash_loop() {
    local n=1 rc present_id present_name g0
    g0=$(gen_of "$WORK/pristine")
    while :; do
        rm -rf "$WORK/c"; cp -r "$WORK/pristine" "$WORK/c"
        INGOT_FAULT_AFTER=$n "$INGOT" erase --row 4999 --row 7 "$WORK/c" >/dev/null 2>&1; rc=$?
        "$INGOT" verify "$WORK/c" >/dev/null || { echo "verify failed after crash at step $n"; "$INGOT" verify "$WORK/c"; return 1; }
        present_id=$("$INGOT" cat "$WORK/c" id | grep -cx 4999)
        present_name=$("$INGOT" cat "$WORK/c" name | grep -c MARKER004999XYZ)
        [ "$present_id" = "$present_name" ] || { echo "half erased after step $n"; return 1; }
        # the table generation moves exactly once, when (and only when) the rows are gone
        if [ "$present_id" = 0 ]; then want=$((g0 + 1)); else want=$g0; fi
        [ "$(gen_of "$WORK/c")" = "$want" ] || { echo "step $n: generation $(gen_of "$WORK/c"), want $want"; return 1; }
        if [ $rc -eq 0 ]; then
            [ "$present_id" = 0 ] || { echo "completed but row present"; return 1; }
            [ "$($EC count "$WORK/c" 4999)" = 0 ] || { echo "markers left after completed erase"; return 1; }
            break
        fi
        [ $rc -eq 137 ] || { echo "step $n: exit $rc"; return 1; }
        [ -e "$WORK/c/.ingot/journal" ] && { echo "journal left after recovery"; return 1; }
        n=$((n + 1))
        [ $n -lt 100 ] || { echo "never completed"; return 1; }
    done
    echo "crashed at each of $((n - 1)) steps"
}
check erase_crash_at_every_step crash_loop

# --- a scattered erase (rows in every row group, leaf columns shared between
# threads) crashed at steps spread over all of its durable steps: every row is
# either fully erased or fully present, and the table verifies
scattered_crash() {
    local total n rc ids present m
    ids=$(/usr/bin/python3 -c "
import random; r = random.Random(5)
rows = set(r.sample(range(5000), 147)) | {100, 2500, 4999}
print(' '.join(f'--row {i}' for i in sorted(rows)))")
    # how many durable steps a whole run takes: double until one completes
    total=1
    while :; do
        rm -rf "$WORK/sc"; cp -r "$WORK/pristine" "$WORK/sc"
        INGOT_FAULT_AFTER=$total "$INGOT" erase $ids "$WORK/sc" >/dev/null 2>&1 && break
        total=$((total * 2))
        [ $total -lt 100000 ] || { echo "never completed"; return 1; }
    done
    for n in 1 2 3 5 8 $((total / 8)) $((total / 4)) $((total / 3)) $((total / 2)) $((total * 2 / 3)) $((total - 1)); do
        [ "$n" -ge 1 ] || continue
        rm -rf "$WORK/sc"; cp -r "$WORK/pristine" "$WORK/sc"
        INGOT_FAULT_AFTER=$n "$INGOT" erase $ids "$WORK/sc" >/dev/null 2>&1; rc=$?
        [ $rc -eq 0 ] || [ $rc -eq 137 ] || { echo "step $n: exit $rc"; return 1; }
        "$INGOT" verify "$WORK/sc" >/dev/null || { echo "verify failed after a crash at step $n (of < $total)"; return 1; }
        present=$("$INGOT" cat "$WORK/sc" id | wc -l)
        # every column agrees on how many rows are live: no row half erased
        for c in name amount score small cat; do
            [ "$("$INGOT" cat "$WORK/sc" "$c" | wc -l)" = "$present" ] || { echo "step $n: $c disagrees"; return 1; }
        done
        case $present in
        5000) [ "$($EC count "$WORK/sc" 2500)" != 0 ] || { echo "step $n: marker gone, row present"; return 1; } ;;
        4850) for m in $MARKED; do [ "$($EC count "$WORK/sc" "$m")" = 0 ] || { echo "step $n: marker $m left"; return 1; }; done ;;
        *) echo "step $n: $present rows live, want 5000 or 4850"; return 1 ;;
        esac
    done
    echo "a whole run takes $((total / 2))..$total durable steps"
}
check erase_scattered_crash_at_steps scattered_crash

# --- concurrent erases on one table are serialised
concurrent() {
    rm -rf "$WORK/cc"; cp -r "$WORK/t_dict_none" "$WORK/cc"
    local pids=() i bad=0
    for i in 11 12 13 14 15 16; do "$INGOT" erase --row $i "$WORK/cc" >/dev/null & pids+=($!); done
    for p in "${pids[@]}"; do wait "$p" || bad=1; done
    [ $bad = 0 ] && "$INGOT" verify "$WORK/cc" >/dev/null &&
        [ "$("$INGOT" inspect --json "$WORK/cc" | jq .deleted_rows)" = 9 ]
}
check erase_concurrent_serialised concurrent

# --- through the mount
if ! have_fuse; then skip erase_mount "no /dev/fuse"; exit 0; fi
rm -rf "$WORK/m" "$WORK/tm"; cp -r "$WORK/t_delta_none" "$WORK/tm"; mkdir -p "$WORK/m"
"$INGOT" mount "$WORK/tm" "$WORK/m"
mount_rm() {
    exec {fd}<"$WORK/m/columns/id"
    exec {fdn}<"$WORK/m/columns/id.npy"
    exec {fdr}<"$WORK/m/columns/_rowid.npy"
    head -c 100000 <&$fd >/dev/null
    jq -e '.id == 42' "$WORK/m/rows/42" >/dev/null || return 1
    local sz_before sz_npy; sz_before=$(stat -c %s "$WORK/m/columns/id")
    sz_npy=$(stat -c %s "$WORK/m/columns/id.npy")
    rm "$WORK/m/rows/42" || return 1
    [ ! -e "$WORK/m/rows/42" ] || { echo "rows/42 still there"; return 1; }
    ! ls "$WORK/m/rows" | grep -qx 42 || { echo "listed"; return 1; }
    # a text file opened before the erase cannot keep its shape: its reads fail
    # with ESTALE (reopen); an array opened before keeps its shape, the erased
    # row in its erased form (0), the other rows as they were
    "$PY" - "$fd" "$fdn" "$fdr" "$sz_npy" <<'PY' || return 1
import errno, os, sys
import numpy as np
fd, fdn, fdr, size = (int(x) for x in sys.argv[1:5])
try:
    os.pread(fd, 1 << 20, 0)
    sys.exit("the text file opened before the erase still reads")
except OSError as e:
    assert e.errno == errno.ESTALE, e
def whole(f):
    n, raw = os.fstat(f).st_size, b""
    while len(raw) < n:
        raw += os.pread(f, n - len(raw), len(raw))
    return np.frombuffer(raw[128:], dtype="<i8")
assert os.fstat(fdn).st_size == size
a, r = whole(fdn), whole(fdr)
assert len(a) == len(r) == 4997 and 42 in r, (len(a), len(r))
for x, i in zip(a, r):
    assert x == (0 if i == 42 else i), (i, x)
PY
    exec {fd}<&-
    exec {fdn}<&-
    exec {fdr}<&-
    ! grep -qx 42 "$WORK/m/columns/id" || return 1
    [ "$(stat -c %s "$WORK/m/columns/id")" -lt "$sz_before" ] || return 1
    "$PY" -c "import numpy as np; a=np.load('$WORK/m/columns/id.npy'); r=np.load('$WORK/m/columns/_rowid.npy'); assert 42 not in a and 42 not in r and len(a)==len(r)==4996" || return 1
    rm "$WORK/m/rows/42" 2>/dev/null && { echo "second rm succeeded"; return 1; }
    return 0
}
check mount_rm_row_erases mount_rm
control_file() {
    # one write(2) is one request: its lines are erased together
    "$PY" -c 'import os, sys; fd = os.open(sys.argv[1], os.O_WRONLY); os.write(fd, b"200\n201\nname=MARKER000100XYZ\n")' \
        "$WORK/m/.ingot/erase" || return 1
    ! grep -qxE '200|201' "$WORK/m/columns/id" || return 1
    # a bad line fails the write and nothing of the batch is applied
    "$PY" - "$WORK/m/.ingot/erase" <<'PY' || return 1
import errno, os, sys
for lines, want in [(b"300\nnosuch=1\n", errno.EINVAL), (b"301\namount=abc\n", errno.EINVAL),
                    (b"302\n42\n", errno.ENOENT), (b"303\n99999\n", errno.ENOENT), (b"30x\n", errno.EINVAL)]:
    fd = os.open(sys.argv[1], os.O_WRONLY | os.O_TRUNC)
    try:
        os.write(fd, lines)
        os.close(fd)
        sys.exit("accepted %r" % lines)
    except OSError as e:
        assert e.errno == want, (lines, e)
        try:
            os.close(fd)
        except OSError:
            pass
PY
    grep -qxE '300|301|302|303' "$WORK/m/columns/id" || return 1
    [ "$(grep -cxE '300|301|302|303' "$WORK/m/columns/id")" = 4 ] || return 1
    # a short write may end without a newline; a long one that does not end at a
    # line end is refused (the kernel could have split it inside a line)
    printf '202' >"$WORK/m/.ingot/erase" || return 1
    ! grep -qx 202 "$WORK/m/columns/id" || return 1
    "$PY" - "$WORK/m/.ingot/erase" <<'PY' || return 1
import errno, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
try:
    os.write(fd, b"".join(b"%d\n" % i for i in range(1000, 2000)) + b"2000")
    sys.exit("a long write without a final newline was accepted")
except OSError as e:
    assert e.errno == errno.EINVAL, e
PY
    grep -qx 1000 "$WORK/m/columns/id"
}
check mount_control_file_batches control_file
cli_while_mounted() {
    "$INGOT" erase --row 400 "$WORK/tm" >/dev/null || return 1
    # an erase by another process reaches the mount through its watcher: the
    # column's pages and the row's name are dropped in one pass, the name
    # after the pages, so both are waited for
    for i in $(seq 100); do
        ! grep -qx 400 "$WORK/m/columns/id" && [ ! -e "$WORK/m/rows/400" ] && return 0
        sleep 0.05
    done
    echo "row 400 still shown 5 s after the CLI erase returned"; return 1
}
check mount_sees_cli_erase cli_while_mounted
check mount_erasures_log bash -c "n=\$(grep -c origin=mount '$WORK/m/.ingot/erasures'); [ \"\$n\" = 3 ] || { echo \"\$n mount erasures\"; cat '$WORK/m/.ingot/erasures'; false; }"
fusermount3 -u "$WORK/m"
check mount_erase_verifies bash -c "'$INGOT' verify '$WORK/tm' >/dev/null && [ \$('$PY' '$ROOT/tests/integration/erase_check.py' count '$WORK/tm' 100) = 0 ]"

# once an erase through the mount returns, an erased row is gone for every
# reader: its name (stat), and a file of it opened before the erase (the
# kernel had its pages and attributes cached). The row's pages and name must
# be dropped before the answer, not just after it: dropped after, about a third
# of the writes to .ingot/erase left the row stat-able and its old bytes
# readable for a moment. The invalidation pass that a reload queues may take
# the erased rows before the answer is made: the answer waits until it told the
# kernel of their pages (INGOT_TEST_ROWS_PAUSE_MS widens that window; without
# the wait, most erased rows read their old bytes through the file opened before).
rm -rf "$WORK/m2" "$WORK/tm2"; cp -r "$WORK/t_delta_none" "$WORK/tm2"; mkdir -p "$WORK/m2"
INGOT_TEST_ROWS_PAUSE_MS=20 "$INGOT" mount "$WORK/tm2" "$WORK/m2"
gone_on_return() {
    "$PY" - "$WORK/m2" <<'PY'
import errno, os, sys
m = sys.argv[1]
for i in range(1000, 1120):
    p = "%s/rows/%d" % (m, i)
    fd = os.open(p, os.O_RDONLY)
    before = os.pread(fd, 4096, 0)
    assert b'"id":%d' % i in before, before
    if i % 2:
        os.unlink(p)
    else:
        w = os.open(m + "/.ingot/erase", os.O_WRONLY)
        os.write(w, b"%d\n" % i)
        os.close(w)
    how = "rm" if i % 2 else "write to .ingot/erase"
    if os.path.exists(p):
        sys.exit("rows/%d still there after %s returned" % (i, how))
    try:
        after = os.pread(fd, 4096, 0)
        sys.exit("rows/%d opened before %s still reads %r" % (i, how, after))
    except OSError as e:
        assert e.errno == errno.ENOENT, e
    os.close(fd)
PY
}
check mount_erased_row_gone_when_erase_returns gone_on_return
fusermount3 -u "$WORK/m2"
