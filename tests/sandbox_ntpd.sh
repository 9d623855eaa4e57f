#!/bin/bash
# sandbox_ntpd.sh BUILD_DIR SOURCE_DIR - NTPsec's ntpd (Debian's package
# ntpsec, unpacked: it conflicts with chrony, so it is never installed;
# .ci/run unpacks it into build/ntpsec, as make bench-load does) runs in a sandbox (`leapclock
# run --sandbox`, issue 24 item 3) with the kernel discipline (no -x: its
# ntp_adjtime calls are the sandbox's), synchronised to leapclockd serving
# utc at --pretend 2016-12-31T23:58:20Z (the real insertion of 2016), and
# is given the leap by its leapfile (tests/data/leap-seconds.list.tzdata2026f,
# which leapclockd's leap bits agree with). Not from the bits alone:
# NTPsec 1.2.2 (and its master of 2026) schedules a leap learnt from the
# bits at 00:00 of the same day of the next month (ntpd/ntp_leapsec.c,
# leapsec_add: tm_mon++ but tm_mday kept), so bits first seen on
# 2016-12-31 schedule it for 2017-01-31 (ntpd -D 1: "leap_armed",
# leapsec_query ddist 30 days), and it never arms STA_INS for the real
# one; only bits first seen on the 1st of the month would do.
#   - ntpd steps the sandbox's clock, which starts a second behind
#     leapclockd (clock_settime: the writer's --debug log);
#   - ntpd arms the leap through the sandbox's adjtimex (ADJ_STATUS with
#     STA_INS, in the writer's --debug log);
#   - the sandbox applies it: a watcher inside reads the time and
#     adjtimex's state every 200 ms: 23:59:59 twice (the only step back),
#     TAI-UTC one up from there, TIME_OOP in the repeated second only;
#   - after the leap, ntpdig inside the sandbox finds its clock within
#     10 ms of leapclockd's (both inserted the second);
#   - the host clock's adjtimex state is the same before and after.
# NTPsec 1.2 sends and serves on port 123 only, and so does leapclockd for
# it: the test runs in its own network namespace (root), and leapclockd
# in a second one, joined to it by a veth pair: leapclockd on
# 10.123.0.1:123, ntpd on 10.123.0.2:123. Not one namespace: ntpd refuses
# a server at any 127.x address but 127.0.0.1 ("attempt to configure
# invalid address"), and it sends to a server only from a socket of its
# own bound to the source address the kernel picks for it, which for an
# address of the same namespace is that address itself, leapclockd's
# (ntpd -D 3: "newpeer(10.123.0.1): local interface currently not
# bound", and it never sent a packet). Everything runs without
# CAP_SYS_TIME. Files: BUILD_DIR/sandbox_ntpd/.
# NTPD names another ntpd.
set -u
build=${1:?usage: sandbox_ntpd.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: sandbox_ntpd.sh BUILD_DIR SOURCE_DIR}
src=$(cd "$src" && pwd)
build=$(cd "$build" && pwd)
. "$src/tests/progs/preload_lib.sh"
. "$src/tests/progs/tmp_lib.sh"
. "$src/tests/progs/sandbox_lib.sh"
export LEAPCLOCK_LEAPFILE=$src/tests/data/leapseconds.tzdata2026f
unset LEAPCLOCK_TIMELINE LEAPCLOCK_MODE LEAPCLOCK_SANDBOX
D=$build/leapclockd
ntpd=${NTPD:-}
if [ -z "$ntpd" ]; then
	# make check's build folders are not build/, where .ci/run and make
	# bench-load unpack it
	for c in "$build/ntpsec/usr/sbin/ntpd" "$src/build/ntpsec/usr/sbin/ntpd" /usr/sbin/ntpd; do
		[ -x "$c" ] && { ntpd=$c; break; }
	done
fi
if [ -z "$ntpd" ] || [ ! -x "$ntpd" ]; then
	echo "skip sandbox_ntpd: no NTPsec ntpd (Debian's ntpsec conflicts with chrony: .ci/run unpacks it into $src/build/ntpsec with apt-get download ntpsec; dpkg-deb -x; or set NTPD)"
	exit 77
