#!/bin/bash
# server_port_taken.sh BUILD_DIR SOURCE_DIR - a writer whose server process
# cannot start keeps the timeline (issue 25 item 1; leapclockd(8)
# Processes). leapclockd is started while another socket holds its NTP
# port: before, the writer exited ("the server process did not start") and
# the page was left without a writer. Now the daemon starts (exit 0), the
# page's heartbeat moves, `leapclock status` (text and --json) says the
# server is down and why, the failure is logged once however many retries,
# and once the port is freed the server comes up (within the backoff, at
# most 16 s) and answers NTP. Hermetic: the page in a temp dir, a loopback
# port, the leap file from tests/data. Needs python3.
set -u
B=${1:?build dir}
S=${2:-$(cd "$(dirname "$0")/.." && pwd)}
D="$B/leapclockd"
L="$B/leapclock"
fails=0
# shellcheck source=progs/check_lib.sh
. "$(dirname "$0")/progs/check_lib.sh"
[ -x "$D" ] && [ -x "$L" ] || { echo "skip: leapclockd or leapclock not built"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
tmp=$(mktemp -d)
dpid= hold=
cleanup() {
	[ -n "$dpid" ] && kill -9 $(pgrep -P "$dpid") "$dpid" 2>/dev/null
	[ -n "$hold" ] && kill "$hold" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
export LEAPCLOCK_LEAPFILE=$S/tests/data/leap-seconds.list.tzdata2026f
export LEAPCLOCK_TIMELINE=$tmp/page
# field KEY...: a field of `leapclock status --json` (stdin)
st() { "$L" status --json 2>/dev/null; }
field() {
	python3 -c 'import json,sys
d=json.loads(sys.stdin.read())
for k in sys.argv[1:]:
    d = d.get(k) if isinstance(d, dict) else None
print("null" if d is None else d)' "$@"
}

# the port held by another socket (not SO_REUSEADDR) until killed
P=
for _ in $(seq 20); do
	P=$((20000 + RANDOM % 20000))
	python3 -c 'import socket,sys,time
s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
open(sys.argv[2], "w").close()
time.sleep(120)' "$P" "$tmp/held" 2>/dev/null &
	hold=$!
	for _ in $(seq 50); do [ -e "$tmp/held" ] && break; kill -0 $hold 2>/dev/null || break; sleep 0.05; done
	[ -e "$tmp/held" ] && break
	hold=
done
[ -n "$hold" ] || { echo "FAIL could not hold a port"; exit 1; }

"$D" -d --timeline "$tmp/page" --listen "127.0.0.1:$P=utc" --stats-file none \
	>"$tmp/out" 2>"$tmp/log" &
dpid=$!
for _ in $(seq 100); do grep -q "running (pid $dpid)" "$tmp/log" && break; sleep 0.05; done
expect_line "the log says why" "127.0.0.1:$P=utc: bind: Address already in use" "$(cat "$tmp/log")"
if ! grep -q "running (pid $dpid)" "$tmp/log" || ! kill -0 "$dpid" 2>/dev/null; then
	bad "no writer running"; sed 's/^/  | /' "$tmp/log"; dpid=; exit 1
fi
ok "the writer runs (pid $dpid)"
# the page's heartbeat moves (the writer updates it every 250 ms)
u1=$(st | field timeline last_update)
sleep 1.2
j=$(st)
u2=$(field timeline last_update <<<"$j")
[ "$u1" != null ] && [ "$u1" != "$u2" ] && ok "the page's heartbeat moves ($u1 -> $u2)" ||
	bad "the heartbeat: $u1 -> $u2"
[ "$(field timeline writer_alive <<<"$j")" = True ] && [ "$(field timeline writer_pid <<<"$j")" = "$dpid" ] &&
	ok "the page's writer is the daemon, alive" || bad "page: $j"
[ "$(field timeline server state <<<"$j")" = down ] && ok "status --json: server down" ||
	bad "status --json server: $(field timeline server <<<"$j")"
expect_line "status --json: ... and why" "Address already in use" "$(field timeline server why <<<"$j")"
expect_line "status (text): server down, why" "^server +down for [0-9]+ s, no NTP served: 127.0.0.1:$P=utc: bind: Address already in use" "$("$L" status 2>&1)"
# answers: none yet
q=$("$L" server-stats --query "127.0.0.1:$P" --json 2>&1)
expect_line "no NTP answer while the port is another's" '"timeout":true|error' "$q"
# retries at 1 s and 3 s: one line in the log for the outage
sleep 2.5
n=$(grep -c "the server process did not start" "$tmp/log")
[ "$n" = 1 ] && ok "the failure logged once over 3 retries" ||
	{ bad "the failure logged $n times"; sed 's/^/  | /' "$tmp/log"; }
kill -0 "$dpid" 2>/dev/null && ok "the writer still runs" || bad "the writer exited"

# the port freed: the server comes up within the backoff (at most 16 s)
kill "$hold"; wait "$hold" 2>/dev/null; hold=
up=
for _ in $(seq 200); do
	[ "$(st | field timeline server state)" = up ] && { up=1; break; }
	sleep 0.1
done
[ -n "$up" ] && ok "the port freed: status says the server is up" ||
	{ bad "the server did not come up"; sed 's/^/  | /' "$tmp/log"; }
expect_line "the log says it is up, and after how long" "the server process is up \(pid [0-9]+\) after [0-9.]+ s without one" "$(cat "$tmp/log")"
q=$("$L" server-stats --query "127.0.0.1:$P" --json 2>&1)
expect_line "it answers NTP" '"stratum":1' "$q"
j=$(st)
[ "$(field timeline server starts <<<"$j")" = 1 ] && [ "$(field timeline server why <<<"$j")" = null ] &&
	ok "status: 1 start, no reason left" || bad "status after: $(field timeline server <<<"$j")"
kill "$dpid"
for _ in $(seq 50); do kill -0 "$dpid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$dpid" 2>/dev/null && bad "the daemon did not stop" || { ok "stopped"; dpid=; }
[ -e "$tmp/page.state" ] && bad "the state file left after the stop" || ok "the state file removed at the stop"
[ $fails -eq 0 ]
