#!/usr/bin/env python3
"""Reads through a mount at each step of another process's erase (test_erase_steps.sh).

  erase_steps.py steps INGOT TABLE MOUNT
      For N = 1, 2, ...: `ingot erase --row X` with INGOT_PAUSE_AFTER=N stops
      itself after its Nth durable step (lock held, pages half rewritten or
      not); meanwhile x.npy, whose plain pages the daemon serves from its
      mapping of the part, is read at X with O_DIRECT (so the daemon answers,
      not the kernel's cache). A read that shows X erased (NaN) must find
      rows/X gone right after; one that shows neither value is torn.
  erase_steps.py reload INGOT TABLE MOUNT
      The daemon runs with INGOT_TEST_RELOAD_PAUSE_MS: it opens the table after
      one erase, and a second erase comes and goes before it shows what it
      opened. Whoever sees both rows gone (_rowid.npy's size) must see the
      second erase's generation.
  erase_steps.py told INGOT TABLE MOUNT
      The daemon runs with INGOT_TEST_INVAL_PAUSE_MS: its pass that tells the
      kernel what went stale starts late. A text view read whole (its pages
      cached) before another process's erase must answer ESTALE once
      .ingot/generation shows the erase, never its cached old lines.

Prints what it saw; exits 1 on a violation.
"""
import errno
import json
import mmap
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np

mode, ingot, table, m = sys.argv[1:5]
WIDTH = 8


def values():
    return np.load(f"{table}.x.npy")


def gen():
    with open(f"{m}/.ingot/generation") as f:
        return int(f.read())


def npy_header_len(name="x.npy"):
    with open(f"{m}/columns/{name}", "rb") as f:
        head = f.read(12)
    return 10 + int.from_bytes(head[8:10], "little")


def direct_read(fd, off, n):
    """n bytes at off of an O_DIRECT descriptor (aligned buffer and range)."""
    start = off - off % 4096
    length = (off + n - start + 4095) // 4096 * 4096
    buf = mmap.mmap(-1, length)
    got = os.preadv(fd, [buf], start)
    return bytes(buf[off - start:off - start + n]) if got >= off - start + n else None


def stopped(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "T"
    except OSError:
        return False


def steps():
    want = values()
    head = npy_header_len()
    path = f"{m}/columns/x.npy"
    rows = len(want)
    seen = {"steps": 0, "erased_seen": 0, "old_seen": 0, "blocked": 0, "errors": []}
    erased = []
    g0 = gen()
    n = 0
    while True:
        n += 1
        x = (n * 7919) % rows
        deadline = time.monotonic() + 10  # the mount shows the last erase (inotify, ~20 ms)
        while gen() < g0 + len(erased) and time.monotonic() < deadline:
            time.sleep(0.005)
        # a file opened before the erase keeps its generation's shape: the rows
        # erased earlier are not in it, X stays where it is
        fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
        at = head + (x - sum(e < x for e in erased)) * WIDTH
        # the daemon checks and caches the mapped pages now, before the erase
        direct_read(fd, 0, os.fstat(fd).st_size)
        env = dict(os.environ, INGOT_PAUSE_AFTER=str(n))
        p = subprocess.Popen([ingot, "erase", "--row", str(x), table], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        while p.poll() is None and not stopped(p.pid):
            time.sleep(0.002)
        if p.poll() is not None:  # N is past the erase's last step
            if p.returncode != 0:
                seen["errors"].append(f"erase of {x} failed: {p.stderr.read().decode()[-300:]}")
            os.close(fd)
            break
        seen["steps"] = n
        out = {}

        def reader():
            try:
                b = direct_read(fd, at, WIDTH)
                out["v"] = np.frombuffer(b, "<f8")[0] if b else None
                out["exists"] = os.path.exists(f"{m}/rows/{x}")
            except OSError as e:
                out["err"] = e

        t = threading.Thread(target=reader)
        t.start()
        t.join(0.3)  # a read may wait for the erase to finish: that is allowed
        if t.is_alive():
            seen["blocked"] += 1
        os.kill(p.pid, signal.SIGCONT)
        p.wait()
        erased.append(x)
        t.join(20)
        os.close(fd)
        if t.is_alive():
            seen["errors"].append(f"step {n}: a read of x.npy hung after the erase")
            break
        if "err" in out:
            if out["err"].errno != errno.ESTALE:
                seen["errors"].append(f"step {n}: read of row {x}: {out['err']}")
            continue
        v = out["v"]
        if np.isnan(v):
            seen["erased_seen"] += 1
            if out["exists"]:
                seen["errors"].append(f"step {n}: row {x} reads erased in x.npy but rows/{x} exists")
        elif v == want[x]:
            seen["old_seen"] += 1
        else:
            seen["errors"].append(f"step {n}: row {x} reads {v!r}, neither {want[x]!r} nor erased")
    print(json.dumps(seen))
    return not seen["errors"] and seen["steps"] >= 5


def live_rows():
    """Rows in the current generation, from _rowid.npy's size (no page is read)."""
    return (os.stat(f"{m}/columns/_rowid.npy").st_size - npy_header_len("_rowid.npy")) // 8


def reload():
    rows = live_rows()
    subprocess.run([ingot, "erase", "--row", "1", table], check=True, stdout=subprocess.DEVNULL)
    time.sleep(0.1)  # the watcher's 20 ms settle; then it opens the table and pauses
    subprocess.run([ingot, "erase", "--row", "2", table], check=True, stdout=subprocess.DEVNULL)
    seen = []
    end = time.monotonic() + 3.5  # two reloads of 0.4 s each, with room for a loaded machine
    while time.monotonic() < end:
        live = live_rows()
        seen.append((live, gen()))
        # apart, so that no burst pin (versions.h) holds this process to one generation
        time.sleep(0.15)
    final = gen()
    both = [g for live, g in seen if live == rows - 2]
    early = [g for g in both if g < final]
    print(json.dumps({"looks": len(seen), "both_erased_seen": len(both), "final_generation": final,
                      "both_erased_at_an_older_generation": len(early), "seen": seen}))
    return bool(both) and not early


def told():
    row = 7
    fd = os.open(f"{m}/columns/id", os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        before = os.pread(fd, size, 0)
        g0 = gen()
        subprocess.run([ingot, "erase", "--row", str(row), table], check=True, stdout=subprocess.DEVNULL)
        t0 = time.monotonic()
        while gen() == g0 and time.monotonic() - t0 < 5:
            time.sleep(0.01)
        moved_after = time.monotonic() - t0
        try:
            again = os.pread(fd, size, 0)
            old = b"\n%d\n" % row in again
            outcome = "old lines" if old else f"{len(again)} bytes without row {row}"
        except OSError as e:
            old = False
            outcome = errno.errorcode.get(e.errno, str(e.errno))
    finally:
        os.close(fd)
    with open(f"{m}/columns/id", "rb") as f:
        fresh = f.read()
    print(json.dumps({"had_row": b"\n%d\n" % row in before, "generation_moved_after_s": round(moved_after, 3),
                      "old_handle": outcome, "fresh_open_has_row": b"\n%d\n" % row in fresh}))
    return b"\n%d\n" % row in before and not old and b"\n%d\n" % row not in fresh


ok = {"steps": steps, "reload": reload, "told": told}[mode]()
sys.exit(0 if ok else 1)
