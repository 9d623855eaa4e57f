# preload_lib.sh - sourced by tests/preload_*.sh (not a test itself: it lives
# outside the tests/*.sh glob). Expects $build and $src.

build=$(cd "$build" && pwd)
lc=$build/leapclock
shim=$build/libleapclock-preload.so
fails=0
passes=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Hermetic: the tests name their leap file (tzdata 2026f, valid to
# 2027-06-28) unless they set one; the system's may have expired, and then
# `leapclock run` says so on stderr, which the tests read with the output.
export LEAPCLOCK_LEAPFILE=${LEAPCLOCK_LEAPFILE:-$src/tests/data/leap-seconds.list.tzdata2026f}

ok() { echo "ok   $1"; passes=$((passes + 1)); }
bad() {
	echo "FAIL $1"
	[ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/    /'
	fails=$((fails + 1))
}
skip_note() { echo "skip $1"; }
finish() {
	echo "$passes passed, $fails failed"
	[ "$fails" -eq 0 ] || exit 1
	[ "$passes" -gt 0 ] || exit 77
	exit 0
}

if [ ! -x "$lc" ] || [ ! -f "$shim" ]; then
	echo "skip preload tests: $lc or $shim not built"
	exit 77
fi

# A sanitizer build's shim needs the sanitizer runtimes loaded first.
san_preload=
if grep -q '^LC_SANITIZE:STRING=.\+' "$build/CMakeCache.txt" 2>/dev/null; then
	cc_path=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
	for rt in libasan.so libubsan.so; do
		f=$("${cc_path:-cc}" -print-file-name=$rt 2>/dev/null)
		[ -n "$f" ] && [ -f "$f" ] && san_preload="$san_preload${san_preload:+:}$f"
	done
	export ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0
fi

# run [leapclock run options] -- PROGRAM ARGS
run() {
	if [ -n "$san_preload" ]; then
		LD_PRELOAD="$san_preload" "$lc" run "$@"
	else
		"$lc" run "$@"
	fi
}

PY=$(command -v /usr/bin/python3 || command -v python3 || true)
PY_HOST=${PY:-python3}

# build_c OUT PROG: compiles tests/progs/PROG.c (an ordinary program, no
# leapclock in it) into OUT; a failure is a bad line and returns 1
build_c() {
	local cc=${CC:-cc}
	command -v "$cc" >/dev/null || cc=gcc
	if ! "$cc" -O2 -pthread -o "$1" "$src/tests/progs/$2.c" 2>"$tmp/cc.log"; then
		bad "cannot build tests/progs/$2.c" "$(cat "$tmp/cc.log")"
		return 1
	fi
}

helper=$tmp/preload_timers
build_helper() { build_c "$helper" preload_timers; }

# helper_result NAME RC OUTPUT
helper_result() {
	if [ "$2" -eq 0 ] && ! grep -q '^FAIL' <<<"$3" && grep -q '^ok' <<<"$3"; then
		ok "$1 ($(grep -c '^ok' <<<"$3") checks)"
	else
		bad "$1 (exit $2)" "$3"
	fi
}

# analyse_exact L TAIUTC DIR < "rt tai1 tai2" lines: one exact leap.
# L = POSIX second of the 00:00:00 after the leap (0: derive it from the
# data and check it is a UTC midnight); TAIUTC before it; DIR +1 inserted,
# -1 deleted. Uses samples whose two TAI reads bracket the realtime read
# within 200 us.
analyse_exact() {
	"$PY_HOST" -c '
import sys
L, before, d = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rows = [tuple(map(int, l.split())) for l in sys.stdin if l.strip()]
rows = [(r, a, b) for r, a, b in rows if 0 <= b - a < 200000]
E = 10**9
msgs = []
if len(rows) < 50:
    print("bad only", len(rows), "tight samples"); sys.exit()
# TAI never goes back
if any(y[1] < x[2] for x, y in zip(rows, rows[1:])):
    msgs.append("TAI went back")
# TAI-UTC of each sample: before or before+d, nothing else
cls = []
for r, a, b in rows:
    off = (a + b) // 2 - r
    k = None
    for n in (before, before + d):
        if abs(off - n * E) <= (b - a) // 2 + 50000:
            k = n
    if k is None:
        msgs.append("TAI-UTC %.6f s at realtime %.6f" % (off / E, r / E)); break
    cls.append(k)
switch = [i for i in range(1, len(cls)) if cls[i] != cls[i - 1]]
if len(switch) != 1 or cls[0] != before:
    msgs.append("TAI-UTC changes %d times (want once, %d -> %d)" % (len(switch), before, before + d))
# realtime: steps with TAI except once by -d s
jumps = []
for i in range(1, len(rows)):
    dr = rows[i][0] - rows[i - 1][0]
    dt = rows[i][2] - rows[i - 1][1]
    lo = rows[i][1] - rows[i - 1][2]
    if not (lo - 50000 <= dr <= dt + 50000):
        jumps.append((i, dr))
if len(jumps) != 1 or abs(jumps[0][1] + d * E) > 100 * 10**6:
    msgs.append("realtime jumps %s (want one of %+d s)" % ([(i, j / E) for i, j in jumps], -d))
elif switch:
    i = jumps[0][0]
    if i != switch[0]:
        msgs.append("the realtime jump (sample %d) is not where TAI-UTC changes (%d)" % (i, switch[0]))
    r0, r1 = rows[i - 1][0], rows[i][0]
    if L == 0:
        L = r0 // E + (2 if d > 0 else 2)
        if d > 0: L = r0 // E + 1
    if L % 86400:
        msgs.append("the leap %d is not at a UTC midnight" % L)
    if d > 0:
        good = r0 < L * E and (L - 1) * E <= r1 < (L - 1) * E + 100 * 10**6
        want = "last reading before 00:00:00, first after it 23:59:59.0x"
    else:
        good = r0 < (L - 1) * E and L * E <= r1 < L * E + 100 * 10**6
        want = "last reading before 23:59:59, first after it 00:00:00.0x"
    if not good:
        msgs.append("jump from %.6f to %.6f: want %s (L %d)" % (r0 / E, r1 / E, want, L))
print(("bad " + "; ".join(msgs)) if msgs else
      "ok %d samples, one %+d s step of realtime at the leap, TAI-UTC %d -> %d" % (len(rows), -d, before, before + d))
' "$@"
}

# check_analysis NAME RESULT
check_analysis() {
	if [[ $2 == ok* ]]; then ok "$1: ${2#ok }"; else bad "$1: ${2#bad }"; fi
}

# host REALTIME - MONOTONIC in ms, to see that nothing stepped the host
host_offset_ms() {
	"$PY_HOST" -c 'import time; print((time.time_ns() - time.monotonic_ns()) // 10**6)'
}

settime_tests() {
	local pre post out rc sp=()
	if [ "$(id -u)" -eq 0 ] && ! command -v setpriv >/dev/null; then
		# As root the only thing between a shim bug and the host clock
		# would be the shim itself: refuse to try without setpriv.
		echo "skip settime tests: running as root needs setpriv (Debian package util-linux) to drop CAP_SYS_TIME first"
		return 0
	fi
	if [ "$(id -u)" -eq 0 ]; then
		# Even a shim bug could not reach the host clock: no
		# CAP_SYS_TIME for anything below.
		sp=(setpriv --bounding-set=-sys_time --)
	fi
	pre=$(host_offset_ms)
	if [ -x "$helper" ]; then
		out=$("${sp[@]}" "$lc" run --pretend 2016-12-31T23:59:59Z -- "$helper" settime 2>&1)
		rc=$?
		helper_result "clock_settime, settimeofday, adjtimex/ntp_adjtime/clock_adjtime with modes: EPERM${sp:+ (under setpriv without CAP_SYS_TIME)}" $rc "$out"
	fi
	if [ -n "$PY" ]; then
		out=$("${sp[@]}" "$lc" run -- "$PY" -c '
import time
try:
    time.clock_settime(time.CLOCK_REALTIME, time.time() + 3600)
    print("set")
except PermissionError:
    print("EPERM")
' 2>&1)
		[ "$out" = EPERM ] && ok "python3 time.clock_settime: PermissionError" ||
			bad "python3 time.clock_settime: want EPERM" "$out"
	fi
	post=$(host_offset_ms)
	if [ $((post - pre)) -gt -50 ] && [ $((post - pre)) -lt 50 ]; then
		ok "the host's REALTIME - MONOTONIC did not move ($pre ms, $post ms)"
	else
		bad "the host clock moved by $((post - pre)) ms during the settime tests"
	fi
}
