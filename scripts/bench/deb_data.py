#!/usr/bin/python3
"""deb_data.py KIND OUT_DIR - real data that ships with Debian, as tables to import.

  packages   the archive's package index (apt's Packages list for bookworm main,
             /var/lib/apt/lists): one row per package, 16 columns (names,
             versions, maintainers, dependency lists, paths, sizes, MD5 and
             SHA-256 digests, tags as list<string>) -> packages.jsonl + .schema
  words      /usr/share/dict/words (wamerican): one word per row, with its
             length and its line number -> words.csv
  pci        hwdata's pci.ids (/usr/share/misc/pci.ids): vendor and device
             names by id -> pci.csv
  pixels     desktop-base's wallpaper (a PNG, decoded by ffmpeg) as float32
             pixels k/255, one row per pixel (r, g, b) -> pixels.csv
  doctext    the documentation and manual pages installed packages ship
             (doc_texts) as 200,000 rows of 8 to 40 words each, the text
             running on from row to row: captions of real text -> doctext.csv

Each writes the same rows every run (the inputs are files of installed
packages; the benchmark's setup installs them, scripts/bench/sizes); doctext's
text is whatever documentation this machine's packages ship."""
import csv, glob, gzip, hashlib, json, os, random, subprocess, sys


def packages_index():
    lists = sorted(glob.glob("/var/lib/apt/lists/*_dists_bookworm_main_binary-amd64_Packages*"))
    if not lists:
        sys.exit("no bookworm main Packages list under /var/lib/apt/lists (run apt-get update)")
    path = lists[0]
    if path.endswith(".lz4"):
        return subprocess.run(["lz4", "-dc", path], check=True, capture_output=True).stdout.decode()
    if path.endswith(".xz"):
        return subprocess.run(["xz", "-dc", path], check=True, capture_output=True).stdout.decode()
    if path.endswith(".gz"):
        return subprocess.run(["gzip", "-dc", path], check=True, capture_output=True).stdout.decode()
    return open(path, encoding="utf-8").read()


def packages(out):
    fields = [("package", "string"), ("version", "string"), ("installed_size", "int64?"),
              ("maintainer", "string?"), ("architecture", "string?"), ("depends", "string?"),
              ("description", "string?"), ("homepage", "string?"), ("description_md5", "string?"),
              ("tags", "list<string>?"), ("section", "string?"), ("priority", "string?"),
              ("filename", "string?"), ("size", "int64?"), ("md5sum", "string?"), ("sha256", "string?")]
    names = {n.replace("_", "-"): n for n, _ in fields}
    names["tag"] = names.pop("tags")  # the index's field is "Tag"
    rows = 0
    with open(os.path.join(out, "packages.jsonl"), "w") as f:
        for stanza in packages_index().split("\n\n"):
            rec, last = {}, None
            for line in stanza.split("\n"):
                if line.startswith(" ") and last:
                    rec[last] += " " + line.strip()
                    continue
                k, _, v = line.partition(": ")
                last = k.lower()
                rec[last] = v
            if "package" not in rec:
                continue
            row = {}
            for k, n in names.items():
                if k not in rec:
                    continue
                v = rec[k]
                if n in ("installed_size", "size"):
                    v = int(v)
                elif n == "tags":
                    v = [t.strip() for t in v.split(",") if t.strip()]
                row[n] = v
            f.write(json.dumps(row) + "\n")
            rows += 1
    with open(os.path.join(out, "packages.schema"), "w") as f:
        for n, t in fields:
            f.write(f"{n} {t}\n")
    return rows


def words(out):
    src = "/usr/share/dict/words"
    rows = 0
    with open(src, encoding="utf-8") as f, open(os.path.join(out, "words.csv"), "w", newline="") as o:
        w = csv.writer(o)
        w.writerow(["line", "word", "length"])
        for i, line in enumerate(f):
            word = line.rstrip("\n")
            w.writerow([i, word, len(word)])
            rows += 1
    return rows


def pci(out):
    src = "/usr/share/misc/pci.ids"
    rows = 0
    vendor_id = vendor = None
    with open(src, encoding="utf-8", errors="replace") as f, \
            open(os.path.join(out, "pci.csv"), "w", newline="") as o:
        w = csv.writer(o)
        w.writerow(["vendor_id", "vendor", "device_id", "device"])
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            if line.startswith("C "):  # device classes follow the vendors
                break
            if not line.startswith("\t"):
                vendor_id, _, vendor = line.strip().partition("  ")
                continue
            if line.startswith("\t\t"):  # subsystems: skipped
                continue
            dev_id, _, dev = line.strip().partition("  ")
            w.writerow([int(vendor_id, 16), vendor, int(dev_id, 16), dev])
            rows += 1
    return rows


def pixels(out):
    pngs = sorted(glob.glob("/usr/share/desktop-base/*/wallpaper/contents/images/1920x1080.*"))
    pngs = [p for p in pngs if p.endswith(".png")] or sorted(glob.glob("/usr/share/images/desktop-base/*.png"))
    if not pngs:
        sys.exit("no desktop-base wallpaper PNG (apt-get install desktop-base)")
    src = pngs[0]
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", src, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                         check=True, capture_output=True).stdout
    rows = len(raw) // 3
    with open(os.path.join(out, "pixels.csv"), "w") as o:
        o.write("r,g,b\n")
        # k/255 as the shortest decimal that reads back as that float32
        import numpy as np
        vals = (np.frombuffer(raw, dtype=np.uint8).astype(np.float32) / np.float32(255)).reshape(-1, 3)
        txt = [np.format_float_positional(np.float32(k / 255), unique=True, trim="-") for k in range(256)]
        b = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 3)
        for r in range(rows):
            o.write(f"{txt[b[r, 0]]},{txt[b[r, 1]]},{txt[b[r, 2]]}\n")
        del vals
    with open(os.path.join(out, "pixels.schema"), "w") as f:
        f.write("r float32\ng float32\nb float32\n")
    return rows


def doc_texts():
    """The text of /usr/share/doc and /usr/share/man (decompressed), each
    distinct file once, in path order; copyright files and changelogs left
    out (they repeat across packages)."""
    texts, seen = [], set()
    for root in ("/usr/share/doc", "/usr/share/man"):
        for r, _, fs in sorted(os.walk(root)):
            for f in sorted(fs):
                p = os.path.join(r, f)
                if os.path.islink(p) or f.startswith("copyright") or "changelog" in f:
                    continue
                try:
                    b = open(p, "rb").read()
                    if f.endswith(".gz"):
                        b = gzip.decompress(b)
                except (OSError, EOFError, gzip.BadGzipFile):
                    continue
                h = hashlib.md5(b).digest()
                if h in seen:
                    continue
                seen.add(h)
                texts.append(b.decode("utf-8", "ignore"))
    return texts


def doctext(out, rows=200000):
    words = " ".join(doc_texts()).split()
    rng = random.Random(1)
    at = 0
    with open(os.path.join(out, "doctext.csv"), "w", newline="") as o:
        w = csv.writer(o)
        w.writerow(["id", "text"])
        for i in range(rows):
            n = rng.randint(8, 40)
            if at + n > len(words):
                at = 0
            w.writerow([i, " ".join(words[at:at + n])])
            at += n
    return rows


if __name__ == "__main__":
    kind, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    fn = {"packages": packages, "words": words, "pci": pci, "pixels": pixels, "doctext": doctext}.get(kind)
    if not fn:
        sys.exit(f"unknown kind {kind}")
    print(fn(out))
