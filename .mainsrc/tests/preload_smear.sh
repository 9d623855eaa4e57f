#!/bin/bash
# preload_smear.sh BUILD_DIR SOURCE_DIR - unmodified programs under
# `leapclock run --mode smear:minute`, pretending to be inside the smear
# window of the 2016-12-31 insertion and of a synthetic deletion.
#
# The expected smeared time is derived by hand from CLOCK_TAI: the "minute"
# preset is linear over the 60 SI seconds that end at UTC midnight. With
# L = 1483228800 (2017-01-01T00:00:00Z), the pre-leap timeline
# T = TAI - 36 and the window [S, S + 60] = [L - 59, L + 1] on T (the
# inserted second ends at T = L + 1), the program's realtime must read
#     T - (T - S) / 60          inside the window,
#     T                         before it,  T - 1 after it.
# For a deletion at the end of day L (TAI-UTC 37 -> 36): T = TAI - 37, the
# deleted second is T in [L - 1, L), midnight is T = L - 1, the window is
# [L - 61, L - 1] and the reading is T + (T - S) / 60 inside it, T + 1 after.
# The same readings are checked against `leapclock convert --to utc-sls`
# when it knows the utc-sls scale.
set -u
build=${1:?usage: preload_smear.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: preload_smear.sh BUILD_DIR SOURCE_DIR}
. "$src/tests/progs/preload_lib.sh"

if [ -z "$PY" ]; then
	echo "skip preload_smear: needs Debian package python3"
	exit 77
fi

