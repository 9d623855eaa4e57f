#!/usr/bin/env bash
# server_ops.sh BUILD_DIR SOURCE_DIR - leapclockd's operations, with the
# project's own client (leapclock server-stats --query): command line and
# config file, per-client rate limiting with a RATE kiss, the stats file and
# `leapclock server-stats`, SIGHUP reloading the leap table (and keeping the
# old one when the new file is bad), the smear refid decoded, IPv6.
set -u
B=$(cd "${1:?usage: server_ops.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: server_ops.sh BUILD_DIR SOURCE_DIR}" && pwd)
D=$B/leapclockd
L=$B/leapclock
if [ ! -x "$D" ] || [ ! -x "$L" ]; then
  echo "skip server_ops: leapclockd or leapclock not built"; exit 77
fi
. "$(dirname "$0")/progs/tmp_lib.sh"
lc_test_tmp server-ops
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
P=$((20000 + RANDOM % 20000))
DATA=$S/tests/data

# jget JSON KEY: a number or string member of a one-line JSON object
jget() { echo "$1" | sed -n "s/.*\"$2\":\"\{0,1\}\([^,\"}]*\).*/\1/p"; }

# up NAME ADDR ARGS...: start leapclockd, wait until ADDR answers
up() {
  local name=$1 addr=$2
  shift 2
  "$D" -d --no-timeline --stats-file "$T/$name.stats" "$@" 2>"$T/$name.log" &
  pids+=($!)
  lc_wait_answers "$L" "$addr" "$name"
}
down() { kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null; unset 'pids[-1]'; }

# ---- command line
"$D" --help | grep -q -- '--listen ADDR:PORT=MODE' && ok "--help describes --listen" ||
  bad "--help"
"$D" -d --no-timeline --stats-file none >/dev/null 2>&1; rc=$?
[ $rc = 2 ] && ok "no --listen and no timeline: exit 2" || bad "no --listen, --no-timeline: exit $rc (want 2)"
"$D" -d --no-timeline --listen 127.0.0.1:$P >/dev/null 2>&1; rc=$?
[ $rc = 2 ] && ok "--listen without a mode: exit 2" || bad "--listen without =MODE: exit $rc"
"$D" -d --no-timeline --listen "127.0.0.1:$P=smear:nosuch" --stats-file none 2>"$T/e"; rc=$?
[ $rc = 2 ] && grep -q "unknown smear preset 'nosuch'" "$T/e" &&
  ok "unknown smear preset: exit 2 (a config error), named" || bad "unknown preset: exit $rc: $(cat "$T/e")"
"$D" -d --no-timeline --listen "127.0.0.1:$P=utc" --pretend 2016-12-30T23:59:60Z --stats-file none 2>"$T/e"; rc=$?
[ $rc = 2 ] && ok "--pretend at a 23:59:60 that is not a leap: refused, exit 2" ||
  bad "--pretend 2016-12-30T23:59:60Z: exit $rc"

# ---- config file: the same settings as the flags
cat >"$T/conf" <<EOF
# leapclockd.conf for the test
listen 127.0.0.1:$P utc
listen [::1]:$P=smear:google   # IPv6, smeared
leapfile $DATA/leap-seconds.list.tzdata2026f
stratum 3
refid TEST
root-dispersion 0.25
ratelimit off
EOF
if up conf "127.0.0.1:$P" -c "$T/conf"; then
  j=$("$L" server-stats --query "127.0.0.1:$P" --json)
  if [ "$(jget "$j" stratum)" = 3 ] && [ "$(jget "$j" refid)" = 0x54455354 ] &&
     [ "$(jget "$j" root_dispersion_ns)" = 250000000 ] && [ "$(jget "$j" version)" = 4 ]; then
    ok "config file: stratum 3, refid TEST, root dispersion 0.25 s"
  else
    bad "config file settings not served: $j"
  fi
  j=$("$L" server-stats --query "[::1]:$P" --json)
  [ "$(jget "$j" mode)" = 4 ] && ok "config file: [::1] smear:google answers" ||
    bad "[::1]: $j"
  down
fi

