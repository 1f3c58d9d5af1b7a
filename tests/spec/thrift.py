"""thrift.py - a Thrift IDL (.thrift) read from the file itself, and a strict
reader of Thrift's compact protocol against it.

The compact protocol (Apache Thrift, doc/specs/thrift-compact-protocol.md):
a struct is a run of field headers (a delta of 1..15 to the previous field
id in the high nibble, else 0 and the id as a zigzag varint; the type in the
low nibble) and values, ended by a STOP byte; integers are zigzag varints,
doubles 8 bytes, binaries and strings a varint length and the bytes, lists a
size-and-type byte (size 15: a varint follows), maps a varint size and, when
not empty, a key-and-value type byte; a bool field is its type (1 true, 2
false), a bool in a list a byte.

Checked against the IDL: every field id is one the struct declares, with the
compact type its declared type has (list elements too); no field comes twice;
required fields are there; a union holds exactly one field; an enum holds one
of its values; an integer fits its width; strings are UTF-8; varints end
within 10 bytes. Every fault is kept with the path to it
(FileMetaData.row_groups[0].columns[3].meta_data.codec) and reading goes on
past it where it can.

What is left to the caller: what a format asks beyond the IDL (Parquet's
rules are parquet_file.py's). The parser takes the IDL subset parquet.thrift
uses: namespace, enum, struct, union, field ids, required/optional, defaults. """
import re
import struct

STOP, TRUE, FALSE, BYTE, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, STRUCT = range(13)
BASE = {"bool": TRUE, "byte": BYTE, "i8": BYTE, "i16": I16, "i32": I32, "i64": I64, "double": DOUBLE,
        "string": BINARY, "binary": BINARY}
RANGE = {BYTE: 7, I16: 15, I32: 31, I64: 63}  # bits of magnitude a signed value may use


class Idl:
    def __init__(self, path):
        text = open(path, encoding="utf-8").read()
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        text = re.sub(r"(//|#)[^\n]*", " ", text)
        self.enums, self.structs, self.unions = {}, {}, set()
        for name, body in re.findall(r"\benum\s+(\w+)\s*\{(.*?)\}", text, flags=re.S):
            values, v = {}, 0
            for item in [x.strip() for x in re.split(r"[,;]", body) if x.strip()]:
                m = re.fullmatch(r"(\w+)\s*(?:=\s*(-?\w+))?", item)
                if not m:
                    raise ValueError(f"{path}: enum {name}: cannot read {item!r}")
                v = int(m.group(2), 0) if m.group(2) else v
                values[v] = m.group(1)
                v += 1
            self.enums[name] = values
        for kind, name, body in re.findall(r"\b(struct|union|exception)\s+(\w+)\s*\{(.*?)\}", text, flags=re.S):
            fields = {}
            for fid, req, ty, fname in re.findall(r"(-?\d+)\s*:\s*(required\s+|optional\s+)?([\w.]+(?:\s*<[^>]*(?:<[^>]*>)?[^>]*>)?)\s+(\w+)", body):
                fields[int(fid)] = (fname, self.parse_type(ty.replace(" ", "")), req.strip() == "required")
            self.structs[name] = fields
            if kind == "union":
                self.unions.add(name)

    def parse_type(self, t):
        m = re.fullmatch(r"(list|set)<(.+)>", t)
        if m:
            return (m.group(1), self.parse_type(m.group(2)))
        m = re.fullmatch(r"map<(.+)>", t)
        if m:
            depth = 0
            for i, ch in enumerate(m.group(1)):
                depth += ch == "<"
                depth -= ch == ">"
                if ch == "," and depth == 0:
                    return ("map", self.parse_type(m.group(1)[:i]), self.parse_type(m.group(1)[i + 1:]))
            raise ValueError(f"map type {t}")
        return t

    def compact_type(self, t):
        if isinstance(t, tuple):
            return {"list": LIST, "set": SET, "map": MAP}[t[0]]
        if t in BASE:
            return BASE[t]
        if t in self.enums:
            return I32
        if t in self.structs:
            return STRUCT
        raise ValueError(f"unknown type {t}")


