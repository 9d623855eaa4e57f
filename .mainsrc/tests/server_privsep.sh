#!/usr/bin/env bash
# server_privsep.sh BUILD_DIR SOURCE_DIR - leapclockd in two processes
# (issue 25 item 1, leapclockd(8) PROCESSES): the server process holds no
# writable mapping of the timeline page (the writer does), has
# no_new_privs and a seccomp filter, and, started as root with --user
# nobody, is not root; killed (-9) under a bounded load of NTP queries it
# is started again and answers resume within 3 s, while a reader of the
# page sees no step; with the writer killed (-9) the server answers on,
# its root dispersion growing, and says so; with --no-timeline the
# server (its own timekeeper) answers, confined. Hermetic: the page in the
# test's temp dir, loopback ports, the leap file from tests/data. Root-only
# checks skip with a message when not root. Needs python3 and cc.
set -u
B=$(cd "${1:?usage: server_privsep.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: server_privsep.sh BUILD_DIR SOURCE_DIR}" && pwd)
D=$B/leapclockd
if [ ! -x "$D" ]; then
  echo "skip server_privsep: leapclockd not built"; exit 77
fi
if ! command -v python3 >/dev/null; then
  echo "skip server_privsep: no python3 (Debian package python3)"; exit 77
fi
. "$(dirname "$0")/progs/tmp_lib.sh"
lc_test_tmp server-privsep
chmod 755 "$T" # the server's user passes through to its stats folder
export LEAPCLOCK_TIMELINE=$T/page LEAPCLOCK_LEAPFILE=$S/tests/data/leap-seconds.list.tzdata2026f
P=$((20000 + RANDOM % 20000))
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }

cc=${CC:-cc}
sanflags=
san=$(sed -n 's/^LC_SANITIZE:[A-Z]*=//p' "$B/CMakeCache.txt")
if [ -n "$san" ]; then
  sanflags=-fsanitize=$san
  cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$B/CMakeCache.txt")
  export ASAN_OPTIONS=detect_leaks=0
fi
"$cc" -O2 $sanflags -I"$S/include" -o "$T/rd" "$S/tests/progs/timeline_reader.c" \
  "$B/libleapclock.a" -lm -pthread || { echo "FAIL cannot build timeline_reader"; exit 1; }

mkdir "$T/run"
user=()
if [ "$(id -u)" = 0 ]; then
  chown nobody "$T/run"
  user=(--user nobody)
fi
"$D" -d --timeline "$T/page" --listen "127.0.0.1:$P=utc" --threads 2 \
  --ratelimit off --stats-file "$T/run/stats" "${user[@]}" >"$T/d.log" 2>&1 &
W=$!
pids+=("$W")
for _ in $(seq 100); do grep -q "running (pid $W)" "$T/d.log" && break; sleep 0.05; done
server_pid() { pgrep -P "$W" -x leapclockd | head -1; }
SP=$(server_pid)
if [ -z "$SP" ]; then
  echo "FAIL no server process under the writer $W:"; sed 's/^/  | /' "$T/d.log"; exit 1
fi
pids+=("$SP")
echo "writer $W, server $SP"

# -- the page's mappings: rw in the writer (the check can fail), none in
# the server
smaps=$(grep -E 'leapclock-timeline|'"$T/page" "/proc/$SP/maps")
if [ "$(id -u)" = 0 ]; then
  wmaps=$(grep -E 'leapclock-timeline|'"$T/page" "/proc/$W/maps")
  if echo "$wmaps" | awk '{print $2}' | grep -q w; then ok "the writer maps the page writable"; else bad "the writer's mapping: $wmaps"; fi
elif ! cat "/proc/$W/maps" >/dev/null 2>&1; then
  ok "the writer's maps are closed to its own user (not dumpable)"
else
  bad "the writer is dumpable: its own user can read its memory"
fi
if [ -n "$smaps" ] && ! echo "$smaps" | awk '{print $2}' | grep -q w; then
  ok "the server maps the page, read-only ($(echo "$smaps" | awk '{print $2; exit}'))"
else
  bad "the server's mappings of the page: '$smaps'"
fi
st() { sed -n "s/^$1:[[:space:]]*//p" "/proc/$SP/status"; }
if [ "$(st NoNewPrivs)" = 1 ]; then ok "server NoNewPrivs 1"; else bad "server NoNewPrivs $(st NoNewPrivs)"; fi
if [ -n "$san" ]; then
  echo "skip seccomp: a sanitizer build has no filter (its runtime needs ptrace)"
elif ! grep -q '^SECCOMP_FOUND:INTERNAL=1' "$B/CMakeCache.txt"; then
  echo "skip seccomp: built without libseccomp (Debian libseccomp-dev)"
elif [ "$(st Seccomp)" = 2 ]; then
  ok "server Seccomp 2 (filter)"
else
  bad "server Seccomp $(st Seccomp)"
fi
if [ "$(id -u)" = 0 ]; then
  su=$(st Uid | awk '{print $1, $2, $3, $4}')
  if [ "$su" = "65534 65534 65534 65534" ]; then ok "server uid nobody ($su)"; else bad "server uids $su"; fi
  if [ "$(sed -n 's/^Uid:[[:space:]]*//p' "/proc/$W/status" | awk '{print $2}')" = 0 ]; then
    ok "the writer stays root"; else bad "writer uid"; fi
else
  echo "skip uid checks: not root"
fi
lc_wait_answers "$B/leapclock" "127.0.0.1:$P" d || bad "no answer"

