#!/bin/bash
# cli_smear.sh BUILD_DIR SOURCE_DIR - `leapclock smear`: the google preset's
# published figures in the output, CSV rows and values, well-formed SVG,
# --compare of every preset, and usage errors (exit 2 with a message).
set -u
B=${1:?build dir}
LC="$B/leapclock"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

if [ ! -x "$LC" ]; then
	echo "skip cli_smear: $LC not built"
	exit 77
fi
if ! command -v python3 >/dev/null; then
	echo "skip cli_smear: needs Debian package python3"
	exit 77
fi

# 1. google: 11.5739 ppm (1/86,401 s), noon to noon, 0.5 s in the leap second
out=$("$LC" smear --preset google --step 1h) || bad "google exits 0"
echo "$out" | grep -q "peak 11.5739 ppm" && ok "google peak 11.5739 ppm" || bad "google peak rate in: $out"
echo "$out" | grep -q "86401 SI s: 2016-12-31T12:00:00.000Z to 2017-01-01T12:00:00.000Z" &&
	ok "google window noon to noon, 86,401 SI s" || bad "google window"
# at the start of 23:59:60 the smeared clock is 43,200/86,401 s behind
echo "$out" | grep -E "^2016-12-31T23:59:60.000Z +0.000 +499.994 +-499.994 +-11.5739$" >/dev/null &&
	ok "google at 23:59:60: 499.994 ms behind" || bad "google row at the leap"

# 2. CSV: rows are the multiples of --step inside the span, values derived
"$LC" smear --preset utc-sls --step 10s --range -1000s,10s --csv "$T/u.csv" >/dev/null ||
	bad "utc-sls csv exits 0"
python3 - "$T/u.csv" <<'PY' && ok "utc-sls CSV: 102 rows, 999/1000 rate, 1 ms per s" || bad "utc-sls CSV"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
# t = -1000, -990, ..., +10: 102 rows
assert len(rows) == 102, len(rows)
for r in rows:
    t = float(r["t_rel_s"]); off = float(r["offset_ms"]); rate = float(r["rate_ppm"])
    # window [-999, +1] s around the start of 23:59:60: 1 ms more per s
    want = 0.0 if t <= -999 else (1000.0 if t >= 1 else (t + 999) * 1.0)
    assert abs(off - want) < 1e-6, (t, off, want)
    assert abs(rate - (-1000.0 if -999 <= t < 1 else 0.0)) < 1e-6, (t, rate)
assert rows[100]["utc"] == "2016-12-31T23:59:60.000Z", rows[100]["utc"]
PY

# 3. JSON parses and carries the figures
"$LC" smear --preset chrony --json >"$T/c.json" || bad "chrony json exits 0"
python3 - "$T/c.json" <<'PY' && ok "chrony JSON: 62,500 s, 32 ppm peak" || bad "chrony JSON"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["policies"][0]
assert p["name"] == "chrony" and abs(p["window_si_s"] - 62500) < 1e-9
assert abs(p["peak_ppm"] - 32) < 1e-9 and p["start_rel_s"] == 0.0
assert len(d["samples"]) > 40
PY

# 4. SVG well-formed, with title, axes labels, a legend and curves (the
# rendered charts: test_smear_svg_render.sh)
"$LC" smear --preset google --svg "$T/g.svg" >/dev/null || bad "google svg exits 0"
"$LC" smear --compare all --svg "$T/all.svg" >/dev/null || bad "compare all exits 0"
"$LC" smear --compare google,utc-sls --delete --svg "$T/del.svg" >/dev/null || bad "compare --delete exits 0"
python3 - "$T/g.svg" "$T/all.svg" "$T/del.svg" <<'PY' && ok "SVGs are well-formed with labels, legend and one offset+rate curve per preset" || bad "SVG content"
import sys, xml.etree.ElementTree as E
ns = "{http://www.w3.org/2000/svg}"
for path, n in zip(sys.argv[1:], (1, 9, 2)):  # all: 9 curves (aws is google's)
    root = E.parse(path).getroot()
    assert root.tag == ns + "svg"
    texts = " ".join("".join(t.itertext()) for t in root.iter(ns + "text"))
    for needle in ("Leap smear", "hours", "ppm", "ms"):
        assert needle in texts, (path, needle)
    # per preset, an offset polyline and a rate path
    lines = root.findall(ns + "polyline")
    rates = root.findall(ns + "path")
    assert len(lines) == n and len(rates) == n, (path, len(lines), len(rates))
    for pl in lines:
        pts = pl.get("points").split()
        assert len(pts) > 1000
        ys = {p.split(",")[1] for p in pts}
        assert len(ys) > 1, path  # the curve is not flat
    for r in rates:
        assert r.get("class") == "rate" and r.get("d").startswith("M")
