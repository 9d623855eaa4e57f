#!/usr/bin/env bash
# server_smear.sh BUILD_DIR SOURCE_DIR - leapclockd's smear:PRESET sockets
# through an inserted leap second, end to end: for the presets whose window
# starts at midnight (chrony, fbclock: the 23:59:60 that is outside their
# window), a server pretending 3 s before the leap is queried with the
# project's own client (leapclock server-stats --query) every 0.25 s across
# the leap, and the served time must never go back (issue 11: it stepped
# back a second at the leap and forward again later), stay within 1 s of
# where unsmeared UTC is, and carry the smear refid from the leap on.
# 127.0.0.1 only; every loop is bounded.
set -u
B=$(cd "${1:?usage: server_smear.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: server_smear.sh BUILD_DIR SOURCE_DIR}" && pwd)
D=$B/leapclockd
L=$B/leapclock
if [ ! -x "$D" ] || [ ! -x "$L" ]; then
  echo "skip server_smear: leapclockd or leapclock not built"; exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "skip server_smear: needs python3 to read the answers"; exit 77
fi
. "$(dirname "$0")/progs/tmp_lib.sh"
lc_test_tmp server-smear
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
P=$((20000 + RANDOM % 20000))
LEAPFILE=$S/tests/data/leap-seconds.list.tzdata2026f

# up NAME ADDR ARGS...: start leapclockd, wait until ADDR answers
up() {
  local name=$1 addr=$2
  shift 2
  "$D" -d --no-timeline --stats-file none --ratelimit off \
    --leapfile "$LEAPFILE" "$@" 2>"$T/$name.log" &
  pids+=($!)
  lc_wait_answers "$L" "$addr" "$name"
}
down() { kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null; unset 'pids[-1]'; }

# check NAME FILE: the answers (one JSON object a line) in FILE
check() {
  python3 - "$1" "$2" <<'PY'
import json, sys
from datetime import datetime, timezone

name, path = sys.argv[1], sys.argv[2]
leap = 1483228800  # 2017-01-01T00:00:00Z, after the inserted 23:59:60

def ns(iso):
    # "2017-01-01T00:00:00.123456789Z": no second 60 on a smeared clock
    assert iso.endswith("Z") and iso[19] == ".", iso
    base = datetime.strptime(iso[:19], "%Y-%m-%dT%H:%M:%S")
    sec = int(base.replace(tzinfo=timezone.utc).timestamp())
    return sec * 10**9 + int(iso[20:-1].ljust(9, "0"))

rows = []
for line in open(path):
    d = json.loads(line)
    if d.get("timeout") or d.get("kiss"):
        continue
    rows.append((ns(d["receive"]), ns(d["transmit"]), d.get("smear_offset_ns")))
errs = []
if len(rows) < 20:
    errs.append("only %d answers" % len(rows))
prev = None
for rx, tx, sm in rows:
    if tx < rx:
        errs.append("transmit %d before receive %d" % (tx, rx))
    if prev is not None and rx < prev:
        errs.append("went back: receive %d after transmit %d (%.3f s)"
                    % (rx, prev, (rx - prev) / 1e9))
    prev = tx
    if sm is not None and abs(sm) > 10**9:
        errs.append("smear offset %d ns beyond 1 s" % sm)
# it did cross the leap, and served 00:00:00.x from the inserted second on
if not rows or rows[0][1] >= leap * 10**9 or rows[-1][1] < (leap + 2) * 10**9:
    errs.append("the answers do not span the leap: %s .. %s"
                % (rows[0][1] if rows else None, rows[-1][1] if rows else None))
after = [sm for rx, tx, sm in rows if tx >= (leap + 1) * 10**9]
if not after or any(sm is None or sm < 9 * 10**8 for sm in after):
    errs.append("no smear refid near +1 s after midnight: %s" % after[:3])
for e in errs[:5]:
    print("  " + e)
print("  %s: %d answers, %s .. %s" % (name, len(rows),
      rows[0][1] if rows else "-", rows[-1][1] if rows else "-"))
sys.exit(1 if errs else 0)
PY
}

for preset in chrony fbclock; do
  P=$((P + 1))
  if up "$preset" "127.0.0.1:$P" --pretend 2016-12-31T23:59:57Z \
      --listen "127.0.0.1:$P=smear:$preset"; then
    # 7 s of answers from about 23:59:58, across 23:59:60 and midnight
    "$L" server-stats --query "127.0.0.1:$P" --count 28 --interval 0.25 \
      --json >"$T/$preset.json" 2>"$T/$preset.err"
    if check "smear:$preset" "$T/$preset.json"; then
      ok "smear:$preset across the leap: never back, within 1 s, smear refid from midnight"
    else
      bad "smear:$preset across the leap"
      sed 's/^/  | /' "$T/$preset.json" | head -40
    fi
    down
  else
    bad "smear:$preset: leapclockd did not start"
  fi
done
exit $fail
