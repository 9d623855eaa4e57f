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
# As cli_live_page.sh (a link to this file), the same with the writer alive
# (issue 28's "make check passes with a live leapclockd on the default
# path"): every test names its own timeline, so none may read or write the
# host's, and a program naming none reads the live page.
set -u
mode=stale
[ "$(basename "$0")" = cli_live_page.sh ] && mode=live
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null; then
	echo "SKIP: needs root and unshare (util-linux)"
	exit 77
fi
[ -n "${LC_SANITIZED:-}" ] && { echo "SKIP: the CLI suites once is enough (sanitizer build)"; exit 77; }
exec unshare -m bash -s "$build" "$src" "$mode" <<'INNER'
set -u
build=$1 src=$2 mode=$3
fails=0
. "$src/tests/progs/check_lib.sh"
mount --make-rprivate / 2>/dev/null
mount -t tmpfs -o mode=0755 tmpfs /run || { echo "FAIL cannot mount a private /run"; exit 1; }
unset LEAPCLOCK_TIMELINE
"$build/leapclockd" -d --timeline /run/leapclock/timeline >/run/d.log 2>&1 &
dpid=$!
for _ in $(seq 100); do grep -q "running (pid $dpid)" /run/d.log 2>/dev/null && break; sleep 0.05; done
if [ "$mode" = stale ]; then
kill -9 $(pgrep -P "$dpid") "$dpid"; wait "$dpid" 2>/dev/null
[ -f /run/leapclock/timeline ] && ok "a stale page at the default path (its writer killed)" || bad "no page: $(cat /run/d.log)"
out=$(LEAPCLOCK_LEAPFILE=$src/tests/data/leapseconds.tzdata2026f "$build/leapclock" status --json 2>/run/err)
grep -q '"source":"in-process"' <<<"$out" && ok "  a new program runs in-process" || bad "  a new program: $out"
grep -q 'tzdata2026f' <<<"$out" && ok "  on its own LEAPCLOCK_LEAPFILE" || bad "  its leap file ignored: $out"
[ "$(grep -c 'not reading the timeline: .*its writer is gone' /run/err)" -eq 1 ] && ok "  saying so in one line" || bad "  stderr: $(cat /run/err)"
else
out=$("$build/leapclock" status --json 2>/run/err)
grep -q "\"source\":\"page\",\"path\":\"/run/leapclock/timeline\",\"why\":null,\"writer_pid\":$dpid" <<<"$out" &&
	ok "a live writer (pid $dpid) on the default path: a program naming no timeline reads it" || bad "a live page not read: $out $(cat /run/err)"
ino0=$(stat -c %i /run/leapclock/timeline)
# the suites as CTest runs them (LEAPCLOCK_TIMELINE=none): the leapclockd
# and shim suites too, which start writers and servers of their own
export LEAPCLOCK_TIMELINE=none
fi
suites="cli_now cli_status cli_leapfile cli_main"
[ "$mode" = live ] && suites="$suites server_clients server_smear preload_run preload_exact"
# the CLI suites that read the default timekeeper (the others, convert,
# options, simulate, smear and table, passed as well when run here by hand;
# all nine take more than CTest's 300 s on a loaded machine)
for t in $(printf "$src/tests/%s.sh " $suites); do
	if bash "$t" "$build" "$src" >/run/t.log 2>&1; then ok "$(basename "$t") passes with the $mode page"
	else rc=$?; [ "$rc" -eq 77 ] && { echo "skip $(basename "$t")"; continue; }
		bad "$(basename "$t") fails with the $mode page: $(grep -m3 FAIL /run/t.log)"
		grep -E '^note: status|^  writer [0-9]|^  [|] ' /run/t.log | head -12; fi
done
if [ "$mode" = live ]; then
	kill -0 "$dpid" 2>/dev/null && ok "the writer still runs after the suites" || bad "the writer died: $(tail -5 /run/d.log)"
	[ "$(stat -c %i /run/leapclock/timeline)" = "$ino0" ] && ok "  its page is the one it published (no test replaced it)" || bad "  the default page was replaced"
	grep -q "error: " /run/d.log && bad "the writer logged errors: $(grep -m3 'error: ' /run/d.log)" || ok "  and logged no error"
	kill "$dpid"; wait "$dpid" 2>/dev/null
fi
echo "$fails failed"
[ "$fails" -eq 0 ]
INNER