PY
grep -q "windows: step" "$T/all.svg" && grep -q "chrony: quadratic" "$T/all.svg" &&
	grep -q "ntp-classic: cosine" "$T/all.svg" &&
	ok "compare legend names every preset" || bad "compare legend"

# 5. custom policy and preset window override
"$LC" smear --window 2h --shape cosine --placement centred --step 30m | grep -q "custom: cosine, centred, window 7200 s" &&
	ok "custom policy" || bad "custom policy"
"$LC" smear --preset ntpd --window 7200 | grep -q "ntpd: linear, ending, window 7200 s" &&
	ok "ntpd window override" || bad "ntpd window"
"$LC" smear --preset google --leap 2015-06-30 --step 12h | grep -q "2015-06-30T23:59:60.000Z" &&
	ok "--leap DATE" || bad "--leap DATE"

# 6. usage errors: exit 2 with a message
expect2() {
	local what=$1 needle=$2; shift 2
	local err rc
	err=$("$LC" smear "$@" 2>&1 >/dev/null); rc=$?
	if [ $rc -eq 2 ] && echo "$err" | grep -q -- "$needle"; then
		ok "error: $what"
	else
		bad "error: $what (rc $rc: $err)"
	fi
}
expect2 "unknown preset" "unknown preset 'nope'" --preset nope
expect2 "bad window" "--window" --window -5 --shape linear --placement ending
expect2 "too short window" "too short" --window 1s --shape linear --placement ending
expect2 "unknown shape" "unknown shape 'square'" --shape square
expect2 "unknown placement" "unknown placement" --placement middle
expect2 "fixed preset window" "fixed window" --preset google --window 2h
expect2 "ntpd range" "7200..86400" --preset ntpd --window 1h
expect2 "max rate too small" "too small" --preset google --max-rate 5
expect2 "bad compare" "unknown preset 'x'" --compare google,x
expect2 "--window with --compare" "--window applies to one --preset" --compare google,ntpd --window 2h
expect2 "--max-rate with --compare" "--max-rate applies to one --preset" --compare all --max-rate 20
expect2 "bad option" "unknown or incomplete option" --frobnicate
expect2 "bad leap date" "leap\|month\|date\|time" --leap 2016-13-45
expect2 "bad range" "--range" --range 5h,1h
# Leap days whose window int64_t ns cannot hold: refused with the range
# (3000-06-30 used to draw a window in 1831).
expect2 "leap in 3000" "--leap 3000-06-30: outside the supported range, 1678-01-01 to 2261-12-31" --leap 3000-06-30
expect2 "leap in 1600" "outside the supported range, 1678-01-01 to 2261-12-31" --leap 1600-06-30T23:59:59Z
expect2 "leap in year 0" "outside the supported range" --leap 0000-12-31
out=$("$LC" smear --preset cosine --window 7d --leap 2261-12-31 --step 1d 2>&1) &&
	echo "$out" | grep -q "2261-12-25T00:00:01.000Z to 2262-01-01T00:00:00.000Z" &&
	ok "the last leap day, a 7-day window" || bad "the last leap day: $out"


# 7. messages name the option and the allowed values, never an internal
# label such as <smear preset> (issue 16)
expect2n() { # like expect2, and the message must not contain $needle2
	local what=$1 needle=$2 not=$3; shift 3
	local err rc
	err=$("$LC" smear "$@" 2>&1 >/dev/null); rc=$?
	if [ $rc -eq 2 ] && echo "$err" | grep -q -- "$needle" &&
		! echo "$err" | grep -q -- "$not"; then
		ok "error: $what"
	else
		bad "error: $what (rc $rc: $err)"
	fi
}
expect2n "--preset nosuch names --preset and the presets" \
	"^leapclock smear: --preset: unknown preset 'nosuch' (google, ntpd, chrony, fbclock, utc-sls, minute, cosine, windows, ntp-classic)" \
	"<smear" --preset nosuch
expect2n "--window without a preset names --window and the presets taking one" \
	"--window.*ntpd (7200..86400 s).*cosine (60..604800 s).*--shape" \
	"preset 'google'" --window 1h
expect2n "--window 8d of a custom policy names the options and the bound" \
	"^leapclock smear: custom policy --shape linear --placement ending --window 8d: .*allowed: up to 604800 s" \
	"<smear" --window 8d --shape linear --placement ending
expect2n "--preset cosine --window 8d names --window and the range" \
	"^leapclock smear: --window: .*cosine.*60..604800 s" "<smear" \
	--preset cosine --window 8d
expect2n "--preset google --window 2h lists the presets taking a window" \
	"^leapclock smear: --window: preset 'google' has a fixed window of 86400 s; a window is taken by ntpd (7200..86400 s), cosine (60..604800 s)" \
	"<smear" --preset google --window 2h
