#!/usr/bin/env bash
# server_daemon.sh BUILD_DIR SOURCE_DIR - leapclockd's life as a daemon and
# the files it opens (issue 28 items 7, 10, 12, 13, 14, 15):
#  7  daemonised (no -d), the page carries the running daemon's pid:
#     `leapclock status --json` says writer_alive true and the pid is the
#     one in the stats file; a daemonised start on a port taken prints
#     why on the terminal and, with a page to keep, runs on (exit 0; its
#     server tried again), with --no-timeline exits 1;
#  14 every configuration error exits 2 before the page is taken: a bad
#     --metrics, an unknown --user, a bad key file, a missing NTS
#     certificate, a bad LEAPCLOCK_SMEAR; the --timeline path stays absent;
#  10 a FIFO as --keyfile, --nts-cert, --nts-key or the NTS key folder's
#     file is refused at start (exit 2 at once, naming the file) and at
#     SIGHUP (logged, the old one kept, still serving, SIGTERM stops it);
#  12 a hard link or a symbolic link planted at STATS.tmp is never written
#     through: its target keeps its bytes, and the stats file is written;
#  13 files made in the leap file's folder (a stats file there among them)
#     do not reload the table; a change of the leap file itself does;
#  15 the start log names the NTS-KE listener with its port.
# The NTS parts need Debian package gnutls-bin (certtool) and a leapclockd
# built with GnuTLS, and are skipped otherwise. Loopback only; every
# daemon has a --timeline in the test's folder or --no-timeline.
set -u
B=$(cd "${1:?usage: server_daemon.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: server_daemon.sh BUILD_DIR SOURCE_DIR}" && pwd)
D=$B/leapclockd
L=$B/leapclock
if [ ! -x "$D" ] || [ ! -x "$L" ]; then
  echo "skip server_daemon: leapclockd or leapclock not built"; exit 77
fi
. "$(dirname "$0")/progs/tmp_lib.sh"
lc_test_tmp server-daemon
chmod 700 "$T"
fails=0
. "$S/tests/progs/check_lib.sh"
LF=$S/tests/data/leap-seconds.list.tzdata2026f
export LEAPCLOCK_LEAPFILE=$LF
export LEAPCLOCK_TIMELINE=none
unset LEAPCLOCK_SMEAR
P=$((20000 + RANDOM % 20000))

jget() { echo "$1" | sed -n "s/.*\"$2\":\"\{0,1\}\([^,\"}]*\).*/\1/p"; }
# until_log FILE PATTERN: 0 once FILE has a line matching PATTERN (5 s)
until_log() {
  for _ in $(seq 50); do grep -qE -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}
# stop PID NAME: SIGTERM, and it must be gone within 3 s
stop() {
  kill "$1" 2>/dev/null
  for _ in $(seq 30); do kill -0 "$1" 2>/dev/null || { wait "$1" 2>/dev/null; return 0; }; sleep 0.1; done
  bad "$2: still running 3 s after SIGTERM"
  kill -9 $(pgrep -P "$1") "$1" 2>/dev/null
  return 1
}

have_nts=0
if command -v certtool >/dev/null &&
  strings "$D" | grep -q "NTS-KE: TLS priorities"; then
  mkdir -p "$T/nts" && lc_make_cert "$T/nts/key.pem" "$T/nts/cert.pem" && have_nts=1
fi
[ $have_nts = 1 ] || echo "note: NTS parts skipped (needs gnutls-bin's certtool and leapclockd with GnuTLS)"
printf '1 SHA256 HEX:%s\n' "$(printf '%064d' 7)" >"$T/keys"
chmod 600 "$T/keys"

# ---- 7: daemonised, the page names the daemon that runs
"$D" --timeline "$T/page7" --stats-file "$T/stats7" --listen "127.0.0.1:$P=utc" \
  >"$T/d7.out" 2>"$T/d7.err"
rc=$?
expect_rc "daemonised start" 0 $rc
pid7=
for _ in $(seq 50); do
  pid7=$(sed -n 's/^pid //p' "$T/stats7" 2>/dev/null)
  [ -n "$pid7" ] && break
  sleep 0.1
