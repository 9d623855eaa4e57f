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
#   valid-adjtimex    passes: ADJ_FREQ through libc's adjtimex (the shim),
#                     ADJ_SETOFFSET (valid and invalid offsets, us and ns)
#                     through its own syscall(__NR_clock_adjtime), which
#                     the sandbox's seccomp filter hands to the writer
#   adjtick           run, and fails where it must: its ADJ_TICK, ADJ_OFFSET
#                     and ADJ_FREQUENCY read back as set (no "[ERROR]"), but
#                     it measures the tick on CLOCK_MONOTONIC against
#                     CLOCK_MONOTONIC_RAW, and the sandbox's tick and
#                     frequency steer its own REALTIME only: MONOTONIC is
#                     the host's, so its first iteration (tick -10%) reads
#                     about 0 ppm and it stops there, "[FAILED]" (16 s);
#                     that the tick steers REALTIME, 10% at tick 9000, is
#                     sandbox_basic's (tests/progs/raw_settime.c)
# Not run, and why (docs/preload.md):
#   freq-step         measures CLOCK_MONOTONIC against MONOTONIC_RAW too,
#                     through 16 runs of about 12 s (no option to shorten
#                     it): it would fail each, 3 minutes to learn nothing
#                     adjtick did not
#   change_skew       runs `killall -9 ntpd` (any ntpd of the host, outside
#                     the sandbox), then per frequency (5) raw_skew, which
#                     sleeps 120 s and measures MONOTONIC as above: 12
#                     minutes, no option to shorten
#   leapcrash         in tests/sandbox_leapcrash.sh (over a minute)
# KS_ONLY="NAME..." runs only those (leap-a-day set-tai valid-adjtimex
# adjtick), to work on one.
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
KS_PROGS="leap-a-day set-tai valid-adjtimex adjtick" ks_prepare "$build/kselftest"
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
only=${KS_ONLY:-leap-a-day set-tai valid-adjtimex adjtick}
want() { case " $only " in *" $1 "*) return 0 ;; esac; return 1; }

if want leap-a-day; then
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
fi

if want set-tai; then
	o=$(sbx 60 ./set-tai 2>&1)
	if [ $? -eq 0 ] && printf '%s\n' "$o" | grep -q 'Checking tai offsets can be properly set: \[OK\]'; then
		ok "set-tai: ADJ_TAI 1..60 read back"
	else
		bad "set-tai" "$o"
	fi
fi

if want valid-adjtimex; then
	o=$(sbx 60 ./valid-adjtimex 2>&1)
	rc=$?
	if printf '%s\n' "$o" | grep -q 'Testing ADJ_FREQ... \[OK\]'; then
		ok "valid-adjtimex: ADJ_FREQ (valid, clamped and invalid frequencies) as Linux"
	else
		bad "valid-adjtimex: ADJ_FREQ" "$o"
	fi
	if [ $rc -eq 0 ] && printf '%s\n' "$o" | grep -q 'Testing ADJ_SETOFFSET... \[OK\]'; then
		ok "valid-adjtimex: ADJ_SETOFFSET through its own syscall(__NR_clock_adjtime): the sandbox's (seccomp filter), valid offsets applied, invalid ones EINVAL; passes"
	else
		bad "valid-adjtimex: ADJ_SETOFFSET (rc $rc)" "$o"
	fi
fi

if want adjtick; then
	o=$(sbx 60 ./adjtick 2>&1)
	rc=$?
	line=$(printf '%s\n' "$o" | grep -m1 'Estimating tick')
	if [ $rc -ne 0 ] && printf '%s\n' "$line" | grep -q '\[FAILED\]' &&
		! printf '%s\n' "$o" | grep -q 'ERROR'; then
		ok "adjtick: ADJ_TICK/ADJ_OFFSET/ADJ_FREQUENCY read back as set; its measure fails as it must: CLOCK_MONOTONIC is the host's, not steered by the sandbox's tick ($(printf '%s' "$line" | tr -s '\t ' ' '))"
	else
		bad "adjtick: want its first iteration [FAILED] (MONOTONIC unsteered), no [ERROR] (rc $rc)" "$o"
	fi
fi

skip_note "freq-step not run: it measures CLOCK_MONOTONIC against MONOTONIC_RAW (the sandbox steers only its REALTIME), 16 runs of 12 s it cannot be told to shorten"
skip_note "change_skew not run: it runs killall -9 ntpd (the host's), then raw_skew, 120 s per frequency (12 min), measuring MONOTONIC as freq-step"
finish
