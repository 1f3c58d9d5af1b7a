#!/usr/bin/env bash
# Nested records: the field-striping note's examples, distinct empty / null /
# unset, random nested records, projections reading one leaf, erasure, vectors
# and quantisation read back by NumPy.
source "$(dirname "$0")/lib.sh"

# --- the note's schemas s1..s4 and records (figures 4-12)
mkdir -p "$WORK/paper"
cd "$WORK/paper"
cat >s1.txt <<'S'
RecId int64
EmpId int64
DeptId int64
BonusRate float32?
FirstName string
LastName string
S
cat >r1.jsonl <<'J'
{"RecId": 1, "EmpId": 7342, "DeptId": 985, "BonusRate": 0.04, "FirstName": "John", "LastName": "Doe"}
{"RecId": 2, "EmpId": 842, "DeptId": 43, "FirstName": "Some", "LastName": "Guy"}
J
cat >s2.txt <<'S'
RecId int64
EmpId int64
DeptId list<int64>
BonusRate float32?
FirstName string
LastName string
S
cat >r2.jsonl <<'J'
{"RecId": 1, "EmpId": 7342, "DeptId": [67, 94], "BonusRate": 0.04, "FirstName": "John", "LastName": "Doe"}
{"RecId": 2, "EmpId": 342, "FirstName": "Lou", "LastName": "Poll"}
{"RecId": 3, "EmpId": 842, "DeptId": [43], "FirstName": "Some", "LastName": "Guy"}
J
cat >s3.txt <<'S'
RecId int64
EmpId int64
Dept struct<DeptId:int64, Name:string?, Loc:struct<Building:string, Floor:int32?>?>?
BonusRate float32?
FirstName string
LastName string
S
cat >r3.jsonl <<'J'
{"RecId": 1, "EmpId": 7342, "Dept": {"DeptId": 67, "Name": "Eng", "Loc": {"Building": "C"}}, "BonusRate": 0.04, "FirstName": "John", "LastName": "Doe"}
{"RecId": 2, "EmpId": 342, "FirstName": "Lou", "LastName": "Poll"}
{"RecId": 3, "EmpId": 842, "Dept": {"DeptId": 43}, "FirstName": "Some", "LastName": "Guy"}
J
cat >s4.txt <<'S'
RecId int64
EmpId int64
Dept list<struct<DeptId:int64, Name:list<string>, Loc:list<struct<Building:string, Floor:list<int32>>>>>
BonusRate float32?
FirstName string
LastName string
S
cat >r4.jsonl <<'J'
{"RecId": 1, "EmpId": 7342, "Dept": [{"DeptId": 67, "Name": ["Eng"], "Loc": [{"Building": "C"}, {"Building": "D"}]}, {"DeptId": 94, "Loc": [{"Building": "C", "Floor": [2, 3]}]}], "BonusRate": 0.04, "FirstName": "John", "LastName": "Doe"}
{"RecId": 2, "EmpId": 342, "FirstName": "Lou", "LastName": "Poll"}
{"RecId": 3, "EmpId": 842, "Dept": [{"DeptId": 43}], "FirstName": "Some", "LastName": "Guy"}
J
cd - >/dev/null
P="$WORK/paper"
for i in 1 2 3 4; do check "paper_s${i}_imports" "$INGOT" import --schema "$P/s$i.txt" "$P/r$i.jsonl" "$P/t$i"; done
expect_cat() { # TABLE COLUMN EXPECTED-LINES...
    local t=$1 c=$2; shift 2
    local got want
    got=$("$INGOT" cat "$t" "$c") || return 1
    want=$(printf '%s\n' "$@")
    [ "$got" = "$want" ] || { echo "cat $c:"; diff <(echo "$want") <(echo "$got"); return 1; }
}
check paper_s1_flat expect_cat "$P/t1" BonusRate 0.04 '\N'
check paper_s2_repeated expect_cat "$P/t2" DeptId '[67,94]' '[]' '[43]'
check paper_s3_nested expect_cat "$P/t3" Dept '{"DeptId":67,"Name":"Eng","Loc":{"Building":"C","Floor":null}}' null '{"DeptId":43,"Name":null,"Loc":null}'
# parent-is-UNSET: a missing Loc and a Loc without Floor stay distinct in the projection
check paper_s3_projection expect_cat "$P/t3" Dept.Loc.Floor '{"Loc":{"Floor":null}}' null '{"Loc":null}'
check paper_s4_nested_repeated expect_cat "$P/t4" Dept \
    '[{"DeptId":67,"Name":["Eng"],"Loc":[{"Building":"C","Floor":[]},{"Building":"D","Floor":[]}]},{"DeptId":94,"Name":[],"Loc":[{"Building":"C","Floor":[2,3]}]}]' \
    '[]' '[{"DeptId":43,"Name":[],"Loc":[]}]'
# repeated-parent: Floor's values belong to the right Loc and Dept
check paper_s4_projection_floor expect_cat "$P/t4" Dept.Loc.Floor '[{"Loc":[{"Floor":[]},{"Floor":[]}]},{"Loc":[{"Floor":[2,3]}]}]' '[]' '[{"Loc":[]}]'
check paper_s4_projection_building expect_cat "$P/t4" Dept.Loc.Building '[{"Loc":[{"Building":"C"},{"Building":"D"}]},{"Loc":[{"Building":"C"}]}]' '[]' '[{"Loc":[]}]'
check paper_s4_projection_name expect_cat "$P/t4" Dept.Name '[{"Name":["Eng"]},{"Name":[]}]' '[]' '[{"Name":[]}]'
check paper_verify bash -c "for i in 1 2 3 4; do '$INGOT' verify '$P/t'\$i >/dev/null || exit 1; done"

# a projection reads only its leaf's pages: damage another leaf, the projection still reads
projection_reads_one_leaf() {
    rm -rf "$WORK/p4"; cp -r "$P/t4" "$WORK/p4"
    "$PY" - "$WORK/p4/part-000000.ingot" <<'PY'
import struct, sys
p = sys.argv[1]
d = bytearray(open(p, "rb").read())
fo, fs = struct.unpack_from("<QQ", d, len(d) - 64)
f = bytes(d[fo:fo + fs])
nleaves = struct.unpack_from("<I", f, 44)[0]
choff = struct.unpack_from("<Q", f, 80 + 16 * 5)[0]
poff = struct.unpack_from("<Q", f, 80 + 16 * 6)[0]
# leaves in order: RecId EmpId Dept.DeptId Dept.Name Dept.Loc.Building Dept.Loc.Floor ...
chk = {12: 64, 9: 40, 6: 16, 2: 8}[max(v for v in (12, 9, 6, 2) if v <= struct.unpack_from("<I", f, 8)[0])]  # chunk record size (FORMAT.md)
first = struct.unpack_from("<I", f, choff + chk * 3)[0]        # Dept.Name
off, cap, stored = struct.unpack_from("<QII", f, poff + 64 * first)
d[off + stored - 1] ^= 0xFF
open(p, "wb").write(d)
PY
    "$INGOT" cat "$WORK/p4" Dept.Loc.Floor >/dev/null || { echo "projection failed"; return 1; }
    ! "$INGOT" cat "$WORK/p4" Dept.Name >/dev/null 2>&1 && ! "$INGOT" cat "$WORK/p4" Dept >/dev/null 2>&1
}
check projection_reads_only_its_leaf projection_reads_one_leaf

