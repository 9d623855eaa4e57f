#!/bin/bash
# preload_periodic_unread.sh BUILD_DIR SOURCE_DIR - a periodic CLOCK_REALTIME
# timer under the shim keeps the expirations its program has not taken yet
# when the shim's watcher re-arms its kernel timer (preload/timers.c,
# rearm_one: the kernel's grid corrected for a leap or a smear's end).
# tests/progs/preload_periodic.c `unread KIND` arms a 1 s periodic timer
# (first expiration 1 s after a whole second + .001) and takes nothing
# for 5.5 s of its clock, then takes what came: 5 expirations are due.
#   signal   a SIGEV_SIGNAL POSIX timer whose signal is blocked: the
#            pending signal, delivered once, counts the rest as overruns.
#            On Linux 6.13 and later a timer_settime while a timer's
#            signal is queued drops that signal, and the overruns with it.
#   timerfd  a timerfd nobody reads: one read counts them all;
#            timerfd_settime zeroes the count.
#   overrun  the signal timer, its signal taken once at 2.5 s: at 5.5 s
#            timer_getoverrun is still that signal's si_overrun (the
#            next signal is pending, not taken; a re-arm zeroes the
#            kernel's, and the watcher's taking of the pending signal
#            replaces it), then the rest: 5 in all. After every taking
#            timer_getoverrun must be the last signal's si_overrun.
# Cases: no leap near (the watcher has nothing to re-arm: the control),
# `leapclock run --leap-in 4s` inserted, deleted and under smear:minute
# (the leap falls inside the 5.5 s). The program's own timer_settime or
# timerfd_settime may drop what is pending (POSIX leaves that open); the
# shim's re-arms are not the program's and must not.
set -u
build=${1:?usage: preload_periodic_unread.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: preload_periodic_unread.sh BUILD_DIR SOURCE_DIR}
. "$src/tests/progs/preload_lib.sh"
export LEAPCLOCK_LEAPFILE=$src/tests/data/leapseconds.tzdata2026f
unset LEAPCLOCK_TIMELINE

prog=$tmp/preload_periodic
build_c "$prog" preload_periodic || finish

names=()
for kind in signal timerfd overrun; do
	for c in "noleap:--pretend 2016-06-01T12:00:00Z" "insert:--leap-in 4s" \
		"delete:--leap-in 4s --delete" "smear-minute:--leap-in 4s --mode smear:minute"; do
		n=${c%%:*}-$kind
		names+=("$n")
		# shellcheck disable=SC2086 # the options are words
		(run ${c#*:} -- "$prog" unread "$kind" >"$tmp/$n.out" 2>&1
			echo "rc $?" >>"$tmp/$n.out") &
	done
done
wait
for n in "${names[@]}"; do
	out=$(cat "$tmp/$n.out")
	if grep -q '^rc 0$' <<<"$out" && grep -q '^ok' <<<"$out"; then
		ok "$n: $(grep '^ok' <<<"$out" | sed 's/^ok *//')"
	else
		bad "$n: expirations the program had not taken were lost, or timer_getoverrun was not the last signal's" "$out"
	fi
done
finish
