#!/usr/bin/env bash
# smear_chrony_real.sh BUILD_DIR SOURCE_DIR - leapclock's smear:chrony against
# a real chronyd smoothing a rehearsed leap second (issue 28 item 16).
#
# chronyd takes its leap from its source, and only on a day its own clock
# (the system's REALTIME, "raw" time) says is 30 June or 31 December
# (reference.c update_leap_status(leap, raw_now.tv_sec), is_leap_second_day),
# and times the leap on that clock. So chronyd runs under leapclock's shim
# (leapclock run --timeline) on a rehearsal page whose table has no 2016 leap:
# its REALTIME reads 2016-12-31T23:59:20 and runs on without a leap, as a
# kernel that does not insert it. Its only source is a leapclockd `utc`
# socket rehearsing the same instant (--pretend TIME@AT, the same AT) with the
# real table: it announces the insertion and steps at midnight. chronyd runs
# with -x (never touches the clock; config, pid and socket in a temp dir),
# `leapsecmode slew`, `maxslewrate 1000` and `smoothtime 400 0.001024
# leaponly`, chrony.conf(5)'s documented leap-smearing server, serving on
# loopback.
#
# After the leap, at four instants t (seconds since the leap instant L, the
# start of 23:59:60, from the host clock and the rehearsal's AT):
#   * chronyc smoothing's frequency (wander x elapsed, the first quadratic
#     stage) against `leapclock smear --preset chrony`'s rate at L + t:
#     within 1e-4 ppm, 0.1 s of wander (the chronyc round trip and the
#     tracking error of chronyd's clock are ms); a window placed 1 s off
#     (issue 28.16's bug) is 1.024e-3 ppm off;
#   * its offset (1 s - smoothing offset) against leapclock's T-SLS offset at
#     L + t: within 100 ns (chronyc's reply carries it as a 25-bit float,
#     60 ns near 1 s);
#   * the time left (chronyc's remaining time) ending the window at
#     L + 62,500 s as leapclock's window does: within 0.3 s (printed to 0.1 s);
#   * the served time (NTP, leapclock server-stats --query) of chronyd minus
#     leapclockd's utc socket: 1 s - leapclock's offset, within 200 us
#     (loopback NTP noise; the smear itself is only a few us this early,
#     which is why the exact comparison goes through chronyc); and 0 before
#     the leap.
# chrony's smoothing is a quadratic/linear/quadratic stage model (smooth.c);
# with leaponly and no frequency limit reached it is the triangle, offset
# w t^2 / 2 on the first stage, which leapclock's quadratic preset follows to
# the ns. The real chronyd can only be sampled in real time, so the first
# ~minute of the 17.4 h window; the rest of the window is pinned by the
# stage model in tests/test_smear.c.
set -u
B=${1:?usage: smear_chrony_real.sh BUILD_DIR SOURCE_DIR}
S=${2:?usage: smear_chrony_real.sh BUILD_DIR SOURCE_DIR}
B=$(cd "$B" && pwd)
S=$(cd "$S" && pwd)
D=$B/leapclockd
L=$B/leapclock
fail=0

ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

if [ ! -x "$D" ] || [ ! -x "$L" ] || [ ! -e "$B/libleapclock-preload.so" ]; then
  echo "skip smear_chrony_real: leapclockd, leapclock or the shim not built in $B"
  exit 77
fi
if ! command -v chronyd >/dev/null || ! command -v chronyc >/dev/null; then
  echo "skip smear_chrony_real: needs Debian package chrony"
  exit 77
fi
if [ -n "${LC_SANITIZED:-}" ] ||
  grep -q '^LC_SANITIZE:STRING=.\+' "$B/CMakeCache.txt" 2>/dev/null; then
  # a sanitizer build's shim needs its runtimes preloaded first, and
  # chronyd is not built with them (as sandbox_chronyd)
  echo "skip smear_chrony_real: the shim under a sanitizer build"
  exit 77
fi

. "$(dirname "$0")/progs/tmp_lib.sh"
lc_test_tmp smear-chrony-real

