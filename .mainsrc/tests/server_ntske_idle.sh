#!/usr/bin/env bash
# server_ntske_idle.sh BUILD_DIR SOURCE_DIR - idle connections do not keep
# NTS-KE clients out (issue 28 item 11): 16 TCP connections from four
# addresses (127.0.0.2-5) that never speak, each reopened as soon as it is
# closed, and for 12 s an NTS-KE session every 0.25 s from other addresses
# (127.0.0.10 and up; tests/progs/ntske_idle.py): every session gets its
# eight cookies, and the idle connections are closed by the server's
# deadline (some seconds), not held. Then allow/deny on NTS-KE: with
# `deny 127.0.0.10` a session from there is closed at once, one from
# 127.0.0.11 served.
# Needs Debian packages gnutls-bin (certtool) and python3, and a leapclockd
# built with GnuTLS; skips (77) otherwise. Loopback only, --no-timeline.
set -u
B=$(cd "${1:?usage: server_ntske_idle.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: server_ntske_idle.sh BUILD_DIR SOURCE_DIR}" && pwd)
D=$B/leapclockd
L=$B/leapclock
[ -x "$D" ] && [ -x "$L" ] || { echo "skip server_ntske_idle: leapclockd or leapclock not built"; exit 77; }
command -v certtool >/dev/null || { echo "skip server_ntske_idle: needs Debian package gnutls-bin (certtool)"; exit 77; }
command -v python3 >/dev/null || { echo "skip server_ntske_idle: needs python3"; exit 77; }
strings "$D" | grep -q "NTS-KE: TLS priorities" ||
  { echo "skip server_ntske_idle: leapclockd built without GnuTLS"; exit 77; }
. "$(dirname "$0")/progs/tmp_lib.sh"
lc_test_tmp server-ntske-idle
chmod 700 "$T"
fails=0
. "$S/tests/progs/check_lib.sh"
export LEAPCLOCK_LEAPFILE=$S/tests/data/leap-seconds.list.tzdata2026f
lc_make_cert "$T/key.pem" "$T/cert.pem" || { echo "FAIL certtool"; exit 1; }
P=$((20000 + RANDOM % 20000))

# up NAME ARGS...: a leapclockd with NTS-KE on port KP, once it accepts
KP=$((P + 1))
up() {
  local name=$1
  shift
  "$D" -d --no-timeline --stats-file none --listen "127.0.0.1:$P=utc" \
    --nts-cert "$T/cert.pem" --nts-key "$T/key.pem" --nts-keydir "$T/keys-$name" \
    --nts-listen "127.0.0.1:$KP" "$@" 2>"$T/$name.log" &
  pids+=($!)
  for _ in $(seq 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$KP") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "  leapclockd $name did not start:"; sed 's/^/  | /' "$T/$name.log"
  bad "leapclockd $name did not start"
  return 1
}

if up idle; then
  r=$(timeout 60 python3 "$S/tests/progs/ntske_idle.py" "$KP" "$T/cert.pem" 12)
  echo "  $r"
  n=$(echo "$r" | awk '{print $2}'); okc=$(echo "$r" | awk '{print $4}')
  idle=$(echo "$r" | awk '{print $6}')
  [ -n "$n" ] && [ "$n" -ge 30 ] && [ "$okc" = "$n" ] &&
    ok "11: $okc of $n NTS-KE sessions from other addresses served beside 16 idle connections" ||
    bad "11: $okc of $n NTS-KE sessions served beside 16 idle connections ($r)"
  [ -n "$idle" ] && [ "$idle" -ge 16 ] && ok "11: idle connections closed by the deadline ($idle times)" ||
    bad "11: the idle connections were not closed: $r"
  kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null; unset 'pids[-1]'
fi

# allow/deny on NTS-KE
cat >"$T/one.py" <<'PY'
import socket, ssl, struct, sys
port, ca, src = int(sys.argv[1]), sys.argv[2], sys.argv[3]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.load_verify_locations(ca)
ctx.set_alpn_protocols(["ntske/1"])
req = struct.pack(">HHH", 0x8001, 2, 0) + struct.pack(">HHH", 0x8004, 2, 15) + struct.pack(">HH", 0x8000, 0)
try:
    raw = socket.create_connection(("127.0.0.1", port), timeout=3, source_address=(src, 0))
    with ctx.wrap_socket(raw, server_hostname="localhost") as s:
        s.sendall(req)
        print("answered %d" % len(s.recv(4096)))
except (OSError, ssl.SSLError) as e:
    print("refused %s" % type(e).__name__)
PY
if up acl --allow 127.0.0.0/8 --deny 127.0.0.10; then
  a=$(timeout 10 python3 "$T/one.py" "$KP" "$T/cert.pem" 127.0.0.10)
  b=$(timeout 10 python3 "$T/one.py" "$KP" "$T/cert.pem" 127.0.0.11)
  case $a in refused*) ok "27.3: deny 127.0.0.10: its NTS-KE session refused ($a)" ;;
    *) bad "27.3: deny 127.0.0.10: $a" ;; esac
  case $b in answered*) ok "27.3: 127.0.0.11 (allow 127.0.0.0/8): served ($b)" ;;
    *) bad "27.3: 127.0.0.11: $b" ;; esac
fi
[ $fails = 0 ] && echo "server_ntske_idle: all passed" || echo "server_ntske_idle: $fails failed"
exit $((fails > 0))
