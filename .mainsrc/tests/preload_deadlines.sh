#!/bin/bash
# preload_deadlines.sh BUILD_DIR SOURCE_DIR - every libc call that waits for
# an absolute CLOCK_REALTIME deadline, under the shim, and the shim's timer
# table across fork (issue 12 items 11, 12).
#
# docs/preload.md's table of interposed calls must be exports.map's list
# and the shim's exported symbols, and include every function of the C
# library that waits for an absolute CLOCK_REALTIME deadline.
#
# A deadline is the program's realtime + 1 s ("N+1"): whatever the pretend
# instant, the wait must take 1 s of CLOCK_MONOTONIC (-0.1 s, +2 s) and end
# when the program's realtime reads the deadline (never before, less than
# 0.5 s after). The C library would wait for the host's CLOCK_REALTIME to
# reach it: years, with a pretend in the future (the helper gives up after
# 20 s), or not at all with one in the past.
set -u
build=${1:?usage: preload_deadlines.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: preload_deadlines.sh BUILD_DIR SOURCE_DIR}
. "$src/tests/progs/preload_lib.sh"

# ---- the covered list: docs/preload.md = exports.map = the shim's symbols -
# The first column of docs/preload.md's "| call | under the shim |" table
# names every interposed call; exports.map exports exactly those.
doc_calls=$(sed -n '/^| call | under the shim |/,/^$/p' "$src/docs/preload.md" |
	sed -n 's/^| \([^|]*\) |.*/\1/p' | grep -o '`[a-z_0-9]*' | tr -d '`' |
	grep -v '^$' | sort -u)
map_calls=$(sed -n '/global:/,/local:/p' "$src/preload/exports.map" |
	sed -n 's/^[[:space:]]*\([a-z_0-9]*\);$/\1/p' | sort -u)
if [ -n "$doc_calls" ] && [ "$doc_calls" = "$map_calls" ]; then
	ok "docs/preload.md's table of calls is exports.map's list ($(wc -l <<<"$map_calls") calls)"
else
	bad "docs/preload.md's table and exports.map differ (< docs, > exports.map)" \
		"$(diff <(echo "$doc_calls") <(echo "$map_calls"))"
fi
if command -v nm >/dev/null; then
	so_calls=$(nm -D --defined-only "$shim" | awk '$2 == "T" || $2 == "W" { print $3 }' |
		sed 's/@.*//' | sort -u)
	if [ "$so_calls" = "$map_calls" ]; then
		ok "the shim exports exactly exports.map's calls"
	else
		bad "the shim's exported functions differ from exports.map (< shim, > exports.map)" \
			"$(diff <(echo "$so_calls") <(echo "$map_calls"))"
	fi
	# Every function of glibc (2.36) that waits for an absolute
	# CLOCK_REALTIME deadline, where this C library has it.
	libc=$(${CC:-cc} -print-file-name=libc.so.6 2>/dev/null)
	[ -f "$libc" ] || libc=$(ldconfig -p 2>/dev/null | sed -n 's/.*libc\.so\.6 (libc6,x86-64) => //p' | head -1)
	if [ -n "$libc" ] && [ -f "$libc" ]; then
		have=$(nm -D --defined-only "$libc" | awk '{ print $3 }' | sed 's/@.*//' | sort -u)
		missing=
		for f in clock_nanosleep timer_settime timerfd_settime \
			pthread_cond_timedwait pthread_cond_clockwait \
			pthread_mutex_timedlock pthread_mutex_clocklock \
			pthread_rwlock_timedrdlock pthread_rwlock_timedwrlock \
			pthread_rwlock_clockrdlock pthread_rwlock_clockwrlock \
			sem_timedwait sem_clockwait mq_timedsend mq_timedreceive \
			pthread_timedjoin_np pthread_clockjoin_np cnd_timedwait \
			mtx_timedlock; do
			grep -qx "$f" <<<"$have" || continue
			grep -qx "$f" <<<"$map_calls" || missing="$missing $f"
		done
		if [ -z "$missing" ]; then
			ok "every absolute CLOCK_REALTIME deadline of $libc is interposed"
		else
			bad "not interposed:$missing"
		fi
	else
		skip_note "the C library's symbols: libc.so.6 not found"
	fi
else
	skip_note "the shim's and the C library's symbols: no nm (Debian package binutils)"
fi

build_helper || finish

# ---- fork: the child's timers are its own ---------------------------------
out=$(run -- "$helper" forktimer 2>&1)
helper_result "fork: a child's CLOCK_MONOTONIC timer with the id of the parent's CLOCK_REALTIME timer keeps its own clock" $? "$out"
out=$(run --pretend 2030-06-01T00:00:00Z -- "$helper" forktimer 2>&1)
helper_result "fork, pretending 2030: the same, and the parent's realtime timer still converted" $? "$out"

# ---- every absolute deadline, pretending a future and a past ----------------
all="cond@N+1 condclock@N+1 sem@N+1 semclock@N+1 mutex@N+1 mutexclock@N+1
rwlock@N+1 rwlockrd@N+1 rwlockclockrd@N+1 rwlockclockwr@N+1 cnd@N+1 mtx@N+1
join@N+1 clockjoin@N+1 mqsend@N+1 mqrecv@N+1"
for p in 2030-06-01T00:00:00Z 2000-01-01T00:00:00Z; do
	# shellcheck disable=SC2086
	out=$(run --pretend $p -- "$helper" $all 2>&1)
	helper_result "pretending $p: every absolute CLOCK_REALTIME deadline (now + 1 s) takes 1 s and ends when the program's realtime reads it" $? "$out"
done

# ---- across a leap: the repeated 23:59:59, the deleted one, a smear -----------
out=$(PRELOAD_TEST_LEAP=1483228800 run --pretend 2016-12-31T23:59:59.0Z -- \
	"$helper" rwlockclockrd@L-0.8@36 rwlockclockwr@L-0.6@36 cnd@L-0.4@36 \
	mtx@L+0.05@37 join@L+0.15@37 clockjoin@L+0.25@37 mqsend@L+0.35@37 \
	mqrecv@L+0.45@37 2>&1)
helper_result "insertion, exact: deadlines after the repeated 23:59:59 end L+x after it, not a second early" $? "$out"
out=$(run --leap-in 1s --delete -- "$helper" mtx@L-1.5@37 \
	mqrecv@L-0.6@36@0.6 join@L-0.3@36@0.3 cnd@L+0.1@36 2>&1)
helper_result "deletion, exact: deadlines in the deleted second end at 00:00:00" $? "$out"
out=$(run --mode smear:minute --pretend 2016-12-31T23:59:30Z -- "$helper" \
	cnd@N+1 mtx@N+1 join@N+1 rwlockclockrd@N+1 mqrecv@N+1 2>&1)
helper_result "smear:minute inside the window: deadlines end when the smeared realtime reads them" $? "$out"

finish
