#!/usr/bin/env bash
# make_media.sh DIR ROWS: JPEG/PNG images, MP4 and WebM videos and JPEG frames made
# with ffmpeg's test sources, plus media.jsonl referencing them and its schema.
set -euo pipefail
dir=$1 rows=${2:-6}
mkdir -p "$dir/img" "$dir/vid" "$dir/f"
ff() { ffmpeg -loglevel error -nostdin -y "$@"; }
: >"$dir/media.jsonl"
for r in $(seq 0 $((rows - 1))); do
    if [ $((r % 3)) = 2 ]; then
        ff -f lavfi -i "testsrc=size=96x64" -vf "hue=h=$((r * 40))" -frames:v 1 "$dir/img/$r.png"; img="img/$r.png"
    else
        ff -f lavfi -i "mandelbrot=size=160x120" -vf "hue=h=$((r * 40))" -frames:v 1 "$dir/img/$r.jpg"; img="img/$r.jpg"
    fi
    if [ $((r % 2)) = 0 ]; then
        ff -f lavfi -i "testsrc=duration=4:size=160x120:rate=10" -pix_fmt yuv420p "$dir/vid/$r.mp4"; vid="vid/$r.mp4"
    else
        ff -f lavfi -i "testsrc2=duration=3:size=160x120:rate=10" -c:v libvpx -b:v 200k "$dir/vid/$r.webm"; vid="vid/$r.webm"
    fi
    ff -i "$dir/$vid" -vf "fps=2,hue=h=$((r * 40))" "$dir/f/${r}_%d.jpg" # distinct per row
    frames=$(cd "$dir" && ls f/${r}_*.jpg | sort -t_ -k2 -n | sed 's/.*/"&"/' | paste -sd,)
    printf '{"id": %d, "caption": "clip %d", "image": %s, "video": "%s", "frames": [%s]}\n' \
        "$r" "$r" "$([ $((r % 4)) = 3 ] && echo null || echo "\"$img\"")" "$vid" "$frames" >>"$dir/media.jsonl"
done
printf 'id int64\ncaption string\nimage blob?\nvideo blob\nframes list<blob>\n' >"$dir/schema.txt"
