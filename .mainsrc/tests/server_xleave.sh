#!/usr/bin/env bash
# server_xleave.sh BUILD_DIR SOURCE_DIR - kernel transmit timestamps and
# the interleaved mode (chrony's xleave).
#
#   by hand, against a server pretending 2016-12-31T23:59:58Z (the served
#   scale years from the host's clock), with 1 and 3 threads:
#     - a first request with a zero origin gets a basic answer (origin =
#       its transmit), not stamped by the kernel (plain clients send zero):
#       a request naming its receive timestamp gets a basic answer too;
#     - a request whose origin is the receive timestamp of an answer to a
#       non-zero origin gets an interleaved one: origin = the request's receive field, receive
#       after the first, transmit = the first answer's kernel transmit
#       stamp, on the served scale: at or after the basic transmit
#       timestamp of that answer, within 1 ms of it, not after this receive;
#     - the next one likewise (transmit between the previous receive and
#       this one);
#     - an origin naming an older answer, or the same origin from another
#       address (another client), gets a basic answer; from another port
#       of the same address (chrony sends each request from a new port) an
#       interleaved one;
#     - stats: interleaved=3, tx_kernel >= 3
#   chronyd -x with `xleave` (Debian package chrony): `chronyc ntpdata`
#     says "Interleaved : Yes" and the offset is under 1 ms
set -u
B=$(cd "${1:?usage: server_xleave.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: server_xleave.sh BUILD_DIR SOURCE_DIR}" && pwd)
D=$B/leapclockd
L=$B/leapclock
LEAPFILE=$S/tests/data/leap-seconds.list.tzdata2026f
if [ ! -x "$D" ] || [ ! -x "$L" ]; then
  echo "skip server_xleave: leapclockd or leapclock not built"; exit 77
fi
. "$(dirname "$0")/progs/tmp_lib.sh"
lc_test_tmp server-xleave
fail=0
ran=0
ok() { echo "ok   $1"; ran=$((ran + 1)); }
bad() { echo "FAIL $1"; fail=1; ran=$((ran + 1)); }

# up NAME THREADS ARGS...: a server on 127.0.0.1 port 0; sets port
up() {
  local name=$1 th=$2
  shift 2
  "$D" -d --no-timeline --threads "$th" --stats-file "$T/$name.stats" \
    --leapfile "$LEAPFILE" --listen 127.0.0.1:0=utc --ratelimit off "$@" \
    2>"$T/$name.log" &
  pids+=($!)
  port=
  for _ in $(seq 50); do
    port=$(sed -n 's/.*serving utc on 127.0.0.1:\([0-9]*\)\/udp.*/\1/p' "$T/$name.log")
    [ -n "$port" ] && [ -s "$T/$name.stats" ] && return 0
    sleep 0.1
  done
  bad "leapclockd $name did not come up: $(cat "$T/$name.log")"
  return 1
}

cat >"$T/xl.py" <<'EOF'
import socket, struct, sys, time
port = int(sys.argv[1])
def sock(addr='127.0.0.1'):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((addr, 0)); s.settimeout(2)
    return s
def ask(s, org, rx, tx):
    s.sendto(struct.pack('!BBbb', 0x23, 0, 0, -20) + bytes(12) +
             struct.pack('!QQQQ', 0, org, rx, tx), ('127.0.0.1', port))
    d = s.recv(1024)
    org_, rx_, tx_ = struct.unpack('!QQQ', d[24:48])
    return org_, rx_, tx_
def ns(t): return (t >> 32) * 10**9 + ((t & 0xffffffff) * 10**9 >> 32)
fails = 0
def check(what, cond, detail):
    global fails
    print(("ok   " if cond else "FAIL ") + what + (": " + detail if detail else ""))
    fails += 0 if cond else 1
