#!/bin/bash
# preload_step.sh BUILD_DIR SOURCE_DIR - the shim's kernel-delivered absolute
# timers follow steps of the program's timeline (DESIGN.md invariant 2):
# step_writer publishes a rehearsal timeline page and steps its time (never
# the host's: lc_settime on its own timekeeper, what leapclockd publishes
# when it follows a stepped host) while step_timers, under the shim and
# reading that page, waits for absolute REALTIME timerfds (one-shot and
# periodic), SIGEV_SIGNAL and SIGEV_THREAD POSIX timers and a TAI timer.
# Each must fire no earlier than its own clock reads its deadline and at
# most 100 ms after. Before the shim re-armed them they fired as early (or
# late) as the step: 300 ms early after a 300 ms step back, 1 s early at a
# deleted leap after a 1.5 ms step back (as the real-kernel VM test saw).
set -u
build=${1:?usage: preload_step.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: preload_step.sh BUILD_DIR SOURCE_DIR}
. "$src/tests/progs/preload_lib.sh"

writer=$build/lc_step_writer
table=$src/tests/data/leapseconds.tzdata2026f
if [ ! -x "$writer" ]; then
	echo "skip: $writer not built"
	exit 77
fi
cc=${CC:-cc}
command -v "$cc" >/dev/null || cc=gcc
if ! command -v "$cc" >/dev/null; then
	echo "skip: no C compiler to build tests/progs/step_timers.c"
	exit 77
fi
for p in step_timers smear_step; do
	if ! "$cc" -O2 -pthread -o "$tmp/$p" "$src/tests/progs/$p.c" 2>"$tmp/cc.log"; then
		bad "cannot build tests/progs/$p.c" "$(cat "$tmp/cc.log")"
		finish
	fi
done
sp=()
if [ "$(id -u)" -eq 0 ]; then
	# nothing below may reach the host clock
	if ! command -v setpriv >/dev/null; then
		echo "skip: running as root needs setpriv to drop CAP_SYS_TIME"
		exit 77
	fi
	sp=(setpriv --bounding-set=-sys_time --)
fi
preload=$shim
[ -n "$san_preload" ] && preload="$san_preload:$shim"

L=1798761600 # 2027-01-01 00:00:00, the synthetic leap's end
plain=1773576000.25 # 2026-03-15 12:00:00.25, no leap near

# scenario NAME START LEAP STEPS DEADLINE
scenario() {
	local name=$1 start=$2 leap=$3 steps=$4 deadline=$5 out rc figs
	mkdir -m 700 "$tmp/tl"
	out=$("${sp[@]}" "$writer" "$tmp/tl/timeline" "$table" "$start" "$leap" "$steps" -- \
		env LD_PRELOAD="$preload" LEAPCLOCK_TIMELINE="$tmp/tl/timeline" \
		"$tmp/step_timers" "$deadline" 2>&1)
	rc=$?
	rm -rf "$tmp/tl"
	if [ $rc -eq 77 ]; then
		skip_note "$name: $(grep '^skip' <<<"$out")"
		return
	fi
	figs=$(awk '/^fired/ { v = $3 + 0; if (n == 0 || v < lo) lo = v;
		if (n == 0 || v > hi) hi = v; n++ }
		END { if (n) printf "%d timers, %+.3f .. %+.3f ms from their deadlines", n, lo, hi }' <<<"$out")
	if [ $rc -eq 0 ] && ! grep -q '^FAIL' <<<"$out" &&
		[ "$(grep -c '^stepped' <<<"$out")" -eq "$(tr ',' '\n' <<<"$steps" | grep -c @)" ]; then
		ok "$name: $figs"
	else
		bad "$name (exit $rc)" "$out"
	fi
}

scenario "back 300 ms before the deadlines" $plain none -300@200 N+1
scenario "back 1.5 ms" $plain none -1.5@200 N+1
scenario "forward 300 ms" $plain none +300@200 N+1
scenario "back 300 ms, then forward 150 ms" $plain none -300@150,+150@400 N+1.2
scenario "inserted leap: back 1.5 ms 1.2 s before 00:00:00" \
	"$((L - 2)).5" +$L -1.5@200 $L
scenario "deleted leap: back 1.5 ms 1.2 s before 00:00:00" \
	"$((L - 3)).5" -$L -1.5@200 $L
scenario "deleted leap: forward 200 ms" "$((L - 3)).5" -$L +200@200 $L

# the same on a declared mode's page (STEP_WRITER_HOST_LEAP=slew: the
# writer on CLOCK_MONOTONIC_RAW): the shim reads it (before, it refused a
# page not on CLOCK_MONOTONIC and ran on its own timeline, which these
# steps never reach) and arms the kernel's timers on MONOTONIC through the
# page's relation, with the slew's margin: never early, late by the margin
# over the watcher's last pass at most
export STEP_WRITER_HOST_LEAP=slew
scenario "RAW page: back 300 ms before the deadlines" $plain none -300@200 N+1
scenario "RAW page: forward 300 ms" $plain none +300@200 N+1
scenario "RAW page: inserted leap: back 1.5 ms 1.2 s before 00:00:00" \
	"$((L - 2)).5" +$L -1.5@200 $L
scenario "RAW page: deleted leap: forward 200 ms" "$((L - 3)).5" -$L +200@200 $L
unset STEP_WRITER_HOST_LEAP

# smear mode: the smeared REALTIME follows a step made inside the window at
# once (TAI - REALTIME moves only at the smear's rate), for both directions
# of leap and of step; the smear plan is made again from the stepped
# timeline (before, REALTIME kept the old one: TAI - REALTIME jumped by the
# step)
smeared() {
	local name=$1 start=$2 leap=$3 steps=$4 preset=$5 out rc
	mkdir -m 700 "$tmp/tl"
	out=$("${sp[@]}" "$writer" "$tmp/tl/timeline" "$table" "$start" "$leap" "$steps" -- \
		env LD_PRELOAD="$preload" LEAPCLOCK_TIMELINE="$tmp/tl/timeline" \
		LEAPCLOCK_MODE="smear:$preset" "$tmp/smear_step" 1.0 2>&1)
	rc=$?
	rm -rf "$tmp/tl"
	if [ $rc -eq 77 ]; then
		skip_note "$name: $(grep '^skip' <<<"$out")"
	elif [ $rc -eq 0 ] && grep -q '^ok smear_step' <<<"$out"; then
		ok "$name: $(sed -n 's/^ok smear_step: //p' <<<"$out")"
	else
		bad "$name (exit $rc)" "$out"
	fi
}
smeared "smear:google, inserted leap, back 300 ms in the window" \
	"$((L - 2)).5" +$L -300@200 google
smeared "smear:google, deleted leap, forward 300 ms in the window" \
	"$((L - 3)).5" -$L +300@200 google
smeared "smear:utc-sls, inserted leap, back 300 ms and forward 150 ms" \
	"$((L - 20))" +$L -300@200,+150@500 utc-sls
finish
