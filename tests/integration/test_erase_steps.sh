#!/usr/bin/env bash
# Reads through a mount while another process's erase is at each of its steps
# (stopped there by the INGOT_PAUSE_AFTER test hook), and while the daemon is
# between opening a new generation and showing it (INGOT_TEST_RELOAD_PAUSE_MS),
# and while it has not yet told the kernel what went stale (INGOT_TEST_INVAL_PAUSE_MS).
# erase_steps.py says what each case reads and checks.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
if ! have_fuse; then skip erase_steps "no /dev/fuse"; exit 0; fi

# id, and x: random float64 (plain pages, which the daemon serves from its
# mapping of the part file)
make_table() {
    "$PY" - "$1" <<'PY'
import sys
import numpy as np
t = sys.argv[1]
x = np.random.default_rng(5).standard_normal(200_000)
np.save(f"{t}.x.npy", x)
with open(f"{t}.csv", "w") as f:
    f.write("id,x\n")
    f.writelines(f"{i},{v!r}\n" for i, v in enumerate(x))
open(f"{t}.schema", "w").write("id int64\nx float64\n")
PY
    "$INGOT" import --schema "$1.schema" --rows-per-group 65536 "$1.csv" "$1" >/dev/null
}

mkdir -p "$WORK/m1" "$WORK/m2"
make_table "$WORK/a" || { fail erase_steps_setup "table"; exit 0; }
"$INGOT" mount "$WORK/a" "$WORK/m1" || { fail erase_steps_setup "mount"; exit 0; }
check mapped_pages_at_every_erase_step "$PY" "$ROOT/tests/integration/erase_steps.py" steps "$INGOT" "$WORK/a" "$WORK/m1"
fusermount3 -u "$WORK/m1"
check mapped_pages_erase_steps_verify "$INGOT" verify "$WORK/a"

make_table "$WORK/b" || { fail erase_steps_setup "table"; exit 0; }
INGOT_TEST_RELOAD_PAUSE_MS=400 "$INGOT" mount "$WORK/b" "$WORK/m2" || { fail erase_steps_setup "mount"; exit 0; }
check reload_shows_the_generation_it_opened "$PY" "$ROOT/tests/integration/erase_steps.py" reload "$INGOT" "$WORK/b" "$WORK/m2"
fusermount3 -u "$WORK/m2"

# .ingot/generation shows an erase only once the kernel was told to drop the
# older pages (the pass paused 0.6 s, below the generation read's 1 s bound)
make_table "$WORK/c" || { fail erase_steps_setup "table"; exit 0; }
mkdir -p "$WORK/m3"
INGOT_TEST_INVAL_PAUSE_MS=600 "$INGOT" mount "$WORK/c" "$WORK/m3" || { fail erase_steps_setup "mount"; exit 0; }
check generation_shows_after_old_pages_dropped "$PY" "$ROOT/tests/integration/erase_steps.py" told "$INGOT" "$WORK/c" "$WORK/m3"
fusermount3 -u "$WORK/m3"