done
j=$(LEAPCLOCK_TIMELINE=$T/page7 "$L" status --json 2>&1)
if [ -n "$pid7" ] && kill -0 "$pid7" 2>/dev/null; then
  pids+=("$pid7")
  [ "$(jget "$j" writer_alive)" = true ] && ok "7: the page's writer is alive (pid $(jget "$j" writer_pid))" ||
    bad "7: the page says its writer is dead while it runs: $j"
  [ "$(jget "$j" writer_pid)" = "$pid7" ] && ok "7: the page's pid is the running daemon's ($pid7)" ||
    bad "7: page pid $(jget "$j" writer_pid), daemon $pid7"
  # a second daemonised start on the same port: the error reaches us, and
  # the writer keeps its own page meanwhile (its server tried again,
  # tests/server_port_taken.sh); with no page there is nothing to keep:
  # exit 1
  "$D" --timeline "$T/page7b" --stats-file none --listen "127.0.0.1:$P=utc" \
    --pidfile "$T/pid7b" >/dev/null 2>"$T/d7b.err"
  rc=$?
  expect_rc "7: daemonised start on a taken port, with a page to keep" 0 $rc
  expect_line "7: ... says why on the terminal" "127.0.0.1:$P.*bind: Address already in use" "$(cat "$T/d7b.err")"
  pid7b=$(cat "$T/pid7b" 2>/dev/null)
  if [ -n "$pid7b" ] && kill -0 "$pid7b" 2>/dev/null; then
    pids+=("$pid7b")
    stop "$pid7b" "the second daemon (its server down)"
  else
    bad "7: the second daemon does not run (pid file '$pid7b')"
  fi
  "$D" --no-timeline --stats-file none --listen "127.0.0.1:$P=utc" \
    >/dev/null 2>"$T/d7c.err"
  rc=$?
  expect_rc "7: daemonised start on a taken port, no page" 1 $rc
  expect_line "7: ... says why on the terminal" "127.0.0.1:$P.*bind: Address already in use" "$(cat "$T/d7c.err")"
  stop "$pid7" "daemonised leapclockd"
  [ -e "$T/stats7" ] && bad "7: stats file left after SIGTERM" || ok "7: stats file removed at the stop"
else
  bad "7: no running daemon after the start (stats: $(cat "$T/stats7" 2>&1); stderr: $(cat "$T/d7.err"))"
fi

# ---- 14 and 10 at start: exit 2, the page untouched
# cfg_err NAME WANT ARGS...: exit 2 within 5 s, stderr matching WANT, and
# the --timeline page never made
cfg_err() {
  local name=$1 want=$2 rc
  shift 2
  rm -f "$T/page14"
  timeout 5 "$D" -d --timeline "$T/page14" --stats-file "$T/stats14" \
    --listen "127.0.0.1:$P=utc" "$@" >/dev/null 2>"$T/e14"
  rc=$?
  if [ $rc = 2 ] && grep -Eq -- "$want" "$T/e14"; then
    ok "$name: exit 2, $(grep -E -- "$want" "$T/e14" | head -1 | sed 's/^leapclockd: //')"
  else
    bad "$name: exit $rc (want 2, 124 is a hang), stderr: $(cat "$T/e14")"
  fi
  [ -e "$T/page14" ] && bad "$name: the page was taken" || ok "$name: the page path untouched"
  [ -e "$T/stats14" ] && bad "$name: a stats file was written"
}
cfg_err "14: bad --metrics" "metrics 'nonsense': not ADDR:PORT" --metrics nonsense
cfg_err "14: unknown --user" "--user: no such user 'no-such-user-lc'" --user no-such-user-lc
printf '1 NOPE secretsecret\n' >"$T/badkeys"; chmod 600 "$T/badkeys"
cfg_err "14: bad key file" "keyfile $T/badkeys:1: field 2" --keyfile "$T/badkeys"
cfg_err "14: missing key file" "keyfile $T/nokeys: No such file" --keyfile "$T/nokeys"
LEAPCLOCK_SMEAR=bogus cfg_err "14: bad LEAPCLOCK_SMEAR" "LEAPCLOCK_SMEAR.*bogus"
cfg_err "14: bad --smear" "--smear.*bogus" --smear bogus
mkfifo "$T/fifo"
cfg_err "10: a FIFO as --keyfile" "keyfile $T/fifo: a FIFO, not a regular file" --keyfile "$T/fifo"
if [ $have_nts = 1 ]; then
  N=(--nts-listen "127.0.0.1:0" --nts-keydir "$T/ntskeys")
  cfg_err "14: missing NTS certificate" "nts-cert $T/nocert.pem: No such file" \
    --nts-cert "$T/nocert.pem" --nts-key "$T/nts/key.pem" "${N[@]}"
  [ -e "$T/ntskeys" ] && bad "14: the NTS key folder was made for a configuration that fails" ||
    ok "14: no NTS key folder made"
  cfg_err "10: a FIFO as --nts-cert" "nts-cert $T/fifo: a FIFO" \
    --nts-cert "$T/fifo" --nts-key "$T/nts/key.pem" "${N[@]}"
  cfg_err "10: a FIFO as --nts-key" "nts-key $T/fifo: a FIFO" \
    --nts-cert "$T/nts/cert.pem" --nts-key "$T/fifo" "${N[@]}"
  mkdir -m 700 "$T/fifodir" && mkfifo -m 600 "$T/fifodir/ntskeys"
  cfg_err "10: a FIFO as the NTS key folder's ntskeys" "$T/fifodir/ntskeys: a FIFO" \
    --nts-cert "$T/nts/cert.pem" --nts-key "$T/nts/key.pem" --nts-listen 127.0.0.1:0 \
    --nts-keydir "$T/fifodir"
  cfg_err "14: bad nts-listen" "nts-listen 'nowhere'" \
    --nts-cert "$T/nts/cert.pem" --nts-key "$T/nts/key.pem" --nts-listen nowhere \
    --nts-keydir "$T/ntskeys"
