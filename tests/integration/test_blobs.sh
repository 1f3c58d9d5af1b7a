#!/usr/bin/env bash
# Blobs: images, video and frames stored as objects; read by path through the
# mount with real ffmpeg/ffprobe; one object, one read; damage contained.
source "$(dirname "$0")/lib.sh"
if ! command -v ffmpeg >/dev/null; then skip blobs "ffmpeg not installed"; exit 0; fi
bash "$ROOT/scripts/make_media.sh" "$WORK/media" 6
M="$WORK/media"
check import_media "$INGOT" import --schema "$M/schema.txt" "$M/media.jsonl" "$WORK/t"
check verify_media "$INGOT" verify "$WORK/t"
check blob_file_listed_in_manifest grep -q "blob=part-000000.blob" "$WORK/t/MANIFEST"
cat_paths() {
    local out
    out=$("$INGOT" cat "$WORK/t" video)
    [ "$(sed -n 1p <<<"$out")" = '{"path":"blobs/video/0.mp4","size":'"$(stat -c %s "$M/vid/0.mp4")"'}' ] || { echo "$out"; return 1; }
    [ "$(sed -n 2p <<<"$out" | jq -r .path)" = blobs/video/1.webm ] || return 1
    out=$("$INGOT" cat "$WORK/t" image)
    [ "$(sed -n 4p <<<"$out")" = '\N' ] || return 1
    "$INGOT" cat "$WORK/t" frames | jq -e 'length >= 6 and (.[0].path | test("^blobs/frames/[0-9]+/0.jpg$"))' >/dev/null
}
check cat_prints_paths_and_sizes cat_paths

# --- bad input: a missing object or a non-path value fails naming the line
printf '{"id": 0, "caption": "x", "image": "img/0.jpg", "video": "vid/none.mp4", "frames": []}\n' >"$M/bad1.jsonl"
bad_missing() {
    local out
    out=$("$INGOT" import --schema "$M/schema.txt" "$M/bad1.jsonl" "$WORK/bad" 2>&1) && return 1
    grep -q "bad1.jsonl:1: column 'video': cannot read .*vid/none.mp4" <<<"$out" || { echo "$out"; return 1; }
    [ ! -e "$WORK/bad" ] && ! ls -a "$WORK" | grep -q importing
}
check import_missing_blob_fails_cleanly bad_missing
printf '{"id": 0, "caption": "x", "image": 5, "video": "vid/0.mp4", "frames": "f/0_1.jpg"}\n' >"$M/bad2.jsonl"
check import_bad_blob_value_fails bash -c "! '$INGOT' import --schema '$M/schema.txt' '$M/bad2.jsonl' '$WORK/bad2' 2>&1 | grep -q 'column .image.'; test ! -e '$WORK/bad2'"

if ! have_fuse; then skip blobs_mount "no /dev/fuse"; exit 0; fi
mkdir -p "$WORK/m"
"$INGOT" mount "$WORK/t" "$WORK/m"
daemon=$(pgrep -f "ingot mount .*$WORK/m\$" | head -1)
one_read() {
    # frame K of row R: the daemon reads that object (plus at most one 4 KiB page of references)
    local before after size
    cat "$WORK/m/blobs/frames/4/0.jpg" >/dev/null # the row's reference page is now cached
    size=$(stat -c %s "$WORK/m/blobs/frames/5/3.jpg")
    before=$(awk '/^rchar/ {print $2}' /proc/$daemon/io)
    cp "$WORK/m/blobs/frames/5/3.jpg" "$WORK/f53.jpg"
    after=$(awk '/^rchar/ {print $2}' /proc/$daemon/io)
    echo "object $size bytes, daemon read $((after - before))"
    [ $((after - before)) -le $((size + 4096)) ] && [ $((after - before)) -ge "$size" ] &&
        cmp -s "$WORK/f53.jpg" "$M/$(sed -n 6p "$M/media.jsonl" | jq -r '.frames[3]')"
}
check frame_read_is_one_object one_read

