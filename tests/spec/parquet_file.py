#!/usr/bin/env python3
"""parquet_file.py FILE... - check Parquet files against the Parquet format's
specification (apache/parquet-format: README "File format", Encodings.md,
LogicalTypes.md) and its Thrift IDL beside this file
(parquet/parquet.thrift, read by thrift.py), not against what one reader
accepts.

The file: "PAR1" at both ends, the FileMetaData (compact protocol, checked
field by field against the IDL) filling exactly the length before the last
magic. The schema: a root, then its tree depth first (num_children adding up
to the list), repetition on every other element, a physical type on exactly
the leaves, converted types and logical types on the physical types they
allow and agreeing with each other, LIST and MAP groups in the shapes
LogicalTypes.md gives. Row groups: one chunk per leaf, path and type as the
leaf's, num_rows adding up to the file's, total_byte_size the chunks'
uncompressed sizes. Each chunk: its pages' headers (checked against the IDL,
the header its page type needs) walked from its first page to its
total_compressed_size, exactly; a dictionary page first or not at all, at
dictionary_page_offset, the first data page at data_page_offset; values
adding up to num_values; every data page's value encoding listed; sizes adding up to the
chunk's totals; CRCs when given. Uncompressed pages are decoded: levels (RLE
hybrid, within their maxima, as many as num_values), values as many as the
levels say (PLAIN, dictionary codes within the dictionary), UTF-8 where the
type says, rows (repetition level 0) adding up to the group's; and the
chunk's statistics hold: null_count the NULLs counted (flat leaves), every
value between min_value and max_value in the column's sort order.

Prints "FILE: ok (...)" per good file, every fault of a bad one; exits 1 when
any file has one. Importable: check(bytes, name) returns (faults, checker)."""
import math
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checker  # noqa: E402
import thrift  # noqa: E402