# --- empty list, null list, missing struct, struct with every field unset
cat >"$WORK/d.txt" <<'S'
a list<int64>?
s struct<x:int64?, y:string?>?
l list<struct<x:int64?>?>
S
printf '%s\n' '{"a": [], "s": null, "l": [null, {}]}' '{"a": null, "s": {}, "l": []}' '{"s": {"x": 1}}' >"$WORK/d.jsonl"
"$INGOT" import --schema "$WORK/d.txt" "$WORK/d.jsonl" "$WORK/td" >/dev/null 2>&1
check empty_vs_null_list expect_cat "$WORK/td" a '[]' null null
check missing_vs_unset_struct expect_cat "$WORK/td" s null '{"x":null,"y":null}' '{"x":1,"y":null}'
check null_element_vs_empty_struct expect_cat "$WORK/td" l '[null,{"x":null}]' '[]' '[]'

# --- values that do not fit: an error naming the line and the field
bad_nested() {
    local out
    printf '%s\n' '{"a": [1], "s": {}, "l": []}' '{"a": ["x"], "s": {}, "l": []}' >"$WORK/bad.jsonl"
    out=$("$INGOT" import --schema "$WORK/d.txt" "$WORK/bad.jsonl" "$WORK/tb" 2>&1) && return 1
    grep -q "bad.jsonl:2: field 'a'" <<<"$out" || { echo "$out"; return 1; }
    printf '%s\n' '{"a": [1], "s": {"z": 1}, "l": []}' >"$WORK/bad2.jsonl"
    out=$("$INGOT" import --schema "$WORK/d.txt" "$WORK/bad2.jsonl" "$WORK/tb" 2>&1) && return 1
    grep -q "bad2.jsonl:1: field 's' has no member 'z'" <<<"$out" || { echo "$out"; return 1; }
    [ ! -e "$WORK/tb" ]
}
check nested_bad_values_name_line_and_field bad_nested

# --- random nested records round-trip
"$PY" "$ROOT/tests/integration/nested.py" random "$WORK/rnd" 3000 7
"$INGOT" import --schema "$WORK/rnd/schema.txt" --rows-per-group 700 --page-size 2048 \
    "$WORK/rnd/input.jsonl" "$WORK/tr" >/dev/null 2>&1
random_roundtrip() {
    local c bad=0
    for c in id tags nums grid doc vec deep; do
        "$PY" - <("$INGOT" cat "$WORK/tr" "$c") "$WORK/rnd/expect/$c.jsonl" "$c" <<'PY' || bad=1
import json, sys
got = [json.loads(l) for l in open(sys.argv[1])]
want = [json.loads(l) for l in open(sys.argv[2])]
assert len(got) == len(want), (sys.argv[3], len(got), len(want))
for i, (g, w) in enumerate(zip(got, want)):
    assert g == w, (sys.argv[3], i, g, w)
PY
    done
    "$INGOT" verify "$WORK/tr" >/dev/null || bad=1
    return $bad
}
check random_nested_roundtrip random_roundtrip

# --- sliding-window sequence features (Bullion 2.2): chosen by size, exact
# round trip, erasure, a forced encoding and one that does not apply
"$PY" - "$WORK/slide.jsonl" <<'PY'
import json, random, sys
rnd = random.Random(11)
win, out = [], open(sys.argv[1], "w")
for uid in range(3000):
    p = rnd.random()
    if p < 0.03:
        clk = None
    elif p < 0.08 or not win:
        win = [rnd.randrange(1, 1 << rnd.randrange(1, 62)) for _ in range(rnd.randrange(1, 256))]
        clk = win
    else:
        new = [rnd.randrange(1, 1 << 40) for _ in range(rnd.randrange(0, 4))]
        win = (new + win)[:256]
        clk = win
    out.write(json.dumps({"uid": uid, "clk": clk}) + "\n")
PY
printf 'uid int64\nclk list<int64>?\n' >"$WORK/slide.txt"
printf 'uid int64\nclk list<int64>? encoding=slide\n' >"$WORK/slide_forced.txt"
slide_roundtrip() {
    local t
    for t in slide slide_forced; do
        rm -rf "$WORK/t_$t"
        "$INGOT" import --schema "$WORK/$t.txt" --rows-per-group 1000 "$WORK/slide.jsonl" "$WORK/t_$t" >/dev/null || return 1
        "$INGOT" inspect --json "$WORK/t_$t" | jq -e '.columns[] | select(.name == "clk") | .encodings.slide > 0' >/dev/null ||
            { echo "$t: no slide pages"; "$INGOT" inspect "$WORK/t_$t"; return 1; }
        "$PY" - <("$INGOT" cat "$WORK/t_$t" clk) "$WORK/slide.jsonl" <<'PY' || return 1
import json, sys
got = [json.loads(l) for l in open(sys.argv[1])]
want = [json.loads(l)["clk"] for l in open(sys.argv[2])]
assert got == want, [i for i, (g, w) in enumerate(zip(got, want)) if g != w][:5]
PY
        "$INGOT" verify "$WORK/t_$t" >/dev/null || return 1
    done
    # smaller than the same column as plain level streams
    local slide_b plain_b
    printf 'uid int64\nclk list<int64>? encoding=delta\n' >"$WORK/slide_delta.txt"
    "$INGOT" import --schema "$WORK/slide_delta.txt" --rows-per-group 1000 "$WORK/slide.jsonl" "$WORK/t_delta" >/dev/null || return 1
    slide_b=$("$INGOT" inspect --json "$WORK/t_slide" | jq '.columns[] | select(.name == "clk") | .encoded_bytes')
    plain_b=$("$INGOT" inspect --json "$WORK/t_delta" | jq '.columns[] | select(.name == "clk") | .encoded_bytes')
    echo "slide $slide_b bytes, delta level streams $plain_b bytes"
    [ "$((slide_b * 5))" -lt "$plain_b" ]
}
check slide_roundtrip_and_size slide_roundtrip
slide_erase() {
    rm -rf "$WORK/t_se"; cp -r "$WORK/t_slide" "$WORK/t_se"
    "$INGOT" erase --row 10 --row 11 --row 1500 --row 2999 "$WORK/t_se" >/dev/null || return 1
    "$INGOT" verify "$WORK/t_se" >/dev/null || { "$INGOT" verify "$WORK/t_se"; return 1; }
    "$PY" - <("$INGOT" cat "$WORK/t_se" clk) "$WORK/slide.jsonl" <<'PY'
import json, sys
got = [json.loads(l) for l in open(sys.argv[1])]
want = [json.loads(l)["clk"] for i, l in enumerate(open(sys.argv[2])) if i not in (10, 11, 1500, 2999)]
assert got == want
PY
}
check slide_erase_keeps_neighbours slide_erase
# hashed ids (a few 62-bit ids recurring) are stored once per page, in a
# dictionary (bulk kind 3, before and after an erase); a row read by id decodes
# from its base and looks up only its own entries: every row read alone equals
# its input row, in both kinds of page, by the CLI and through a mount, and
# erased rows are gone
"$PY" - "$WORK/slideh.jsonl" <<'PY'
import json, random, sys
rnd = random.Random(12)
pool = [rnd.getrandbits(62) for _ in range(500)]
win, out = [], open(sys.argv[1], "w")
for uid in range(3000):
    p = rnd.random()
    if p < 0.03:
        clk = None
    elif p < 0.05:
        clk = []
    else:
        if p < 0.07 or not win:
            win = []
        new = [pool[int(500 * rnd.random() ** 3)] for _ in range(rnd.randrange(0, 4) if win else 40)]
        win = clk = (new + win)[:40]
    out.write(json.dumps({"clk": clk}) + "\n")
