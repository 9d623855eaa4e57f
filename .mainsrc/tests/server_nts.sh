#!/usr/bin/env bash
# server_nts.sh BUILD_DIR SOURCE_DIR - leapclockd's NTS (RFC 8915) against
# a real client, chronyd -x (never touches the clock; NTS works there, and
# -Q would stop after one sample).
#
#   utc socket     chronyd's only source, over NTS-KE on its own port: the
#                  port record sends chronyd to the NTP port (the configured
#                  one is dead), chronyd selects it (offset under 1 ms) and
#                  `chronyc -N authdata` shows NTS, 8 cookies of 100 bytes,
#                  no NAK; the key directory is 0700 and its file 0600
#   server record  --nts-ntp-server 127.0.0.2 with the NTP socket there
#                  only: chronyd, told 127.0.0.1, follows the Server
#                  Negotiation record and selects it
#   unknown keys   restarted on a fresh key directory: chronyd's cookies
#                  get NTSN kisses (its NAK count rises)
#   restart        leapclockd restarted on the same key directory with its
#                  NTS-KE moved away: chronyd keeps getting authenticated
#                  answers with the cookies of the first run, no NAK
#   smear socket   utc and smear:google sockets at a --pretend 18:00 on the
#                  leap day, one chronyd on each over NTS: the smeared one
#                  is -21600/86401 s (-0.249997) from the other
#   tampering      through a UDP relay that flips one byte of the encrypted
#                  field of each answer: chronyd never takes a sample; the
#                  same relay passing answers unchanged: chronyd selects it
#   certificate    SIGHUP loads a renewed certificate and key (gnutls-cli
#                  checks NTS-KE against each CA); a file that does not load
#                  is logged and the certificate in use stays
#   replay         through a relay that sends leapclockd chronyd's first
#                  request again in place of every later one (its answer
#                  to the first dropped): leapclockd answers the replayed
#                  cookie each time (it keeps no replay state, as RFC 8915
#                  allows and chronyd's server does), and chronyd takes
#                  none of those answers (their Unique Identifier and
#                  origin are not those of the request it sent)
#
# Needs Debian packages chrony and gnutls-bin (certtool); skips (77)
# without them, or when leapclockd was built without GnuTLS
# (libgnutls28-dev). Everything binds to 127.0.0.1.
set -u
B=${1:?usage: server_nts.sh BUILD_DIR SOURCE_DIR}
S=${2:?usage: server_nts.sh BUILD_DIR SOURCE_DIR}
B=$(cd "$B" && pwd)
S=$(cd "$S" && pwd)
D=$B/leapclockd
L=$B/leapclock
LEAPFILE=$S/tests/data/leap-seconds.list.tzdata2026f
fail=0
ran=0

ok() { echo "ok   $1"; ran=$((ran + 1)); }
bad() { echo "FAIL $1"; fail=1; ran=$((ran + 1)); }

if [ ! -x "$D" ] || [ ! -x "$L" ]; then
  echo "skip server_nts: leapclockd or leapclock not built in $B"
  exit 77
fi
for c in chronyd chronyc; do
  command -v $c >/dev/null || { echo "skip server_nts: needs Debian package chrony ($c)"; exit 77; }
done
command -v certtool >/dev/null ||
  { echo "skip server_nts: needs Debian package gnutls-bin (certtool)"; exit 77; }
command -v python3 >/dev/null ||
  { echo "skip server_nts: needs python3 (the tampering relay)"; exit 77; }

. "$(dirname "$0")/progs/tmp_lib.sh"
lc_test_tmp server-nts
chmod 700 "$T"

near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < t) }'; }

# ---- a self-signed certificate for 127.0.0.1 and localhost
lc_make_cert "$T/key.pem" "$T/cert.pem" ||
  { echo "FAIL certtool could not make a certificate"; exit 1; }
CERT=$T/cert.pem
KEY=$T/key.pem

PB=$((20000 + RANDOM % 20000))
port() { echo $((PB + $1)); }

# start_server NAME ARGS...: leapclockd in the foreground (background job),
# ready once it answers on its first --listen address.
start_server() {
  local name=$1 first
  shift
  "$D" -d --no-timeline --stats-file "$T/$name.stats" --leapfile "$LEAPFILE" "$@" \
    2>"$T/$name.log" &
  pids+=($!)
  first=$(printf '%s\n' "$@" | grep -m1 '=' | sed 's/=.*//')
  for _ in $(seq 50); do
    "$L" server-stats --query "$first" >/dev/null 2>&1 && return 0
    if ! kill -0 "${pids[-1]}" 2>/dev/null; then break; fi
    sleep 0.1
  done
  echo "  leapclockd $name did not come up:"; sed 's/^/  | /' "$T/$name.log"
  return 1
}

