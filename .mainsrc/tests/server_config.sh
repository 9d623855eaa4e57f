#!/usr/bin/env bash
# server_config.sh BUILD_DIR SOURCE_DIR - leapclockd's command line and
# config file (issue 12 item 16, issue 11's --timeline): every form of -c
# that getopt_long accepts reads the file; an ambiguous abbreviation is an
# error; booleans take yes/no only; errors in pretend, a preset or leapfile
# from the file name FILE:LINE and the key; usage and config errors exit 2;
# a duplicated listen is reported as one; port 0 logs the port it got;
# --timeline/--no-timeline/timeline, and zero listen sockets with a timeline;
# --rcvbuf checked and applied to every worker's socket.
# Every daemon started here has --no-timeline or a temporary --timeline: a
# test never publishes the host's /run/leapclock/timeline.
set -u
B=$(cd "${1:?usage: server_config.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: server_config.sh BUILD_DIR SOURCE_DIR}" && pwd)
D=$B/leapclockd
L=$B/leapclock
if [ ! -x "$D" ] || [ ! -x "$L" ]; then
  echo "skip server_config: leapclockd or leapclock not built"; exit 77
fi
. "$(dirname "$0")/progs/tmp_lib.sh"
lc_test_tmp server-config
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
P=$((20000 + RANDOM % 20000))
DATA=$S/tests/data
LF=$DATA/leap-seconds.list.tzdata2026f

jget() { echo "$1" | sed -n "s/.*\"$2\":\"\{0,1\}\([^,\"}]*\).*/\1/p"; }

# answers ADDR: 0 once ADDR answers (within 5 s)
answers() {
  for _ in $(seq 50); do
    "$L" server-stats --query "$1" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}
# port_of LOG: the port of the first "serving ... on 127.0.0.1:PORT/udp"
port_of() {
  for _ in $(seq 50); do
    p=$(sed -n 's/.*serving [^ ]* on 127\.0\.0\.1:\([0-9]*\)\/udp.*/\1/p' "$1" | head -1)
    [ -n "$p" ] && { echo "$p"; return 0; }
    sleep 0.1
  done
  return 1
}
stop_last() { kill "${pids[-1]}" 2>/dev/null; wait "${pids[-1]}" 2>/dev/null; unset 'pids[-1]'; }

# ---- every form of -c reads the file (the file's stratum 7 is served, and
# ---- the command line's --listen port 0 is logged with the port it got)
cat >"$T/conf" <<EOF
listen 127.0.0.1:$P utc
stratum 7
ratelimit off
leapfile $LF
EOF
i=0
for form in "-dc $T/conf" "-c$T/conf" "--conf=$T/conf" "--con $T/conf" "--config $T/conf"; do
  i=$((i + 1))
  # shellcheck disable=SC2086 # the form is split on purpose
  "$D" -d $form --no-timeline --stats-file none --listen 127.0.0.1:0=utc \
    2>"$T/form$i.log" &
  pids+=($!)
  if answers "127.0.0.1:$P"; then
    j=$("$L" server-stats --query "127.0.0.1:$P" --json)
    [ "$(jget "$j" stratum)" = 7 ] && ok "'$form': the file's stratum 7 served" ||
      bad "'$form': file ignored: $j"
    p0=$(port_of "$T/form$i.log")
    if [ -n "$p0" ] && [ "$p0" != 0 ] && "$L" server-stats --query "127.0.0.1:$p0" >/dev/null; then
      ok "'$form': --listen 127.0.0.1:0 logged its port $p0, which answers"
    else
      bad "'$form': port 0 not logged as the port it got: $(grep serving "$T/form$i.log")"
    fi
  else
    bad "'$form': the file's listen 127.0.0.1:$P does not answer: $(cat "$T/form$i.log")"
  fi
  stop_last
done

# ---- errors: exit 2, FILE:LINE and the key
# expect NAME WANT_RE ARGS...: exit 2 and stderr matching WANT_RE
expect() {
  local name=$1 want=$2
  shift 2
  timeout 10 "$D" -d --stats-file none "$@" >"$T/out" 2>"$T/err"; rc=$?
  if [ $rc = 2 ] && grep -Eq -- "$want" "$T/err"; then
    ok "$name: exit 2, $(head -1 "$T/err")"
  else
    bad "$name: exit $rc (want 2), stderr: $(cat "$T/err")"
  fi
}
expect "--co (ambiguous)" "ambiguous" --co "$T/conf" --no-timeline
expect "--bogus" "unrecognized|unknown" --bogus --no-timeline
expect "no --listen, no timeline" "nothing to do" --no-timeline
printf 'listen 127.0.0.1:%s utc\nforeground 1\n' "$P" >"$T/b1"
expect "foreground 1" "$T/b1:2: foreground: expected yes or no, not '1'" -c "$T/b1" --no-timeline
printf 'listen 127.0.0.1:%s utc\nsyslog maybe\n' "$P" >"$T/b2"
expect "syslog maybe" "$T/b2:2: syslog: expected yes or no" -c "$T/b2" --no-timeline
printf 'listen 127.0.0.1:%s utc\n\npretend 2016-12-30T23:59:60Z\n' "$P" >"$T/b3"
expect "bad pretend in the file" "$T/b3:3: pretend: '2016-12-30T23:59:60Z'" -c "$T/b3" --leapfile "$LF"
grep -q -- "--pretend" "$T/err" && bad "a pretend from the file labelled --pretend" ||
  ok "a pretend from the file is not labelled --pretend"