every_object_equal() {
    local r line k src bad=0
    while IFS= read -r line; do
        r=$(jq .id <<<"$line")
        src=$(jq -r .video <<<"$line")
        cmp -s "$M/$src" "$WORK/m/blobs/video/$r.${src##*.}" || { echo "video $r"; bad=1; }
        src=$(jq -r .image <<<"$line")
        if [ "$src" != null ]; then
            [ "$(sha256sum <"$M/$src")" = "$(sha256sum <"$WORK/m/blobs/image/$r.${src##*.}")" ] || { echo "image $r"; bad=1; }
        else
            [ -z "$(ls "$WORK/m/blobs/image" | grep "^$r\.")" ] || { echo "null image listed"; bad=1; }
        fi
        k=0
        for src in $(jq -r '.frames[]' <<<"$line"); do
            cmp -s "$M/$src" "$WORK/m/blobs/frames/$r/$k.jpg" || { echo "frame $r/$k"; bad=1; }
            k=$((k + 1))
        done
        [ "$(ls "$WORK/m/blobs/frames/$r" | wc -l)" = $k ] || { echo "frame count $r"; bad=1; }
    done <"$M/media.jsonl"
    return $bad
}
check every_object_byte_identical every_object_equal
# --- Python's open() asks isatty before reading: the daemon answers with the
# object in the kernel's page cache (fill.h) so the read needs no request.
# Seen from outside: right after open, before any read, the object's pages are
# resident (fincore) and hold its exact bytes; objects over 256 KiB are not
# filled; an erase through the mount drops a filled object (the open file then
# reads ENOENT, never the bytes).
FC="$PY $ROOT/tests/integration/fill_check.py"
python_open_fills() {
    local d=$WORK/fill m=$WORK/fill/m rc
    rm -rf "$d"; mkdir -p "$m"
    $FC make "$d" || return 1
    printf 'id int64\nobj blob\n' >"$d/s.txt"
    "$INGOT" import --schema "$d/s.txt" "$d/in.jsonl" "$d/t" >/dev/null || return 1
    "$INGOT" mount "$d/t" "$m" || return 1
    $FC fill "$m" "$d"
    rc=$?
    fusermount3 -u "$m"
    return $rc
}
check python_open_fills_small_objects python_open_fills

# --- a fill that read an object before its row was erased is never stored
# after the erase was answered: the daemon waits 400 ms between reading a fill
# and storing it (INGOT_TEST_FILL_PAUSE_MS), `rm rows/ID` lands in between and
# returns; once the fill is over, the open object reads ENOENT (the kernel
# holds none of its pages)
fill_racing_erase() {
    local d=$WORK/fill m=$WORK/fill/m2 rc
    rm -rf "$d/t2"; mkdir -p "$m"
    "$INGOT" import --schema "$d/s.txt" "$d/in.jsonl" "$d/t2" >/dev/null || return 1
    INGOT_TEST_FILL_PAUSE_MS=3000 "$INGOT" mount "$d/t2" "$m" || return 1
    $FC race "$m" 3000
    rc=$?
    fusermount3 -u "$m"
    return $rc
}
check fill_racing_erase_never_stores_erased_bytes fill_racing_erase
check sizes_exact bash -c "for f in '$WORK'/m/blobs/*/* '$WORK'/m/blobs/frames/*/*; do [ -f \"\$f\" ] || continue; [ \$(stat -c %s \"\$f\") = \$(cat \"\$f\" | wc -c) ] || exit 1; done"
check ffprobe_every_video bash -c "for f in '$WORK'/m/blobs/video/*; do ffprobe -v error -show_entries format=duration -of csv=p=0 \"\$f\" | grep -q '[0-9]' || exit 1; done"
check ffmpeg_extracts_middle_frame bash -c "ffmpeg -loglevel error -nostdin -y -ss 2 -i '$WORK/m/blobs/video/0.mp4' -frames:v 1 '$WORK/still.png' && [ -s '$WORK/still.png' ] && ffprobe -v error -show_entries stream=width -of csv=p=0 '$WORK/still.png' | grep -qx 160"
check ffmpeg_reads_webm bash -c "ffmpeg -loglevel error -nostdin -y -ss 1 -i '$WORK/m/blobs/video/1.webm' -frames:v 1 '$WORK/still2.png' && [ -s '$WORK/still2.png' ]"
check rows_point_at_blob_paths bash -c "jq -e '.video.path == \"blobs/video/0.mp4\" and (.frames | length) > 0 and .frames[1].path == \"blobs/frames/0/1.jpg\"' '$WORK/m/rows/0' >/dev/null && jq -e '.image == null' '$WORK/m/rows/3' >/dev/null"
check wrong_extension_not_found bash -c "! cat '$WORK/m/blobs/video/0.webm' 2>/dev/null && ! cat '$WORK/m/blobs/video/0' 2>/dev/null && ! cat '$WORK/m/blobs/frames/0/99.jpg' 2>/dev/null"

fusermount3 -u "$WORK/m"

# --- a damaged object: EIO for it, every other object reads
cp -r "$WORK/t" "$WORK/bad"
obj=$("$INGOT" cat "$WORK/bad" frames | sed -n 2p | jq -r '.[1].path')
# find the object's offset by its bytes and flip one
src=$(sed -n 2p "$M/media.jsonl" | jq -r '.frames[1]')
"$PY" - "$WORK/bad/part-000000.blob" "$M/$src" <<'PY'
import sys
blob = bytearray(open(sys.argv[1], "rb").read())
obj = open(sys.argv[2], "rb").read()
at = blob.find(obj)
assert at > 0
blob[at + len(obj) // 2] ^= 0xFF
open(sys.argv[1], "wb").write(blob)
PY
mkdir -p "$WORK/mb"
"$INGOT" mount "$WORK/bad" "$WORK/mb"
damaged() {
    local out
    out=$(cat "$WORK/mb/$obj" 2>&1 >/dev/null) && { echo "read succeeded"; return 1; }
    grep -q "Input/output error" <<<"$out" || { echo "$out"; return 1; }
    cmp -s "$WORK/mb/blobs/frames/1/0.jpg" "$M/$(sed -n 2p "$M/media.jsonl" | jq -r '.frames[0]')" || return 1
    cmp -s "$WORK/mb/blobs/video/1.webm" "$M/vid/1.webm" || return 1
    grep -q "column 'frames' row 1 object 1: .*checksum mismatch" <<<"$("$INGOT" verify "$WORK/bad")"
}
check damaged_object_eio_only damaged
fusermount3 -u "$WORK/mb"

truncated() {
    rm -rf "$WORK/tr"; cp -r "$WORK/t" "$WORK/tr"
    local size; size=$(stat -c %s "$WORK/tr/part-000000.blob")
    truncate -s $((size - 3000)) "$WORK/tr/part-000000.blob"
    mkdir -p "$WORK/mt"
    "$INGOT" mount "$WORK/tr" "$WORK/mt" || return 1
    local last ok=0
    last=$(tail -1 "$M/media.jsonl" | jq -r '.frames[-1]')
    cat "$WORK/mt/blobs/frames/5/$(( $(tail -1 "$M/media.jsonl" | jq '.frames | length') - 1 )).jpg" >/dev/null 2>&1 && ok=1
    cmp -s "$WORK/mt/blobs/video/0.mp4" "$M/vid/0.mp4" || ok=1
    fusermount3 -u "$WORK/mt"
    [ $ok = 0 ]
}
check truncated_blob_file_eio_on_lost_objects truncated

# --- erasing a row zero-fills its objects
erase_blobs() {
    rm -rf "$WORK/e"; cp -r "$WORK/t" "$WORK/e"
    local before
    "$INGOT" erase --row 2 "$WORK/e" >/dev/null || return 1
    "$INGOT" verify "$WORK/e" >/dev/null || return 1
    "$PY" - "$WORK/e/part-000000.blob" "$M" <<'PY'
import json, sys
blob = open(sys.argv[1], "rb").read()
rows = [json.loads(l) for l in open(sys.argv[2] + "/media.jsonl")]
r = rows[2]
for p in [r["image"], r["video"]] + r["frames"]:
    if p is None:
        continue
    data = open(sys.argv[2] + "/" + p, "rb").read()
    # the erased row's objects are gone (another row may hold its own copy of the
    # same video, so count copies: one less than before)
    same = 0
    for x in rows:
        if x is r:
            continue
        for q in [x["image"], x["video"]] + x["frames"]:
            if q is not None and open(sys.argv[2] + "/" + q, "rb").read() == data:
                same += 1
    assert blob.count(data) == same, (p, blob.count(data), same)
PY
}
check erase_zero_fills_objects erase_blobs

# --- an object opened before its row is erased: the read meets zeroed bytes
# that fail the object's checksum. That is the erase, not damage: ENOENT (the
# row is gone), never EIO and never the zeros. The mount neither polls nor
# watches, so the daemon learns of the erase only from that failed read.
erase_under_open_object() {
    rm -rf "$WORK/eo"; cp -r "$WORK/t" "$WORK/eo"; mkdir -p "$WORK/meo"
    "$INGOT" mount -o no_inotify,poll_ms=0 "$WORK/eo" "$WORK/meo" || return 1
    "$PY" - "$WORK/meo" "$INGOT" "$WORK/eo" <<'PY'
import errno, os, subprocess, sys
m, ingot, t = sys.argv[1:]
name = next(n for n in os.listdir(f"{m}/blobs/video") if n.startswith("2."))
fd = os.open(f"{m}/blobs/video/{name}", os.O_RDONLY)  # opened, never read yet
keep = open(f"{m}/blobs/video/0.mp4", "rb").read()
subprocess.run([ingot, "erase", "--row", "2", t], check=True, stdout=subprocess.DEVNULL)
try:
    data = os.read(fd, 1 << 20)
    sys.exit(f"read {len(data)} bytes of an erased object" + (" (zeros)" if not data.strip(b"\0") else ""))
except OSError as e:
    assert e.errno == errno.ENOENT, f"read failed with {errno.errorcode.get(e.errno)}, want ENOENT"
assert open(f"{m}/blobs/video/0.mp4", "rb").read() == keep, "another row's object changed"
# an object already read (its checksum checked once) and then erased: with the
# kernel's copy dropped, the read reaches the daemon and meets the zeros
name = next(n for n in os.listdir(f"{m}/blobs/video") if n.startswith("3."))
fd = os.open(f"{m}/blobs/video/{name}", os.O_RDONLY)
assert os.read(fd, 1 << 30).strip(b"\0")
subprocess.run([ingot, "erase", "--row", "3", t], check=True, stdout=subprocess.DEVNULL)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
try:
    data = os.pread(fd, 1 << 20, 0)
    sys.exit(f"read {len(data)} bytes of an erased, verified object" + (" (zeros)" if not data.strip(b"\0") else ""))
except OSError as e:
    assert e.errno == errno.ENOENT, f"verified: read failed with {errno.errorcode.get(e.errno)}, want ENOENT"
assert not os.path.exists(f"{m}/blobs/video/{name}")
PY
    local rc=$?
    fusermount3 -u "$WORK/meo"
    return $rc
}
check erase_under_open_object_enoent_not_eio erase_under_open_object

# --- list<blob> inside a struct: objects named ROW/K by their row, served by the
# mount, zero-filled by an erase of their row only
nested_blobs() {
    local d=$WORK/nb m=$WORK/nb/m
    mkdir -p "$d" "$m"
    printf 'AAAA-first' >"$d/a.bin"; printf 'BBBBBB-second' >"$d/b.bin"; printf 'CCC-third' >"$d/c.bin"
    printf 'rec struct<id:int64, photos:list<blob>>\n' >"$d/s.txt"
    printf '%s\n' '{"rec":{"id":1,"photos":["a.bin","b.bin"]}}' '{"rec":{"id":2,"photos":[]}}' \
        '{"rec":{"id":3,"photos":["c.bin"]}}' >"$d/d.jsonl"
    "$INGOT" import --schema "$d/s.txt" "$d/d.jsonl" "$d/t" >/dev/null || return 1
    [ "$("$INGOT" cat "$d/t" rec | sed -n 1p)" = '{"id":1,"photos":[{"path":"blobs/rec.photos/0/0","size":10},{"path":"blobs/rec.photos/0/1","size":13}]}' ] || { "$INGOT" cat "$d/t" rec; return 1; }
    "$INGOT" mount "$d/t" "$m" || return 1
    local got
    got=$(cd "$m/blobs/rec.photos" && find . -type f | sort | tr '\n' ' ')
    [ "$got" = "./0/0 ./0/1 ./2/0 " ] || { echo "objects: $got"; fusermount3 -u "$m"; return 1; }
    cmp -s "$m/blobs/rec.photos/0/1" "$d/b.bin" && cmp -s "$m/blobs/rec.photos/2/0" "$d/c.bin" &&
        jq -e '.rec.photos[0].path == "blobs/rec.photos/2/0"' "$m/rows/2" >/dev/null || { fusermount3 -u "$m"; return 1; }
    fusermount3 -u "$m"
    "$INGOT" erase --row 0 "$d/t" >/dev/null && "$INGOT" verify "$d/t" >/dev/null || return 1
    ! grep -q -e AAAA -e BBBBBB "$d/t/part-000000.blob" && grep -q CCC "$d/t/part-000000.blob"
}
check nested_list_blob_named_by_row nested_blobs