# Built without GnuTLS: NTS refused, with the package to install named.
"$D" -d --no-timeline --leapfile "$LEAPFILE" --listen "127.0.0.1:$(port 99)=utc" \
  --nts-cert "$CERT" --nts-key "$KEY" --nts-listen "127.0.0.1:$(port 98)" \
  --nts-keydir "$T/probe" --stats-file "$T/probe.stats" 2>"$T/probe.log" &
probe=$!
sleep 0.5
kill $probe 2>/dev/null; wait $probe 2>/dev/null
if grep -q "without GnuTLS" "$T/probe.log"; then
  echo "skip server_nts: leapclockd was built without GnuTLS (Debian package libgnutls28-dev):"
  sed 's/^/  | /' "$T/probe.log"
  exit 77
fi

# chronyd_nts NAME NTPPORT KEPORT: chronyd -x whose only source is an NTS
# server on 127.0.0.1 (background job; its command socket $T/NAME.sock)
chronyd_nts() {
  cat >"$T/$1.conf" <<EOF
server 127.0.0.1 port $2 nts ntsport $3 iburst minpoll 0 maxpoll 0
ntstrustedcerts $CERT
pidfile $T/$1.pid
cmdport 0
bindcmdaddress $T/$1.sock
EOF
  chronyd -x -d -u root -f "$T/$1.conf" >"$T/$1.log" 2>&1 &
  pids+=($!)
}
# the CSV line of the source of chronyd NAME
source_csv() { chronyc -h "$T/$1.sock" -c -n sources 2>/dev/null | head -1; }
authdata() { chronyc -h "$T/$1.sock" -c -n authdata 2>/dev/null | head -1; }
# wait_selected NAME [SECONDS]: 0 once chronyd NAME has selected its source
wait_selected() {
  for _ in $(seq "${2:-30}"); do
    sleep 1
    case "$(source_csv "$1")" in '^,*,'*) return 0 ;; esac
  done
  return 1
}
# field N of a CSV line
f() { echo "$1" | cut -d, -f"$2"; }
stat_of() { sed -n "s/.* $2=\([0-9]*\).*/\1/p" "$T/$1.stats" | head -1; }

# ------------------------------------------------------------- utc socket
PN=$(port 0); PK=$(port 1); DEAD=$(port 2)
mkdir -m 700 "$T/keys"
start_server nts1 --listen "127.0.0.1:$PN=utc" --nts-cert "$CERT" --nts-key "$KEY" \
  --nts-listen "127.0.0.1:$PK" --nts-keydir "$T/keys" --nts-ntp-port "$PN" ||
  bad "leapclockd with NTS starts"
chronyd_nts c1 "$DEAD" "$PK"
if wait_selected c1; then
  s=$(source_csv c1); a=$(authdata c1)
  # sources: mode,state,name,stratum,poll,reach,lastrx,offset,measured,error
  # authdata: name,mode,keyid,type,klen,last,atmp,nak,cook,clen
  if near "$(f "$s" 9)" 0 0.001 && [ "$(f "$a" 2)" = NTS ] &&
     [ "$(f "$a" 4)" = 15 ] && [ "$(f "$a" 8)" = 0 ] &&
     [ "$(f "$a" 9)" -ge 1 ] && [ "$(f "$a" 10)" = 100 ]; then
    ok "chronyd -x over NTS (KE port $PK, NTP port $PN from the port record): selected, offset $(f "$s" 9) s; authdata: $a"
  else
    bad "chronyd -x over NTS: sources '$s', authdata '$a'"
  fi
else
  bad "chronyd -x did not select leapclockd over NTS: '$(source_csv c1)' '$(authdata c1)'"
  sed 's/^/  | /' "$T/c1.log" | tail -5; sed 's/^/  | /' "$T/nts1.log" | tail -5
fi
cook=$(f "$(authdata c1)" 9)
if [ "$cook" = 8 ]; then
  ok "chronyd holds 8 cookies: one back for each one spent"
else
  bad "chronyd holds '$cook' cookies (want 8)"
fi
dm=$(stat -c %a "$T/keys"); fm=$(stat -c %a "$T/keys/ntskeys" 2>/dev/null)
if [ "$dm" = 700 ] && [ "$fm" = 600 ]; then
  ok "the key directory is 0700, its key file 0600"
else
  bad "key directory mode '$dm', key file mode '$fm' (want 700, 600)"