PY
# The bulk kind of every page of a one-column table of uncompressed sliding
# windows (FORMAT.md: the tail where MANIFEST's footer= says the footer ends,
# pages section 6, 64-byte records; body flags, then the slide header's kind
# byte at 8)
bulk_kinds() {
    "$PY" - "$1/part-000000.ingot" "$1/MANIFEST" <<'PY'
import re, struct, sys
d = open(sys.argv[1], "rb").read()
end = re.search(r"part-000000\.ingot \d+ \d+ footer=(\d+)", open(sys.argv[2]).read())
fo, fs = struct.unpack_from("<QQ", d, (int(end.group(1)) if end else len(d)) - 64)
f = d[fo:fo + fs]
poff, psize = struct.unpack_from("<QQ", f, 80 + 16 * 6)
for k in range(psize // 64):
    off, cap, stored = struct.unpack_from("<QII", f, poff + 64 * k)
    assert d[off] == 0x10, d[off:off + 4]
    print(d[off + 4 + 8])
PY
}
slide_rows_by_id() {
    rm -rf "$WORK/t_sh"
    # uncompressed, so that the size below is the encoding's (zstd finds a few
    # hundred ids repeated too)
    printf 'clk list<int64>? compression=none\n' >"$WORK/slideh.txt"
    "$INGOT" import --schema "$WORK/slideh.txt" "$WORK/slideh.jsonl" "$WORK/t_sh" >/dev/null || return 1
    [ "$(bulk_kinds "$WORK/t_sh" | sort -u)" = 3 ] || { echo "not all dictionary pages: $(bulk_kinds "$WORK/t_sh")"; return 1; }
    "$INGOT" erase --row 7 --row 8 --row 2000 "$WORK/t_sh" >/dev/null || return 1
    [ "$(bulk_kinds "$WORK/t_sh" | sort -u)" = 3 ] || return 1
    # --deep: the erased rows' text lengths (counted from those rows decoded alone) add up
    "$INGOT" verify --deep "$WORK/t_sh" >/dev/null || { "$INGOT" verify --deep "$WORK/t_sh"; return 1; }
    local t in gone
    for t in t_sh:slideh:7,8,2000 t_se:slide:10,11,1500,2999; do
        IFS=: read -r t in gone <<<"$t"
        "$INGOT" inspect --json "$WORK/$t" | jq -e '.columns[] | select(.name == "clk") | .encodings.slide > 0' \
            >/dev/null || { echo "$t: no slide pages"; return 1; }
        "$PY" - "$INGOT" "$WORK/$t" "$WORK/$in.jsonl" "$gone" <<'PY' || return 1
import json, random, subprocess, sys
ingot, table, src, gone = sys.argv[1], sys.argv[2], sys.argv[3], {int(x) for x in sys.argv[4].split(",")}
want = [json.loads(l)["clk"] for l in open(src)]
ids = random.Random(3).sample(range(len(want)), 400) + sorted(gone)
out = subprocess.run([ingot, "cat", "--rows", ",".join(map(str, ids)), table, "clk"], capture_output=True, text=True)
got = [json.loads(l)["clk"] for l in out.stdout.splitlines()]
live = [i for i in ids if i not in gone]
assert got == [want[i] for i in live], [i for i, g in zip(live, got) if g != want[i]][:5]
assert all(f"row {i}: no such row" in out.stderr for i in gone), out.stderr
PY
    done
    # and through a mount: rows/ID read alone (a lookup, a read) match too
    mkdir -p "$WORK/msh"
    "$INGOT" mount "$WORK/t_sh" "$WORK/msh" || return 1
    "$PY" - "$WORK/msh" "$WORK/slideh.jsonl" <<'PY'
import json, os, random, sys
m, want = sys.argv[1], [json.loads(l)["clk"] for l in open(sys.argv[2])]
for i in random.Random(4).sample(range(len(want)), 300):
    if i in (7, 8, 2000):
        assert not os.path.exists(f"{m}/rows/{i}"), i
        continue
    with open(f"{m}/rows/{i}", "rb") as f:
        data = f.read()
    assert len(data) == os.stat(f"{m}/rows/{i}").st_size, i
    assert json.loads(data)["clk"] == want[i], i
# the column's offsets (from the pages' row metadata) skip the erased rows
import numpy as np
offs = np.load(f"{m}/columns/clk.offsets.npy")
live = [len(w or []) for k, w in enumerate(want) if k not in (7, 8, 2000)]
assert offs[0] == 0 and list(np.diff(offs)) == live
PY
    local rc=$?
    fusermount3 -u "$WORK/msh"
    return $rc
}
check slide_rows_by_id_hashed_and_spread slide_rows_by_id
# a whole column's elements (clk.values.npy) through a mount: a page with no
# erased row hands its decoded elements over as the file's bytes (no copy)
slide_values_npy() {
    mkdir -p "$WORK/msv"
    "$INGOT" mount "$WORK/t_slide" "$WORK/msv" || return 1
    "$PY" - "$WORK/msv" "$WORK/slide.jsonl" <<'PY'
import json, sys
import numpy as np
m, rows = sys.argv[1], [json.loads(l)["clk"] or [] for l in open(sys.argv[2])]
vals = np.load(f"{m}/columns/clk.values.npy", mmap_mode="r")
offs = np.load(f"{m}/columns/clk.offsets.npy")
want = [x for r in rows for x in r]
assert vals.dtype == np.int64 and vals.shape == (len(want),), (vals.dtype, vals.shape)
assert (np.asarray(vals) == np.asarray(want, dtype=np.int64)).all()
assert list(np.diff(offs)) == [len(r) for r in rows]
PY
    local rc=$?
    fusermount3 -u "$WORK/msv"
    return $rc
}
check slide_values_npy_through_mount slide_values_npy
slide_bad_schema() {
    local out
    printf 'uid int64\nf list<bool> encoding=slide\n' >"$WORK/slide_bad.txt"
    out=$("$INGOT" import --schema "$WORK/slide_bad.txt" "$WORK/slide.jsonl" "$WORK/t_sb" 2>&1) && return 1
    grep -q "slide_bad.txt:2: encoding=slide applies to" <<<"$out" || { echo "$out"; return 1; }
}
check slide_schema_rejects_booleans slide_bad_schema
# lists of floats (format 21): rolling windows of readings slide, in pages of
# ~8 KiB; boxes of four fresh floats a row stay level streams; every row
# reads back bit for bit (whole, by id through the CLI and a mount, and as
# the column's elements), an erase keeps the neighbours, and the table is
# smaller than the same readings as level streams
"$PY" - "$WORK/fwin.jsonl" <<'PY'
import json, math, random, struct, sys
rnd = random.Random(21)
f32 = lambda x: struct.unpack("<f", struct.pack("<f", x))[0]
win, out = [], open(sys.argv[1], "w")
for i in range(4000):
    win = (win + [f32(math.sin(i / 9 + rnd.random()) * 80) for _ in range(rnd.randrange(0, 3) if win else 40)])[-40:]
    r = None if i % 97 == 5 else [] if i % 89 == 7 else list(win)
    box = [f32(rnd.random() * 640), f32(rnd.random() * 480), 32.0, 32.0]
    out.write(json.dumps({"uid": i, "r": r, "d": [x * 1.5 for x in win[-8:]], "box": box}) + "\n")
PY
float_windows() {
    printf 'uid int64\nr list<float32>?\nd list<float64>\nbox list<float32>\n' >"$WORK/fwin.txt"
    printf 'uid int64\nr list<float32>? encoding=plain\nd list<float64> encoding=plain\nbox list<float32>\n' >"$WORK/fwin_lv.txt"
    rm -rf "$WORK/t_fw" "$WORK/t_fwl" "$WORK/t_fwe"
    "$INGOT" import --schema "$WORK/fwin.txt" "$WORK/fwin.jsonl" "$WORK/t_fw" >/dev/null || return 1
    "$INGOT" import --schema "$WORK/fwin_lv.txt" "$WORK/fwin.jsonl" "$WORK/t_fwl" >/dev/null || return 1
    local js
    js=$("$INGOT" inspect --json "$WORK/t_fw")
    jq -e '[.columns[] | select(.name == "r" or .name == "d") | .encodings.slide > 2] | all' <<<"$js" >/dev/null &&
        jq -e '.columns[] | select(.name == "box") | .encodings.slide == null' <<<"$js" >/dev/null ||
        { echo "pages: $js"; return 1; }
    local a b
    a=$(jq '[.columns[] | select(.name == "r") | .stored_bytes] | add' <<<"$js")
    b=$("$INGOT" inspect --json "$WORK/t_fwl" | jq '[.columns[] | select(.name == "r") | .stored_bytes] | add')
    echo "readings: sliding windows $a bytes, level streams $b"
    [ "$((a * 3))" -lt "$((b * 2))" ] || return 1
    cp -r "$WORK/t_fw" "$WORK/t_fwe"
    "$INGOT" erase --row 5 --row 6 --row 1234 --row 3999 "$WORK/t_fwe" >/dev/null || return 1
    "$INGOT" verify "$WORK/t_fwe" >/dev/null || { "$INGOT" verify "$WORK/t_fwe"; return 1; }
    "$PY" - "$INGOT" "$WORK/t_fw" "$WORK/t_fwe" "$WORK/fwin.jsonl" <<'PY' || return 1
import json, random, struct, subprocess, sys
ingot, table, erased, src = sys.argv[1:5]
f32 = lambda x: struct.unpack("<f", struct.pack("<f", x))[0]
def f32s(row):  # float32 columns print their shortest form: compare as float32
    return {k: [f32(x) for x in v] if k in ("r", "box") and v else v for k, v in row.items()}
want = [f32s(json.loads(l)) for l in open(src)]
for col in ("r", "d", "box"):
    got = [f32s({col: json.loads(l)})[col] for l in subprocess.run([ingot, "cat", table, col], capture_output=True, text=True, check=True).stdout.splitlines()]
    assert got == [w[col] for w in want], (col, [i for i, (g, w) in enumerate(zip(got, want)) if g != w[col]][:5])
    gone = (5, 6, 1234, 3999)
    got = [f32s({col: json.loads(l)})[col] for l in subprocess.run([ingot, "cat", erased, col], capture_output=True, text=True, check=True).stdout.splitlines()]
    assert got == [w[col] for i, w in enumerate(want) if i not in gone], col
ids = random.Random(5).sample(range(len(want)), 300)
out = subprocess.run([ingot, "cat", "--rows", ",".join(map(str, ids)), table], capture_output=True, text=True, check=True)
assert [f32s(json.loads(l)) for l in out.stdout.splitlines()] == [want[i] for i in ids]
PY
    if have_fuse; then
        mkdir -p "$WORK/mfw"
        "$INGOT" mount "$WORK/t_fwe" "$WORK/mfw" || return 1
        "$PY" - "$WORK/mfw" "$WORK/fwin.jsonl" <<'PY'
import json, os, random, sys
import numpy as np
m, want = sys.argv[1], [json.loads(l) for l in open(sys.argv[2])]
for i in random.Random(6).sample(range(len(want)), 200) + [5, 1234]:
    if i in (5, 6, 1234, 3999):
        assert not os.path.exists(f"{m}/rows/{i}"), i
        continue
    with open(f"{m}/rows/{i}", "rb") as f:
        got = json.loads(f.read())["r"]
    assert (got is None) == (want[i]["r"] is None) and np.array_equal(np.asarray(got or [], dtype=np.float32), np.asarray(want[i]["r"] or [], dtype=np.float32)), i
vals = np.load(f"{m}/columns/r.values.npy", mmap_mode="r")
live = [x for i, w in enumerate(want) if i not in (5, 6, 1234, 3999) for x in (w["r"] or [])]
assert vals.dtype == np.float32 and (np.asarray(vals) == np.asarray(live, dtype=np.float32)).all()
PY
        local rc=$?
        fusermount3 -u "$WORK/mfw"
        return $rc
    fi
}
check float_windows_slide_and_read_back float_windows

# rows of text's tokens (ids of a 30,000-token vocabulary, phrases recurring,
# rows that do not slide): sliding-window pages whose bulk goes in plain bytes
# under zstd, cut smaller for it; smaller than the bit codes stored as they
# are, every row reads back (whole, by id through the CLI and a mount), and
# erasing rows (the CLI, rm through the mount) keeps the rest and verifies
"$PY" - "$WORK/tok.jsonl" <<'PY'
import json, random, sys
rnd = random.Random(31)
phr = [[int(30000 * rnd.random() ** 3) for _ in range(rnd.randrange(3, 12))] for _ in range(3000)]
with open(sys.argv[1], "w") as out:
    for i in range(12000):
        t = []
        want = rnd.randrange(32, 400)
        while len(t) < want:
            t += phr[int(3000 * rnd.random() ** 2)]
        out.write(json.dumps({"id": i, "tokens": t}) + "\n")
PY
token_rows() {
    printf 'id int64\ntokens list<int64> compression=none\n' >"$WORK/tok_none.txt"
    rm -rf "$WORK/t_tok" "$WORK/t_tokn" "$WORK/t_toke"
    "$INGOT" import "$WORK/tok.jsonl" "$WORK/t_tok" >/dev/null || return 1
    "$INGOT" import --schema "$WORK/tok_none.txt" "$WORK/tok.jsonl" "$WORK/t_tokn" >/dev/null || return 1
    local a b
    a=$("$INGOT" inspect --json "$WORK/t_tok" | jq '.columns[] | select(.name == "tokens") | select(.encodings | keys == ["slide"]) | .stored_bytes')
    b=$("$INGOT" inspect --json "$WORK/t_tokn" | jq '.columns[] | select(.name == "tokens") | .stored_bytes')
    echo "tokens: $a bytes under zstd, $b in bit codes as they are"
    [ -n "$a" ] && [ "$((a * 4))" -lt "$((b * 3))" ] || return 1
    # a row read decompresses its page whole: pages of at most 32,768 values
    local pages values
    pages=$("$INGOT" inspect --json "$WORK/t_tok" | jq '.columns[] | select(.name == "tokens") | .encodings.slide')
    values=$("$PY" -c "import json, sys; print(sum(len(json.loads(l)['tokens']) for l in open(sys.argv[1])))" "$WORK/tok.jsonl")
    echo "$values tokens in $pages pages"
    [ "$((pages * 32768))" -ge "$values" ] || return 1
    "$PY" -c "import random; print('\n'.join(map(str, sorted(random.Random(8).sample(range(12000), 240)))))" >"$WORK/tok.erase"
    cp -r "$WORK/t_tok" "$WORK/t_toke"
    "$INGOT" erase --rows-from "$WORK/tok.erase" "$WORK/t_toke" >/dev/null || return 1
    "$INGOT" verify --deep "$WORK/t_toke" >/dev/null || { "$INGOT" verify "$WORK/t_toke"; return 1; }
    "$PY" - "$INGOT" "$WORK/t_tok" "$WORK/t_toke" "$WORK/tok.jsonl" "$WORK/tok.erase" <<'PY' || return 1
import json, random, subprocess, sys
ingot, table, erased, src, gone = sys.argv[1:6]
want = [json.loads(l)["tokens"] for l in open(src)]
gone = {int(x) for x in open(gone)}
cat = lambda t: [json.loads(l) for l in subprocess.run([ingot, "cat", t, "tokens"], capture_output=True, text=True, check=True).stdout.splitlines()]
assert cat(table) == want
assert cat(erased) == [w for i, w in enumerate(want) if i not in gone]
ids = random.Random(5).sample(range(len(want)), 300)
out = subprocess.run([ingot, "cat", "--rows", ",".join(map(str, ids)), table, "tokens"], capture_output=True, text=True, check=True)
assert [json.loads(l)["tokens"] for l in out.stdout.splitlines()] == [want[i] for i in ids]
PY
    if have_fuse; then
        mkdir -p "$WORK/mtok"
        "$INGOT" mount "$WORK/t_toke" "$WORK/mtok" || return 1
        "$PY" - "$WORK/mtok" "$WORK/tok.jsonl" "$WORK/tok.erase" <<'PY'
import json, os, random, sys
m, want = sys.argv[1], [json.loads(l)["tokens"] for l in open(sys.argv[2])]
gone = {int(x) for x in open(sys.argv[3])}
for i in random.Random(6).sample(range(len(want)), 200) + sorted(gone)[:3]:
    if i in gone:
        assert not os.path.exists(f"{m}/rows/{i}"), i
        continue
    with open(f"{m}/rows/{i}", "rb") as f:
        assert json.loads(f.read())["tokens"] == want[i], i
for i in (7, 4000, 11999):
    if i not in gone:
        os.unlink(f"{m}/rows/{i}")
        assert not os.path.exists(f"{m}/rows/{i}"), i
PY
        local rc=$?
        fusermount3 -u "$WORK/mtok"
        [ $rc = 0 ] || return 1
        "$INGOT" verify --deep "$WORK/t_toke" >/dev/null || { "$INGOT" verify "$WORK/t_toke"; return 1; }
    fi
}
check token_rows_in_bytes_read_and_erase token_rows
# an erase takes the nested columns of its row groups as units its threads
# share, as it does flat leaves: erased on one core (taskset) and on every
# core, the table comes out byte for byte the same, verifies, and reads back
# without the erased rows
nested_units() {
    "$PY" - "$WORK/units.jsonl" <<'PY'
import json, random, sys
rnd = random.Random(53)
with open(sys.argv[1], "w") as out:
    for i in range(6000):
        out.write(json.dumps({"id": i, "tokens": [rnd.randrange(40000) for _ in range(rnd.randrange(20, 90))],
                              "tags": [rnd.choice(["a", "bb", "ccc", "dddd"]) * rnd.randrange(1, 4) for _ in range(rnd.randrange(0, 5))],
                              "s": {"x": i * 3, "y": "v%d" % (i % 97)}}) + "\n")
PY
    printf 'id int64\ntokens list<int64>\ntags list<string>\ns struct<x:int64,y:string>\n' >"$WORK/units.txt"
    "$PY" -c "import random; print('\n'.join(map(str, sorted(random.Random(3).sample(range(6000), 300)))))" >"$WORK/units.erase"
    # six groups; then one group of pages of 2 KiB (chunks of more than 64
    # pages, erased in page ranges side by side where no leaf has a context)
    local how pages
    for how in "--rows-per-group 1000" "--rows-per-group 6000 --page-size 2K"; do
        rm -rf "$WORK/t_un" "$WORK/t_un1" "$WORK/t_unn"
        # shellcheck disable=SC2086
        "$INGOT" import --schema "$WORK/units.txt" $how "$WORK/units.jsonl" "$WORK/t_un" >/dev/null || return 1
        pages=$("$INGOT" inspect --json "$WORK/t_un" | jq '[.columns[] | select(.name == "tokens") | .encodings[]] | add')
        echo "$how: tokens in $pages pages"
        cp -r "$WORK/t_un" "$WORK/t_un1"
        cp -r "$WORK/t_un" "$WORK/t_unn"
        taskset -c 0 "$INGOT" erase --rows-from "$WORK/units.erase" "$WORK/t_un1" >/dev/null || return 1
        "$INGOT" erase --rows-from "$WORK/units.erase" "$WORK/t_unn" >/dev/null || return 1
        for f in "$WORK"/t_un1/part-*.ingot; do
            cmp "$f" "$WORK/t_unn/$(basename "$f")" || return 1
        done
        "$INGOT" verify --deep "$WORK/t_unn" >/dev/null || { "$INGOT" verify "$WORK/t_unn"; return 1; }
    done
    [ "$pages" -gt 128 ] || return 1
    "$PY" - "$INGOT" "$WORK/t_unn" "$WORK/units.jsonl" "$WORK/units.erase" <<'PY'
import json, subprocess, sys
ingot, table, src, gone = sys.argv[1:5]
gone = {int(x) for x in open(gone)}
want = [json.loads(l) for i, l in enumerate(open(src)) if i not in gone]
for col in ("tokens", "tags", "s"):
    got = [json.loads(l) for l in subprocess.run([ingot, "cat", table, col], capture_output=True, text=True, check=True).stdout.splitlines()]
    assert got == [w[col] for w in want], col
PY
}
check erase_nested_columns_side_by_side nested_units
slide_forced_optional_items() {
    # list<int64?> with encoding=slide (format 18): the rows around a NULL
    # item are sliding windows, the NULL item reads back
    printf 'uid int64\nclk list<int64?>? encoding=slide\n' >"$WORK/slide_opt.txt"
    "$PY" - "$WORK/slide.jsonl" >"$WORK/slide_opt.jsonl" <<'PY'
import json, sys
for i, l in enumerate(open(sys.argv[1])):
    r = json.loads(l)
    if i == 1500 and r["clk"]:
        r["clk"][0] = None
    print(json.dumps(r))
PY
    rm -rf "$WORK/t_so"
    "$INGOT" import --schema "$WORK/slide_opt.txt" --rows-per-group 1000 "$WORK/slide_opt.jsonl" "$WORK/t_so" >/dev/null || return 1
    "$INGOT" inspect --json "$WORK/t_so" | jq -e '.columns[] | select(.name == "clk") | .encodings.slide > 0' >/dev/null || return 1
    "$PY" - <("$INGOT" cat "$WORK/t_so" clk) "$WORK/slide_opt.jsonl" <<'PY' || return 1
import json, sys
got = [json.loads(l) for l in open(sys.argv[1])]
want = [json.loads(l)["clk"] for l in open(sys.argv[2])]
assert got == want, [i for i, (g, w) in enumerate(zip(got, want)) if g != w][:5]
assert any(r and None in r for r in got)
PY
    "$INGOT" verify "$WORK/t_so" >/dev/null
}
check slide_forced_where_items_may_be_null slide_forced_optional_items

take_nest() {
    # ingot cat --rows: rows by id from single blocks, nested columns reassembled,
    # a node inside a nested column projected alike its column text
    seq 0 37 2999 | "$INGOT" cat --rows-from - "$WORK/tr" >"$WORK/take.jsonl" || return 1
    "$INGOT" cat --rows 5,1234,2999 "$WORK/tr" doc.links.url id >"$WORK/take_proj.jsonl" || return 1
    "$INGOT" cat "$WORK/tr" doc.links.url >"$WORK/links.txt" || return 1
    "$PY" - "$WORK/take.jsonl" "$WORK/rnd" "$WORK/take_proj.jsonl" "$WORK/links.txt" <<'PY'
import json, sys
got, d, proj, links = sys.argv[1:5]
cols = ["id", "tags", "nums", "grid", "doc", "vec", "deep"]
want = {c: [json.loads(l) for l in open(f"{d}/expect/{c}.jsonl")] for c in cols}
rows = [json.loads(l) for l in open(got)]
assert len(rows) == len(range(0, 3000, 37)), len(rows)
for r, row in zip(range(0, 3000, 37), rows):
    assert list(row) == cols, list(row)
    for c in cols:
        assert row[c] == want[c][r], (r, c, row[c], want[c][r])
lines = open(links).read().split("\n")
for r, line in zip((5, 1234, 2999), open(proj)):
    row = json.loads(line)
    assert list(row) == ["doc.links.url", "id"] and row["id"] == want["id"][r], row
    assert row["doc.links.url"] == json.loads(lines[r]), (r, row, lines[r])
PY
}
check take_rows_nested_and_projected take_nest

take_shared_blocks() {
    # rows that share blocks, asked out of order and twice: runs rendered
    # together, single rows whose nested blocks decode as far as the rows
    # coming next that they hold (a row before the one asked among them),
    # then whole for a row past them; each id's row as the input has it, in
    # the order asked
    local ids="$WORK/take_ids.txt"
    "$PY" -c "
import random
random.seed(11)
ids = [r for s in random.sample(range(0, 2990, 10), 60) for r in range(s, s + random.randint(1, 9))]
ids += random.sample(ids, 40) + [0, 2999, 699, 700]
random.shuffle(ids)
print('\n'.join(map(str, ids)))" >"$ids"
    "$INGOT" cat --rows-from "$ids" "$WORK/tr" >"$WORK/take_shared.jsonl" || return 1
    "$PY" - "$WORK/take_shared.jsonl" "$WORK/rnd" "$ids" <<'PY'
import json, sys
got, d, ids = sys.argv[1:4]
cols = ["id", "tags", "nums", "grid", "doc", "vec", "deep"]
want = {c: [json.loads(l) for l in open(f"{d}/expect/{c}.jsonl")] for c in cols}
ids = [int(l) for l in open(ids)]
rows = [json.loads(l) for l in open(got)]
assert len(rows) == len(ids), (len(rows), len(ids))
for r, row in zip(ids, rows):
    for c in cols:
        assert row[c] == want[c][r], (r, c, row[c], want[c][r])
PY
}
check take_rows_sharing_blocks take_shared_blocks

if ! have_fuse; then skip nested_mount "no /dev/fuse"; exit 0; fi
mkdir -p "$WORK/m"
"$INGOT" mount "$WORK/tr" "$WORK/m"
rows_nest() {
    "$PY" - "$WORK/m" "$WORK/rnd" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2] + "/../../" )
