#!/usr/bin/env bash
# server_host_leap.sh BUILD_DIR SOURCE_DIR - leapclockd --host-leap (issue
# 23 item 1): each form (kernel, smear:google, smear:aws, slew, slew:500,
# step, ignore; --host-smear google as smear:google; the config directive
# host-leap; LEAPCLOCK_HOST_LEAP) is published on the daemon's own page and
# shown by `leapclock status --json` ("host_leap") and in its text, and by
# the metrics (leapclockd_host_leap_mode{mode=...} 1,
# leapclockd_host_leap_detected 0); --check-config prints the canonical
# form and refuses bad forms with exit 2, naming the bad text. Every daemon
# has its own --timeline page (LEAPCLOCK_TIMELINE points there), its own
# leap file and --pretend, so no clock is followed or set.
set -u
B=$(cd "${1:?usage: server_host_leap.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: server_host_leap.sh BUILD_DIR SOURCE_DIR}" && pwd)
D=$B/leapclockd
L=$B/leapclock
if [ ! -x "$D" ] || [ ! -x "$L" ]; then
  echo "skip server_host_leap: leapclockd or leapclock not built"; exit 77
fi
. "$(dirname "$0")/progs/tmp_lib.sh"
lc_test_tmp server-host-leap
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
LF=$S/tests/data/leap-seconds.list.tzdata2026f
export LEAPCLOCK_LEAPFILE=$LF
unset LEAPCLOCK_HOST_LEAP
have_curl=0
command -v curl >/dev/null && have_curl=1

jget() { python3 -c 'import json,sys; v=json.loads(sys.argv[1]).get(sys.argv[2]); print("null" if v is None else v)' "$1" "$2" 2>/dev/null; }

# run_one NAME EXPECT ARGS...: a daemon on its own page; its status shows
# EXPECT as host_leap, and its metrics the same mode
n=0
run_one() {
  local name=$1 want=$2; shift 2
  n=$((n + 1))
  local page=$T/page$n port=$((20000 + RANDOM % 20000))
  "$D" -d --timeline "$page" --stats-file none --leapfile "$LF" \
    --pretend 2030-06-30T23:50:00Z --metrics "127.0.0.1:$port" "$@" \
    2>"$T/d$n.log" &
  pids+=($!)
  for _ in $(seq 50); do [ -s "$page" ] && break; sleep 0.1; done
  sleep 0.3
  local st
  st=$(LEAPCLOCK_TIMELINE=$page "$L" status --json 2>"$T/st$n.err")
  if [ "$(jget "$st" host_leap)" = "$want" ] &&
     [ "$(jget "$st" host_leap_detected)" = null ]; then
    ok "$name: status --json host_leap \"$want\", nothing detected"
  else
    bad "$name: status --json host_leap '$(jget "$st" host_leap)', want '$want' ($(cat "$T/st$n.err"); $(tail -3 "$T/d$n.log"))"
  fi
  local txt
  txt=$(LEAPCLOCK_TIMELINE=$page "$L" status 2>/dev/null)
  if grep -q "^host leap  *$want" <<<"$txt"; then
    ok "$name: status says 'host leap $want'"
  else
    bad "$name: status text: $(grep 'host' <<<"$txt")"
  fi
  if [ $have_curl = 1 ]; then
    local m
    m=$(curl -s "http://127.0.0.1:$port/metrics")
    if grep -qx "leapclockd_host_leap_mode{mode=\"$want\"} 1" <<<"$m" &&
       grep -qx 'leapclockd_host_leap_detected{mode=""} 0' <<<"$m"; then
      ok "$name: metrics leapclockd_host_leap_mode{mode=\"$want\"} 1, detected 0"
    else
      bad "$name: metrics: $(grep host_leap <<<"$m")"
    fi
  fi
  kill "${pids[-1]}" 2>/dev/null; wait "${pids[-1]}" 2>/dev/null; unset 'pids[-1]'
}

