#!/usr/bin/env bash
# server_access.sh BUILD_DIR SOURCE_DIR - leapclockd's configuration as
# chrony's administrators expect it (issue 27 item 3):
#  - --check-config prints the effective configuration and exits 0; fed
#    back as a config file it gives the same; every configuration error
#    the daemon exits 2 for gives exit 2 there too (the cases of
#    server_daemon.sh's item 14, and each file of fuzz/corpus/keyfile as a
#    --keyfile: exit 0 or 2, never a hang or a crash), and it binds and
#    publishes nothing;
#  - include FILE (relative to the including file) and confdir DIR...
#    (*.conf in name order, a name in two folders read from the first);
#  - smear PRESET (and --smear) is the page's smear policy, over
#    LEAPCLOCK_SMEAR, which still works alone;
#  - allow/deny per address range, for NTP from 127.0.0.x sources (a UDP
#    client in python3 binding each source): without any line everyone is
#    served; with lines, the most specific range decides and an address in
#    no range is not served (chrony's rule); a denied request is counted;
#  - --pidfile holds the daemon's pid, a second daemon on it refuses
#    (exit 1) before taking its page, the file goes at the stop;
#  - the default user: _leapclock only when that user exists and the
#    daemon publishes the host's page, else none (checked with
#    --check-config, which prints it).
# Loopback only; every daemon has a --timeline in the test's folder or
# --no-timeline (--check-config with the default page touches nothing).
set -u
B=$(cd "${1:?usage: server_access.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: server_access.sh BUILD_DIR SOURCE_DIR}" && pwd)
D=$B/leapclockd
L=$B/leapclock
[ -x "$D" ] && [ -x "$L" ] || { echo "skip server_access: leapclockd or leapclock not built"; exit 77; }
. "$(dirname "$0")/progs/tmp_lib.sh"
lc_test_tmp server-access
fails=0
. "$S/tests/progs/check_lib.sh"
export LEAPCLOCK_LEAPFILE=$S/tests/data/leap-seconds.list.tzdata2026f
export LEAPCLOCK_TIMELINE=none
unset LEAPCLOCK_SMEAR
P=$((20000 + RANDOM % 20000))
jget() { echo "$1" | sed -n "s/.*\"$2\":\"\{0,1\}\([^,\"}]*\).*/\1/p"; }

# ---- --check-config: the effective configuration, read back the same
cat >"$T/main.conf" <<EOF
listen 127.0.0.1:$P utc
include extra.conf
confdir d1 d2
EOF
printf 'stratum 4\nrefid ABCD\n' >"$T/extra.conf"
mkdir "$T/d1" "$T/d2"
printf 'threads 2\n' >"$T/d1/10-threads.conf"
printf 'threads 3\n' >"$T/d2/10-threads.conf" # shadowed by d1's
printf 'smear google\nallow 127.0.0.0/8\n' >"$T/d2/20-more.conf"
printf 'stratum 9\n' >"$T/d1/ignored.txt"
"$D" --check-config -c "$T/main.conf" --no-timeline --stats-file none >"$T/eff" 2>"$T/eff.err"
rc=$?
expect_rc "--check-config of a good configuration" 0 $rc
eff=$(cat "$T/eff")
expect_line "include: extra.conf (beside main.conf) read" "^stratum 4$" "$eff"
expect_line "include: ... all of it" "^refid ABCD$" "$eff"
expect_line "confdir: d1's 10-threads.conf wins over d2's" "^threads 2$" "$eff"
expect_line "confdir: d2's 20-more.conf read" "^smear google$" "$eff"
expect_line "confdir: ... allow" "^allow 127.0.0.0/8$" "$eff"
expect_line "listen printed" "^listen 127.0.0.1:$P=utc$" "$eff"
"$D" --check-config -c "$T/eff" >"$T/eff2" 2>&1
if diff <(grep -v '^#' "$T/eff") <(grep -v '^#' "$T/eff2") >/dev/null; then
  ok "--check-config's output read back gives the same configuration"
else
  bad "read back differs: $(diff <(grep -v '^#' "$T/eff") <(grep -v '^#' "$T/eff2"))"
fi
printf 'include nosuch.conf\n' >"$T/inc-bad.conf"
"$D" --check-config -c "$T/inc-bad.conf" --no-timeline >/dev/null 2>"$T/e"; rc=$?
[ $rc = 2 ] && grep -q "$T/nosuch.conf: No such file" "$T/e" &&
  ok "include of a missing file: exit 2, $(head -1 "$T/e")" || bad "include missing: exit $rc, $(cat "$T/e")"
