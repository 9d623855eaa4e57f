#!/bin/bash
# cli_now.sh BUILD_DIR SOURCE_DIR - `leapclock now` and `leapclock status` on
# this host, read-only. Expected values come from elsewhere than the tool:
# TAI-UTC from the last data line of the leap file in use (37 s since
# 2017), the expiry of tzdata2025b's list from its "#@ 3991593600" line
# (3991593600 - 2208988800 = 1782604800 = 2026-06-28), REALTIME from the
# host's `date` around the call, read-only from strace when it can trace.
set -u
build=${1:?usage: cli_now.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: cli_now.sh BUILD_DIR SOURCE_DIR}
lc=$build/leapclock
data=$src/tests/data
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

source "$src/tests/progs/check_lib.sh"
skip() { echo "skip $1"; }

if [ ! -x "$lc" ]; then
	echo "FAIL leapclock binary not built at $lc"
	exit 1
fi
if ! command -v python3 >/dev/null; then
	echo "skip cli_now.sh: needs Debian package python3"
	exit 77
fi

# TAI-UTC now according to a leap-seconds.list: its last data line
tai_of() { awk '!/^#/ && NF >= 2 { x = $2 } END { print x }' "$1"; }

clocks="monotonic_raw monotonic boottime tai realtime utc utc_sls"

# checks the JSON of `now` in file $1 against the expected TAI-UTC $2,
# the leap source $3, and REALTIME bracketed by $4..$5 (host seconds)
check_json() {
	python3 - "$@" <<'EOF'
import json, sys
path, tai_utc, source, t0, t1 = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
d = json.load(open(path))
bad = []
def ns(k):
    return d[k]["sec"] * 10**9 + d[k]["nsec"]
for k in "monotonic_raw monotonic boottime tai realtime utc utc_sls".split():
    if k not in d or set(d[k]) != {"sec", "nsec"}:
        bad.append("member %s with exactly sec and nsec: %r" % (k, d.get(k)))
        continue
    if not all(isinstance(d[k][f], int) for f in ("sec", "nsec")):
        bad.append("%s: integers" % k)
    hi = 2 * 10**9 if k in ("utc", "utc_sls") else 10**9
    if not 0 <= d[k]["nsec"] < hi:
        bad.append("%s.nsec in [0, %d): %d" % (k, hi, d[k]["nsec"]))
for k in ("counter", "leap_source", "next_leap"):
    if k not in d:
        bad.append("member " + k)
if not bad:
    if not isinstance(d["counter"], str) or not d["counter"]:
        bad.append("counter is a name: %r" % d["counter"])
    if d["leap_source"] != source and source != "-":
        bad.append("leap_source %r, want %r" % (d["leap_source"], source))
    nl = d["next_leap"]
    if nl is not None and not (isinstance(nl, dict) and nl.get("dir") in ("insert", "delete")
                               and isinstance(nl.get("when"), int)):
        bad.append("next_leap is null or {when, utc, dir}: %r" % nl)
    if "host_state" in d and d["host_state"] not in ("not-followed", "agrees", "leap-off", "stepped", "smeared"):
        bad.append("host_state is a name as in status --json: %r" % d["host_state"])
    diff = (ns("tai") - ns("realtime")) / 1e9
    if abs(diff - tai_utc) >= 1:
        bad.append("tai - realtime = %.9f s, want %d within 1 s" % (diff, tai_utc))
    if not t0 <= d["realtime"]["sec"] <= t1:
        bad.append("realtime %d within the host's date %d..%d" % (d["realtime"]["sec"], t0, t1))
    # read in this order, a few us apart: none goes back; boottime is
    # monotonic (plus suspend, none for a process); no smear configured
    if not ns("monotonic_raw") > 0 or ns("boottime") < ns("monotonic"):
        bad.append("monotonic clocks positive, boottime >= monotonic")
    if d["utc"]["nsec"] < 10**9 and not 0 <= ns("utc") - ns("realtime") < 10**8:
        bad.append("utc follows realtime (read after it): %d ns" % (ns("utc") - ns("realtime")))
    if d["utc_sls"]["nsec"] < 10**9 and not 0 <= ns("utc_sls") - ns("utc") < 10**8:
        bad.append("utc_sls follows utc (no smear set): %d ns" % (ns("utc_sls") - ns("utc")))
for b in bad:
    print("    " + b)
sys.exit(1 if bad else 0)
EOF
}