# ---- rate limiting: burst 4, then one RATE kiss (and the client stops
# ---- there: its back-off to the kiss's 64 s poll is in server_stats.sh)
if up rl "127.0.0.1:$P" --listen "127.0.0.1:$P=utc" --ratelimit 4:4 \
     --leapfile "$DATA/leap-seconds.list.tzdata2026f"; then
  # up's successful probe used one of the 4; 3 more pass, then a kiss
  out=$("$L" server-stats --query "127.0.0.1:$P" --count 4 --interval 0 --json)
  nrep=$(echo "$out" | grep -c '"kiss":false')
  nkiss=$(echo "$out" | grep '"kiss":true' | grep -c '"refid":"0x52415445"')
  nto=$(echo "$out" | grep -c '"timeout":true')
  kpoll=$(jget "$(echo "$out" | grep '"kiss":true')" poll)
  kli=$(jget "$(echo "$out" | grep '"kiss":true')" li)
  if [ "$nrep" = 3 ] && [ "$nkiss" = 1 ] && [ "$nto" = 0 ] && [ "$kli" = 3 ] && [ "$kpoll" = 6 ]; then
    ok "rate limit 4:4: 3 more answers, then 1 RATE kiss (LI 3, poll 6)"
  else
    bad "rate limit: $nrep answers, $nkiss kisses, $nto timeouts (want 3, 1, 0):"
    echo "$out" | sed 's/^/  | /'
  fi
  # one more, inside the kiss gap: dropped without a second kiss
  "$L" server-stats --query "127.0.0.1:$P" --json >"$T/q" 2>&1
  grep -q '"timeout":true' "$T/q" && ok "then silence: no second kiss within the interval" ||
    bad "after the kiss: $(cat "$T/q")"
  # a second server on the same address must fail, not share the port
  "$D" -d --no-timeline --listen "127.0.0.1:$P=utc" --stats-file none 2>"$T/e"; rc=$?
  [ $rc = 1 ] && grep -q "Address already in use" "$T/e" &&
    ok "a second server on a taken address fails (no SO_REUSEADDR sharing)" ||
    bad "second server on 127.0.0.1:$P: exit $rc: $(cat "$T/e")"
  sleep 1.2
  s=$("$L" server-stats --file "$T/rl.stats" --json)
  echo "$s" | grep -q '"ratelimited":2,"kod":1' &&
    ok "server-stats: ratelimited 2, kod 1" || bad "server-stats counters: $s"
  down
fi

# ---- stats file, smear refid, SIGUSR1
if up st "127.0.0.1:$P" --listen "127.0.0.1:$P=utc" --listen "127.0.0.1:$((P + 1))=smear:google" \
     --pretend 2016-12-31T18:00:00Z --leapfile "$DATA/leap-seconds.list.tzdata2026f"; then
  j=$("$L" server-stats --query "127.0.0.1:$((P + 1))" --json)
  sm=$(jget "$j" smear_offset_ns)
  # Google's 24 h noon-to-noon linear smear, 6 h in: 21600/86401 s behind
  if [ -n "$sm" ] && [ "$sm" -lt -249000000 ] && [ "$sm" -gt -251000000 ] &&
     [ "$(jget "$j" leap)" = no-leap ]; then
    ok "smear:google at 18:00: refid $(jget "$j" refid) decodes to $sm ns (want -249997000), no-leap"
  else
    bad "smear refid: $j"
  fi
  j=$("$L" server-stats --query "127.0.0.1:$P" --json)
  [ "$(jget "$j" leap)" = add-leap ] && [ "$(jget "$j" refid)" = 0x4c434c4b ] &&
    ok "utc on the leap day: add-leap, refid LCLK" || bad "utc on the leap day: $j"
  kill -USR1 "${pids[-1]}"; sleep 0.5
  # utc: up's probe and one query; smear: one query
  grep -q "127.0.0.1:$P utc: received 2, requests 2, replies 2" "$T/st.log" &&
  grep -q "127.0.0.1:$((P + 1)) smear:google: received 1, requests 1, replies 1" "$T/st.log" &&
    ok "SIGUSR1: counters in the log" || { bad "SIGUSR1 log"; cat "$T/st.log"; }
  table=$("$L" server-stats --file "$T/st.stats")
  echo "$table" | sed 's/^/  | /'
  echo "$table" | grep "smear:google" | grep -q "254\..*leap smear in progress, offset -0.2" &&
    ok "server-stats: a row per address, the smear refid decoded" || bad "server-stats table"
  down
fi
[ "$("$L" server-stats --refid 254.192.0.0 --json)" = '{"refid":"0xfec00000","smear_offset_ns":-1000000000}' ] &&
  ok "server-stats --refid 254.192.0.0 is -1 s" || bad "--refid 254.192.0.0"

# ---- SIGHUP: a bad file keeps the table; a good one replaces it
cp "$DATA/leapseconds.tzdata2026f" "$T/leapseconds"
if up hup "127.0.0.1:$P" --listen "127.0.0.1:$P=utc" --leapfile "$T/leapseconds" \
     --pretend 2016-12-31T12:00:00Z; then
  echo "this is not a leap table" >"$T/leapseconds"
  kill -HUP "${pids[-1]}"; sleep 0.6
  j=$("$L" server-stats --query "127.0.0.1:$P" --json)
  grep -q "keeping the .*table in use" "$T/hup.log" && [ "$(jget "$j" leap)" = add-leap ] &&
    ok "SIGHUP with a bad file: old table kept, still add-leap" ||
    { bad "SIGHUP bad file: $j"; sed 's/^/  | /' "$T/hup.log"; }
  # the same table without its last leap (2016-12-31): no more announcement
  grep -v '^Leap	2016	Dec	31' "$DATA/leapseconds.tzdata2026f" >"$T/leapseconds"
  kill -HUP "${pids[-1]}"; sleep 0.6
  j=$("$L" server-stats --query "127.0.0.1:$P" --json)
  [ "$(jget "$j" leap)" = no-leap ] && kill -0 "${pids[-1]}" &&
    ok "SIGHUP with a good file: the new table rules (no-leap without 2016-12-31)" ||
    { bad "SIGHUP good file: $j"; sed 's/^/  | /' "$T/hup.log"; }
  down
fi
exit $fail
