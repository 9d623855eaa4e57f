#!/bin/bash
# preload_expired.sh BUILD_DIR SOURCE_DIR - a leap table that has expired
# at the program's time is said once on stderr, by `leapclock run` or, when
# the shim is preloaded by hand, by the first shim of the process tree
# (issue 12 item 7). tests/data's tzdata2025b list expires 2026-06-28
# (#@ 3991593600, POSIX 1782604800), tzdata2026f's 2027-06-28 (POSIX
# 1814140800); the program's time is the pretend instant, else the host's.
set -u
build=${1:?usage: preload_expired.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: preload_expired.sh BUILD_DIR SOURCE_DIR}
. "$src/tests/progs/preload_lib.sh"

t25=$src/tests/data/leap-seconds.list.tzdata2025b
t26=$src/tests/data/leap-seconds.list.tzdata2026f
# three processes under the shim: sh and two date
tree='date -u +%Y >/dev/null; date -u +%Y >/dev/null'

# warned NAME WANT(0|1) -- command...: WANT warnings on stderr, naming the
# table and its expiry, from `leapclock run` when it runs the program
warned() {
	local name=$1 want=$2 n who='leapclock-preload\[[0-9]*\]'
	shift 3
	[ "$1" = run ] && who='leapclock run'
	"$@" >/dev/null 2>"$tmp/err"
	n=$(grep -c 'warning: leap table .* expired on' "$tmp/err")
	if [ "$n" -eq "$want" ] && { [ "$want" -eq 0 ] ||
		grep -q "^$who: warning: leap table .*tzdata202[56][bf] expired on 202[67]-06-28" "$tmp/err"; }; then
		ok "$name: $n warning(s)"
	else
		bad "$name: want $want warning, got $n" "$(cat "$tmp/err")"
	fi
}

warned "run, pretending 2030 on a table that expired in 2026" 1 -- \
	run --leapfile "$t25" --pretend 2030-06-01T00:00:00Z -- sh -c "$tree"
warned "run, pretending 2027-07-01 on a table that expires 2027-06-28" 1 -- \
	run --leapfile "$t26" --pretend 2027-07-01T00:00:00Z -- sh -c "$tree"
warned "run, pretending 2016 on a table that expired in 2026" 0 -- \
	run --leapfile "$t25" --pretend 2016-12-31T23:59:59Z -- sh -c "$tree"
warned "run, pretending 2027-01-01 on a table that expires 2027-06-28" 0 -- \
	run --leapfile "$t26" --pretend 2027-01-01T00:00:00Z -- sh -c "$tree"
# --leap-in pretends today: the host's date decides
want=0
[ "$(date +%s)" -ge 1782604800 ] && want=1
warned "run --leap-in, today ($(date -u +%F)), on a table that expires 2026-06-28" $want -- \
	run --leapfile "$t25" --leap-in 10s -- sh -c "$tree"

# the shim alone: the first process says it, its children do not repeat it
by_hand() {
	if [ -n "$san_preload" ]; then
		env LD_PRELOAD="$san_preload:$shim" "$@"
	else
		env LD_PRELOAD="$shim" "$@"
	fi
}
warned "LD_PRELOAD by hand, pretending 2030 on a table that expired in 2026" 1 -- \
	by_hand LEAPCLOCK_LEAPFILE="$t25" LEAPCLOCK_PRETEND=2030-06-01T00:00:00Z \
	LEAPCLOCK_TIMELINE=none sh -c "$tree"
warned "LD_PRELOAD by hand, --leap-in (today, $(date -u +%F)), on a table that expires 2026-06-28" $want -- \
	by_hand LEAPCLOCK_LEAPFILE="$t25" LEAPCLOCK_LEAP_IN=10s \
	LEAPCLOCK_TIMELINE=none sh -c "$tree"
warned "LD_PRELOAD by hand, pretending 2016" 0 -- \
	by_hand LEAPCLOCK_LEAPFILE="$t25" LEAPCLOCK_PRETEND=2016-12-31T23:59:59Z \
	LEAPCLOCK_TIMELINE=none sh -c "$tree"

finish