fi
# a fresh key directory is made 0700
start_server nts0 --listen "127.0.0.1:$(port 9)=utc" --nts-cert "$CERT" --nts-key "$KEY" \
  --nts-listen "127.0.0.1:$(port 10)" --nts-keydir "$T/newkeys" || true
dm=$(stat -c %a "$T/newkeys" 2>/dev/null); fm=$(stat -c %a "$T/newkeys/ntskeys" 2>/dev/null)
kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null
if [ "$dm" = 700 ] && [ "$fm" = 600 ]; then
  ok "a key directory leapclockd creates is 0700, its key file 0600"
else
  bad "created key directory mode '$dm', key file mode '$fm' (want 700, 600)"
fi

# server-stats shows the NTS counters of the stats file (written every second)
sleep 1.1
js=$("$L" server-stats --file "$T/nts1.stats" --json 2>/dev/null)
txt=$("$L" server-stats --file "$T/nts1.stats" 2>/dev/null)
aok=$(echo "$js" | sed -n 's/.*"listen":\[{[^}]*"auth_ok":\([0-9]*\).*/\1/p')
if [ "${aok:-0}" -ge 1 ] && echo "$txt" | grep -q 'auth_ok' &&
   echo "$txt" | grep -E "^127\.0\.0\.1:$PN +utc +[0-9]+ +[0-9]+ +$aok +0\$" >/dev/null; then
  ok "server-stats shows the $aok authenticated replies, none failed"
else
  bad "server-stats: auth_ok '$aok'; text: $txt"
fi

# ------------------------------------------------------------- server record
# NTS-KE on 127.0.0.1, NTP only on 127.0.0.2: chronyd reaches the NTP
# socket only by following the Server Negotiation record
PS=$(port 16); PSK=$(port 17)
start_server srv --listen "127.0.0.2:$PS=utc" --nts-cert "$CERT" --nts-key "$KEY" \
  --nts-listen "127.0.0.1:$PSK" --nts-keydir "$T/keys" --nts-ntp-server 127.0.0.2 \
  --nts-ntp-port "$PS" || bad "leapclockd with --nts-ntp-server starts"
chronyd_nts csrv "$DEAD" "$PSK"
if wait_selected csrv && [ "$(f "$(authdata csrv)" 2)" = NTS ]; then
  ok "chronyd follows the Server Negotiation record to 127.0.0.2:$PS: $(source_csv csrv)"
else
  bad "--nts-ntp-server: chronyd did not select: '$(source_csv csrv)' '$(authdata csrv)'"
fi
kill "${pids[-1]}" "${pids[-2]}" 2>/dev/null; wait "${pids[-1]}" "${pids[-2]}" 2>/dev/null
unset 'pids[-1]' 'pids[-2]'

# ------------------------------------------------------------- restart
# Same key directory, NTS-KE moved away (chronyd cannot get new cookies):
# its cookies from the first run must still open.
kill "${pids[0]}"; wait "${pids[0]}" 2>/dev/null
start_server nts2 --listen "127.0.0.1:$PN=utc" --nts-cert "$CERT" --nts-key "$KEY" \
  --nts-listen "127.0.0.1:$(port 3)" --nts-keydir "$T/keys" ||
  bad "leapclockd restarts on the same key directory"
sleep 6
r=$(stat_of nts2 replies); a=$(authdata c1); s=$(source_csv c1)
if [ "${r:-0}" -ge 3 ] && [ "$(f "$a" 8)" = 0 ] && [ "$(f "$s" 7)" -le 3 ]; then
  ok "after a restart on the same keys, $r authenticated answers to chronyd's old cookies, no NAK (last rx $(f "$s" 7) s ago)"
else
  bad "after a restart: replies '$r', authdata '$a', sources '$s'"
fi
nak_before=$(f "$a" 8)

# A fresh key directory: the old cookies cannot open, chronyd gets NTSN
# kisses (its NAK count rises).
kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null
mkdir -m 700 "$T/otherkeys"
start_server nts3 --listen "127.0.0.1:$PN=utc" --nts-cert "$CERT" --nts-key "$KEY" \
  --nts-listen "127.0.0.1:$(port 3)" --nts-keydir "$T/otherkeys" ||
  bad "leapclockd starts on other keys"
sleep 4
a=$(authdata c1); k=$(stat_of nts3 kod)
if [ "$(f "$a" 8)" -gt "${nak_before:-0}" ] && [ "${k:-0}" -ge 1 ]; then
  ok "cookies of unknown keys get NTSN kisses: chronyd counts $(f "$a" 8) NAK, leapclockd sent $k"
else
  bad "unknown keys: authdata '$a', kisses sent '$k' (want NAK > $nak_before)"
