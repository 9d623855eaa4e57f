#!/bin/bash
# preload_binds.sh BUILD_DIR SOURCE_DIR - the library inside
# libleapclock-preload.so reaches the host only through its table of host
# calls (src/hostcall.h), which the shim fills with the real functions: no
# relocation of the .so names a time function the shim exports itself, so
# no call inside it binds to the shim's own interposers (issue 25 item 3).
# Before the table, `readelf -rW` showed JUMP_SLOT relocations against
# clock_gettime, clock_nanosleep, timerfd_create and timerfd_settime, each
# resolved to the shim's own definition. Needs readelf (Debian binutils).
set -u
build=${1:?usage: preload_binds.sh BUILD_DIR SOURCE_DIR}
so=$build/libleapclock-preload.so
lib=$(ls "$build"/libleapclock.so.* 2>/dev/null | head -n 1)
if ! command -v readelf >/dev/null; then
	echo "skip: readelf not installed (Debian binutils)"
	exit 77
fi
if [ ! -f "$so" ] || [ -z "$lib" ]; then
	echo "skip: $so or libleapclock.so not built"
	exit 77
fi
names='clock_gettime clock_nanosleep timerfd_create timerfd_settime adjtimex clock_adjtime nanosleep'
fail=0
relocs=$(readelf -rW "$so")
# Which of these the shim exports (it defines them: a relocation against one
# binds to the shim first, LD_PRELOAD being first in the lookup order).
exports=$(readelf -W --dyn-syms "$so" | awk '$7 != "UND" { sub(/@.*/, "", $8); print $8 }')
checked=0
for n in $names; do
	printf '%s\n' "$exports" | grep -qx "$n" || continue
	checked=$((checked + 1))
	hit=$(printf '%s\n' "$relocs" | awk -v n="$n" '{ s = $5; sub(/@.*/, "", s) } s == n')
	if [ -n "$hit" ]; then
		echo "FAIL $n: a relocation of the shim binds to its own interposer:"
		echo "$hit"
		fail=1
	else
		echo "ok   $n: exported by the shim, no relocation against it"
	fi
done
if [ "$checked" -lt 4 ]; then
	echo "FAIL only $checked of the time functions are exported by the shim: the check saw nothing"
	fail=1
fi
# The check can see such a relocation: libleapclock.so's own table names
# clock_gettime (resolved to the C library's).
if readelf -rW "$lib" | awk '{ s = $5; sub(/@.*/, "", s) } s == "clock_gettime"' | grep -q .; then
	echo "ok   libleapclock.so: its table's relocation against clock_gettime is seen"
else
	echo "FAIL libleapclock.so: no relocation against clock_gettime seen (the check is blind)"
	fail=1
fi
exit $fail
