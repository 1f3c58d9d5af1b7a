"""fbs.py - FlatBuffers schemas (.fbs) read from the files themselves, and a
verifier of FlatBuffers binaries against them.

The verifier follows the FlatBuffers binary format (flatbuffers.dev,
"Internals" and the reference verifier's rules), as strictly as a reader may
be: every offset lands inside the buffer and is not zero, every table's vtable
lies inside it, is 2-aligned, of an even size of at least 4 bytes, and names
only fields the schema has, each within the table's inline size; scalars lie
on their size, offsets and tables on 4 bytes, a vector's elements on their own
alignment (structs: their largest member), strings end in a NUL and are UTF-8;
enums hold one of their values, bools 0 or 1; a union's type and value are
both there or both absent and the type is one of its members; fields marked
(required) are there; nesting and table counts stay under the reference's
limits. Every fault is reported with the path to it (Footer.schema.fields[2].
type), and verification goes on so one run lists them all.

What is left to the caller: what a format asks beyond FlatBuffers (Arrow's
rules are arrow_ipc.py's). The parser takes the .fbs subset Arrow's schemas
use: include, namespace, enum, union, table, struct, attributes, root_type. """
import os
import re
import struct

SCALARS = {  # name: (struct code, size)
    "bool": ("B", 1), "byte": ("b", 1), "ubyte": ("B", 1), "int8": ("b", 1), "uint8": ("B", 1),
    "short": ("h", 2), "ushort": ("H", 2), "int16": ("h", 2), "uint16": ("H", 2),
    "int": ("i", 4), "uint": ("I", 4), "int32": ("i", 4), "uint32": ("I", 4),
    "long": ("q", 8), "ulong": ("Q", 8), "int64": ("q", 8), "uint64": ("Q", 8),
    "float": ("f", 4), "double": ("d", 8), "float32": ("f", 4), "float64": ("d", 8),
}
MAX_DEPTH = 64  # the reference verifier's default limits
MAX_TABLES = 1000000


class Field:
    def __init__(self, name, type_, vector, attrs, default):
        self.name, self.type, self.vector, self.attrs, self.default = name, type_, vector, attrs, default
        self.id = None  # the vtable slot (a union's value: the slot after its type's)


class Decl:
    def __init__(self, kind, name):
        self.kind, self.name = kind, name  # kind: table, struct, enum, union
        self.fields = []  # tables and structs
        self.values = {}  # enums: value -> name; unions: type number -> member name
        self.base = None  # enums: the underlying scalar
        self.size = self.align = 0  # structs


class Schema:
    """The declarations of one .fbs file and every file it includes."""

    def __init__(self, path):
        self.decls = {}
        self.root = None
        self._read(path, set())
        for d in self.decls.values():
            if d.kind == "struct":
                self._layout(d)
            if d.kind == "table":
                slot = 0
                for f in d.fields:
                    if self.kind_of(f.type) == "union":
                        slot += 1  # NAME_type comes first
                    f.id = slot
                    slot += 1

    def _read(self, path, seen):
        path = os.path.abspath(path)
        if path in seen:
            return
        seen.add(path)
        text = open(path, encoding="utf-8").read()
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        text = re.sub(r"//[^\n]*", " ", text)
        m = re.search(r"root_type\s+([\w.]+)\s*;", text)
        if m and self.root is None:  # the first file's: included files' come after
            self.root = m.group(1).split(".")[-1]
        for inc in re.findall(r'include\s+"([^"]+)"\s*;', text):
            self._read(os.path.join(os.path.dirname(path), inc), seen)
        text = re.sub(r'include\s+"[^"]+"\s*;', " ", text)
        text = re.sub(r"namespace\s+[\w.]+\s*;", " ", text)
        text = re.sub(r"attribute\s+[^;]+;", " ", text)
        text = re.sub(r"(root_type|file_identifier|file_extension)\s+[^;]+;", " ", text)
        for kind, name, base, body in re.findall(r"(table|struct|enum|union)\s+(\w+)\s*(?::\s*(\w+))?\s*(?:\([^)]*\))?\s*\{(.*?)\}", text, flags=re.S):
            d = Decl(kind, name)
            if kind in ("enum", "union"):
                d.base = base or "ubyte"
                value = 0 if kind == "enum" else 1  # a union's 0 is NONE
                for item in [x.strip() for x in body.split(",") if x.strip()]:
                    m = re.fullmatch(r"([\w.]+)\s*(?:=\s*(-?\w+))?", item)
                    if not m:
                        raise ValueError(f"{path}: cannot read {kind} {name} member {item!r}")
                    if m.group(2) is not None:
                        value = int(m.group(2), 0)
                    d.values[value] = m.group(1).split(".")[-1]
                    value += 1
            else:
                for item in [x.strip() for x in body.split(";") if x.strip()]:
                    m = re.fullmatch(r"(\w+)\s*:\s*(\[?)\s*([\w.]+)\s*\]?\s*(?:=\s*([^()\s]+))?\s*(?:\(([^)]*)\))?", item)
                    if not m:
                        raise ValueError(f"{path}: cannot read {kind} {name} field {item!r}")
                    attrs = {a.split(":")[0].strip() for a in (m.group(5) or "").split(",") if a.strip()}
                    d.fields.append(Field(m.group(1), m.group(3).split(".")[-1], bool(m.group(2)), attrs, m.group(4)))
            self.decls[name] = d

    def default(self, tname, fname):
        """A scalar or enum field's value when it is absent (0 unless the schema says)."""
        f = next(f for f in self.decls[tname].fields if f.name == fname)
        if f.default is None:
            return 0
        if self.kind_of(f.type) == "enum":
            return next(v for v, n in self.decls[f.type].values.items() if n == f.default)
        return {"true": 1, "false": 0}.get(f.default) if f.default in ("true", "false") else int(f.default, 0)

    def kind_of(self, t):
        if t in SCALARS:
            return "scalar"
        if t == "string":
            return "string"
        if t not in self.decls:
            raise ValueError(f"unknown type {t}")
        return self.decls[t].kind

    def size_align(self, t):
        """Inline size and alignment of a scalar, enum or struct."""
        k = self.kind_of(t)
        if k == "scalar":
            return SCALARS[t][1], SCALARS[t][1]
        if k == "enum":
            return SCALARS[self.decls[t].base][1], SCALARS[self.decls[t].base][1]
        if k == "struct":
            return self.decls[t].size, self.decls[t].align
        return 4, 4  # an offset

    def _layout(self, d):
        if d.size:
            return
        at, align = 0, 1
        d.offsets = []
        for f in d.fields:
            if self.kind_of(f.type) == "struct":
                self._layout(self.decls[f.type])
            size, a = self.size_align(f.type)
            at = (at + a - 1) // a * a
            d.offsets.append(at)
            at += size
            align = max(align, a)
        d.size, d.align = (at + align - 1) // align * align, align


