#!/usr/bin/env bash
# server_privsep.sh BUILD_DIR SOURCE_DIR - leapclockd in two processes
# (issue 25 item 1, leapclockd(8) PROCESSES): the server process holds no
# writable mapping of the timeline page (the writer does), has
# no_new_privs and a seccomp filter, and, started as root with --user
# nobody, is not root; killed (-9) under a bounded load of NTP queries it
# is started again and answers resume within 3 s, while a reader of the
# page sees no step; with the writer killed (-9) the server answers on,
# its root dispersion growing, and says so; a writer started again takes
# the orphan's sockets over (the handover) with answers continuing, one
# set of sockets on the port, and the orphan gone; with --no-timeline the
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
mono() { python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))'; }
# under_load N READS QUERIES GAP_US: a reader of the page (READS, 10 ms
# apart) into $T/readerN, an NTP client (QUERIES, GAP_US apart) into
# $T/probeN, pids R and Q; returns once the client has 30 answers (at
# most 10 s) and 0.3 s more
under_load() {
  "$T/rd" read "$2" 10000 >"$T/reader$1" 2>"$T/reader$1.err" &
  R=$!
  pids+=("$R")
  python3 "$S/tests/progs/ntp_probe.py" "$P" "$3" "$4" >"$T/probe$1" &
  Q=$!
  pids+=("$Q")
  for _ in $(seq 200); do [ "$(grep -c . "$T/probe$1" 2>/dev/null)" -ge 30 ] && break; sleep 0.05; done
  sleep 0.3
}
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
PM=$((P + 2))
metrics=()
grep -q '^pkgcfg_lib_MHD_microhttpd:FILEPATH=/' "$B/CMakeCache.txt" && metrics=(--metrics "127.0.0.1:$PM")
"$D" -d --timeline "$T/page" --listen "127.0.0.1:$P=utc" --threads 2 \
  --ratelimit off --stats-file "$T/run/stats" "${metrics[@]}" "${user[@]}" >"$T/d.log" 2>&1 &
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
under_load 1 500 400 10000
kill -9 "$SP"
t_kill=$(mono)
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
# the served clock against the client's MONOTONIC: each answer puts
# served - MONOTONIC in [served - after, served - before]; with no step
# every such interval holds one offset (a late answer only widens its own)
step = max(r[1] - r[2] for r in rows) - min(r[1] - r[0] for r in rows)
print("  served clock against MONOTONIC: the answers' bounds miss each other by %.3f ms" % (step / 1e6))
sys.exit(0 if gap < 3 and step < 5e6 else 1)
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
# what clients and a page reader saw across an event at mono time $3:
# answers before/after, the longest wait between answers, queries lost;
# the reader's TAI - MONOTONIC spread and its slowest read
seen() { python3 - "$@" <<'PY'
import sys
probe, reader, t, sent, what = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rows = [list(map(int, l.split())) for l in open(probe) if l.strip()]
after = [r for r in rows if r[2] > t]
gaps = [b[2] - a[2] for a, b in zip(rows, rows[1:]) if b[2] > t]
gap = max(gaps) / 1e9 if gaps else -1
# no step: every answer's bound on served - MONOTONIC, [served - after,
# served - before], holds one offset (by how much they miss each other)
step = max(r[1] - r[2] for r in rows) - min(r[1] - r[0] for r in rows) if rows else -1
first = (after[0][2] - t) / 1e9 if after else -1
print("  %s, clients: %d answers of %d queries (%d lost), %d after it, first %.3f s after, "
      "longest wait between answers %.3f s, bounds miss each other by %.3f ms (a step)"
      % (what, len(rows), sent, sent - len(rows), len(after), first, gap,
         step / 1e6))
vals, lat = [], []
for l in open(reader):
    n = [int(x) for x in l.split() if x.lstrip("-").isdigit()]
    if len(n) < 4:
        continue
    a, v, b = n[-3], n[-2], n[-1]
    vals.append(v - (a + b) // 2); lat.append(b - a)
if vals:
    print("  %s, page reader: %d readings, TAI - MONOTONIC spread %.3f ms, slowest read %.1f us"
          % (what, len(vals), (max(vals) - min(vals)) / 1e6, max(lat) / 1e3))
ok = len(after) >= 20 and 0 <= gap < float(sys.argv[6]) and step < 5e6 and \
     len(vals) >= 100 and (max(vals) - min(vals)) < 5e6
sys.exit(0 if ok else 1)
PY
}
d0=$(disp)
under_load 2 400 300 10000
t_kw=$(mono)
kill -9 "$W"
wait "$W" 2>/dev/null
wait "$Q"
wait "$R"
sleep 0.5
d1=$(disp)
n2=$(grep -c . "$T/probe2")
if [ "$n2" -ge 270 ]; then ok "across kill -9 of the writer the server answered $n2 of 300"; else bad "across the writer's death: $n2 of 300 answers"; fi
seen "$T/probe2" "$T/reader2" "$t_kw" 300 "kill -9 writer" 1.0 &&
  ok "kill -9 of the writer: no wait over 1 s, no step, for clients and the page's reader" ||
  bad "kill -9 of the writer: what clients or the reader saw"
if python3 -c "import sys; a, b = float('$d0'), float('$d1'); sys.exit(0 if a >= 0 and b > a + 10 else 1)"; then
  ok "root dispersion grew: $d0 us -> $d1 us"
else
  bad "root dispersion $d0 us -> $d1 us"
fi
grep -q "writer process is gone" "$T/d.log" && ok "the server says the writer is gone" || bad "no line about the writer"

# -- the handover: a writer started again (outside systemd) finds the
# orphan on PATH.server, takes its UDP sockets, stops it, starts its own
# server; under load, and sampling the port meanwhile: never more UDP
# sockets on it than one set (--threads 2: 2), and the same ones after
socks() { ss -Huanep "sport = :$P" 2>/dev/null | grep -o 'ino:[0-9]*' | sort | tr '\n' ' '; }
have_ss=1
command -v ss >/dev/null || have_ss=0
s_before=$(socks)
if [ "$have_ss" = 1 ]; then
  ( for _ in $(seq 300); do ss -Huan "sport = :$P" | wc -l; sleep 0.01; done ) >"$T/ports" 2>/dev/null &
  SS=$!
  pids+=("$SS")
fi
under_load 3 400 600 5000
t_new=$(mono)
"$D" -d --timeline "$T/page" --listen "127.0.0.1:$P=utc" --threads 2 \
  --ratelimit off --stats-file "$T/run/stats" "${metrics[@]}" "${user[@]}" >"$T/d2.log" 2>&1 &
W=$!
pids+=("$W")
for _ in $(seq 100); do grep -q "running (pid $W)" "$T/d2.log" && break; sleep 0.05; done
wait "$Q"
wait "$R"
[ "$have_ss" = 1 ] && wait "$SS"
NSP=$(server_pid)
[ -n "$NSP" ] && pids+=("$NSP")
if grep -q "running (pid $W)" "$T/d2.log" && [ -n "$NSP" ]; then
  ok "a writer started again ($W) runs, with its server process ($NSP)"
else
  bad "the writer started again: '$NSP'"; sed 's/^/  | /' "$T/d2.log"
fi
grep -q "outlived its writer; taking its 2 UDP sockets over" "$T/d2.log" &&
  ok "it took the orphan's ($SP) 2 UDP sockets over" || bad "no takeover line"
grep -q "a new writer (pid $W) takes the sockets over: stopping" "$T/d.log" &&
  ok "the orphan said it hands over and stops" || bad "no line from the orphan"
for _ in $(seq 50); do kill -0 "$SP" 2>/dev/null || break; sleep 0.1; done
kill -0 "$SP" 2>/dev/null && bad "the orphan $SP still runs" || ok "the orphan $SP is gone"
seen "$T/probe3" "$T/reader3" "$t_new" 600 "writer started again (handover)" 1.0 &&
  ok "the handover: no wait over 1 s, no step, for clients and the page's reader" ||
  bad "the handover: what clients or the reader saw"
python3 - "$T/d.log" "$T/d2.log" <<'PY'
import re, sys, datetime
def at(f, pat):
    for l in open(f):
        if pat in l:
            m = re.search(r"(\d{4}-\d\d-\d\dT[\d:.]+)Z", l)
            return datetime.datetime.fromisoformat(m.group(1))
a = at(sys.argv[1], "takes the sockets over: stopping")
b = at(sys.argv[2], "server process ready")
if a and b:
    print("  the handover: %.1f ms from the orphan's stop to the new server's start (requests wait in the sockets' queues)" % ((b - a).total_seconds() * 1e3))
PY
if [ "${#metrics[@]}" -gt 0 ]; then
  if python3 -c "import urllib.request,sys; r=urllib.request.urlopen('http://127.0.0.1:$PM/metrics', timeout=2); sys.exit(0 if r.status == 200 and b'leapclockd' in r.read() else 1)"; then
    ok "the metrics port (TCP $PM) answers from the new server: the orphan let it go"
  else
    bad "the metrics port after the handover"
  fi
else
  echo "skip metrics after the handover: built without libmicrohttpd"
fi
if [ "$have_ss" = 1 ]; then
  s_after=$(socks)
  maxp=$(sort -n "$T/ports" | tail -1)
  if [ "$maxp" = 2 ] && [ -n "$s_before" ] && [ "$s_before" = "$s_after" ]; then
    ok "one set of UDP sockets on the port throughout (at most $maxp in $(grep -c . "$T/ports") samples), the same ones after ($s_after)"
  else
    bad "sockets on the port: at most $maxp; before '$s_before' after '$s_after'"
  fi
else
  echo "skip the port's sockets: no ss (Debian iproute2)"
fi
if grep -q "landlock ABI" "$T/d2.log"; then
  ok "server landlocked: $(grep -o 'landlock ABI.*' "$T/d2.log" | head -1)"
elif grep -q "landlock: not in this" "$T/d2.log"; then
  echo "skip landlock: $(grep -o 'landlock: not in this.*' "$T/d2.log" | head -1)"
else
  bad "no landlock line"
fi
kill "$W"
wait "$W" 2>/dev/null
for _ in $(seq 50); do kill -0 "$NSP" 2>/dev/null || break; sleep 0.1; done
kill -0 "$NSP" 2>/dev/null && bad "the new server outlived SIGTERM to its writer" || ok "SIGTERM to the new writer stops both"
[ -e "$T/page.server" ] && bad "the handover socket stays after a clean stop" || ok "the handover socket removed at the stop"

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