fi

# ---- 10 at SIGHUP, and 15: a daemon with keys (and NTS), its files
# swapped for FIFOs one by one
cp "$T/keys" "$T/live-keys"
args=(--keyfile "$T/live-keys")
if [ $have_nts = 1 ]; then
  cp "$T/nts/cert.pem" "$T/live-cert.pem"; cp "$T/nts/key.pem" "$T/live-key.pem"
  chmod 600 "$T/live-cert.pem" "$T/live-key.pem"
  args+=(--nts-cert "$T/live-cert.pem" --nts-key "$T/live-key.pem"
    --nts-listen 127.0.0.1:0 --nts-keydir "$T/hupkeys")
fi
"$D" -d --timeline "$T/page10" --stats-file none --listen "127.0.0.1:$((P + 1))=utc" \
  "${args[@]}" 2>"$T/hup.log" &
hpid=$!
pids+=($hpid)
if lc_wait_answers "$L" "127.0.0.1:$((P + 1))" hup; then
  if [ $have_nts = 1 ]; then
    kp=$(sed -n 's/.*serving NTS-KE on 127\.0\.0\.1:\([0-9]*\)\/tcp.*/\1/p' "$T/hup.log" | head -1)
    if [ -n "$kp" ] && [ "$kp" != 0 ] && (exec 3<>"/dev/tcp/127.0.0.1/$kp") 2>/dev/null; then
      ok "15: the start log names the NTS-KE listener, 127.0.0.1:$kp/tcp, which accepts"
    else
      bad "15: no 'serving NTS-KE on ADDR:PORT/tcp' line with a live port: $(grep -i nts "$T/hup.log")"
    fi
  fi
  hup_fifo() { # NAME FILE PATTERN
    local n
    n=$(grep -c -- "$3" "$T/hup.log")
    rm -f "$2" && mkfifo -m 600 "$2"
    kill -HUP $hpid
    for _ in $(seq 30); do
      [ "$(grep -c -- "$3" "$T/hup.log")" -gt "$n" ] && break
      sleep 0.1
    done
    expect_line "10: $1 a FIFO at SIGHUP: refused, logged" "$3" "$(cat "$T/hup.log")"
    if "$L" server-stats --query "127.0.0.1:$((P + 1))" >/dev/null 2>&1; then
      ok "10: ... still serving"
    else
      bad "10: ... no longer answers"
    fi
    [ -e "$T/page10" ] && j=$(LEAPCLOCK_TIMELINE=$T/page10 "$L" status --json 2>&1) &&
      [ "$(jget "$j" writer_alive)" = true ] && ok "10: ... the page still updated" ||
      bad "10: ... the page: $j"
  }
  hup_fifo "--keyfile" "$T/live-keys" "keyfile $T/live-keys: a FIFO, not a regular file"
  if [ $have_nts = 1 ]; then
    hup_fifo "--nts-cert" "$T/live-cert.pem" "nts-cert $T/live-cert.pem: a FIFO.*kept the certificate in use"
    cp "$T/nts/cert.pem" "$T/live-cert.pem.new" && mv -f "$T/live-cert.pem.new" "$T/live-cert.pem"
    hup_fifo "--nts-key" "$T/live-key.pem" "nts-key $T/live-key.pem: a FIFO.*kept the certificate in use"
  fi
  stop $hpid "leapclockd with FIFOs for files" && ok "10: SIGTERM stops it at once"