export LEAPCLOCK_TIMELINE=none
LEAPFILE=$S/tests/data/leapseconds.tzdata2026f
export LEAPCLOCK_LEAPFILE=$LEAPFILE
grep -v '^Leap	2016	Dec	31' "$LEAPFILE" >"$T/noleap"
if cmp -s "$LEAPFILE" "$T/noleap"; then
  bad "could not drop the 2016 leap from $LEAPFILE"; exit 1
fi

# the rehearsal: 2016-12-31T23:59:20 at host second A; the leap 40 s later
A=$(($(date +%s) + 3))
AT=$(date -u -d "@$A" +%Y-%m-%dT%H:%M:%SZ)
X=2016-12-31T23:59:20Z
LEAP_HOST=$((A + 40))
P=$((20000 + RANDOM % 20000))
Q=$((P + 1))

"$D" -d --timeline "$T/noleap.page" --stats-file none --leapfile "$T/noleap" \
  --pretend "$X@$AT" >"$T/page.log" 2>&1 &
pids+=($!)
"$D" -d --no-timeline --stats-file none --leapfile "$LEAPFILE" \
  --pretend "$X@$AT" --listen "127.0.0.1:$P=utc" >"$T/utc.log" 2>&1 &
pids+=($!)
lc_wait_answers "$L" "127.0.0.1:$P" utc || { bad "leapclockd utc"; exit 1; }
for _ in $(seq 50); do [ -e "$T/noleap.page" ] && break; sleep 0.1; done

cat >"$T/chrony.conf" <<EOF
server 127.0.0.1 port $P iburst minpoll 0 maxpoll 0
leapsecmode slew
maxslewrate 1000
smoothtime 400 0.001024 leaponly
port $Q
bindaddress 127.0.0.1
allow 127.0.0.1
pidfile $T/chrony.pid
cmdport 0
bindcmdaddress $T/chrony.sock
driftfile $T/chrony.drift
EOF
"$L" run --timeline "$T/noleap.page" -- chronyd -x -d -u root -f "$T/chrony.conf" \
  >"$T/chrony.log" 2>&1 &
pids+=($!)

# chronyd synchronised, the insertion announced, before the leap
synced=0
for _ in $(seq 30); do
  sleep 1
  tr=$(chronyc -h "$T/chrony.sock" -n tracking 2>/dev/null)
  if echo "$tr" | grep -q '^Reference ID *: 7F000001' &&
     echo "$tr" | grep -q '^Leap status *: Insert second'; then
    synced=1; break
  fi
done
if [ $synced = 1 ] && [ "$(date +%s)" -lt $((LEAP_HOST - 3)) ]; then
  ok "chronyd -x (on the rehearsal's leap-free clock) follows leapclockd and has the insertion armed before the leap"
else
  bad "chronyd not synchronised with the leap armed in time"
  echo "$tr" | sed 's/^/  | /'; sed 's/^/  | /' "$T/chrony.log" | tail -5
  exit 1
fi

now_s() { date +%s.%N; }
# served_diff [WANT]: chronyd's served time minus leapclockd utc's (s), of
# three pairs the one nearest WANT (default 0): loopback NTP has its outliers
served_diff() {
  local a b best="" d w=${1:-0}
  for _ in 1 2 3; do
    a=$("$L" server-stats --query "127.0.0.1:$Q" --json 2>/dev/null | sed -n 's/.*"offset_ns":\(-\{0,1\}[0-9]*\).*/\1/p')
    b=$("$L" server-stats --query "127.0.0.1:$P" --json 2>/dev/null | sed -n 's/.*"offset_ns":\(-\{0,1\}[0-9]*\).*/\1/p')
    [ -n "$a" ] && [ -n "$b" ] || continue
    d=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.9f", (a - b) / 1e9 }')
    if [ -z "$best" ] || awk -v d="$d" -v b="$best" -v w="$w" \
        'BEGIN { x = d - w; y = b - w; exit !(x * x < y * y) }'; then
      best=$d
    fi
  done
  echo "$best"
}

