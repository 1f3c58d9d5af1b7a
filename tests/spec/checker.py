"""checker.py - what arrow_ipc.py and parquet_file.py share: running a check
over a file's bytes (a fault the checks let through, met as a Python error,
is reported, not raised) and the command line over files."""
import struct
import sys


def run(cls, data, name):
    """(faults, checker) of cls(data, name).check()."""
    f = cls(data, name)
    try:
        f.check()
    except (KeyError, IndexError, ValueError, TypeError, struct.error) as e:
        f.err(f"unreadable: {type(e).__name__} {e}")
    return f.errors, f


def main(check, summary, paths):
    """Each file's faults (at most 50) or "PATH: ok (summary)"; 1 if any has one."""
    bad = 0
    for path in paths:
        errors, f = check(open(path, "rb").read(), path)
        for e in errors[:50]:
            print(e)
        if errors:
            bad += 1
        else:
            print(f"{path}: ok ({summary(f)})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit("checker.py is used by arrow_ipc.py and parquet_file.py")