unset LEAPCLOCK_SMEAR LEAPCLOCK_REALTIME_SMEARED

# ---- leapclock now, text: a line per clock id, counter, source, next leap
out=$("$lc" now 2>"$tmp/err")
expect_rc "now runs" 0 $?
for c in $clocks; do
	expect_line "now prints $c" "^$c +[0-9]+\.[0-9]{9}( |$)" "$out"
done
expect_line "now: utc in ISO 8601" '^utc +[0-9]+\.[0-9]{9} +[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\.[0-9]{9}Z$' "$out"
expect_line "now: tai labelled TAI" '^tai +[0-9.]+ +[0-9T:.-]+ TAI$' "$out"
expect_line "now: counter and its rate" '^counter +[a-z]+ \([0-9]+ Hz\)$' "$out"
expect_line "now: leap source" '^leap source +[^ ]' "$out"
expect_line "now: next leap" '^next leap +(none scheduled|(inserted|deleted) second [0-9]{4}-)' "$out"

# TAI - REALTIME from the text form, against the system's table. The tool
# searches the same candidates as this: $LEAPCLOCK_LEAPFILE unset, the
# zoneinfo list, the zoneinfo leapseconds, then the built-in table (tzdata
# 2026f's, expiring 2027-06-28 = 1814140800), and takes the one that expires
# last (the first of those on a tie). Expiries from the files' own lines.
list=/usr/share/zoneinfo/leap-seconds.list
tzfile=/usr/share/zoneinfo/leapseconds
exp_of_list() { local n; n=$(sed -n 's/^#@[[:space:]]*\([0-9]*\).*/\1/p' "$1"); [ -n "$n" ] && echo $((n - 2208988800)); }
exp_of_tz() { sed -n 's/^#expires \([0-9]*\).*/\1/p' "$1"; }
best=""; best_exp=-1; first=""
for cand in "$list" "$tzfile" built-in; do
	case $cand in
	built-in) e=1814140800 ;;
	"$list") [ -f "$cand" ] || continue; e=$(exp_of_list "$cand") ;;
	*) [ -f "$cand" ] || continue; e=$(exp_of_tz "$cand") ;;
	esac
	[ -n "$e" ] || e=-1
	[ -n "$first" ] || first=$cand
	if [ "$e" -gt "$best_exp" ]; then best=$cand; best_exp=$e; fi
done
out=$("$lc" now 2>"$tmp/err")
err=$(cat "$tmp/err")
src_line=$(sed -n 's/^leap source *//p' <<<"$out")
if [ "$src_line" = "$best" ]; then ok "now: the newest table is used ($best)"; else
	bad "now: leap source '$src_line', want the newest, $best"; fi
if [ "$best" != "$first" ]; then
	# Debian 12 in 2026: its files expired 2026-06-28, the built-in runs on
	# Issue 27: one line, and a plain sentence when the system's file
	# expired (before: three "leap table: using/skipped" lines)
	fexp=$(if [ "$first" = "$list" ]; then exp_of_list "$first"; else exp_of_tz "$first"; fi)
	if [ "$fexp" -le "$(date +%s)" ]; then
		expect_line "now: stderr says plainly the system's file expired" \
			"^leapclock now: the system's ${first##*/}( and [a-z.-]+)? expired on $(date -u -d "@$fexp" +%F): update tzdata \\(using " "$err"
	fi
	n=$(grep -v 'not reading the timeline' <<<"$err" | grep -c .) # a stale page's own line aside (cli_stale_page.sh)
	[ "$n" -le 1 ] && ok "now: the table selection in one line at most ($n)" ||
		bad "now: $n lines on stderr: $err"
	err=$("$lc" -v now 2>&1 >/dev/null)
	expect_line "now -v: stderr says which table it took" "^leapclock now: leap table: using $best \\(expires " "$err"
	expect_line "now -v: ... and why it skipped $first" "^leapclock now: leap table: skipped $first \\(expires [0-9-]+\\): $best expires later" "$err"
