#!/usr/bin/python3
"""contexts.py - a part's chunk contexts as the tests look into them.

  contexts.py plain PART OUT   OUT: PART's bytes with every packed context
                               (format 22: its entries as one zstd frame)
                               replaced by its entries, so that a search of
                               OUT finds what the file holds in any form
  contexts.py find PART TEXT   the offset and size of the context whose
                               entries hold TEXT ("-" and exit 1: none)

Reads the footer as docs/FORMAT.md lays it out (tail, header, chunk records);
unpacks with the zstd program."""
import os
import struct
import subprocess
import sys

PACKED = 4  # the context kind of entries packed as one zstd frame


def tail_end(path, b):
    """Where the part's tail ends: at its end as written, or (an erase puts
    bytes past the tail) where MANIFEST says (footer=END on its part line)."""
    d, name = os.path.split(path)
    try:
        for line in open(os.path.join(d, "MANIFEST")):
            f = line.split()
            if len(f) > 1 and f[0] == "part" and f[1] == name:
                for x in f:
                    if x.startswith("footer="):
                        return int(x[7:])
    except OSError:
        pass
    return len(b)


def contexts(path, b):
    """(offset, size) of every chunk context of the part b."""
    end = tail_end(path, b)
    assert b[end - 8:end] == b"INGOTEND", "no tail at %d" % end
    footer, _ = struct.unpack_from("<QQ", b, end - 64)
    leaves, groups = struct.unpack_from("<II", b, footer + 44)
    chunks, _ = struct.unpack_from("<QQ", b, footer + 80 + 5 * 16)
    out = []
    for i in range(groups * leaves):
        off, size = struct.unpack_from("<QI", b, footer + chunks + i * 64 + 40)
        if size:
            out.append((off, size))
    return out


def entries(ctx):
    """The context's entries, unpacked where they are packed."""
    if not ctx or ctx[0] != PACKED:
        return ctx
    n, shift, pos = 0, 0, 1
    while True:
        c = ctx[pos]
        pos += 1
        n |= (c & 127) << shift
        shift += 7
        if c < 128:
            break
    return subprocess.run(["zstd", "-dcq"], input=ctx[pos:pos + n], check=True,
                          capture_output=True).stdout


def main():
    mode, path = sys.argv[1], sys.argv[2]
    b = open(path, "rb").read()
    if mode == "plain":
        out, at = bytearray(), 0
        for off, size in sorted(contexts(path, b)):
            out += b[at:off] + entries(b[off:off + size])
            at = off + size
        out += b[at:]
        open(sys.argv[3], "wb").write(out)
        return 0
    text = sys.argv[3].encode()
    for off, size in contexts(path, b):
        if text in entries(b[off:off + size]):
            print(off, size)
            return 0
    print("-")
    return 1


if __name__ == "__main__":
    sys.exit(main())
