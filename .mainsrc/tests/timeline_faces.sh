#!/usr/bin/env bash
# timeline_faces.sh BUILD SRC - one timeline, every face (DESIGN.md 3.7, 8).
#
# For every smear preset and both leap directions: leapclockd publishes a
# rehearsal timeline (--timeline, --pretend 2 s before the leap, the page's
# UTC_SLS policy the preset) with a utc and a smear:PRESET NTP socket on
# loopback, and at once four faces read it: a C program on lc_default(), a
# C program under the shim (exact, and smear:PRESET), python3 under the
# shim, and NTP queries to both sockets. progs/timeline_faces.py checks that
# they agree within 1 us at the same CLOCK_MONOTONIC instants, that UTC_SLS
# and TAI never go back, and that REALTIME repeats 23:59:59 exactly once.
# Needs python3 (Debian: python3); skips without it.
set -u
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
fails=0
. "$src/tests/progs/check_lib.sh"

if ! command -v python3 >/dev/null; then
	echo "SKIP: python3 is not installed (Debian package python3)"
	exit 77
fi
[ -f "$build/libleapclock-preload.so" ] || { echo "SKIP: the preload shim is not built"; exit 77; }
tmp=$(mktemp -d)
chmod 700 "$tmp"
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	[ -n "${LC_KEEP:-}" ] || rm -rf "$tmp"; [ -n "${LC_KEEP:-}" ] && echo "kept $tmp"
}
trap cleanup EXIT

# A sanitizer build: the same flags for the program on the library, and
# the sanitizer runtimes loaded before its shim.
build_cc "$build"
sanitizer_preload "$build"
preload_first=${san_preload:+$san_preload:}
"$cc" -O2 $sanflags -I"$src/include" -o "$tmp/lib_reader" "$src/tests/progs/timeline_reader.c" \
	"$build/libleapclock.a" -lm -pthread || { echo "FAIL cannot build timeline_reader"; exit 1; }
"$cc" -O2 -o "$tmp/bare_reader" "$src/tests/progs/bare_reader.c" ||
	{ echo "FAIL cannot build bare_reader"; exit 1; }
shim=$preload_first$build/libleapclock-preload.so

# A table with a deletion at the end of 2029-06-30 (tzdata format).
{
	grep -v '^#expires' "$src/tests/data/leapseconds.tzdata2026f" | grep -v '^#'
	echo "Leap	2029	Jun	30	23:59:59	-	S"
	echo "#expires 3896640000"
} >"$tmp/del.leapseconds"

presets=${LC_TIMELINE_PRESETS:-google ntpd chrony fbclock utc-sls minute cosine windows ntp-classic}
dirs=${LC_TIMELINE_DIRS:-insert delete}
port=$((20000 + ($$ % 20000)))

run_case() { # PRESET DIR
	local preset=$1 dir=$2 d="$tmp/$1.$2" pretend leapfile=()
	mkdir -p "$d"; chmod 700 "$d"
	if [ "$dir" = insert ]; then pretend=2016-12-31T23:59:58Z
	else pretend=2029-06-30T23:59:57Z; leapfile=(--leapfile "$tmp/del.leapseconds"); fi
	port=$((port + 2))
	LEAPCLOCK_SMEAR=$preset "$build/leapclockd" -d --timeline "$d/page" --pretend "$pretend" \
		"${leapfile[@]}" --stats-file "$d/stats" --ratelimit off \
		--listen "127.0.0.1:$port=utc" --listen "127.0.0.1:$((port + 1))=smear:$preset" \
		>"$d/daemon.log" 2>&1 &
	local dpid=$!
	pids+=("$dpid")
	for _ in $(seq 50); do [ -s "$d/page" ] && grep -q running "$d/daemon.log" && break; sleep 0.05; done
	export LEAPCLOCK_TIMELINE="$d/page"
	"$tmp/lib_reader" read 12000 200 >"$d/lib.txt" &
	local p1=$!
	LD_PRELOAD=$shim "$tmp/bare_reader" 3000 1000 >"$d/shim.txt" &
	local p2=$!
	LD_PRELOAD=$shim LEAPCLOCK_MODE=smear:$preset "$tmp/bare_reader" 3000 1000 >"$d/smear.txt" &
	local p3=$!
	LD_PRELOAD=$shim python3 -c '
import time
out = []
for i in range(2000):
    a = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    v = time.time_ns()
    b = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    out.append(f"{a} {v} {b}")
    time.sleep(0.0015)
print("\n".join(out))' >"$d/py.txt" &
	local p4=$!
	python3 "$src/tests/progs/ntp_probe.py" "$port" 600 5000 >"$d/ntp_utc.txt" &
	local p5=$!
	python3 "$src/tests/progs/ntp_probe.py" "$((port + 1))" 600 5000 >"$d/ntp_sls.txt" &
	local p6=$!
	wait $p1 $p2 $p3 $p4 $p5 $p6
	unset LEAPCLOCK_TIMELINE
	kill "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null
	echo "== $preset, $dir (pretend $pretend)"
	if python3 "$src/tests/progs/timeline_faces.py" "$d" "$([ "$dir" = insert ] && echo 1 || echo -1)"; then
		ok "$preset $dir: every face on one timeline"
	else
		bad "$preset $dir: the faces disagree (daemon log below)"
		sed 's/^/    /' "$d/daemon.log"
	fi
}

for preset in $presets; do
	for dir in $dirs; do
		run_case "$preset" "$dir"
	done
done
echo "timeline_faces: $fails failures"
[ "$fails" -eq 0 ]
