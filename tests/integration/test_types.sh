#!/usr/bin/env bash
# Logical types end to end (docs/FORMAT.md, "Logical types"): a DuckDB-written
# Parquet file with DATE, TIME, TIMESTAMP, TIMESTAMPTZ, DECIMAL and UUID
# columns imports as those types; rows/ID shows ISO dates; DuckDB reading the
# mount's parquet/*.parquet sees the same column types and the same rows
# (EXCEPT ALL both ways, before and after an erase); apache-arrow reads the
# Arrow views' types; NumPy loads columns/NAME.npy as datetime64. CSV inference and ISO-8601 offsets; a typo
# in a schema file's type and a Parquet DECIMAL whose scale is above its
# precision are refused naming the file, the column and the annotation.
source "$(dirname "$0")/lib.sh"
PQ=$ROOT/tests/parquet
have_fuse || { skip types "no /dev/fuse"; exit 0; }
need_duckdb types || exit 0

node "$PQ/types.mjs" write "$WORK/src.parquet" || { fail types "DuckDB could not write the source"; exit 0; }
"$INGOT" import "$WORK/src.parquet" "$WORK/t" >/dev/null || { fail types "import failed"; exit 0; }
mkdir -p "$WORK/m"

schema_types() {
    local want got
    want='id int64? day date? edge date? tod time(us)? ts timestamp(us)? tstz timestamp(us, UTC)? ts_ms timestamp(ms)? ts_ns timestamp(ns)? dec7 decimal(7, 2)? dec12 decimal(12, 2)? dec38 decimal(38, 10)? u uuid?'
    got=$("$INGOT" inspect --json "$WORK/t" | jq -r '[.columns[] | "\(.name) \(.schema_type)"] | join(" ")')
    [ "$got" = "$want" ] || { echo "got: $got"; return 1; }
}
check types_parquet_import_keeps_logical_types schema_types

"$INGOT" mount "$WORK/t" "$WORK/m" || { fail types "mount failed"; exit 0; }

rows_iso() {
    local r
    r=$(cat "$WORK/m/rows/0") || return 1
    # the first rows' edge cases: 2024-01-01, a leap day, the day before the epoch,
    # a year before 1 AD (astronomical -44 is 45 BC), 1900 (no leap day)
    jq -e '.edge == "2024-01-01" and .ts == "2022-02-06T09:54:56.123456" and .tstz == "1969-07-20T20:17:40.000000Z"
        and .dec12 == -1000000000.00 and .u == null and .ts_ns == "2024-01-01T00:00:00.123456000"' <<<"$r" >/dev/null ||
        { echo "$r"; return 1; }
    grep -q '"dec7":-500.00,' <<<"$r" || { echo "decimal not exact: $r"; return 1; }
    [ "$(jq -r .edge "$WORK/m/rows/1")" = 2024-02-29 ] && [ "$(jq -r .edge "$WORK/m/rows/2")" = 1969-12-31 ] &&
        [ "$(jq -r .edge "$WORK/m/rows/4")" = -0044-03-15 ] && [ "$(jq -r .edge "$WORK/m/rows/5")" = 1900-02-28 ] ||
        { head -c 300 "$WORK/m/rows/4"; return 1; }
    [ "$(jq -r .u "$WORK/m/rows/1")" = 6ba7b810-9dad-11d1-80b4-000000000001 ] || return 1
    # the text columns and cat say the same
    [ "$(sed -n 2p "$WORK/m/columns/edge")" = 2024-02-29 ] && [ "$(sed -n 1p "$WORK/m/columns/dec7")" = -500.00 ] || return 1
    cmp -s "$WORK/m/columns/tstz" <("$INGOT" cat "$WORK/t" tstz)
}
check types_rows_render_iso_and_exact_decimals rows_iso

# DuckDB: the views' column types, and no row on one side that is not on the other
duck_same() { # EXPECTED_ONLY_SOURCE
    local out
    out=$(node "$PQ/types.mjs" compare "$WORK/src.parquet" "$WORK/m") || return 1
    jq -e --argjson n "$1" '.types == {"id":"BIGINT","day":"DATE","edge":"DATE","tod":"TIME","ts":"TIMESTAMP",
        "tstz":"TIMESTAMP WITH TIME ZONE","ts_ms":"TIMESTAMP","ts_ns":"TIMESTAMP_NS","dec7":"DECIMAL(7,2)",
        "dec12":"DECIMAL(12,2)","dec38":"DECIMAL(38,10)","u":"UUID"} and .n_only_source == $n and .n_only_view == 0' \
        <<<"$out" >/dev/null || { echo "$out" | head -c 2000; return 1; }
}
check types_duckdb_reads_views_as_source duck_same 0

