#!/usr/bin/env python3
"""arrow_ipc.py FILE... - check Arrow IPC files against the Arrow columnar
format's specification (docs/source/format/Columnar.rst: "IPC File Format",
"Encapsulated message format", "Buffer Listing for Each Layout") and the
FlatBuffers schemas beside this file (arrow/*.fbs, read by fbs.py), not
against what one reader accepts.

The file: "ARROW1", zero padding to 8 bytes, the stream (encapsulated
messages: the 0xFFFFFFFF continuation, a metadata length that keeps the
message on 8 bytes, a Message flatbuffer verified strictly, the body, a
multiple of 8), the end-of-stream marker, the Footer flatbuffer (verified),
its int32 length and "ARROW1". The footer's version and schema equal the
stream's first message's, its blocks are exactly the stream's record batches
(offset at the message's continuation, metaDataLength its prefix and
metadata, bodyLength its body's).

Each record batch against the schema: one node per field in pre-order, as
many buffers as each type's layout lists, each on 8 bytes inside the body;
child lengths as the parent type says; null counts within the length, equal
to the validity bitmap's zeros, and 0 for a non-nullable field (readers trust
the count and the flag); value buffers long enough for their lengths; offsets
starting at 0 or more, never decreasing, ending inside their data or child;
Utf8 values UTF-8; type parameters among those the spec allows.

Prints "FILE: ok (...)" per good file, every fault of a bad one; exits 1 when
any file has one. Importable: check(bytes, name) returns (faults, checker)."""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checker  # noqa: E402
import fbs  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FILE_FBS = fbs.Schema(os.path.join(HERE, "arrow", "File.fbs"))
MESSAGE_FBS = fbs.Schema(os.path.join(HERE, "arrow", "Message.fbs"))
MAGIC = b"ARROW1"
CONTINUATION = 0xFFFFFFFF
V4, V5 = 3, 4


def bits(nbytes):
    return (nbytes + 7) // 8


