#!/usr/bin/env bash
# ingot import / cat / inspect / verify, driven like a user would, against
# expectations computed independently in Python (render.py).
source "$(dirname "$0")/lib.sh"
GEN="$PY $ROOT/tests/integration/gen_table.py"
COLS=(id i8 i16 i32 u8 u16 u32 u64 flag f32 f64 label blob "weird, name" const)

# cat every column and compare with the expected files
cat_matches() { # TABLE GENDIR
    local c f bad=0
    for c in "${COLS[@]}"; do
        f=${c//[, ]/_}
        if ! "$INGOT" cat "$1" "$c" | cmp -s - "$2/expect/$f.txt"; then
            echo "column '$c' differs:"; "$INGOT" cat "$1" "$c" | diff - "$2/expect/$f.txt" | head -5
            bad=1
        fi
    done
    return $bad
}

# --- round trips, every type, CSV and JSONL, small pages and groups
$GEN "$WORK/csv" 5000 11 csv >/dev/null
check import_csv_with_schema "$INGOT" import --schema "$WORK/csv/schema.txt" --rows-per-group 1500 \
    --page-size 2048 "$WORK/csv/input.csv" "$WORK/t_csv"
check cat_equals_input_csv cat_matches "$WORK/t_csv" "$WORK/csv"
check verify_fresh_table "$INGOT" verify "$WORK/t_csv"

$GEN "$WORK/jl" 5000 12 jsonl >/dev/null
check import_jsonl_with_schema "$INGOT" import --format jsonl --schema "$WORK/jl/schema.txt" \
    "$WORK/jl/input.jsonl" "$WORK/t_jl"
check cat_equals_input_jsonl cat_matches "$WORK/t_jl" "$WORK/jl"

# --- groups: cat --group G is exactly that group's rows
group_ok() {
    local n
    n=$("$INGOT" inspect --json "$WORK/t_csv" | jq '.row_groups')
    [ "$n" = 4 ] || { echo "expected 4 groups, got $n"; return 1; }
    for g in 0 1 2 3; do
        "$INGOT" cat --group $g "$WORK/t_csv" id | cmp -s - <(seq $((g * 1500)) $(((g + 1) * 1500 - 1)) | head -n 1500 | awk '$1 < 5000') \
            || { echo "group $g differs"; return 1; }
    done
}
check cat_group group_ok
expect_fail cat_group_out_of_range "$INGOT" cat --group 4 "$WORK/t_csv" id
expect_fail cat_unknown_column "$INGOT" cat "$WORK/t_csv" nosuch

# --- inference
cat >"$WORK/infer.csv" <<'CSV'
n,x,b,s,e
1,1.5,true,hello,
-2,2,F,"quoted, comma",
3,NaN,1,x,
CSV
infer_ok() {
    "$INGOT" import "$WORK/infer.csv" "$WORK/t_infer" || return 1
    local types
    types=$("$INGOT" inspect --json "$WORK/t_infer" | jq -r '[.columns[] | .type] | join(",")')
    [ "$types" = "int64,float64,bool,string,string" ] || { echo "inferred $types"; return 1; }
    [ "$("$INGOT" cat "$WORK/t_infer" x | tr '\n' ' ')" = "1.5 2.0 NaN " ] || return 1
    [ "$("$INGOT" cat "$WORK/t_infer" e | tr '\n' ' ')" = '\N \N \N ' ] || return 1
}
check infer_csv_types infer_ok
printf '{"a": 1, "b": "x", "c": true, "d": 1.5}\n{"a": 2, "d": 3}\n' >"$WORK/infer.jsonl"
infer_jsonl_ok() {
    "$INGOT" import "$WORK/infer.jsonl" "$WORK/t_ij" || return 1
    local types
    types=$("$INGOT" inspect --json "$WORK/t_ij" | jq -r '[.columns[] | .type] | join(",")')
    [ "$types" = "int64,string,bool,float64" ] || { echo "inferred $types"; return 1; }
    [ "$("$INGOT" cat "$WORK/t_ij" d | tr '\n' ' ')" = "1.5 3.0 " ]
}
check infer_jsonl_types infer_jsonl_ok

# --- append: a new part, row ids continue, the old part untouched
append_ok() {
    local before after
    before=$(sha256sum "$WORK/t_csv/part-000000.ingot")
    "$INGOT" import --append --rows-per-group 1500 "$WORK/csv/input.csv" "$WORK/t_csv" || return 1
    after=$(sha256sum "$WORK/t_csv/part-000000.ingot")
    [ "$before" = "$after" ] || { echo "part 0 changed"; return 1; }
    local j
    j=$("$INGOT" inspect --json "$WORK/t_csv")
    [ "$(jq '.parts | length' <<<"$j")" = 2 ] || return 1
    [ "$(jq '.parts[1].first_row_id' <<<"$j")" = 5000 ] || return 1
    [ "$(jq '.rows' <<<"$j")" = 10000 ] || return 1
    [ "$(jq '.row_groups' <<<"$j")" = 8 ] || return 1
    # the same values twice, in order; group 4 is the new part's first group
    "$INGOT" cat "$WORK/t_csv" label | cmp -s - <(cat "$WORK/csv/expect/label.txt" "$WORK/csv/expect/label.txt") || return 1
    "$INGOT" cat --group 4 "$WORK/t_csv" id | head -1 | grep -qx 0 || return 1
    "$INGOT" verify "$WORK/t_csv" >/dev/null
}
check append_continues_row_ids append_ok

# --- bad input: FILE:LINE message, non-zero exit, nothing created or changed
bad_case() { # NAME CONTENT EXPECTED-MESSAGE [extra import args]
    local name=$1 content=$2 want=$3; shift 3
    local in="$WORK/bad_$name.${EXT:-csv}" out rc
    printf '%b' "$content" >"$in"
    out=$("$INGOT" import "$@" "$in" "$WORK/t_bad_$name" 2>&1); rc=$?
    if [ $rc -eq 0 ]; then fail "bad_input_$name" "import succeeded"; return; fi
    if ! grep -qF -- "$want" <<<"$out"; then fail "bad_input_$name" "message: $out (want: $want)"; return; fi
    if [ -e "$WORK/t_bad_$name" ] || ls -a "$WORK" | grep -q "t_bad_$name.importing"; then
        fail "bad_input_$name" "table or temp dir left behind"; return
    fi
    pass "bad_input_$name"
}
printf 'a int64\nb string\n' >"$WORK/ab.txt"
bad_case field_count 'a,b\n1,x\n2,y,z\n' "bad_field_count.csv:3:" --schema "$WORK/ab.txt"
bad_case bad_int 'a,b\n1,x\nseven,y\n' "bad_bad_int.csv:3: column 'a'" --schema "$WORK/ab.txt"
bad_case int_overflow 'a,b\n99999999999999999999,x\n' "bad_int_overflow.csv:2: column 'a'" --schema "$WORK/ab.txt"
bad_case bad_utf8 'a,b\n1,\xff\xfe\n' "bad_bad_utf8.csv:2: column 'b': invalid UTF-8" --schema "$WORK/ab.txt"
bad_case unterminated 'a,b\n1,"open\n2,x\n' "bad_unterminated.csv:2" --schema "$WORK/ab.txt"
bad_case null_in_required 'a,b\n,x\n' "bad_null_in_required.csv:2: column 'a'" --schema "$WORK/ab.txt"
bad_case unknown_header 'a,c\n1,x\n' "'c' is not a column" --schema "$WORK/ab.txt"
bad_case inferred_then_text "a\n1\n2\nthree\n" "bad_inferred_then_text.csv:4: column 'a'" --sample-rows 2
EXT=jsonl bad_case json_range '{"a": 300, "b": "x"}\n' "bad_json_range.jsonl:1: column 'a'" --schema <(printf 'a int8\nb string\n')
EXT=jsonl bad_case json_unknown_key '{"a": 1, "b": "x", "zz": 2}\n' "bad_json_unknown_key.jsonl:1: field 'zz'" --schema "$WORK/ab.txt"
EXT=jsonl bad_case json_syntax '{"a": 1, "b": "x"}\n{"a": 2,, }\n' "bad_json_syntax.jsonl:2" --schema "$WORK/ab.txt"
EXT=jsonl bad_case json_fraction_in_int '{"a": 1.5, "b": "x"}\n' "bad_json_fraction_in_int.jsonl:1: column 'a'" --schema "$WORK/ab.txt"
printf "a int64\nb integer\n" >"$WORK/s_bad.txt"
bad_case schema_unknown_type "a\n1\n" "s_bad.txt:2: unknown type" --schema "$WORK/s_bad.txt"
expect_fail import_into_existing_table "$INGOT" import "$WORK/csv/input.csv" "$WORK/t_jl"

append_bad_keeps_table() {
    local before after
    before=$(cd "$WORK/t_jl" && sha256sum * | sort)
    printf '{"id": 1}\n{"id": "x"}\n' >"$WORK/bad_append.jsonl"
    if "$INGOT" import --append "$WORK/bad_append.jsonl" "$WORK/t_jl" 2>/dev/null; then echo "append succeeded"; return 1; fi
    after=$(cd "$WORK/t_jl" && sha256sum * | sort)
    [ "$before" = "$after" ] || { echo "table changed"; return 1; }
    [ -z "$(find "$WORK/t_jl" -name '*.tmp')" ] || { echo "temp file left"; return 1; }
    "$INGOT" verify "$WORK/t_jl" >/dev/null
}
check append_failure_leaves_table_unchanged append_bad_keeps_table

# an interrupted import (Ctrl-C, kill) leaves nothing: no table, no temporary
# directory, and the status of the signal
interrupted_import() {
    "$PY" -c '
import random, sys
r = random.Random(1)
with open(sys.argv[1], "w") as f:
    f.write("a,b,c\n")
    for i in range(3000000): f.write("%d,%d,x%d\n" % (i, r.randrange(1 << 40), i % 97))' "$WORK/big.csv"
    local pid rc i
    "$INGOT" import "$WORK/big.csv" "$WORK/t_int" 2>"$WORK/int.err" &
    pid=$!
    for i in $(seq 200); do # wait until it has started writing
        compgen -G "$WORK/.t_int.importing-*" >/dev/null && break
        sleep 0.05
    done
    kill -INT "$pid"
    wait "$pid"
    rc=$?
    [ "$rc" -eq 130 ] || { echo "exit status $rc"; return 1; }
    grep -q "interrupted; nothing was written" "$WORK/int.err" || { cat "$WORK/int.err"; return 1; }
    [ ! -e "$WORK/t_int" ] || { echo "a table was left"; return 1; }
    ! compgen -G "$WORK/.t_int.importing-*" >/dev/null || { echo "the temporary directory was left"; return 1; }
}
check interrupted_import_leaves_nothing interrupted_import
# what a killed (SIGKILL) import left is removed by the next import into that name,
# unless its process is still alive
stale_imports() {
    mkdir -p "$WORK/.t_st.importing-4194305" "$WORK/.t_st.importing-$$"
    touch "$WORK/.t_st.importing-4194305/part-000000.ingot"
    "$INGOT" import "$WORK/infer.csv" "$WORK/t_st" >/dev/null || return 1
    [ ! -e "$WORK/.t_st.importing-4194305" ] || { echo "a dead import's directory was left"; return 1; }
    [ -d "$WORK/.t_st.importing-$$" ] || { echo "a live process's directory was removed"; return 1; }
    rmdir "$WORK/.t_st.importing-$$"
}
check stale_import_directories_removed stale_imports

# --- corruption: verify names what failed; cat fails cleanly
corrupt_copy() { rm -rf "$WORK/c"; cp -r "$WORK/t_jl" "$WORK/c"; }
page_offset() { # COLUMN-INDEX -> offset of its first page's middle (from inspect + footer knowledge)
    "$PY" - "$WORK/c/part-000000.ingot" "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
foff, fsize = struct.unpack_from("<QQ", d, len(d) - 64)
f = d[foff:foff + fsize]
sec = lambda i: struct.unpack_from("<QQ", f, 80 + 16 * i)
leaves = struct.unpack_from("<I", f, 44)[0]
choff, _ = sec(5)
chk = {12: 64, 9: 40, 6: 16, 2: 8}[max(v for v in (12, 9, 6, 2) if v <= struct.unpack_from("<I", f, 8)[0])]  # chunk record size (FORMAT.md)
first = struct.unpack_from("<I", f, choff + chk * int(sys.argv[2]))[0]
poff, _ = sec(6)
off, cap, stored = struct.unpack_from("<QII", f, poff + 64 * first)
print(off + stored // 2)
PY
}
flip() { # FILE OFFSET: toggle one bit of one byte
    "$PY" -c "import sys;f=open(sys.argv[1],'r+b');f.seek(int(sys.argv[2]));b=f.read(1)[0];f.seek(int(sys.argv[2]));f.write(bytes([b^0x20]))" "$1" "$2"
}
verify_page_flip() {
    corrupt_copy
    flip "$WORK/c/part-000000.ingot" "$(page_offset 11)"
    local out rc
    out=$("$INGOT" verify "$WORK/c"); rc=$?
    [ $rc -eq 1 ] || { echo "verify exit $rc"; return 1; }
    grep -qE "part-000000.ingot: column 'label' row group 0 page [0-9]+: block [0-9]+: checksum mismatch" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" verify --json "$WORK/c")
    jq -e '.ok == false and (.failures | length) >= 1' <<<"$out" >/dev/null || return 1
    out=$("$INGOT" cat "$WORK/c" label 2>&1 >/dev/null); rc=$?
    [ $rc -ne 0 ] && grep -q "checksum mismatch" <<<"$out" || { echo "cat: $rc $out"; return 1; }
    "$INGOT" cat "$WORK/c" id >/dev/null   # other columns still read
}
check verify_catches_flipped_page_byte verify_page_flip
verify_footer_flip() {
    local size off out rc fails=0
    for frac in 10 30 50 70 90 99; do
        corrupt_copy
        size=$(stat -c %s "$WORK/c/part-000000.ingot")
        off=$("$PY" -c "import struct;d=open('$WORK/c/part-000000.ingot','rb').read();fo,fs=struct.unpack_from('<QQ',d,len(d)-64);print(fo+fs*$frac//100)")
        flip "$WORK/c/part-000000.ingot" "$off"
        out=$("$INGOT" verify "$WORK/c" 2>&1); rc=$?
        if [ $rc -ne 1 ] || ! grep -q "part-000000.ingot" <<<"$out"; then echo "footer flip at $frac%: rc=$rc $out"; fails=1; fi
    done
    return $fails
}
check verify_catches_flipped_footer_byte verify_footer_flip
verify_truncated() {
    corrupt_copy
    truncate -s -100 "$WORK/c/part-000000.ingot"
    local out rc
    out=$("$INGOT" verify "$WORK/c" 2>&1); rc=$?
    [ $rc -eq 1 ] && grep -q "part-000000.ingot" <<<"$out" || { echo "rc=$rc $out"; return 1; }
    out=$("$INGOT" cat "$WORK/c" id 2>&1); rc=$?
    [ $rc -eq 2 ] && grep -q "part-000000.ingot" <<<"$out" || { echo "cat rc=$rc $out"; return 1; }
}
check verify_catches_truncated_file verify_truncated
# a column record claiming a vector dimension past the schema's limit (65,536)
# is a corrupt footer, named, before any size is multiplied by it
hostile_dimension() {
    "$PY" -c "
import numpy as np
np.save('$WORK/hd.npy', np.arange(64, dtype=np.float32).reshape(8, 8))" || return 1
    rm -rf "$WORK/hd"
    "$INGOT" import "$WORK/hd.npy" "$WORK/hd" >/dev/null || return 1
    "$PY" - "$WORK/hd/part-000000.ingot" <<'PY' || return 1
import struct, sys
p = sys.argv[1]
d = open(p, "rb").read()
foff, fsize = struct.unpack_from("<QQ", d, len(d) - 64)
coloff = struct.unpack_from("<Q", d, foff + 80)[0]  # section 0: column records, 64 bytes each
at = foff + coloff + 28                             # the first column's dimension (FORMAT.md)
assert struct.unpack_from("<I", d, at)[0] == 8
with open(p, "r+b") as f:
    f.seek(at); f.write(struct.pack("<I", 1 << 31))
PY
    local out rc
    out=$("$INGOT" cat "$WORK/hd" hd 2>&1); rc=$?
    [ $rc -ne 0 ] && grep -q "part-000000.ingot: corrupt footer: column 0 record" <<<"$out" || { echo "cat rc=$rc: $out"; return 1; }
    out=$("$INGOT" verify "$WORK/hd" 2>&1); rc=$?
    [ $rc -ne 0 ] && grep -q "part-000000.ingot" <<<"$out" || { echo "verify rc=$rc: $out"; return 1; }
}
check hostile_vector_dimension_refused hostile_dimension

# --- json outputs are valid JSON
check inspect_json_parses bash -c "'$INGOT' inspect --json '$WORK/t_csv' | jq -e '.columns | length == 15'"
check verify_json_parses bash -c "'$INGOT' verify --json '$WORK/t_csv' | jq -e '.ok == true'"
check import_json_parses bash -c "'$INGOT' import --json '$WORK/infer.csv' '$WORK/t_j2' | jq -e '.rows == 3'"

# --- NumPy .npy input: one column per file, exact values, strict headers
npy_import() {
    "$PY" - "$WORK/npy" <<'PY' || return 1
import numpy as np, os, sys
d = sys.argv[1]; os.makedirs(d, exist_ok=True)
r = np.random.default_rng(3)
np.save(d + "/emb.npy", r.standard_normal((3000, 24)).astype(np.float32))
np.save(d + "/i8.npy", np.array([-128, 0, 127], dtype=np.int8))
np.save(d + "/u64.npy", np.array([0, 2**64 - 1], dtype=np.uint64))
np.save(d + "/f8.npy", np.array([0.1, -0.0, np.nan, np.inf, 1e300]))
np.save(d + "/b.npy", np.array([True, False, True]))
np.save(d + "/fortran.npy", np.asfortranarray(np.ones((3, 2), dtype=np.float32)))
np.save(d + "/big.npy", np.arange(3, dtype=">i4"))
np.save(d + "/cube.npy", np.zeros((2, 2, 2), dtype=np.float32))
np.save(d + "/i2d.npy", np.zeros((2, 2), dtype=np.int32))
PY
    local f
    for f in emb i8 u64 f8 b; do
        "$INGOT" import "$WORK/npy/$f.npy" "$WORK/npy/t_$f" >/dev/null || { echo "import $f"; return 1; }
    done
    [ "$("$INGOT" cat "$WORK/npy/t_i8" i8 | tr '\n' ' ')" = "-128 0 127 " ] || return 1
    [ "$("$INGOT" cat "$WORK/npy/t_u64" u64 | tr '\n' ' ')" = "0 18446744073709551615 " ] || return 1
    [ "$("$INGOT" cat "$WORK/npy/t_f8" f8 | tr '\n' ' ')" = "0.1 -0.0 NaN Infinity 1e+300 " ] || return 1
    [ "$("$INGOT" cat "$WORK/npy/t_b" b | tr '\n' ' ')" = "t f t " ] || return 1
    "$INGOT" inspect --json "$WORK/npy/t_emb" | jq -e '.columns[0].schema_type == "vector<float32, 24>"' >/dev/null || return 1
    # the vector's text is the float32 repr of every element
    "$PY" - "$WORK/npy/emb.npy" <("$INGOT" cat "$WORK/npy/t_emb" emb) <<'PY' || return 1
import json, sys, numpy as np
a = np.load(sys.argv[1])
rows = [json.loads(l) for l in open(sys.argv[2])]
assert len(rows) == len(a)
assert all(np.array(r, dtype=np.float32).tobytes() == x.tobytes() for r, x in zip(rows, a))
PY
    local bad out
    for bad in fortran big cube i2d; do
        out=$("$INGOT" import "$WORK/npy/$bad.npy" "$WORK/npy/t_$bad" 2>&1) && { echo "$bad imported"; return 1; }
        grep -q "$bad.npy" <<<"$out" || { echo "$out"; return 1; }
        [ ! -e "$WORK/npy/t_$bad" ] || { echo "$bad left a table"; return 1; }
    done
    head -c 1000 "$WORK/npy/emb.npy" >"$WORK/npy/short.npy"
    out=$("$INGOT" import "$WORK/npy/short.npy" "$WORK/npy/t_short" 2>&1) && return 1
    grep -q "do not match the file size" <<<"$out"
}
check import_npy npy_import
if have_fuse; then
    npy_mount() {
        mkdir -p "$WORK/npy/m"
        "$INGOT" mount "$WORK/npy/t_emb" "$WORK/npy/m" || return 1
        "$PY" -c "
import numpy as np
a = np.load('$WORK/npy/m/columns/emb.npy', mmap_mode='r'); b = np.load('$WORK/npy/emb.npy')
assert a.shape == b.shape and a.tobytes() == b.tobytes()" ; local rc=$?
        fusermount3 -u "$WORK/npy/m"
        return $rc
    }
    check import_npy_reads_back_through_mount npy_mount
fi

# --- rows by id: ingot cat --rows and ingot erase --rows-from
take_cli() {
    local d="$WORK/take" out rc
    mkdir -p "$d"
    "$PY" -c "
print('id,cap')
for i in range(5000): print(f'{i},\"c{i*7}\"')" >"$d/in.csv"
    "$INGOT" import "$d/in.csv" "$d/t" >/dev/null || return 1
    out=$("$INGOT" cat --rows 4999,3,10-12 "$d/t" cap) || return 1
    [ "$out" = $'{"cap":"c34993"}\n{"cap":"c21"}\n{"cap":"c70"}\n{"cap":"c77"}\n{"cap":"c84"}' ] || { echo "$out"; return 1; }
    printf '10-11\n\n4000\n' >"$d/ids"
    # quiet where stderr is no terminal (a script's log): no progress line
    "$INGOT" erase --rows-from "$d/ids" --row 12,13 "$d/t" >/dev/null 2>"$d/erase.err" || return 1
    [ ! -s "$d/erase.err" ] || { cat "$d/erase.err"; return 1; }
    "$INGOT" verify "$d/t" >/dev/null || return 1
    # a missing row is named, the others still printed, exit 1
    out=$("$INGOT" cat --rows 9,10,14,5000 "$d/t" id 2>&1); rc=$?
    [ $rc = 1 ] || { echo "exit $rc"; return 1; }
    grep -q 'row 10: no such row (erased or out of range)' <<<"$out" || { echo "$out"; return 1; }
    grep -q 'row 5000: no such row' <<<"$out" && grep -qx '{"id":14}' <<<"$out" || { echo "$out"; return 1; }
    [ "$("$INGOT" cat "$d/t" id | wc -l)" = 4995 ] || return 1
    # consecutive live rows are rendered together, every column at once: the
    # same lines as naming the columns (row by row), across row groups, the
    # erased rows named alike
    "$INGOT" import --rows-per-group 700 "$d/in.csv" "$d/g" >/dev/null || return 1
    "$INGOT" erase --row 699,700,1401 "$d/g" >/dev/null || return 1
    "$INGOT" cat --rows 0-2999,2990-2995 "$d/g" >"$d/all" 2>"$d/all.err"; rc=$?
    "$INGOT" cat --rows 0-2999,2990-2995 "$d/g" id cap >"$d/named" 2>"$d/named.err"
    [ $rc = 1 ] && cmp "$d/all" "$d/named" && cmp "$d/all.err" "$d/named.err" || { echo "exit $rc"; return 1; }
    [ "$(wc -l <"$d/all")" = 3003 ] && [ "$(wc -l <"$d/all.err")" = 3 ] || { wc -l "$d/all" "$d/all.err"; return 1; }
    # bad lists name the option or the file and line
    out=$("$INGOT" cat --rows 1,x "$d/t" 2>&1) && return 1
    grep -q -- "--rows: expected row ids like 5,17,100-104, got 'x'" <<<"$out" || { echo "$out"; return 1; }
    printf '1\n7-3\n' >"$d/bad"
    out=$("$INGOT" erase --rows-from "$d/bad" "$d/t" 2>&1) && return 1
    grep -q "bad: line 2: expected a row id or a range A-B, got '7-3'" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" cat --rows 1 "$d/t" nosuch 2>&1) && return 1
    grep -q "nosuch" <<<"$out" || { echo "$out"; return 1; }
}
check take_rows_and_erase_lists take_cli

# a row alone in its blocks reads each fixed-width value alone (a lane: a
# dictionary's code and entry, a bit-packed slot), a row with its neighbour
# decodes the blocks whole: the same text for every type, NULLs, quantised
# floats (bf16, float16), dates, timestamps and decimals among them
take_typed_rows_alone() {
    local d="$WORK/typed"
    mkdir -p "$d"
    "$PY" - "$d" <<'PY' || return 1
import random, sys
d = sys.argv[1]
r = random.Random(11)
with open(f"{d}/in.csv", "w") as f:
    f.write("b,i8,u16,q,h,d,ts,dec,px\n")
    for i in range(300000):
        null = r.random() < 0.05
        f.write(",".join(["" if null else ("true" if r.random() < 0.3 else "false"),
            str(r.randrange(-128, 128)), str(r.randrange(65536)),
            "" if null else f"{r.gauss(0, 1):.5f}", f"{r.randrange(-500, 500) / 8}",
            f"2024-{r.randrange(1, 13):02d}-{r.randrange(1, 29):02d}",
            f"2024-01-01T00:00:{r.randrange(60):02d}.{r.randrange(1000):03d}",
            f"{r.randrange(-99999, 99999) / 100:.2f}",
            "" if null else repr(r.randrange(255) / 255)]) + "\n")
open(f"{d}/schema", "w").write("b bool?\ni8 int8\nu16 uint16\nq float32? quantize=bf16\nh float16\n"
                              "d date\nts timestamp(ms)\ndec decimal(7, 2)\npx float64?\n")
ids = sorted(r.sample(range(299999), 60))
open(f"{d}/alone", "w").write("".join(f"{i}\n" for i in ids))
open(f"{d}/pairs", "w").write("".join(f"{i}-{i + 1}\n" for i in ids))
PY
    "$INGOT" import --schema "$d/schema" "$d/in.csv" "$d/t" >/dev/null || return 1
    "$INGOT" cat --rows-from "$d/alone" "$d/t" >"$d/alone.out" || return 1
    "$INGOT" cat --rows-from "$d/pairs" "$d/t" | awk 'NR % 2 == 1' >"$d/pairs.out" || return 1
    [ "$(wc -l <"$d/alone.out")" = 60 ] && cmp "$d/alone.out" "$d/pairs.out" ||
        { diff "$d/alone.out" "$d/pairs.out" | head -4; return 1; }
    grep -q '"q":null' "$d/alone.out" || { echo "no NULL among the rows"; return 1; }
}
check take_typed_rows_alone take_typed_rows_alone

# long work draws one progress line on a terminal (INGOT_TEST_PROGRESS draws
# every update wherever stderr goes), ending at the whole and erased at the
# end; nothing where stderr is a file
progress_lines() {
    local d="$WORK/prog" err
    mkdir -p "$d"
    "$PY" -c "
print('id,cap')
for i in range(20000): print(f'{i},c{i*7}')" >"$d/in.csv"
    "$INGOT" import --rows-per-group 5000 "$d/in.csv" "$d/t" >/dev/null 2>&1 || return 1
    err=$(INGOT_TEST_PROGRESS=1 "$INGOT" erase --row 10,12000 "$d/t" 2>&1 >/dev/null) || return 1
    grep -qE "erasing: 100% [0-9.]+ [KM]iB of [0-9.]+ [KM]iB" <<<"$err" || { echo "erase: $err"; return 1; }
    [ "${err: -4}" = $'\r\033[K' ] || { echo "erase: line not erased at the end"; return 1; }
    "$PY" -c "import numpy as np; np.save('$d/s.npy', np.arange(19998, dtype=np.int32))" || return 1
    err=$(INGOT_TEST_PROGRESS=1 "$INGOT" add-column "$d/t" "$d/s.npy" 2>&1 >/dev/null) || return 1
    grep -q "add-column: 100% 20000 of 20000 rows" <<<"$err" || { echo "add-column: $err"; return 1; }
    [ "${err: -4}" = $'\r\033[K' ] || { echo "add-column: line not erased at the end"; return 1; }
    err=$("$INGOT" replace-column --name s "$d/t" "$d/s.npy" 2>&1 >/dev/null) || return 1
    [ -z "$err" ] || { echo "replace-column without a terminal: $err"; return 1; }
    # nested columns' leaves count as the flat ones do: the whole is reached
    "$PY" -c "
import json
for i in range(3000): print(json.dumps({'id': i, 'tags': [i, i + 1], 's': {'a': i, 'b': str(i)}}))" >"$d/n.jsonl"
    printf 'id int64\ntags list<int64>\ns struct<a:int64,b:string>\n' >"$d/n.schema"
    "$INGOT" import --format jsonl --schema "$d/n.schema" --rows-per-group 1000 "$d/n.jsonl" "$d/n" \
        >/dev/null 2>&1 || return 1
    err=$(INGOT_TEST_PROGRESS=1 "$INGOT" erase --row 5,2500 "$d/n" 2>&1 >/dev/null) || return 1
    grep -qE "erasing: 100% " <<<"$err" || { echo "nested erase: $err"; return 1; }
    "$INGOT" verify "$d/n" >/dev/null || return 1
    # a .npy is read at offsets, not from the file's position: its line moves
    # by the rows' bytes, every 65,536 rows, to the whole
    "$PY" -c "import numpy as np; np.save('$d/big.npy', np.arange(200000, dtype=np.int32))" || return 1
    err=$(INGOT_TEST_PROGRESS=1 "$INGOT" import "$d/big.npy" "$d/bn" 2>&1 >/dev/null) || return 1
    grep -qE "importing [^ ]*big.npy: +(3[0-9]|6[0-9])% .*, (65536|131072) rows" <<<"$err" ||
        { echo "npy import: $(tr '\r' '\n' <<<"$err")"; return 1; }
    grep -qE "importing [^ ]*big.npy: 100% .*, 200000 rows" <<<"$err" || { echo "npy import: no whole"; return 1; }
    # gc's zero-fill of the pages no version kept shows
    [ "$("$INGOT" drop-column --json "$d/t" s | jq -c '[.columns, .version > 1]')" = '[1,true]' ] ||
        { echo "drop-column --json"; return 1; }
    err=$(INGOT_TEST_PROGRESS=1 "$INGOT" gc --keep 1 "$d/t" 2>&1 >/dev/null) || return 1
    grep -qE "gc: 100% [0-9.]+ [KM]iB of [0-9.]+ [KM]iB" <<<"$err" || { echo "gc: $err"; return 1; }
    [ "${err: -4}" = $'\r\033[K' ] || { echo "gc: line not erased at the end"; return 1; }
    "$INGOT" verify "$d/t" >/dev/null
}
check progress_lines_of_long_work progress_lines

# a range of rows reads each block once: the strings of a row are read alone
# (one small read for a random row), but a second row of the same block decodes
# the block whole, and the blocks are advised to the kernel once, not once per
# row (a range of 300 rows of 10,000 columns was 3,000,000 fadvise and
# 1,000,000 pread calls, 4.5 s; now 10,000 and 13,000, 0.6 s)
take_range() {
    local d="$WORK/take_range" out preads advice
    mkdir -p "$d"
    "$PY" -c "
print('id,' + ','.join(f's{k}' for k in range(100)))
for i in range(3000): print(f'{i},' + ','.join(f'v{i * (k + 1)}' for k in range(100)))" >"$d/in.csv"
    "$INGOT" import "$d/in.csv" "$d/t" >/dev/null || return 1
    # (LeakSanitizer cannot run under ptrace: off for an ASan build)
    ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e trace=pread64,fadvise64 -o "$d/trace" "$INGOT" cat --rows 0-2999 "$d/t" >"$d/out" || return 1
    "$PY" -c "
import json, sys
for i, line in enumerate(open(sys.argv[1])):
    row = json.loads(line)
    assert row == {'id': i, **{f's{k}': f'v{i * (k + 1)}' for k in range(100)}}, (i, line[:80])
assert i == 2999, i" "$d/out" || return 1
    preads=$(grep -c pread64 "$d/trace") advice=$(grep -c fadvise64 "$d/trace")
    # 101 columns of ~8 blocks each: a few thousand calls at most (was 300,000 and 303,000)
    [ "$preads" -le 4040 ] && [ "$advice" -le 2020 ] || { echo "preads $preads, fadvise $advice"; return 1; }
}
check take_range_reads_each_block_once take_range

# --- a CLI a person can learn: help, version, man pages, completion
help_complete() {
    local out cmd
    out=$("$INGOT" help) || return 1
    # every command the binary dispatches is listed, documented in the man page,
    # and has its own help with an example
    for cmd in import inspect cat verify erase mount umount; do
        grep -qE "^  $cmd " <<<"$out" || { echo "help lacks $cmd"; return 1; }
        "$INGOT" help "$cmd" | grep -q "^example:" || { echo "help $cmd lacks an example"; return 1; }
        "$INGOT" "$cmd" --help | grep -q "usage: ingot $cmd" || { echo "$cmd --help"; return 1; }
        man -l "$INGOT_ROOT/docs/man/ingot.1" 2>/dev/null | grep -qE "^ +$cmd( |$)" ||
            { echo "man page lacks $cmd"; return 1; }
    done
    out=$("$INGOT" help nosuch 2>&1) && return 1
    grep -q "help: unknown command 'nosuch'" <<<"$out" || { echo "$out"; return 1; }
    "$INGOT" --version | grep -qE "^ingot [0-9.]+ \(writes format version ([0-9]+); reads versions 2 to \1\)$" ||
        { "$INGOT" --version; return 1; }
    man -l "$INGOT_ROOT/docs/man/ingot-mount.1" 2>/dev/null | grep -q "erase_group=G" || return 1
    # the mount page names every -o option the binary takes
    for opt in allow_other erase_group cache_mb threads spin_us readahead_kb poll_ms no_inotify; do
        "$INGOT" mount --help | grep -q "$opt" || { echo "mount --help lacks $opt"; return 1; }
        man -l "$INGOT_ROOT/docs/man/ingot-mount.1" 2>/dev/null | grep -q "$opt" || { echo "man lacks $opt"; return 1; }
    done
    # the mount page says that a table on object storage mounts too, and how it reads
    man -l "$INGOT_ROOT/docs/man/ingot-mount.1" 2>/dev/null | grep -q "^OBJECT STORAGE" || { echo "mount page lacks OBJECT STORAGE"; return 1; }
    man -l "$INGOT_ROOT/docs/man/ingot-mount.1" 2>/dev/null | grep -q "s3://BUCKET/PREFIX" || { echo "mount page lacks s3://"; return 1; }
    # every option a command's --help names is in a man page
    local pages opt2
    pages=$(man -l "$INGOT_ROOT/docs/man/ingot.1" "$INGOT_ROOT/docs/man/ingot-mount.1" 2>/dev/null)
    for cmd in import inspect cat verify erase add-column replace-column update drop-column rename-column move-column \
        restore-columns versions tag gc mount umount; do
        for opt2 in $("$INGOT" "$cmd" --help 2>&1 | grep -oE -- "--[a-z][a-z0-9-]+" | sort -u); do
            grep -qF -- "$opt2" <<<"$pages" || { echo "man pages lack $cmd $opt2"; return 1; }
        done
    done
    # every setting the code reads from the environment is in ingot(1)'s
    # ENVIRONMENT, but the test suite's own hooks (fault and pause points)
    local var
    for var in $(grep -rhoE '"INGOT_[A-Z0-9_]+"' "$INGOT_ROOT/src" | tr -d '"' | sort -u); do
        case $var in INGOT_TEST_* | INGOT_FAULT_AFTER | INGOT_PAUSE_AFTER) continue ;; esac
        grep -q "$var" "$INGOT_ROOT/docs/man/ingot.1" || { echo "ingot.1 lacks $var"; return 1; }
    done
}
check cli_help_version_man help_complete

completion() {
    # the completion function, called as bash calls it
    PATH="$(dirname "$INGOT"):$PATH" bash -c '
        . "$1/scripts/completion/ingot.bash"
        COMP_WORDS=(ingot er); COMP_CWORD=1; _ingot; [ "${COMPREPLY[*]}" = erase ] || { echo "cmd: ${COMPREPLY[*]}"; exit 1; }
        COMP_WORDS=(ingot erase --ro); COMP_CWORD=2; _ingot; [ "${COMPREPLY[*]}" = "--row --rows-from" ] || { echo "opt: ${COMPREPLY[*]}"; exit 1; }
        COMP_WORDS=(ingot cat "$2" do); COMP_CWORD=3; _ingot
        [ "${COMPREPLY[*]}" = "doc doc.name doc.score" ] || { echo "col: ${COMPREPLY[*]}"; exit 1; }
        COMP_WORDS=(ingot erase "$2" --where i); COMP_CWORD=4; _ingot
        [ "${COMPREPLY[*]}" = "id= " ] || [ "${COMPREPLY[*]}" = "id=" ] || { echo "where: ${COMPREPLY[*]}"; exit 1; }
        COMP_WORDS=(ingot g); COMP_CWORD=1; _ingot; [ "${COMPREPLY[*]}" = gc ] || { echo "gc: ${COMPREPLY[*]}"; exit 1; }
        COMP_WORDS=(ingot gc --k); COMP_CWORD=2; _ingot; [ "${COMPREPLY[*]}" = --keep ] || { echo "gc opt: ${COMPREPLY[*]}"; exit 1; }
        COMP_WORDS=(ingot drop-column "$2" do); COMP_CWORD=3; _ingot
        [ "${COMPREPLY[*]}" = "doc doc.name doc.score" ] || { echo "drop: ${COMPREPLY[*]}"; exit 1; }
        # every command ingot help lists is completed
        for c in $(ingot help | sed -n "s/^  \([a-z-]*\) .*/\1/p"); do
            COMP_WORDS=(ingot "$c"); COMP_CWORD=1; _ingot
            [[ " ${COMPREPLY[*]} " == *" $c "* ]] || { echo "not completed: $c"; exit 1; }
        done
    ' _ "$INGOT_ROOT" "$INGOT_ROOT/tests/golden/v4/nested"
}
check cli_bash_completion completion

errors_name_command() {
    local out
    out=$("$INGOT" cat "$WORK/nonexistent" x 2>&1) && return 1
    grep -q "^ingot: cat: .*nonexistent" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" inspect "$WORK/nonexistent" 2>&1) && return 1
    grep -q "^ingot: inspect: .*nonexistent" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" import --format xml a b 2>&1) && return 1
    grep -q "^ingot: import: --format: expected csv, jsonl, npy or parquet, got 'xml'" <<<"$out" || { echo "$out"; return 1; }
    out=$("$INGOT" nosuch 2>&1) && return 1
    grep -q "unknown command 'nosuch'" <<<"$out" || { echo "$out"; return 1; }
    # a writer given no table says so (not a lock it could not make)
    local cmd
    for cmd in "rename-column T a b" "drop-column T a" "erase --row 1 T" "gc --keep 1 T"; do
        out=$("$INGOT" ${cmd//T/$WORK/nonexistent} 2>&1) && return 1
        grep -q "^ingot: ${cmd%% *}: .*nonexistent: no such table" <<<"$out" || { echo "$out"; return 1; }
    done
    # nor does one given a directory that is no table leave anything in it
    mkdir -p "$WORK/not-a-table"
    printf 'a\n1\n' >"$WORK/nt.csv"
    for cmd in "rename-column T a b" "drop-column T a" "erase --row 1 T" "gc --keep 1 T" "tag T v 1" "import --append CSV T"; do
        cmd=${cmd//T/$WORK/not-a-table}
        out=$("$INGOT" ${cmd//CSV/$WORK/nt.csv} 2>&1) && return 1
        grep -q "^ingot: ${cmd%% *}: .*not-a-table: not an ingot table (no MANIFEST)" <<<"$out" || { echo "$out"; return 1; }
    done
    [ -z "$(ls -A "$WORK/not-a-table")" ] || { ls -A "$WORK/not-a-table"; return 1; }
}
check cli_errors_name_command_and_input errors_name_command

# verify --deep also checks the text lengths (every value rendered); plain verify
# checks storage only and is several times faster; both pass on a good table
verify_deep() {
    local out
    out=$("$INGOT" verify --deep "$WORK/take/t") || { echo "$out"; return 1; }
    grep -q ": ok (" <<<"$out" || return 1
    "$INGOT" verify --deep --json "$WORK/take/t" | grep -q '"ok":true' || return 1
    "$INGOT" help verify | grep -q -- "--deep" || return 1
}
check verify_deep_checks_text_lengths verify_deep

# verify checks row groups on every core: damage in several groups is reported
# in group order, the same on every run
verify_order() {
    local d="$WORK/vorder" sz off a b
    mkdir -p "$d"
    # values that do not compress: the pages, not the footer, fill the file,
    # so the three offsets below land in three pages
    awk 'BEGIN { srand(7); print "n"; for (i = 0; i < 40000; i++) printf "%.0f\n", rand() * 1e15 }' >"$d/n.csv"
    "$INGOT" import --rows-per-group 10000 "$d/n.csv" "$d/t" >/dev/null 2>&1 || return 1
    sz=$(stat -c %s "$d/t/part-000000.ingot")
    for off in 300 $((sz / 2)) $((sz * 3 / 4)); do
        printf '\xff' | dd of="$d/t/part-000000.ingot" bs=1 seek=$off conv=notrunc status=none
    done
    a=$("$INGOT" verify "$d/t") && return 1
    b=$("$INGOT" verify "$d/t")
    [ "$a" = "$b" ] || { echo "runs differ"; return 1; }
    [ "$(grep -c '^FAIL' <<<"$a")" = 3 ] || { echo "$a"; return 1; }
    # the groups named are in ascending order
    grep -o 'row group [0-9]*' <<<"$a" | awk '{print $3}' | sort -n -c || { echo "$a"; return 1; }
}
check verify_reports_groups_in_order verify_order

# One damaged block is one failure: what verify recounts over a chunk's blocks
# (a value dictionary's entry uses, FSST symbol uses, dictionary segments) and
# a nested column's text, read again, are not reported as more damage when a
# block of the chunk could not be read
verify_damage_once() {
    local d="$WORK/vonce" leaf pg off out n bad=0
    mkdir -p "$d"
    "$PY" - "$d" <<'PY' || return 1
import json, random, sys
r = random.Random(7)
voc = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(3, 9))) for _ in range(400)]
names = [f"{r.choice(voc).title()} {r.choice(voc).title()} <{r.choice(voc)}@{r.choice(voc)}.org>" for _ in range(60)]
tags = [f"{r.choice(voc)}::{r.choice(voc)}" for _ in range(50)]
with open(sys.argv[1] + "/in.jsonl", "w") as f:
    for i in range(20000):
        f.write(json.dumps({"id": i, "maint": r.choice(names), "digest": "%032x" % r.getrandbits(128),
                            "text": " ".join(r.choice(voc) for _ in range(r.randint(5, 15))),
                            "tags": [r.choice(tags) for _ in range(r.randint(0, 4))]}) + "\n")
open(sys.argv[1] + "/schema.txt", "w").write("id int64\nmaint string\ndigest string\ntext string\ntags list<string>\n")
PY
    "$INGOT" import --format jsonl --schema "$d/schema.txt" "$d/in.jsonl" "$d/t" >/dev/null 2>&1 || return 1
    # the test means something only if value dictionaries are there to recount
    "$INGOT" inspect --json "$d/t" | jq -e '[.columns[] | select(.name == "maint" or .name == "tags") | .encodings.vdict] | all(. > 0)' >/dev/null || { echo "no vdict chosen"; return 1; }
    # every leaf: the middle of its first and of its last page flipped
    for leaf in 0 1 2 3 4; do
        "$PY" - "$d/t/part-000000.ingot" "$leaf" >"$d/pages" <<'PY' || return 1
import struct, sys
d = open(sys.argv[1], "rb").read()
foff, fsize = struct.unpack_from("<QQ", d, len(d) - 64)
f = d[foff:foff + fsize]
sec = lambda i: struct.unpack_from("<QQ", f, 80 + 16 * i)
chk = {12: 64, 9: 40, 6: 16, 2: 8}[max(v for v in (12, 9, 6, 2) if v <= struct.unpack_from("<I", f, 8)[0])]
first, count = struct.unpack_from("<II", f, sec(5)[0] + chk * int(sys.argv[2]))
for pg in sorted({first, first + count - 1}):
    off, cap, stored = struct.unpack_from("<QII", f, sec(6)[0] + 64 * pg)
    print(pg, off + stored // 2)
PY
        while read -r pg off; do
            rm -rf "$d/c"; cp -r "$d/t" "$d/c"
            flip "$d/c/part-000000.ingot" "$off"
            out=$("$INGOT" verify --deep "$d/c")
            n=$(grep -c '^FAIL' <<<"$out")
            [ "$n" = 1 ] || { echo "leaf $leaf page $pg: $n failures"; echo "$out"; bad=1; }
        done <"$d/pages"
    done
    return $bad
}
check verify_reports_one_damage_once verify_damage_once
