#!/usr/bin/env bash
# server_keys.sh BUILD_DIR SOURCE_DIR - leapclockd's symmetric keys (issue
# 14) against real clients.
#
#   chronyd -Q with `key K` for MD5, SHA1, SHA256, AES128, AES256: the
#       clock offset under 1 ms (chronyd takes only replies signed with K)
#   chronyd -x with an AES128 key: selects leapclockd, and chronyc ntpdata /
#       authdata (over a private command socket) say authenticated, SYM, K
#   a wrong secret on the client side, a key the server does not have, a
#       reply tampered with by a relay: chronyd -Q gets no usable reply
#       (the same relay without tampering passes, so the relay is not why)
#   ntp_keyed.py (MACs from python3's hashlib, not leapclockd's code):
#       signed replies for NTPv4 (MD5, SHA256 truncated to 20 bytes), NTPv3
#       (SHA256 whole), a MAC after an extension field (RFC 7822); no answer
#       at all for an unknown key or a wrong MAC (as chronyd 4.3: no
#       crypto-NAK); a plain request still answered plainly
#   SIGHUP: a broken key file keeps the old keys, a changed one takes over
#   a world-readable key file is refused at start
#
# chronyd runs only with -Q or -x, as in server_clients.sh: private config,
# pidfile and command socket in a temp dir, killed on exit; all on 127.0.0.1.
set -u
B=$(cd "${1:?usage: server_keys.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: server_keys.sh BUILD_DIR SOURCE_DIR}" && pwd)
D=$B/leapclockd
L=$B/leapclock
PY=$S/tests/progs/ntp_keyed.py
LEAPFILE=$S/tests/data/leap-seconds.list.tzdata2026f
fail=0

ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

if [ ! -x "$D" ] || [ ! -x "$L" ]; then
  echo "skip server_keys: leapclockd or leapclock not built in $B"; exit 77
fi
if ! command -v chronyd >/dev/null || ! command -v chronyc >/dev/null; then
  echo "skip server_keys: needs Debian package chrony (chronyd, chronyc)"; exit 77
fi
if ! command -v python3 >/dev/null; then
  echo "skip server_keys: needs Debian package python3"; exit 77
fi

. "$(dirname "$0")/progs/tmp_lib.sh"
lc_test_tmp server-keys

near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < t) }'; }

K_MD5=6c656170636c6f636b2d6d64352d6b6579        # "leapclock-md5-key"
K_SHA1=0102030405060708090a0b0c0d0e0f1011121314
K_SHA256=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff
K_AES128=2b7e151628aed2a6abf7158809cf4f3c
K_AES256=603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4
K_WRONG=ffeeddccbbaa99887766554433221100ffeeddcc

# the server's keys: one of each type, key 1 in ASCII as chrony allows
cat >"$T/server.keys" <<EOF
# leapclockd's keys: ID TYPE KEY
1 MD5 ASCII:leapclock-md5-key
2 SHA1 HEX:$K_SHA1
3 SHA256 HEX:$K_SHA256
  4 AES128 HEX:$K_AES128
5 AES256 HEX:$K_AES256
6 SHA1 HEX:$K_SHA1
EOF
chmod 600 "$T/server.keys"
# the client's: the same, key 6 with another secret, key 7 unknown to the server
cat >"$T/client.keys" <<EOF
1 MD5 HEX:$K_MD5
2 SHA1 HEX:$K_SHA1
3 SHA256 HEX:$K_SHA256
4 AES128 HEX:$K_AES128
5 AES256 HEX:$K_AES256
6 SHA1 HEX:$K_WRONG
7 SHA1 HEX:$K_SHA1
EOF
chmod 600 "$T/client.keys"

P=$((20000 + RANDOM % 20000))
PR=$((P + 1)); PT=$((P + 2))

"$D" -d --no-timeline --stats-file none --leapfile "$LEAPFILE" \
  --listen "127.0.0.1:$P=utc" --keyfile "$T/server.keys" --ratelimit off \
  2>"$T/server.log" &
spid=$!
pids+=($spid)
up=0
for _ in $(seq 50); do
  "$L" server-stats --query "127.0.0.1:$P" >/dev/null 2>&1 && { up=1; break; }
  kill -0 $spid 2>/dev/null || break
  sleep 0.1