else
  bad "10: the daemon with keys did not start"
fi

# ---- 12: links planted where the stats file's temporary used to be
for kind in hard sym; do
  d=$T/st-$kind
  mkdir "$d"
  printf 'precious %s\n' "$kind" >"$T/victim-$kind"
  if [ $kind = hard ]; then ln "$T/victim-$kind" "$d/stats.tmp"; else ln -s "$T/victim-$kind" "$d/stats.tmp"; fi
  "$D" -d --no-timeline --stats-file "$d/stats" --listen "127.0.0.1:$((P + 2))=utc" 2>"$T/st-$kind.log" &
  spid=$!
  pids+=($spid)
  until_log "$d/stats" "^leapclockd-stats" || true
  sleep 1.2 # a second write at least
  [ "$(cat "$T/victim-$kind")" = "precious $kind" ] &&
    ok "12: a ${kind} link at stats.tmp: its target untouched" ||
    bad "12: a ${kind} link at stats.tmp: its target now holds $(head -2 "$T/victim-$kind")"
  grep -q "^leapclockd-stats" "$d/stats" 2>/dev/null && ok "12: ... and the stats file is written" ||
    bad "12: ... no stats file: $(cat "$T/st-$kind.log")"
  left=$(find "$d" -name 'stats.?*' ! -name stats.tmp | wc -l)
  [ "$left" = 0 ] && ok "12: ... no temporary left" || bad "12: ... $left temporaries left: $(ls "$d")"
  stop $spid "stats with a $kind link"
done

# ---- 13: other files in the leap file's folder
mkdir "$T/lf"
cp "$LF" "$T/lf/leap-seconds.list"
"$D" -d --no-timeline --leapfile "$T/lf/leap-seconds.list" --stats-file "$T/lf/stats" \
  --listen "127.0.0.1:$((P + 3))=utc" 2>"$T/lf.log" &
lpid=$!
pids+=($lpid)
if lc_wait_answers "$L" "127.0.0.1:$((P + 3))" lf; then
  for i in 1 2 3 4 5; do echo "$i" >"$T/lf/other$i"; sleep 0.3; done
  sleep 1
  no_line "13: a stats file and five files made in the leap file's folder: no reload" \
    "leap file changed" "$(cat "$T/lf.log")"
  cp "$LF" "$T/lf/leap-seconds.list.new" && mv -f "$T/lf/leap-seconds.list.new" "$T/lf/leap-seconds.list"
  until_log "$T/lf.log" "leap file changed: reloading" || true
  expect_line "13: the leap file itself replaced: reloaded" "leap file changed: reloading" "$(cat "$T/lf.log")"
  n=$(grep -c "leap file changed" "$T/lf.log")
  sleep 2.5
  [ "$(grep -c "leap file changed" "$T/lf.log")" = "$n" ] &&
    ok "13: ... once, not again with every stats write" ||
    bad "13: reloads go on: $(grep -c "leap file changed" "$T/lf.log") lines"
  stop $lpid "leap file folder"
fi

[ $fails = 0 ] && echo "server_daemon: all passed" || echo "server_daemon: $fails failed"
exit $((fails > 0))
