#!/bin/bash
# sandbox_kselftest.sh BUILD_DIR SOURCE_DIR - the kernel's own leap and
# adjtimex selftests (tools/testing/selftests/timers/ of Debian's
# linux-source-6.1, extracted and built at test time: never copied into
# this repository) run unchanged, unprivileged, under `leapclock run
# --sandbox` (issue 24 item 2):
#   leap-a-day -i 8   8 leaps, insertions and deletions alternating, each
#                     with the clock set to 23:59:50: passes, no "Early
#                     timer expiration"; every insertion shows TIME_OOP
#                     with TAI-UTC one up, every deletion jumps 23:59:58 to
#                     00:00:00 with it one down, each ends in TIME_WAIT
#   set-tai           ADJ_TAI 1..60 read back: passes
#   valid-adjtimex    its ADJ_FREQ part passes; its ADJ_SETOFFSET part
#                     calls syscall(__NR_clock_adjtime) itself, which no
#                     LD_PRELOAD shim sees: the kernel refuses it (EPERM,
#                     no CAP_SYS_TIME), so that part must fail, loudly
# Not run, and why (docs/preload.md):
#   adjtick, freq-step  they measure CLOCK_MONOTONIC against
#                     CLOCK_MONOTONIC_RAW; the sandbox's tick and frequency
#                     steer its own REALTIME, MONOTONIC stays the host's
#   change_skew       runs `killall -9 ntpd` (a host's ntpd) and, per
#                     frequency, raw_skew and inconsistency-check, which
#                     measure MONOTONIC as above
#   leapcrash         in tests/sandbox_leapcrash.sh (over a minute)
# The leap-a-day readings are written for a side-by-side with the real
# kernel (tools/vm-kernel-test) as BUILD_DIR/sandbox_kselftest/
# leap-a-day.sandbox.tsv (format: tests/progs/leap_a_day_tsv.sh), next to
# its raw output leap-a-day.sandbox.log.
set -u
build=${1:?usage: sandbox_kselftest.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: sandbox_kselftest.sh BUILD_DIR SOURCE_DIR}
src=$(cd "$src" && pwd)
. "$src/tests/progs/preload_lib.sh"
. "$src/tests/progs/kselftest_lib.sh"
. "$src/tests/progs/leap_a_day_tsv.sh"
export LEAPCLOCK_LEAPFILE=$src/tests/data/leapseconds.tzdata2026f
unset LEAPCLOCK_TIMELINE LEAPCLOCK_MODE LEAPCLOCK_SANDBOX
if [ "${LC_SANITIZED:-0}" = 1 ] || [ -n "$san_preload" ]; then
	echo "skip kernel leap selftests: a sanitizer build (the selftests are not built with the sanitizers; run them on a plain build)"
	exit 77
fi
KS_PROGS="leap-a-day set-tai valid-adjtimex" ks_prepare "$build/kselftest"
rc=$?
[ $rc -eq 0 ] || exit $rc
bin=$build/kselftest/bin
out=$build/sandbox_kselftest
mkdir -p "$out"
nocap=()
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	nocap=(setpriv --bounding-set=-sys_time --inh-caps=-sys_time --)
fi
sbx() { (cd "$bin" && TZ=UTC timeout "$1" "${nocap[@]}" "$lc" run --sandbox -- "${@:2}"); }

sbx 170 ./leap-a-day -i 8 >"$out/leap-a-day.sandbox.log" 2>&1
rc=$?
lad_tsv "$out/leap-a-day.sandbox.log" sandbox >"$out/leap-a-day.sandbox.tsv"
verdict=$(awk -F'\t' '!/^#/ {
		k = $1; if (!(k in dir)) { dir[k] = $2; tai0[k] = $4; n++ }
		last[k] = $5; taiend[k] = $4
		if ($5 == "TIME_OOP") oop[k] = 1
		if ($5 == "TIME_WAIT" && !(k in wait)) { wait[k] = $3 }
	}
	END {
		for (k = 1; k <= n; k++) {
			d = taiend[k] - tai0[k]
			if (dir[k] == "INS") { ins++; if (!oop[k] || d != 1) bad = bad " " k }
			else if (dir[k] == "DEL") { del++; if (d != -1) bad = bad " " k }
			else bad = bad " " k
			if (last[k] != "TIME_WAIT" || wait[k] < 0) bad = bad " " k "(wait)"
		}
		printf "%d %d %s\n", ins, del, bad == "" ? "-" : bad
	}' "$out/leap-a-day.sandbox.tsv")
read -r nins ndel badit <<<"$verdict"
if [ $rc -eq 0 ] && ! grep -q "Early timer expiration" "$out/leap-a-day.sandbox.log" &&
	[ "$nins" -ge 4 ] && [ "$ndel" -ge 4 ] && [ "$badit" = - ]; then
	ok "leap-a-day -i 8: $nins insertions and $ndel deletions, each exact at 00:00:00, no early timer (readings: $out/leap-a-day.sandbox.tsv)"
else
	bad "leap-a-day -i 8 (rc $rc, $nins insertions, $ndel deletions, bad iterations: $badit)" "$(tail -30 "$out/leap-a-day.sandbox.log")"
fi

o=$(sbx 60 ./set-tai 2>&1)
if [ $? -eq 0 ] && printf '%s\n' "$o" | grep -q 'Checking tai offsets can be properly set: \[OK\]'; then
	ok "set-tai: ADJ_TAI 1..60 read back"
else
	bad "set-tai" "$o"
fi

o=$(sbx 60 ./valid-adjtimex 2>&1)
rc=$?
if printf '%s\n' "$o" | grep -q 'Testing ADJ_FREQ... \[OK\]'; then
	ok "valid-adjtimex: ADJ_FREQ (valid, clamped and invalid frequencies) as Linux"
else
	bad "valid-adjtimex: ADJ_FREQ" "$o"
fi
if [ $rc -ne 0 ] && printf '%s\n' "$o" | grep -q 'Testing ADJ_SETOFFSET.*\[FAIL\]'; then
	ok "valid-adjtimex: ADJ_SETOFFSET through its own syscall() is refused by the kernel (EPERM), not a silent success (expected: the shim cannot see a raw syscall)"
else
	bad "valid-adjtimex: ADJ_SETOFFSET should fail (raw syscall, no CAP_SYS_TIME)" "$o"
fi
for t in adjtick freq-step change_skew; do
	case $t in
	change_skew) why="runs killall -9 ntpd on the host, and measures MONOTONIC" ;;
	*) why="measures CLOCK_MONOTONIC against MONOTONIC_RAW; the sandbox steers its own REALTIME, MONOTONIC is the host's" ;;
	esac
	skip_note "$t not run: $why"
done
finish
