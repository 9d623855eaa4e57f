#!/usr/bin/env bash
# server_threads.sh BUILD_DIR SOURCE_DIR - leapclockd's worker threads
# (--threads N: one SO_REUSEPORT socket per worker and listen address).
#
#   --threads 2 and 4: N sockets on the port (port 0 resolved once), N+1
#     threads; 2000 requests from 40 source addresses and ports at 1000/s
#     all answered with their own origin, none lost; the stats file's sums
#     equal what was sent, and its per-worker lines add up to them and
#     show more than one worker serving
#   rate limit across workers (--ratelimit 4:4): one address sending from
#     64 source ports (spread over the sockets by the kernel's hash) gets 4
#     answers and one RATE kiss in all, as from one socket; 64 other
#     addresses all get their answer
#   --threads 1 keeps one socket and one thread (no SO_REUSEPORT), and a
#     second server on a taken address still fails with 4 threads
set -u
B=$(cd "${1:?usage: server_threads.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: server_threads.sh BUILD_DIR SOURCE_DIR}" && pwd)
D=$B/leapclockd
L=$B/leapclock
LEAPFILE=$S/tests/data/leap-seconds.list.tzdata2026f
if [ ! -x "$D" ] || [ ! -x "$L" ]; then
  echo "skip server_threads: leapclockd or leapclock not built"; exit 77
fi
if ! command -v python3 >/dev/null; then
  echo "skip server_threads: needs python3 (Debian package python3)"; exit 77
fi
T=$(mktemp -d /tmp/lc-server-threads.XXXXXX)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

# The client: sends COUNT requests round-robin over sockets bound to the
# given source addresses (one per address and port), paced at RATE/s,
# then waits 1.5 s for the last answers. Prints
# "sent N answered N kod N bad N" (bad: an answer whose origin is not a
# transmit timestamp we sent on that socket).
cat >"$T/client.py" <<'EOF'
import socket, struct, sys, time, select, os
port, count, rate = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
srcs = sys.argv[4:]          # "ADDR" or "ADDR*K" (K sockets on ADDR)
socks = []
for s in srcs:
    addr, _, k = s.partition('*')
    for _ in range(int(k or 1)):
        so = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        so.bind((addr, 0))
        so.setblocking(False)
        socks.append(so)
sent = {}          # socket index -> set of tx timestamps
answered = kod = bad = 0
def drain(timeout):
    global answered, kod, bad
    end = time.monotonic() + timeout
    while True:
        left = end - time.monotonic()
        r, _, _ = select.select(socks, [], [], max(left, 0))
        if not r:
            return
        for so in r:
            i = socks.index(so)
            while True:
                try:
                    d = so.recv(2048)
                except BlockingIOError:
                    break
                if len(d) < 48:
                    bad += 1; continue
                stratum, = struct.unpack('!B', d[1:2])
                refid = d[12:16]
                org, = struct.unpack('!Q', d[24:32])
                if org not in sent.get(i, ()):
                    bad += 1
                elif stratum == 0 and refid == b'RATE':
                    kod += 1
                else:
                    answered += 1
                    sent[i].discard(org)
t0 = time.monotonic()
for n in range(count):
    i = n % len(socks)
    tx = (int(time.time() + 2208988800) << 32) | (os.getpid() << 12 & 0xffffffff) | n
    sent.setdefault(i, set()).add(tx)
    pkt = struct.pack('!BBbb', 0x23, 0, 0, -20) + bytes(36) + struct.pack('!Q', tx)
    socks[i].sendto(pkt, ('127.0.0.1', port))
    due = t0 + (n + 1) / rate
    now = time.monotonic()
    if due > now:
        drain(due - now)
drain(1.5)
print("sent %d answered %d kod %d bad %d" % (count, answered, kod, bad))
EOF

# stat KEY FILE: the sum of KEY= over the listen lines of a stats file
stat() { grep '^listen ' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | awk '{s += $1} END {print s + 0}'; }
wstat() { grep '^worker ' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | awk '{s += $1} END {print s + 0}'; }

# up THREADS ARGS...: a server on 127.0.0.1 port 0; sets pid and port
up() {
  local th=$1
  shift
  rm -f "$T/stats"
  "$D" -d --no-timeline --threads "$th" --stats-file "$T/stats" \
    --leapfile "$LEAPFILE" --listen 127.0.0.1:0=utc "$@" 2>"$T/log" &
  pid=$!
  port=
  for _ in $(seq 50); do
    port=$(sed -n 's/.*serving utc on 127.0.0.1:\([0-9]*\)\/udp.*/\1/p' "$T/log")
    [ -n "$port" ] && [ -s "$T/stats" ] && return 0
    sleep 0.1
  done
  bad "leapclockd --threads $th did not come up: $(cat "$T/log")"
  return 1
}
down() { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=; }
# the sockets bound to port $1 on 127.0.0.1 (/proc/net/udp, hex port)
nsock() { grep -ic "0100007F:$(printf '%04X' "$1") " /proc/net/udp; }
srcs40() { for i in $(seq 1 10); do echo "127.0.3.$i*4"; done; }

