#!/bin/bash
# sandbox_basic.sh BUILD_DIR SOURCE_DIR - `leapclock run --sandbox` (issue
# 24 items 1 and 4): the program's own system clock.
#  - the 2015 bug report's reproducer pattern (tests/progs/leap2015.c:
#    settimeofday to 23:59:55, STA_INS / STA_DEL, a TIMER_ABSTIME timer
#    for 00:00:00) runs unprivileged and passes: the leap applies at the
#    boundary, the timer is not early, the state at it is TIME_WAIT;
#  - what the sandbox honours and refuses, with Linux's errnos
#    (leap2015 checks);
#  - raw syscalls (tests/progs/raw_settime.c: clock_settime, settimeofday,
#    adjtimex, clock_adjtime through syscall(2)) reach the sandbox's
#    clock through its seccomp filter, with Linux's errnos, while a raw
#    clock_gettime reads the host's real time; outside, the same are EPERM;
#  - the sandbox's tick and frequency steer its MONOTONIC, BOOTTIME,
#    REALTIME and TAI alike against its unsteered MONOTONIC_RAW, as Linux's
#    do, and its sleeps, timerfds, POSIX timers and condvars on MONOTONIC
#    follow the steered clock, never early, a rate change after the arming
#    too (raw_settime.c steered());
#  - one clock for the whole program: a set in one process is read by its
#    parent shell, a forked child and a daemon left behind after the main
#    process exited (leapclock run waits for it: it is its subreaper);
#  - an expired table is said once (the run's line; the writer and the
#    shims say nothing more);
#  - nothing reaches outside: the host clock's adjtimex modes-0 state
#    (state, status, freq, offset, TAI, tick) is the same before and
#    after, and a program outside, reading the time all along, reads the
#    host's time (never the sandbox's 23:59:5x); as root, CAP_SYS_TIME is
#    in neither the effective nor the bounding set inside.
set -u
build=${1:?usage: sandbox_basic.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: sandbox_basic.sh BUILD_DIR SOURCE_DIR}
src=$(cd "$src" && pwd)
. "$src/tests/progs/preload_lib.sh"
. "$src/tests/progs/sandbox_lib.sh"
export LEAPCLOCK_LEAPFILE=$src/tests/data/leapseconds.tzdata2026f
unset LEAPCLOCK_TIMELINE LEAPCLOCK_MODE LEAPCLOCK_SANDBOX
p=$build/lc_leap2015
[ -x "$p" ] || { echo "skip: $p not built"; exit 77; }
sb_host_begin
# a sanitizer build: the runtimes first in LD_PRELOAD (preload_lib.sh)
run() {
	if [ -n "$san_preload" ]; then
		timeout 60 "${nocap[@]}" env LD_PRELOAD="$san_preload" "$lc" run --sandbox "$@"
	else
		timeout 60 "${nocap[@]}" "$lc" run --sandbox "$@"
	fi
}

t_before=$(date +%s)
# the program outside: the host's time, read every 100 ms meanwhile
( for _ in $(seq 300); do date +%s; sleep 0.1; done ) >"$tmp/outside" 2>&1 &
outside=$!

for d in ins del; do
	out=$(run -- "$p" $d 2>&1)
	if [ $? -eq 0 ] && printf '%s\n' "$out" | grep -q '^leap2015: ok$'; then
		ok "the 2015 reproducer pattern, $d: timer at 00:00:00 not early, TIME_WAIT at it"
	else
		bad "the 2015 reproducer pattern, $d" "$out"
	fi
done
out=$(run -- "$p" checks 2>&1)
if [ $? -eq 0 ]; then
	ok "the sandbox honours and refuses as Linux ($(printf '%s\n' "$out" | grep -c '^ok ') checks)"
else
	bad "the sandbox's checks" "$out"
fi