else
	no_line "now: the first table is the newest: nothing said" 'leap table:' "$err"
fi
case $best in
built-in) want=$(tai_of "$data/leap-seconds.list.tzdata2026f") ;;
"$list") want=$(tai_of "$list") ;;
*) want=37 ;; # tzdata's leapseconds: 37 s since 2017
esac
t0=$(date +%s)
"$lc" now --json >"$tmp/now.json" 2>"$tmp/err"
rc=$?
t1=$(date +%s)
expect_rc "now --json runs" 0 $rc
if python3 -m json.tool "$tmp/now.json" >/dev/null; then ok "now --json parses (json.tool)"; else bad "now --json parses"; cat "$tmp/now.json"; fi
if check_json "$tmp/now.json" "$want" "$best" "$t0" "$t1"; then
	ok "now --json: every clock id {sec, nsec}, counter, leap_source, next_leap; tai - realtime = $want s ($best)"
else bad "now --json members and values ($best)"; fi

# ---- a table named by LEAPCLOCK_LEAPFILE that cannot be used: exit 2 with
# the file (and line), never an answer from another table
cp "$data/leap-seconds.list.tzdata2026f" "$tmp/tampered.list"
sed -i 's/^3692217600/3692217601/' "$tmp/tampered.list"
mkfifo "$tmp/fifo"
for c in "tampered.list|tampered\.list:[0-9]+: hash mismatch" "fifo|fifo: is a FIFO" \
	"missing|missing: named by LEAPCLOCK_LEAPFILE but missing"; do
	f=${c%%|*}; pat=${c#*|}
	out=$(LEAPCLOCK_LEAPFILE=$tmp/$f timeout 10 "$lc" now 2>"$tmp/err")
	expect_rc "now with a bad LEAPCLOCK_LEAPFILE ($f)" 2 $?
	expect_line "now: says what is wrong with $f" "^leapclock now: .*$pat" "$(cat "$tmp/err")"
	[ -z "$out" ] && ok "now: no answer from another table ($f)" || bad "now: answered with a bad $f: $out"
done

# ---- with LEAPCLOCK_LEAPFILE: the source is that file, TAI-UTC its own
for f in leap-seconds.list.tzdata2025b leap-seconds.list.tzdata2026f; do
	want=$(tai_of "$data/$f")
	[ "$want" = 37 ] && ok "$f: its last TAI-UTC is 37 s" || bad "$f: last TAI-UTC $want"
	out=$(LEAPCLOCK_LEAPFILE=$data/$f "$lc" now 2>"$tmp/err")
	expect_rc "now with LEAPCLOCK_LEAPFILE=$f" 0 $?
	err=$(cat "$tmp/err")
	expect_line "$f: leap source is the file" "^leap source +$data/$f\$" "$out"
	t0=$(date +%s)
	LEAPCLOCK_LEAPFILE=$data/$f "$lc" now --json >"$tmp/now.json" 2>"$tmp/err.json"
	rc=$?
	t1=$(date +%s)
	expect_rc "now --json with $f" 0 $rc
	if check_json "$tmp/now.json" "$want" "$data/$f" "$t0" "$t1"; then
		ok "$f: --json members, leap_source the file, tai - realtime = $want s"
	else bad "$f: --json members and values"; fi
	# expiry, from the file's own #@ line (NTP seconds)
	exp=$(( $(sed -n 's/^#@[[:space:]]*\([0-9]*\).*/\1/p' "$data/$f") - 2208988800 ))
	expday=$(date -u -d "@$exp" +%Y-%m-%d)
	warn="^leapclock now: warning: leap table $data/$f expired on $expday; leap seconds announced since then are unknown to it\$"
	if [ "$t0" -ge "$exp" ]; then
		expect_line "$f: expired on $expday: warned on stderr" "$warn" "$err"
		expect_line "$f: the warning with --json too" "$warn" "$(cat "$tmp/err.json")"
		no_line "$f: the warning is not on stdout" 'warning' "$out"
		python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["leap_table_expired"] is True else 1)' "$tmp/now.json" &&
			ok "$f: leap_table_expired true" || bad "$f: leap_table_expired true"
	else
		no_line "$f: not expired before $expday: no warning" 'warning' "$err"
		python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["leap_table_expired"] is False else 1)' "$tmp/now.json" &&
			ok "$f: leap_table_expired false" || bad "$f: leap_table_expired false"
	fi