m, d = sys.argv[1], sys.argv[2]
cols = ["id", "tags", "nums", "grid", "doc", "vec", "deep"]
want = {c: [json.loads(l) for l in open(f"{d}/expect/{c}.jsonl")] for c in cols}
for r in range(0, 3000, 37):
    row = json.load(open(f"{m}/rows/{r}"))
    assert list(row) == cols, list(row)
    for c in cols:
        assert row[c] == want[c][r], (r, c, row[c], want[c][r])
for c in cols:
    got = [json.loads(l) for l in open(f"{m}/columns/{c}")]
    assert got == want[c], c
PY
}
check rows_and_columns_nest_through_mount rows_nest
check leaf_projection_files bash -c "ls '$WORK/m/columns' | grep -qx 'doc.links.url' && ls '$WORK/m/columns' | grep -qx 'deep.b.c' && [ \$(wc -l < '$WORK/m/columns/doc.links.url') = 3000 ]"
where_nested() {
    # the mount's control file and `ingot erase --where` refuse a list column alike
    local out
    out=$(bash -c "echo 'tags=[1]' > '$WORK/m/.ingot/erase'" 2>&1) && { echo "accepted"; return 1; }
    grep -q "Invalid argument" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" erase --where 'tags=[1]' "$WORK/tr" 2>&1) && { echo "cli accepted"; return 1; }
    grep -q "column 'tags': nested (list, struct, vector) columns cannot be matched by value" <<<"$out" ||
        { echo "$out"; return 1; }
}
check erase_where_refuses_nested_alike where_nested
fusermount3 -u "$WORK/m"