a = sock(); b = sock('127.0.0.2'); c = sock()
A1, A2, A3, A4 = 0x1111, 0x2222, 0x3333, 0x4444
X1, X2 = 0xabc1, 0xabc2
o0, r0, t0 = ask(a, 0, 0, A1)
check("first request, zero origin: basic (origin = its transmit)", o0 == A1, "")
time.sleep(0.05)
o1, r1, t1 = ask(a, r0, X2, A2)
check("origin = that receive: basic still (a zero-origin request's reply is not stamped)", o1 == A2, "origin %x" % o1)
year = time.gmtime(ns(r1) // 10**9 - 2208988800).tm_year
time.sleep(0.05)
o2, r2, t2 = ask(a, r1, X1, A2)
d = ns(t2) - ns(t1)
check("origin = the last receive: interleaved (origin = its receive field)", o2 == X1, "origin %x" % o2)
check("transmit = the first answer's kernel stamp, on the served scale (%d): %d ns after its basic transmit, before this receive" % (year, d),
      0 <= d < 10**6 and ns(t2) <= ns(r2) and ns(r2) > ns(r1), "")
time.sleep(0.05)
o3, r3, t3 = ask(a, r2, X2, A3)
check("next one interleaved too, its transmit between the two receives (%d ns after the previous)" % (ns(t3) - ns(r2)),
      o3 == X2 and ns(r2) <= ns(t3) <= ns(r3), "")
o4, r4, t4 = ask(a, r1, X1, A4)
check("an origin naming an older answer: basic", o4 == A4, "origin %x" % o4)
o5, r5, t5 = ask(b, r4, X1, A4)
check("another address with that client's origin: basic", o5 == A4, "origin %x" % o5)
time.sleep(0.05)
o6, r6, t6 = ask(c, r4, X2, A1)
check("the same address from another port (as chrony asks): interleaved", o6 == X2 and ns(r4) <= ns(t6) <= ns(r6), "origin %x" % o6)
print("year", year)
sys.exit(1 if fails else 0)
EOF

if ! command -v python3 >/dev/null; then
  echo "skip by hand: needs python3"
else
  for th in 1 3; do
    up "p$th" "$th" --pretend 2016-12-31T23:59:58Z || continue
    out=$(python3 "$T/xl.py" "$port" 2>&1); rc=$?
    echo "$out" | grep -v '^year' | sed "s/^\(ok  \|FAIL\) /\1 [threads $th] /"
    ran=$((ran + 1))
    [ $rc = 0 ] || fail=1
    echo "$out" | grep -q '^year 2016$' &&
      ok "[threads $th] the served time is the pretended 2016" ||
      bad "[threads $th] served year: $(echo "$out" | grep '^year')"
    sleep 1.3
    il=$(sed -n 's/.* interleaved=\([0-9]*\).*/\1/p' "$T/p$th.stats")
    tk=$(sed -n 's/.* tx_kernel=\([0-9]*\).*/\1/p' "$T/p$th.stats")
    [ "$il" = 3 ] && [ "${tk:-0}" -ge 3 ] &&
      ok "[threads $th] stats: interleaved=$il tx_kernel=$tk" ||
      bad "[threads $th] stats: interleaved=$il tx_kernel=$tk (want 3, >= 3)"
  done
fi

# ---- chronyd -x with xleave
if ! command -v chronyd >/dev/null || ! command -v chronyc >/dev/null; then
  echo "skip chronyd xleave: needs Debian package chrony"
else
  up cx 2 || exit 1
  cat >"$T/chrony.conf" <<EOF
server 127.0.0.1 port $port iburst minpoll 0 maxpoll 0 xleave
pidfile $T/chrony.pid
cmdport 0
bindcmdaddress $T/chrony.sock
EOF
  chronyd -x -n -u root -f "$T/chrony.conf" >"$T/chrony.log" 2>&1 &
  pids+=($!)
  got=0
  for _ in $(seq 40); do
    sleep 1
    nd=$(chronyc -h "$T/chrony.sock" -n ntpdata 127.0.0.1 2>/dev/null)
    il=$(echo "$nd" | sed -n 's/^Interleaved *: *\([A-Za-z]*\).*/\1/p')
    off=$(echo "$nd" | sed -n 's/^Offset *: *\([-+0-9.e]*\) seconds.*/\1/p')
    if [ "$il" = Yes ] && [ -n "$off" ]; then
      got=1
      break
    fi
  done
  if [ $got = 1 ] && awk -v x="$off" 'BEGIN { if (x < 0) x = -x; exit !(x < 0.001) }'; then
    ok "chronyd -x xleave: ntpdata says Interleaved: Yes, offset $off s (under 1 ms)"
  else
    bad "chronyd -x xleave: interleaved '$il', offset '$off' after ${_} s"
    echo "$nd" | sed 's/^/  | /'
    tail -5 "$T/chrony.log" | sed 's/^/  | /'
  fi
  sleep 1.3
  il=$(sed -n 's/.* interleaved=\([0-9]*\).*/\1/p' "$T/cx.stats")
  [ "${il:-0}" -ge 1 ] && ok "stats: $il interleaved replies to chronyd" ||
    bad "stats: interleaved=$il"
fi
[ $ran = 0 ] && { echo "skip server_xleave: neither python3 nor chrony"; exit 77; }
exit $fail