expect "bad --pretend" "^leapclockd: --pretend: '2016-12-30T23:59:60Z'" \
  --listen "127.0.0.1:$P=utc" --pretend 2016-12-30T23:59:60Z --leapfile "$LF"
printf '# presets\nlisten 127.0.0.1:%s=smear:nosuch\n' "$P" >"$T/b4"
expect "unknown preset in the file" "$T/b4:2: listen: .*unknown smear preset 'nosuch'" -c "$T/b4" --no-timeline
expect "unknown preset on the command line" "--listen: .*unknown smear preset 'nosuch'" \
  --listen "127.0.0.1:$P=smear:nosuch" --no-timeline
printf 'listen 127.0.0.1:%s utc\nleapfile %s/nonexistent\n' "$P" "$T" >"$T/b5"
expect "missing leapfile in the file" "$T/b5:2: leapfile: '$T/nonexistent'" -c "$T/b5" --no-timeline
printf 'listen 127.0.0.1:%s utc\nlisten 127.0.0.1:%s=smear:google\n' "$P" "$P" >"$T/b6"
expect "duplicated listen line" "$T/b6:2: listen: .*duplicate" -c "$T/b6" --no-timeline
grep -q "Address already in use" "$T/err" && bad "duplicate reported as a bind error" ||
  ok "duplicate not reported as 'Address already in use'"
expect "listen duplicated on the command line" "duplicate" \
  --listen "127.0.0.1:$P=utc" --listen "127.0.0.1:$P=utc" --no-timeline
expect "listen: bad address" "not a numeric" --listen "localhost:$P=utc" --no-timeline
expect "extra operand" "unexpected argument" --listen "127.0.0.1:$P=utc" --no-timeline extra

printf 'listen 127.0.0.1:%s utc\nrcvbuf 1M\n' "$P" >"$T/b9"
expect "rcvbuf 1M" "$T/b9:2: rcvbuf: expected KiB 0..1048576 .*'1M'" -c "$T/b9" --no-timeline
expect "--nts-ntp-server with a space" "^leapclockd: --nts-ntp-server: expected a host name" \
  --listen "127.0.0.1:$P=utc" --nts-ntp-server "ntp .example" --no-timeline
expect "--rcvbuf -1" "^leapclockd: --rcvbuf: expected KiB" --listen "127.0.0.1:$P=utc" \
  --rcvbuf -1 --no-timeline

# ---- --rcvbuf sizes every worker's socket (ss reports twice the size:
# ---- the kernel's bookkeeping); as root SO_RCVBUFFORCE passes rmem_max
if command -v ss >/dev/null; then
  want=$((1536 * 1024))
  [ "$(id -u)" = 0 ] || want=$(( $(cat /proc/sys/net/core/rmem_max) < want ?
                                  $(cat /proc/sys/net/core/rmem_max) : want ))
  "$D" -d --no-timeline --stats-file none --threads 2 --rcvbuf 1536 \
    --listen "127.0.0.1:$P=utc" 2>"$T/rb.log" &
  pids+=($!)
  if answers "127.0.0.1:$P"; then
    rbs=$(ss -uanm "sport = :$P" | sed -n 's/.*skmem:(r[0-9]*,rb\([0-9]*\),.*/\1/p' | sort -u)
    n=$(ss -uanm "sport = :$P" | grep -c 'skmem:')
    if [ "$n" = 2 ] && [ "$rbs" = $((2 * want)) ]; then
      ok "--rcvbuf 1536 --threads 2: both sockets have rb $rbs (2 x $want)"
    else
      bad "--rcvbuf 1536: $n sockets, rb '$rbs', want 2 sockets of $((2 * want))"
    fi
  else
    bad "--rcvbuf 1536: no answer: $(cat "$T/rb.log")"
  fi
  stop_last
else
  echo "skip --rcvbuf effect: needs ss (Debian package iproute2)"
fi

# ---- the timeline options
"$D" --help | grep -q -- "--timeline PATH" && "$D" --help | grep -q -- "--no-timeline" &&
  ok "--help describes --timeline and --no-timeline" || bad "--help: no --timeline"
expect "--pretend with the host's default timeline" "never pretends" \
  --listen "127.0.0.1:$P=utc" --pretend 2016-12-31T23:00:00Z --leapfile "$LF" \
  --timeline /run/leapclock/timeline
expect "--pretend with the default timeline, respelt" "never pretends" \
  --listen "127.0.0.1:$P=utc" --pretend 2016-12-31T23:00:00Z --leapfile "$LF" \
  --timeline /run/leapclock/../leapclock/timeline
expect "--timeline without a value" "requires an argument|needs a value" --timeline
printf 'timeline none\n' >"$T/b7"
expect "timeline none and no listen" "nothing to do" -c "$T/b7"
printf 'timeline\n' >"$T/b8"
expect "timeline without a path in the file" "$T/b8:1: timeline: needs a value" -c "$T/b8"
# A rehearsal timeline and no sockets: a valid daemon (it runs until SIGTERM).
"$D" -d --stats-file none --pretend 2016-12-31T23:00:00Z --leapfile "$LF" \
  --timeline "$T/timeline" 2>"$T/tl.log" &
tp=$!
sleep 1
if kill -0 $tp 2>/dev/null; then
  kill $tp; wait $tp; rc=$?
  [ $rc = 0 ] && ok "--timeline PATH and no --listen: runs, SIGTERM stops it (exit 0)" ||
    bad "--timeline and no --listen: exit $rc after SIGTERM: $(cat "$T/tl.log")"
else
  wait $tp; bad "--timeline and no --listen: exited $?: $(cat "$T/tl.log")"
fi
exit $fail