fi
sb_require sandbox_ntpd ntpd
if ! command -v ntpdig >/dev/null; then
	echo "skip sandbox_ntpd: needs ntpdig (Debian package ntpsec-ntpdig)"
	exit 77
fi
# port 123 for ntpd and leapclockd: a network namespace of our own
if [ "${LC_SBNTPD_NS:-}" != 1 ]; then
	if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null || ! unshare -n true 2>/dev/null; then
		echo "skip sandbox_ntpd: NTPsec 1.2 uses port 123 only: needs root for a network namespace of its own"
		exit 77
	fi
	exec env LC_SBNTPD_NS=1 unshare -n -- bash "$0" "$@"
fi
ip link set lo up || { echo "FAIL cannot bring lo up in the test's network namespace"; exit 1; }
srv=10.123.0.1 me=10.123.0.2
lc_test_tmp sandbox-ntpd
# leapclockd's network namespace: a process holds it, leapclockd joins it
unshare -n sleep 600 &
nsp=$!
pids+=("$nsp")
for _ in $(seq 50); do
	[ "$(readlink /proc/$nsp/ns/net)" != "$(readlink /proc/self/ns/net)" ] && break
	sleep 0.1
done
if ! ip link add lcntp0 type veth peer name lcntp1 netns "$nsp" 2>"$T/veth.err"; then
	echo "skip sandbox_ntpd: cannot make a veth pair in the test's network namespace ($(cat "$T/veth.err")): ntpd needs its server in another namespace"
	exit 77
fi
ip addr add "$me/24" dev lcntp0 && ip link set lcntp0 up &&
	nsenter -t "$nsp" -n sh -c "ip link set lo up && ip addr add $srv/24 dev lcntp1 && ip link set lcntp1 up" ||
	{ echo "FAIL cannot set up the veth pair ($me, $srv)"; exit 1; }
sb_host_begin
d=$build/sandbox_ntpd
rm -rf "$d"
mkdir -m 0700 "$d"
echo "ntpd: $ntpd ($("$ntpd" --version 2>&1 | head -1))"

nsenter -t "$nsp" -n -- "${nocap[@]}" "$D" -d --no-timeline --stats-file none \
	--pretend 2016-12-31T23:58:20Z --listen "$srv:123=utc" \
	2>"$d/leapclockd.log" &
lcd=$!
pids+=("$lcd")
if ! lc_wait_answers "$lc" "$srv:123" leapclockd >/dev/null; then
	bad "leapclockd did not start on $srv:123" "$(cat "$d/leapclockd.log")"
	finish
fi
# a frequency file: ntpd starts in FSET, steps at once and disciplines
# (without one it measures the frequency for 300 s first)
echo 0.000 >"$d/ntp.drift"
cat >"$d/ntp.conf" <<CONF
server $srv iburst minpoll 0 maxpoll 0
driftfile $d/ntp.drift
leapfile $src/tests/data/leap-seconds.list.tzdata2026f
statsdir $d/
statistics peerstats loopstats
filegen peerstats file peerstats type none enable
filegen loopstats file loopstats type none enable
interface ignore wildcard
interface listen $me
CONF
# inside the sandbox: ntpd, a watcher of the clock's state, then ntpdig
cat >"$d/inside.sh" <<'INSIDE'
d=$1 ntpd=$2 leap2015=$3 srv=$4
"$ntpd" -n -g -c "$d/ntp.conf" -l "$d/ntpd.log" -p "$d/ntpd.pid" >"$d/ntpd.out" 2>&1 &
np=$!
for _ in $(seq 800); do
	now=$(date -u +%s.%N)
	echo "$now $("$leap2015" host)" >>"$d/watch.log"
	# until 00:00:15 on the sandbox's clock
	[ "${now%.*}" -ge 1483228815 ] && break
	kill -0 $np 2>/dev/null || break
	sleep 0.2