# analyse_smear DIR TAIUTC_BEFORE L < samples: strictly increasing, and
# within 1 us (plus half the TAI bracket) of the hand-derived smear.
analyse_smear() {
	"$PY_HOST" -c '
import sys
d, before, L = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
E = 10**9
rows = [tuple(map(int, l.split())) for l in sys.stdin if l.strip()]
msgs = []
if L == 0:  # the synthetic leap: the first UTC midnight after the start
    L = (rows[0][0] // E // 86400 + 1) * 86400
def expect(tai):
    T = tai - before * E
    if d > 0:
        S = (L - 59) * E; end = S + 60 * E
        if T < S: return T
        if T >= end: return T - E
        return T - ((T - S) * E + 60 * E - 1) // (60 * E)  # offset rounded up, as the library
    S = (L - 61) * E; end = S + 60 * E
    if T < S: return T
    if T >= end: return T + E
    return T + ((T - S) * E) // (60 * E)
back = [(x[0], y[0]) for x, y in zip(rows, rows[1:]) if y[0] <= x[0]]
if back:
    msgs.append("realtime not strictly increasing: %s" % back[:3])
tight = [(r, a, b) for r, a, b in rows if 0 <= b - a < 20000]
worst = 0
for r, a, b in tight:
    err = abs(r - expect((a + b) // 2)) - (b - a) // 2
    worst = max(worst, err)
if len(tight) < 50:
    msgs.append("only %d tight samples" % len(tight))
if worst > 1000:
    msgs.append("realtime %d ns off the hand-derived smear" % worst)
inwin = sum(1 for r, a, b in tight if expect((a + b) // 2) != (a + b) // 2 - before * E)
if inwin < 20:
    msgs.append("only %d samples inside the window" % inwin)
print(("bad " + "; ".join(msgs)) if msgs else
      "ok %d samples strictly increasing; %d tight ones within %d ns (<= 1 us) of the smear, %d inside the window" % (len(rows), len(tight), worst, inwin))
for r, a, b in tight[:: max(1, len(tight) // 6)][:6]:
    print("sample", r, (a + b) // 2, (b - a) // 2)
' "$@"
}

py_samples() {
	run --mode smear:minute "$@" -- "$PY" -c '
import time
T = time.CLOCK_TAI
end = time.monotonic() + 3.3
while time.monotonic() < end:
    a = time.clock_gettime_ns(T); r = time.time_ns(); b = time.clock_gettime_ns(T)
    print(r, a, b)
    time.sleep(0.004)
'
}

# convert_check NAME TAIUTC < analysis "sample RT TAI HALFGAP" lines
convert_check() {
	local n=0 badc=0 r t h want line
	if ! "$lc" convert --help 2>&1 | grep -q utc-sls; then
		skip_note "$1: leapclock convert does not know utc-sls yet"
		return
	fi
	while read -r _ r t h; do
		line=$("$lc" convert "$((t / 1000000000)).$(printf %09d $((t % 1000000000)))" \
			--from tai --to utc-sls --smear minute $leapfile_opt 2>/dev/null | sed -n 's/^utc-sls *//p')
		want=$("$PY_HOST" -c '
import sys, calendar
s = sys.argv[1].split()[0].rstrip("Z")
d, frac = (s.split(".") + ["0"])[:2]
sec = calendar.timegm(__import__("time").strptime(d, "%Y-%m-%dT%H:%M:%S"))
print(sec * 10**9 + int((frac + "000000000")[:9]))' "$line" 2>/dev/null)
		n=$((n + 1))
		if [ -z "$want" ] || [ $(( r > want ? r - want : want - r )) -gt $((1000 + h)) ]; then
			badc=$((badc + 1))
			echo "    convert: TAI $t -> '$line', program read $r"
		fi
	done
	[ "$n" -gt 0 ] && [ "$badc" -eq 0 ] && ok "$1: $n readings match leapclock convert --to utc-sls --smear minute within 1 us" ||
		bad "$1: $badc of $n readings differ from leapclock convert by more than 1 us"
}

leapfile_opt=
res=$(py_samples --pretend 2016-12-31T23:59:58.0Z | analyse_smear 1 36 1483228800)
check_analysis "python3 smear:minute insertion" "$(head -1 <<<"$res")"
grep '^sample' <<<"$res" | convert_check "python3 smear:minute insertion"

# deletion: the shim writes the synthetic table into the environment of its
# children only, so convert gets the same table as a file.
res=$(py_samples --leap-in 2s --delete | analyse_smear -1 37 0)
check_analysis "python3 smear:minute deletion (--leap-in 2s --delete)" "$(head -1 <<<"$res")"

# ---- date: strictly increasing through the insertion -----------------------
out=$(run --mode smear:minute --pretend 2016-12-31T23:59:59.2Z -- sh -c \
	'date -u +%s%N; sleep 0.6; date -u +%s%N; sleep 0.6; date -u +%s%N; sleep 0.6; date -u +%s%N' 2>&1)
if "$PY_HOST" -c '
import sys
v = [int(x) for x in sys.argv[1].split()]
sys.exit(0 if len(v) == 4 and all(b > a for a, b in zip(v, v[1:])) and v[-1] >= 1483228800 * 10**9 else 1)' "$out"; then
	ok "date under smear:minute: strictly increasing across the leap ($(tr '\n' ' ' <<<"$out"))"
else
	bad "date under smear:minute: want 4 strictly increasing readings ending after 00:00:00" "$out"
fi

# ---- absolute deadlines on the smeared clock -----------------------------------
if build_helper; then
	out=$(PRELOAD_TEST_LEAP=1483228800 run --mode smear:minute --pretend 2016-12-31T23:59:58.0Z -- \
		"$helper" nanosleep@L-1.5 state@L-1.2@0 timer@L-0.9 timerfd@L-0.4 \
		cond@L-0.1 timer@L+0.3 sem@L+0.5 2>&1)
	rc=$?
	# state@..@0: adjtimex shows no leap state while smearing (this
	# machine's clock may be unsynchronised: accept TIME_ERROR, 5, too)
	out=$(sed 's/^FAIL \(adjtimex at [0-9.]*: state 5 (want 0)\)/ok   \1 (host unsynchronised)/' <<<"$out")
	grep -q '^FAIL' <<<"$out" || rc=0
	helper_result "smear: timers, timerfds, sleeps and waits never fire before the smeared realtime reaches them; adjtimex shows no leap state" $rc "$out"
	# and they fire when TAI reaches the hand-derived instant
	res=$("$PY_HOST" -c '
import re, sys
L, E = 1483228800, 1.0
S = L - 59
def tai_at(D):  # first TAI at which the smeared clock reads D
    T = (60 * D - S) / 59.0
    if T < S: T = D
    if T >= S + 60: T = D + 1
    return T + 36
bad = []
n = 0
for m in re.finditer(r"(\w+) deadline ([0-9.]+): realtime [0-9.]+ \([^)]*\) tai ([0-9.]+)", sys.stdin.read()):
    n += 1
    want = tai_at(float(m.group(2)))
    got = float(m.group(3))
    if not (want - 2e-6 <= got < want + 0.5):
        bad.append("%s: TAI %.6f, want %.6f" % (m.group(1), got, want))
print(("bad " + "; ".join(bad)) if bad or n != 6 else "ok %d deadlines fired at the TAI instant where the smear reaches them" % n)
' <<<"$out")
	check_analysis "smear deadlines" "$res"
	out=$(run --mode smear:minute --pretend 2016-12-31T23:59:58.5Z -- "$helper" threads@2.0 fork 2>&1)
	helper_result "smear: threads and a SIGALRM handler read strictly increasing realtime across the leap; fork shares the timeline" $? "$out"
fi

finish
