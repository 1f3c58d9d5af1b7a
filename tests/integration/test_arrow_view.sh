#!/usr/bin/env bash
# Arrow IPC views: arrow/G.arrow in a mount is row group G as an Arrow IPC file.
# The apache-arrow package (npm) reads every view of a table holding each type
# the view shows (ints of every width and sign, bool, floats, fp16-quantised
# floats, strings with escapes and non-ASCII, binary, vectors, lists of numbers,
# strings, binary and bools, a nullable struct of flat members, a blob column
# as its (path, size) reference, a list of objects as List<Struct<path, size>>,
# structs holding lists, lists of lists, a list of structs (a map), structs in
# structs, a struct holding a vector, lists of vectors (per-frame embeddings) as
# List<FixedSizeList> (and lists of them), a list of structs holding a vector,
# a struct holding a blob, a list of objects with NULL ones among them, a
# struct holding a list of structs, lists of structs holding a blob, lists or
# a struct (annotations: bbox, label, tags; detections), lists of lists in a
# list's structs (COCO segmentation polygons; rings of points three deep),
# lists of vectors in a list's structs (each object's per-frame embeddings),
# structs of lists, vectors and structs in a list's structs, lists (of lists)
# of objects in a list's structs (a clip's frames),
# four levels of lists; lists of structs holding lists of structs (a video's
# clips' objects; also inside a struct; per-object vectors) with their types
# nested, one holding blobs as each row's JSON (Utf8); NULLs at every level
# each can hold them; several row groups, erased rows) and every value must
# equal the row's JSON in rows/ID.
# Sizes are exact at stat; a group whose rows are all erased is an empty batch;
# a view opened before an erase answers ESTALE; a damaged page answers EIO.
source "$(dirname "$0")/lib.sh"
PQ=$ROOT/tests/parquet
have_fuse || { skip arrow_views "no /dev/fuse"; exit 0; }
need_duckdb arrow_views || exit 0
T=$WORK/t
M=$WORK/m
FIELDS=id,b,i8,u16,i32,u64,f,d,h,s,bin,v,vn,l,ln,ls,lbin,lb,st,nest,sl,ll,lls,l3,mp,ss,ns,sv,img,frames,lv,lvn,l4,lsv,llv,sb,fn,sls,lob,ann,det,seg,poly,fe,obj,clip,shots,vid,svid,dv,db
mkdir -p "$M"
"$PY" "$ROOT/tests/integration/every_type.py" "$WORK" || { fail arrow_views "every_type.py failed"; exit 0; }
"$INGOT" import --schema "$WORK/schema.txt" --rows-per-group 2000 --page-size 4K "$WORK/in.jsonl" "$T" >/dev/null 2>&1 ||
    { fail arrow_views "import failed"; exit 0; }
"$INGOT" erase --row 3,4000,4999 "$T" >/dev/null || { fail arrow_views "erase failed"; exit 0; }
"$INGOT" mount "$T" "$M" || { fail arrow_views "mount failed"; exit 0; }

every_value() { node "$PQ/arrow_check.mjs" "$M" "$FIELDS" >/dev/null; }
check arrow_view_every_value_equals_rows every_value

