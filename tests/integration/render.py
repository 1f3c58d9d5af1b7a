"""Expected renderings, computed independently of ingot's C code.

Text: PostgreSQL COPY text format; floats as Python's repr (float64) or the
shortest float32 digits laid out the same way. JSON: what rows/ID should hold.
"""
import json
import math
import struct

import numpy as np


def _layout(neg, digits, exp10):
    """Python repr layout of a shortest digit string d.ddd x 10^exp10."""
    s = "-" if neg else ""
    if -4 <= exp10 < 16:
        if exp10 < 0:
            return s + "0." + "0" * (-exp10 - 1) + digits
        intd = exp10 + 1
        whole = (digits + "0" * max(0, intd - len(digits)))[:intd]
        frac = digits[intd:] or "0"
        return s + whole + "." + frac
    mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return s + mant + "e" + ("-" if exp10 < 0 else "+") + "%02d" % abs(exp10)


def float_text(x, bits=64):
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1, x) < 0 else "0.0"
    if bits == 64:
        return repr(float(x))
    sci = np.format_float_scientific(np.float32(x), unique=True, trim="-")
    mant, exp = sci.split("e")
    neg = mant.startswith("-")
    digits = mant.lstrip("-").replace(".", "").rstrip("0") or "0"
    return _layout(neg, digits, int(exp))


def f32(x):
    """Round a Python float to float32 and back."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def text_value(v, typ):
    if v is None:
        return "\\N"
    if typ == "bool":
        return "t" if v else "f"
    if typ in ("float64", "float32"):
        return float_text(v, 32 if typ == "float32" else 64)
    if typ == "string":
        return v.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    if typ == "binary":
        return "\\x" + v.hex()
    return str(v)


def json_value(v, typ):
    if v is None:
        return None
    if typ in ("float64", "float32"):
        if math.isnan(v) or math.isinf(v):
            return float_text(v)
        return v
    if typ == "binary":
        return "\\x" + v.hex()
    return v


def csv_field(v, typ):
    """A CSV field that ingot must read back as v (None -> unquoted empty)."""
    if v is None:
        return ""
    if typ == "bool":
        return "true" if v else "false"
    if typ in ("float64", "float32"):
        return float_text(v, 32 if typ == "float32" else 64)
    if typ == "binary":
        s = "\\x" + v.hex()
    else:
        s = str(v)
    if s == "" or any(c in s for c in ',"\n\r'):
        return '"' + s.replace('"', '""') + '"'
    return s


def jsonl_value(v, typ):
    if v is None:
        return None
    if typ in ("float64", "float32") and (math.isnan(v) or math.isinf(v)):
        return float_text(v)
    if typ == "binary":
        return "\\x" + v.hex()
    return v
