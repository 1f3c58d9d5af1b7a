#!/usr/bin/env python3
"""One reader of test_load.sh: reads a mounted table in a loop while rows are
erased, and checks that no read ever mixes two generations of the table.

  load_reader.py MODE MOUNT SECONDS SEED H.npy

The table has columns id (int64, = row id), val (float64, = id / 2), txt
(string, "t<id>"), img (a blob whose bytes name the row id modulo 64) and h
(random float64 whose plain pages the daemon serves from its mapping of the
part: H.npy holds them by row id).
Prints one JSON line: {"mode": ..., "reads": N, "errors": [...], ...}. Allowed,
and counted apart: ENOENT for a row or object erased meanwhile, ESTALE for a
text file an erase overtook (the reader reopens it), a generation that moved
during a multi-file read (the reader reads again).
"""
import errno
import json
import os
import random
import sys
import time

import numpy as np

mode, m, secs, seed = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
H = np.load(sys.argv[5])
rng = random.Random(seed)
stats = {"mode": mode, "reads": 0, "errors": [], "enoent": 0, "estale": 0, "retried": 0}


def schema_rows():
    # schema.json belongs to a generation: opened just before an erase lands, its
    # read says ESTALE (documented), and opening it again reads the new one
    for _ in range(50):
        try:
            with open(f"{m}/schema.json") as f:
                return int(json.load(f)["rows"])
        except OSError as e:
            if e.errno != errno.ESTALE:
                raise
            stats["estale"] += 1
    raise OSError(errno.ESTALE, "schema.json stale 50 times")


ROWS = schema_rows()


NAME_GONE_S = 2.0  # how long an erased row's name may outlive its values (an rm in flight)


def error(msg):
    if len(stats["errors"]) < 20:
        stats["errors"].append(msg)


def generation():
    with open(f"{m}/.ingot/generation") as f:
        return int(f.read())


def check_pairs(rowid, val, want=None, name="val"):
    """val is id / 2 on every row (or `want`); in an array opened before an
    erase, the erased row reads as NaN (its erased form) and keeps its row id."""
    if want is None:
        want = rowid.astype(np.float64) / 2
    bad = ~((val == want) | np.isnan(val))
    if bad.any():
        i = int(np.argmax(bad))
        error(f"{mode}: row {rowid[i]} {name} {val[i]} != {want[i]}")
    # a NaN is a row erased since the file's generation: that row must be gone
    # now, or within moments: the erase is committed before any page shows it,
    # but an `rm rows/ID` still on its way back holds the name in the kernel's
    # cache until it returns (the kernel drops it then, not the daemon), and the
    # daemon answers it after dropping the names of files that changed
    for i in np.flatnonzero(np.isnan(val))[:3]:
        deadline = time.monotonic() + NAME_GONE_S
        while os.path.exists(f"{m}/rows/{rowid[i]}"):
            if time.monotonic() > deadline:
                error(f"{mode}: row {rowid[i]} reads NaN but is not erased "
                      f"{NAME_GONE_S} s later")
                break
            time.sleep(0.005)


def load_seen(name):
    """np.load of one column's .npy, and the generation its inode names (a view's
    inode number ends in the low 8 bits of its generation: fs/inode.c), so that a
    mixed read says which file came from where."""
    with open(f"{m}/columns/{name}", "rb") as f:
        ino = os.fstat(f.fileno()).st_ino
        return np.load(f), ino & 0xFF


def npy_load():
    g1 = generation()
    try:
        (rowid, gr), (val, gv), (h, gh) = (load_seen(n) for n in ("_rowid.npy", "val.npy", "h.npy"))
    except ValueError as e:  # "cannot reshape array of size ..." is a torn read
        error(f"np.load: {e}")
        return
    g2 = generation()
    stats["reads"] += 3
    if g1 != g2:
        stats["retried"] += 1
        return
    if not len(rowid) == len(val) == len(h):
        error(f"generation {g1} (low bits {g1 & 0xFF}): _rowid has {len(rowid)} rows (inode's "
              f"generation bits {gr}), val {len(val)} ({gv}), h {len(h)} ({gh})")
        return
    check_pairs(rowid, val)
    check_pairs(rowid, h, H[rowid], "h")