fi
kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null

# ------------------------------------------------------------- smear
# Both sockets of a server pretending 18:00 on the leap day (so chronyd
# measures years of offset on each): smear:google minus utc, measured by
# two chronyd, is -21600/86401 s. No port record: each chronyd names its
# NTP port.
PU=$(port 4); PS=$(port 5); PSK=$(port 8)
start_server smear --pretend 2016-12-31T18:00:00Z --listen "127.0.0.1:$PU=utc" \
  --listen "127.0.0.1:$PS=smear:google" --nts-cert "$CERT" --nts-key "$KEY" \
  --nts-listen "127.0.0.1:$PSK" --nts-keydir "$T/keys" ||
  bad "leapclockd smear with NTS starts"
chronyd_nts c2u "$PU" "$PSK"
chronyd_nts c2s "$PS" "$PSK"
# chronyd -x corrects its own idea of the clock at once and logs by how
# much: the served time's offset, to the microsecond, before any filtering
wrong_by() { sed -n 's/.*System clock wrong by \([-+0-9.]*\) seconds.*/\1/p' "$T/$1.log" | head -1; }
if wait_selected c2u && wait_selected c2s; then
  xu=$(wrong_by c2u); xs=$(wrong_by c2s); a=$(authdata c2s)
  d=$(awk -v a="$xs" -v b="$xu" 'BEGIN { printf "%.6f", a - b }')
  if [ -n "$xu" ] && [ -n "$xs" ] && near "$d" -0.249997 0.002 &&
     [ "$(f "$a" 2)" = NTS ] && [ "$(f "$a" 8)" = 0 ]; then
    ok "chronyd -x over NTS on smear:google at 18:00 on the leap day: $d s from utc (want -0.249997); authdata $a"
  else
    bad "smear over NTS: '$xs' - '$xu' = $d s from utc, authdata '$a'"
  fi
else
  bad "chronyd -x did not select the pretending server over NTS: '$(source_csv c2u)' '$(source_csv c2s)' '$(authdata c2s)'"
fi

# ------------------------------------------------------------- tampering
cat >"$T/relay.py" <<'EOF'
# relay.py LISTEN_PORT SERVER_PORT pass|flip|replay [COUNT_FILE]: a UDP
# relay on 127.0.0.1; "flip" inverts one byte of each answer's last 16
# (inside the NTS authenticator's encrypted part); "replay" forwards the
# first request in place of every request and drops the first answer.
# COUNT_FILE: the number of answers passed on, rewritten at each.
import socket, sys
lp, sp, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
count_file = sys.argv[4] if len(sys.argv) > 4 else None
first, answers, passed = None, 0, 0
front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
front.bind(("127.0.0.1", lp))
back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
back.connect(("127.0.0.1", sp))
import select
client = None
while True:
    r, _, _ = select.select([front, back], [], [])
    if front in r:
        d, client = front.recvfrom(2048)
        if mode == "replay":
            first = first or d
            d = first
        back.send(d)
    if back in r:
        d = bytearray(back.recv(2048))
        answers += 1
        if mode == "flip" and len(d) > 64:
            d[-10] ^= 0xff
        if mode == "replay" and answers == 1:
            continue
        if client:
            front.sendto(bytes(d), client)
            passed += 1
            if count_file:
                with open(count_file, "w") as cf:
                    cf.write("%d\n" % passed)
EOF
PT=$(port 6); PTK=$(port 7); RP=$(port 11); RF=$(port 12); RR=$(port 13)
start_server tamper --listen "127.0.0.1:$PT=utc" --nts-cert "$CERT" --nts-key "$KEY" \
  --nts-listen "127.0.0.1:$PTK" --nts-keydir "$T/keys" ||
  bad "leapclockd without a port record starts"
python3 "$T/relay.py" "$RP" "$PT" pass & pids+=($!)
python3 "$T/relay.py" "$RF" "$PT" flip & pids+=($!)
python3 "$T/relay.py" "$RR" "$PT" replay "$T/replayed" & pids+=($!)
sleep 0.3
chronyd_nts cpass "$RP" "$PTK"
chronyd_nts cflip "$RF" "$PTK"
chronyd_nts crep "$RR" "$PTK"
if wait_selected cpass; then
  ok "through the relay passing answers unchanged, chronyd selects leapclockd: $(source_csv cpass)"
else
  bad "through the plain relay chronyd did not select: '$(source_csv cpass)'"
