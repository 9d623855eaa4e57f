#!/bin/bash
# server_restart_leapfile.sh BUILD_DIR - a server process started while the
# leap file is bad does not take the writer down. The server process is
# leapclockd again (exec'd by its writer, privsep.c) and parsed the whole
# configuration, the --leapfile's table included: a file changed to a bad
# one after the writer started (a SIGHUP keeps the table in use) made a
# server started or restarted later exit with a config error, and the
# writer with it ("the server process did not start"), so the page lost its
# writer (sh_cli_status under load: its note check found "nobody answers"
# right after a SIGHUP, the server still starting when the test broke the
# file). The file is the writer's: here its server is killed once the file
# is bad, and the one started again must come up, the writer stay, and the
# page stay readable.
set -u
B=${1:?build dir}
D="$B/leapclockd"
L="$B/leapclock"
S=$(cd "$(dirname "$0")/.." && pwd)
fails=0
# shellcheck source=progs/check_lib.sh
. "$(dirname "$0")/progs/check_lib.sh"
[ -x "$D" ] && [ -x "$L" ] || { echo "skip: leapclockd or leapclock not built"; exit 77; }
tmp=$(mktemp -d)
dpid=
cleanup() {
	[ -n "$dpid" ] && kill -9 $(pgrep -P "$dpid") "$dpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
cp "$S/tests/data/leap-seconds.list.tzdata2026f" "$tmp/leap-seconds.list"
export LEAPCLOCK_LEAPFILE=$S/tests/data/leap-seconds.list.tzdata2026f
"$D" -d --timeline "$tmp/page" --listen 127.0.0.1:0=utc --stats-file none \
	--leapfile "$tmp/leap-seconds.list" 2>"$tmp/log" &
dpid=$!
# wait_for N PATTERN: until the log has N lines matching, 10 s at most
wait_for() {
	for _ in $(seq 100); do
		[ "$(grep -c "$2" "$tmp/log")" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
if ! wait_for 1 'server process ready'; then
	bad "leapclockd started its server process"; sed 's/^/  | /' "$tmp/log"; exit 1
fi
ok "leapclockd started its server process"
# a bad file (the hash no longer matches), then the server killed
sed -i 's/^#h.*/#h 0 0 0 0 0/' "$tmp/leap-seconds.list"
srv=$(pgrep -P "$dpid")
[ -n "$srv" ] && kill -9 $srv
if wait_for 2 'server process ready'; then
	ok "the server process started again with the leap file bad"
else
	bad "the server process did not start again"; sed 's/^/  | /' "$tmp/log"
fi
kill -0 "$dpid" 2>/dev/null && ok "the writer still runs" || bad "the writer exited"
out=$(LEAPCLOCK_TIMELINE=$tmp/page "$L" status --json 2>&1)
grep -q "\"writer_pid\":$dpid,\"writer_alive\":true" <<<"$out" &&
	ok "the page is read, its writer alive" || bad "the page: $out"
[ $fails -eq 0 ]