mapped = {}


BURST_S = 0.1  # versions.h FS_BURST_MS: opens of one file closer than this see one generation


def npy_mmap():
    """Arrays mapped once and read for a while, as a training loop holds them."""
    if not mapped or rng.random() < 0.05:
        for name in ("rowid", "val", "h"):
            # np.load(mmap_mode=...) opens the file three times by path; a thread's
            # lookups stay on one generation while they follow within BURST_S, so it cannot fail unless
            # the call itself took longer than that
            t = time.monotonic()
            try:
                mapped[name] = np.load(f"{m}/columns/{'_rowid' if name == 'rowid' else name}.npy",
                                       mmap_mode="r")
            except ValueError as e:
                if time.monotonic() - t < BURST_S:
                    error(f"np.load(mmap) in {time.monotonic() - t:.3f} s: {e}")
                else:
                    stats["retried"] += 1
                mapped.clear()
                return
        # two opens may straddle an erase: keep the set only if it matches
        if not len(mapped["rowid"]) == len(mapped["val"]) == len(mapped["h"]):
            stats["retried"] += 1
            mapped.clear()
            return
    rowid, val, h = mapped["rowid"], mapped["val"], mapped["h"]
    i = rng.randrange(0, max(1, len(rowid) - 4096))
    ids = np.array(rowid[i:i + 4096])
    check_pairs(ids, np.array(val[i:i + 4096]))
    check_pairs(ids, np.array(h[i:i + 4096]), H[ids], "h")
    stats["reads"] += 1


def text():
    g1 = generation()
    try:
        with open(f"{m}/columns/txt", "rb") as f:
            size = os.fstat(f.fileno()).st_size
            data = f.read()
    except OSError as e:
        if e.errno == errno.ESTALE:
            stats["estale"] += 1
            return
        raise
    rowid = np.load(f"{m}/columns/_rowid.npy")
    g2 = generation()
    stats["reads"] += 1
    if len(data) != size:
        error(f"txt: read {len(data)} bytes of {size}")
        return
    lines = data.split(b"\n")
    if lines[-1] != b"":
        error("txt: no final newline")
        return
    lines.pop()
    if g1 != g2:
        stats["retried"] += 1
        return
    if len(lines) != len(rowid):
        error(f"generation {g1}: txt has {len(lines)} lines, _rowid {len(rowid)}")
        return
    for k in rng.sample(range(len(lines)), min(200, len(lines))):
        if lines[k] != b"t%d" % rowid[k]:
            error(f"txt line {k}: {lines[k][:40]!r}, row {rowid[k]}")
            return


def row():
    i = rng.randrange(ROWS)
    try:
        with open(f"{m}/rows/{i}") as f:
            r = json.load(f)
    except FileNotFoundError:
        stats["enoent"] += 1
        return
    stats["reads"] += 1
    if r.get("id") != i or r.get("val") != i / 2 or r.get("txt") != f"t{i}":
        error(f"rows/{i}: {r}")


def blob():
    i = rng.randrange(ROWS)
    try:
        with open(f"{m}/blobs/img/{i}.jpg", "rb") as f:
            data = f.read()
    except FileNotFoundError:
        stats["enoent"] += 1
        return
    stats["reads"] += 1
    want = b"\xff\xd8\xff" + (b"blob %02d " % (i % 64)) * 20
    if data != want:
        error(f"blobs/img/{i}.jpg: {len(data)} bytes {data[:16]!r}")


step = {"npy": npy_load, "mmap": npy_mmap, "text": text, "row": row, "blob": blob}[mode]
end = time.monotonic() + secs
while time.monotonic() < end:
    try:
        step()
    except OSError as e:
        error(f"{mode}: {e}")
    except Exception as e:  # any other failure is a finding too
        error(f"{mode}: {type(e).__name__}: {e}")
print(json.dumps(stats))
