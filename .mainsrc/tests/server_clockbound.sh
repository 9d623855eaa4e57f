#!/usr/bin/env bash
# server_clockbound.sh BUILD_DIR SOURCE_DIR - leapclockd --clockbound PATH
# (issue 23 item 3): the error bound in AWS ClockBound's shared memory
# layout, read back by tests/progs/clockbound_read.c, a client written from
# ClockBound's protocol text alone (not from the writer):
#  - the segment: magic, version 2, 80 bytes, an even generation that
#    moves with each update, status and bound agreeing with
#    `leapclock status --json` on the daemon's page (the ClockBound bound
#    is at least leapclock's: it adds how far the host is from it);
#  - the interval a ClockBound client computes overlaps leapclock's UTC
#    read just before and just after it;
#  - a stopped writer: the client's interval widens with the drift, and
#    after the void-after it is void;
#  - the config directive `clockbound PATH` does the same as the option;
#    --clockbound with --pretend is refused (exit 2), nothing created;
#  - leapclock now --bounds on the page: every clock's earliest <= now <=
#    latest, monotonic_raw unknown, status as the page's.
# Hermetic: the daemon's page in the test's folder, LEAPCLOCK_TIMELINE
# names it, LEAPCLOCK_LEAPFILE from tests/data; no NTP socket.
set -u
B=$(cd "${1:?usage: server_clockbound.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: server_clockbound.sh BUILD_DIR SOURCE_DIR}" && pwd)
D=$B/leapclockd
L=$B/leapclock
R=$B/lc_clockbound_read
if [ ! -x "$D" ] || [ ! -x "$L" ] || [ ! -x "$R" ]; then
  echo "skip server_clockbound: leapclockd, leapclock or lc_clockbound_read not built"; exit 77
fi
if ! command -v python3 >/dev/null; then
  echo "skip server_clockbound: needs Debian package python3"; exit 77
fi
fails=0
. "$S/tests/progs/check_lib.sh"
. "$S/tests/progs/tmp_lib.sh"
lc_test_tmp clockbound
export LEAPCLOCK_LEAPFILE=$S/tests/data/leap-seconds.list.tzdata2026f
export LEAPCLOCK_TIMELINE=$T/page

field() { sed -n "s/.* $1=\([-0-9]*\).*/\1/p" <<<"$2"; }

"$D" -d --timeline "$T/page" --stats-file none --clockbound "$T/shm0" 2>"$T/d.log" &
dpid=$!
pids+=($dpid)
for _ in $(seq 50); do [ -s "$T/shm0" ] && [ -s "$T/page" ] && break; sleep 0.1; done
sleep 0.6 # a few updates

r1=$("$R" "$T/shm0"); rc=$?
expect_rc "the ClockBound client reads the segment" 0 $rc
expect_line "magic, version 2, 80 bytes, even generation, not void" \
  '^ok status=[12] .* void=0 .* size=80 disruption_support=0$' "$r1"
g1=$(field gen "$r1")
sleep 0.6
r2=$("$R" "$T/shm0")
g2=$(field gen "$r2")
if [ -n "$g1" ] && [ -n "$g2" ] && [ "$g2" != "$g1" ] && [ $((g2 % 2)) -eq 0 ]; then
  ok "the generation moves with the updates ($g1 -> $g2), even"
else
  bad "generation $g1 -> $g2"
fi

# the page's view: status and bound
st=$("$L" status --json)
python3 - "$st" "$r2" <<'PY' && ok "status and bound agree with leapclock status (ClockBound's >= leapclock's)" || bad "status/bound disagree: $r2 / $(python3 -c 'import json,sys; print(json.loads(sys.argv[1]).get("bounds"))' "$st")"
import json, sys, re
b = json.loads(sys.argv[1])["bounds"]
f = dict(re.findall(r"(\w+)=(-?\d+)", sys.argv[2]))
want = {"synchronised": 1, "free-running": 2}.get(b["status"], 0)
ok = int(f["status"]) == want and int(f["bound_ns"]) >= b["error_ns"] - 300000000 and int(f["drift_ppb"]) >= 15000
sys.exit(0 if ok else 1)
PY

