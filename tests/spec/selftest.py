#!/usr/bin/env python3
"""selftest.py ARROW_FILE PARQUET_FILE - the checkers must pass the two good
files given and catch each fault made in a copy of them: a checker that
passes everything proves nothing. The faults are the ones a writer could
make: an offset to nowhere or misaligned, a vtable of an odd size or too
short for its fields, an enum value the schema lacks, a footer whose blocks
or schema differ from the stream, a wrong null count, no end-of-stream
marker; a Thrift field of the wrong compact type, a count that does not add
up, a page size that runs past its chunk, statistics whose min is above
their max. Prints "N of N faults caught"; exits 1 on any miss."""
import struct
import sys

import arrow_ipc
import parquet_file


def arrow_faults(b):
    flen = struct.unpack_from("<i", b, len(b) - 10)[0]
    fs = len(b) - 10 - flen
    root = fs + struct.unpack_from("<I", b, fs)[0]
    vt = root - struct.unpack_from("<i", b, root)[0]
    version_at = root + struct.unpack_from("<H", b, vt + 4)[0]
    schema_slot = root + struct.unpack_from("<H", b, vt + 6)[0]
    mlen = struct.unpack_from("<i", b, 12)[0]
    batch = 16 + mlen  # the record batch message
    bmeta = batch + 8
    mroot = bmeta + struct.unpack_from("<I", b, bmeta)[0]
    mvt = mroot - struct.unpack_from("<i", b, mroot)[0]
    header = mroot + struct.unpack_from("<H", b, mvt + 8)[0]
    rb = header + struct.unpack_from("<I", b, header)[0]
    rvt = rb - struct.unpack_from("<i", b, rb)[0]
    nodes = rb + struct.unpack_from("<H", b, rvt + 6)[0]
    nodes = nodes + struct.unpack_from("<I", b, nodes)[0]

    def put(fmt, at, v):
        return lambda x: struct.pack_into(fmt, x, at, v)

    return [
        ("the footer's root offset is 0", put("<I", fs, 0)),
        ("the footer's root offset is off 4 bytes", put("<I", fs, struct.unpack_from("<I", b, fs)[0] + 2)),
        ("the footer's vtable has an odd size", put("<H", vt, 11)),
        ("the footer's inline size is too short for its fields", put("<H", vt + 2, 6)),
        ("the footer's version is no MetadataVersion", put("<h", version_at, 9)),
        ("the footer's schema points past the end", put("<I", schema_slot, 1 << 30)),
        ("the first node's null count is wrong", put("<q", nodes + 4 + 8, 1 << 40)),
        ("the end-of-stream marker is gone", put("<I", fs - 4, 8)),
        ("the closing magic is wrong", put("<B", len(b) - 1, ord("2"))),
    ]


def parquet_faults(b):
    _, f = parquet_file.check(b, "good")
    meta = f.meta
    at = meta["_at"]
    first = meta["row_groups"][0]["columns"][0]["meta_data"]
    h, _ = f.read("PageHeader", first["data_page_offset"], len(b), "page")
    out = [
        ("num_rows is one more", lambda x: x.__setitem__(at["num_rows"][1], x[at["num_rows"][1]] ^ 2)),
        ("version is an i64", lambda x: x.__setitem__(meta["_start"], (at["version"][0] & 0xF0) | 6)),
        ("a page's compressed size is off", lambda x: x.__setitem__(h["_at"]["compressed_page_size"][1],
                                                                   x[h["_at"]["compressed_page_size"][1]] ^ 8)),
        ("the root has one child more", lambda x: x.__setitem__(meta["schema"][0]["_at"]["num_children"][1],
                                                               x[meta["schema"][0]["_at"]["num_children"][1]] + 2)),
        ("the magic is wrong", lambda x: x.__setitem__(0, ord("Q"))),
    ]
    for rg in meta["row_groups"]:
        for c in rg["columns"]:
            s = c["meta_data"].get("statistics") or {}
            if "min_value" in s and "max_value" in s and s["min_value"] != s["max_value"] and c["meta_data"]["type"] in ("INT32", "INT64"):
                lo, hi = s["_at"]["min_value"][1], s["_at"]["max_value"][1]
                n = len(s["min_value"])

                def swap(x, lo=lo, hi=hi, n=n):
                    a, z = bytes(x[lo + 1:lo + 1 + n]), bytes(x[hi + 1:hi + 1 + n])
                    x[lo + 1:lo + 1 + n], x[hi + 1:hi + 1 + n] = z, a
                out.append(("statistics with min above max", swap))
                return out
    return out


def main(arrow_path, parquet_path):
    missed = total = 0
    for name, mod, faults in (("arrow", arrow_ipc, arrow_faults), ("parquet", parquet_file, parquet_faults)):
        good = open(arrow_path if name == "arrow" else parquet_path, "rb").read()
        errors, _ = mod.check(good, name)
        if errors:
            print(f"the good {name} file fails:", *errors[:5], sep="\n  ")
            return 1
        for what, fault in faults(good):
            x = bytearray(good)
            fault(x)
            errors, _ = mod.check(bytes(x), name)
            total += 1
            if not errors:
                missed += 1
                print(f"{name}: not caught: {what}")
    print(f"{total - missed} of {total} faults caught")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
