#!/bin/bash
# cli_smear_sign.sh BUILD_DIR SOURCE_DIR - the sign of each offset column of
# `leapclock smear` is the one leapclock-smear(1) documents (issue 27: the
# smear offset had several sign conventions). The page's OUTPUT section
# defines offset_ms and utc_diff_ms each as a difference of two of T,
# UTC_SLS and UTC; this test reads those formulas and checks them at known
# points of a linear 24 h smear ending at the leap instant (1000 ms x the
# fraction of the window gone, behind T; UTC = T before the leap), in the
# CSV, the JSON and the table, for an insertion and a deletion. Before, the
# page named the CSV columns without their definitions.
set -u
B=${1:?build dir}
S=${2:-$(cd "$(dirname "$0")/.." && pwd)}
L="$B/leapclock"
fails=0
# shellcheck source=progs/check_lib.sh
. "$S/tests/progs/check_lib.sh"
[ -x "$L" ] || { echo "skip: $L not built"; exit 77; }
command -v python3 >/dev/null || { echo "skip: needs python3"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
man="$S/docs/leapclock-smear.1"
pol=(--shape linear --placement ending-posix --window 24h --step 6h)

for dir in insert delete; do
	extra=(); [ $dir = delete ] && extra=(--delete)
	"$L" smear "${pol[@]}" "${extra[@]}" --csv "$tmp/$dir.csv" >"$tmp/$dir.txt" 2>"$tmp/err" ||
		bad "$dir: smear exits 0: $(cat "$tmp/err")"
	"$L" smear "${pol[@]}" "${extra[@]}" --json >"$tmp/$dir.json" 2>"$tmp/err" ||
		bad "$dir: smear --json exits 0"
	if python3 - "$man" "$dir" "$tmp/$dir.csv" "$tmp/$dir.json" "$tmp/$dir.txt" 2>"$tmp/py.err" <<'PY'
import csv, json, re, sys
man, d, csvf, jsonf, txtf = sys.argv[1:]
sgn = 1 if d == "insert" else -1
src = open(man).read().replace("\\-", "-")
# the documented definitions: "offset_ms = A - B", "utc_diff_ms = A - B"
forms = {}
for col in ("offset_ms", "utc_diff_ms"):
    m = re.search(r"^%s = (T|UTC_SLS|UTC) - (T|UTC_SLS|UTC)\b" % col, src, re.M)
    assert m, "leapclock-smear(1) defines no '%s = A - B'" % col
    forms[col] = (m.group(1), m.group(2))
# at f of the window (before the leap): T - UTC_SLS = sgn * 1000 f ms, UTC = T
def want(col, f):
    v = {"T": 0.0, "UTC": 0.0, "UTC_SLS": -sgn * 1000.0 * f}
    a, b = forms[col]
    return v[a] - v[b]
rows = {round(float(r["t_rel_s"])): r for r in csv.DictReader(open(csvf))}
js = {round(s["t_rel_s"]): s for s in json.load(open(jsonf))["samples"]}
txt = {}
for line in open(txtf):
    p = line.split()
    if len(p) == 5 and p[0][:4].isdigit():
        txt[round(float(p[1]))] = p
# a deletion's window ends 1 s later on T (its POSIX midnight, smearing.md):
# within 0.05 ms of the insertion's figures
tol = 1e-6 if d == "insert" else 0.05
for t, f in ((-64800, 0.25), (-43200, 0.5), (-21600, 0.75)):
    r, s, x = rows[t], js[t], txt[t]
    name = next(iter(s.keys() - {"t_rel_s", "utc"}))
    for col, tcol in (("offset_ms", 2), ("utc_diff_ms", 3)):
        w = want(col, f)
        assert abs(float(r[col]) - w) < tol, (d, t, col, r[col], w, forms[col])
        assert abs(s[name][col] - w) < tol, (d, t, "json", col, s[name][col], w)
        assert abs(float(x[tcol]) - w) < max(tol, 1e-3), (d, t, "table", col, x[tcol], w)
print("; ".join("%s = %s - %s" % ((c,) + forms[c]) for c in forms), file=sys.stderr)
PY
	then ok "$dir: offset_ms and utc_diff_ms as leapclock-smear(1) defines them, at 1/4, 1/2, 3/4 ($(tail -1 "$tmp/py.err" 2>/dev/null))"
	else bad "$dir: columns against leapclock-smear(1)"; sed 's/^/    /' "$tmp/py.err"; fi
done
# the table's headers name the same differences
hdr=$(sed -n 4p "$tmp/insert.txt")
expect_line "table headers T-SLS and SLS-UTC" '^UTC +t-leap \(s\) +T-SLS \(ms\) +SLS-UTC \(ms\) +rate \(ppm\)$' "$hdr"
# and the chart's offset axis names the sign of a deletion's numbers
"$L" smear "${pol[@]}" --delete --svg - 2>/dev/null >"$tmp/d.svg"
expect_line "deletion chart: axis says negative is ahead" 'offset behind \(ms; negative: ahead\)' "$(cat "$tmp/d.svg")"

[ $fails -eq 0 ]