# a ClockBound client's interval overlaps leapclock's UTC around it
a=$("$L" now --json)
r3=$("$R" "$T/shm0")
z=$("$L" now --json)
python3 - "$a" "$r3" "$z" <<'PY' && ok "the client's [earliest, latest] overlaps leapclock's UTC read before and after it" || bad "interval: $r3"
import json, sys, re
a, z = json.loads(sys.argv[1])["realtime"], json.loads(sys.argv[3])["realtime"]
f = dict(re.findall(r"(\w+)=(-?\d+)", sys.argv[2]))
ta = a["sec"] * 10**9 + a["nsec"]; tz = z["sec"] * 10**9 + z["nsec"]
sys.exit(0 if int(f["earliest_ns"]) <= tz and ta <= int(f["latest_ns"]) else 1)
PY

# leapclock now --bounds on the page
nb=$("$L" now --bounds --json)
python3 - "$nb" <<'PY' && ok "now --bounds: earliest <= now <= latest on every clock, monotonic_raw unknown" || bad "now --bounds: $nb"
import json, sys
d = json.loads(sys.argv[1])
key = lambda t: (t["sec"], t["nsec"])
for c in ["monotonic_raw", "monotonic", "boottime", "tai", "realtime", "utc", "utc_sls"]:
    m = d[c]
    assert key(m["earliest"]) <= key(m) <= key(m["latest"]), c
    assert m["status"] in ("synchronised", "free-running", "unknown"), c
    assert m["error_ns"] >= 0
assert d["monotonic_raw"]["status"] == "unknown"
assert d["utc"]["status"] != "unknown"
PY
txt=$("$L" now --bounds)
expect_line "now --bounds text: a bounds line per clock" '^utc +\[[0-9]+\.[0-9]{9}, [0-9]+\.[0-9]{9}\]  \+-[0-9.]+ s  (synchronised|free-running)$' "$txt"
stt=$("$L" status)
expect_line "status: a bounds line" '^bounds +UTC \+-[0-9.]+ s, (synchronised|free-running), growing [0-9.]+ ppm$' "$stt"

# a stopped writer: wider, then void
kill -STOP $dpid
sleep 1.5
r4=$("$R" "$T/shm0")
b3=$(( $(field latest_ns "$r3") - $(field earliest_ns "$r3") ))
b4=$(( $(field latest_ns "$r4") - $(field earliest_ns "$r4") ))
if [ "$b4" -gt "$b3" ]; then ok "a stopped writer: the client's interval widens ($b3 -> $b4 ns)"; else bad "not wider: $b3 -> $b4"; fi
v=$(field void_in_ns "$r4")
sleep $(( v / 1000000000 + 1 ))
r5=$("$R" "$T/shm0")
expect_line "past void-after the client finds the bound void" ' void=1 ' "$r5"
kill -CONT $dpid
kill $dpid; wait $dpid 2>/dev/null

# the config directive
printf 'clockbound %s\n' "$T/shm1" >"$T/conf"
"$D" -d -c "$T/conf" --timeline "$T/page2" --stats-file none 2>"$T/d2.log" &
d2=$!
pids+=($d2)
for _ in $(seq 50); do [ -s "$T/shm1" ] && break; sleep 0.1; done
r6=$("$R" "$T/shm1" 2>&1)
expect_line "config 'clockbound PATH': the segment is published" '^ok status=[12] .* void=0 ' "$r6"
kill $d2; wait $d2 2>/dev/null

# refused with --pretend, nothing created
"$D" -d --pretend 2016-12-31T23:59:00Z --timeline "$T/page3" --stats-file none \
  --clockbound "$T/shm2" 2>"$T/d3.log" </dev/null
rc=$?
expect_rc "--clockbound with --pretend is refused" 2 $rc
expect_line "... saying why" 'clockbound bounds the host' "$(cat "$T/d3.log")"
[ ! -e "$T/shm2" ] && ok "... and creates nothing" || bad "$T/shm2 was created"

echo "server_clockbound.sh: $fails failed"
[ "$fails" -eq 0 ]