expect2n "--max-rate too small names --max-rate" \
	"^leapclock smear: --max-rate: max_rate: 5 ppm is too small" "<smear" \
	--preset google --max-rate 5
expect2n "--compare names --compare" \
	"^leapclock smear: --compare: unknown preset 'x' (google," "<smear" \
	--compare google,x

# 8. two outputs on one stream, or one file twice, are refused (issue 16:
# --csv - --json dropped the JSON, --svg - --csv - mixed both on stdout)
expect2 "--csv - --json" "--csv - and --json both write to standard output" --csv - --json
expect2 "--svg - --csv -" "--csv - and --svg - both write to standard output" --svg - --csv -
expect2 "--svg - --json" "--svg - and --json both write to standard output" --svg - --json
expect2 "--csv F --svg F" "--csv and --svg both write to '$T/x'" --csv "$T/x" --svg "$T/x"
"$LC" smear --csv - >"$T/o.csv" && head -1 "$T/o.csv" | grep -q "^t_rel_s,utc," &&
	ok "--csv - alone writes the CSV to stdout" || bad "--csv - alone"
# issue 27: the error says what it was writing (before: only
# "leapclock smear: /nonexistent/x.svg: No such file or directory")
"$LC" smear --svg /nonexistent/x.svg >/dev/null 2>"$T/svg.err"
rc=$?
if [ "$rc" -eq 3 ] && grep -q "^leapclock smear: writing the chart (--svg) to /nonexistent/x.svg: No such file or directory$" "$T/svg.err"; then
	ok "--svg to a missing folder: says it was writing the chart (exit 3)"
else bad "--svg to a missing folder: exit $rc, $(cat "$T/svg.err")"; fi
# issue 27: each offset shown names its sign (docs/smearing.md: smear
# offset = UTC_SLS - UTC); before, the column read "offset (ms)" (positive)
# beside "SLS-UTC (ms)" (negative) and the refid said only "offset"
out=$("$LC" smear --preset google 2>/dev/null)
if grep -qE '^UTC +t-leap \(s\) +T-SLS \(ms\) +SLS-UTC \(ms\) +rate \(ppm\)$' <<<"$out" &&
	awk '$1 ~ /^2016-12-31T1[3-9]/ { if ($3 + $4 != 0 || $3 <= 0) bad = 1; n++ } END { exit bad || !n }' <<<"$out"; then
	ok "smear: T-SLS and SLS-UTC named, opposite signs, SLS-UTC negative in an insertion"
else bad "smear columns: $(sed -n 3,5p <<<"$out")"; fi
r=$("$LC" server-stats --refid 254.255.204.205 2>&1)
grep -q "offset -0\.[0-9]* s (UTC_SLS - UTC)$" <<<"$r" && ok "refid: the offset's sign named (UTC_SLS - UTC)" ||
	bad "refid: $r"
# issue 27: --width scales the chart (before: fixed 960 px, --width unknown)
h=$("$LC" smear --preset google --svg - --width 480 2>&1 | grep -m1 '^<svg ')
if grep -qE 'width="480" height="[0-9]+" viewBox="0 0 960 [0-9]+"' <<<"$h" &&
	awk -v s="$h" 'BEGIN { match(s, /height="[0-9]+"/); h = substr(s, RSTART + 8, RLENGTH - 9);
		match(s, /viewBox="0 0 960 [0-9]+"/); v = substr(s, RSTART + 17, RLENGTH - 18); exit !(h * 2 == v) }'; then
	ok "--width 480: width 480, height in proportion, viewBox kept"
else bad "--width 480: $h"; fi
"$LC" smear --svg - --width 5 >/dev/null 2>&1
[ $? -eq 2 ] && ok "--width 5: refused (exit 2)" || bad "--width 5 accepted"
# issue 27: in --compare all no curve hides another where they coincide
# (the plateau): each offset line has its own width and dash pattern, the
# ones drawn first wider (before: all stroke-width 2, solid)
"$LC" smear --compare all --svg "$T/all.svg" 2>/dev/null
if python3 - "$T/all.svg" <<'PYCHK'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
ls = [e for e in ET.parse(sys.argv[1]).getroot().iter(ns + "polyline") if e.get("class") == "offset"]
keys = [(e.get("stroke-width"), e.get("stroke-dasharray")) for e in ls]
w = [float(k[0]) for k in keys]
assert len(ls) > 2 and len(set(keys)) == len(keys), keys
assert all(a > b for a, b in zip(w, w[1:])), w
PYCHK
then ok "--compare all: each curve its own width and dashes, wider first"; else bad "--compare all: curves alike"; fi

exit $fail
