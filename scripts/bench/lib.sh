# lib.sh - shared by the benchmark scripts in scripts/bench/ (sourced, not run).
#
# Environment:
#   INGOT_BENCH_DATA   where inputs, tables, Parquet files and mounts live
#                      (default /var/tmp/ingot-bench; needs tens of GB for mount_read)
#   INGOT_BENCH_BUILD  build directory (default build-bench in the repo root),
#                      configured as a release build on first use
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/../.." && pwd)
BUILD=${INGOT_BENCH_BUILD:-$ROOT/build-bench}
DATA=${INGOT_BENCH_DATA:-/var/tmp/ingot-bench}
INGOT=$BUILD/ingot
BIN=$BUILD/scripts/bench
BENCH_CMD="scripts/bench/$(basename "$0")${*:+ $*}"

die() { echo "$(basename "$0"): $*" >&2; exit 1; }

# The results (stdout) to the terminal and to $DATA/NAME.md, NAME the script's:
# call once, before the first line of results.
bench_record() {
    mkdir -p "$DATA"
    exec > >(tee "$DATA/$(basename "$0").md")
}
log() { echo "# $*" >&2; }

# A release build of the library, CLI and helpers. -Dwerror=false: a benchmark
# measures; warnings are the test build's business (release -O3 adds some).
# If the working tree does not build (someone is mid-edit) but an earlier build
# exists, that one is used and every results header says so.
BENCH_STALE=""
bench_build() {
    if [ ! -f "$BUILD/build.ninja" ]; then
        meson setup "$BUILD" "$ROOT" -Dbuildtype=release -Dwerror=false >/dev/null
    fi
    local out
    if ! out=$(ninja -C "$BUILD" 2>&1); then
        echo "$out" | grep -E 'error|FAILED' | head -5 >&2
        [ -x "$INGOT" ] && [ -x "$BIN/bench_open_read" ] || die "build failed"
        BENCH_STALE="the working tree did not build: using the binaries built $(date -u -r "$INGOT" +%Y-%m-%dT%H:%M:%SZ)"
        log "WARNING: $BENCH_STALE"
    fi
    [ -x "$INGOT" ] && [ -x "$BIN/bench_open_read" ] || die "build did not produce $INGOT"
}

# DuckDB for Node, into scripts/bench/node_modules (git-ignored).
bench_npm() {
    command -v node >/dev/null || die "node is needed for the DuckDB side"
    if [ ! -d "$BENCH_DIR/node_modules/@duckdb/node-api" ] || [ ! -d "$BENCH_DIR/node_modules/@lancedb/lancedb" ]; then
        log "npm install (DuckDB, LanceDB for Node) into scripts/bench/node_modules"
        (cd "$BENCH_DIR" && npm install --no-audit --no-fund --loglevel=error >/dev/null) ||
            die "npm install failed"
    fi
}
duck() { (mkdir -p "$DATA" && cd "$DATA" && INGOT_BENCH_DATA=$DATA node "$BENCH_DIR/duck.mjs" "$@"); }

# Can the current build open TABLE? (A cached table from before a format change
# cannot: the scripts then rebuild it.)
# a table made by this build's writer (its format version), whole: else the
# benchmark imports it again
table_ok() {
    [ -f "$1/MANIFEST" ] && "$INGOT" verify "$1" >/dev/null 2>&1 || return 1
    local writes
    writes=$("$INGOT" --version | sed -n 's/.*writes format version \([0-9]*\).*/\1/p')
    [ "$("$INGOT" inspect --json "$1" | jq '[.parts[].format_version] | min')" = "$writes" ]
}

need_root() {
    [ "$(id -u)" = 0 ] && [ -w /proc/sys/vm/drop_caches ] ||
        die "needs root (drops the page cache: echo 3 > /proc/sys/vm/drop_caches)"
}
drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches; }

now_ns() { date +%s%N; }
# secs since a now_ns stamp, 3 decimals
secs_since() { awk -v a="$1" -v b="$(now_ns)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
# value of NAME=VALUE in a line of key=value pairs (stdin)
field() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" | head -1; }
# the same from every line
fields() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p"; }
# median of numbers on stdin (lower middle for an even count)
median() { awk 'NF' | sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }'; }
# a / b with a fixed number of decimals
ratio() { awk -v a="$1" -v b="$2" -v d="${3:-1}" 'BEGIN { if (b == 0) print "-"; else printf "%.*f", d, a / b }'; }
fmt() { awk -v a="$1" -v d="${2:-1}" 'BEGIN { printf "%.*f", d, a }'; }
file_size() { stat -c %s "$1"; }
dir_size() { du -sb "$1" | cut -f1; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }

# CPU busy fraction of the whole machine between two /proc/stat snapshots.
cpu_snapshot() { awk '/^cpu / { idle = $5 + $6; tot = 0; for (i = 2; i <= NF; i++) tot += $i; print tot, idle }' /proc/stat; }
cpu_busy_pct() { # "$start" "$end"
    awk -v s="$1" -v e="$2" 'BEGIN { split(s, a, " "); split(e, b, " ");
        t = b[1] - a[1]; i = b[2] - a[2]; printf "%.0f", t ? 100 * (t - i) / t : 0 }'
}

BENCH_T0=$(now_ns)
BENCH_CPU0=$(cpu_snapshot)
# The header every results table starts with: what ran, where, how busy it was.
machine_header() {
    local model load
    model=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    echo "command:  $BENCH_CMD"
    echo "date:     $(date -u +%Y-%m-%dT%H:%M:%SZ)   commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo ?)$(git -C "$ROOT" diff --quiet HEAD -- src include 2>/dev/null || echo ' (+ uncommitted changes in src/)')"
    echo "machine:  $(nproc) cores, $model, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r)"
    echo "disk:     $(findmnt -no FSTYPE,SOURCE --target "$DATA") (read_ahead_kb $(cat /sys/block/"$(basename "$(findmnt -no SOURCE --target "$DATA")")"/queue/read_ahead_kb 2>/dev/null || echo ?))"
    [ -z "$BENCH_STALE" ] || echo "binaries: STALE - $BENCH_STALE"
    echo "load:     $load at start (other processes share these cores; see 'busy' at the end)"
}
machine_footer() {
    echo "busy:     whole machine $(cpu_busy_pct "$BENCH_CPU0" "$(cpu_snapshot)")% CPU during the run (ours included); load $(cut -d' ' -f1-3 /proc/loadavg) at end; took $(secs_since "$BENCH_T0") s"
}

# ---- mounts: every mount made here is unmounted on exit ----
BENCH_MOUNTS=()
mount_table() { # TABLE DIR [-o OPTS]
    local table=$1 dir=$2
    shift 2
    mkdir -p "$dir"
    "$INGOT" mount "$@" "$table" "$dir" || die "mount of $table on $dir failed"
    BENCH_MOUNTS+=("$dir")
}
daemon_pid() { pgrep -f "ingot mount .*$1\$" | head -1; }
umount_dir() { # DIR: unmount and wait for its daemon to exit
    local dir=$1 pid i
    pid=$(daemon_pid "$dir" || true)
    mountpoint -q "$dir" 2>/dev/null && { fusermount3 -u "$dir" 2>/dev/null || fusermount3 -uz "$dir"; }
    if [ -n "$pid" ]; then
        for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    fi
}
bench_cleanup() {
    local d
    for d in "${BENCH_MOUNTS[@]+"${BENCH_MOUNTS[@]}"}"; do umount_dir "$d"; done
}
trap bench_cleanup EXIT
trap 'exit 130' INT TERM
