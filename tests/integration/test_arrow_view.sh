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
cat >"$WORK/schema.txt" <<'S'
id int64
b bool?
i8 int8
u16 uint16
i32 int32?
u64 uint64
f float32
d float64?
h float32 quantize=fp16
s string?
bin binary
v vector<float32, 4>
vn vector<float32, 3>?
l list<int64>
ln list<int32?>?
ls list<string?>?
lbin list<binary>
lb list<bool?>
st struct<a:int64, n:string?, g:float64?, t:bool>?
nest struct<x:list<int64>>
sl struct<k:int32, tags:list<string?>?>?
ll list<list<int32>>
lls list<list<string?>?>?
l3 list<list<list<int32>?>>?
mp list<struct<key:string, value:float64?, ok:bool>?>?
ss struct<in:struct<z:int64>>
ns struct<a:int32, in:struct<b:string?, c:list<int64>?, deep:struct<x:float64?>?>?>?
sv struct<v:vector<float32, 2>?, w:int32>?
img blob?
frames list<blob>?
lv list<vector<float32, 3>>
lvn list<vector<float32, 2>?>?
l4 list<list<list<list<int32>>?>>?
lsv list<struct<name:string, emb:vector<float32, 2>?>?>?
llv list<list<vector<float32, 2>>?>
sb struct<img:blob?, label:int32>?
fn list<blob?>?
sls struct<n:int32, objs:list<struct<label:string, score:float32?>?>?>?
lob list<struct<img:blob?, cap:string>?>?
ann list<struct<bbox:list<float32>?, label:string?, tags:list<string?>>?>?
det list<struct<box:struct<x:float32, y:float32?>?, cls:int32>?>?
seg list<struct<segmentation:list<list<float32>?>?, crowd:bool>?>?
poly list<struct<rings:list<list<list<int32?>>?>, name:string>>
fe list<struct<name:string, embs:list<vector<float32, 2>?>?>?>?
obj list<struct<id:int32, meta:struct<tags:list<string?>?, emb:vector<float32, 2>?, pic:blob?, deep:struct<n:int32?, pts:list<list<int32>>>?>?>?>?
clip list<struct<name:string, frames:list<blob?>?>?>?
shots list<struct<takes:list<list<blob>>>>
vid list<struct<t:int32, objs:list<struct<x:int32?, lab:string, pts:list<float32>>?>?>?>?
svid struct<n:int32, clips:list<struct<objs:list<struct<box:struct<x:float32, y:float32>?, name:string?>>?>>>?
dv list<struct<objs:list<struct<emb:vector<float32, 2>?, k:int32>>>>?
db list<struct<objs:list<struct<img:blob?>>>>?
S
mkdir -p "$WORK/objs"
"$PY" - "$WORK/in.jsonl" "$WORK/objs" <<'PY'
import json, random, sys
random.seed(3)
objs = sys.argv[2]
with open(sys.argv[1], "w") as f:
    for i in range(5000):
        img = None
        if i % 3:
            img = f"{objs}/{i}.jpg" if i % 2 else f"{objs}/{i}.bin"
            with open(img, "wb") as o:
                o.write((b"\xff\xd8\xff\xe0" if i % 2 else b"") + bytes([i % 256]) * (i % 50))
        f.write(json.dumps({
            "id": i, "b": None if i % 7 == 0 else i % 3 == 0, "i8": i % 256 - 128, "u16": i % 65536,
            "i32": None if i % 5 == 0 else i * 1000 - 7, "u64": 2**64 - 1 - i, "f": i / 8.0,
            "d": None if i % 11 == 0 else i * 0.1, "h": (i % 100) / 4.0,
            "s": None if i % 13 == 0 else "é" * (i % 4) + f"s{i}" + ("" if i % 17 else "\n\t\"x"),
            "bin": "\\x" + f"{i % 256:02x}" * (i % 5),
            "v": [i, i + 0.5, -i, 1.25], "vn": None if i % 9 == 0 else [i, 2 * i, 3 * i],
            "l": list(range(i % 6)),
            "ln": None if i % 10 == 0 else [None if (i + k) % 4 == 0 else k * i for k in range(i % 5)],
            "ls": None if i % 8 == 0 else [None if (i + k) % 5 == 0 else "é" * (k % 2) + f"t{i}.{k}" for k in range(i % 4)],
            "lbin": ["\\x" + f"{(i + k) % 256:02x}" * k for k in range(i % 3)],
            "lb": [None if (i + k) % 6 == 0 else (i + k) % 2 == 0 for k in range(i % 5)],
            "st": None if i % 6 == 1 else {"a": i, "n": None if i % 4 == 2 else f"n{i}\u00e9",
                                          "g": None if i % 5 == 3 else i / 3, "t": i % 2 == 0},
            "nest": {"x": [i]},
            "sl": None if i % 7 == 3 else {"k": i, "tags": None if i % 5 == 1 else
                                           [None if (i + k) % 3 == 0 else f"g{i}.{k}" for k in range(i % 4)]},
            "ll": [[i, k] for k in range(i % 3)],
            "lls": None if i % 9 == 2 else [None if (i + j) % 4 == 1 else
                                            [None if (i + j + k) % 5 == 0 else f"q{i}.{j}.{k}" for k in range((i + j) % 3)]
                                            for j in range(i % 4)],
            "l3": None if i % 10 == 7 else [[None if (j + k) % 3 == 2 else [i, j, k][: (i + j + k) % 4]
                                              for k in range((i + j) % 3)] for j in range(i % 3)],
            "mp": None if i % 13 == 5 else [None if (i + k) % 7 == 3 else
                                             {"key": f"k{k}é", "value": None if (i + k) % 4 == 0 else i * 0.25 + k,
                                              "ok": (i + k) % 2 == 0} for k in range(i % 4)],
            "ss": {"in": {"z": i}},
            "ns": None if i % 9 == 4 else {"a": i, "in": None if i % 7 == 2 else {
                "b": None if i % 5 == 0 else f"b{i}", "c": None if i % 6 == 1 else list(range(i % 3)),
                "deep": None if i % 4 == 3 else {"x": None if i % 8 == 5 else i / 4}}},
            "sv": None if i % 8 == 6 else {"v": None if i % 5 == 4 else [i, -i], "w": i}, "img": img,
            "frames": None if i % 11 == 4 else [f"{objs}/{(i + k) % 40 * 6 + 1}.jpg" for k in range(i % 4)],
            "lv": [[i, k, -0.5 * k] for k in range(i % 4)],
            "lvn": None if i % 6 == 0 else [None if (i + k) % 3 == 0 else [k, -i] for k in range(i % 3)],
            "l4": None if i % 9 == 3 else [[None if (i + j + k) % 4 == 3 else
                                             [[i, j, k][: (i + k + q) % 4] for q in range((j + k) % 3)]
                                             for k in range((i + j) % 3)] for j in range(i % 3)],
            "lsv": None if i % 7 == 5 else [None if (i + k) % 5 == 4 else
                                             {"name": f"o{i}.{k}", "emb": None if (i + k) % 3 == 1 else [i, k]}
                                             for k in range(i % 3)],
            "llv": [None if (i + j) % 4 == 2 else [[i, j * 10 + k] for k in range((i + j) % 3)]
                    for j in range(i % 3)],
            "sb": None if i % 5 == 4 else {"img": None if i % 3 == 1 else f"{objs}/{i % 40 * 6 + 1}.jpg",
                                           "label": i},
            "fn": None if i % 10 == 7 else [None if (i + k) % 3 == 2 else f"{objs}/{(i + k) % 40 * 6 + 1}.jpg"
                                            for k in range(i % 4)],
            "sls": None if i % 8 == 3 else {"n": i, "objs": None if i % 5 == 2 else [
                None if (i + k) % 4 == 1 else {"label": f"L{k}", "score": None if (i + k) % 3 == 0 else (i + k) / 4}
                for k in range(i % 3)]},
            "lob": None if i % 9 == 1 else [None if (i + k) % 4 == 2 else
                                            {"img": None if (i + k) % 3 == 1 else f"{objs}/{(i + k) % 40 * 6 + 1}.jpg",
                                             "cap": f"c{k}"} for k in range(i % 3)],
            "ann": None if i % 11 == 6 else [None if (i + k) % 5 == 3 else {
                "bbox": None if (i + k) % 4 == 1 else [i, k, i + k][: (i + k) % 4],
                "label": None if (i + k) % 6 == 0 else f"a{k}",
                "tags": [None if (i + k + q) % 3 == 0 else f"t{q}" for q in range((i + k) % 3)]}
                for k in range(i % 4)],
            "det": None if i % 13 == 4 else [None if (i + k) % 5 == 1 else {
                "box": None if (i + k) % 4 == 3 else {"x": i + k, "y": None if (i + k) % 3 == 0 else k / 2},
                "cls": k} for k in range(i % 3)],
            "seg": None if i % 7 == 2 else [None if (i + k) % 6 == 5 else {
                "segmentation": None if (i + k) % 4 == 2 else [
                    None if (i + k + j) % 5 == 4 else [i + j, k / 2, j - k][: (i + j) % 4] for j in range((i + k) % 3)],
                "crowd": (i + k) % 2 == 0} for k in range(i % 3)],
            "poly": [{"rings": [None if (i + k + j) % 4 == 3 else
                                [[None if (i + q) % 5 == 0 else i + j + q for q in range((k + q0) % 3)]
                                 for q0 in range((i + j) % 3)] for j in range((i + k) % 3)],
                      "name": f"p{k}"} for k in range(i % 3)],
            "fe": None if i % 10 == 3 else [None if (i + k) % 7 == 6 else {
                "name": f"f{k}", "embs": None if (i + k) % 5 == 2 else [
                    None if (i + k + j) % 4 == 1 else [i + j, k - j / 4] for j in range((i + k) % 4)]}
                for k in range(i % 3)],
            "obj": None if i % 12 == 7 else [None if (i + k) % 6 == 2 else {
                "id": k, "meta": None if (i + k) % 5 == 3 else {
                    "tags": None if (i + k) % 4 == 0 else [None if (i + q) % 3 == 1 else f"g{q}" for q in range(k % 3)],
                    "emb": None if (i + k) % 3 == 2 else [i, k],
                    "pic": None if (i + k) % 4 == 1 else f"{objs}/{(i + k) % 40 * 6 + 1}.jpg",
                    "deep": None if (i + k) % 7 == 4 else {
                        "n": None if (i + k) % 2 else i,
                        "pts": [[i, q][: (i + q) % 3] for q in range((i + k) % 3)]}}}
                for k in range(i % 4)],
            "clip": None if i % 9 == 5 else [None if (i + k) % 5 == 4 else {
                "name": f"c{k}", "frames": None if (i + k) % 4 == 3 else [
                    None if (i + k + j) % 3 == 2 else f"{objs}/{(i + k + j) % 40 * 6 + 1}.jpg" for j in range((i + k) % 3)]}
                for k in range(i % 3)],
            "shots": [{"takes": [[f"{objs}/{(i + j + q) % 40 * 6 + 1}.jpg" for q in range((j + k) % 3)]
                                 for j in range((i + k) % 3)]} for k in range(i % 3)],
            "vid": None if i % 8 == 1 else [None if (i + k) % 5 == 2 else {
                "t": k, "objs": None if (i + k) % 4 == 3 else [
                    None if (i + k + q) % 6 == 5 else {"x": None if (i + q) % 3 == 0 else i + q,
                                                       "lab": f"o{q}\u00e9\"", "pts": [q / 4, -i][: (i + q) % 3]}
                    for q in range((i + k) % 4)]} for k in range(i % 3)],
            "svid": None if i % 7 == 6 else {"n": i, "clips": [{"objs": None if (i + k) % 5 == 1 else [
                {"box": None if (i + q) % 4 == 0 else {"x": q, "y": i / 2},
                 "name": None if (i + q) % 3 == 2 else f"n{q}"} for q in range((i + k) % 3)]}
                for k in range(i % 3)]},
            "dv": None if i % 6 == 5 else [{"objs": [{"emb": None if (i + q) % 3 == 1 else [i, q / 2], "k": q}
                                                     for q in range((i + k) % 3)]} for k in range(i % 2 + 1)],
            "db": None if i % 4 == 3 else [{"objs": [{"img": None if (i + q) % 3 == 0 else f"{objs}/{(i + q) % 40 * 6 + 1}.jpg"}
                                                     for q in range(i % 3)]}]}) + "\n")
PY
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
    "$PY" - "$M" "$INGOT" "$T" <<'PY'
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
