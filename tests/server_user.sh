#!/usr/bin/env bash
# server_user.sh BUILD_DIR SOURCE_DIR - leapclockd --user: started as root
# outside systemd, the daemon drops to the user once bound (checked in
# /proc/PID/status: Uid, Gid, Groups, no capability left), keeps serving
# NTP and writing its stats (its folder made for the user), refuses to
# start for a user that does not exist, and does the same under systemd's
# configuration (the unit's bounding set, $INVOCATION_ID); with NTS (once built) the key folder, key
# files, certificate and key become the user's alone; a timeline page
# made before the drop stays root's and keeps being written. Needs root (skips otherwise); uses the
# existing user nobody, creates none.
set -u
B=$(cd "${1:?usage: server_user.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: server_user.sh BUILD_DIR SOURCE_DIR}" && pwd)
D=$B/leapclockd
L=$B/leapclock
if [ ! -x "$D" ] || [ ! -x "$L" ]; then
  echo "skip server_user: leapclockd or leapclock not built"; exit 77
fi
if [ "$(id -u)" != 0 ]; then
  echo "skip server_user: needs root (to drop from it)"; exit 77
fi
if ! NU=$(id -u nobody 2>/dev/null) || ! NG=$(id -g nobody 2>/dev/null); then
  echo "skip server_user: no user nobody"; exit 77
fi
T=$(mktemp -d /tmp/lc-server-user.XXXXXX)
chmod 755 "$T" # the dropped daemon must reach its stats folder
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
P=$((20000 + RANDOM % 20000))
LF=$S/tests/data/leap-seconds.list.tzdata2026f

wrap=() # what start() runs the daemon under
start() {
  local name=$1
  shift
  "${wrap[@]}" "$D" -d --no-timeline --leapfile "$LF" --listen "127.0.0.1:$P=utc" "$@" 2>"$T/$name.log" &
  pid=$!
  for _ in $(seq 50); do
    "$L" server-stats --query "127.0.0.1:$P" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  return 1
}
stop() { kill "$pid" 2>/dev/null; wait "$pid"; local rc=$?; pid=; return $rc; }
# the server process drops (leapclockd(8) PROCESSES): the writer's child
field() { awk -v k="$1:" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "/proc/$(pgrep -P "$pid" -x leapclockd)/status"; }

# ---- the drop
if start drop --user nobody --stats-file "$T/run/stats"; then
  uid=$(field Uid); gid=$(field Gid); groups=$(field Groups); capeff=$(field CapEff)
  capprm=$(field CapPrm)
  echo "  | Uid $uid | Gid $gid | Groups $groups | CapEff $capeff | CapPrm $capprm"
  if [ "$uid" = "$NU $NU $NU $NU" ] &&
     [ "$gid" = "$NG $NG $NG $NG" ] &&
     [ "$(echo $groups)" = "$NG" ] &&
     [ "$capeff" = 0000000000000000 ] && [ "$capprm" = 0000000000000000 ]; then
    ok "running as nobody: real, effective, saved and fs uid $NU and gid $NG, only group $NG, no capabilities"
  else
    bad "ids or capabilities after the drop"
  fi
  grep -q "running as nobody (uid $NU, gid $NG)" "$T/drop.log" &&
    ok "logged: $(grep -o 'running as nobody.*' "$T/drop.log")" || bad "no 'running as' log line"
  if out=$("$L" server-stats --query "127.0.0.1:$P" --count 3 --interval 0 2>&1); then
    ok "still answers NTP after the drop"
  else
    bad "no answer after the drop: $out"
  fi
  sleep 1.2
  owner=$(stat -c %u "$T/run" 2>/dev/null)
  if [ -f "$T/run/stats" ] && [ "$owner" = "$NU" ] &&
     [ "$(stat -c %u "$T/run/stats")" = "$NU" ] &&
     [ "$(find "$T/run/stats" -newermt '-3 seconds' | wc -l)" = 1 ]; then
    ok "the stats folder made for nobody, the file still rewritten by it"
  else
    bad "stats folder or file (folder owner '$owner')"; ls -la "$T/run" | sed 's/^/  | /'
  fi
  stop && ok "SIGTERM: exit 0 as nobody" || bad "exit status at SIGTERM"
else
  bad "leapclockd --user nobody did not serve:"; sed 's/^/  | /' "$T/drop.log"; stop
fi

# ---- a timeline page made before the drop stays root's and alive
"$D" -d --timeline "$T/tl" --leapfile "$LF" --stats-file none \
  --listen "127.0.0.1:$P=utc" --user nobody 2>"$T/tl.log" &
pid=$!
sleep 2
st=$(LEAPCLOCK_TIMELINE=$T/tl "$L" status 2>&1)
hb=$(echo "$st" | sed -n 's/^writer .*heartbeat \([0-9.]*\) s ago.*/\1/p')
echo "  | page $(stat -c '%U %a' "$T/tl" 2>/dev/null); writer heartbeat ${hb:-?} s ago"
if [ "$(stat -c %U "$T/tl" 2>/dev/null)" = root ] && [ -n "$hb" ] &&
   awk -v h="$hb" 'BEGIN { exit !(h < 1) }' &&
   [ "$(field Uid | cut -d' ' -f1)" = "$NU" ]; then
  ok "the timeline page stays root's and is still written by the daemon running as nobody"
else
  bad "timeline page after the drop"; echo "$st" | sed 's/^/  | /' | head -5
fi
stop

