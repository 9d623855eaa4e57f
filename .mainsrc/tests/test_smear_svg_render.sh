#!/bin/bash
# test_smear_svg_render.sh BUILD_DIR SOURCE_DIR - renders the SVG charts of
# `leapclock smear` in headless Chromium and looks at them: the page of
# `--compare all` is not blank (background, axes' grey, the curves of
# several presets in their own colours) and no curve runs along the bottom
# gridline of its log-scale rate panel; charts of short ranges are drawn.
# From the SVGs' text: the x axis's unit and tick labels follow the range,
# and the legend of --compare all names minute as off-scale.
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
fail=0

shot() { # shot NAME: $T/NAME.svg -> $T/NAME.png
	rm -f "$T/$1.png"
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update \
		--disable-sync --no-first-run --user-data-dir="$T/profile" \
		--window-size=960,740 --screenshot="$T/$1.png" "$T/$1.svg" \
		>"$T/chromium.log" 2>&1
	if [ ! -s "$T/$1.png" ]; then
		echo "FAIL chromium wrote no screenshot of $1:"
		tail -5 "$T/chromium.log"
		exit 1
	fi
}

"$LC" smear --compare all --svg "$T/all.svg" >/dev/null &&
	"$LC" smear --preset windows --range -5s,5s --svg "$T/s.svg" >/dev/null &&
	"$LC" smear --preset windows --range -200ms,300ms --svg "$T/ms.svg" >/dev/null &&
	"$LC" smear --preset utc-sls --svg "$T/min.svg" >/dev/null &&
	"$LC" smear --preset google --svg "$T/h.svg" >/dev/null ||
	{ echo "FAIL svg"; exit 1; }
shot all
shot s
shot ms

# 1. From the SVGs' text elements (issue 16).
python3 - "$T" <<'PY' || fail=1
import sys, xml.etree.ElementTree as E
ns = "{http://www.w3.org/2000/svg}"
d = sys.argv[1]
bad = 0

# The x axis's unit follows the range (--preset windows --range -5s,5s was
# in hours, ticks -0.0012 ... 0.0012): the axis label names the unit and
# the ticks (centred text under the offset panel, y 306) are round numbers.
def xaxis(name):
    root = E.parse("%s/%s.svg" % (d, name)).getroot()
    texts = [(t, "".join(t.itertext())) for t in root.iter(ns + "text")]
    label = [s for t, s in texts if s.startswith("time relative to")]
    xt = [s for t, s in texts if t.get("text-anchor") == "middle" and t.get("y")
          and abs(float(t.get("y")) - 306) < 0.5]
    return label, xt
want = {
    "s": ("in seconds", [str(v) for v in range(-5, 6)]),
    "ms": ("in milliseconds", [str(v) for v in range(-200, 301, 50)]),
    "min": ("in minutes", [str(v) for v in range(-16, 1, 2)]),
    "h": ("in hours", [str(v) for v in range(-12, 13, 2)]),
}
for name, (unit, tk) in want.items():
    label, xt = xaxis(name)
    if len(label) == 1 and unit in label[0] and xt == tk:
        print("ok   x axis of %s.svg: '%s', ticks %s" % (name, unit, " ".join(xt)))
    else:
        print("FAIL x axis of %s.svg: label %s, ticks %s; want '%s', %s"
              % (name, label, xt, unit, tk))
        bad = 1

# On the log-scale rate panel (y 340 to 540) no point sits on the bottom
# gridline: a zero rate was drawn there, as if the presets ran at 1 ppm
# outside their windows.
root = E.parse(d + "/all.svg").getroot()
paths = [p for p in root.iter(ns + "path") if p.get("class") == "rate"]
pts = [tuple(map(float, w.lstrip("ML").split(",")))
       for p in paths for w in p.get("d").split()]
low = [p for p in pts if p[1] > 540 - 0.05]
if len(paths) == 9 and len(pts) > 2000 and not low:  # every preset
    print("ok   compare all: %d rate points, none on the log panel's bottom gridline" % len(pts))
else:
    print("FAIL compare all: %d rate paths, %d points, %d on the bottom gridline"
          % (len(paths), len(pts), len(low)))
    bad = 1

# minute's 60 s window is under a pixel at the default range: the legend
# marks it off-scale and says how to see it.
texts = ["".join(t.itertext()) for t in root.iter(ns + "text")]
if any(t.startswith("minute:") and t.endswith(" *") for t in texts) and any(
        t.startswith("* off-scale") and "minute (60 s)" in t
        and "--compare minute" in t for t in texts):
    print("ok   compare all: the legend marks minute off-scale and says how to see it")
else:
    print("FAIL compare all: the legend does not name minute as off-scale")
    bad = 1
sys.exit(bad)
PY

# 2. The screenshots, as pictures.
python3 - "$T/all.png" "$T/s.png" "$T/ms.png" <<'PY' || fail=1
import struct, sys, zlib

def load(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
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
    return w, h, [[bytes(r[x:x + 3]) for x in range(0, stride, bpp)] for r in rows]

def near(px, rgb, tol=40):
    return all(abs(px[k] - rgb[k]) <= tol for k in range(3))

palette = {"google": (0x1f, 0x77, 0xb4), "ntpd": (0xd6, 0x27, 0x28),
           "chrony": (0x2c, 0xa0, 0x2c), "fbclock": (0x94, 0x67, 0xbd),
           "cosine": (0xe3, 0x77, 0xc2)}
bad = 0
for path in sys.argv[1:]:
    w, h, img = load(path)
    total = w * h
    dark = sum(1 for r in img for px in r if min(px) <= 235)
    name = path.rsplit("/", 1)[1]
    if not (w >= 900 and h >= 600 and 0.02 < dark / total < 0.6):
        print("FAIL %s: %dx%d, %.1f%% not background: blank or flooded"
              % (name, w, h, 100.0 * dark / total))
        bad = 1
        continue
    print("ok   %s: %dx%d, %.1f%% not background" % (name, w, h, 100.0 * dark / total))
    if name != "all.png":
        continue
    seen = {k: sum(1 for r in img for px in r if near(px, v))
            for k, v in palette.items()}
    if all(n > 150 for n in seen.values()):
        print("ok   all.png: every curve visible, pixels %s" % seen)
    else:
        print("FAIL all.png: curve pixels %s" % seen)
        bad = 1
    # the rows around the rate panel's bottom border (y 540): a
    # curve drawn along it (a zero rate at 1 ppm) fills hundreds of them;
    # curves that only come down to it at a window's edge, a few
    every = [(0x1f, 0x77, 0xb4), (0xd6, 0x27, 0x28), (0x2c, 0xa0, 0x2c),
             (0x94, 0x67, 0xbd), (0xff, 0x7f, 0x0e), (0x8c, 0x56, 0x4b),
             (0xe3, 0x77, 0xc2), (0x17, 0xbe, 0xcf)]
    strip = sum(1 for y in (538, 539, 540, 541) for px in img[y][91:929]
                if any(near(px, v, 30) for v in every))
    if strip < 60:
        print("ok   all.png: %d curve pixels along the log panel's bottom gridline" % strip)
    else:
        print("FAIL all.png: %d curve pixels along the log panel's bottom gridline" % strip)
        bad = 1
sys.exit(bad)
PY
[ $fail -eq 0 ] && echo "ok   smear_svg_render: the charts read as they should"
exit $fail