npy_datetime64() {
    "$PY" - "$WORK/m" <<'PY'
import sys, numpy as np
m = sys.argv[1]
want = {"day": "<M8[D]", "edge": "<M8[D]", "ts": "<M8[us]", "tstz": "<M8[us]", "ts_ms": "<M8[ms]",
        "ts_ns": "<M8[ns]", "tod": "<m8[us]", "dec7": "<f8", "dec12": "<f8", "dec38": "<f8"}
for name, dt in want.items():
    a = np.load(f"{m}/columns/{name}.npy")
    assert a.dtype.str == dt, (name, a.dtype.str)
    text = open(f"{m}/columns/{name}").read().split("\n")[:-1]
    assert len(text) == len(a) == 2000, (name, len(text), len(a))
    valid = np.load(f"{m}/columns/{name}.valid.npy")
    for x, t, ok in zip(a, text, valid):
        if not ok:
            assert np.isnat(x) if dt[1] in "Mm" else np.isnan(x), (name, x)
        elif dt[1] == "M":  # the text is ISO-8601 (UTC ones end in Z)
            assert x == np.datetime64(t.rstrip("Z")), (name, x, t)
        elif dt[1] == "f":
            assert x == float(t), (name, x, t)
ts = np.load(f"{m}/columns/ts.npy")
assert str(ts[0]) == "2022-02-06T09:54:56.123456", ts[0]
assert str(np.load(f"{m}/columns/edge.npy")[4]) == "-044-03-15"
PY
}
check types_npy_datetime64 npy_datetime64

