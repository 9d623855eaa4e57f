#!/bin/bash
# preload_periodic.sh BUILD_DIR SOURCE_DIR - periodic and relative
# CLOCK_REALTIME timers under the shim never fire before the program's own
# clock reads their deadline (issue 28 item 1). tests/progs/preload_periodic.c
# arms six periodic timers together (SIGEV_SIGNAL and SIGEV_THREAD POSIX
# timers and a timerfd, each TIMER_ABSTIME and relative; first expiration
# 1 s after the start, period 1 s) and checks every delivery as the kernel's
# set-timer-lat does. Periods and relative values count the program's
# REALTIME (leapclock.h: "REALTIME periods are added on the clock's own
# reading"): across an inserted second the period that spans it is 2 s of
# elapsed time, across a deleted one the deadline inside it is reached at
# 00:00:00 (up to 1 s late, as on a real kernel), and under a smear each
# period is a second of the smeared clock, not of the host's MONOTONIC.
# Cases: `leapclock run --leap-in 4s` with the expirations 1 ms and 11 ms
# after 00:00:00 (the second is --leap-in 3990ms's case), a deletion,
# smear:google and smear:minute, and the same on a rehearsal timeline page
# (leapclockd --timeline in a temp dir, --pretend).
set -u
build=${1:?usage: preload_periodic.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: preload_periodic.sh BUILD_DIR SOURCE_DIR}
. "$src/tests/progs/preload_lib.sh"
export LEAPCLOCK_LEAPFILE=$src/tests/data/leapseconds.tzdata2026f
unset LEAPCLOCK_TIMELINE # leapclock run rehearses in-process; the page cases name theirs

prog=$tmp/preload_periodic
build_c "$prog" preload_periodic || finish

# start_case NAME ALIGN LATE -- command prefix (the program and its
# arguments follow): runs in the background, output in $tmp/NAME.out.
# $period (s) and $count: 1 s and 5 expirations unless set (a smear's
# early firing grows by its rate with each period: 11.6 us per s for
# google, 3 s periods make it 35 us a period: 6 of them take it past a
# signal's latency; smear:minute shows the same fault 1440 times larger)
names=()
start_case() {
	local name=$1 align=$2 late=$3
	shift 4
	names+=("$name")
	("$@" "$prog" "$align" "${period:-1}" "${count:-5}" "$late" >"$tmp/$name.out" 2>&1
		echo "rc $?" >>"$tmp/$name.out") &
}

# in-process: leapclock run (the start is 4 s before 00:00:00; the program
# aligns to .001 or .011 of the next second, so its third expiration is
# due at 00:00:00.001 or .011)
start_case insert-1ms .001 0.3 -- run --leap-in 4s --
start_case insert-11ms .011 0.3 -- run --leap-in 3990ms --
start_case delete .001 1.1 -- run --leap-in 4s --delete --
period=3 count=6 start_case smear-google .001 0.3 -- run --leap-in 4s --mode smear:google --
start_case smear-minute .001 0.3 -- run --leap-in 4s --mode smear:minute --

# a rehearsal timeline page: leapclockd publishes 23:59:56 at its start
page_case() { # NAME PRETEND ALIGN LATE MODE [leapfile]
	local name=$1 pretend=$2 align=$3 late=$4 mode=$5 lf=${6:-}
	local d=$tmp/$name.d
	mkdir -p "$d"
	chmod 700 "$d"
	"$build/leapclockd" -d --timeline "$d/page" --pretend "$pretend" \
		${lf:+--leapfile "$lf"} --stats-file none >"$d/daemon.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 100); do [ -s "$d/page" ] && grep -q running "$d/daemon.log" && break; sleep 0.05; done
	if [ -n "$mode" ]; then
		start_case "$name" "$align" "$late" -- env LEAPCLOCK_TIMELINE="$d/page" LEAPCLOCK_MODE="$mode" LD_PRELOAD="$san_preload${san_preload:+:}$shim"
	else
		start_case "$name" "$align" "$late" -- env LEAPCLOCK_TIMELINE="$d/page" LD_PRELOAD="$san_preload${san_preload:+:}$shim"
	fi
}
pids=()
{
	grep -v '^#expires' "$src/tests/data/leapseconds.tzdata2026f" | grep -v '^#'
	echo "Leap	2029	Jun	30	23:59:59	-	S"
	echo "#expires 3896640000"
} >"$tmp/del.leapseconds"
if [ -x "$build/leapclockd" ]; then
	page_case page-insert 2016-12-31T23:59:56Z .001 0.3 ""
	page_case page-delete 2029-06-30T23:59:55Z .001 1.1 "" "$tmp/del.leapseconds"
	period=3 count=6 page_case page-google 2016-12-31T23:59:56Z .001 0.3 smear:google
else
	skip_note "rehearsal page: $build/leapclockd not built"
fi

# relative clock_nanosleep on REALTIME counts the program's clock too: in
# smear:minute's window (60 s before the leap, 16.7 ms a second) a second of
# MONOTONIC is 983 ms of it
out=$(run --pretend 2016-12-31T23:59:30Z --mode smear:minute -- "$prog" sleep 3 2>&1)
if [ "$(grep -c '^ok' <<<"$out")" -eq 3 ] && ! grep -q FAIL <<<"$out"; then
	ok "relative clock_nanosleep(CLOCK_REALTIME) under smear:minute: never short ($(tail -1 <<<"$out" | sed 's/^ok *//'))"
else
	bad "relative clock_nanosleep(CLOCK_REALTIME) under smear:minute" "$out"
fi

wait_cases() {
	for n in "${names[@]}"; do
		for _ in $(seq 300); do grep -q '^rc ' "$tmp/$n.out" && break; sleep 0.1; done
	done
}
wait_cases
for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
wait
for n in "${names[@]}"; do
	out=$(cat "$tmp/$n.out")
	if grep -q '^rc 0$' <<<"$out" && ! grep -q '^FAIL' <<<"$out" &&
		[ "$(grep -c '^ok' <<<"$out")" -eq 6 ]; then
		ok "$n: six periodic REALTIME timers, never early ($(head -1 <<<"$out"); $(grep -o 'latency at most [0-9]* us' <<<"$out" | sort -k4 -n | tail -1))"
	else
		bad "$n" "$out"
	fi
done
finish