done
ntpdig -j -t 2 "$srv" >"$d/ntpdig.json" 2>&1
kill $np 2>/dev/null
wait $np 2>/dev/null
exit 0
INSIDE
# the sandbox starts 1 s behind leapclockd: ntpd steps it
TZ=UTC timeout 240 "${nocap[@]}" "$lc" run --sandbox --debug --pretend 2016-12-31T23:58:19Z -- \
	bash "$d/inside.sh" "$d" "$ntpd" "$build/lc_leap2015" "$srv" >"$d/sandbox.log" 2>&1
rc=$?
kill "${pids[@]}" $(pgrep -P "$lcd") 2>/dev/null
wait "${pids[@]}" 2>/dev/null
pids=()
[ $rc -eq 0 ] || bad "the sandbox run (rc $rc)" "$(tail -20 "$d/sandbox.log"; tail -20 "$d/ntpd.log" 2>/dev/null)"

read -r steps insert adjs < <(sb_debug_counts "$d/sandbox.log")
if [ "$steps" -gt 0 ]; then
	# 1 s behind leapclockd's pretended time, plus the time leapclockd ran
	# before the sandbox started
	by=$(sed -n 's/.*time stepped by \([-+0-9.]*\).*/\1/p' "$d/ntpd.log" | head -1)
	ok "ntpd stepped the sandbox's clock at start ($steps steps; ntpd.log: stepped by ${by:-?} s; it started at least 1 s behind)"
else
	bad "ntpd never stepped the sandbox's clock" "$(grep sandbox "$d/sandbox.log" | head -8; tail -20 "$d/ntpd.log" 2>/dev/null)"
fi
if [ "$insert" -gt 0 ]; then
	ok "ntpd armed STA_INS through the sandbox's adjtimex from its leapfile ($insert of its $adjs ntp_adjtime calls that set; kernel discipline)"
else
	bad "ntpd never armed STA_INS in the sandbox ($adjs ntp_adjtime calls that set)" "$(grep -i 'leap\|clock' "$d/ntpd.log" 2>/dev/null | tail -12; grep 'sandbox: adjtimex' "$d/sandbox.log" | tail -5)"
fi
# the watcher: "EPOCH.NS state N status 0x.. freq F offset O tai T ..."
# (lc_leap2015 host): the clock reads 23:59:59 twice (back a second at
# 00:00:00, the only step back), TAI-UTC one up from there; TIME_OOP only
# in the repeated second (Linux reads TIME_ERROR instead while STA_UNSYNC
# is set)
verdict=$(awk '{ t = $1; st = $3; tai = $11
		if (NR > 1 && t < prev - 0.5) {
			back++
			if (int(prev) == 1483228799 && int(t) == 1483228799) { rep = 1; taid = tai - ptai }
		}
		if (st == 3) { oop++; if (int(t) != 1483228799) stray++ }
		prev = t; ptai = tai
	}
	END { printf "%d %d %d %d %d\n", back, rep, taid, oop, stray }' "$d/watch.log" 2>/dev/null)
read -r back rep taid oop stray <<<"${verdict:-0 0 0 0 0}"
if [ "$back" = 1 ] && [ "$rep" = 1 ] && [ "$taid" = 1 ] && [ "$stray" = 0 ]; then
	ok "the sandbox inserted the second: its clock read 23:59:59 twice, TAI-UTC one up from there, TIME_OOP read $oop times, only in the repeated second"
else
	bad "the leap in the sandbox (steps back $back, 23:59:59 repeated $rep, TAI-UTC $taid up, TIME_OOP outside it $stray)" "$(awk '$1 >= 1483228797 && $1 < 1483228802' "$d/watch.log" 2>/dev/null | head -30)"
fi
off=$(sed -n 's/.*"offset":\([-+0-9.e]*\).*/\1/p' "$d/ntpdig.json")
if [ -n "$off" ] && awk -v o="$off" 'BEGIN { exit !(o < 0.01 && o > -0.01) }'; then
	ok "after the leap the sandbox's clock is within 10 ms of leapclockd's (ntpdig inside: offset $off s)"
else
	bad "after the leap: ntpdig offset '$off' (want under 10 ms)" "$(cat "$d/ntpdig.json"; tail -8 "$d/ntpd.log" 2>/dev/null)"
fi

sb_host_end
finish
