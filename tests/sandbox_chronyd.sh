#!/bin/bash
# sandbox_chronyd.sh BUILD_DIR SOURCE_DIR - Debian's chronyd (package
# chrony), without -x, disciplines a sandbox's clock (`leapclock run
# --sandbox`, issue 24 item 3) through a rehearsed leap: leapclockd on
# 127.0.0.1 serves utc at --pretend 2016-12-31T23:59:20Z (the real
# insertion of 2016); the sandbox's clock starts at the same instant, a
# second off (chronyd must correct it: makestep, in its first 3 updates only,
# so that the second after the leap in slew mode can only be slewed). chronyd's config, pid,
# drift, command socket and logs are in BUILD_DIR/sandbox_chronyd/MODE.
#   leapsecmode system  chronyc tracking shows "Insert second" before the
#                       leap; chronyd arms it through the sandbox's adjtimex
#                       (STA_INS, seen in the writer's --debug log); the
#                       sandbox applies it at 00:00:00 exactly, so after it
#                       chronyd's offset to leapclockd stays under 10 ms and
#                       the leap status is back to Normal
#   leapsecmode slew    chronyd never arms it (no STA_INS); after the leap
#                       the sandbox's clock is a second ahead of leapclockd
#                       and chronyd slews it through adjtimex
# chronyd never reaches the host clock: the host's adjtimex modes-0 state
# (state, status, freq, offset, TAI, tick) is the same before and after;
# as root everything runs under setpriv without CAP_SYS_TIME.
set -u
build=${1:?usage: sandbox_chronyd.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: sandbox_chronyd.sh BUILD_DIR SOURCE_DIR}
src=$(cd "$src" && pwd)
. "$src/tests/progs/preload_lib.sh"
. "$src/tests/progs/tmp_lib.sh"
. "$src/tests/progs/sandbox_lib.sh"
export LEAPCLOCK_LEAPFILE=$src/tests/data/leapseconds.tzdata2026f
unset LEAPCLOCK_TIMELINE LEAPCLOCK_MODE LEAPCLOCK_SANDBOX
D=$build/leapclockd
if ! command -v chronyd >/dev/null || ! command -v chronyc >/dev/null; then
	echo "skip sandbox_chronyd: needs Debian package chrony"
	exit 77
fi
sb_require sandbox_chronyd chronyd
lc_test_tmp sandbox-chronyd
sb_host_begin

# one rehearsal: $1 the leapsecmode, $2 the port
rehearse() {
	local mode=$1 port=$2 d=$build/sandbox_chronyd/$1 i tr st before after
	rm -rf "$d"
	mkdir -p "$(dirname "$d")" && mkdir -m 0700 "$d"
	"${nocap[@]}" "$D" -d --no-timeline --stats-file none \
		--leapfile "$src/tests/data/leap-seconds.list.tzdata2026f" \
		--pretend 2016-12-31T23:59:20Z --listen "127.0.0.1:$port=utc" \
		2>"$d/leapclockd.log" &
	pids+=($!)
	lc_wait_answers "$lc" "127.0.0.1:$port" "$mode/leapclockd" || { bad "$mode: leapclockd did not start"; return; }
	cat >"$d/chrony.conf" <<CONF
server 127.0.0.1 port $port iburst minpoll 0 maxpoll 0
leapsecmode $mode
makestep 0.1 3
maxslewrate 83333
pidfile $d/chronyd.pid
driftfile $d/chrony.drift
dumpdir $d
cmdport 0
bindcmdaddress $d/chronyd.sock
CONF
	# the sandbox starts 1 s behind leapclockd: chronyd steps it
	"${nocap[@]}" "$lc" run --sandbox --debug --pretend 2016-12-31T23:59:19Z -- \
		chronyd -d -u root -f "$d/chrony.conf" >"$d/chronyd.log" 2>&1 &
	pids+=($!)
	before= after=
	for i in $(seq 170); do
		sleep 0.5
		tr=$(chronyc -h "$d/chronyd.sock" -n tracking 2>/dev/null) || continue
		st=$(printf '%s\n' "$tr" | sed -n 's/^Leap status *: //p')
		printf '%s\n' "$tr" >"$d/tracking.last"
		t=$(printf '%s\n' "$tr" | sed -n 's/^Ref time (UTC) *: //p')
		[ -z "$before" ] && [ "$st" = "Insert second" ] && before=$tr
		# after the leap: the reference time says 2017
		if printf '%s\n' "$t" | grep -q 2017 && [ "$st" = Normal ]; then
			after=$tr
			[ "$mode" = slew ] || break
			# slew: wait for chronyd to slew the second out
			off=$(printf '%s\n' "$tr" | sed -n 's/^Last offset *: \([-+0-9.]*\).*/\1/p')
			awk -v o="$off" 'BEGIN { exit !(o < 0.05 && o > -0.05) }' && break
		fi
	done
	printf '%s\n' "$before" >"$d/tracking.before"
	printf '%s\n' "$after" >"$d/tracking.after"
	off=$(printf '%s\n' "$after" | sed -n 's/^Last offset *: \([-+0-9.]*\).*/\1/p')
	sys=$(printf '%s\n' "$after" | sed -n 's/^System time *: //p')
	if [ -n "$before" ]; then
		ok "$mode: chronyc tracking inside the sandbox shows \"Leap status : Insert second\" before the leap"
	else
		bad "$mode: no \"Insert second\" from chronyc tracking" "$(cat "$d/tracking.last" 2>/dev/null; tail -5 "$d/chronyd.log")"
	fi
	read -r steps insert _ < <(sb_debug_counts "$d/chronyd.log")
	if [ "$mode" = system ]; then
		if [ "$insert" -gt 0 ] && [ -n "$after" ] && awk -v o="$off" 'BEGIN { exit !(o < 0.01 && o > -0.01) }'; then
			ok "system: chronyd armed STA_INS through the sandbox's adjtimex ($insert calls), the sandbox inserted the second: after it leap status Normal, last offset $off s (under 10 ms)"
		else
			bad "system: STA_INS calls $insert, after the leap: '$off'" "$(cat "$d/tracking.last" 2>/dev/null; grep sandbox "$d/chronyd.log" | tail -8)"
		fi
	else
		if [ "$insert" = 0 ] && [ -n "$after" ] && awk -v o="$off" 'BEGIN { exit !(o < 0.05 && o > -0.05) }'; then
			ok "slew: chronyd never armed the leap in the sandbox, slewed the second out through adjtimex (last offset $off s; $sys)"
		else
			bad "slew: STA_INS calls $insert (want 0), after the leap: '$off'" "$(cat "$d/tracking.last" 2>/dev/null; grep sandbox "$d/chronyd.log" | tail -8)"
		fi
	fi
	if [ "$steps" -gt 0 ]; then
		ok "$mode: chronyd stepped the sandbox's clock at start (makestep: $steps steps)"
	else
		bad "$mode: chronyd never stepped the sandbox's clock (it started 1 s off)" "$(grep sandbox "$d/chronyd.log" | head -8)"
	fi
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	pids=()
}

port=$((20000 + $$ % 20000))
rehearse system "$port"
rehearse slew "$((port + 1))"

sb_host_end
finish