d=$(served_diff)
if [ -n "$d" ] && awk -v d="$d" 'BEGIN { exit !(d < 0.0002 && d > -0.0002) }'; then
  ok "before the leap chronyd serves leapclockd's utc: $d s apart (within 200 us)"
else
  bad "before the leap chronyd minus utc is '$d' s (want 0 +- 200 us)"
fi

# wait for 5 s after the leap (chronyd drops samples around it)
while [ "$(date +%s)" -lt $((LEAP_HOST + 5)) ]; do sleep 0.2; done

window=$("$L" smear --preset chrony --json | sed -n 's/.*"end_rel_s":\([0-9.]*\).*/\1/p' | head -1)
for k in 1 2 3 4; do
  h0=$(now_s)
  sm=$(chronyc -h "$T/chrony.sock" -n smoothing 2>/dev/null)
  h1=$(now_s)
  t=$(awk -v a="$h0" -v b="$h1" -v l="$LEAP_HOST" 'BEGIN { printf "%.3f", (a + b) / 2 - l }')
  off=$(echo "$sm" | sed -n 's/^Offset *: *\([-+0-9.]*\) seconds.*/\1/p')
  frq=$(echo "$sm" | sed -n 's/^Frequency *: *\([-+0-9.]*\) ppm.*/\1/p')
  wan=$(echo "$sm" | sed -n 's/^Wander *: *\([-+0-9.]*\) ppm.*/\1/p')
  rem=$(echo "$sm" | sed -n 's/^Remaining time *: *\([0-9.]*\) seconds.*/\1/p')
  ms=$(awk -v t="$t" 'BEGIN { printf "%d", t * 1000 }')
  row=$("$L" smear --preset chrony --range "${ms}ms,$((ms + 1))ms" --step 1ms --csv - | sed -n 2p)
  lc_off=$(echo "$row" | cut -d, -f3)   # T - SLS, ms
  lc_rate=$(echo "$row" | cut -d, -f5)  # ppm
  if [ -z "$off" ] || [ -z "$frq" ] || [ -z "$rem" ] || [ -z "$lc_rate" ]; then
    bad "t=$t s: chronyc smoothing or leapclock smear gave nothing"
    echo "$sm" | sed 's/^/  | /'; continue
  fi
  # chrony: the leap-second offset still to go, +1 s at the start
  awk -v t="$t" -v o="$off" -v f="$frq" -v w="$wan" -v r="$rem" -v lo="$lc_off" \
      -v lr="$lc_rate" -v win="$window" 'BEGIN {
    dr = f - lr; if (dr < 0) dr = -dr
    co = (1 - o) * 1e9; lcn = lo * 1e6; dof = co - lcn; if (dof < 0) dof = -dof
    de = t + r - win; if (de < 0) de = -de
    printf "t=%.3f s: chronyd freq %+.6f ppm (wander %s, elapsed %.3f s), leapclock rate %+.6f ppm; ", t, f, w, (w != 0 ? f / w : 0), lr
    printf "offset chronyd %.1f ns, leapclock %.1f ns; window end L+%.1f s (leapclock L+%s)\n", co, lcn, t + r, win
    exit !(dr < 1e-4 && dof < 100 && de < 0.3)
  }' >"$T/line" && ok "$(cat "$T/line")" || bad "$(cat "$T/line") (want rate within 1e-4 ppm, offset within 100 ns, end within 0.3 s)"
  want=$(awk -v lo="$lc_off" 'BEGIN { printf "%.9f", 1 - lo / 1000 }')
  d=$(served_diff "$want")
  if [ -n "$d" ] && awk -v d="$d" -v w="$want" 'BEGIN { x = d - w; if (x < 0) x = -x; exit !(x < 0.0002) }'; then
    ok "t=$t s: chronyd serves $d s ahead of leapclockd's utc (1 s - leapclock's offset = $want, within 200 us)"
  else
    bad "t=$t s: chronyd minus utc served '$d' s (want $want +- 200 us)"
  fi
  sleep 4
done

if [ $fail != 0 ]; then
  echo "  chronyd's log:"; sed 's/^/  | /' "$T/chrony.log" | grep -v Dropping | tail -12
fi
exit $fail
