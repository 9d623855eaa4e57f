#!/usr/bin/env bash
# server_metrics.sh BUILD_DIR SOURCE_DIR - leapclockd --metrics end to end:
# scrapes /metrics with curl (Debian package curl), checks the text with
# `promtool check metrics` (Debian package prometheus), and checks that the
# counters follow what is sent (requests, replies, malformed and control
# drops), that a rehearsal (--pretend) through a leap shows LI 1 on utc and
# a growing smear offset on a smear socket, that other paths get 404 and
# other methods 405, that an oversized request is refused, that the
# connections are bounded (per client address too) and time out, and that
# idle connections from a few addresses do not starve a scraper at another
# (issue 28 item 11; python3); with symmetric keys, that MAC results are
# counted apart (ok, bad_mac, unknown_key). The HTTP server is
# libmicrohttpd's (Debian package libmicrohttpd-dev): without it leapclockd
# must refuse --metrics with exit 2, and the rest is skipped.
set -u
B=$(cd "${1:?usage: server_metrics.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: server_metrics.sh BUILD_DIR SOURCE_DIR}" && pwd)
D=$B/leapclockd
L=$B/leapclock
if [ ! -x "$D" ] || [ ! -x "$L" ]; then
  echo "skip server_metrics: leapclockd or leapclock not built"; exit 77
fi
if ! command -v curl >/dev/null; then
  echo "skip server_metrics: needs curl (Debian package curl)"; exit 77
fi
if ! command -v promtool >/dev/null; then
  echo "skip server_metrics: needs promtool (Debian package prometheus)"; exit 77
fi
T=$(mktemp -d /tmp/lc-server-metrics.XXXXXX)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
P=$((20000 + RANDOM % 20000))
M=$((P + 3))
LF=$S/tests/data/leap-seconds.list.tzdata2026f
URL=http://127.0.0.1:$M/metrics

# the value of one sample (exact series name with labels)
val() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
scrape() { curl -s -m 5 -o "$1" -w '%{http_code} %{content_type}' "$URL"; }

# ---- a rehearsal of the 2016 leap: utc, smear:google, metrics
"$D" -d --no-timeline --leapfile "$LF" --stats-file none --ratelimit off \
  --pretend 2016-12-31T23:58:00Z \
  --listen "127.0.0.1:$P=utc" --listen "127.0.0.1:$((P + 1))=smear:google" \
  --metrics "127.0.0.1:$M" 2>"$T/log" &
pid=$!
for _ in $(seq 50); do
  curl -s -m 1 -o /dev/null "$URL" && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if ! kill -0 "$pid" 2>/dev/null && grep -q "libmicrohttpd" "$T/log"; then
  wait "$pid"; rc=$?; pid=
  if [ "$rc" = 2 ] && grep -q "libmicrohttpd-dev" "$T/log"; then
    echo "ok   without libmicrohttpd, --metrics is refused at start (exit 2): $(sed -n 's/^leapclockd: [^ ]* //p' "$T/log" | tail -1)"
    echo "skip server_metrics: leapclockd built without libmicrohttpd (Debian package libmicrohttpd-dev)"; exit 77
  fi
  bad "without libmicrohttpd: exit $rc, want 2 and a message naming libmicrohttpd-dev"
  sed 's/^/  | /' "$T/log"; exit 1
fi
grep -q "metrics on http://127.0.0.1:$M/metrics" "$T/log" ||
  { bad "no 'metrics on' log line"; sed 's/^/  | /' "$T/log"; exit 1; }

