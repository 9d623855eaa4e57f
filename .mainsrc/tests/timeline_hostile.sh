#!/usr/bin/env bash
# timeline_hostile.sh BUILD SRC - nothing done to the page's file can kill a
# reader or the writer (issue 28 items 4, 5; issue 25 item 2). Under every
# face (a program on lc_default() with 8 threads reading, a program under
# `leapclock run`, leapclockd itself): the file truncated to 0, replaced by
# rename, filled with junk; then (as root, in a private mount namespace) a
# full filesystem at page creation. Before the sealed memfd, truncation
# killed all three with SIGBUS (exit 135) and a full tmpfs killed leapclockd
# while it created the page, leaving page.new.PID.
set -u
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
fails=0
. "$src/tests/progs/check_lib.sh"
tmp=$(mktemp -d)
chmod 700 "$tmp"
dpid=
trap '[ -n "$dpid" ] && kill -9 $(pgrep -P $dpid) $dpid 2>/dev/null; rm -rf "$tmp"' EXIT
build_cc "$build"
"$cc" -O2 $sanflags -I"$src/include" -o "$tmp/rd" "$src/tests/progs/timeline_reader.c" \
	"$build/libleapclock.a" -lm -pthread || { echo "FAIL cannot build timeline_reader"; exit 1; }
"$cc" -O2 $sanflags -o "$tmp/bare" "$src/tests/progs/bare_reader.c" || { echo "FAIL cannot build bare_reader"; exit 1; }
export LEAPCLOCK_TIMELINE=$tmp/page
export LEAPCLOCK_LEAPFILE=$src/tests/data/leapseconds.tzdata2026f
page=$tmp/page

"$build/leapclockd" -d --timeline "$page" --pretend 2016-12-31T23:59:55Z >"$tmp/d.log" 2>&1 &
dpid=$!
for _ in $(seq 100); do grep -q "running (pid $dpid)" "$tmp/d.log" 2>/dev/null && break; sleep 0.05; done
grep -q "running (pid $dpid)" "$tmp/d.log" || { bad "leapclockd did not start: $(cat "$tmp/d.log")"; echo "$fails failed"; exit 1; }

"$tmp/rd" threads 8 3000 >"$tmp/lib.out" 2>"$tmp/lib.err" &
lpid=$!
# the shim in a sanitizer build needs the sanitizer runtimes preloaded
# first (tests/progs/preload_lib.sh): that face is left to the plain build
if [ -z "$sanflags" ]; then
	"$build/leapclock" run --timeline "$page" -- "$tmp/bare" 2500 1000 >"$tmp/shim.out" 2>"$tmp/shim.err" &
	spid=$!
else
	spid=
	echo "skip the shim's face: a sanitizer build"
fi
sleep 0.5
truncate -s 0 "$page"
sleep 0.3
: >"$page"
sleep 0.3
head -c 10496 /dev/urandom >"$page.junk"; mv "$page.junk" "$page"
sleep 0.3
cp /etc/hostname "$page"
sleep 0.3
wait "$lpid"; lrc=$?
if [ -n "$spid" ]; then
wait "$spid"; src_rc=$?
expect_rc "a program on lc_default() with 8 threads reading: truncated, replaced, overwritten: runs on" 0 "$lrc"
expect_line "  read the page throughout, nothing went back" '^threads ok [0-9]+ reads, source 1$' "$(cat "$tmp/lib.out")"
expect_rc "a program under leapclock run: runs on" 0 "$src_rc"
python3 - "$tmp/shim.out" <<'PY' && ok "  its REALTIME and TAI never went back (a rehearsal across the leap)" || bad "  its clock went back"
import sys
rows = [list(map(int, l.split())) for l in open(sys.argv[1])]
back = sum(1 for p, q in zip(rows, rows[1:]) if q[5] < p[5])
print("   %d readings, TAI went back %d times" % (len(rows), back))
sys.exit(0 if len(rows) == 2500 and back == 0 else 1)
PY
fi
sleep 1.2
if kill -0 "$dpid" 2>/dev/null; then ok "leapclockd lives on"; else wait "$dpid"; bad "leapclockd died (exit $?)"; fi
info=$("$tmp/rd" info 2>&1)
expect_line "  and still serves its page to a new reader" '^source 1$' "$info"
kill "$dpid"; wait "$dpid" 2>/dev/null; dpid=

# A full filesystem at creation: a tiny tmpfs in a private mount namespace.
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null; then
	echo "SKIP full filesystem: needs root and unshare (util-linux)"
else
	out=$(unshare -m sh -c '
		mkdir -p "$1/full" && mount -t tmpfs -o size=8k,mode=0755 tmpfs "$1/full" &&
		head -c 8192 /dev/zero >"$1/full/fill" 2>/dev/null
		"$2/leapclockd" --timeline "$1/full/page" --pretend 2016-12-31T23:59:55Z 2>&1
		echo "rc=$?"; ls "$1/full"' sh "$tmp" "$build" 2>&1)
	expect_line "leapclockd on a full filesystem exits 1" '^rc=1$' "$out"
	expect_line "  naming the path and why" "$tmp/full/page: cannot write the page" "$out"
	if grep -q 'page.new' <<<"$out"; then bad "  left page.new behind: $out"; else ok "  and leaves nothing behind"; fi
fi
echo "$fails failed"
[ "$fails" -eq 0 ]
