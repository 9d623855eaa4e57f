#!/usr/bin/env bash
# server_flood.sh BUILD_DIR SOURCE_DIR - leapclockd under a flood of bad
# datagrams from the load generator (bench_server flood): random bytes,
# truncated requests, mode 6/7, bad versions, lengths that are not whole
# words, extension fields. The generator checks that only the datagrams that
# deserve an answer get one, that every answer is 48 bytes, and that
# ordinary requests are answered afterwards; here we also check that the
# server is still running and that its counters account for every datagram.
set -u
B=$(cd "${1:?usage: server_flood.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: server_flood.sh BUILD_DIR SOURCE_DIR}" && pwd)
D=$B/leapclockd
L=$B/leapclock
G=$B/bench_server
if [ ! -x "$D" ] || [ ! -x "$L" ]; then
  echo "skip server_flood: leapclockd or leapclock not built"; exit 77
fi
if [ ! -x "$G" ]; then
  echo "skip server_flood: needs bench_server (configure with -DLC_BENCH=ON)"; exit 77
fi
T=$(mktemp -d /tmp/lc-server-flood.XXXXXX)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

# Sanitizer builds are slower: fewer datagrams, same mix.
count=100000
[ "${LC_SANITIZED:-0}" = 1 ] && count=20000
P=$((20000 + RANDOM % 20000))
"$D" -d --no-timeline --ratelimit off --stats-file "$T/stats" \
  --leapfile "$S/tests/data/leap-seconds.list.tzdata2026f" \
  --listen "127.0.0.1:$P=utc" 2>"$T/log" &
pid=$!
for _ in $(seq 50); do
  "$L" server-stats --query "127.0.0.1:$P" >/dev/null 2>&1 && break
  sleep 0.1
done

if "$G" flood "127.0.0.1:$P" --count $count --seconds 20; then
  ok "flood: only answerable datagrams answered, 48 bytes each, server answers after"
else
  bad "flood: see the lines above"
fi
if kill -0 "$pid" 2>/dev/null; then
  ok "leapclockd still running after the flood"
else
  bad "leapclockd died during the flood"; sed 's/^/  | /' "$T/log"
fi

kill -USR1 "$pid"
sleep 0.5
line=$(grep '^listen ' "$T/stats")
get() { echo "$line" | sed -n "s/.* $1=\([0-9]*\).*/\1/p"; }
rcv=$(get received); req=$(get requests); mal=$(get malformed)
ctl=$(get control); oth=$(get other_mode); rep=$(get replies)
echo "  counters: $line"
if [ -n "$rcv" ] && [ "$rcv" -gt 0 ] &&
   [ "$rcv" -eq $((req + mal + ctl + oth)) ] && [ "$mal" -gt 0 ] &&
   [ "$ctl" -gt 0 ] && [ "$oth" -gt 0 ] && [ "$rep" -gt 0 ] && [ "$rep" -le "$req" ]; then
  ok "counters: received $rcv = requests $req + malformed $mal + control $ctl + other modes $oth; replies $rep"
else
  bad "counters do not add up: $line"
fi
if grep -q "received $rcv\|received [0-9]*, requests" "$T/log"; then
  ok "SIGUSR1 logs the counters"
else
  bad "SIGUSR1: no counters in the log"; sed 's/^/  | /' "$T/log"
fi
exit $fail
