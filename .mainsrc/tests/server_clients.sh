#!/usr/bin/env bash
# server_clients.sh BUILD_DIR SOURCE_DIR - leapclockd against real NTP clients.
#
#   chronyd -Q (query only) ... offset under 1 ms in utc mode; in smear mode,
#                               at a --pretend instant inside Google's window,
#                               the smear offset derived below
#   chronyd -x (never touches the clock, its only source is leapclockd)
#                           ... selects the server, tracking offset under 1 ms
#   ntpdig (in a private network namespace: it only talks to port 123)
#                           ... offset under 1 ms in utc mode; the smear
#                               offset at 18:00 on the leap day; leap indicator
#                               "add-leap" on 2016-12-31 and only then,
#                               "no-leap" once the leap is past, and the
#                               served clock one second further back after it;
#                               "del-leap" for a deletion; answers from the
#                               address asked on wildcard sockets
#
# chronyd runs only with -Q or -x, from a config in a temp dir with its own
# pidfile and command socket, and is killed on exit. Everything binds to
# 127.0.0.1/::1; port 123 and the wildcard addresses only inside the private
# namespace, whose only interface is its own loopback.
set -u
B=${1:?usage: server_clients.sh BUILD_DIR SOURCE_DIR}
S=${2:?usage: server_clients.sh BUILD_DIR SOURCE_DIR}
B=$(cd "$B" && pwd)
S=$(cd "$S" && pwd)
D=$B/leapclockd
L=$B/leapclock
LEAPFILE=$S/tests/data/leap-seconds.list.tzdata2026f
fail=0
ran=0

ok() { echo "ok   $1"; ran=$((ran + 1)); }
bad() { echo "FAIL $1"; fail=1; ran=$((ran + 1)); }
skip() { echo "skip $1"; }

if [ ! -x "$D" ] || [ ! -x "$L" ]; then
  echo "skip server_clients: leapclockd or leapclock not built in $B"
  exit 77
fi

. "$(dirname "$0")/progs/tmp_lib.sh"
lc_test_tmp server-clients

# |a - b| < tol, in seconds (floats)
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < t) }'; }

# start_server NAME ARGS...: leapclockd in the foreground (background job),
# ready once it answers on its first --listen address.
start_server() {
  local name=$1 first
  shift
  "$D" -d --no-timeline --stats-file "$T/$name.stats" --leapfile "$LEAPFILE" "$@" \
    2>"$T/$name.log" &
  pids+=($!)
  first=$(printf '%s\n' "$@" | grep -m1 '=' | sed 's/=.*//')
  lc_wait_answers "$L" "$first" "$name"
}

# chrony_q PORT: "System clock wrong by X seconds" from chronyd -Q, X printed
chrony_q() {
  local port=$1 conf=$T/chrony-q-$1.conf out
  cat >"$conf" <<EOF
server 127.0.0.1 port $port iburst minpoll 0 maxpoll 0
pidfile $T/chrony-q-$port.pid
cmdport 0
bindcmdaddress $T/chrony-q-$port.sock
EOF
  out=$(timeout 30 chronyd -Q -u root -f "$conf" 2>&1)
  echo "$out" | sed -n 's/.*System clock wrong by \([-+0-9.e]*\) seconds.*/\1/p' | tail -1
  [ -n "$out" ] || echo ""
}