# lists of structs holding lists of structs keep their types, nested (vectors
# in them too); one holding a blob is each row's JSON
typed() {
    local got want
    got=$(cd "$PQ" && node -e "
const { tableFromIPC } = require('apache-arrow');
const t = tableFromIPC(require('fs').readFileSync(process.argv[1]));
for (const n of ['vid', 'svid', 'dv', 'db']) console.log(String(t.schema.fields.find((f) => f.name === n).type));" "$M/arrow/0.arrow") ||
        return 1
    want="List<Struct<{t:Int32, objs:List<Struct<{x:Int32, lab:Utf8, pts:List<Float32>}>>}>>
Struct<{n:Int32, clips:List<Struct<{objs:List<Struct<{box:Struct<{x:Float32, y:Float32}>, name:Utf8}>>}>>}>
List<Struct<{objs:List<Struct<{emb:FixedSizeList[2]<Float32>, k:Int32}>>}>>
Utf8"
    [ "$got" = "$want" ] || { printf 'got:\n%s\nwant:\n%s\n' "$got" "$want"; return 1; }
}
check arrow_view_lists_of_structs_in_lists_of_structs_typed typed

sizes() {
    local got
    got=$(ls "$M/arrow" | sort -n | tr '\n' ' ')
    [ "$got" = "0.arrow 1.arrow 2.arrow " ] || { echo "listed: $got"; return 1; }
    [ ! -e "$M/arrow/3.arrow" ] && [ ! -e "$M/arrow/01.arrow" ] && [ ! -e "$M/arrow/0.parquet" ] || return 1
    for f in "$M"/arrow/*.arrow; do
        [ "$(stat -c %s "$f")" = "$(cat "$f" | wc -c)" ] || { echo "$f: stat size differs from its bytes"; return 1; }
        [ "$(head -c 6 "$f")" = ARROW1 ] && [ "$(tail -c 6 "$f")" = ARROW1 ] || { echo "$f: no magic"; return 1; }
    done
    # a read at any offset is the same bytes as the whole file's
    "$PY" - "$M/arrow/1.arrow" <<'PY'
import os, random, sys
p = sys.argv[1]
whole = open(p, "rb").read()
fd = os.open(p, os.O_RDONLY)
random.seed(1)
for _ in range(300):
    off = random.randrange(len(whole)); n = random.randrange(1, 5000)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    assert os.pread(fd, n, off) == whole[off:off + n], (off, n)
PY
}
check arrow_view_sizes_exact_and_reads_at_any_offset sizes

# after more erasures (every row of group 2 among them) the views follow
after_erase() {
    "$INGOT" erase --row 0,1,17,1999,2000 "$T" >/dev/null || return 1
    "$INGOT" erase --rows-from <(seq 4001 4998) "$T" >/dev/null || return 1
    sleep 0.3 # the mount reloads on inotify
    local n
    n=$(node "$PQ/arrow_check.mjs" "$M" "$FIELDS") || return 1
    [ "$n" = 3994 ] || { echo "$n rows checked, want 3994"; return 1; }
}
check arrow_view_after_erase after_erase

# a view held open across an erase answers ESTALE; reopened, it is new
stale() {
    "$PY" - "$M" "$INGOT" "$T" <<'PY' || return 1
import errno, os, subprocess, sys, time
m, ingot, t = sys.argv[1:]
fd = os.open(f"{m}/arrow/0.arrow", os.O_RDONLY)
assert os.pread(fd, 6, 0) == b"ARROW1"
subprocess.run([ingot, "erase", "--row", "5", t], check=True, stdout=subprocess.DEVNULL)
time.sleep(0.3)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
try:
    os.pread(fd, 1 << 16, 1 << 12)
    sys.exit("an open view read after an erase")
except OSError as e:
    assert e.errno == errno.ESTALE, errno.errorcode.get(e.errno)
data = open(f"{m}/arrow/0.arrow", "rb").read()
assert data[:6] == b"ARROW1" and data[-6:] == b"ARROW1" and len(data) == os.stat(f"{m}/arrow/0.arrow").st_size
PY
    node "$PQ/arrow_check.mjs" "$M" "$FIELDS" >/dev/null
}
check arrow_view_open_across_erase_estale stale

# a damaged page: EIO for the reads that need it, the daemon stays up
damaged() {
    local d=$WORK/dmg
    mkdir -p "$d/m"
    cp -r "$T" "$d/t"
    "$PY" -c "
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
for k in range(200, 6000, 7): b[k] ^= 0x5A
open(p, 'wb').write(b)" "$d/t/part-000000.ingot"
    "$INGOT" mount "$d/t" "$d/m" || return 1
    local rc=0
    if cat "$d/m/arrow/0.arrow" >/dev/null 2>"$d/err"; then echo "a damaged view read through"; rc=1; fi
    grep -q "Input/output error" "$d/err" || { cat "$d/err"; rc=1; }
    ls "$d/m/columns" >/dev/null || { echo "the daemon died"; rc=1; }
    fusermount3 -u "$d/m"
    return $rc
}
check arrow_view_damaged_page_eio damaged

fusermount3 -u "$M" 2>/dev/null
