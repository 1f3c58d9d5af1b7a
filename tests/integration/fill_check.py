#!/usr/bin/env python3
"""Helpers for test_blobs.sh: small objects filled into the kernel's page cache
when Python asks isatty (docs/FILESYSTEM.md), and erasure of filled objects.

  fill_check.py make DIR                 write DIR/in.jsonl and DIR/I.bin: objects of
                                         the sizes below, row I holding object I
  fill_check.py fill MOUNT DIR           every object: right after open() (before any
                                         read) its pages are resident (fincore) when
                                         0 < size <= 256 KiB, none otherwise, and the
                                         bytes read are DIR's; then object 5, filled and
                                         open, erased with rm rows/5: the open file
                                         reads ENOENT
  fill_check.py race MOUNT PAUSE_MS      (the daemon holds each fill PAUSE_MS between
                                         reading and storing: INGOT_TEST_FILL_PAUSE_MS)
                                         object 5's fill runs while rm rows/5 lands, and
                                         the rm does not wait for it; after both, the
                                         open file reads ENOENT
"""
import errno
import json
import os
import subprocess
import sys
import threading
import time

SIZES = [0, 1, 4095, 4096, 4097, 100000, 256 << 10, (256 << 10) + 1, 600000]
FILL_MAX = 256 << 10


def make(d):
    with open(f"{d}/in.jsonl", "w") as out:
        for i, n in enumerate(SIZES):
            with open(f"{d}/{i}.bin", "wb") as f:
                # random but the first byte: a blob's file is named by its
                # leading bytes, and one random byte in 2,048 starts what
                # reads as an MP3 frame (then blobs/obj/i is i.mp3)
                f.write(b"R"[:n] + os.urandom(max(n - 1, 0)))
            out.write(json.dumps({"id": i, "obj": f"{i}.bin"}) + "\n")


def resident(path):
    out = subprocess.run(["fincore", "--bytes", "--noheadings", "--output", "RES", path],
                         capture_output=True, text=True, check=True).stdout
    return int(out.strip() or 0)


def object_path(m, i):
    return f"{m}/blobs/obj/{i}"  # no extension: random bytes


def expect_enoent(fd, size, what):
    """An object erased while open must not read: ENOENT. It reads its exact
    size: past the end the kernel would refresh the attributes first (ENOENT
    from the daemon) and never look at the pages it holds."""
    try:
        data = os.pread(fd, size, 0)
        sys.exit(f"read {len(data)} bytes of an object erased through the mount ({what})")
    except OSError as e:
        assert e.errno == errno.ENOENT, f"read failed with {errno.errorcode.get(e.errno)}, want ENOENT"


def fill(m, d):
    filled = unfilled = 0
    for i, size in enumerate(SIZES):
        want = open(f"{d}/{i}.bin", "rb").read()
        path = object_path(m, i)
        with open(path, "rb") as f:  # open() asks isatty: the daemon fills before answering
            res = resident(path)
            if 0 < size <= FILL_MAX:
                assert res == (size + 4095) // 4096 * 4096, f"{path}: {res} resident of {size}"
                filled += 1
            else:
                assert res == 0, f"{path}: {size} bytes, not to be filled, yet {res} resident"
                unfilled += 1
            assert f.read() == want, f"{path}: bytes differ"
    assert (filled, unfilled) == (6, 3), (filled, unfilled)
    fd = os.open(object_path(m, 5), os.O_RDONLY)
    os.isatty(fd)
    assert resident(object_path(m, 5)) > 0, "not filled"
    os.unlink(f"{m}/rows/5")
    expect_enoent(fd, SIZES[5], "filled before the erase")


def race(m, pause_ms):
    fd = os.open(object_path(m, 5), os.O_RDONLY)
    filler = threading.Thread(target=os.isatty, args=(fd,))  # the daemon reads the object, then waits
    filler.start()
    time.sleep(0.1)
    t0 = time.monotonic()
    os.unlink(f"{m}/rows/5")
    took = time.monotonic() - t0
    filler.join()
    # An rm that waited for the fill would take the rest of its pause; a loaded
    # machine (CI runs suites side by side) slows the erase itself to ~0.6 s.
    rest = pause_ms / 1000 - 0.1
    assert took < rest * 0.75, f"rm waited {took:.3f} s for a fill paused {rest:.3f} s more"
    expect_enoent(fd, SIZES[5], "a fill stored them after the erase")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "make":
        make(sys.argv[2])
    elif cmd == "fill":
        fill(sys.argv[2], sys.argv[3])
    elif cmd == "race":
        race(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(__doc__)