# ------------------------------------------------------------------ ntpdig
# ntpdig only queries port 123, so this part runs in a private network
# namespace (a fresh loopback nobody else uses).
netns_part() {
  local n
  ip link set lo up || { echo "skip ntpdig: cannot bring lo up"; return 0; }

  # ntpdig_json ADDR: its JSON line (one query)
  q() { timeout 10 ntpdig -j "$1" 2>/dev/null | tail -1; }
  field() { echo "$1" | sed -n "s/.*\"$2\":\"\{0,1\}\([^,\"}]*\).*/\1/p"; }

  start_server ns --listen 127.0.0.1:123=utc --listen '[::1]:123=utc' || {
    bad "leapclockd on port 123 in the namespace"; return 0; }
  best=""
  for _ in 1 2 3 4 5; do
    j=$(q 127.0.0.1); off=$(field "$j" offset)
    [ -n "$off" ] || continue
    best=$off
    near "$off" 0 0.001 && break
  done
  if [ -n "$best" ] && near "$best" 0 0.001 && [ "$(field "$j" leap)" = no-leap ]; then
    ok "ntpdig: utc mode offset $best s, under 1 ms, no-leap"
  else
    bad "ntpdig: utc mode: $j"
  fi
  j=$(q ::1)
  if [ "$(field "$j" stratum)" = 1 ] && [ -n "$(field "$j" offset)" ]; then
    ok "ntpdig: answered over IPv6 (::1)"
  else
    bad "ntpdig over ::1: '$j'"
  fi
  kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null

  # Wildcard addresses: each answer must come from the address the request
  # went to (IP_PKTINFO / IPV6_PKTINFO), or ntpdig would not take it.
  start_server wild --listen 0.0.0.0:123=utc --listen '[::]:123=utc' || {
    bad "leapclockd on 0.0.0.0:123 and [::]:123 in the namespace"; return 0; }
  a=$(q 127.0.0.2); b=$(q ::1)
  if [ "$(field "$a" ip)" = 127.0.0.2 ] && [ -n "$(field "$a" offset)" ] &&
     [ -n "$(field "$b" offset)" ]; then
    ok "ntpdig: wildcard sockets answer from the address asked (127.0.0.2, ::1)"
  else
    bad "ntpdig: wildcard sockets: '$a' '$b'"
  fi
  kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null

  # The smear offset through ntpdig: smear:google on ::1 minus utc on
  # 127.0.0.1 at 18:00 on the leap day, 21600/86401 s (see the chronyd
  # part); best of three pairs, ntpdig's own noise is a few ms at worst.
  start_server ns1 --pretend 2016-12-31T18:00:00Z --listen 127.0.0.1:123=utc \
    --listen '[::1]:123=smear:google' || { bad "leapclockd --pretend 18:00"; return 0; }
  d=""
  for _ in 1 2 3; do
    u=$(field "$(q 127.0.0.1)" offset); m=$(field "$(q ::1)" offset)
    [ -n "$u" ] && [ -n "$m" ] || continue
    d=$(awk -v a="$m" -v b="$u" 'BEGIN { printf "%.6f", a - b }')
    near "$d" -0.249997 0.002 && break
  done
  if [ -n "$d" ] && near "$d" -0.249997 0.002; then
    ok "ntpdig: smear:google at 18:00 on the leap day is $d s from utc (want -0.249997)"
  else
    bad "ntpdig: smear:google minus utc is '$d' s (want -0.249997 +- 0.002)"
  fi
  kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null

  # until_time ADDR GLOB: queries (at most ~30 s) until ntpdig's time matches
  until_time() {
    local j
    for _ in $(seq 60); do
      j=$(q "$1")
      case "$(field "$j" time)" in $2) echo "$j"; return 0 ;; esac
      sleep 0.5
    done
    echo "$j"
  }

  # The day before the leap day must not announce it; the leap day must.
  # (10 s of margin before midnight for a slow machine.)
  start_server ns2 --pretend 2016-12-30T23:59:50Z --listen 127.0.0.1:123=utc ||
    { bad "leapclockd --pretend in the namespace"; return 0; }
  a=$(q 127.0.0.1)
  b=$(until_time 127.0.0.1 '2016-12-31T00:00:0*')
  if [ "$(field "$a" leap)" = no-leap ] && [ "$(field "$b" leap)" = add-leap ] &&
     case "$(field "$a" time)" in 2016-12-30T23:59:5*) true ;; *) false ;; esac; then
    ok "ntpdig: no-leap at $(field "$a" time), add-leap from midnight: $(field "$b" time)"
  else
    bad "ntpdig: across 2016-12-31T00:00: '$(field "$a" leap)' at $(field "$a" time) then '$(field "$b" leap)' at $(field "$b" time) (want no-leap, add-leap)"
  fi
  kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null

  # Through the leap: announced before, not after, and the served clock is
  # one second further behind the host's once 23:59:60 has been inserted.
  start_server ns3 --pretend 2016-12-31T23:59:50Z --listen 127.0.0.1:123=utc \
    --listen '[::1]:123=smear:google' ||
    { bad "leapclockd --pretend through the leap"; return 0; }
  a=$(q 127.0.0.1); s=$(q ::1)
  b=$(until_time 127.0.0.1 '2017-01-01T00:00:0[1-9]*')
  oa=$(field "$a" offset); ob=$(field "$b" offset)
  if [ "$(field "$a" leap)" = add-leap ] && [ "$(field "$b" leap)" = no-leap ] &&
     case "$(field "$a" time)" in 2016-12-31T23:59:5*) true ;; *) false ;; esac; then
    ok "ntpdig: add-leap at $(field "$a" time), no-leap at $(field "$b" time)"
  else
    bad "ntpdig: around the leap '$(field "$a" leap)' at $(field "$a" time) then '$(field "$b" leap)' at $(field "$b" time) (want add-leap, no-leap)"
  fi
  d=$(awk -v a="$ob" -v b="$oa" 'BEGIN { printf "%.6f", a - b }')
  if near "$d" -1 0.01; then
    ok "ntpdig: the served clock stepped back one second relative to the host's ($d s)"
  else
    bad "ntpdig: offset moved by $d s across the leap (want -1)"
  fi
  kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null

  # A deletion (none has happened yet: a table with one added at the end of
  # June 2030): del-leap on that day, and the served clock jumps ahead by a
  # second as 23:59:59 is skipped.
  (grep -v '^#expires' "$S/tests/data/leapseconds.tzdata2026f"
   printf 'Leap\t2030\tJun\t30\t23:59:59\t-\tS\n') >"$T/deletion.leap"
  "$D" -d --no-timeline --stats-file none --leapfile "$T/deletion.leap" \
    --pretend 2030-06-30T23:59:50Z --listen 127.0.0.1:123=utc 2>"$T/del.log" &
  pids+=($!)
  for _ in $(seq 50); do "$L" server-stats --query 127.0.0.1 >/dev/null 2>&1 && break; sleep 0.1; done
  a=$(q 127.0.0.1)
  b=$(until_time 127.0.0.1 '2030-07-01T00:00:0[1-9]*')
  d=$(awk -v a="$(field "$b" offset)" -v b="$(field "$a" offset)" 'BEGIN { printf "%.6f", a - b }')
  if [ "$(field "$a" leap)" = del-leap ] && [ "$(field "$b" leap)" = no-leap ] && near "$d" 1 0.01; then
    ok "ntpdig: del-leap at $(field "$a" time), no-leap at $(field "$b" time), clock $d s ahead"
  else
    bad "ntpdig: deletion: '$(field "$a" leap)' at $(field "$a" time), '$(field "$b" leap)' at $(field "$b" time), offset moved $d s (want del-leap, no-leap, +1)"
  fi
  if [ "$(field "$s" leap)" = no-leap ] && [ -n "$(field "$s" offset)" ]; then
    ok "ntpdig: smear:google never announces the leap ($(field "$s" time))"
  else
    bad "ntpdig: smear:google on the leap day: '$s'"
  fi
}

