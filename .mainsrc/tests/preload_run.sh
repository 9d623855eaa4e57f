#!/bin/bash
# preload_run.sh BUILD_DIR SOURCE_DIR - `leapclock run` itself: what it
# refuses (statically linked, Go and set-id programs, scripts whose
# interpreter is one of those, contradictory options) and what it sets up
# (LD_PRELOAD first, the LEAPCLOCK_* contract, the exit status), and the
# shim used directly with LD_PRELOAD.
set -u
build=${1:?usage: preload_run.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: preload_run.sh BUILD_DIR SOURCE_DIR}
. "$src/tests/progs/preload_lib.sh"

# expect NAME WANT_RC PATTERN -- command...
expect() {
	local name=$1 want=$2 pat=$3 out rc
	shift 4
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq "$want" ] && grep -qE -- "$pat" <<<"$out"; then
		ok "$name (exit $rc)"
	else
		bad "$name: want exit $want and /$pat/, got exit $rc" "$out"
	fi
}

cc=${CC:-cc}
printf '#include <stdio.h>\n#include <time.h>\nint main(void){printf("%%ld\\n",(long)time(0));return 0;}\n' >"$tmp/p.c"
if "$cc" -O2 -o "$tmp/dyn" "$tmp/p.c" 2>/dev/null; then
	expect "a dynamically linked program runs, on the pretend clock" 0 '^1483228799$' \
		-- run --pretend 2016-12-31T23:59:59Z -- "$tmp/dyn"
	if "$cc" -O2 -static -o "$tmp/static" "$tmp/p.c" 2>/dev/null; then
		expect "a statically linked program is refused" 2 'statically linked' \
			-- run -- "$tmp/static"
		printf '#!%s\n' "$tmp/static" >"$tmp/script"
		chmod +x "$tmp/script"
		expect "a script whose interpreter is static is refused" 2 'statically linked' \
			-- run -- "$tmp/script"
	else
		skip_note "static program: no static libc (Debian libc6-dev)"
	fi
	# -static-pie: PT_DYNAMIC but no PT_INTERP; it used to be taken for
	# dynamic and run silently on the host's clock
	if "$cc" -O2 -static-pie -o "$tmp/spie" "$tmp/p.c" 2>/dev/null &&
		"$tmp/spie" >/dev/null 2>&1; then
		expect "a -static-pie program is refused" 2 'statically linked \(static-pie' \
			-- run --pretend 2016-12-31T23:59:50Z -- "$tmp/spie"
		static_bin=$tmp/spie
	else
		skip_note "-static-pie program: $cc cannot link one here (needs rcrt1.o and a static libc, Debian libc6-dev)"
		static_bin=
	fi
	[ -z "$static_bin" ] && [ -x "$tmp/static" ] && static_bin=$tmp/static
	# a script whose interpreter is static, found by env(1) on PATH
	# (#!/usr/bin/env -S busybox sh with a static busybox)
	if [ -n "$static_bin" ] && [ -x /usr/bin/env ]; then
		mkdir -p "$tmp/bin"
		cp "$static_bin" "$tmp/bin/busybox"
		printf '#!/usr/bin/env -S busybox sh\necho hi\n' >"$tmp/envscript"
		chmod +x "$tmp/envscript"
		expect "a script run by env -S on a static interpreter is refused" 2 'busybox is statically linked' \
			-- env PATH="$tmp/bin:$PATH" "$lc" run -- "$tmp/envscript"
		printf '#!/usr/bin/env busybox\n' >"$tmp/envscript2"
		chmod +x "$tmp/envscript2"
		expect "... and by plain env" 2 'busybox is statically linked' \
			-- env PATH="$tmp/bin:$PATH" "$lc" run -- "$tmp/envscript2"
	else
		skip_note "static interpreter through env: no static program could be built"
	fi
	# the loader run directly does read LD_PRELOAD: not a static-pie
	for ld in /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1; do
		[ -x "$ld" ] || continue
		expect "the dynamic loader run directly is not refused" 0 '^1483228799$' \
			-- run --pretend 2016-12-31T23:59:59Z -- "$ld" "$tmp/dyn"
		break
	done
	if command -v objcopy >/dev/null; then
		printf 'go1.22 buildinfo' >"$tmp/bi"
		objcopy --add-section .go.buildinfo="$tmp/bi" "$tmp/dyn" "$tmp/gofake" &&
			expect "a Go binary (.go.buildinfo section) is refused" 2 'Go program' \
				-- run -- "$tmp/gofake"
	fi
	if "$cc" -m32 -O2 -o "$tmp/p32" "$tmp/p.c" 2>/dev/null; then
		expect "a 32-bit program is refused" 2 '64-bit' -- run -- "$tmp/p32"
	else
		# an ELF32 header is all leapclock run reads
		"$PY_HOST" -c '
