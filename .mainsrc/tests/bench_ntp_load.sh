#!/usr/bin/env bash
# bench_ntp_load.sh BUILD_DIR SOURCE_DIR - the load generator of
# BENCHMARKS.md (bench/ntp_load.c) counts what it should, at a low rate
# against leapclockd on 127.0.0.1, so that its numbers can be trusted:
#
#   basic       every request answered: max_rate is the rate offered, with
#               latencies; --repeat N gives N steps at one rate and its
#               REPEAT line (p99all "inf" when every request is lost)
#   keyed       --key with the server's key: answered and signed; with a
#               wrong key: leapclockd drops them (no reply), max_rate 0
#   kisses      one client address and leapclockd's rate limit on: only
#               the burst counted as answered, the RATE kiss as a refusal
#   NTS         --nts against leapclockd's NTS-KE (the certificate checked):
#               every request answered with our Unique Identifier; with
#               another certificate as the CA, ntp_load refuses to run
#   floor       ntp_floor (bench/ntp_floor.c, run-load-bench's floor
#               contender) answers every request at 2000/s
#
# Needs ntp_load (cmake -DLC_BENCH=ON, the default); NTS also needs
# ntp_load and leapclockd built with GnuTLS (Debian package
# libgnutls28-dev) and certtool (gnutls-bin), and skips that part without.
set -u
B=$(cd "${1:?usage: bench_ntp_load.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: bench_ntp_load.sh BUILD_DIR SOURCE_DIR}" && pwd)
D=$B/leapclockd
G=$B/ntp_load
if [ ! -x "$G" ] || [ ! -x "$D" ]; then
  echo "skip bench_ntp_load: ntp_load or leapclockd not built (cmake -DLC_BENCH=ON)"
  exit 77
fi
. "$(dirname "$0")/progs/tmp_lib.sh"
lc_test_tmp bench-load
chmod 700 "$T"
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
LF=$S/tests/data/leap-seconds.list.tzdata2026f
P=$((20000 + RANDOM % 20000))
KEYHEX=0123456789abcdef0123456789abcdef01234567
echo "7 SHA1 HEX:$KEYHEX" >"$T/keys"
chmod 600 "$T/keys"

# up NAME PORT ARGS...: leapclockd on 127.0.0.1:PORT, once it answers
up() {
  local name=$1 port=$2
  shift 2
  "$D" -d --no-timeline --stats-file none --leapfile "$LF" \
    --listen "127.0.0.1:$port=utc" "$@" 2>"$T/$name.log" &
  pids+=($!)
  lc_wait_answers "$B/leapclock" "127.0.0.1:$port" "$name"
}
# load NAME PORT ARGS...: one 0.5 s step at 2000/s; its output in $T/NAME.out
load() {
  local name=$1 port=$2
  shift 2
  timeout 60 "$G" --threads 1 --sockets 2 --clients 100 --start 2000 \
    --max-rate 2000 --step 0.5 --drain 0.3 "$@" "127.0.0.1:$port" >"$T/$name.out" 2>&1
}
field() { sed -n "s/^RESULT.*$2=\([0-9.]*\).*/\1/p" "$T/$1.out"; }
step() { grep -E '^ +2000 ' "$T/$1.out" | head -1; }

up plain "$P" --ratelimit off --keyfile "$T/keys" || exit 1

load basic "$P"
rate=$(field basic max_rate); p50=$(field basic p50_us); p99=$(field basic p99_us)
if [ "$rate" = 2000 ] && awk -v a="$p50" -v b="$p99" 'BEGIN { exit !(a > 0 && b >= a && b < 1e6) }'; then
  ok "basic: every request answered at 2000/s, p50 $p50 us, p99 $p99 us"
else
  bad "basic: $(cat "$T/basic.out")"
fi

load keyed "$P" --key "7:$KEYHEX"
if [ "$(field keyed max_rate)" = 2000 ] && ! grep -q unsigned "$T/keyed.out"; then
  ok "keyed: every SHA1-signed request answered, signed"
else
  bad "keyed: $(cat "$T/keyed.out")"
fi

load wrongkey "$P" --key "7:${KEYHEX%????}ffff"
s=$(step wrongkey)
if [ "$(field wrongkey max_rate)" = 0 ] && [ "$(echo "$s" | awk '{ print $3 }')" = 0 ]; then
  ok "a wrong key: no answer counted (leapclockd drops a bad MAC): $s"
else
  bad "wrong key: $(cat "$T/wrongkey.out")"
fi