done
if [ $up = 0 ]; then
  if grep -q "built without" "$T/server.log"; then
    echo "skip server_keys: leapclockd built without GnuTLS (Debian package libgnutls28-dev)"
    exit 77
  fi
  echo "FAIL leapclockd with a key file did not come up:"; sed 's/^/  | /' "$T/server.log"
  exit 1
fi
if grep -q "keyfile $T/server.keys: 6 keys" "$T/server.log"; then
  ok "leapclockd loads 6 keys (ASCII:, HEX:, a leading blank, a comment)"
else
  bad "leapclockd's log does not say 6 keys:"; sed 's/^/  | /' "$T/server.log"
fi

# chrony_q PORT KEY: "System clock wrong by X seconds" from chronyd -Q with
# key KEY; X printed, or nothing when chronyd got no valid reply in 6 s
chrony_q() {
  local port=$1 key=$2 conf=$T/chrony-q-$1-$2.conf
  cat >"$conf" <<EOF
server 127.0.0.1 port $port iburst minpoll 0 maxpoll 0 key $key
keyfile $T/client.keys
pidfile $T/chrony-q-$port-$key.pid
cmdport 0
bindcmdaddress $T/chrony-q-$port-$key.sock
EOF
  timeout 20 chronyd -Q -t 6 -u root -f "$conf" 2>&1 |
    sed -n 's/.*System clock wrong by \([-+0-9.e]*\) seconds.*/\1/p' | tail -1
}