class File:
    def __init__(self, data, name):
        self.b, self.name = data, name
        self.errors = []
        self.batches = self.rows = 0

    def err(self, msg):
        self.errors.append(f"{self.name}: {msg}")

    def check(self):
        b = self.b
        if len(b) < 8 + 8 + 4 + 6 or b[:6] != MAGIC or b[-6:] != MAGIC:
            self.err("no ARROW1 magic at both ends")
            return
        if b[6:8] != b"\0\0":
            self.err("the magic's padding is not zeros")
        (flen,) = struct.unpack_from("<i", b, len(b) - 10)
        fstart = len(b) - 10 - flen
        if flen <= 0 or fstart < 8:
            self.err(f"a footer length of {flen}")
            return
        if fstart % 8:
            self.err(f"the footer starts at {fstart}, not on 8 bytes")
        fv = fbs.Verifier(FILE_FBS, b[fstart:fstart + flen], "Footer")
        footer = fv.root("Footer")
        self.errors += [f"{self.name}: {e}" for e in fv.errors]
        if footer is None or fv.errors:
            return
        stream = self.stream(8, fstart)
        if stream is None:
            return
        schema_msg, batches = stream
        if footer.get("version", 0) != schema_msg.get("version", 0):
            self.err(f"footer version {footer.get('version')}, stream version {schema_msg.get('version')}")
        if footer.get("schema") != schema_msg["header"]["value"]:
            self.err("the footer's schema differs from the stream's")
        blocks = footer.get("recordBatches")
        if blocks is None:
            self.err("the footer lists no recordBatches")
        elif [(x["offset"], x["metaDataLength"], x["bodyLength"]) for x in blocks] != [x[:3] for x in batches]:
            self.err(f"footer blocks {[(x['offset'], x['metaDataLength'], x['bodyLength']) for x in blocks]}, "
                     f"stream record batches {[x[:3] for x in batches]}")
        if footer.get("dictionaries"):
            self.err("the footer lists dictionaries, the stream has none")
        fields = (schema_msg["header"]["value"] or {}).get("fields") or []
        for at, _, body_len, rb, body_at in batches:
            self.batches += 1
            self.record_batch(rb, fields, body_at, body_len, f"batch at {at}")

    def stream(self, at, end):
        """The stream's messages from at to the end-of-stream marker, which
        must lie just before end: (Schema message, [(offset, metaDataLength,
        bodyLength, RecordBatch, body start)])."""
        b, schema, batches = self.b, None, []
        while True:
            if at % 8:
                self.err(f"a message at {at}, not on 8 bytes")
                return None
            if at + 8 > end:
                self.err(f"no end-of-stream marker before the footer at {end}")
                return None
            cont, mlen = struct.unpack_from("<Ii", b, at)
            if cont != CONTINUATION:
                self.err(f"no continuation marker at {at}")
                return None
            if mlen == 0:
                if at + 8 != end:
                    self.err(f"the end-of-stream marker at {at} is followed by {end - at - 8} bytes before the footer")
                break
            if mlen < 0 or mlen % 8 or at + 8 + mlen > end:
                self.err(f"message at {at}: metadata length {mlen} (a multiple of 8 inside the file)")
                return None
            v = fbs.Verifier(MESSAGE_FBS, b[at + 8:at + 8 + mlen], f"Message at {at}")
            m = v.root("Message")
            self.errors += [f"{self.name}: {e}" for e in v.errors]
            if m is None or v.errors:
                return None
            if m.get("version", 0) not in (V4, V5):
                self.err(f"message at {at}: metadata version {m.get('version')}")
            header = m.get("header")
            body_len = m.get("bodyLength", 0)
            body_at = at + 8 + mlen
            if header is None:
                self.err(f"message at {at} has no header")
                return None
            if body_len < 0 or body_len % 8 or body_at + body_len > end:
                self.err(f"message at {at}: body length {body_len} (a multiple of 8 inside the file)")
                return None
            if schema is None:
                if header["type"] != "Schema" or body_len:
                    self.err(f"the stream begins with a {header['type']} message (a body of {body_len})")
                    return None
                schema = m
            elif header["type"] == "RecordBatch":
                batches.append((at, 8 + mlen, body_len, header["value"], body_at))
            else:
                self.err(f"message at {at} is a {header['type']}")
            at = body_at + body_len
        return schema, batches

    # ---- record batches ------------------------------------------------------

    def record_batch(self, rb, fields, body_at, body_len, where):
        self.where = where
        self.body = memoryview(self.b)[body_at:body_at + body_len]
        self.nodes = rb.get("nodes") or []
        self.bufs = rb.get("buffers") or []
        self.variadic = list(rb.get("variadicBufferCounts") or [])
        self.ni = self.bi = 0
        if rb.get("compression") is not None:
            self.err(f"{where}: compressed bodies are not checked")
            return
        for k, x in enumerate(self.bufs):
            if x["offset"] % 8 or x["offset"] < 0 or x["length"] < 0 or x["offset"] + x["length"] > body_len:
                self.err(f"{where}: buffer {k} (offset {x['offset']}, length {x['length']}) is not on 8 bytes "
                         f"inside the body of {body_len}")
                return
        length = rb.get("length", 0)
        self.rows += length
        for f in fields:
            if not self.array(f, f.get("name"), length):
                return
        if self.ni != len(self.nodes) or self.bi != len(self.bufs):
            self.err(f"{where}: {len(self.nodes)} nodes and {len(self.bufs)} buffers, the schema takes "
                     f"{self.ni} and {self.bi}")

    def take(self, n):
        if self.bi + n > len(self.bufs):
            return None
        out = [bytes(self.body[x["offset"]:x["offset"] + x["length"]]) for x in self.bufs[self.bi:self.bi + n]]
        self.bi += n
        return out

    def array(self, f, path, want_len):
        """Check field f's arrays against its node and buffers; False stops the batch."""
        if f is None:
            self.err(f"{self.where}: a NULL field")
            return False
        where = f"{self.where}: {path}"
        if self.ni >= len(self.nodes):
            self.err(f"{where}: no node left")
            return False
        node = self.nodes[self.ni]
        self.ni += 1
        n, nulls = node["length"], node["null_count"]
        if want_len is not None and n != want_len:
            self.err(f"{where}: length {n}, its parent says {want_len}")
        if n < 0 or nulls < 0 or nulls > n:
            self.err(f"{where}: length {n}, null count {nulls}")
            return False
        if nulls and not f.get("nullable"):
            self.err(f"{where}: {nulls} NULLs in a field that is not nullable")
        ty = f.get("type")
        if ty is None:
            self.err(f"{where}: no type")
            return False
        t, p = ty["type"], ty["value"] or {}
        kids = f.get("children") or []
        if f.get("dictionary") is not None:
            self.err(f"{where}: dictionary-encoded, with no dictionary batch in the file")
            return False
        layout = self.layout(t, p, where)
        if layout is None:
            return False
        nbuf, width, nkids = layout
        if nkids is not None and len(kids) != nkids:
            self.err(f"{where}: {t} with {len(kids)} children")
            return False
        if t == "Null":
            if nulls != n:
                self.err(f"{where}: a Null array of {n} with {nulls} NULLs")
            return True
        extra = 0
        if t in ("BinaryView", "Utf8View"):
            if not self.variadic:
                self.err(f"{where}: no variadicBufferCounts entry")
                return False
            extra = self.variadic.pop(0)
        bufs = self.take(nbuf + extra)
        if bufs is None:
            self.err(f"{where}: no buffers left")
            return False
        if t not in ("Union", "RunEndEncoded") and not self.validity(bufs[0], n, nulls, where):
            return True
        child_len = None
        if width is not None:  # fixed width: bits (0) or bytes a value
            need = bits(n) if width == 0 else n * width
            if len(bufs[1]) < need:
                self.err(f"{where}: {len(bufs[1])} bytes of values for {n} of them")
        elif t in ("Binary", "Utf8", "LargeBinary", "LargeUtf8", "List", "LargeList", "Map"):
            wide = t.startswith("Large")
            offs = self.offsets(bufs[1], n, 8 if wide else 4, where)
            if offs is None:
                return True
            if t in ("Binary", "Utf8", "LargeBinary", "LargeUtf8"):
                if offs and offs[-1] > len(bufs[2]):
                    self.err(f"{where}: offsets end at {offs[-1]}, past {len(bufs[2])} bytes of data")
                elif t.endswith("Utf8"):
                    self.utf8(bufs[0], nulls, offs, bufs[2], where)
            else:
                child_len = offs[-1] if offs else 0
            if t == "Map" and (not kids[0] or kids[0].get("nullable") or (kids[0].get("type") or {}).get("type") != "Struct_"
                               or len(kids[0].get("children") or []) != 2):
                self.err(f"{where}: a Map's entries are not a non-nullable Struct of two fields")
        elif t == "FixedSizeList":
            child_len = n * p.get("listSize", 0)
        elif t == "Struct_":
            child_len = n
        for k, c in enumerate(kids):
            name = c.get("name") if c else None
            if t in ("List", "LargeList", "Map", "ListView", "LargeListView"):
                if not self.array_at_least(c, f"{path}.{name}", child_len):
                    return False
            elif not self.array(c, f"{path}.{name}", child_len):
                return False
        return True

    def array_at_least(self, c, path, at_least):
        """A list's child: as long as the offsets reach, or longer (the spec lets it be)."""
        if self.ni < len(self.nodes) and at_least is not None and self.nodes[self.ni]["length"] < at_least:
            self.err(f"{self.where}: {path}: length {self.nodes[self.ni]['length']}, its list's offsets reach {at_least}")
        return self.array(c, path, None)

    def layout(self, t, p, where):
        """(buffers, value width in bytes or 0 for bits or None, children or None for any)."""
        if t == "Int":
            if p.get("bitWidth", 0) not in (8, 16, 32, 64):
                self.err(f"{where}: Int of bitWidth {p.get('bitWidth', 0)}")
                return None
            return 2, p["bitWidth"] // 8, 0
        if t == "FloatingPoint":
            return 2, {0: 2, 1: 4, 2: 8}[p.get("precision", 0)], 0
        if t == "Bool":
            return 2, 0, 0
        if t == "Decimal":
            w = p.get("bitWidth", MESSAGE_FBS.default("Decimal", "bitWidth"))
            prec, scale = p.get("precision", 0), p.get("scale", 0)
            if w not in (32, 64, 128, 256) or prec < 1 or scale > prec:
                self.err(f"{where}: Decimal({prec}, {scale}) of {w} bits")
                return None
            return 2, w // 8, 0
        if t == "Date":
            return 2, 4 if p.get("unit", MESSAGE_FBS.default("Date", "unit")) == 0 else 8, 0
        if t == "Time":
            unit = p.get("unit", MESSAGE_FBS.default("Time", "unit"))
            w = p.get("bitWidth", MESSAGE_FBS.default("Time", "bitWidth"))
            if w != (32 if unit in (0, 1) else 64):
                self.err(f"{where}: Time of unit {unit} in {w} bits")
                return None
            return 2, w // 8, 0
        if t in ("Timestamp", "Duration"):
            return 2, 8, 0
        if t == "Interval":
            return 2, {0: 4, 1: 8, 2: 16}[p.get("unit", 0)], 0
        if t == "FixedSizeBinary":
            if p.get("byteWidth", 0) < 1:
                self.err(f"{where}: FixedSizeBinary of byteWidth {p.get('byteWidth', 0)}")
                return None
            return 2, p["byteWidth"], 0
        if t in ("Binary", "Utf8", "LargeBinary", "LargeUtf8"):
            return 3, None, 0
        if t in ("BinaryView", "Utf8View"):
            return 2, 16, 0
        if t in ("List", "LargeList"):
            return 2, None, 1
        if t in ("ListView", "LargeListView"):
            return 3, None, 1
        if t == "Map":
            return 2, None, 1
        if t == "FixedSizeList":
            if p.get("listSize", 0) < 0:
                self.err(f"{where}: FixedSizeList of listSize {p.get('listSize')}")
                return None
            return 1, None, 1
        if t == "Struct_":
            return 1, None, None
        if t == "Null":
            return 0, None, 0
        if t == "Union":
            return (2 if p.get("mode", 0) == 1 else 1), None, None
        if t == "RunEndEncoded":
            return 0, None, 2
        self.err(f"{where}: type {t} is not checked")
        return None

    def validity(self, buf, n, nulls, where):
        if not buf:
            if nulls:
                self.err(f"{where}: {nulls} NULLs and no validity bitmap")
                return False
            return True
        if len(buf) < bits(n):
            self.err(f"{where}: a validity bitmap of {len(buf)} bytes for {n} values")
            return False
        set_bits = sum(bin(x).count("1") for x in buf[:n // 8])
        set_bits += sum((buf[n // 8] >> i) & 1 for i in range(n % 8))
        if n - set_bits != nulls:
            self.err(f"{where}: null count {nulls}, its validity bitmap has {n - set_bits} NULLs")
        return True

    def offsets(self, buf, n, w, where):
        if n == 0 and not buf:
            return []
        if len(buf) < (n + 1) * w:
            self.err(f"{where}: {len(buf)} bytes of offsets for {n} values")
            return None
        offs = struct.unpack_from(f"<{n + 1}{'q' if w == 8 else 'i'}", buf)
        if offs[0] < 0 or any(offs[i] > offs[i + 1] for i in range(n)):
            self.err(f"{where}: offsets that are negative or decrease")
            return None
        return offs

    def utf8(self, valid, nulls, offs, data, where):
        for i in range(len(offs) - 1):
            if nulls and valid and not (valid[i // 8] >> (i % 8)) & 1:
                continue
            try:
                data[offs[i]:offs[i + 1]].decode("utf-8")
            except UnicodeDecodeError:
                self.err(f"{where}: value {i} is not UTF-8")
                return


def check(data, name):
    return checker.run(File, data, name)


if __name__ == "__main__":
    sys.exit(checker.main(check, lambda f: f"{f.batches} record batch(es), {f.rows} rows", sys.argv[1:]))