# -- kill -9 the server under load; a reader of the page meanwhile
"$T/rd" read 500 10000 >"$T/reader1" 2>"$T/reader1.err" &
R=$!
pids+=("$R")
python3 "$S/tests/progs/ntp_probe.py" "$P" 400 10000 >"$T/probe1" &
Q=$!
pids+=("$Q")
sleep 1
kill -9 "$SP"
t_kill=$(python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))')
wait "$Q"
wait "$R"
NSP=
for _ in $(seq 60); do
  NSP=$(server_pid)
  [ -n "$NSP" ] && [ "$NSP" != "$SP" ] && break
  sleep 0.1
done
if [ -n "$NSP" ] && [ "$NSP" != "$SP" ]; then
  ok "a new server process ($NSP) after kill -9 $SP"
  pids+=("$NSP")
else
  bad "no new server process after kill -9 $SP"
fi
grep -q "server process started again" "$T/d.log" && ok "the writer says it restarted it" || bad "no restart line"
python3 - "$T/probe1" "$t_kill" <<'PY' && ok "answers resumed within 3 s of the kill" || bad "answers after the kill"
import sys
rows = [list(map(int, l.split())) for l in open(sys.argv[1]) if l.strip()]
kill = int(sys.argv[2])
after = [r for r in rows if r[0] > kill]
before = [r for r in rows if r[2] < kill]
print("  %d answers before the kill, %d after" % (len(before), len(after)))
if len(before) < 20 or len(after) < 20:
    sys.exit(1)
gap = (after[0][2] - kill) / 1e9
print("  first answer %.3f s after the kill" % gap)
# the served time stays the same clock: no step between answers
steps = [abs((b[1] - a[1]) - (b[2] - a[2])) for a, b in zip(rows, rows[1:])]
print("  largest served-vs-monotonic step between answers %.3f ms" % (max(steps) / 1e6))
sys.exit(0 if gap < 3 and max(steps) < 50e6 else 1)
PY
python3 - "$T/reader1" <<'PY' && ok "the page's reader saw no step (TAI against MONOTONIC)" || bad "the page's timeline stepped"
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
# "mono_before clock_ns mono_after" per clock; TAI is the last triple
vals = []
for r in rows:
    n = [int(x) for x in r if x.lstrip("-").isdigit()]
    a, v, b = n[-3], n[-2], n[-1]
    vals.append(v - (a + b) // 2)
if len(vals) < 100:
    print("  %d readings" % len(vals)); sys.exit(1)
spread = (max(vals) - min(vals)) / 1e6
print("  %d readings, TAI - MONOTONIC spread %.3f ms" % (len(vals), spread))
sys.exit(0 if spread < 5 else 1)
PY

# -- kill -9 the writer: the server answers on, its dispersion growing
SP=$(server_pid)
disp() { python3 - "$P" <<'PY'
import socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(0.5)
pkt = bytearray(48); pkt[0] = (4 << 3) | 3
for _ in range(5):
    s.sendto(bytes(pkt), ("127.0.0.1", int(sys.argv[1])))
    try:
        d, _ = s.recvfrom(512)
    except socket.timeout:
        continue
    print(struct.unpack("!I", d[8:12])[0] * 1e6 / 65536); sys.exit(0)
print(-1)
PY
}
d0=$(disp)
kill -9 "$W"
wait "$W" 2>/dev/null
sleep 2.5
d1=$(disp)
python3 "$S/tests/progs/ntp_probe.py" "$P" 100 10000 >"$T/probe2"
n2=$(grep -c . "$T/probe2")
if [ "$n2" -ge 90 ]; then ok "after kill -9 of the writer the server answered $n2 of 100"; else bad "after the writer's death: $n2 of 100 answers"; fi
if python3 -c "import sys; a, b = float('$d0'), float('$d1'); sys.exit(0 if a >= 0 and b > a + 10 else 1)"; then
  ok "root dispersion grew: $d0 us -> $d1 us"
else
  bad "root dispersion $d0 us -> $d1 us"
fi
grep -q "writer process is gone" "$T/d.log" && ok "the server says the writer is gone" || bad "no line about the writer"
kill "$SP" 2>/dev/null
for _ in $(seq 50); do kill -0 "$SP" 2>/dev/null || break; sleep 0.1; done
kill -0 "$SP" 2>/dev/null && bad "the orphaned server did not stop on SIGTERM" || ok "the orphaned server stops on SIGTERM"

# -- --no-timeline: no page; the server runs its own timekeeper, confined
P2=$((P + 1))
"$D" -d --no-timeline --listen "127.0.0.1:$P2=utc" --ratelimit off --stats-file none \
  "${user[@]}" >"$T/n.log" 2>&1 &
W=$!
pids+=("$W")
for _ in $(seq 100); do grep -q "running (pid $W)" "$T/n.log" && break; sleep 0.05; done
SP=$(server_pid)
[ -n "$SP" ] && pids+=("$SP")
n3=$(python3 "$S/tests/progs/ntp_probe.py" "$P2" 20 10000 | grep -c .)
if [ -n "$SP" ] && [ "$n3" -ge 18 ] && [ "$(st NoNewPrivs)" = 1 ] &&
   { [ -n "$san" ] || ! grep -q '^SECCOMP_FOUND:INTERNAL=1' "$B/CMakeCache.txt" || [ "$(st Seccomp)" = 2 ]; }; then
  ok "--no-timeline: the server process ($SP) answers $n3 of 20, confined"
else
  bad "--no-timeline: server '$SP', $n3 of 20 answers"; sed 's/^/  | /' "$T/n.log"
fi
kill "$W"; wait "$W" 2>/dev/null
kill -0 "$SP" 2>/dev/null && bad "--no-timeline: the server outlived SIGTERM to the writer" ||
  ok "--no-timeline: SIGTERM to the writer stops both"

if [ "$fails" -ne 0 ]; then
  echo "server_privsep: $fails FAILED"; sed 's/^/  | /' "$T/d.log"; exit 1
fi
echo "server_privsep: all passed"
