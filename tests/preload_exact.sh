#!/bin/bash
# preload_exact.sh BUILD_DIR SOURCE_DIR - unmodified programs (date, sh,
# sleep, python3, perl, and a C program using timer_settime(TIMER_ABSTIME),
# timerfd, clock_nanosleep, condvars, semaphores and timed locks) run under
# `leapclock run` in exact mode, rehearsing the 2016-12-31 insertion and a
# synthetic deletion (--leap-in --delete). Expected values are derived by
# hand: 2017-01-01T00:00:00Z is POSIX 1483228800 = L; exact mode repeats the
# POSIX second L-1 (23:59:59), TAI-UTC is 36 before L and 37 from the start
# of the inserted second; the synthetic deletion at the end of the host's
# UTC day drops 23:59:59 and TAI-UTC goes from 37 to 36. Every program's
# clock is pretended: the host clock is never set (the shim refuses it).
set -u
build=${1:?usage: preload_exact.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: preload_exact.sh BUILD_DIR SOURCE_DIR}
. "$src/tests/progs/preload_lib.sh"

# ---- date and sleep: the repeated 23:59:59, shared by a process tree ------
# Each line: date's reading and the kernel's uptime (/proc/uptime, not
# affected by the shim), to tell a repeated 23:59:59 from a clock that
# merely stayed in it.
out=$(run --pretend 2016-12-31T23:59:59.0Z -- sh -c '
	u() { cut -d" " -f1 /proc/uptime; }
	echo $(date -u +%T.%N) $(u); sleep 1.05
	echo $(date -u +%T.%N) $(u); sleep 1.0
	echo $(date -u +%T.%N) $(u)' 2>&1)
res=$("$PY_HOST" -c '
import sys
rows = [l.split() for l in sys.argv[1].splitlines()]
if len(rows) != 3 or any(len(r) != 2 for r in rows):
    print("bad output"); sys.exit()
def sec(t):
    h, m, s = t.split(":"); return int(h) * 3600 + int(m) * 60 + float(s)
(t1, u1), (t2, u2), (t3, u3) = [(r[0], float(r[1])) for r in rows]
ok = t1.startswith("23:59:59.") and t2.startswith("23:59:59.") and t3.startswith("00:00:0")
ok = ok and u2 - u1 >= 1.0
# 23:59:59 -> 00:00:0x took one second more than the clock shows
shown = sec(t3) + 86400 - sec(t1)
ok = ok and abs((u3 - u1) - 1 - shown) < 0.05
print("ok" if ok else "bad", "%s, %s after %.2f s, %s after %.2f s" % (t1, t2, u2 - u1, t3, u3 - u1))
' "$out")
if [[ $res == ok* ]]; then ok "date: 23:59:59 twice: ${res#ok }"
else bad "date: want 23:59:59.x, 23:59:59.y at least 1 s later, then 00:00:0z one second later than it reads: ${res#bad }" "$out"; fi

# sleep counts elapsed time: 1.5 s across the insertion is 0.5 s of POSIX
# time; the host (not under the shim) sees at least 1.5 s pass.
h0=$(date +%s%N)
out=$(run --pretend 2016-12-31T23:59:59.0Z -- sh -c \
	'date -u +%s%N; sleep 1.5; date -u +%s%N' 2>&1)
h1=$(date +%s%N)
a=$(sed -n 1p <<<"$out"); b=$(sed -n 2p <<<"$out")
d=$(( (b - a) / 1000000 )); hd=$(( (h1 - h0) / 1000000 ))
if [ "$d" -ge 450 ] && [ "$d" -lt 1000 ] && [ "$hd" -ge 1500 ]; then
	ok "sleep 1.5 across the leap: $d ms of the program's realtime, $hd ms on the host"
else
	bad "sleep 1.5: program realtime moved $d ms (want 500..999), host $hd ms" "$out"
fi

# ---- python3: every reading, and TAI -------------------------------------
py_samples() { # mode pretend-args... -> "rt_ns tai1_ns tai2_ns" lines
	run "$@" -- "$PY" -c '
import time
T = time.CLOCK_TAI
end = time.monotonic() + 1.8
while time.monotonic() < end:
    a = time.clock_gettime_ns(T); r = time.time_ns(); b = time.clock_gettime_ns(T)
    print(r, a, b)
    time.sleep(0.004)
'
}
if [ -n "$PY" ]; then
	samples=$(py_samples --pretend 2016-12-31T23:59:59.2Z)
	res=$(analyse_exact 1483228800 36 1 <<<"$samples")
	check_analysis "python3 exact insertion" "$res"
	samples=$(py_samples --leap-in 1s --delete)
	res=$(analyse_exact 0 37 -1 <<<"$samples")
	check_analysis "python3 exact deletion" "$res"
else
	skip_note "python3 not found"
fi

# ---- perl: time() and Time::HiRes ------------------------------------------
if command -v perl >/dev/null && perl -MTime::HiRes -e 1 2>/dev/null; then
	out=$(run --pretend 2016-12-31T23:59:59.1Z -- perl -MTime::HiRes -e '
for (1..7) { printf "%.6f %d\n", Time::HiRes::time(), time(); Time::HiRes::sleep(0.25) }')
	res=$("$PY_HOST" -c '
import sys
rows = [tuple(map(float, l.split())) for l in sys.stdin if l.strip()]
back = [(a[0], b[0]) for a, b in zip(rows, rows[1:]) if b[0] < a[0]]
ok = len(back) == 1 and -1.0 < back[0][1] - back[0][0] < -0.4
ok = ok and all(int(h) - 1 <= c <= int(h) + 1 for h, c in rows)
ok = ok and sum(1 for h, c in rows if int(h) == 1483228799) >= 3
print("ok" if ok else "bad", "back steps:", back, "rows:", len(rows))
' <<<"$out")
	if [[ $res == ok* ]]; then ok "perl: Time::HiRes and time() repeat 23:59:59 once ($res)"
	else bad "perl: $res" "$out"; fi
else
	skip_note "perl with Time::HiRes not found"
fi

# ---- absolute deadlines: a C program -----------------------------------------
if build_helper; then
	out=$(PRELOAD_TEST_LEAP=1483228800 run --pretend 2016-12-31T23:59:58.1Z -- \
		"$helper" nanosleep@L-1.6@36 timerfd@L-1.3@36 state@L-0.7@1 \
		timer@L-0.6@36 cond@L-0.4@36 timerfd@L+0.05@37 \
		timer@L+0.15@37 state@L+0.25@4 nanosleep@L+0.3@37 \
		cond@L+0.4@37 sem@L+0.5@37 mutex@L+0.6@37 rwlock@L+0.7@37 \
		taitimer@L+0.8@37 threadtimer@L+0.9@37 2>&1)
	helper_result "insertion, exact: timers (SIGEV_SIGNAL and SIGEV_THREAD), timerfds, sleeps, waits fire when the program's realtime reaches them (L+x after the repeated second), adjtimex TIME_INS then TIME_WAIT" $? "$out"
	out=$(run --leap-in 1.5s --delete -- "$helper" state@L-1.6@2 \
		nanosleep@L-1.2@37 timer@L-1.05@37 timerfd@L-0.5@36@0.5 \
		cond@L-0.3@36@0.3 timer@L+0.1@36 sem@L+0.2@36 \
		threadtimer@L+0.3@36 state@L+0.4@4 2>&1)
	helper_result "deletion, exact: deadlines in the deleted second fire at 00:00:00, none early, adjtimex TIME_DEL then TIME_WAIT" $? "$out"
	# threads, a signal handler and fork across the leap, while the
	# shim's writer runs (started before 23:59:59) and when it must not
	# (started inside the last second)
	out=$(PRELOAD_TEST_LEAP=1483228800 run --pretend 2016-12-31T23:59:60.3Z -- \
		"$helper" state@L-0.5@3 timerfd@L-0.2@37 timer@L+0.2@37 \
		state@L+0.5@4 2>&1)
	helper_result "pretending 23:59:60.3: the repeated 23:59:59 (TIME_OOP, TAI-UTC 37), deadlines in and after it" $? "$out"
	# started inside the last second (before, the shim stopped its
	# writer there, updates_safe; the library now arms the table's leap
	# at creation, so the writer runs and adjtimex is its own)
	out=$(PRELOAD_TEST_LEAP=1483228800 run --pretend 2016-12-31T23:59:59.5Z -- \
		"$helper" state@L-0.3@1 timerfd@L+0.2@37 state@L+0.5@4 2>&1)
	helper_result "pretending 23:59:59.5: TIME_INS at once, the leap exact, TIME_WAIT after" $? "$out"
	out=$(run --leap-in 0.6s --delete -- "$helper" state@L-1.3@2 \
		timerfd@L+0.2@36 state@L+0.5@4 2>&1)
	helper_result "a deletion 0.6 s after the start: TIME_DEL at once, 00:00:00 after 23:59:58, TIME_WAIT after" $? "$out"
	for p in 2016-12-31T23:59:58.5Z 2016-12-31T23:59:59.4Z; do
		out=$(run --pretend $p -- "$helper" threads@2.0 fork 2>&1)
		helper_result "threads, SIGALRM handler, fork from $p: TAI monotonic, TAI - REALTIME whole seconds, one timeline" $? "$out"
	done
fi

# ---- setting the clock: refused by the shim -----------------------------------
settime_tests

finish