if [ "${LC_SERVER_IN_NETNS:-}" = 1 ]; then
  netns_part
  exit $fail
fi

# ---------------------------------------------------------------- chronyd -Q
if ! command -v chronyd >/dev/null || ! command -v chronyc >/dev/null; then
  skip "chronyd tests: needs Debian package chrony"
else
  P1=$((20000 + RANDOM % 20000))
  P2=$((P1 + 1)); P3=$((P1 + 2))
  start_server utc --listen "127.0.0.1:$P1=utc" || bad "leapclockd starts"
  best=""
  for _ in 1 2 3; do
    x=$(chrony_q "$P1")
    [ -n "$x" ] || continue
    best=$x
    near "$x" 0 0.001 && break
  done
  if [ -n "$best" ] && near "$best" 0 0.001; then
    ok "chronyd -Q: utc mode offset $best s, under 1 ms"
  else
    bad "chronyd -Q: utc mode offset '$best' (want |x| < 0.001)"
  fi

  # Google's smear: 24 h linear from noon to noon UTC around the leap. At
  # 18:00 UTC on 2016-12-31, 21600 s of the 86401 SI seconds of the window
  # (noon to noon on a UTC clock, plus the leap second) have passed, so the
  # smeared clock is 21600/86401 s = 0.249997 s behind UTC.
  start_server pretend --pretend 2016-12-31T18:00:00Z \
    --listen "127.0.0.1:$P2=utc" --listen "127.0.0.1:$P3=smear:google" ||
    bad "leapclockd --pretend starts"
  xu=$(chrony_q "$P2"); xs=$(chrony_q "$P3")
  if [ -n "$xu" ] && [ -n "$xs" ]; then
    d=$(awk -v a="$xs" -v b="$xu" 'BEGIN { printf "%.6f", a - b }')
    if near "$d" -0.249997 0.002; then
      ok "chronyd -Q: smear:google at 18:00 on the leap day is $d s from utc (want -0.249997)"
    else
      bad "chronyd -Q: smear:google minus utc is $d s (want -0.249997 +- 0.002)"
    fi
  else
    bad "chronyd -Q: no offsets from the pretending server ('$xu', '$xs')"
  fi

  # chronyd -x: its only source is leapclockd (utc on $P1).
  cat >"$T/chrony-x.conf" <<EOF