# --- lists, vectors and quantisation through NumPy
cat >"$WORK/v.txt" <<'S'
id int64
clicks list<int64>?
emb vector<float32, 8>?
h vector<float32, 4> quantize=fp16
b float32 quantize=bf16
e4 float64 quantize=fp8_e4m3
S
"$PY" - "$WORK/v.jsonl" <<'PY'
import json, random, sys
rng = random.Random(5)
with open(sys.argv[1], "w") as f:
    for i in range(4000):
        f.write(json.dumps({
            "id": i,
            "clicks": None if i % 9 == 4 else [rng.randint(0, 10**9) for _ in range(rng.randint(0, 6))],
            "emb": None if i % 11 == 5 else [rng.uniform(-1, 1) for _ in range(8)],
            "h": [rng.uniform(-100, 100) for _ in range(4)],
            "b": rng.uniform(-1e6, 1e6),
            "e4": rng.uniform(-200, 200)}) + "\n")
PY
"$INGOT" import --schema "$WORK/v.txt" --rows-per-group 1500 "$WORK/v.jsonl" "$WORK/tv" >/dev/null 2>&1
mkdir -p "$WORK/mv"
"$INGOT" mount "$WORK/tv" "$WORK/mv"
numpy_views() {
    "$PY" - "$WORK/mv" "$WORK/v.jsonl" <<'PY'
import json, math, sys
import numpy as np
m = sys.argv[1]
rows = [json.loads(l) for l in open(sys.argv[2])]
vals = np.load(f"{m}/columns/clicks.values.npy", mmap_mode="r")
offs = np.load(f"{m}/columns/clicks.offsets.npy")
assert offs.dtype == np.int64 and len(offs) == len(rows) + 1 and offs[0] == 0
for i, r in enumerate(rows):
    assert list(vals[offs[i]:offs[i + 1]]) == (r["clicks"] or []), i
emb = np.load(f"{m}/columns/emb.npy", mmap_mode="r")
valid = np.load(f"{m}/columns/emb.valid.npy")
assert emb.shape == (4000, 8) and emb.dtype == np.float32
for i, r in enumerate(rows):
    if r["emb"] is None:
        assert not valid[i] and np.isnan(emb[i]).all()
    else:
        assert valid[i] and (emb[i] == np.array(r["emb"], dtype=np.float32)).all(), i
h = np.load(f"{m}/columns/h.npy")
h16 = np.load(f"{m}/columns/h.f16.npy")
want16 = np.array([r["h"] for r in rows], dtype=np.float32).astype(np.float16)  # vectors hold float32; then RNE
assert h16.dtype == np.float16 and (h16 == want16).all()
assert (h == want16.astype(np.float32)).all()
b = np.load(f"{m}/columns/b.npy")
x = np.array([r["b"] for r in rows], dtype=np.float32)
# bf16 = float32 rounded to its top 16 bits, ties to even
bits = x.view(np.uint32).astype(np.uint64)
rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16).astype(np.uint32).view(np.float32)
assert (b == rounded).all()
e4 = np.load(f"{m}/columns/e4.npy")
src = np.array([r["e4"] for r in rows])
rel = np.abs(e4 - src) / np.abs(src)
assert e4.dtype == np.float32 and rel.max() <= 2**-4 * (1 + 1e-9), rel.max()
PY
}
check numpy_lists_vectors_quantised numpy_views
fusermount3 -u "$WORK/mv"