fi
sleep 3
s=$(source_csv cflip); a=$(authdata cflip)
fwd=$(stat_of tamper replies)
if [ "$(f "$s" 6)" = 0 ] && [ "$(f "$s" 2)" != '*' ] && [ "$(f "$a" 2)" = NTS ] &&
   [ "${fwd:-0}" -ge 6 ]; then
  ok "answers with one byte flipped in the encrypted field: chronyd takes none (reach $(f "$s" 6)) of the $fwd leapclockd sent to both relays"
else
  bad "tampered answers: sources '$s', authdata '$a', leapclockd replies '$fwd' (want reach 0)"
fi
s=$(source_csv crep); a=$(authdata crep)
nrep=$(cat "$T/replayed" 2>/dev/null || echo 0)
if [ "$nrep" -ge 2 ] && [ "$(f "$s" 6)" = 0 ] && [ "$(f "$s" 2)" != '*' ] &&
   [ "$(f "$a" 2)" = NTS ]; then
  ok "a replayed request: leapclockd answered its cookie $nrep times, chronyd took none of those answers (reach $(f "$s" 6))"
else
  bad "replayed request: $nrep answers passed on, sources '$s', authdata '$a' (want 2 or more answers, reach 0)"
fi

# ------------------------------------------------------------- certificate
# ke_trusts CA PORT: 0 if a TLS 1.3 ntske/1 handshake with 127.0.0.1:PORT
# verifies against CA alone
ke_trusts() {
  timeout 10 gnutls-cli --x509cafile "$1" --alpn ntske/1 -p "$2" 127.0.0.1 \
    </dev/null >"$T/gnutls-cli.out" 2>&1
}
if command -v gnutls-cli >/dev/null; then
  lc_make_cert "$T/key2.pem" "$T/cert2.pem"
  cp "$CERT" "$T/live-cert.pem"; cp "$KEY" "$T/live-key.pem"; chmod 600 "$T/live-key.pem"
  PC=$(port 14); PCK=$(port 15)
  start_server certs --listen "127.0.0.1:$PC=utc" --nts-cert "$T/live-cert.pem" \
    --nts-key "$T/live-key.pem" --nts-listen "127.0.0.1:$PCK" --nts-keydir "$T/keys" ||
    bad "leapclockd for the certificate reload starts"
  ke_trusts "$CERT" "$PCK" && ! ke_trusts "$T/cert2.pem" "$PCK" &&
    ok "NTS-KE verifies against the first certificate only" ||
    bad "before the reload: $(tail -3 "$T/gnutls-cli.out")"
  cp "$T/cert2.pem" "$T/live-cert.pem"; cp "$T/key2.pem" "$T/live-key.pem"
  kill -HUP "${pids[-1]}"
  for _ in $(seq 50); do grep -q 'certificate and key reloaded' "$T/certs.log" && break; sleep 0.1; done
  if ke_trusts "$T/cert2.pem" "$PCK" && ! ke_trusts "$CERT" "$PCK"; then
    ok "after SIGHUP NTS-KE presents the renewed certificate"
  else
    bad "after SIGHUP: $(tail -3 "$T/gnutls-cli.out"); log: $(tail -3 "$T/certs.log")"
  fi
  echo "not a certificate" >"$T/live-cert.pem"
  kill -HUP "${pids[-1]}"
  for _ in $(seq 50); do grep -q 'kept the certificate in use' "$T/certs.log" && break; sleep 0.1; done
  if grep -q "nts-cert $T/live-cert.pem, nts-key $T/live-key.pem: .*(kept the certificate in use)" "$T/certs.log" &&
     ke_trusts "$T/cert2.pem" "$PCK"; then
    ok "a certificate file that does not load: logged ($(grep -o 'nts-cert [^ ]*' "$T/certs.log" | tail -1) ...), the renewed one still served"
  else
    bad "bad certificate on SIGHUP: log $(tail -2 "$T/certs.log"); handshake: $(tail -2 "$T/gnutls-cli.out")"
  fi
else
  echo "skip certificate reload: needs gnutls-cli (Debian package gnutls-bin)"
fi

# every daemon stopped cleanly (under a sanitizer: reported nothing)
for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
pids=()
if grep -l -E 'Sanitizer|runtime error' "$T"/*.log >/dev/null 2>&1; then
  bad "a sanitizer reported in $(grep -l -E 'Sanitizer|runtime error' "$T"/*.log | xargs -n1 basename | tr '\n' ' ')"
  grep -h -A5 -E 'Sanitizer|runtime error' "$T"/*.log | head -30 | sed 's/^/  | /'
else
  ok "no sanitizer report in the logs of leapclockd and chronyd"
fi

echo "server_nts: $ran checks, $([ $fail = 0 ] && echo all passed || echo FAILURES)"
exit $fail