class Verifier:
    """Verify buf (bytes) as a root table of schema; .errors lists the faults.
    The returned values are dicts of field name -> value (tables), lists
    (vectors), str (strings), dicts (structs), ints (scalars, enums), and
    a union as {'type': member name, 'value': table}."""

    def __init__(self, schema, buf, what):
        self.s, self.b, self.what = schema, buf, what
        self.errors = []
        self.tables = 0

    def err(self, path, msg):
        self.errors.append(f"{self.what}: {path}: {msg}")

    def inside(self, at, n):
        return 0 <= at and at + n <= len(self.b)

    def u32(self, at):
        return struct.unpack_from("<I", self.b, at)[0]

    def root(self, type_name=None):
        t = type_name or self.s.root
        if len(self.b) < 8 or len(self.b) >= 1 << 31:
            self.err(t, f"a buffer of {len(self.b)} bytes")
            return None
        return self.table(0, t, t, 0, root=True)

    def offset(self, at, path):
        """The uoffset at `at`: where it points, or None."""
        if at % 4:
            self.err(path, f"an offset at {at}, not on 4 bytes")
            return None
        if not self.inside(at, 4):
            self.err(path, f"an offset at {at} past the buffer's end {len(self.b)}")
            return None
        o = self.u32(at)
        if o == 0 or o >= 1 << 31:
            self.err(path, f"offset {o} at {at}")
            return None
        if not self.inside(at + o, 1):
            self.err(path, f"offset {o} at {at} points past the buffer's end {len(self.b)}")
            return None
        return at + o

    def table(self, slot, tname, path, depth, root=False):
        pos = self.offset(slot, path)
        if pos is None:
            return None
        self.tables += 1
        if depth >= MAX_DEPTH or self.tables > MAX_TABLES:
            self.err(path, "nested too deep or too many tables")
            return None
        if pos % 4 or not self.inside(pos, 4):
            self.err(path, f"a table at {pos}, not on 4 bytes or past the end")
            return None
        vt = pos - struct.unpack_from("<i", self.b, pos)[0]
        if vt % 2 or not self.inside(vt, 4):
            self.err(path, f"its vtable at {vt} is not on 2 bytes or lies outside the buffer")
            return None
        vsize, tsize = struct.unpack_from("<HH", self.b, vt)
        if vsize % 2 or vsize < 4 or not self.inside(vt, vsize):
            self.err(path, f"a vtable of {vsize} bytes at {vt}")
            return None
        if tsize < 4 or not self.inside(pos, tsize):
            self.err(path, f"an inline size of {tsize} bytes at {pos}")
            return None
        d = self.s.decls[tname]
        slots = [struct.unpack_from("<H", self.b, vt + 4 + 2 * i)[0] for i in range((vsize - 4) // 2)]
        known = {f.id for f in d.fields} | {f.id - 1 for f in d.fields if self.s.kind_of(f.type) == "union"}
        for i, fo in enumerate(slots):
            if fo and i not in known:
                self.err(path, f"its vtable gives field id {i}, which {tname} does not have")
            if fo and fo < 4:
                self.err(path, f"field id {i} at {fo}, inside the table's vtable offset")
        out = {}
        for f in d.fields:
            fpath = f"{path}.{f.name}"
            kind = self.s.kind_of(f.type)
            fo = slots[f.id] if f.id < len(slots) else 0
            if kind == "union":
                tfo = slots[f.id - 1] if f.id - 1 < len(slots) else 0
                out[f.name] = self.union(pos, tfo, fo, f, fpath, depth)
                continue
            if not fo:
                if "required" in f.attrs:
                    self.err(fpath, "a required field is absent")
                continue
            size, align = self.s.size_align(f.type) if not f.vector else (4, 4)
            if kind in ("table", "string") or f.vector:
                size, align = 4, 4
            if fo + size > tsize:
                self.err(fpath, f"at {fo}, past the table's inline size {tsize}")
                continue
            at = pos + fo
            if at % align:
                self.err(fpath, f"at {at}, not on {align} bytes")
            if f.vector:
                out[f.name] = self.vector(at, f.type, fpath, depth)
            elif kind == "table":
                out[f.name] = self.table(at, f.type, fpath, depth + 1)
            elif kind == "string":
                out[f.name] = self.string(at, fpath)
            else:
                out[f.name] = self.inline(at, f.type, fpath)
        return out

    def union(self, pos, tfo, fo, f, path, depth):
        u = self.s.decls[f.type]
        tsize = struct.unpack_from("<H", self.b, pos - struct.unpack_from("<i", self.b, pos)[0] + 2)[0]
        if tfo + 1 > tsize or (fo and fo + 4 > tsize):
            self.err(path, f"its type or value lies past the table's inline size {tsize}")
            return None
        if fo and (pos + fo) % 4:
            self.err(path, f"its value's offset at {pos + fo}, not on 4 bytes")
        ty = self.b[pos + tfo] if tfo else 0
        if (ty == 0) != (fo == 0):
            self.err(path, f"union type {ty} with {'a' if fo else 'no'} value")
            return None
        if ty == 0:
            if "required" in f.attrs:
                self.err(path, "a required union is absent")
            return None
        if ty not in u.values:
            self.err(path, f"union type {ty} is none of {f.type}'s members")
            return None
        member = u.values[ty]
        return {"type": member, "value": self.table(pos + fo, member, f"{path}<{member}>", depth + 1)}

    def inline(self, at, t, path):
        kind = self.s.kind_of(t)
        if kind == "struct":
            d = self.s.decls[t]
            return {f.name: self.inline(at + o, f.type, f"{path}.{f.name}") for f, o in zip(d.fields, d.offsets)}
        base = self.s.decls[t].base if kind == "enum" else t
        v = struct.unpack_from("<" + SCALARS[base][0], self.b, at)[0]
        if t == "bool" and v not in (0, 1):
            self.err(path, f"a bool of {v}")
        if kind == "enum" and v not in self.s.decls[t].values:
            self.err(path, f"{v} is none of {t}'s values")
        return v

    def counted(self, slot, what, path):
        """(at, n): where the string or vector slot points, on 4 bytes and
        inside the buffer, and the u32 count there; None after a fault."""
        at = self.offset(slot, path)
        if at is None:
            return None
        if at % 4 or not self.inside(at, 4):
            self.err(path, f"a {what} at {at}, not on 4 bytes or past the end")
            return None
        return at, self.u32(at)

    def string(self, slot, path):
        c = self.counted(slot, "string", path)
        if c is None:
            return None
        at, n = c
        if not self.inside(at + 4, n + 1):
            self.err(path, f"a string of {n} bytes at {at} runs past the buffer")
            return None
        if self.b[at + 4 + n] != 0:
            self.err(path, "a string not ended by a NUL")
        try:
            return bytes(self.b[at + 4:at + 4 + n]).decode("utf-8")
        except UnicodeDecodeError:
            self.err(path, "a string that is not UTF-8")
            return None

    def vector(self, slot, t, path, depth):
        c = self.counted(slot, "vector", path)
        if c is None:
            return None
        at, n = c
        kind = self.s.kind_of(t)
        size, align = self.s.size_align(t) if kind in ("scalar", "enum", "struct") else (4, 4)
        if not self.inside(at + 4, n * size):
            self.err(path, f"a vector of {n} x {size} bytes at {at} runs past the buffer")
            return None
        if n and (at + 4) % align:
            self.err(path, f"a vector whose elements start at {at + 4}, not on {align} bytes")
        out = []
        for i in range(n):
            e = at + 4 + i * size
            if kind == "table":
                out.append(self.table(e, t, f"{path}[{i}]", depth + 1))
            elif kind == "string":
                out.append(self.string(e, f"{path}[{i}]"))
            elif kind == "union":
                self.err(path, "a vector of unions")
                return None
            else:
                out.append(self.inline(e, t, f"{path}[{i}]"))
        return out