for th in 2 4; do
  up "$th" --ratelimit off || continue
  ns=$(nsock "$port")
  # the workers are the server process's (leapclockd(8) PROCESSES)
  nt=$(ls /proc/$(pgrep -P "$pid" -x leapclockd)/task | wc -l)
  [ "$ns" = "$th" ] && [ "$nt" = $((th + 1)) ] &&
    ok "--threads $th: $ns sockets on port $port (port 0 bound once), $nt threads" ||
    bad "--threads $th: $ns sockets on port $port, $nt threads (want $th, $((th + 1)))"
  r=$(python3 "$T/client.py" "$port" 2000 1000 $(srcs40))
  sleep 1.3 # a stats write
  rec=$(stat received "$T/stats"); rep=$(stat replies "$T/stats")
  wrec=$(wstat received "$T/stats"); wrep=$(wstat replies "$T/stats")
  busy=$(grep '^worker ' "$T/stats" | grep -vc ' received=0 ')
  if [ "$r" = "sent 2000 answered 2000 kod 0 bad 0" ]; then
    ok "--threads $th: 2000 requests from 40 ports at 1000/s all answered ($r)"
  else
    bad "--threads $th: $r"
  fi
  if [ "$rec" = 2000 ] && [ "$rep" = 2000 ] && [ "$wrec" = 2000 ] &&
     [ "$wrep" = 2000 ] && [ "$busy" -ge 2 ]; then
    ok "--threads $th: stats received=$rec replies=$rep, the workers' lines add up ($busy of $th served)"
  else
    bad "--threads $th: stats received=$rec replies=$rep, workers $wrec/$wrep, $busy busy:"
    sed 's/^/  | /' "$T/stats"
  fi
  if [ "$th" = 4 ]; then
    "$D" -d --no-timeline --threads 4 --stats-file none --leapfile "$LEAPFILE" \
      --listen "127.0.0.1:$port=utc" 2>"$T/e2"; rc=$?
    [ $rc = 1 ] && grep -q "Address already in use" "$T/e2" &&
      ok "a second 4-thread server on the taken port fails (probe bind without SO_REUSEPORT)" ||
      bad "second server on the taken port: exit $rc: $(cat "$T/e2")"
  fi
  down
done

# ---- the rate limit across workers
up 4 --ratelimit 4:4 || exit 1
r=$(python3 "$T/client.py" "$port" 64 2000 "127.0.4.1*64")
sleep 1.3 # a stats write
busy=$(grep '^worker ' "$T/stats" | grep -vc ' received=0 ')
if [ "$r" = "sent 64 answered 4 kod 1 bad 0" ] && [ "$busy" -ge 2 ]; then
  ok "--threads 4 --ratelimit 4:4: one address from 64 ports over $busy sockets: 4 answers, 1 kiss ($r)"
else
  bad "--threads 4 rate limit across sockets: $r, $busy sockets busy (want 4 answers, 1 kiss, >= 2)"
  sed 's/^/  | /' "$T/stats"
fi
srcs=$(for i in $(seq 1 64); do echo "127.0.5.$i"; done)
r=$(python3 "$T/client.py" "$port" 64 2000 $srcs)
[ "$r" = "sent 64 answered 64 kod 0 bad 0" ] &&
  ok "--threads 4 --ratelimit 4:4: 64 other addresses all answered ($r)" ||
  bad "--threads 4, 64 addresses: $r"
down

# ---- one thread: as before
up 1 --ratelimit off || exit 1
ns=$(nsock "$port"); nt=$(ls /proc/$(pgrep -P "$pid" -x leapclockd)/task | wc -l)
r=$(python3 "$T/client.py" "$port" 500 1000 $(srcs40))
sleep 1.3
if [ "$ns" = 1 ] && [ "$nt" = 1 ] && [ "$r" = "sent 500 answered 500 kod 0 bad 0" ] &&
   [ "$(stat replies "$T/stats")" = 500 ] && ! grep -q '^worker ' "$T/stats"; then
  ok "--threads 1: one socket, one thread, 500 of 500 answered, no worker lines"
else
  bad "--threads 1: $ns sockets, $nt threads, $r, replies $(stat replies "$T/stats")"
fi
down
exit $fail