run_one "no option" kernel
run_one "--host-leap kernel" kernel --host-leap kernel
run_one "--host-leap smear:google" smear:google --host-leap smear:google
run_one "--host-leap smear:aws" smear:aws --host-leap smear:aws
run_one "--host-leap slew" slew --host-leap slew
run_one "--host-leap slew:500" slew:500 --host-leap slew:500
run_one "--host-leap step" step --host-leap step
run_one "--host-leap ignore" ignore --host-leap ignore
run_one "--host-smear google (the older spelling)" smear:google --host-smear google
printf 'host-leap slew:500\n' >"$T/conf"
run_one "config directive host-leap slew:500" slew:500 -c "$T/conf"
LEAPCLOCK_HOST_LEAP=step run_one "LEAPCLOCK_HOST_LEAP=step" step

# ---- --check-config: the canonical form printed; bad forms exit 2 naming
# ---- the bad text
out=$("$D" --check-config --no-timeline --listen 127.0.0.1:0=utc --leapfile "$LF" \
  --host-leap slew:83333.5 2>&1); rc=$?
if [ $rc = 0 ] && grep -qx 'host-leap slew:83333.5' <<<"$out"; then
  ok "--check-config prints 'host-leap slew:83333.5'"
else
  bad "--check-config: rc $rc: $out"
fi
check_bad() {
  local what=$1 want=$2; shift 2
  local out rc
  out=$("$D" --check-config --no-timeline --listen 127.0.0.1:0=utc --leapfile "$LF" "$@" 2>&1); rc=$?
  if [ $rc = 2 ] && grep -q -- "$want" <<<"$out"; then
    ok "--check-config $what: exit 2, '$(head -1 <<<"$out")'"
  else
    bad "--check-config $what: rc $rc, want 2 and '$want': $out"
  fi
}
check_bad "--host-leap smeer:google" "--host-leap: 'smeer:google': unknown mode 'smeer'" --host-leap smeer:google
check_bad "--host-leap smear:gogle" "unknown smear preset 'gogle'" --host-leap smear:gogle
check_bad "--host-leap slew:fast" "slew rate 'fast'" --host-leap slew:fast
check_bad "--host-leap step:2" "step takes no ':2'" --host-leap step:2
check_bad "--host-smear gogle" "unknown smear preset 'gogle'" --host-smear gogle
printf 'host-leap slew:0\n' >"$T/bad.conf"
check_bad "host-leap slew:0 in a file" "bad.conf:1: host-leap: 'slew:0'" -c "$T/bad.conf"
LEAPCLOCK_HOST_LEAP=bogus check_bad "LEAPCLOCK_HOST_LEAP=bogus" "LEAPCLOCK_HOST_LEAP: 'bogus'"

# ---- in-process (no page): LEAPCLOCK_HOST_LEAP, and a bad one said once
st=$(LEAPCLOCK_TIMELINE=none LEAPCLOCK_HOST_LEAP=smear:aws "$L" status --json 2>/dev/null)
[ "$(jget "$st" host_leap)" = smear:aws ] &&
  ok "in-process: LEAPCLOCK_HOST_LEAP=smear:aws shown as host_leap" ||
  bad "in-process: host_leap '$(jget "$st" host_leap)'"
err=$(LEAPCLOCK_TIMELINE=none LEAPCLOCK_HOST_LEAP=slew:x "$L" status --json 2>&1 >/dev/null)
st=$(LEAPCLOCK_TIMELINE=none LEAPCLOCK_HOST_LEAP=slew:x "$L" status --json 2>/dev/null)
if [ "$(grep -c "LEAPCLOCK_HOST_LEAP: 'slew:x'" <<<"$err")" = 1 ] &&
   [ "$(jget "$st" host_leap)" = kernel ]; then
  ok "in-process: a bad LEAPCLOCK_HOST_LEAP said once on stderr, kernel used"
else
  bad "in-process bad value: stderr '$err', host_leap '$(jget "$st" host_leap)'"
fi
exit $fail
