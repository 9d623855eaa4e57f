#!/usr/bin/env bash
# server_stats.sh BUILD_DIR SOURCE_DIR - `leapclock server-stats` against a
# live and a dead leapclockd (issue 12 item 17): a stats file whose daemon is
# gone is reported stale with a non-zero exit, a daemon that stops removes
# its file, the per-mode subtotals cover every mode, and --query honours
# kiss-o'-death (RATE: back off; DENY/RSTR: stop; no offsets for a kiss)
# with an --interval between requests.
set -u
B=$(cd "${1:?usage: server_stats.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: server_stats.sh BUILD_DIR SOURCE_DIR}" && pwd)
D=$B/leapclockd
L=$B/leapclock
if [ ! -x "$D" ] || [ ! -x "$L" ]; then
  echo "skip server_stats: leapclockd or leapclock not built"; exit 77
fi
. "$(dirname "$0")/progs/tmp_lib.sh"
lc_test_tmp server-stats
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
P=$((20000 + RANDOM % 20000))
LF=$S/tests/data/leap-seconds.list.tzdata2026f

up() {
  local name=$1 addr=$2
  shift 2
  "$D" -d --no-timeline --leapfile "$LF" --stats-file "$T/$name.stats" "$@" 2>"$T/$name.log" &
  pids+=($!)
  lc_wait_answers "$L" "$addr" "$name" || { bad "leapclockd $name did not answer on $addr"; return 1; }
}

# ---- subtotals for every mode, a total; the file removed at a clean stop
if up modes "127.0.0.1:$P" --listen "127.0.0.1:$P=utc" --listen "127.0.0.1:$((P + 1))=utc" \
     --listen "127.0.0.1:$((P + 2))=smear:google" --ratelimit off; then
  "$L" server-stats --query "127.0.0.1:$((P + 1))" --count 2 --interval 0 >/dev/null
  "$L" server-stats --query "127.0.0.1:$((P + 2))" --count 3 --interval 0 >/dev/null
  kill -USR1 "${pids[-1]}"; sleep 0.5
  out=$("$L" server-stats --file "$T/modes.stats"); rc=$?
  echo "$out" | sed 's/^/  | /'
  # requests: utc 1 (up's probe) + 2, smear:google 3, all 6
  if [ $rc = 0 ] &&
     echo "$out" | grep -Eq '^\(mode subtotal\) +utc +3 +3 +3 ' &&
     echo "$out" | grep -Eq '^\(mode subtotal\) +smear:google +3 +3 +3 ' &&
     echo "$out" | grep -Eq '^\(total\) +all +6 +6 +6 '; then
    ok "a subtotal for every mode (utc 3, smear:google 3) and the total 6, exit 0"
  else
    bad "subtotals (exit $rc)"
  fi
  j=$("$L" server-stats --file "$T/modes.stats" --json)
  echo "$j" | grep -q '"running":true' &&
    echo "$j" | grep -q '"modes":\[{"mode":"utc","addresses":2,"received":3' &&
    echo "$j" | grep -q '"total":{"received":6' &&
    ok "--json: running, modes and total" || bad "--json: $j"
  # one type per field (issue 16): the refid a "0x%08x" string as in
  # --query --json (it was an integer here), pretend null when not
  # pretending (it was "-")
  if python3 -c '
import json, re, sys
d = json.loads(sys.argv[1])
assert d["pretend"] is None, d["pretend"]
for r in d["listen"]:
    assert isinstance(r["refid"], str) and re.fullmatch("0x[0-9a-f]{8}", r["refid"]), r["refid"]
    assert isinstance(r["li"], int)
' "$j"; then ok "--json: refid a hex string, pretend null"; else bad "--json types: $j"; fi
  kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null; unset 'pids[-1]'
  [ ! -e "$T/modes.stats" ] && ok "a stopped leapclockd removes its stats file" ||
    bad "stats file left after SIGTERM"
  "$L" server-stats --file "$T/modes.stats" >/dev/null 2>&1; rc=$?
  [ $rc != 0 ] && ok "no stats file: exit $rc" || bad "no stats file: exit 0"
fi