# NumPy writes datetime64 (timedelta64) arrays into the mount: a replaced date,
# timestamp or time column takes the dtype its .npy shows (a UTC-adjusted one
# stays UTC), a new column takes any unit NumPy writes down to ns (NaT: NULL;
# weeks, months and years as dates); a unit the table has no type for, or an
# array of another unit than the column's, fails the write with EINVAL and
# leaves the table as it was; the original values written back read as they
# were. On a copy of the table (a replaced column moves to the end of the
# views, which the checks below compare with the source).
npy_datetime64_writes() {
    rm -rf "$WORK/tw" && cp -r "$WORK/t" "$WORK/tw" && mkdir -p "$WORK/mw" || return 1
    "$INGOT" mount "$WORK/tw" "$WORK/mw" || return 1
    "$PY" - "$WORK/mw" <<'PY' || { fusermount3 -u "$WORK/mw"; return 1; }
import sys, os, json, subprocess, numpy as np
m = sys.argv[1]
day = np.timedelta64(1, "D")
orig = {c: np.load(f"{m}/columns/{c}.npy") for c in ("ts", "tstz", "day", "ts_ns", "tod")}
valid = {c: np.load(f"{m}/columns/{c}.valid.npy") for c in orig}
for c in ("ts", "tstz", "day", "ts_ns"):
    np.save(f"{m}/columns/{c}.npy", orig[c] + day)          # a backfill, the same dtype
    back = np.load(f"{m}/columns/{c}.npy")
    assert back.dtype == orig[c].dtype, (c, back.dtype)
    same = (back == orig[c] + day) | (np.isnat(back) & np.isnat(orig[c]))
    assert same.all(), (c, back[:3], orig[c][:3])
    assert (np.load(f"{m}/columns/{c}.valid.npy") == valid[c]).all(), c
hour = np.timedelta64(1, "h").astype(orig["tod"].dtype)
tod = np.where(np.isnat(orig["tod"]), orig["tod"], orig["tod"] % np.timedelta64(23, "h"))
np.save(f"{m}/columns/tod.npy", tod)                            # times of day
assert (np.load(f"{m}/columns/tod.npy").astype("int64") == tod.astype("int64")).all()
text = open(f"{m}/columns/tstz").read().split("\n")
assert text[0].endswith("Z"), text[0]                           # still UTC
n = len(orig["ts"])
when = np.datetime64("2024-03-01T12:00:00.250", "ms") + np.arange(n).astype("timedelta64[s]")
when[7] = np.datetime64("NaT")
np.save(f"{m}/columns/when.npy", when)                          # new columns
np.save(f"{m}/columns/wk.npy", when.astype("datetime64[W]"))
np.save(f"{m}/columns/mon.npy", when.astype("datetime64[M]"))
np.save(f"{m}/columns/hr.npy", when.astype("datetime64[h]"))
got = np.load(f"{m}/columns/when.npy")
assert got.dtype.str == "<M8[ms]" and ((got == when) | (np.isnat(got) & np.isnat(when))).all()
assert not np.load(f"{m}/columns/when.valid.npy")[7] and open(f"{m}/rows/7").read().find('"when":null') > 0
for c, saved, unit in (("wk", "W", "D"), ("mon", "M", "D"), ("hr", "h", "s")):
    got, want = np.load(f"{m}/columns/{c}.npy"), when.astype(f"datetime64[{saved}]")
    assert got.dtype.str == f"<M8[{unit}]", (c, got.dtype)
    assert ((got == want.astype(f"datetime64[{unit}]")) | np.isnat(want)).all(), (c, got[:3], want[:3])
assert open(f"{m}/columns/mon").readline().strip() == "2024-03-01"
before = {c: open(f"{m}/columns/{c}", "rb").read() for c in ("ts", "day")}
for name, bad in (("ts", orig["ts"].astype("datetime64[ms]")),  # another unit than the column's
                  ("day", orig["ts"]),                            # a timestamp for a date
                  ("pico", when.astype("datetime64[ps]"))):      # no such type
    try:
        np.save(f"{m}/columns/{name}.npy", bad)
    except OSError as e:
        assert e.errno == 22, (name, e)
    else:
        sys.exit(f"{name}: a bad array was taken")
assert not os.path.exists(f"{m}/columns/pico")
assert all(open(f"{m}/columns/{c}", "rb").read() == b for c, b in before.items())
for c, a in orig.items():                                       # put back
    np.save(f"{m}/columns/{c}.npy", a)
    back = np.load(f"{m}/columns/{c}.npy")
    assert ((back == a) | (np.isnat(back) & np.isnat(a))).all(), c
for c in ("when", "wk", "mon", "hr"):
    os.unlink(f"{m}/columns/{c}")
PY
    fusermount3 -u "$WORK/mw"
    local got
    got=$("$INGOT" inspect --json "$WORK/tw" | jq -r '[.columns[] | "\(.name) \(.schema_type)"] | join(" ")')
    grep -q "tstz timestamp(us, UTC)?" <<<"$got" && ! grep -q "when" <<<"$got" || { echo "got: $got"; return 1; }
    "$INGOT" versions "$WORK/tw" | grep -q "add-column wk" || return 1
    "$INGOT" verify "$WORK/tw" >/dev/null
}
check types_npy_datetime64_writes npy_datetime64_writes

# apache-arrow reads the Arrow view's types: date32, time64, timestamp with and
# without a zone, decimal128, fixed_size_binary; row 1's values as Arrow gives them
arrow_types() {
    local out
    out=$(node "$PQ/types.mjs" arrow "$WORK/m") || return 1
    jq -e '.fields == ["id Int64", "day Date32<DAY>", "edge Date32<DAY>", "tod Time64<MICROSECOND>",
        "ts Timestamp<MICROSECOND>", "tstz Timestamp<MICROSECOND, UTC>", "ts_ms Timestamp<MILLISECOND>",
        "ts_ns Timestamp<NANOSECOND>", "dec7 Decimal[7e+2]", "dec12 Decimal[12e+2]", "dec38 Decimal[38e+10]",
        "u FixedSizeBinary[16]"] and .row.edge == "1709164800000" and .row.dec12 == "-99990123457"
        and .row.ts == null' <<<"$out" >/dev/null || { echo "$out"; return 1; }
}
check types_arrow_view_types arrow_types

# an erase: the erased rows leave every view (DuckDB finds just them missing);
# verify proves their bytes are gone
after_erase() {
    "$INGOT" erase --row 0 --row 3 "$WORK/t" >/dev/null || return 1
    sleep 0.3 # the mount reloads on inotify
    "$INGOT" verify "$WORK/t" >/dev/null || return 1
    duck_same 2 || return 1
    [ ! -e "$WORK/m/rows/0" ] && [ "$(jq -r .edge "$WORK/m/rows/1")" = 2024-02-29 ]
}
check types_erased_rows_leave_the_views after_erase
fusermount3 -u "$WORK/m"