done

# ---- leapclock status: runs, read-only, JSON parses
out=$("$lc" status 2>"$tmp/err")
expect_rc "status runs" 0 $?
expect_line "status: the host's state next to leapclock's" '^state +TIME_[A-Z]+ +TIME_[A-Z]+' "$out"
expect_line "status: leapclock's TAI-UTC is the table's" '^TAI-UTC +.* +37 s$' "$out"
"$lc" status --json >"$tmp/status.json" 2>"$tmp/err"
expect_rc "status --json runs" 0 $?
if python3 -m json.tool "$tmp/status.json" >/dev/null; then ok "status --json parses (json.tool)"; else bad "status --json parses"; cat "$tmp/status.json"; fi
python3 - "$tmp/status.json" <<'EOF' && ok "status --json: host and leapclock states, leapclock's tai 37" || bad "status --json members"
import json, sys
d = json.load(open(sys.argv[1]))
for side in ("host", "leapclock"):
    s = d[side]
    assert s["state"].startswith("TIME_"), s
    assert isinstance(s["status_bits"], list)
assert d["leapclock"]["tai"] == 37, d["leapclock"]["tai"]
EOF
# read-only: every adjtimex-family call has modes=0 and nothing sets the
# clock (strace where ptrace is allowed)
if command -v strace >/dev/null &&
	strace -o /dev/null true 2>/dev/null; then
	strace -f -o "$tmp/trace" -e trace=adjtimex,clock_adjtime,settimeofday,clock_settime \
		"$lc" status >/dev/null 2>&1
	calls=$(grep -cE 'adjtimex|clock_adjtime|settimeofday|clock_settime' "$tmp/trace")
	writes=$(grep -E 'adjtimex|clock_adjtime|settimeofday|clock_settime' "$tmp/trace" |
		grep -vcE '(adjtimex|clock_adjtime)\((CLOCK_REALTIME, )?\{modes=0,')
	if [ "$calls" -ge 1 ] && [ "$writes" -eq 0 ]; then
		ok "status is read-only: $calls adjtimex call(s), all modes=0, no settime"
	else
		bad "status read-only ($calls calls, $writes not modes=0):"; sed 's/^/    /' "$tmp/trace"
	fi
else
	skip "status read-only under strace: needs Debian package strace (and ptrace)"
fi

# ---- usage errors: exit 2, a message on stderr, nothing on stdout
for args in "now --bogus" "now --json extra" "status --bad" "status --json --nope"; do
	# shellcheck disable=SC2086
	out=$("$lc" $args 2>"$tmp/err")
	rc=$?
	expect_rc "leapclock $args is a usage error" 2 $rc
	expect_line "leapclock $args: says what is wrong" "unknown option|unexpected argument" "$(cat "$tmp/err")"
	[ -z "$out" ] && ok "leapclock $args: nothing on stdout" || bad "leapclock $args: stdout '$out'"
done

echo "cli_now.sh: $fails failed"
[ "$fails" -eq 0 ]
