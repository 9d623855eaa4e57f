#!/bin/bash
# test_smear_svg_render.sh BUILD_DIR SOURCE_DIR - renders the SVG chart of
# `leapclock smear --compare all` in headless Chromium and checks that the
# screenshot is not blank: the page background, the axes' grey, and the
# curves of several presets in their own colours are all there.
set -u
B=${1:?build dir}
LC="$B/leapclock"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}

if [ ! -x "$CHROMIUM" ]; then
	echo "skip smear_svg_render: needs Debian package chromium ($CHROMIUM not found)"
	exit 77
fi
if ! command -v python3 >/dev/null; then
	echo "skip smear_svg_render: needs Debian package python3"
	exit 77
fi
if [ ! -x "$LC" ]; then
	echo "skip smear_svg_render: $LC not built"
	exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

"$LC" smear --compare all --svg "$T/all.svg" >/dev/null || { echo "FAIL svg"; exit 1; }
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
	--disable-background-networking --disable-component-update \
	--disable-sync --no-first-run --user-data-dir="$T/profile" \
	--window-size=960,720 --screenshot="$T/all.png" "$T/all.svg" \
	>"$T/chromium.log" 2>&1
if [ ! -s "$T/all.png" ]; then
	echo "FAIL chromium wrote no screenshot:"
	tail -5 "$T/chromium.log"
	exit 1
fi

python3 - "$T/all.png" <<'PY'
import struct, sys, zlib

data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6), (depth, ctype)
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
rows, prev, i = [], bytearray(stride), 0
for y in range(h):
    f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line); prev = line
counts = {}
for line in rows:
    for x in range(0, stride, bpp):
        px = bytes(line[x:x + 3])
        counts[px] = counts.get(px, 0) + 1
total = w * h
light = sum(n for px, n in counts.items() if min(px) > 235)
dark = total - light
def near(rgb, tol=40):
    return sum(n for px, n in counts.items()
               if all(abs(px[k] - rgb[k]) <= tol for k in range(3)))
palette = {"google": (0x1f, 0x77, 0xb4), "ntpd": (0xd6, 0x27, 0x28),
           "chrony": (0x2c, 0xa0, 0x2c), "fbclock": (0x94, 0x67, 0xbd),
           "cosine": (0xe3, 0x77, 0xc2)}
seen = {k: near(v) for k, v in palette.items()}
print("screenshot %dx%d: %d colours, %.1f%% not background; curve pixels %s"
      % (w, h, len(counts), 100.0 * dark / total, seen))
assert w >= 900 and h >= 600, (w, h)
assert 0.02 < dark / total < 0.6, "blank or flooded"
assert all(n > 150 for n in seen.values()), seen
print("ok   smear_svg_render: --compare all renders with every curve visible")
PY