# ---- the NTS secrets handed over: readable by nobody (the user) and no
# one else. Needs a leapclockd with NTS (else this part is skipped, said so)
# and certtool (Debian package gnutls-bin).
if command -v certtool >/dev/null &&
   mkdir -p "$T/nts" && chmod 755 "$T/nts" &&
   certtool --generate-privkey --key-type=ecdsa --outfile "$T/nts/key.pem" >/dev/null 2>&1 &&
   printf 'cn = localhost\nexpiration_days = 30\n' >"$T/nts/tmpl" &&
   certtool --generate-self-signed --load-privkey "$T/nts/key.pem" --template "$T/nts/tmpl" \
     --outfile "$T/nts/cert.pem" >/dev/null 2>&1; then
  chmod 644 "$T/nts/key.pem" "$T/nts/cert.pem" # as careless as can be
  if start nts --user nobody --stats-file none --nts-cert "$T/nts/cert.pem" \
       --nts-key "$T/nts/key.pem" --nts-keydir "$T/nts/keys" \
       --nts-listen "127.0.0.1:$((P + 1))"; then
    st() { stat -c '%U %a' "$1"; }
    files=$(find "$T/nts/keys" -type f | wc -l)
    others=$(find "$T/nts/keys" -type f ! \( -user nobody -perm 600 \) | wc -l)
    echo "  | keydir $(st "$T/nts/keys"), $files key files ($others not nobody 0600), cert $(st "$T/nts/cert.pem"), key $(st "$T/nts/key.pem")"
    if [ "$(st "$T/nts/keys")" = "nobody 700" ] && [ "$files" -ge 1 ] && [ "$others" = 0 ] &&
       [ "$(st "$T/nts/cert.pem")" = "nobody 600" ] && [ "$(st "$T/nts/key.pem")" = "nobody 600" ] &&
       [ "$(field Uid | cut -d' ' -f1)" = "$NU" ]; then
      ok "NTS key folder (0700), key files, certificate and key (0600) now nobody's only; the daemon runs as nobody"
    else
      bad "the NTS secrets were not handed over"
    fi
    stop
  elif grep -q "NTS is not supported" "$T/nts.log"; then
    echo "skip (part) NTS secrets: this leapclockd has no NTS yet"
    stop
  else
    bad "leapclockd --user nobody with NTS did not serve:"; sed 's/^/  | /' "$T/nts.log"; stop
  fi
else
  echo "skip (part) NTS secrets: needs certtool (Debian package gnutls-bin)"
fi

# ---- no such user: refuses to start (and to go on as root)
"$D" -d --no-timeline --leapfile "$LF" --stats-file none --listen "127.0.0.1:$P=utc" \
  --user lc-no-such-user-here 2>"$T/nouser.log"; rc=$?
if [ "$rc" != 0 ] && grep -q "lc-no-such-user-here" "$T/nouser.log"; then
  ok "an unknown user stops the start (exit $rc): $(grep -o 'error: .*' "$T/nouser.log")"
else
  bad "unknown user: exit $rc"; sed 's/^/  | /' "$T/nouser.log"
fi

# ---- under systemd: the packaged unit's configuration (issue 25 item 1).
# The writer runs as root with the unit's bounding set and no_new_privs
# (docs/leapclockd.service.in: CapabilityBoundingSet, NoNewPrivileges);
# the server drops to the user all the same: uid not 0, no capability, its
# stats folder handed to it (CAP_CHOWN), and, with NTS, the secrets the
# part above left the user's (0600) read again (CAP_DAC_READ_SEARCH).
unitcaps=$(sed -n 's/^CapabilityBoundingSet=//p' "$S/docs/leapclockd.service.in" |
  tr 'A-Z' 'a-z' | sed 's/cap_//g; s/ /,+/g')
sdnts=()
if [ -f "$T/nts/cert.pem" ] && [ "$(stat -c %U "$T/nts/key.pem")" = nobody ] &&
   ! grep -q "NTS is not supported" "$T/nts.log" 2>/dev/null; then
  sdnts=(--nts-cert "$T/nts/cert.pem" --nts-key "$T/nts/key.pem"
         --nts-keydir "$T/nts/keys" --nts-listen "127.0.0.1:$((P + 1))")
fi
echo "  | the unit's bounding set: +$unitcaps${sdnts[*]:+ (with NTS, the secrets of nobody)}"
wrap=(setpriv --bounding-set=-all,+"$unitcaps" --no-new-privs --)
if INVOCATION_ID=0123456789abcdef0123456789abcdef start sd --user nobody \
     --stats-file "$T/sdrun/stats" "${sdnts[@]}"; then
  uid=$(field Uid); capeff=$(field CapEff); capbnd=$(field CapBnd)
  echo "  | server Uid $uid | CapEff $capeff | CapBnd $capbnd"
  if [ "${uid%% *}" != 0 ] && [ "$uid" = "$NU $NU $NU $NU" ] &&
     [ "$capeff" = 0000000000000000 ]; then
    ok "under the unit's bounding set and \$INVOCATION_ID: the server runs as nobody (uid $NU), no capability"
  else
    bad "under systemd's configuration: server Uid $uid, CapEff $capeff"; sed 's/^/  | /' "$T/sd.log"
  fi
  sleep 1.2
  [ "$(stat -c %u "$T/sdrun/stats" 2>/dev/null)" = "$NU" ] &&
    ok "... its stats folder handed over, the stats file written by it" ||
    { bad "stats under systemd's configuration"; ls -la "$T/sdrun" 2>&1 | sed 's/^/  | /'; }
  # the writer signals a server of another user (CAP_KILL in the unit)
  stop && ok "SIGTERM: the writer stops its server of another user, exit 0" ||
    { bad "the stop under systemd's configuration"; sed 's/^/  | /' "$T/sd.log"; }
else
  bad "leapclockd under the unit's configuration did not serve"; sed 's/^/  | /' "$T/sd.log"; stop
fi
wrap=()
exit $fail