# CSV: inference takes ISO dates and timestamps; offsets become UTC
csv_dates() {
    printf 'd,ts,local,mixed\n2024-01-01,2024-01-01T20:34:56.5+02:00,2024-01-01 08:00,2024-01-01\n' >"$WORK/in.csv"
    printf '1969-12-31,1970-01-01T00:00:00Z,1700-02-28T23:59:59.123456789,x\n,,,\n' >>"$WORK/in.csv"
    "$INGOT" import "$WORK/in.csv" "$WORK/c" >/dev/null || return 1
    local got
    got=$("$INGOT" inspect --json "$WORK/c" | jq -r '[.columns[] | .schema_type] | join(" ")')
    [ "$got" = "date? timestamp(us, UTC)? timestamp(ns)? string?" ] || { echo "got: $got"; return 1; }
    got=$("$INGOT" cat "$WORK/c" ts | head -2 | tr '\n' ' ')
    [ "$got" = "2024-01-01T18:34:56.500000Z 1970-01-01T00:00:00.000000Z " ] || { echo "got: $got"; return 1; }
    got=$("$INGOT" cat --rows 1 "$WORK/c")
    [ "$got" = '{"d":"1969-12-31","ts":"1970-01-01T00:00:00.000000Z","local":"1700-02-28T23:59:59.123456789","mixed":"x"}' ] ||
        { echo "got: $got"; return 1; }
}
check types_csv_infers_dates_and_converts_offsets csv_dates

# bad annotations: the file, the column and the annotation are named
bad_schema() {
    local out
    printf 'd date\nts timestamp(sec)\n' >"$WORK/bad.txt"
    out=$("$INGOT" import --schema "$WORK/bad.txt" "$WORK/in.csv" "$WORK/b1" 2>&1) && return 1
    grep -qF "bad.txt:2: column 'ts': timestamp(sec): unknown timestamp unit 'sec'" <<<"$out" || { echo "$out"; return 1; }
    [ ! -e "$WORK/b1" ] || return 1
    printf 'd decimal(3, 5)\n' >"$WORK/bad2.txt"
    out=$("$INGOT" import --schema "$WORK/bad2.txt" "$WORK/in.csv" "$WORK/b2" 2>&1) && return 1
    grep -qF "bad2.txt:1: column 'd': decimal(3, 5): the scale is above the precision" <<<"$out" || { echo "$out"; return 1; }
}
check types_schema_typo_named bad_schema

# a Parquet DECIMAL(9, 2) made DECIMAL(1, 2) in its footer (both the converted
# type's precision and the logical type's): refused, naming the file, the
# column and the annotation, never imported as something else
bad_parquet_decimal() {
    node -e "
const { DuckDBInstance } = await import('$PQ/node_modules/@duckdb/node-api/lib/index.js');
const c = await (await DuckDBInstance.create(':memory:')).connect();
await c.run(\"COPY (SELECT i AS id, (i * 1.25)::DECIMAL(9, 2) AS price FROM range(10) r(i)) TO '$WORK/dec.parquet' (FORMAT parquet)\");
" --input-type=module || return 1
    "$PY" - "$WORK/dec.parquet" <<'PY' || return 1
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
n = struct.unpack("<I", b[-8:-4])[0]
start = len(b) - 8 - n
footer = bytes(b[start:-8])
# thrift compact: i32 field +1 (0x15) scale 2 (zigzag 4), i32 field +1 precision 9 (zigzag 18)
pat = b"\x15\x04\x15\x12"
hits = [i for i in range(len(footer)) if footer.startswith(pat, i)]
assert hits, "no decimal annotation found"
for i in hits:
    b[start + i + 3] = 0x02  # precision 1
open(p, "wb").write(b)
PY
    local out
    out=$("$INGOT" import "$WORK/dec.parquet" "$WORK/bd" 2>&1) && { echo "imported: $out"; return 1; }
    grep -q "dec.parquet" <<<"$out" && grep -q "price" <<<"$out" && grep -q "DECIMAL(1, 2)" <<<"$out" ||
        { echo "$out"; return 1; }
    [ ! -e "$WORK/bd" ]
}
check types_parquet_bad_decimal_named bad_parquet_decimal