# --- erasure of nested, vector and quantised rows
erase_nested() {
    rm -rf "$WORK/te"; cp -r "$WORK/tr" "$WORK/te"
    "$INGOT" erase --row 5 --row 1234 --row 2999 "$WORK/te" >/dev/null || return 1
    "$INGOT" verify "$WORK/te" >/dev/null || { "$INGOT" verify "$WORK/te"; return 1; }
    "$PY" - <("$INGOT" cat "$WORK/te" deep) "$WORK/rnd/expect/deep.jsonl" <<'PY' || return 1
import json, sys
got = [json.loads(l) for l in open(sys.argv[1])]
want = [json.loads(l) for i, l in enumerate(open(sys.argv[2])) if i not in (5, 1234, 2999)]
assert got == want
PY
    rm -rf "$WORK/tve"; cp -r "$WORK/tv" "$WORK/tve"
    "$INGOT" erase --row 0 --row 3999 "$WORK/tve" >/dev/null && "$INGOT" verify "$WORK/tve" >/dev/null
}
check erase_nested_vector_quantised erase_nested

# a listing's row sizes (measured a run of rows at a time) on tables with
# nested records, lists, vectors, quantised floats and erased rows: each is
# the row's bytes
listing_sizes() {
    local t rc=0
    for t in te tve; do
        mkdir -p "$WORK/ml"
        "$INGOT" mount "$WORK/$t" "$WORK/ml" || return 1
        "$PY" - "$WORK/ml" <<'PY' || rc=1
import subprocess, sys
m = sys.argv[1]
listed = subprocess.run(["find", f"{m}/rows", "-mindepth", "1", "-printf", "%f %s\n"],
                        capture_output=True, text=True, check=True).stdout.split()
sizes = dict(zip(listed[0::2], map(int, listed[1::2])))
assert len(sizes) > 1000, len(sizes)
for name, size in sizes.items():
    with open(f"{m}/rows/{name}", "rb") as f:
        got = len(f.read())
    assert got == size, (m, name, size, got)
PY
        fusermount3 -u "$WORK/ml" || return 1
    done
    return $rc
}
check rows_listing_sizes_nested_erased listing_sizes

