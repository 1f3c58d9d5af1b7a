# nested_lib.sh - shared by sparse_sequences, wide_nested and embeddings (sourced
# after lib.sh, not run): the nested helpers, the Lance side, JSON fields, perf.

# What the binaries were built from, taken right after bench_build (machine_header
# reads the commit when the report is printed, which may be later).
build_info() {
    BUILT_FROM="commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo ?)$(git -C "$ROOT" diff --quiet HEAD -- src include 2>/dev/null || echo ' + uncommitted changes in src/'), ingot binary of $(date -u -r "$INGOT" +%Y-%m-%dT%H:%M:%SZ)"
}
# Is TABLE older than the ingot binary? (then it was written by an older build)
older_than_ingot() { [ "$INGOT" -nt "$1/MANIFEST" ]; }
table_date() { date -u -r "$1/MANIFEST" +%Y-%m-%dT%H:%M:%SZ; }

# The helpers these benchmarks add to build-bench/ (scripts/bench/meson.build).
need_nested_bins() {
    [ -x "$BIN/nested_gen" ] && [ -x "$BIN/bench_nested_read" ] ||
        die "$BIN/nested_gen or bench_nested_read missing (not built?)"
}

# LanceDB for Node, into scripts/bench/lance/node_modules (git-ignored).
LANCE_DIR=$BENCH_DIR/lance
bench_lance_npm() {
    if [ ! -d "$LANCE_DIR/node_modules/@lancedb/lancedb" ]; then
        log "npm install (LanceDB for Node) into scripts/bench/lance/node_modules"
        (cd "$LANCE_DIR" && npm install --no-audit --no-fund --loglevel=error >/dev/null) ||
            die "npm install in scripts/bench/lance failed"
    fi
}
lance_version() { node -e "console.log(require('$LANCE_DIR/node_modules/@lancedb/lancedb/package.json').version)"; }
duck_version() { node -e "console.log(require('$BENCH_DIR/node_modules/@duckdb/node-api/package.json').version)"; }
# Lance logs a WARN line when it creates a dataset: drop those
lance() {
    (mkdir -p "$DATA" && cd "$DATA" && node "$LANCE_DIR/nested_lance.mjs" "$@" 2> >(grep -v ' WARN ' >&2))
}
nduck() { (mkdir -p "$DATA" && cd "$DATA" && INGOT_BENCH_DATA=$DATA node "$BENCH_DIR/nested_duck.mjs" "$@"); }

# jget FILE JS-EXPR: evaluate EXPR with d = the JSON in FILE ("-" = stdin)
jget() {
    node -e 'const fs = require("fs"); const d = JSON.parse(fs.readFileSync(process.argv[1] === "-" ? 0 : process.argv[1], "utf8"));
             const v = eval(process.argv[2]); console.log(typeof v === "object" ? JSON.stringify(v) : v);' "$1" "$2"
}
# GB/s (1e9 bytes per second) from bytes and seconds
gbps() { awk -v b="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.3f", b / s / 1e9; else print "-" }'; }
mb() { awk -v b="$1" -v d="${2:-2}" 'BEGIN { printf "%.*f", d, b / 1e6 }'; }
# "min-max" of numbers on stdin
spread() { awk 'NF' | sort -g | awk 'NR == 1 { a = $1 } { b = $1 } END { if (NR) printf "%s–%s", a, b }'; }

# perf_top N CMD...: run CMD under perf record (user and kernel samples), print
# the N hottest symbols as "sym pct%, ..." (or "perf not available")
perf_top() {
    local n=$1 out
    shift
    if ! command -v perf >/dev/null; then echo "perf not available"; "$@" >/dev/null; return 0; fi
    out=$(mktemp "$DATA/perf.XXXXXX")
    perf record -q -o "$out" -F 999 "$@" >/dev/null 2>&1 || { rm -f "$out"; echo "perf record failed"; return 0; }
    perf report -i "$out" --no-children --stdio --sort sym 2>/dev/null |
        awk -v n="$n" '/^ +[0-9.]+%/ { sub(/^ +/, ""); pct = $1; $1 = ""; $2 = ""; sub(/^ +/, ""); printf "%s%s %s", (c ? ", " : ""), $0, pct; if (++c == n) exit }'
    echo
    rm -f "$out"
}
# perf_pid_top N PID CMD...: profile process PID while CMD runs (the mount daemon)
perf_pid_top() {
    local n=$1 pid=$2 out pp
    shift 2
    if ! command -v perf >/dev/null; then echo "perf not available"; "$@" >/dev/null; return 0; fi
    out=$(mktemp "$DATA/perf.XXXXXX")
    perf record -q -o "$out" -F 999 -p "$pid" >/dev/null 2>&1 &
    pp=$!
    sleep 1
    "$@" >/dev/null
    kill -INT "$pp" 2>/dev/null
    wait "$pp" 2>/dev/null || true
    perf report -i "$out" --no-children --stdio --sort sym 2>/dev/null |
        awk -v n="$n" '/^ +[0-9.]+%/ { sub(/^ +/, ""); pct = $1; $1 = ""; $2 = ""; sub(/^ +/, ""); printf "%s%s %s", (c ? ", " : ""), $0, pct; if (++c == n) exit }'
    echo
    rm -f "$out"
}
