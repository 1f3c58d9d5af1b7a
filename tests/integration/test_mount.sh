#!/usr/bin/env bash
# The mount, read by real clients: cat, wc, jq, NumPy (mmap), Python seeks,
# concurrent readers; read-only behaviour; damaged pages; clean unmounts.
source "$(dirname "$0")/lib.sh"
if ! have_fuse; then skip mount "no /dev/fuse or fusermount3"; exit 0; fi

GEN="$PY $ROOT/tests/integration/gen_table.py"
COLS=(id i8 i16 i32 u8 u16 u32 u64 flag f32 f64 label blob "weird, name" const)
$GEN "$WORK/g" 5000 21 csv >/dev/null
"$INGOT" import --schema "$WORK/g/schema.txt" --rows-per-group 1300 --page-size 1024 \
    "$WORK/g/input.csv" "$WORK/t" 2>/dev/null || { fail mount_setup "import failed"; exit 0; }

M="$WORK/mnt"
mkdir -p "$M"
daemon_pid() { pgrep -f "ingot mount .*$1\$" | head -1; }
check mount_daemonises "$INGOT" mount "$WORK/t" "$M"
check mount_is_listed bash -c "findmnt -rn -o FSTYPE '$M' | grep -q fuse.ingot"

cat_all_columns() {
    local c f bad=0
    for c in "${COLS[@]}"; do
        f=${c//[, ]/_}
        cmp -s "$M/columns/$c" "$WORK/g/expect/$f.txt" || { echo "columns/$c differs"; bad=1; }
        "$INGOT" cat "$WORK/t" "$c" | cmp -s - "$M/columns/$c" || { echo "columns/$c != ingot cat"; bad=1; }
        for g in 0 1 2 3; do
            "$INGOT" cat --group $g "$WORK/t" "$c" | cmp -s - "$M/groups/$g/$c" || { echo "groups/$g/$c differs"; bad=1; }
        done
    done
    return $bad
}
check cat_every_column_equals_ingot_cat cat_all_columns

check sort_uniq_pipeline bash -c "sort '$M/columns/flag' | uniq -c | awk '{n+=\$1} END {exit n != 5000}'"

sizes_match() { # every file's stat size is what reading it gives (one process: ~2,000 files)
    $PY - "$M" <<'PY'
import os, sys
m, bad, n = sys.argv[1], 0, 0
for d, dirs, files in os.walk(m):
    if d == m:
        dirs[:] = [x for x in dirs if x not in ("rows", ".ingot")]
    for f in files:
        p = os.path.join(d, f)
        if os.path.islink(p):
            continue
        n += 1
        with open(p, "rb") as fh:
            got = len(fh.read())
        if os.stat(p).st_size != got:
            print(f"{p}: stat {os.stat(p).st_size} read {got}"); bad = 1
for r in (0, 1, 17, 4999):
    p = os.path.join(m, "rows", str(r))
    with open(p, "rb") as fh:
        got = len(fh.read())
    if os.stat(p).st_size != got:
        print(f"rows/{r}"); bad = 1
if n <= 100:
    print(f"only {n} files"); bad = 1
sys.exit(bad)
PY
}
check wc_equals_stat_size_everywhere sizes_match

check numpy_mmap_equals_source "$PY" - "$M" "$WORK/g/rows.jsonl" <<'PY'
import json, math, sys
import numpy as np
m, rows = sys.argv[1], [json.loads(l) for l in open(sys.argv[2])]
kinds = {"id": "<i8", "i8": "|i1", "i16": "<i2", "i32": "<i4", "u8": "|u1", "u16": "<u2",
         "u32": "<u4", "u64": "<u8", "flag": "|b1", "f32": "<f4", "f64": "<f8", "const": "<i8"}
def num(v):
    if isinstance(v, str):
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[v]
    return v
for col, dt in kinds.items():
    a = np.load(f"{m}/columns/{col}.npy", mmap_mode="r")
    assert a.dtype == np.dtype(dt), (col, a.dtype)
    assert a.shape == (len(rows),), (col, a.shape)
    nullable = col not in ("id", "const")
    if nullable:
        valid = np.load(f"{m}/columns/{col}.valid.npy")
        want_valid = np.array([r[col] is not None for r in rows])
        assert (valid == want_valid).all(), col
    for i, r in enumerate(rows):
        v = r[col]
        if v is None:
            assert (math.isnan(a[i]) if dt[1] == "f" else a[i] == 0), (col, i, a[i])
            continue
        v = num(v)
        if dt[1] == "f":
            if math.isnan(v):
                assert math.isnan(a[i]), (col, i)
            else:
                assert a[i] == np.array(v, dtype=dt), (col, i, a[i], v)
        else:
            assert int(a[i]) == int(v), (col, i, a[i], v)
rid = np.load(f"{m}/columns/_rowid.npy", mmap_mode="r")
assert (rid == np.arange(len(rows))).all()
g2 = np.load(f"{m}/groups/2/id.npy")
assert (g2 == np.arange(2600, 3900)).all(), g2[:5]
assert a.mean() == a.mean()  # reading through the mmap
PY

check random_offset_reads "$PY" - "$M" <<'PY'
import os, random, sys
m = sys.argv[1]
rng = random.Random(5)
files = []
for d in ("columns", "groups/1"):
    files += [os.path.join(m, d, f) for f in os.listdir(os.path.join(m, d))]
for path in files:
    whole = open(path, "rb").read()
    assert len(whole) == os.stat(path).st_size, path
    fd = os.open(path, os.O_RDONLY)
    for _ in range(20):
        off = rng.randrange(0, len(whole) + 10)
        n = rng.choice([1, 7, 100, 4096, 70000, 1 << 20])
        got = os.pread(fd, n, off)
        assert got == whole[off:off + n], (path, off, n)
    os.close(fd)
PY

check rows_are_json_objects "$PY" - "$M" "$WORK/g/rows.jsonl" <<'PY'
import json, sys
import numpy as np
m, want = sys.argv[1], [json.loads(l) for l in open(sys.argv[2])]
for i, w in enumerate(want):
    got = json.load(open(f"{m}/rows/{i}"))
    assert list(got) == list(w), (i, list(got))
    for k in w:
        a, b = got[k], w[k]
        if k == "f32" and isinstance(b, float):
            # float32 values print as their shortest float32 form
            assert np.float32(a) == np.float32(b) or (a != a and b != b), (i, k, a, b)
        elif isinstance(b, float) and isinstance(a, (int, float)):
            assert a == b or (a != a and b != b), (i, k, a, b)
        else:
            assert a == b, (i, k, a, b)
PY
check jq_reads_rows bash -c "for r in 0 1 2 999 4999; do jq -e '.id == '\$r \"$M/rows/\$r\" >/dev/null || exit 1; done"
expect_fail rows_out_of_range_enoent cat "$M/rows/5000"
expect_fail rows_non_canonical_id cat "$M/rows/007"
check rows_listing bash -c "[ \$(ls '$M/rows' | wc -l) = 5000 ]"
# the sizes a listing gives (measured a run of rows at a time, not rendered)
# are each row's bytes, for every row
check rows_listing_sizes_exact "$PY" - "$M" <<'PY'
import subprocess, sys
m = sys.argv[1]
listed = subprocess.run(["find", f"{m}/rows", "-mindepth", "1", "-printf", "%f %s\n"],
                        capture_output=True, text=True, check=True).stdout.split()
sizes = dict(zip(listed[0::2], map(int, listed[1::2])))
assert len(sizes) == 5000, len(sizes)
for name, size in sizes.items():
    with open(f"{m}/rows/{name}", "rb") as f:
        got = len(f.read())
    assert got == size, (name, size, got)
PY

concurrent() {
    local i pids=() c f
    for i in $(seq 0 7); do
        c=${COLS[$((i + 7))]}
        f=${c//[, ]/_}
        ( for k in 1 2 3; do cmp -s "$M/columns/$c" "$WORK/g/expect/$f.txt" || exit 1; done ) &
        pids+=($!)
    done
    local bad=0
    for p in "${pids[@]}"; do wait "$p" || bad=1; done
    return $bad
}
check eight_concurrent_readers concurrent

# a column's text is not written (only its .npy: test_versions.sh), only
# NAME.npy can be made in columns/
check write_file_erofs bash -c "{ echo x > '$M/columns/id'; } 2>&1 | grep -q 'Read-only'"
check create_not_npy_eperm bash -c "touch '$M/columns/new' 2>&1 | grep -q 'Operation not permitted'"
check mkdir_erofs bash -c "mkdir '$M/x' 2>&1 | grep -q 'Read-only'"
# renaming is for columns/ alone (mv columns/A columns/B renames a column: test_versions.sh)
check rename_outside_columns_erofs bash -c "mv '$M/groups/0/id' '$M/groups/0/id2' 2>&1 | grep -q 'Read-only' &&
    mv '$M/columns/id' '$M/rows/id' 2>&1 | grep -q 'Read-only'"
check chmod_erofs bash -c "chmod 777 '$M/columns/id' 2>&1 | grep -q 'Read-only'"
check rm_rowid_eperm bash -c "rm -f '$M/columns/_rowid.npy' 2>&1 | grep -q 'Operation not permitted'"
check rm_group_file_erofs bash -c "rm -f '$M/groups/0/id' 2>&1 | grep -q 'Read-only'"

check readme_and_schema bash -c "grep -q 'rows        5000 live' '$M/README' && jq -e '.columns | length == 15 and .[13].name == \"weird, name\"' '$M/schema.json' >/dev/null"

pid=$(daemon_pid "$M")
check unmount_leaves_no_daemon bash -c "fusermount3 -u '$M' && for i in \$(seq 50); do kill -0 $pid 2>/dev/null || exit 0; sleep 0.1; done; exit 1"

# --- a damaged page: EIO on that column only
cp -r "$WORK/t" "$WORK/bad"
"$PY" - "$WORK/bad/part-000000.ingot" <<'PY'
import struct, sys
p = sys.argv[1]
d = bytearray(open(p, "rb").read())
foff, fsize = struct.unpack_from("<QQ", d, len(d) - 64)
f = bytes(d[foff:foff + fsize])
choff = struct.unpack_from("<Q", f, 80 + 16 * 5)[0]
poff = struct.unpack_from("<Q", f, 80 + 16 * 6)[0]
chk = {12: 64, 9: 40, 6: 16, 2: 8}[max(v for v in (12, 9, 6, 2) if v <= struct.unpack_from("<I", f, 8)[0])]  # chunk record size (FORMAT.md)
first = struct.unpack_from("<I", f, choff + chk * 10)[0]    # column f64, group 0
off, cap, stored = struct.unpack_from("<QII", f, poff + 64 * (first + 1))
d[off + stored // 2] ^= 0x01
open(p, "wb").write(d)
PY
mkdir -p "$WORK/mbad"
"$INGOT" mount "$WORK/bad" "$WORK/mbad"
eio_one_column() {
    local out
    out=$(cat "$WORK/mbad/columns/f64" 2>&1 >/dev/null) && { echo "read succeeded"; return 1; }
    grep -q "Input/output error" <<<"$out" || { echo "$out"; return 1; }
    cmp -s "$WORK/mbad/columns/f32" "$WORK/g/expect/f32.txt" || return 1
    cmp -s "$WORK/mbad/groups/1/f64" <("$INGOT" cat --group 1 "$WORK/t" f64) || return 1
    "$PY" -c "import numpy as np; np.load('$WORK/mbad/columns/f64.npy')" 2>/dev/null && return 1
    return 0
}
check damaged_page_eio_on_that_column_only eio_one_column
fusermount3 -u "$WORK/mbad"

# --- mount failures are reported before detaching
mkdir -p "$WORK/m2"
expect_fail mount_missing_table "$INGOT" mount "$WORK/nosuch" "$WORK/m2"
cp -r "$WORK/t" "$WORK/badfooter"
"$PY" -c "
import struct,sys
p='$WORK/badfooter/part-000000.ingot'
d=bytearray(open(p,'rb').read()); fo,fs=struct.unpack_from('<QQ',d,len(d)-64); d[fo+fs//2]^=1; open(p,'wb').write(d)"
mount_corrupt() {
    local out
    out=$("$INGOT" mount "$WORK/badfooter" "$WORK/m2" 2>&1) && { echo "mounted"; fusermount3 -u "$WORK/m2"; return 1; }
    grep -q "part-000000.ingot" <<<"$out" || { echo "$out"; return 1; }
    ! findmnt "$WORK/m2" >/dev/null
}
check mount_corrupt_footer_fails mount_corrupt
check mount_not_a_directory_fails bash -c "! '$INGOT' mount '$WORK/t' '$WORK/g/schema.txt' 2>/dev/null"

# --- SIGTERM unmounts cleanly
mkdir -p "$WORK/m3"
"$INGOT" mount "$WORK/t" "$WORK/m3"
pid=$(daemon_pid "$WORK/m3")
sigterm() {
    kill -TERM "$pid"
    for i in $(seq 50); do
        if ! kill -0 "$pid" 2>/dev/null && ! findmnt "$WORK/m3" >/dev/null; then return 0; fi
        sleep 0.1
    done
    echo "daemon $pid still there or still mounted"; return 1
}
check sigterm_unmounts sigterm

# --- column names that are not file names
printf '"a/b" int64\n"." int64\n".." int64\n"x.npy" int64\nx int64\n"_rowid" int64\n"%%" string\n"y.valid" int64\ny int64?\n' >"$WORK/names.txt"
printf 'a/b,.,..,x.npy,x,_rowid,%%,y.valid,y\n1,2,3,4,5,6,pct,8,9\n' >"$WORK/names.csv"
"$INGOT" import --schema "$WORK/names.txt" "$WORK/names.csv" "$WORK/tn" >/dev/null 2>&1
mkdir -p "$WORK/mn"
"$INGOT" mount "$WORK/tn" "$WORK/mn"
escaping() {
    local want got
    want=$(printf '%s\n' %25 %2E %2E%2E %5Frowid %5Frowid.npy _rowid.npy a%2Fb a%2Fb.npy x x%2Enpy x%2Enpy.npy x.npy y y%2Evalid y%2Evalid.npy y.npy y.valid.npy %2E.npy %2E%2E.npy | sort)
    got=$(ls -A "$WORK/mn/columns" | sort)
    [ "$want" = "$got" ] || { diff <(echo "$want") <(echo "$got"); return 1; }
    [ "$(cat "$WORK/mn/columns/a%2Fb")" = 1 ] && [ "$(cat "$WORK/mn/columns/%2E")" = 2 ] &&
        [ "$(cat "$WORK/mn/columns/%2E%2E")" = 3 ] && [ "$(cat "$WORK/mn/columns/x%2Enpy")" = 4 ] &&
        [ "$(cat "$WORK/mn/columns/x")" = 5 ] && [ "$(cat "$WORK/mn/columns/%5Frowid")" = 6 ] &&
        [ "$(cat "$WORK/mn/columns/%25")" = pct ] && [ "$(cat "$WORK/mn/columns/y%2Evalid")" = 8 ] || return 1
    "$PY" -c "import numpy as np; assert np.load('$WORK/mn/columns/y.valid.npy').tolist() == [True]; assert np.load('$WORK/mn/columns/y%2Evalid.npy').tolist() == [8]; assert np.load('$WORK/mn/columns/_rowid.npy').tolist() == [0]" || return 1
    ! cat "$WORK/mn/columns/%61" 2>/dev/null   # a non-canonical alias is not found
}
check column_name_escaping escaping
fusermount3 -u "$WORK/mn"

# --- a wide table: listing reads only the footer
"$PY" - "$WORK/wide.csv" <<'PY'
import sys
n = 10000
with open(sys.argv[1], "w") as f:
    f.write(",".join("c%05d" % i for i in range(n)) + "\n")
    for r in range(400):
        f.write(",".join(str(r * i) for i in range(n)) + "\n")
PY
"$INGOT" import "$WORK/wide.csv" "$WORK/tw" >/dev/null 2>&1
mkdir -p "$WORK/mw"
"$INGOT" mount "$WORK/tw" "$WORK/mw"
wide_listing() {
    local pid n st
    pid=$(daemon_pid "$WORK/mw")
    # the footer is in memory: listing 30,000 files reads no page data
    # (strace counts the daemon's preads; /dev/fuse traffic is read(2), not pread)
    strace -f -qq -e trace=pread64 -p "$pid" -o "$WORK/wide.strace" & st=$!
    sleep 0.5
    n=$(ls -l "$WORK/mw/columns" | wc -l)
    sleep 0.2; kill $st; wait $st 2>/dev/null
    [ "$n" -ge 30000 ] || { echo "only $n entries"; return 1; }
    if grep -q pread64 "$WORK/wide.strace"; then echo "daemon preads:"; head -5 "$WORK/wide.strace"; return 1; fi
    [ "$(sed -n 20p "$WORK/mw/columns/c09999")" = $((19 * 9999)) ]
}
check wide_table_listing_reads_no_data wide_listing

# no extended attributes, said as EOPNOTSUPP (not the kernel's ENODATA for ACL
# names after an ENOSYS): `ls -l` then asks once, not for every file, and an
# array's name (never cached: a lookup per path walk) is looked up once, not twice
listing_xattrs() {
    local n
    strace -f -qq --seccomp-bpf -e trace=getxattr,lgetxattr -o "$WORK/xattr.strace" \
        ls -l "$WORK/mw/columns" >/dev/null || return 1
    n=$(grep -c xattr "$WORK/xattr.strace")
    [ "$n" -le 4 ] || { echo "ls -l asked $n xattrs of 30,000 files"; head -3 "$WORK/xattr.strace"; return 1; }
    "$PY" - "$WORK/mw" <<'PY'
import errno, os, sys
m = sys.argv[1]
for path in (f"{m}/columns/c00007.npy", f"{m}/columns/c00007", f"{m}/rows/3", m):
    for name in ("system.posix_acl_access", "user.x"):
        try:
            os.getxattr(path, name)
            sys.exit(f"{path}: {name} answered")
        except OSError as e:
            if e.errno != errno.EOPNOTSUPP:
                sys.exit(f"{path}: {name}: {e}")
PY
}
check listing_asks_xattrs_once listing_xattrs

# rows of a wide table read in order decode each column's block once: the
# daemon's cache holds a block of every column by default (16 KiB a column; at
# 32 MiB it emptied in the order it filled and decoded all 10,000 blocks again
# for every row: 62 ms a row instead of 8)
wide_rows() {
    local pid st n i
    pid=$(daemon_pid "$WORK/mw")
    strace -f -qq -e trace=pread64 -p "$pid" -o "$WORK/wrows.strace" & st=$!
    sleep 0.5
    for i in $(seq 0 29); do
        [ "$(jq -c '[.c00000, .c00007, .c09999]' "$WORK/mw/rows/$i")" = "[0,$((i * 7)),$((i * 9999))]" ] ||
            { echo "row $i"; kill $st; return 1; }
    done
    sleep 0.2; kill $st; wait $st 2>/dev/null
    n=$(grep -c pread64 "$WORK/wrows.strace")
    # a block or two of each of the 10,000 columns (was 30 x 10,000)
    [ "$n" -le 20000 ] || { echo "$n preads for 30 rows"; return 1; }
}
check wide_table_rows_read_each_block_once wide_rows

# a text view's name stays in the kernel's cache (`ls -l` of a wide table's
# columns/ made a lookup per stat: 6.1 s for 52,413 entries), and an erase
# drops it before the new generation shows: the same path then reads the new
# file at once
cached_names() {
    local pid st n before after
    pid=$(daemon_pid "$WORK/mw")
    stat "$WORK/mw/columns/c00007" >/dev/null || return 1
    # requests the daemon took from /dev/fuse (not its workers' empty polls,
    # which a busy machine makes many more of)
    strace -f -qq -y --status=successful -e trace=read,readv -p "$pid" -o "$WORK/names.strace" & st=$!
    sleep 0.5
    for i in $(seq 1 200); do stat "$WORK/mw/columns/c00007" >/dev/null; done
    sleep 0.2; kill $st; wait $st 2>/dev/null
    n=$(grep -c '</dev/fuse>' "$WORK/names.strace")
    [ "$n" -le 20 ] || { echo "$n requests for 200 stats of one text view"; return 1; }
    before=$(wc -l <"$WORK/mw/columns/c00007")
    rm "$WORK/mw/rows/3" || return 1
    after=$(wc -l <"$WORK/mw/columns/c00007")
    [ "$after" = $((before - 1)) ] || { echo "lines $before then $after"; return 1; }
    ! grep -qx $((3 * 7)) "$WORK/mw/columns/c00007" # row 3's value is gone
}
check text_view_names_cached_and_dropped cached_names
fusermount3 -u "$WORK/mw"

# --- a part file truncated under the mount: reads fail with EIO, the daemon lives
"$PY" -c "
import random
r = random.Random(5)
print('v,s')
for i in range(200000): print(r.getrandbits(63) - 2**62, ',', 'x' * (i % 7), sep='')
" >"$WORK/trunc.csv"
"$INGOT" import "$WORK/trunc.csv" "$WORK/tt" >/dev/null 2>&1
mkdir -p "$WORK/mt"
"$INGOT" mount "$WORK/tt" "$WORK/mt"
truncated_part() {
    local part=$WORK/tt/part-000000.ingot size
    size=$(stat -c %s "$part")
    truncate -s $((size / 3)) "$part"
    if cat "$WORK/mt/columns/v.npy" >/dev/null 2>"$WORK/trunc.err"; then echo "read a truncated part"; return 1; fi
    grep -q "Input/output error" "$WORK/trunc.err" || { cat "$WORK/trunc.err"; return 1; }
    ! cat "$WORK/mt/columns/s" >/dev/null 2>&1 || { echo "strings read from a truncated part"; return 1; }
    # still serving: the listing comes from the footer it holds
    ls "$WORK/mt/columns" | grep -qx v.npy && findmnt -rn "$WORK/mt" >/dev/null
}
check truncated_part_is_eio_not_a_crash truncated_part
fusermount3 -u "$WORK/mt" 2>/dev/null || true

# --- jsonl/G.jsonl: a row group's live rows as JSON Lines, each line exactly
# rows/ID; exact sizes, reads at any offset, and an erase: a file opened
# before answers ESTALE, one opened after leaves the row out
rm -rf "$WORK/tj"; cp -r "$WORK/t" "$WORK/tj"; mkdir -p "$WORK/mj"
"$INGOT" mount "$WORK/tj" "$WORK/mj"
jsonl_rows() {
    local m=$WORK/mj g n
    n=$(ls "$m/groups" | wc -l)
    [ "$(ls "$m/jsonl" | sort -n | tr '\n' ' ')" = "$(seq -f '%g.jsonl' 0 $((n - 1)) | tr '\n' ' ')" ] ||
        { ls "$m/jsonl"; return 1; }
    for g in $(seq 0 $((n - 1))); do
        [ "$(stat -c %s "$m/jsonl/$g.jsonl")" = "$(wc -c <"$m/jsonl/$g.jsonl")" ] || { echo "size of $g.jsonl"; return 1; }
        cat "$m/jsonl/$g.jsonl"
    done >"$WORK/jsonl_all"
    # the same bytes as every row's file, in id order
    "$INGOT" cat "$WORK/tj" id | $PY -c '
import sys
for i in sys.stdin.read().split():
    with open(sys.argv[1] + "/rows/" + i, "rb") as f:
        sys.stdout.buffer.write(f.read())' "$m" | cmp - "$WORK/jsonl_all" || return 1
    jq -c . "$WORK/jsonl_all" | wc -l | grep -qx "$(wc -l <"$WORK/jsonl_all")" || return 1
    "$PY" - "$m" "$WORK/tj" "$INGOT" <<'PY'
import errno, os, random, subprocess, sys
m, t, ingot = sys.argv[1:]
p = m + "/jsonl/1.jsonl"
whole = open(p, "rb").read()
fd = os.open(p, os.O_RDONLY)
r = random.Random(5)
for _ in range(300):  # reads at any offset and length give the same bytes
    off, n = r.randrange(len(whole) + 10), r.choice([1, 7, 100, 4096, 70000, 1 << 20])
    assert os.pread(fd, n, off) == whole[off:off + n], (off, n)
victim = int(whole.split(b"\n")[5].split(b",")[0].split(b":")[1])
os.unlink(f"{m}/rows/{victim}")
try:  # the file opened before the erase: ESTALE (reopen), never the erased row
    data = os.pread(fd, 1 << 20, 0)
    sys.exit(f"read {len(data)} bytes of a jsonl file opened before the erase")
except OSError as e:
    assert e.errno == errno.ESTALE, e
os.close(fd)
after = open(p, "rb").read()
assert os.stat(p).st_size == len(after)
lines = whole.split(b"\n")
assert after == b"\n".join(lines[:5] + lines[6:]), "the erased row is not the only line gone"
assert b'"id":%d,' % victim not in after
PY
}
check jsonl_group_files_are_the_rows jsonl_rows
fusermount3 -u "$WORK/mj"