for kt in 1:MD5 2:SHA1 3:SHA256 4:AES128 5:AES256; do
  k=${kt%%:*} t=${kt#*:} best=""
  for _ in 1 2 3; do
    x=$(chrony_q "$P" "$k")
    [ -n "$x" ] || continue
    best=$x
    near "$x" 0 0.001 && break
  done
  if [ -n "$best" ] && near "$best" 0 0.001; then
    ok "chronyd -Q key $k ($t): offset $best s, under 1 ms"
  else
    bad "chronyd -Q key $k ($t): offset '$best' (want |x| < 0.001)"
  fi
done

x=$(chrony_q "$P" 6)
if [ -z "$x" ]; then ok "chronyd -Q, key 6 with a wrong secret: no valid reply"
else bad "chronyd -Q, key 6 with a wrong secret: took offset $x"; fi
x=$(chrony_q "$P" 7)
if [ -z "$x" ]; then ok "chronyd -Q, key 7 unknown to the server: no valid reply"
else bad "chronyd -Q, key 7 unknown to the server: took offset $x"; fi

# a relay in the middle: honest first (the relay works), then tampering
python3 "$PY" relay "$PR" "$P" 0 2>/dev/null &
pids+=($!)
python3 "$PY" relay "$PT" "$P" 1 2>/dev/null &
pids+=($!)
sleep 0.5
x=$(chrony_q "$PR" 2)
if [ -n "$x" ]; then ok "chronyd -Q key 2 through an honest relay: offset $x s"
else bad "chronyd -Q key 2 through an honest relay: no offset"; fi
x=$(chrony_q "$PT" 2)
if [ -z "$x" ]; then ok "chronyd -Q key 2, one bit of the reply's transmit time flipped: rejected"
else bad "chronyd -Q key 2 took a tampered reply (offset $x)"; fi

# the raw protocol, MACs checked by python3's hashlib
q() { python3 "$PY" query "$P" "$@"; }
expect() { # WHAT WANT GOT
  if [ "$3" = "$2" ]; then ok "$1: $3"; else bad "$1: got '$3', want '$2'"; fi
}
expect "NTPv4 MD5 key 1" "reply 68 4 1 MAC-ok ORIGIN-ok" "$(q 4 1 MD5 "$K_MD5")"
expect "NTPv4 SHA256 key 3, MAC truncated to 20 bytes" "reply 72 4 3 MAC-ok ORIGIN-ok" \
  "$(q 4 3 SHA256 "$K_SHA256")"
expect "NTPv3 SHA256 key 3, whole 32-byte MAC" "reply 84 3 3 MAC-ok ORIGIN-ok" \
  "$(q 3 3 SHA256 "$K_SHA256")"
expect "NTPv4 SHA1 key 2 after an extension field (RFC 7822)" "reply 72 4 2 MAC-ok ORIGIN-ok" \
  "$(q 4 2 SHA1 "$K_SHA1" 1)"
expect "NTPv4 key 99 unknown: no answer, no crypto-NAK" "noreply" "$(q 4 99 SHA1 "$K_SHA1")"
expect "NTPv4 SHA1 key 2, one MAC bit wrong: no answer" "noreply" "$(q 4 2 SHA1 "$K_SHA1" 0 1)"
expect "plain request: plain answer" "plain 48 ORIGIN-ok" "$(q 4 0 none 00)"

# chronyd -x, AES128: selected, and chronyc says authenticated
cat >"$T/chrony-x.conf" <<EOF
server 127.0.0.1 port $P iburst minpoll 0 maxpoll 1 key 4
keyfile $T/client.keys
pidfile $T/chrony-x.pid
cmdport 0
bindcmdaddress $T/chrony-x.sock
EOF
chronyd -x -n -u root -f "$T/chrony-x.conf" >"$T/chrony-x.log" 2>&1 &
pids+=($!)
selected=0
for _ in $(seq 40); do
  sleep 1
  src=$(chronyc -h "$T/chrony-x.sock" -n sources 2>/dev/null)
  if echo "$src" | grep -q "^\^\* 127.0.0.1"; then selected=1; break; fi
done
nd=$(chronyc -h "$T/chrony-x.sock" -n ntpdata 127.0.0.1 2>/dev/null)
ad=$(chronyc -h "$T/chrony-x.sock" -n authdata 2>/dev/null)
if [ $selected = 1 ]; then ok "chronyd -x key 4 (AES128) selects leapclockd (^*)"
else bad "chronyd -x key 4: not selected"; echo "$src" | sed 's/^/  | /'; fi
if echo "$nd" | grep -Eq "^Authenticated *: Yes"; then
  ok "chronyc ntpdata: Authenticated : Yes"
else
  bad "chronyc ntpdata does not say authenticated"; echo "$nd" | sed 's/^/  | /'
fi
# chronyc 4.3 prints mode SK (symmetric key), the key id, the type as a
# number and the key's length in bits
if echo "$ad" | grep -Eq "^127\.0\.0\.1 +SK +4 +[0-9A-Z]+ +128 "; then
  ok "chronyc authdata: $(echo "$ad" | grep '^127.0.0.1' | awk '{print $1, $2, "key", $3, $5, "bits"}')"
else
  bad "chronyc authdata"; echo "$ad" | sed 's/^/  | /'
fi

# SIGHUP: a broken file changes nothing, a good one takes over
cp "$T/server.keys" "$T/server.keys.good"
printf '1 MD5 ASCII:leapclock-md5-key\n2 SHA2 HEX:%s\n' "$K_SHA1" >"$T/server.keys"
kill -HUP $spid
sleep 0.5
if grep -q "server.keys:2: field 2 (type): unknown type 'SHA2'" "$T/server.log" &&
   grep -q "not reloaded, the 6 keys in use stay" "$T/server.log"; then
  ok "SIGHUP, broken file: error names file, line 2, field 2 (type); 6 keys stay"
else
  bad "SIGHUP with a broken file: log"; tail -3 "$T/server.log" | sed 's/^/  | /'
fi
expect "after the broken reload, key 3 still" "reply 72 4 3 MAC-ok ORIGIN-ok" \
  "$(q 4 3 SHA256 "$K_SHA256")"
printf '1 SHA1 HEX:%s\n' "$K_WRONG" >"$T/server.keys"
kill -HUP $spid
sleep 0.5
expect "after reloading a new file, key 1's new secret" "reply 72 4 1 MAC-ok ORIGIN-ok" \
  "$(q 4 1 SHA1 "$K_WRONG")"
expect "after reloading a new file, key 3 is gone" "noreply" "$(q 4 3 SHA256 "$K_SHA256")"

# a world-readable key file is refused
cp "$T/server.keys.good" "$T/open.keys"
chmod 644 "$T/open.keys"
if timeout 10 "$D" -d --no-timeline --stats-file none --leapfile "$LEAPFILE" \
     --listen "127.0.0.1:$((P + 3))=utc" --keyfile "$T/open.keys" 2>"$T/open.log"; then
  bad "leapclockd started with a world-readable key file"
elif grep -q "mode 0644 lets others read" "$T/open.log"; then
  ok "a key file of mode 0644 is refused: $(grep -o 'mode 0644.*' "$T/open.log")"
else
  bad "world-readable key file: log"; sed 's/^/  | /' "$T/open.log"
fi
exit $fail
