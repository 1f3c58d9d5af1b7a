#!/usr/bin/env bash
# The Apache Parquet project's reader test corpus (tests/parquet-testing/: files
# written by parquet-mr, Impala, Spark, Arrow C++ and Rust; every codec, encoding
# and nesting layout; damaged files) through `ingot import`:
#   - every file DuckDB reads imports, and every value of every column equals
#     DuckDB's reading of the file (tests/parquet/conformance.mjs, which also
#     says which files must be refused and why: bad_data/, encryption);
#   - no file crashes or hangs the import, in the release build and under
#     ASan+UBSan (build-asan/, which scripts/test builds).
source "$(dirname "$0")/lib.sh"
CORPUS=$ROOT/tests/parquet-testing
mapfile -t files < <(find "$CORPUS/data" "$CORPUS/bad_data" -type f \( -name '*.parquet' -o -name '*.parquet.encrypted' \) | sort)

need_duckdb corpus_identical || exit 0
node "$ROOT/tests/parquet/conformance.mjs" "$INGOT" "$WORK" "${files[@]}"

# Under the sanitizers: a crash, a sanitizer report or a hang fails; an import
# that ends, or is refused with a message naming the file, passes.
ASAN_INGOT=$ROOT/build-asan/ingot
if [ ! -x "$ASAN_INGOT" ]; then
    skip corpus_asan "no ASan build (scripts/build --asan makes build-asan/)"
    exit 0
fi
crashes=0
for f in "${files[@]}"; do
    rm -rf "$WORK/asan"
    out=$(ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        timeout 300 "$ASAN_INGOT" import "$f" "$WORK/asan" 2>&1)
    rc=$?
    if [ $rc = 124 ]; then
        why="no answer in 300 s (a hang)"
    elif [ $rc != 0 ] && [ $rc != 2 ] || grep -Eq 'AddressSanitizer|LeakSanitizer|runtime error:' <<<"$out"; then
        why="exit $rc: $(grep -E -m3 'ERROR|SUMMARY|runtime error' <<<"$out")"
    elif [ $rc = 2 ] && ! grep -qF "$f" <<<"$out"; then
        why="refused without naming the file: $out"
    else
        continue
    fi
    crashes=$((crashes + 1))
    fail "corpus_asan.${f#"$CORPUS"/}" "$why"
done
[ $crashes = 0 ] && pass "corpus_asan (${#files[@]} files, 0 crashes)"
rm -rf "$WORK/asan"