# ---- a dead daemon's file (SIGKILL leaves it): stale, exit 1
if up dead "127.0.0.1:$P" --listen "127.0.0.1:$P=utc"; then
  sleep 1.2
  # the whole daemon: its writer and its server process (a server whose
  # writer alone dies serves on: leapclockd(8) PROCESSES)
  sp=$(pgrep -P "${pids[-1]}" -x leapclockd)
  kill -9 "${pids[-1]}" $sp; wait "${pids[-1]}" 2>/dev/null; dead=${pids[-1]}; unset 'pids[-1]'
  out=$("$L" server-stats --file "$T/dead.stats" 2>"$T/err"); rc=$?
  if [ $rc = 1 ] && grep -q "stale" "$T/err" && echo "$out" | grep -q "^STALE: leapclockd pid $dead is not running" &&
     ! echo "$out" | grep -q "^leapclockd pid"; then
    ok "a SIGKILLed daemon's file: stale, exit 1 ($(head -1 "$T/err"))"
  else
    bad "dead daemon's file: exit $rc: $out $(cat "$T/err")"
  fi
  j=$("$L" server-stats --file "$T/dead.stats" --json 2>/dev/null); rc=$?
  [ $rc = 1 ] && echo "$j" | grep -q '"running":false' && ok "--json: running false, exit 1" ||
    bad "--json of a dead daemon: exit $rc: $j"
  # the pid reused by another process (this shell's sleep): still stale,
  # through the process start time the file records
  sleep 30 & other=$!
  sed "s/^pid .*/pid $other/" "$T/dead.stats" >"$T/reused.stats"
  "$L" server-stats --file "$T/reused.stats" >/dev/null 2>"$T/err"; rc=$?
  kill $other 2>/dev/null; wait $other 2>/dev/null
  [ $rc = 1 ] && grep -q "another process" "$T/err" &&
    ok "a pid now another process's: stale" || bad "reused pid: exit $rc: $(cat "$T/err")"
fi

# ---- --query honours RATE: backs off (to the kiss's poll, 2^0 s here),
# ---- prints no offset for the kiss, and resumes
if up kod "127.0.0.1:$P" --listen "127.0.0.1:$P=utc" --ratelimit -2:4; then
  sleep 1.1 # the probe's token back
  t0=$(date +%s.%N)
  out=$("$L" server-stats --query "127.0.0.1:$P" --count 8 --interval 0 --json); rc=$?
  t1=$(date +%s.%N)
  nrep=$(echo "$out" | grep -c '"kiss":false')
  kiss=$(echo "$out" | grep '"kiss":true')
  nto=$(echo "$out" | grep -c '"timeout":true')
  took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  if [ "$nrep" = 7 ] && [ -n "$kiss" ] && [ "$nto" = 0 ] && [ $rc = 1 ] &&
     ! echo "$kiss" | grep -q offset_ns && echo "$kiss" | grep -q '"backoff_ns":1000000000' &&
     awk -v t="$took" 'BEGIN { exit !(t >= 0.9 && t < 6) }'; then
    ok "RATE: 4 answers, a kiss without an offset, 1 s back-off, 3 answers, no timeout ($took s, exit 1)"
  else
    bad "RATE back-off: $nrep answers, $nto timeouts, exit $rc, $took s:"; echo "$out" | sed 's/^/  | /'
  fi
  # --interval spaces the requests
  sleep 1.2
  t0=$(date +%s.%N)
  "$L" server-stats --query "127.0.0.1:$P" --count 3 --interval 0.3 >/dev/null; rc=$?
  t1=$(date +%s.%N)
  took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  [ $rc = 0 ] && awk -v t="$took" 'BEGIN { exit !(t >= 0.55 && t < 2) }' &&
    ok "--count 3 --interval 0.3: $took s" || bad "--interval 0.3: exit $rc, $took s"
  "$L" server-stats --query "127.0.0.1:$P" --interval -1 >/dev/null 2>&1; rc=$?
  [ $rc = 2 ] && ok "--interval -1: exit 2" || bad "--interval -1: exit $rc"
fi

# ---- DENY and RSTR stop the queries (a server that only kisses)
if command -v python3 >/dev/null; then
  for code in DENY RSTR; do
    Q=$((P + 10))
    python3 - "$Q" "$code" >"$T/py.log" 2>&1 <<'EOF' &
import socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.settimeout(20)
print("ready", flush=True)
for _ in range(20):
    try:
        data, addr = s.recvfrom(2048)
    except socket.timeout:
        break
    if len(data) < 48:
        continue
    tx = data[40:48]
    # LI 3, version 4, mode 4, stratum 0, poll 6; refid = the kiss code
    pkt = bytes([0xe4, 0, 6, 0]) + b"\0" * 8 + sys.argv[2].encode() + \
          b"\0" * 8 + tx + tx + tx
    s.sendto(pkt, addr)
EOF
    pids+=($!)
    for _ in $(seq 100); do grep -q ready "$T/py.log" && break; sleep 0.1; done
    t0=$(date +%s.%N)
    out=$("$L" server-stats --query "127.0.0.1:$Q" --count 5 --interval 0.2); rc=$?
    t1=$(date +%s.%N)
    took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    n=$(echo "$out" | grep -c "kiss-o'-death $code")
    if [ $rc = 1 ] && [ "$n" = 1 ] && echo "$out" | grep -q stopping && ! echo "$out" | grep -q offset &&
       [ "$(echo "$out" | wc -l)" = 1 ] && awk -v t="$took" 'BEGIN { exit !(t < 1) }'; then
      ok "$code: one request, 'stopping', exit 1 ($took s)"
    else
      bad "$code: exit $rc, $n kisses, $took s: $out"
    fi
    kill "${pids[-1]}" 2>/dev/null; wait "${pids[-1]}" 2>/dev/null; unset 'pids[-1]'
  done
else
  echo "skip DENY/RSTR: no python3"
fi
exit $fail