server 127.0.0.1 port $P1 iburst minpoll 0 maxpoll 1
pidfile $T/chrony-x.pid
cmdport 0
bindcmdaddress $T/chrony-x.sock
EOF
  chronyd -x -n -u root -f "$T/chrony-x.conf" >"$T/chrony-x.log" 2>&1 &
  pids+=($!)
  selected=0
  for _ in $(seq 60); do
    sleep 1
    tr=$(chronyc -h "$T/chrony-x.sock" -n tracking 2>/dev/null)
    refid=$(echo "$tr" | sed -n 's/^Reference ID *: \([0-9A-F]*\).*/\1/p')
    last=$(echo "$tr" | sed -n 's/^Last offset *: \([-+0-9.]*\) seconds.*/\1/p')
    if [ "$refid" = 7F000001 ] && [ -n "$last" ]; then
      selected=1
      break
    fi
  done
  if [ $selected = 1 ] && near "$last" 0 0.001; then
    ok "chronyd -x selects leapclockd (refid $refid), last offset $last s, under 1 ms"
  else
    bad "chronyd -x: refid '$refid', last offset '$last' after ${_} s"
    echo "$tr" | sed 's/^/  | /'
    sed 's/^/  | /' "$T/chrony-x.log" | tail -5
  fi
fi


if ! command -v ntpdig >/dev/null; then
  skip "ntpdig tests: needs Debian package ntpsec-ntpdig"
elif [ "$(id -u)" != 0 ] || ! unshare -n true 2>/dev/null; then
  skip "ntpdig tests: need root and network namespaces (unshare -n) to run a server on port 123"
else
  LC_SERVER_IN_NETNS=1 unshare -n bash "$0" "$B" "$S" || fail=1
  ran=$((ran + 1))
fi

if [ $ran = 0 ]; then
  echo "skip server_clients: no NTP client available (Debian packages chrony, ntpsec-ntpdig)"
  exit 77
fi
exit $fail
