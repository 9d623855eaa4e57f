#!/bin/bash
# sandbox_leapcrash.sh BUILD_DIR SOURCE_DIR - the kernel's leapcrash
# selftest (Debian's linux-source-6.1, extracted at test time) unchanged,
# unprivileged, under `leapclock run --sandbox` (issue 24 item 2): 20 times
# it sets the clock to 2 s before midnight and spams adjtimex(STA_INS)
# across the leap; it passes when nothing hangs. About 80 s: each adjtimex
# is a request to the sandbox's writer.
set -u
build=${1:?usage: sandbox_leapcrash.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: sandbox_leapcrash.sh BUILD_DIR SOURCE_DIR}
src=$(cd "$src" && pwd)
. "$src/tests/progs/preload_lib.sh"
. "$src/tests/progs/kselftest_lib.sh"
export LEAPCLOCK_LEAPFILE=$src/tests/data/leapseconds.tzdata2026f
unset LEAPCLOCK_TIMELINE LEAPCLOCK_MODE LEAPCLOCK_SANDBOX
if [ "${LC_SANITIZED:-0}" = 1 ] || [ -n "$san_preload" ]; then
	echo "skip leapcrash: a sanitizer build (run it on a plain build)"
	exit 77
fi
KS_PROGS="leapcrash" ks_prepare "$build/kselftest"
rc=$?
[ $rc -eq 0 ] || exit $rc
nocap=()
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	nocap=(setpriv --bounding-set=-sys_time --inh-caps=-sys_time --)
fi
o=$(cd "$build/kselftest/bin" && timeout 170 "${nocap[@]}" "$lc" run --sandbox -- ./leapcrash 2>&1)
rc=$?
if [ $rc -eq 0 ] && printf '%s\n' "$o" | grep -q '\[OK\]'; then
	ok "leapcrash: 20 leaps with adjtimex(STA_INS) spammed across each, no hang"
else
	bad "leapcrash (rc $rc)" "$(printf '%s\n' "$o" | tail -5)"
fi
finish
