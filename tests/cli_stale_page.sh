#!/usr/bin/env bash
# cli_stale_page.sh BUILD SRC - the CLI tests on a host where leapclockd ran
# and was killed (issue 28 item 6): a stale page at the default path
# /run/leapclock/timeline took over every program started later ("on from
# the page" for ever, ignoring LEAPCLOCK_LEAPFILE), and sh_cli_now failed 3
# checks. As root, in a private mount namespace (a tmpfs over /run, so the
# host's /run is never written), a leapclockd publishes the default page
# and is killed with SIGKILL; then the CLI tests run there without
# LEAPCLOCK_TIMELINE, and a program on lc_default() with a leap file of its
# own runs in-process on it, saying so in one line.
set -u
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null; then
	echo "SKIP: needs root and unshare (util-linux)"
	exit 77
fi
[ -n "${LC_SANITIZED:-}" ] && { echo "SKIP: the CLI suites once is enough (sanitizer build)"; exit 77; }
exec unshare -m bash -s "$build" "$src" <<'INNER'
set -u
build=$1 src=$2
fails=0
. "$src/tests/progs/check_lib.sh"
mount --make-rprivate / 2>/dev/null
mount -t tmpfs -o mode=0755 tmpfs /run || { echo "FAIL cannot mount a private /run"; exit 1; }
unset LEAPCLOCK_TIMELINE
"$build/leapclockd" -d --timeline /run/leapclock/timeline >/run/d.log 2>&1 &
dpid=$!
for _ in $(seq 100); do grep -q "running (pid $dpid)" /run/d.log 2>/dev/null && break; sleep 0.05; done
kill -9 $(pgrep -P "$dpid") "$dpid"; wait "$dpid" 2>/dev/null
[ -f /run/leapclock/timeline ] && ok "a stale page at the default path (its writer killed)" || bad "no page: $(cat /run/d.log)"
out=$(LEAPCLOCK_LEAPFILE=$src/tests/data/leapseconds.tzdata2026f "$build/leapclock" status --json 2>/run/err)
grep -q '"source":"in-process"' <<<"$out" && ok "  a new program runs in-process" || bad "  a new program: $out"
grep -q 'tzdata2026f' <<<"$out" && ok "  on its own LEAPCLOCK_LEAPFILE" || bad "  its leap file ignored: $out"
[ "$(grep -c 'not reading the timeline: .*its writer is gone' /run/err)" -eq 1 ] && ok "  saying so in one line" || bad "  stderr: $(cat /run/err)"
# the CLI suites that read the default timekeeper (the others, convert,
# options, simulate, smear and table, passed as well when run here by hand;
# all nine take more than CTest's 300 s on a loaded machine)
for t in "$src"/tests/cli_now.sh "$src"/tests/cli_status.sh "$src"/tests/cli_leapfile.sh "$src"/tests/cli_main.sh; do
	if bash "$t" "$build" "$src" >/run/t.log 2>&1; then ok "$(basename "$t") passes with the stale page"
	else rc=$?; [ "$rc" -eq 77 ] && { echo "skip $(basename "$t")"; continue; }
		bad "$(basename "$t") fails with the stale page: $(grep -m3 FAIL /run/t.log)"
		grep -E '^note: status|^  writer [0-9]|^  [|] ' /run/t.log | head -12; fi
done
echo "$fails failed"
[ "$fails" -eq 0 ]
INNER