IDL = thrift.Idl(os.path.join(os.path.dirname(os.path.abspath(__file__)), "parquet", "parquet.thrift"))
WIDTH = {"INT32": 4, "INT64": 8, "INT96": 12, "FLOAT": 4, "DOUBLE": 8}
# converted types and the physical types they may annotate (LogicalTypes.md)
CONVERTED = {
    "UTF8": {"BYTE_ARRAY"}, "ENUM": {"BYTE_ARRAY"}, "JSON": {"BYTE_ARRAY"}, "BSON": {"BYTE_ARRAY"},
    "INT_8": {"INT32"}, "INT_16": {"INT32"}, "INT_32": {"INT32"}, "UINT_8": {"INT32"}, "UINT_16": {"INT32"},
    "UINT_32": {"INT32"}, "INT_64": {"INT64"}, "UINT_64": {"INT64"}, "DATE": {"INT32"}, "TIME_MILLIS": {"INT32"},
    "TIME_MICROS": {"INT64"}, "TIMESTAMP_MILLIS": {"INT64"}, "TIMESTAMP_MICROS": {"INT64"},
    "DECIMAL": {"INT32", "INT64", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"}, "INTERVAL": {"FIXED_LEN_BYTE_ARRAY"},
}
LOGICAL = {
    "STRING": {"BYTE_ARRAY"}, "ENUM": {"BYTE_ARRAY"}, "JSON": {"BYTE_ARRAY"}, "BSON": {"BYTE_ARRAY"},
    "UUID": {"FIXED_LEN_BYTE_ARRAY"}, "FLOAT16": {"FIXED_LEN_BYTE_ARRAY"}, "DATE": {"INT32"},
    "DECIMAL": {"INT32", "INT64", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"}, "TIMESTAMP": {"INT64"},
    "INTEGER": {"INT32", "INT64"}, "TIME": {"INT32", "INT64"}, "VARIANT": set(), "UNKNOWN": None,
}


def unit_of(u):
    return next(k for k in u if not k.startswith("_"))


class File:
    def __init__(self, data, name):
        self.b, self.name = data, name
        self.errors = []
        self.pages = 0

    def err(self, msg):
        self.errors.append(f"{self.name}: {msg}")

    def read(self, tname, pos, end, what):
        r = thrift.Reader(IDL, memoryview(self.b)[:end], pos, what)
        v = r.read(tname, tname)
        self.errors += [f"{self.name}: {e}" for e in r.errors]
        return (None if r.errors else v), r.pos

    def check(self):
        b = self.b
        if len(b) < 12 or b[:4] != b"PAR1" or b[-4:] != b"PAR1":
            self.err("no PAR1 magic at both ends")
            return
        (flen,) = struct.unpack_from("<I", b, len(b) - 8)
        self.fstart = len(b) - 8 - flen
        if self.fstart < 4:
            self.err(f"a footer of {flen} bytes in a file of {len(b)}")
            return
        meta, end = self.read("FileMetaData", self.fstart, len(b) - 8, "FileMetaData")
        if meta is None or self.errors:
            return
        if end != len(b) - 8:
            self.err(f"the FileMetaData ends at {end}, {len(b) - 8 - end} bytes before its length says")
        if meta["version"] not in (1, 2):
            self.err(f"version {meta['version']}")
        self.leaves = self.schema(meta["schema"])
        if self.leaves is None:
            return
        if "column_orders" in meta and len(meta["column_orders"]) != len(self.leaves):
            self.err(f"{len(meta['column_orders'])} column orders for {len(self.leaves)} leaves")
        if sum(rg["num_rows"] for rg in meta["row_groups"]) != meta["num_rows"]:
            self.err(f"num_rows {meta['num_rows']}, the row groups hold {sum(rg['num_rows'] for rg in meta['row_groups'])}")
        for g, rg in enumerate(meta["row_groups"]):
            self.row_group(rg, f"row group {g}")
        self.meta = meta

    # ---- schema --------------------------------------------------------------

    def schema(self, elems):
        """The leaves: (path, element, max definition level, max repetition level)."""
        if not elems or "type" in elems[0] or elems[0].get("num_children", 0) < 1:
            self.err("the schema's root is not a group with children")
            return None
        leaves, at = [], [1]

        def walk(parent_path, n, dmax, rmax, parent):
            for _ in range(n):
                if at[0] >= len(elems):
                    self.err(f"{'.'.join(parent_path) or 'the root'}: its num_children run past the schema's end")
                    return False
                e = elems[at[0]]
                at[0] += 1
                path = parent_path + [e["name"]]
                where = "schema " + ".".join(path)
                rep = e.get("repetition_type")
                if rep is None:
                    self.err(f"{where}: no repetition_type")
                    return False
                d, r = dmax + (rep != "REQUIRED"), rmax + (rep == "REPEATED")
                self.annotations(e, where, elems[at[0]] if at[0] < len(elems) else None)
                if "num_children" in e:
                    if "type" in e or e["num_children"] < 1:
                        self.err(f"{where}: a group with a physical type or no children")
                        return False
                    if not walk(path, e["num_children"], d, r, e):
                        return False
                else:
                    if "type" not in e:
                        self.err(f"{where}: a leaf with no physical type")
                        return False
                    if e["type"] == "FIXED_LEN_BYTE_ARRAY" and e.get("type_length", 0) < 1:
                        self.err(f"{where}: FIXED_LEN_BYTE_ARRAY with no type_length")
                    leaves.append((path, e, d, r))
            return True

        if not walk([], elems[0]["num_children"], 0, 0, elems[0]):
            return None
        if at[0] != len(elems):
            self.err(f"the schema tree ends at element {at[0]} of {len(elems)}")
            return None
        self.elems = elems
        return leaves

    def annotations(self, e, where, child):
        ct, lt, ty = e.get("converted_type"), e.get("logicalType"), e.get("type")
        if ct in CONVERTED and ty not in CONVERTED[ct]:
            self.err(f"{where}: converted type {ct} on {ty}")
        if ct in ("LIST", "MAP", "MAP_KEY_VALUE") and "num_children" not in e:
            self.err(f"{where}: {ct} on a leaf")
        if ct == "DECIMAL" and not (1 <= e.get("precision", 0) and 0 <= e.get("scale", 0) <= e.get("precision", 0)):
            self.err(f"{where}: DECIMAL without a precision and scale")
        if lt is None:
            if ct == "LIST":
                self.list_shape(e, where, child)
            return
        kind = unit_of(lt)
        allowed = LOGICAL.get(kind)
        if kind in ("LIST", "MAP"):
            if "num_children" not in e:
                self.err(f"{where}: logical type {kind} on a leaf")
            if ct is not None and ct != kind:
                self.err(f"{where}: logical type {kind}, converted type {ct}")
            if kind == "LIST":
                self.list_shape(e, where, child)
            return
        if allowed is not None and ty not in allowed:
            self.err(f"{where}: logical type {kind} on {ty}")
        want = {"STRING": "UTF8", "ENUM": "ENUM", "JSON": "JSON", "BSON": "BSON", "DATE": "DATE"}.get(kind)
        if kind == "INTEGER":
            i = lt["INTEGER"]
            want = f"{'INT' if i['isSigned'] else 'UINT'}_{i['bitWidth']}"
            if i["bitWidth"] not in (8, 16, 32, 64) or (i["bitWidth"] == 64) != (ty == "INT64"):
                self.err(f"{where}: INTEGER({i['bitWidth']}) on {ty}")
        elif kind == "DECIMAL":
            want = "DECIMAL"
            dec = lt["DECIMAL"]
            if (e.get("precision"), e.get("scale")) != (dec["precision"], dec["scale"]) and "precision" in e:
                self.err(f"{where}: DECIMAL({dec['precision']}, {dec['scale']}), the element says "
                         f"({e.get('precision')}, {e.get('scale')})")
        elif kind in ("TIMESTAMP", "TIME"):
            unit = unit_of(lt[kind]["unit"])
            want = {"MILLIS": f"{kind}_MILLIS", "MICROS": f"{kind}_MICROS"}.get(unit)
            if kind == "TIME" and (ty == "INT32") != (unit == "MILLIS"):
                self.err(f"{where}: TIME({unit}) on {ty}")
        if ct is not None and want is not None and ct != want:
            self.err(f"{where}: logical type {kind}, converted type {ct} (want {want})")
        if kind == "FLOAT16" and e.get("type_length") != 2:
            self.err(f"{where}: FLOAT16 of type_length {e.get('type_length')}")
        if kind == "UUID" and e.get("type_length") != 16:
            self.err(f"{where}: UUID of type_length {e.get('type_length')}")

    def list_shape(self, e, where, child):
        """A LIST group holds one repeated field (LogicalTypes.md, Lists)."""
        if e.get("num_children") != 1 or child is None or child.get("repetition_type") != "REPEATED":
            self.err(f"{where}: a LIST group whose one child is not repeated")

    # ---- row groups and chunks -------------------------------------------------

    def row_group(self, rg, where):
        cols = rg["columns"]
        if len(cols) != len(self.leaves):
            self.err(f"{where}: {len(cols)} chunks for {len(self.leaves)} leaves")
            return
        if sum(c.get("meta_data", {}).get("total_uncompressed_size", 0) for c in cols) != rg["total_byte_size"]:
            self.err(f"{where}: total_byte_size {rg['total_byte_size']}, its chunks' uncompressed sizes "
                     f"{sum(c.get('meta_data', {}).get('total_uncompressed_size', 0) for c in cols)}")
        for c, leaf in zip(cols, self.leaves):
            self.chunk(c, leaf, rg["num_rows"], f"{where} column {'.'.join(leaf[0])}")

    def chunk(self, c, leaf, rows, where):
        path, elem, dmax, rmax = leaf
        m = c.get("meta_data")
        if m is None or "file_path" in c:
            self.err(f"{where}: no meta_data, or in another file")
            return
        if m["path_in_schema"] != path or m["type"] != elem["type"]:
            self.err(f"{where}: path {m['path_in_schema']} of {m['type']}, the schema's leaf is {path} of {elem['type']}")
            return
        start = m.get("dictionary_page_offset", m["data_page_offset"])
        if "dictionary_page_offset" in m and m["dictionary_page_offset"] >= m["data_page_offset"]:
            self.err(f"{where}: dictionary page at {m['dictionary_page_offset']}, after the data at {m['data_page_offset']}")
        end = start + m["total_compressed_size"]
        if start < 4 or end > self.fstart:
            self.err(f"{where}: pages at [{start}, {end}) outside [4, {self.fstart})")
            return
        pos, values, comp, uncomp, used, dictionary, first_data = start, 0, 0, 0, set(), None, None
        st = Stats(self, elem, m.get("statistics"), dmax, rmax, where)
        rows_seen = 0
        while pos < end:
            h, hend = self.read("PageHeader", pos, end, f"{where} page at {pos}")
            if h is None:
                return
            self.pages += 1
            body = hend + h["compressed_page_size"]
            if h["compressed_page_size"] < 0 or h["uncompressed_page_size"] < 0 or body > end:
                self.err(f"{where}: page at {pos} of {h['compressed_page_size']} bytes runs past the chunk's end {end}")
                return
            comp += body - pos
            uncomp += hend - pos + h["uncompressed_page_size"]
            if m["codec"] == "UNCOMPRESSED" and h["compressed_page_size"] != h["uncompressed_page_size"]:
                self.err(f"{where}: an uncompressed page at {pos} of {h['compressed_page_size']} bytes, "
                         f"{h['uncompressed_page_size']} uncompressed")
            if "crc" in h and (zlib.crc32(self.b[hend:body]) ^ 0x80000000) - 0x80000000 != h["crc"]:
                self.err(f"{where}: page at {pos}: its CRC does not match")
            page = memoryview(self.b)[hend:body]
            ty, need = h["type"], {"DATA_PAGE": "data_page_header", "DICTIONARY_PAGE": "dictionary_page_header",
                                   "DATA_PAGE_V2": "data_page_header_v2", "INDEX_PAGE": "index_page_header"}[h["type"]]
            if need not in h:
                self.err(f"{where}: a {ty} at {pos} without its {need}")
                return
            ph = h[need]
            if ty == "DICTIONARY_PAGE":
                if pos != start or "dictionary_page_offset" not in m or dictionary is not None:
                    self.err(f"{where}: a dictionary page at {pos}, not the chunk's first at dictionary_page_offset")
                if ph["encoding"] not in ("PLAIN", "PLAIN_DICTIONARY"):
                    self.err(f"{where}: a dictionary page of encoding {ph['encoding']}")
                dictionary = ph["num_values"]
                if m["codec"] == "UNCOMPRESSED":
                    vals = self.plain(page, 0, ph["num_values"], elem, f"{where}: dictionary page at {pos}")
                    st.dictionary = vals
            elif ty in ("DATA_PAGE", "DATA_PAGE_V2"):
                if first_data is None:
                    first_data = pos
                values += ph["num_values"]
                used.add(ph["encoding"])
                if ph["encoding"] in ("RLE_DICTIONARY", "PLAIN_DICTIONARY") and dictionary is None:
                    self.err(f"{where}: dictionary codes at {pos} with no dictionary page")
                if m["codec"] == "UNCOMPRESSED" or (ty == "DATA_PAGE_V2" and not ph.get("is_compressed", True)):
                    rows_seen += self.data_page(page, ty, ph, leaf, dictionary, st, f"{where}: page at {pos}")
                else:
                    rows_seen = st.decoded = None
            pos = body
        if pos != end:
            self.err(f"{where}: pages end at {pos}, the chunk at {end}")
        if first_data != m["data_page_offset"]:
            self.err(f"{where}: the first data page is at {first_data}, data_page_offset says {m['data_page_offset']}")
        if values != m["num_values"]:
            self.err(f"{where}: pages hold {values} values, num_values says {m['num_values']}")
        if comp != m["total_compressed_size"] or uncomp != m["total_uncompressed_size"]:
            self.err(f"{where}: pages of {comp} bytes ({uncomp} uncompressed), the chunk says "
                     f"{m['total_compressed_size']} ({m['total_uncompressed_size']})")
        if not used <= set(m["encodings"]):
            self.err(f"{where}: encodings {sorted(used)} used, {m['encodings']} listed")
        if rows_seen is not None and rows_seen != rows:
            self.err(f"{where}: {rows_seen} rows in its pages, the row group has {rows}")
        st.finish()

    def data_page(self, page, ty, ph, leaf, dictionary, st, where):
        """Decode an uncompressed data page's levels and values: its rows."""
        _, elem, dmax, rmax = leaf
        n = ph["num_values"]
        at = 0
        levels = []
        for which, mx in (("repetition", rmax), ("definition", dmax)):
            if mx == 0:
                levels.append([0] * n)
                continue
            if ty == "DATA_PAGE":
                if ph[f"{which}_level_encoding"] != "RLE":
                    return 0
                if at + 4 > len(page):
                    self.err(f"{where}: no room for its {which} levels' length")
                    return 0
                (ln,) = struct.unpack_from("<I", page, at)
                at += 4
            else:
                ln = ph[f"{which}_levels_byte_length"]
            if at + ln > len(page):
                self.err(f"{where}: {which} levels of {ln} bytes run past the page")
                return 0
            lv = hybrid(page[at:at + ln], mx.bit_length(), n)
            if lv is None or len(lv) < n:
                self.err(f"{where}: {which} levels decode to fewer than {n}")
                return 0
            if max(lv[:n], default=0) > mx:
                self.err(f"{where}: a {which} level above {mx}")
            levels.append(lv[:n])
            at += ln
        reps, defs = levels
        present = sum(1 for d in defs if d == dmax)
        if ty == "DATA_PAGE_V2" and ph["num_nulls"] != n - present and rmax == 0:
            self.err(f"{where}: num_nulls {ph['num_nulls']}, its levels say {n - present}")
        if ty == "DATA_PAGE_V2" and ph["num_rows"] != sum(1 for r in reps if r == 0):
            self.err(f"{where}: num_rows {ph['num_rows']}, its levels start {sum(1 for r in reps if r == 0)}")
        rows = sum(1 for r in reps if r == 0)
        vals = None
        if ph["encoding"] == "PLAIN":
            vals = self.plain(page, at, present, elem, where)
        elif ph["encoding"] in ("RLE_DICTIONARY", "PLAIN_DICTIONARY"):
            if at >= len(page) and present:
                self.err(f"{where}: no dictionary codes")
                return rows
            if present:
                bw = page[at]
                codes = hybrid(page[at + 1:], bw, present) if bw <= 32 else None
                if codes is None or len(codes) < present:
                    self.err(f"{where}: dictionary codes of width {bw} decode to fewer than {present}")
                    return rows
                if dictionary is not None and max(codes[:present]) >= dictionary:
                    self.err(f"{where}: a dictionary code past the dictionary's {dictionary} values")
                    return rows
                if st.dictionary is not None:
                    vals = [st.dictionary[k] for k in codes[:present]]
        st.page(defs, vals)
        return rows

    def plain(self, page, at, n, elem, where):
        """n PLAIN values from page[at:]; None when they do not fit."""
        ty = elem["type"]
        if ty == "BOOLEAN":
            if at + (n + 7) // 8 > len(page):
                self.err(f"{where}: {n} booleans do not fit")
                return None
            return [bool((page[at + i // 8] >> (i % 8)) & 1) for i in range(n)]
        if ty == "BYTE_ARRAY":
            out = []
            for i in range(n):
                if at + 4 > len(page):
                    self.err(f"{where}: value {i} of {n} runs past the page")
                    return None
                (ln,) = struct.unpack_from("<I", page, at)
                if at + 4 + ln > len(page):
                    self.err(f"{where}: value {i} of {n} ({ln} bytes) runs past the page")
                    return None
                out.append(bytes(page[at + 4:at + 4 + ln]))
                at += 4 + ln
            if is_text(elem):
                for i, v in enumerate(out):
                    try:
                        v.decode("utf-8")
                    except UnicodeDecodeError:
                        self.err(f"{where}: value {i} is not UTF-8")
                        break
            return out
        w = elem.get("type_length") if ty == "FIXED_LEN_BYTE_ARRAY" else WIDTH[ty]
        if at + n * w > len(page):
            self.err(f"{where}: {n} values of {w} bytes do not fit")
            return None
        if ty in ("INT32", "INT64", "FLOAT", "DOUBLE"):
            return list(struct.unpack_from(f"<{n}{ {'INT32': 'i', 'INT64': 'q', 'FLOAT': 'f', 'DOUBLE': 'd'}[ty]}", page, at))
        return [bytes(page[at + i * w:at + (i + 1) * w]) for i in range(n)]


def is_text(elem):
    lt = elem.get("logicalType") or {}
    return elem.get("converted_type") in ("UTF8", "JSON", "ENUM") or any(k in lt for k in ("STRING", "JSON", "ENUM"))


def hybrid(buf, width, n):
    """The RLE / bit-packed hybrid (Encodings.md): at least n values, or None."""
    out, at, vbytes = [], 0, (width + 7) // 8
    while len(out) < n:
        h = v = shift = 0
        while True:
            if at >= len(buf):
                return None
            x = buf[at]
            at += 1
            v |= (x & 0x7F) << shift
            shift += 7
            if not x & 0x80:
                break
        h = v
        if h & 1:  # bit-packed: h >> 1 groups of 8
            nbytes = (h >> 1) * width
            if at + nbytes > len(buf):
                return None
            chunk = int.from_bytes(buf[at:at + nbytes], "little")
            for i in range((h >> 1) * 8):
                out.append((chunk >> (i * width)) & ((1 << width) - 1))
            at += nbytes
        else:
            if at + vbytes > len(buf):
                return None
            out += [int.from_bytes(buf[at:at + vbytes], "little")] * (h >> 1)
            at += vbytes
            if h >> 1 == 0:
                return None
    return out


class Stats:
    """A chunk's statistics against the values its pages hold."""

    def __init__(self, f, elem, s, dmax, rmax, where):
        self.f, self.elem, self.s, self.dmax, self.rmax, self.where = f, elem, s or {}, dmax, rmax, where
        self.nulls, self.dictionary, self.decoded = 0, None, True
        self.key = sort_key(elem)
        self.lo = self.hi = None
        ty = elem["type"]
        width = dict(WIDTH, BOOLEAN=1).get(ty)
        for k in ("min_value", "max_value"):
            v = self.s.get(k)
            if v is not None and width is not None and len(v) != width:
                f.err(f"{where}: statistics {k} of {len(v)} bytes for {ty}")
                self.key = None
        if self.key and "min_value" in self.s and "max_value" in self.s:
            self.lo, self.hi = self.key(decode_stat(ty, self.s["min_value"])), self.key(decode_stat(ty, self.s["max_value"]))
            if self.lo > self.hi:
                f.err(f"{where}: statistics min_value above max_value")

    def page(self, defs, vals):
        self.nulls += sum(1 for d in defs if d < self.dmax)
        if vals is not None and self.lo is not None:
            for v in vals:
                if isinstance(v, float) and math.isnan(v):
                    continue
                k = self.key(v)
                if not self.lo <= k <= self.hi:
                    self.f.err(f"{self.where}: value {v!r} outside its statistics' [min_value, max_value]")
                    self.lo = None
                    break

    def finish(self):
        if self.decoded and self.rmax == 0 and "null_count" in self.s and self.s["null_count"] != self.nulls and self.dmax <= 1:
            self.f.err(f"{self.where}: statistics null_count {self.s['null_count']}, its pages hold {self.nulls} NULLs")


def decode_stat(ty, v):
    if ty in ("INT32", "INT64", "FLOAT", "DOUBLE"):
        return struct.unpack("<" + {"INT32": "i", "INT64": "q", "FLOAT": "f", "DOUBLE": "d"}[ty], v)[0]
    if ty == "BOOLEAN":
        return bool(v[0])
    return v


def sort_key(elem):
    """The column order's key (TypeDefinedOrder), or None where it is not plain."""
    ty, ct = elem["type"], elem.get("converted_type")
    lt = elem.get("logicalType") or {}
    unsigned = ct in ("UINT_8", "UINT_16", "UINT_32", "UINT_64") or ("INTEGER" in lt and not lt["INTEGER"]["isSigned"])
    if ty in ("INT32", "INT64"):
        bits = 32 if ty == "INT32" else 64
        return (lambda v: v % (1 << bits)) if unsigned else (lambda v: v)
    if ty in ("FLOAT", "DOUBLE"):
        return lambda v: v
    if ty == "BOOLEAN":
        return lambda v: v
    if ty == "BYTE_ARRAY" and (is_text(elem) or not lt):
        return lambda v: bytes(v)
    return None


def check(data, name):
    return checker.run(File, data, name)


if __name__ == "__main__":
    sys.exit(checker.main(check, lambda f: (f"{len(f.meta['row_groups'])} row group(s), {f.meta['num_rows']} rows, "
                                      f"{len(f.leaves)} leaves, {f.pages} pages"), sys.argv[1:]))