# --- byte-stream split: float vectors stored plane by plane, then zstd
split_vectors() {
    "$PY" -c '
import numpy as np
rng = np.random.default_rng(7)
np.save("'"$WORK"'/sv.npy", (rng.standard_normal((20000, 64)) * 0.036).astype(np.float32))'
    printf 'emb vector<float32, 64> encoding=split\n' >"$WORK/split.txt"
    printf 'emb vector<float32, 64> encoding=plain\n' >"$WORK/plain.txt"
    "$INGOT" import --schema "$WORK/split.txt" "$WORK/sv.npy" "$WORK/tsp" >/dev/null || return 1
    "$INGOT" import --schema "$WORK/plain.txt" "$WORK/sv.npy" "$WORK/tpl" >/dev/null || return 1
    # split pages, compressed, at least 10% under the plain table
    "$INGOT" inspect --json "$WORK/tsp" | jq -e '.columns[0] | (.encodings | keys) == ["split"] and .zstd_pages > 0' >/dev/null || return 1
    local sp pl
    sp=$("$INGOT" inspect --json "$WORK/tsp" | jq '.columns[0].stored_bytes')
    pl=$("$INGOT" inspect --json "$WORK/tpl" | jq '.columns[0].stored_bytes')
    [ "$sp" -lt $((pl * 9 / 10)) ] || { echo "split $sp bytes, plain $pl"; return 1; }
    # erase two rows in place; verify proves it; the mount reads the rest exactly
    "$INGOT" erase --row 0 --row 12345 "$WORK/tsp" >/dev/null || return 1
    "$INGOT" verify "$WORK/tsp" >/dev/null || return 1
    mkdir -p "$WORK/msp"
    "$INGOT" mount "$WORK/tsp" "$WORK/msp" || return 1
    "$PY" - "$WORK/msp" "$WORK/sv.npy" <<'PY'
import sys
import numpy as np
got = np.load(f"{sys.argv[1]}/columns/emb.npy", mmap_mode="r")
want = np.delete(np.load(sys.argv[2]), [0, 12345], axis=0)
assert got.shape == want.shape and (got == want).all()
PY
    local rc=$?
    fusermount3 -u "$WORK/msp"
    return $rc
}
check split_vectors_smaller_erasable split_vectors