import sys
h = bytearray(open(sys.argv[1], "rb").read())
h[4] = 1  # EI_CLASS = ELFCLASS32
open(sys.argv[2], "wb").write(h)' "$tmp/dyn" "$tmp/p32" && chmod +x "$tmp/p32" &&
			expect "a 32-bit ELF is refused" 2 '64-bit' -- run -- "$tmp/p32"
	fi
	if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
		cp "$tmp/dyn" "$tmp/suid"
		chown nobody "$tmp/suid" && chmod 4755 "$tmp/suid" &&
			expect "a set-user-ID program of another user is refused" 2 'set-user/group-ID' \
				-- run -- "$tmp/suid"
	fi
else
	skip_note "no C compiler: static and Go detection not tested"
fi

expect "the exit status of the program is passed on" 7 '' -- run -- sh -c 'exit 7'
# scripts whose "#!" names themselves or each other: a clear refusal, not a
# SIGSEGV of the interpreter check (the kernel stops at 4 levels)
printf '#!./selfscript\necho hi\n' >"$tmp/selfscript"
printf '#!%s\n' "$tmp/ping.sh" >"$tmp/pong.sh"
printf '#!%s\n' "$tmp/pong.sh" >"$tmp/ping.sh"
chmod +x "$tmp/selfscript" "$tmp/ping.sh" "$tmp/pong.sh"
expect "a script naming itself is refused" 2 'more than 4 levels of "#!" interpreters' \
	-- sh -c "cd '$tmp' && '$lc' run -- ./selfscript"
expect "two scripts naming each other are refused" 2 'more than 4 levels of "#!" interpreters' \
	-- run -- "$tmp/ping.sh"
printf '#!/bin/sh\necho via-sh\n' >"$tmp/l1"
printf '#!%s\n' "$tmp/l1" >"$tmp/l2"
chmod +x "$tmp/l1" "$tmp/l2"
expect "a script run by another script still runs" 0 '^via-sh$' -- run -- "$tmp/l2"
printf '#!/usr/bin/env sh\necho via-env\n' >"$tmp/envsh"
chmod +x "$tmp/envsh"
expect "a script through env on a dynamic interpreter runs" 0 '^via-env$' -- run -- "$tmp/envsh"
mkfifo "$tmp/fifo"
expect "a FIFO as LEAPCLOCK_LEAPFILE: refused at once, the program not run" 2 "^leapclock run: $tmp/fifo: is a FIFO" \
	-- env LEAPCLOCK_LEAPFILE="$tmp/fifo" timeout 10 "$lc" run -- echo ran
expect "a FIFO as --leapfile: refused at once" 2 "is a FIFO" \
	-- timeout 10 "$lc" run --leapfile "$tmp/fifo" -- echo ran
expect "--pretend outside the supported range is refused" 2 'outside the supported range, 1677-09-22 to 2262-04-10' \
	-- run --pretend 3000-01-01T00:00:00Z -- true
expect "a missing program: 127" 127 'cannot run' -- run -- "$tmp/does-not-exist"
expect "--pretend and --leap-in exclude each other" 2 'exclude' \
	-- run --pretend 2016-12-31T23:59:59Z --leap-in 10s -- true
