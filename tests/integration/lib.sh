# lib.sh - shared helpers for integration tests (sourced).
#
# Each test script runs cases with `check NAME COMMAND...` or by calling
# pass/fail/skip itself; every case prints one PASS/FAIL/SKIP line for
# scripts/test to count. A scratch directory is made per script and removed on
# exit, after unmounting anything mounted under it.
set -uo pipefail

INGOT=${INGOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/ingot}
ROOT=${INGOT_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
PY=/usr/bin/python3
WORK=$(mktemp -d /tmp/ingot-it.XXXXXX)

cleanup() {
    # unmount anything still mounted under WORK, then remove it
    if command -v findmnt >/dev/null; then
        findmnt -rn -o TARGET | grep "^$WORK" | sort -r | while read -r m; do
            fusermount3 -u "$m" 2>/dev/null || fusermount3 -uz "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
        done
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1"; shift; [ $# -gt 0 ] && echo "  $*"; return 0; }
skip() { echo "SKIP $1: $2"; }

# grew_by_bitmap BEFORE AFTER ROWS: did a part of ROWS rows grow from BEFORE to
# AFTER bytes by its deletion bitmap alone? A part's first erase writes it past
# the footer (format 17: ceil(ROWS / 64) u64 words, 8-aligned); blocks erased in
# place add nothing.
grew_by_bitmap() {
    local bm=$((($3 + 63) / 64 * 8)) d=$(($2 - $1))
    [ "$d" -ge "$bm" ] && [ "$d" -le $((bm + 7)) ] ||
        { echo "the part grew by $d bytes; its deletion bitmap is $bm"; return 1; }
}

# plain_view PART OUT: PART's bytes with its packed chunk contexts (format 22:
# their entries as one zstd frame) unpacked, for a search that must see what
# the file holds in any form. context_at PART TEXT: "OFFSET SIZE" of the
# context whose entries hold TEXT (tests/integration/contexts.py).
plain_view() { "$PY" "$ROOT/tests/integration/contexts.py" plain "$1" "$2"; }
context_at() { "$PY" "$ROOT/tests/integration/contexts.py" find "$1" "$2"; }

# check NAME CMD...: PASS if CMD exits 0, else FAIL with its output.
check() {
    local name=$1; shift
    local out
    if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "$(printf '%s' "$out" | tail -20)"; fi
}

# expect_fail NAME CMD...: PASS if CMD exits non-zero.
expect_fail() {
    local name=$1; shift
    local out
    if out=$("$@" 2>&1); then fail "$name" "expected failure, got success: $(printf '%s' "$out" | tail -5)"; else pass "$name"; fi
}

have_fuse() { [ -c /dev/fuse ] && command -v fusermount3 >/dev/null; }

# need_duckdb NAME: the Node packages of tests/parquet/package.json (DuckDB,
# apache-arrow, nodejs-polars, hyparquet), installed into
# tests/parquet/node_modules on first use; FAIL NAME and return 1 without them.
need_duckdb() {
    local pq=$ROOT/tests/parquet p
    if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
        fail "$1" "node and npm are needed (scripts/deps installs them)"
        return 1
    fi
    for p in @duckdb/node-api apache-arrow nodejs-polars nodejs-polars-linux-x64-gnu hyparquet; do
        [ -d "$pq/node_modules/$p" ] && continue
        (cd "$pq" && npm install --no-audit --no-fund --loglevel=error >/dev/null 2>&1) ||
            { fail "$1" "npm install of tests/parquet/package.json failed"; return 1; }
        break
    done
}