# --- the writer's own choice for such vectors (format 20): expo, each float's
# exponent under a Huffman code, in blocks a row read decodes alone; smaller
# than split's compressed pages; erased in place; the mount reads it exactly
expo_vectors() {
    printf 'emb vector<float32, 64>\n' >"$WORK/expo.txt"
    rm -rf "$WORK/tex"
    "$INGOT" import --schema "$WORK/expo.txt" "$WORK/sv.npy" "$WORK/tex" >/dev/null || return 1
    "$INGOT" inspect --json "$WORK/tex" | jq -e '.columns[0] | (.encodings | keys) == ["expo"] and .zstd_pages == 0' >/dev/null || return 1
    local ex sp pl
    ex=$("$INGOT" inspect --json "$WORK/tex" | jq '.columns[0].stored_bytes')
    sp=$("$INGOT" inspect --json "$WORK/tsp" | jq '.columns[0].stored_bytes')
    pl=$("$INGOT" inspect --json "$WORK/tpl" | jq '.columns[0].stored_bytes')
    [ "$ex" -lt $((pl * 88 / 100)) ] && [ "$ex" -lt "$sp" ] || { echo "expo $ex bytes, split $sp, plain $pl"; return 1; }
    "$INGOT" cat --rows 4321 "$WORK/tex" >"$WORK/tex.row" || return 1
    "$INGOT" erase --row 0 --row 12345 "$WORK/tex" >/dev/null || return 1
    "$INGOT" verify --deep "$WORK/tex" >/dev/null || return 1
    mkdir -p "$WORK/mex"
    "$INGOT" mount "$WORK/tex" "$WORK/mex" || return 1
    "$PY" - "$WORK/mex" "$WORK/sv.npy" "$WORK/tex.row" <<'PY'
import json, sys
import numpy as np
got = np.load(f"{sys.argv[1]}/columns/emb.npy", mmap_mode="r")
src = np.load(sys.argv[2])
want = np.delete(src, [0, 12345], axis=0)
assert got.shape == want.shape and np.array_equal(np.asarray(got).view(np.uint32), want.view(np.uint32))
row = json.load(open(sys.argv[3]))["emb"]
assert np.array_equal(np.array(row, dtype=np.float32), src[4321])
with open(f"{sys.argv[1]}/rows/4321", "rb") as f:
    assert json.loads(f.read())["emb"] == row
PY
    local rc=$?
    fusermount3 -u "$WORK/mex"
    return $rc
}
check expo_vectors_erased_in_place_and_read_exactly expo_vectors

# --- a vector column's .npy served from the part's own bytes: plain pages of
# vectors (no NULL vector, no erased row) are the .npy's rows as they are,
# checked once and copied from the mapping with no decoding. An array mapped
# before an erase keeps its shape (the erased row reads NaN, from the page now
# decoded); one opened after has the row gone; a damaged page is EIO.
vector_npy_mapped() {
    rm -rf "$WORK/tvm"; cp -r "$WORK/tpl" "$WORK/tvm"
    "$INGOT" inspect --json "$WORK/tvm" | jq -e '.columns[0] | (.encodings | keys) == ["plain"]' >/dev/null ||
        { echo "the vector pages are not plain"; return 1; }
    mkdir -p "$WORK/mvm"
    "$INGOT" mount "$WORK/tvm" "$WORK/mvm" || return 1
    "$PY" - "$WORK/mvm" "$WORK/sv.npy" <<'PY'
import os, sys
import numpy as np
m, src = sys.argv[1], np.load(sys.argv[2])
before = np.load(f"{m}/columns/emb.npy", mmap_mode="r")
assert before.shape == src.shape and np.array_equal(before.view(np.uint32), src.view(np.uint32))
os.remove(f"{m}/rows/777")
old = np.array(before)  # read again after the erase: same shape, row 777 erased
assert old.shape == src.shape and np.isnan(old[777]).all()
assert np.array_equal(np.delete(old, 777, axis=0), np.delete(src, 777, axis=0))
after = np.load(f"{m}/columns/emb.npy", mmap_mode="r")
assert np.array_equal(after, np.delete(src, 777, axis=0))
PY
    local rc=$?
    fusermount3 -u "$WORK/mvm"
    [ $rc = 0 ] || return 1
    # one byte in the middle of the part (a page of floats) flipped: reads of
    # that page fail, the rest do not
    local off=$(($(stat -c %s "$WORK/tvm/part-000000.ingot") / 2))
    "$PY" -c "
f = open('$WORK/tvm/part-000000.ingot', 'r+b'); f.seek($off); b = f.read(1); f.seek($off); f.write(bytes([b[0] ^ 0x55]))"
    "$INGOT" mount "$WORK/tvm" "$WORK/mvm" || return 1
    "$PY" - "$WORK/mvm" <<'PY'
import errno, sys
f = open(f"{sys.argv[1]}/columns/emb.npy", "rb", buffering=0)
size, bad, good = f.seek(0, 2), 0, 0
for at in range(0, size, 1 << 16):
    try:
        f.seek(at); f.read(4096); good += 1
    except OSError as e:
        assert e.errno == errno.EIO, e
        bad += 1
assert bad >= 1 and good > bad, (bad, good)
PY
    rc=$?
    fusermount3 -u "$WORK/mvm"
    return $rc
}
check vector_npy_served_from_part vector_npy_mapped
schema_names_slide() {
    # schema.json names every page encoding of a column, the page-level "slide" too
    mkdir -p "$WORK/msl"
    "$INGOT" mount "$WORK/t_slide" "$WORK/msl" || return 1
    jq -e '.columns[] | select(.name == "clk") | .encodings | index("slide") != null' \
        "$WORK/msl/schema.json" >/dev/null
    local rc=$?
    [ $rc -eq 0 ] || jq -c '.columns[] | select(.name == "clk")' "$WORK/msl/schema.json"
    fusermount3 -u "$WORK/msl"
    return $rc
}
check schema_json_names_slide_pages schema_names_slide