expect "--delete needs --leap-in" 2 'goes with --leap-in' -- run --delete -- true
expect "an unknown mode is refused" 2 'exact or smear' -- run --mode fast -- true
expect "an unknown smear preset is refused" 2 'preset' -- run --mode smear:nope -- true
expect "23:59:60 where no leap is is refused" 2 '' \
	-- run --pretend 2016-06-30T23:59:60Z -- true
expect "a bad --leap-in is refused" 2 'duration' -- run --leap-in 10x -- true

keep=${san_preload:-/nonexistent-is-kept.so}
out=$(LD_PRELOAD=$keep "$lc" run --mode smear:google --pretend 2016-12-31T12:00:00Z -- env 2>/dev/null)
if grep -qx "LD_PRELOAD=$shim:$keep" <<<"$out" &&
	grep -qx 'LEAPCLOCK_MODE=smear:google' <<<"$out" &&
	grep -qx 'LEAPCLOCK_PRETEND=2016-12-31T12:00:00Z' <<<"$out" &&
	grep -qE '^LEAPCLOCK_ANCHOR=[0-9]+$' <<<"$out"; then
	ok "environment: the shim first in LD_PRELOAD, mode, pretend and its CLOCK_MONOTONIC anchor"
else
	bad "environment set by leapclock run" "$(grep -E 'LD_PRELOAD|LEAPCLOCK' <<<"$out")"
fi
out=$(run --leap-in 5s --delete -- env 2>/dev/null)
if grep -qE '^LEAPCLOCK_EXTRA_LEAP=[0-9]+:-1$' <<<"$out" &&
	grep -qE '^LEAPCLOCK_PRETEND=[0-9-]+T23:59:54\.0+Z$' <<<"$out" &&
	! grep -q '^LEAPCLOCK_LEAP_IN=' <<<"$out"; then
	w=$(sed -n 's/^LEAPCLOCK_EXTRA_LEAP=\([0-9]*\):.*/\1/p' <<<"$out")
	if [ $((w % 86400)) -eq 0 ]; then
		ok "--leap-in 5s --delete: the first process resolves it to a deletion at a UTC midnight and a pretend instant 5 s before the deleted 23:59:59 (23:59:54), for its children"
	else
		bad "--leap-in: synthetic leap $w is not at a UTC midnight"
	fi
else
	bad "--leap-in 5s --delete: environment" "$(grep LEAPCLOCK <<<"$out")"
fi

# the shim directly, without the wrapper
if [ -z "$san_preload" ]; then
	out=$(LD_PRELOAD=$shim LEAPCLOCK_PRETEND=2016-12-31T23:59:60.5Z date -u +%T 2>&1)
	[ "$out" = 23:59:59 ] && ok "LD_PRELOAD directly, pretending 23:59:60.5: date shows 23:59:59" ||
		bad "LD_PRELOAD directly, pretend 23:59:60.5" "$out"
	out=$(LD_PRELOAD=$shim LEAPCLOCK_MODE=sideways date 2>&1)
	rc=$?
	[ $rc -eq 2 ] && grep -q 'LEAPCLOCK_MODE' <<<"$out" &&
		ok "LD_PRELOAD directly with a bad LEAPCLOCK_MODE: the program does not run on the wrong clock (exit 2)" ||
		bad "bad LEAPCLOCK_MODE: want exit 2 and a message, got $rc" "$out"
	out=$(LD_PRELOAD=$shim LEAPCLOCK_LEAPFILE=$src/tests/data/leapseconds.tzdata2025b \
		LEAPCLOCK_PRETEND=2015-06-30T23:59:60.2Z "${PY:-python3}" -c '
import time
print(round(time.clock_gettime(time.CLOCK_TAI) - time.time()))' 2>&1)
	[ "$out" = 36 ] && ok "LEAPCLOCK_LEAPFILE: TAI - REALTIME in the 2015 inserted second is 36" ||
		bad "LEAPCLOCK_LEAPFILE, 2015-06-30T23:59:60.2Z: want TAI-UTC 36" "$out"
fi

finish