printf 'include loop.conf\n' >"$T/loop.conf"
timeout 5 "$D" --check-config -c "$T/loop.conf" --no-timeline >/dev/null 2>"$T/e"; rc=$?
[ $rc = 2 ] && grep -q "include loop" "$T/e" && ok "an include loop: exit 2" || bad "include loop: exit $rc, $(head -2 "$T/e")"
printf 'check-config\n' >"$T/cc.conf"
"$D" -c "$T/cc.conf" --no-timeline --listen "127.0.0.1:$P=utc" >/dev/null 2>"$T/e"; rc=$?
[ $rc = 2 ] && ok "check-config in a file: exit 2 ($(head -1 "$T/e"))" || bad "check-config in a file: exit $rc"

# every configuration error: exit 2, nothing taken
mkfifo "$T/fifo"
printf '1 NOPE secretsecret\n' >"$T/badkeys"; chmod 600 "$T/badkeys"
cc_err() { # NAME ARGS...
  local name=$1 rc
  shift
  rm -f "$T/page"
  timeout 5 "$D" --check-config --timeline "$T/page" --listen "127.0.0.1:$P=utc" "$@" >/dev/null 2>"$T/e"
  rc=$?
  [ $rc = 2 ] && [ ! -e "$T/page" ] && ok "--check-config, $name: exit 2 ($(tail -1 "$T/e" | cut -c1-100))" ||
    bad "--check-config, $name: exit $rc, page $( [ -e "$T/page" ] && echo taken || echo untouched): $(cat "$T/e")"
}
cc_err "bad metrics" --metrics nonsense
cc_err "unknown user" --user no-such-user-lc
cc_err "bad key file" --keyfile "$T/badkeys"
cc_err "a FIFO as key file" --keyfile "$T/fifo"
cc_err "missing NTS certificate" --nts-cert "$T/none.pem" --nts-key "$T/none.pem" --nts-keydir "$T/k"
LEAPCLOCK_SMEAR=bogus cc_err "bad LEAPCLOCK_SMEAR"
cc_err "bad smear" --smear bogus
cc_err "bad allow" --allow 127.0.0.1/33
cc_err "bad deny" --deny nowhere
cc_err "bad pretend" --pretend 2016-12-30T23:59:60Z
# the key file fuzzer's corpus: 0 or 2, never anything else
n=0 bad_rc=0
for f in "$S"/fuzz/corpus/keyfile/*; do
  [ -f "$f" ] || continue
  cp "$f" "$T/corpus-key"; chmod 600 "$T/corpus-key"
  timeout 5 "$D" --check-config --no-timeline --listen "127.0.0.1:$P=utc" --keyfile "$T/corpus-key" >/dev/null 2>&1
  rc=$?
  n=$((n + 1))
  [ $rc = 0 ] || [ $rc = 2 ] || { bad_rc=$((bad_rc + 1)); echo "  $f: exit $rc"; }
done
[ $bad_rc = 0 ] && ok "--check-config over fuzz/corpus/keyfile ($n files): exit 0 or 2 each" ||
  bad "--check-config over the corpus: $bad_rc of $n gave another exit"

# ---- smear: the page's policy; LEAPCLOCK_SMEAR still works alone
page_smear() { # NAME WANT ARGS...
  local name=$1 want=$2 j
  shift 2
  rm -f "$T/sp"
  "$D" -d --timeline "$T/sp" --stats-file none --listen 127.0.0.1:0=utc "$@" 2>"$T/sp.log" &
  local pid=$!
  for _ in $(seq 50); do [ -e "$T/sp" ] && break; sleep 0.1; done
  sleep 0.3
  j=$(LEAPCLOCK_TIMELINE=$T/sp "$L" status --json 2>&1)
  kill $pid; wait $pid 2>/dev/null
  [ "$(jget "$j" smear)" = "$want" ] && ok "$name: the page declares smear $want" ||
    bad "$name: page smear '$(jget "$j" smear)', want $want"
}
page_smear "--smear google" google --smear google
printf 'smear utc-sls\n' >"$T/sm.conf"
LEAPCLOCK_SMEAR=google page_smear "smear in the file over LEAPCLOCK_SMEAR" utc-sls -c "$T/sm.conf"
LEAPCLOCK_SMEAR=google page_smear "LEAPCLOCK_SMEAR alone" google

# ---- allow/deny for NTP from 127.0.0.x
# ask SRC PORT: "answered" or "silent" for one NTP request from SRC
ask() {
  python3 - "$1" "$2" <<'PY'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 0))
s.settimeout(0.5)
s.sendto(b"\x23" + b"\0" * 47, ("127.0.0.1", int(sys.argv[2])))
try:
    s.recv(512)
    print("answered")
except socket.timeout:
    print("silent")
PY
}
if command -v python3 >/dev/null; then
  serve_acl() { # PORT ARGS...: a daemon with those rules
    local p=$1
    shift
    "$D" -d --no-timeline --stats-file "$T/st$p" --listen "127.0.0.1:$p=utc" "$@" 2>"$T/acl$p.log" &
    pids+=($!)
    lc_wait_answers "$L" "127.0.0.1:$p" "acl$p" >/dev/null || true
  }
  serve_acl $((P + 1))
  [ "$(ask 127.0.0.10 $((P + 1)))" = answered ] && ok "no allow/deny: 127.0.0.10 served" ||
    bad "no allow/deny: 127.0.0.10 not served"
  serve_acl $((P + 2)) --allow 127.0.0.0/24 --deny 127.0.0.10 --allow 127.0.0.10/32 --deny 127.0.0.11
  r10=$(ask 127.0.0.10 $((P + 2))); r11=$(ask 127.0.0.11 $((P + 2))); r12=$(ask 127.0.0.12 $((P + 2)))
  r2=$(ask 127.0.1.2 $((P + 2)))
  [ "$r10" = answered ] && ok "allow after deny of the same address: the later wins (127.0.0.10 served)" ||
    bad "127.0.0.10: $r10"
  [ "$r11" = silent ] && ok "deny 127.0.0.11 inside allow 127.0.0.0/24: not served" || bad "127.0.0.11: $r11"
  [ "$r12" = answered ] && ok "127.0.0.12 in allow 127.0.0.0/24: served" || bad "127.0.0.12: $r12"
  [ "$r2" = silent ] && ok "127.0.1.2 in no range: not served (chrony's default deny)" || bad "127.0.1.2: $r2"
  serve_acl $((P + 3)) --deny 127.0.0.12 --allow "all 127.0.0.0/8"
  [ "$(ask 127.0.0.12 $((P + 3)))" = answered ] && ok "allow all 127.0.0.0/8 overrides the earlier deny 127.0.0.12" ||
    bad "allow all did not override the earlier deny"
  sleep 1.2
  grep -q "denied=[1-9]" "$T/st$((P + 2))" && ok "denied requests counted in the stats file ($(grep -o 'denied=[0-9]*' "$T/st$((P + 2))"))" ||
    bad "no denied count: $(grep '^listen' "$T/st$((P + 2))")"
else
  echo "note: allow/deny over NTP skipped (needs python3)"
fi

# ---- --pidfile
"$D" -d --timeline "$T/pp" --stats-file none --listen "127.0.0.1:$((P + 4))=utc" --pidfile "$T/pid" 2>"$T/pid.log" &
ppid=$!
pids+=($ppid)
for _ in $(seq 50); do [ -s "$T/pid" ] && break; sleep 0.1; done
[ "$(cat "$T/pid" 2>/dev/null)" = "$ppid" ] && ok "--pidfile holds the daemon's pid ($ppid)" ||
  bad "--pidfile holds '$(cat "$T/pid" 2>&1)', want $ppid"
timeout 5 "$D" -d --timeline "$T/pp2" --stats-file none --listen "127.0.0.1:$((P + 5))=utc" --pidfile "$T/pid" 2>"$T/pid2.log"
rc=$?
[ $rc = 1 ] && grep -q "held by another leapclockd (pid $ppid)" "$T/pid2.log" && [ ! -e "$T/pp2" ] &&
  ok "a second daemon on the pid file: exit 1, page untouched ($(tail -1 "$T/pid2.log" | sed 's/.*error: //'))" ||
  bad "second daemon on the pid file: exit $rc, $(cat "$T/pid2.log")"
kill $ppid; wait $ppid 2>/dev/null
[ -e "$T/pid" ] && bad "the pid file stays after the stop" || ok "the pid file removed at the stop"

# ---- the default user
if getent passwd _leapclock >/dev/null; then
  u=$("$D" --check-config --listen "127.0.0.1:$P=utc" | sed -n 's/^user //p')
  [ "$u" = _leapclock ] && ok "default user _leapclock (it exists) for the host's page" || bad "default user '$u'"
else
  u=$("$D" --check-config --listen "127.0.0.1:$P=utc" | sed -n 's/^user //p')
  [ "$u" = none ] && ok "no _leapclock user here: the default user is none (stays as started)" || bad "default user '$u'"
fi
u=$("$D" --check-config --no-timeline --listen "127.0.0.1:$P=utc" | sed -n 's/^user //p')
[ "$u" = none ] && ok "--no-timeline: no default user" || bad "--no-timeline: default user '$u'"

[ $fails = 0 ] && echo "server_access: all passed" || echo "server_access: $fails failed"
exit $((fails > 0))
