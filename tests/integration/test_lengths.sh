#!/usr/bin/env bash
# Plain bytes by their lengths (format 16): a block of strings that zstd
# compresses stores its items' lengths, not running offsets, so device names
# like pci.ids' cost ~10 bytes a row where the offsets form took ~13.5; whole
# columns, rows by id and a mount's columns/ and rows/ read them back exactly,
# NULLs, empty and very long values included; an erase (CLI or `rm rows/ID`)
# takes the row's bytes out and verify --deep insists on it.
source "$(dirname "$0")/lib.sh"

rows=30000
"$PY" - "$WORK/in.csv" "$rows" <<'PY'
import random, sys
rng = random.Random(5)
brands = ["Intel", "Realtek Semiconductor", "Advanced Micro Devices", "Broadcom", "Qualcomm Atheros",
          "NVIDIA", "Marvell Technology", "Mellanox"]
kinds = ["Ethernet Controller", "Wireless Network Adapter", "PCI Express Root Port",
         "USB 3.0 xHCI Host Controller", "SATA AHCI Controller", "Audio Device", "Host Bridge",
         "Graphics Adapter"]
series = ["Gigabit", "Family", "Series", "Pro", "Ultra", "Core", "Dual Band", "Low Power"]
with open(sys.argv[1], "w") as f:
    f.write("id,name\n")
    for i in range(int(sys.argv[2])):
        if i == 777:
            name = "long " * 80            # the longest: its block's length width
        elif i % 89 == 7:
            name = ""                      # NULL
        elif i % 97 == 11:
            name = '""'                    # empty
        else:
            name = (f"{rng.choice(brands)} {rng.choice(series)} "
                    f"{rng.choice('ABCDEFGHJKLMNPQRSTUVWXYZ')}{rng.randrange(10, 9999)} {rng.choice(kinds)}")
            if rng.random() < 0.3:
                name += f" [{rng.choice(series)} {rng.randrange(1, 20)}]"
        f.write(f"{i},{name}\n")
PY
"$INGOT" import "$WORK/in.csv" "$WORK/t" >/dev/null 2>&1 || fail lengths_import "import failed"

smaller() {
    "$INGOT" inspect --json "$WORK/t" | "$PY" -c '
import json, sys
j = json.load(sys.stdin)
assert j["format_version"] >= 16, j["format_version"]
c = {c["name"]: c for c in j["columns"]}["name"]
assert c["encodings"].get("plain"), c["encodings"]
per_row = c["stored_bytes"] / int(sys.argv[1])
# the lengths form: 10.1 bytes a row; the offsets form (format 15): 13.5
assert per_row < 10.8, per_row
print(round(per_row, 2), "bytes a row")' "$rows"
}
check lengths_smaller_than_offsets smaller

expected_cat() { # the CSV's names as `ingot cat` prints them
    tail -n +2 "$WORK/in.csv" | cut -d, -f2- | sed -e 's/^$/\\N/' -e 's/^""$//'
}
read_back() {
    [ "$("$INGOT" cat "$WORK/t" name | md5sum)" = "$(expected_cat | md5sum)" ] || { echo "name column"; return 1; }
    local r want
    for r in 0 7 11 777 12345 29999; do
        want=$("$PY" -c 'import json, sys; v = sys.argv[1]; print(json.dumps(None if v == "" else "" if v == "\"\"" else v))' \
            "$(sed -n "$((r + 2))p" "$WORK/in.csv" | cut -d, -f2-)")
        [ "$("$INGOT" cat --rows $r "$WORK/t" | jq -c .name)" = "$want" ] || { echo "row $r"; return 1; }
    done
}
check lengths_columns_and_rows_read_back read_back

erased() {
    cp -r "$WORK/t" "$WORK/e"
    "$INGOT" erase --row 777 --row 12345 "$WORK/e" >/dev/null || return 1
    [ "$("$INGOT" cat "$WORK/e" name | wc -l)" = $((rows - 2)) ] || return 1
    [ "$("$INGOT" cat "$WORK/e" name | md5sum)" = "$(expected_cat | sed -e 778d -e 12346d | md5sum)" ] || { echo "live rows changed"; return 1; }
    "$INGOT" verify --deep "$WORK/e" >/dev/null
}
check lengths_erase_verified erased

mounted() {
    have_fuse || { echo "no FUSE"; return 0; }
    cp -r "$WORK/t" "$WORK/m"
    mkdir -p "$WORK/mnt"
    "$INGOT" mount "$WORK/m" "$WORK/mnt" || return 1
    [ "$(md5sum <"$WORK/mnt/columns/name")" = "$(expected_cat | md5sum)" ] || { echo "columns/name"; fusermount3 -u "$WORK/mnt"; return 1; }
    [ "$(jq -r .name "$WORK/mnt/rows/999")" = "$(sed -n 1001p "$WORK/in.csv" | cut -d, -f2-)" ] || { echo "rows/999"; fusermount3 -u "$WORK/mnt"; return 1; }
    rm "$WORK/mnt/rows/999" || { fusermount3 -u "$WORK/mnt"; return 1; }
    [ ! -e "$WORK/mnt/rows/999" ] || { fusermount3 -u "$WORK/mnt"; return 1; }
    fusermount3 -u "$WORK/mnt"
    "$INGOT" verify --deep "$WORK/m" >/dev/null
}
check lengths_mount_reads_and_rm mounted