# --repeat: latency at one rate, lost requests counted as the latest
load rep "$P" --repeat 3 --step 0.3
load repbad "$P" --repeat 2 --step 0.3 --key "7:${KEYHEX%????}ffff"
r=$(grep '^REPEAT' "$T/rep.out"); rb=$(grep '^REPEAT' "$T/repbad.out")
if echo "$r" | grep -Eq '^REPEAT rate=2000 steps=3 over=0 loss_pct=0.000 p99_med_us=[0-9.]+ p99all_med_us=[0-9.]+$' &&
   [ "$(grep -cE '^ +2000 ' "$T/rep.out")" = 3 ] &&
   echo "$rb" | grep -Eq '^REPEAT rate=2000 steps=2 over=2 loss_pct=100.000 .* p99all_med_us=inf$'; then
  ok "--repeat: 3 steps at 2000/s ($r); every request lost: p99all inf"
else
  bad "--repeat: '$r' / '$rb'"
fi

up limited "$((P + 1))" --ratelimit 0:4 || exit 1
load kisses "$((P + 1))" --clients 1
kods=$(sed -n 's/^#   \([0-9]*\) refusing kiss.*/\1/p' "$T/kisses.out")
rps=$(step kisses | awk '{ print $3 }')
# a burst of 4 and one a second pass in 0.5 s; leapclockd kisses a client
# at most once per burst interval, and the kiss is no answer
if [ "$(field kisses max_rate)" = 0 ] && [ "${kods:-0}" -ge 1 ] && [ "${rps:-99}" -le 12 ]; then
  ok "one client over the rate limit: $rps answers/s counted (the burst), $kods RATE kiss(es) counted as refusals"
else
  bad "kisses: $(cat "$T/kisses.out")"
fi

# ---- the floor contender
if [ -x "$B/ntp_floor" ]; then
  FP=$((P + 4))
  "$B/ntp_floor" --threads 2 "127.0.0.1:$FP" 2>"$T/floor.log" &
  pids+=($!)
  # it answers plain client requests only (no server-stats): wait for one
  if python3 - "$FP" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(0.1)
p = bytearray(48); p[0] = 0x23; p[40:48] = b"origin!!"
end = time.monotonic() + 5
while time.monotonic() < end:
    s.sendto(bytes(p), ("127.0.0.1", int(sys.argv[1])))
    try:
        d, _ = s.recvfrom(512)
    except socket.timeout:
        continue
    sys.exit(0 if len(d) == 48 and d[0] & 7 == 4 and d[24:32] == p[40:48] else 1)
sys.exit(1)
PY
  then
    load floor "$FP"
    if [ "$(field floor max_rate)" = 2000 ]; then
      ok "floor: ntp_floor answered every request at 2000/s ($(step floor))"
    else
      bad "floor: $(cat "$T/floor.out")"
    fi
  else
    bad "floor: ntp_floor did not answer: $(cat "$T/floor.log")"
  fi
else
  bad "floor: no $B/ntp_floor (built with ntp_load, -DLC_BENCH=ON)"
fi

# ---- NTS
if ! "$G" --help 2>&1 | grep -q -- '--nts '; then
  echo "skip NTS: ntp_load built without GnuTLS (Debian package libgnutls28-dev)"
elif ! command -v certtool >/dev/null; then
  echo "skip NTS: needs certtool (Debian package gnutls-bin)"
else
  lc_make_cert "$T/keya.pem" "$T/certa.pem"
  lc_make_cert "$T/keyb.pem" "$T/certb.pem"
  KP=$((P + 3))
  if ! up nts "$((P + 2))" --ratelimit off --nts-cert "$T/certa.pem" --nts-key "$T/keya.pem" \
       --nts-listen "127.0.0.1:$KP" --nts-keydir "$T/ntskeys"; then
    bad "leapclockd with NTS did not start"
  elif grep -q "without GnuTLS" "$T/nts.log"; then
    echo "skip NTS: leapclockd built without GnuTLS"
  else
    load nts "$((P + 2))" --nts "127.0.0.1:$KP" --nts-ca "$T/certa.pem"
    if [ "$(field nts max_rate)" = 2000 ] && grep -q '8 cookies of 100 bytes' "$T/nts.out" &&
       ! grep -q unsigned "$T/nts.out"; then
      ok "NTS: 8 cookies from NTS-KE, every sealed request answered over NTS"
    else
      bad "NTS: $(cat "$T/nts.out")"
    fi
    if load ntsca "$((P + 2))" --nts "127.0.0.1:$KP" --nts-ca "$T/certb.pem"; then
      bad "NTS with another CA: ntp_load ran: $(cat "$T/ntsca.out")"
    else
      ok "NTS with another certificate as the CA: refused ($(grep -v '^#' "$T/ntsca.out" | head -1))"
    fi
  fi
fi
exit $fail