head=$(scrape "$T/m1")
if [ "${head%% *}" = 200 ] && [[ $head == *"text/plain; version=0.0.4"* ]]; then
  ok "GET /metrics: 200, $(echo "${head#* }")"
else
  bad "GET /metrics: '$head'"
fi
if promtool check metrics <"$T/m1" >"$T/pc" 2>&1; then
  ok "promtool check metrics accepts the text ($(grep -c '^# TYPE' "$T/m1") families)"
else
  bad "promtool check metrics:"; sed 's/^/  | /' "$T/pc"
fi

U='{listen="127.0.0.1:'$P'",mode="utc"}'
SM='{listen="127.0.0.1:'$((P + 1))'",mode="smear:google"}'
r0=$(val "leapclockd_requests_total$U" "$T/m1")
"$L" server-stats --query "127.0.0.1:$P" --count 5 --interval 0 >/dev/null 2>&1
printf 'x' >"/dev/udp/127.0.0.1/$P"
printf 'xyz' >"/dev/udp/127.0.0.1/$P"
# a mode 6 control request (LI 0, VN 2, mode 6), padded to 48 bytes
printf '\x16\x01\x00\x01%044d' 0 >"/dev/udp/127.0.0.1/$P"
sleep 0.3
scrape "$T/m2" >/dev/null
r1=$(val "leapclockd_requests_total$U" "$T/m2")
p1=$(val "leapclockd_replies_total$U" "$T/m2")
p0=$(val "leapclockd_replies_total$U" "$T/m1")
mal=$(val 'leapclockd_drops_total{listen="127.0.0.1:'$P'",mode="utc",reason="malformed"}' "$T/m2")
ctl=$(val 'leapclockd_drops_total{listen="127.0.0.1:'$P'",mode="utc",reason="control"}' "$T/m2")
rcv=$(val "leapclockd_received_total$U" "$T/m2")
echo "  | requests $r0 -> $r1, replies $p0 -> $p1, malformed $mal, control $ctl, received $rcv"
if [ -n "$r0" ] && [ "$((r1 - r0))" = 5 ] && [ "$((p1 - p0))" = 5 ] &&
   [ "$mal" = 2 ] && [ "$ctl" = 1 ] && [ "$rcv" = "$((r1 + 3))" ]; then
  ok "5 requests counted as 5 requests and 5 replies, 2 short datagrams as malformed, 1 mode 6 as control"
else
  bad "the counters did not follow what was sent"
fi
li=$(val 'leapclockd_leap_indicator{mode="utc"}' "$T/m2")
lis=$(val 'leapclockd_leap_indicator{mode="smear:google"}' "$T/m2")
o2=$(val "leapclockd_smear_offset_seconds$SM" "$T/m2")
sleep 1
scrape "$T/m3" >/dev/null
o3=$(val "leapclockd_smear_offset_seconds$SM" "$T/m3")
ou=$(val "leapclockd_smear_offset_seconds$U" "$T/m3")
echo "  | LI utc $li smear $lis; smear offset $o2 -> $o3 s (utc $ou)"
# google's smear runs noon to noon: at 23:58 of the leap day the served
# time is about half a second behind and falls further behind (1/86400 s/s)
if [ "$li" = 1 ] && [ "$lis" = 0 ] && [ "$ou" = 0.000000000 ] &&
   awk -v a="$o2" -v b="$o3" 'BEGIN { exit !(a < -0.49 && a > -0.51 && b < a && a - b < 0.0001) }'; then
  ok "a rehearsal at 23:58 of a leap day: LI 1 on utc, 0 on the smear, smear offset about -0.5 s and falling"
else
  bad "leap state or smear offset"
fi
if [ "$(val leapclockd_pretend "$T/m3")" = 1 ] &&
   [ "$(val 'leapclockd_host_state{state="not_followed"}' "$T/m3")" = 1 ] &&
   [ -n "$(val leapclockd_leap_table_expiry_seconds "$T/m3")" ]; then
  ok "pretend 1, host state not_followed while rehearsing, table expiry given ($(val leapclockd_leap_table_expiry_seconds "$T/m3") s)"
else
  bad "pretend, host state or table expiry"
fi

# ---- other paths, methods, an oversized head
c404=$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$M/")
c404b=$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$M/metricsx")
c405=$(curl -s -m 5 -o /dev/null -w '%{http_code}' -X POST "$URL")
c10=$(curl -s -m 5 -0 -o /dev/null -w '%{http_code}' "$URL")
big=$(head -c 6000 /dev/zero | tr '\0' a)
c431=$(curl -s -m 5 -o /dev/null -w '%{http_code}' -H "X-Big: $big" "$URL")
echo "  | / $c404, /metricsx $c404b, POST $c405, HTTP/1.0 $c10, 6000-byte header $c431"
if [ "$c404" = 404 ] && [ "$c404b" = 404 ] && [ "$c405" = 405 ] &&
   [ "$c10" = 200 ] && [ "$c431" = 431 ]; then
  ok "404 elsewhere, 405 for POST, HTTP/1.0 served, an oversized head refused (431)"
else
  bad "paths, methods or size limit"
fi

# ---- bounded connections, each with a deadline: 8 idle connections fill
# every slot one address may hold, a scrape from it is then turned away;
# after their 5 s of silence it is served
fds=()
for i in $(seq 8); do
  exec {fd}<>"/dev/tcp/127.0.0.1/$M" && fds+=("$fd")
done
sleep 0.3
cbusy=$(curl -s -m 3 -o /dev/null -w '%{http_code}' "$URL")
sleep 5.5
cfree=$(curl -s -m 3 -o /dev/null -w '%{http_code}' "$URL")
for fd in "${fds[@]}"; do exec {fd}>&-; done
echo "  | with 8 idle connections: $cbusy; 5.5 s later: $cfree"
if [ "${#fds[@]}" = 8 ] && [ "$cbusy" != 200 ] && [ "$cfree" = 200 ]; then
  ok "8 idle connections from one address: another from it is turned away; idle ones closed after 5 s, then served again"
else
  bad "connection bound or timeout"
fi

# ---- issue 28 item 11: idle connections from a few addresses must not
# starve a scraper at another address, and are closed after the deadline
if command -v python3 >/dev/null; then
  python3 - "$M" >"$T/idle" 2>&1 <<'EOF'
import socket, sys, time
port = int(sys.argv[1])
idle = []
for a in ("127.0.0.2", "127.0.0.3", "127.0.0.4"):
    for _ in range(8):
        s = socket.socket()
        s.settimeout(2)
        try:
            s.bind((a, 0)); s.connect(("127.0.0.1", port)); idle.append(s)
        except OSError:
            s.close()
opened = time.monotonic()
time.sleep(0.5)
def scrape(src):
    s = socket.socket(); s.settimeout(3)
    try:
        s.bind((src, 0)); s.connect(("127.0.0.1", port))
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        data = b""
        while True:
            d = s.recv(65536)
            if not d:
                break
            data += d
            if b"leapclockd_start_time_seconds " in data:
                break
        return data.split(b" ", 2)[1].decode() if data.startswith(b"HTTP/") else "none"
    except OSError as e:
        return type(e).__name__
    finally:
        s.close()
codes = [scrape("127.0.0.%d" % (9 + i)) for i in range(3)]
time.sleep(max(0.0, opened + 6.5 - time.monotonic()))
closed = 0
for s in idle:
    s.settimeout(0.05)
    try:
        closed += s.recv(1) == b""
    except (ConnectionResetError, BrokenPipeError):
        closed += 1
    except OSError:
        pass
    s.close()
print(len(idle), " ".join(codes), closed)
EOF
  read -r nidle codes1 codes2 codes3 nclosed <"$T/idle"
  echo "  | 24 idle connections from 127.0.0.2-4 ($nidle opened): scrapes from 127.0.0.9-11: $codes1 $codes2 $codes3; after 6.5 s $nclosed of them closed"
  if [ "$nidle" = 24 ] && [ "$codes1 $codes2 $codes3" = "200 200 200" ] &&
     [ "$nclosed" = 24 ]; then
    ok "idle connections from 3 addresses do not starve a scraper at another; all closed by the deadline"
  else
    bad "idle connections starve the scrapes or stay open"; sed 's/^/  | /' "$T/idle"
  fi
else
  echo "skip (part) idle connections from several addresses: needs python3 (Debian package python3)"
fi
if kill -0 "$pid" 2>/dev/null && "$L" server-stats --query "127.0.0.1:$P" >/dev/null 2>&1; then
  ok "still serving NTP after all that"
else
  bad "leapclockd stopped serving"; sed 's/^/  | /' "$T/log"
fi
kill "$pid"; wait "$pid"; rc=$?; pid=
[ "$rc" = 0 ] && ok "SIGTERM: exit 0 with the metrics thread running" || bad "exit status $rc at SIGTERM"

# ---- keyed requests (once leapclockd has symmetric keys): MAC results
K=0123456789abcdef0123456789abcdef01234567
echo "7 SHA1 HEX:$K" >"$T/keys"; chmod 600 "$T/keys"
KM=$((P + 5))
"$D" -d --no-timeline --leapfile "$LF" --stats-file none --ratelimit off \
  --listen "127.0.0.1:$P=utc" --keyfile "$T/keys" --metrics "127.0.0.1:$KM" 2>"$T/keys.log" &
pid=$!
for _ in $(seq 50); do
  curl -s -m 1 -o /dev/null "http://127.0.0.1:$KM/metrics" && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then
  # 3 signed with key 7, 2 with key 9 (unknown), 1 with key 7 and a bad MAC
  python3 - "$P" "$K" <<'EOF'
import hashlib, socket, struct, sys
port, key = int(sys.argv[1]), bytes.fromhex(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(0.5)
for n, (kid, spoil) in enumerate([(7, 0)] * 3 + [(9, 0)] * 2 + [(7, 1)]):
    pkt = bytearray(48); pkt[0] = 0x23; pkt[40:48] = struct.pack("!Q", n + 1)
    mac = bytearray(hashlib.sha1(key + bytes(pkt)).digest()); mac[0] ^= spoil
    s.sendto(bytes(pkt) + struct.pack("!I", kid) + bytes(mac), ("127.0.0.1", port))
    try: s.recvfrom(512)
    except socket.timeout: pass
EOF
  sleep 0.2
  curl -s -m 5 -o "$T/mk" "http://127.0.0.1:$KM/metrics"
  kok=$(val 'leapclockd_key_requests_total{result="ok"}' "$T/mk")
  kbad=$(val 'leapclockd_key_requests_total{result="bad_mac"}' "$T/mk")
  kunk=$(val 'leapclockd_key_requests_total{result="unknown_key"}' "$T/mk")
  aok=$(val 'leapclockd_auth_total{listen="127.0.0.1:'$P'",mode="utc",result="ok"}' "$T/mk")
  afail=$(val 'leapclockd_auth_total{listen="127.0.0.1:'$P'",mode="utc",result="fail"}' "$T/mk")
  echo "  | keyed: ok $kok, bad_mac $kbad, unknown_key $kunk; per socket auth ok $aok, fail $afail"
  if [ "$kok" = 3 ] && [ "$kbad" = 1 ] && [ "$kunk" = 2 ] && [ "$aok" = 3 ] && [ "$afail" = 3 ] &&
     promtool check metrics <"$T/mk" >/dev/null 2>&1; then
    ok "keyed requests: 3 ok, 1 bad MAC, 2 unknown key ids, disjoint; auth ok 3 / fail 3 on the socket; promtool accepts"
  else
    bad "the keyed counters"
  fi
  kill "$pid"; wait "$pid"; pid=
elif grep -q "not supported" "$T/keys.log"; then
  echo "skip (part) keyed counters: this leapclockd has no symmetric keys yet"; pid=
else
  bad "leapclockd with --keyfile did not start:"; sed 's/^/  | /' "$T/keys.log"; pid=
fi

# ---- a bad address is a start error
"$D" -d --no-timeline --leapfile "$LF" --stats-file none --listen "127.0.0.1:$P=utc" \
  --metrics localhost:9975 >/dev/null 2>"$T/bad"; rc=$?
if [ "$rc" != 0 ] && grep -q "metrics" "$T/bad"; then
  ok "--metrics localhost:9975 refused at start (exit $rc): $(tail -1 "$T/bad" | sed 's/^leapclockd: [^ ]* //')"
else
  bad "--metrics with a name: exit $rc"
fi
exit $fail
