#!/usr/bin/env bash
# scripts/check-layers finds each kind of violation (so the PASS in scripts/test means something).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
CHECK="$ROOT/scripts/check-layers"

# The FUSE header's name, spelled apart so that this script itself is not a
# file that names it in an include.
LL="fuse""_lowlevel.h"

violations() {
    local t="$WORK/tree" out
    mkdir -p "$t/src/util" "$t/src/blob" "$t/src/format/model" "$t/src/format/ops" "$t/src/fs/glue" "$t/src/import"
    for f in util/u.h blob/b.h format/model/m.h format/ops/o.h fs/v.h fs/w.h fs/glue/ops.h import/i.h; do : >"$t/src/$f"; done
    printf '#include "format/model/m.h"\n' >"$t/src/util/u.c"           # util reaches up
    printf '#include "format/ops/o.h"\n' >"$t/src/format/model/m.c"     # model reaches up to ops
    printf '#include "fs/v.h"\n' >"$t/src/import/i.c"                   # import beside fs
    printf '#include <%s>\n' "$LL" >"$t/src/fs/v.c"                     # FUSE outside the glue
    printf '#include "fs/glue/ops.h"\n' >"$t/src/fs/w.c"                # logic reaches into the glue
    printf '#include <%s>\n#include "util/u.h"\n#include "fs/v.h"\n' "$LL" >"$t/src/fs/glue/ops.c" # allowed
    printf '#include "blob/b.h"\n#include "util/u.h"\n' >"$t/src/format/ops/o.c" # allowed
    mkdir -p "$t/scripts/bench"
    printf '#include <%s>\n' "$LL" >"$t/scripts/bench/own_fs.c"       # a FUSE program of its own
    # a build whose CLI compiles with libfuse's include path (a dependency that
    # carries the headers on); the glue's own entry is allowed
    mkdir -p "$t/build"
    printf '[{"file": "../src/cli/main.c", "command": "cc -I/usr/include/fuse3 -c ../src/cli/main.c"},\n %s\n' \
        '{"file": "../src/fs/glue/ops.c", "command": "cc -I/usr/include/fuse3 -c ../src/fs/glue/ops.c"}]' \
        >"$t/build/compile_commands.json"
    out=$("$CHECK" "$t") && { echo "check-layers passed a tree with violations"; return 1; }
    for want in "src/util/u.c includes format/model/m.h" "src/format/model/m.c includes format/ops/o.h" \
        "src/import/i.c includes fs/v.h" "src/fs/v.c includes <$LL>" \
        "src/fs/w.c includes fs/glue/ops.h" "scripts/bench/own_fs.c includes a FUSE header" \
        "src/cli/main.c is compiled with libfuse's headers"; do
        grep -qF "$want" <<<"$out" || { echo "missing: $want"; echo "$out"; return 1; }
    done
    [ "$(grep -c '^FAIL' <<<"$out")" -eq 7 ] || { echo "$out"; return 1; }
}
check check_layers_finds_each_violation violations
check check_layers_passes_this_tree "$CHECK"