class Reader:
    """Read one value of an IDL type from buf at pos; .errors lists faults.
    Structs come back as dicts of field name -> value (with '_start' and
    '_end' byte positions, and '_at': each field's header byte and where its
    value starts), enums as their names, binaries as bytes, strings as str."""

    def __init__(self, idl, buf, pos, what):
        self.idl, self.b, self.pos, self.what = idl, buf, pos, what
        self.errors = []

    def err(self, path, msg):
        self.errors.append(f"{self.what}: {path}: {msg}")

    class Stop(Exception):
        pass

    def byte(self, path):
        if self.pos >= len(self.b):
            self.err(path, f"ends at {self.pos}, past the bytes it was given")
            raise Reader.Stop()
        v = self.b[self.pos]
        self.pos += 1
        return v

    def varint(self, path):
        v = shift = 0
        for _ in range(10):
            x = self.byte(path)
            v |= (x & 0x7F) << shift
            shift += 7
            if not x & 0x80:
                return v
        self.err(path, "a varint longer than 10 bytes")
        raise Reader.Stop()

    def zigzag(self, path, ctype):
        u = self.varint(path)
        v = (u >> 1) ^ -(u & 1)
        if not -(1 << RANGE[ctype]) <= v < (1 << RANGE[ctype]):
            self.err(path, f"{v} does not fit its width")
        return v

    def read(self, t, path):
        try:
            return self.value(t, self.idl.compact_type(t), path)
        except Reader.Stop:
            return None

    def value(self, t, ctype, path):
        if ctype in (TRUE, FALSE):
            return ctype == TRUE
        if ctype == BYTE:
            v = self.byte(path)
            return v - 256 if v > 127 else v
        if ctype in (I16, I32, I64):
            v = self.zigzag(path, ctype)
            if isinstance(t, str) and t in self.idl.enums:
                if v not in self.idl.enums[t]:
                    self.err(path, f"{v} is none of {t}'s values")
                    return v
                return self.idl.enums[t][v]
            return v
        if ctype == DOUBLE:
            if self.pos + 8 > len(self.b):
                self.err(path, "a double past the end")
                raise Reader.Stop()
            self.pos += 8
            return struct.unpack_from("<d", self.b, self.pos - 8)[0]
        if ctype == BINARY:
            n = self.varint(path)
            if self.pos + n > len(self.b):
                self.err(path, f"{n} bytes run past the end")
                raise Reader.Stop()
            v = bytes(self.b[self.pos:self.pos + n])
            self.pos += n
            if t == "string":
                try:
                    return v.decode("utf-8")
                except UnicodeDecodeError:
                    self.err(path, "a string that is not UTF-8")
            return v
        if ctype in (LIST, SET):
            h = self.byte(path)
            n, et = h >> 4, h & 15
            if n == 15:
                n = self.varint(path)
            want = self.idl.compact_type(t[1]) if isinstance(t, tuple) else None
            if isinstance(t, tuple) and n and et != want and not (want == TRUE and et == FALSE):
                self.err(path, f"list elements of compact type {et}, want {want}")
                raise Reader.Stop()
            out = []
            for i in range(n):
                if et in (TRUE, FALSE):
                    x = self.byte(f"{path}[{i}]")
                    if x not in (0, 1, 2):
                        self.err(f"{path}[{i}]", f"a bool of {x}")
                    out.append(x == 1)
                else:
                    out.append(self.value(t[1], et, f"{path}[{i}]"))
            return out
        if ctype == MAP:
            n = self.varint(path)
            if n == 0:
                return {}
            h = self.byte(path)
            kt, vt = self.idl.compact_type(t[1]), self.idl.compact_type(t[2])
            if (h >> 4, h & 15) != (kt, vt):
                self.err(path, f"map of compact types {h >> 4}, {h & 15}, want {kt}, {vt}")
                raise Reader.Stop()
            return {self.value(t[1], kt, path): self.value(t[2], vt, path) for _ in range(n)}
        if ctype == STRUCT:
            return self.struct(t, path)
        self.err(path, f"compact type {ctype}")
        raise Reader.Stop()

    def struct(self, name, path):
        fields = self.idl.structs[name]
        out = {"_start": self.pos}
        seen, last = set(), 0
        while True:
            h = self.byte(path)
            if h == STOP:
                break
            ctype, delta = h & 15, h >> 4
            fid = last + delta if delta else self.zigzag(path, I16)
            last = fid
            if fid not in fields:
                self.err(path, f"field id {fid}, which {name} does not declare")
                self.skip(ctype, path)
                continue
            fname, ftype, _ = fields[fid]
            fpath = f"{path}.{fname}"
            if fid in seen:
                self.err(fpath, "given twice")
            seen.add(fid)
            want = self.idl.compact_type(ftype)
            if ctype != want and not (want == TRUE and ctype == FALSE):
                self.err(fpath, f"compact type {ctype}, its type {ftype} is {want}")
                self.skip(ctype, fpath)
                continue
            out.setdefault("_at", {})[fname] = (h, self.pos)  # its header byte and where its value starts
            out[fname] = self.value(ftype, ctype, fpath)
        for fid, (fname, _, required) in fields.items():
            if required and fid not in seen:
                self.err(path, f"required field {fname} ({fid}) is absent")
        if name in self.idl.unions and len(seen) != 1:
            self.err(path, f"a union holding {len(seen)} fields")
        out["_end"] = self.pos
        return out

    def skip(self, ctype, path):
        """A value of a field the IDL does not know, by its compact type alone."""
        if ctype in (TRUE, FALSE):
            return
        if ctype == BYTE:
            self.byte(path)
        elif ctype in (I16, I32, I64):
            self.varint(path)
        elif ctype == DOUBLE:
            self.pos += 8
        elif ctype == BINARY:
            self.pos += self.varint(path)
        elif ctype in (LIST, SET):
            h = self.byte(path)
            n = h >> 4 if h >> 4 != 15 else self.varint(path)
            for _ in range(n):
                self.byte(path) if h & 15 in (TRUE, FALSE) else self.skip(h & 15, path)
        elif ctype == MAP:
            n = self.varint(path)
            if n:
                h = self.byte(path)
                for _ in range(n):
                    self.skip(h >> 4, path)
                    self.skip(h & 15, path)
        elif ctype == STRUCT:
            while True:
                h = self.byte(path)
                if h == STOP:
                    return
                if not h >> 4:
                    self.varint(path)
                self.skip(h & 15, path)
        else:
            self.err(path, f"compact type {ctype}")
            raise Reader.Stop()