# raw syscalls (syscall(2), past the shim): the sandbox's seccomp filter
# hands them to its writer, in a process the shell started too
r=$build/lc_raw_settime
if [ -x "$r" ]; then
	out=$(run -- bash -c '"$1" sandbox "$2"' sh "$r" "$(date +%s)" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && ! printf '%s\n' "$out" | grep -q '^FAIL'; then
		ok "raw clock_settime/settimeofday/adjtimex/clock_adjtime reach the sandbox's clock ($(printf '%s\n' "$out" | grep -c '^ok ') checks: set, read back through the shim, Linux's errnos, the host's clock unmoved)"
	else
		bad "raw syscalls in the sandbox (rc $rc)" "$out"
	fi
	out=$(timeout 60 "${nocap[@]}" "$r" refused 2>&1)
	if [ $? -eq 0 ]; then
		ok "outside the sandbox, without CAP_SYS_TIME, the same raw sets are EPERM"
	else
		bad "raw syscalls outside the sandbox" "$out"
	fi
else
	bad "lc_raw_settime not built"
fi

# one clock: the shell, a forked child and a daemon that outlives the
# main process all read the time one process set
out=$(run -- bash -c '
	"$1" set 1483228795 || exit 1
	echo "shell $(date -u +%s)"
	( echo "child $(date -u +%s)" ) &
	wait
	setsid bash -c "sleep 1; echo daemon \$(date -u +%s) >\"$2\"" </dev/null >/dev/null 2>&1 &
	exit 0' sh "$p" "$tmp/daemon" 2>&1)
rc=$?
read -r dline <"$tmp/daemon" 2>/dev/null || dline=
sh=$(printf '%s\n' "$out" | sed -n 's/^shell //p')
ch=$(printf '%s\n' "$out" | sed -n 's/^child //p')
dm=${dline#daemon }
if [ $rc -eq 0 ] && [ "${sh:-0}" -ge 1483228795 ] && [ "$sh" -le 1483228797 ] &&
	[ "${ch:-0}" -ge 1483228795 ] && [ "$ch" -le 1483228797 ] &&
	[ "${dm:-0}" -ge 1483228796 ] && [ "$dm" -le 1483228799 ]; then
	ok "one clock: set in one process, read by the shell ($sh), a child ($ch), a daemon left behind ($dm)"
else
	bad "one clock for every process (want 1483228795..)" "rc $rc; $out; daemon: $dline"
fi

if [ "$(id -u)" = 0 ]; then
	# as root without setpriv: the run itself drops CAP_SYS_TIME
	caps=$(timeout 60 "$lc" run --sandbox -- bash -c 'grep -E "^Cap(Eff|Bnd)" /proc/self/status' 2>&1)
	bad_caps=
	while read -r name val; do
		(( 0x$val & (1 << 25) )) && bad_caps="$bad_caps $name"
	done < <(printf '%s\n' "$caps" | grep '^Cap')
	if [ -z "$bad_caps" ] && [ -n "$caps" ]; then
		ok "as root, CAP_SYS_TIME is neither effective nor in the bounding set inside"
	else
		bad "CAP_SYS_TIME inside the sandbox" "$caps"
	fi
else
	skip_note "CAP_SYS_TIME dropped (not root)"
fi

# an expired table is said once, not once by the run and again by the
# sandbox's writer (it loaded the table a second time): a table named, and
# the system's (whose search line, when it has one, must not repeat)
out=$(LEAPCLOCK_LEAPFILE=$src/tests/data/leapseconds.tzdata2025b \
	run --pretend 2026-12-01T00:00:00Z -- bash -c 'date -u +%Y; date -u +%Y' 2>&1)
n=$(printf '%s\n' "$out" | grep -c 'expired')
if [ "$n" = 1 ] && [ "$(printf '%s\n' "$out" | grep -c '^2026$')" = 2 ]; then
	ok "an expired table (tzdata2025b at 2026-12-01) is said once for the sandbox and its two programs"
else
	bad "the expired table's warning: $n lines (want 1)" "$out"
fi
out=$(LEAPCLOCK_LEAPFILE= run --pretend 2030-01-01T00:00:00Z -- bash -c 'date -u +%Y; date -u +%Y' 2>&1)
dup=$(printf '%s\n' "$out" | grep -v '^2030$' | sort | uniq -d)
if [ -z "$dup" ] && [ "$(printf '%s\n' "$out" | grep -c '^2030$')" = 2 ]; then
	ok "the system's table at 2030: no line said twice ($(printf '%s\n' "$out" | grep -vc '^2030$') lines about it)"
else
	bad "the system's table: a line said twice" "$out"
fi

wait "$outside"
t_after=$(date +%s)
sb_host_end
# every reading outside is the host's: within [before, after], in order
if awk -v lo="$t_before" -v hi="$t_after" '
	$1 < lo || $1 > hi + 1 || $1 < prev { bad = 1 } { prev = $1; n++ }
	END { exit bad || n < 50 }' "$tmp/outside"; then
	ok "a program outside read the host's time all along ($(wc -l <"$tmp/outside") readings in [$t_before, $t_after])"
else
	bad "a program outside saw another clock" "$(sort -u "$tmp/outside" | head)"
fi
finish
