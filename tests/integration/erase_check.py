#!/usr/bin/env python3
"""Helpers for test_erase.sh.

  erase_check.py make OUT.csv ROWS MARKED...    write a table whose MARKED rows carry
                                                unique markers (string, int64, float64)
  erase_check.py count DIR MARKED...            how many marker byte patterns appear in
                                                any file under DIR (raw bytes, all files)
"""
import glob
import os
import random
import struct
import sys


def markers(i):
    return [b"MARKER%06dXYZ" % i, struct.pack("<q", 987654321000 + i),
            struct.pack("<d", 1234.5678 + i)]


def make(out, rows, marked):
    rng = random.Random(7)
    with open(out, "w") as f:
        f.write("id,name,amount,score,small,cat\n")
        for i in range(rows):
            if i in marked:
                f.write("%d,MARKER%06dXYZ,%d,%r,%d,c%d\n" % (i, i, 987654321000 + i, 1234.5678 + i,
                                                         i % 7, i % 3))
            else:
                f.write("%d,user%d,%d,%r,%d,c%d\n" % (i, rng.randint(0, 50), rng.randint(0, 1000),
                                                     rng.random(), i % 7, i % 3))


def count(d, marked):
    n = 0
    for path in glob.glob(os.path.join(d, "**"), recursive=True) + glob.glob(os.path.join(d, ".ingot", "*")):
        if os.path.isfile(path):
            data = open(path, "rb").read()
            for i in marked:
                for m in markers(i):
                    n += data.count(m)
    return n


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "make":
        make(sys.argv[2], int(sys.argv[3]), {int(x) for x in sys.argv[4:]})
    elif cmd == "count":
        print(count(sys.argv[2], [int(x) for x in sys.argv[3:]]))
