#!/usr/bin/env bash
# cli_run_timeline.sh BUILD_DIR SOURCE_DIR - `leapclock run --timeline PATH`
# with a page it cannot use refuses with exit 2 and never runs the program
# (issue 28 item 9: it ran it on real time with one warning and exit 0, a
# rehearsal silently becoming production time):
#   * a typo (no such page): exit 2, the path and "No such file" named;
#   * another boot's page (leapclockd in a mount namespace whose
#     /proc/sys/kernel/random/boot_id is bind-mounted over; needs root and
#     unshare -m, else skipped): exit 2, "from another boot";
#   * a TSC page (leapclockd --counter tsc; skipped where the TSC is not
#     usable): exit 2, the message names the path (it printed
#     "not reading the timeline: : its counter", an empty path);
#   * and, as the control, a usable page (--counter system) runs the program
#     on the rehearsal's clock, exit 0.
set -u
B=${1:?usage: cli_run_timeline.sh BUILD_DIR SOURCE_DIR}
S=${2:?usage: cli_run_timeline.sh BUILD_DIR SOURCE_DIR}
B=$(cd "$B" && pwd)
S=$(cd "$S" && pwd)
D=$B/leapclockd
L=$B/leapclock
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
skip() { echo "skip $1"; }

if [ ! -x "$D" ] || [ ! -x "$L" ] || [ ! -e "$B/libleapclock-preload.so" ]; then
  echo "skip cli_run_timeline: leapclockd, leapclock or the shim not built in $B"
  exit 77
fi
. "$(dirname "$0")/progs/tmp_lib.sh"
. "$(dirname "$0")/progs/check_lib.sh"
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
# a sanitizer build's shim needs its runtimes loaded first
sanitizer_preload "$B"
lc_test_tmp cli-run-timeline
export LEAPCLOCK_TIMELINE=none
export LEAPCLOCK_LEAPFILE=$S/tests/data/leapseconds.tzdata2026f

# refused NAME PAGE PATTERN: run --timeline PAGE must exit 2 with PATTERN
# (and the page's path) in its message, and not run the program
refused() {
  local out rc
  rm -f "$T/ran"
  out=$("$L" run --timeline "$2" -- /bin/sh -c ": >'$T/ran'" 2>&1)
  rc=$?
  if [ $rc = 2 ] && [ ! -e "$T/ran" ] && grep -qF -- "--timeline $2:" <<<"$out" &&
     grep -qE -- "$3" <<<"$out"; then
    ok "$1: exit 2, not run: $out"
  else
    bad "$1: want exit 2, the path and /$3/, the program not run; got exit $rc$([ -e "$T/ran" ] && echo ', it ran'): $out"
  fi
}

# start_page NAME ARGS...: a rehearsal leapclockd publishing $T/NAME.page
start_page() {
  local name=$1
  shift
  "$@" -d --timeline "$T/$name.page" --stats-file none --leapfile "$LEAPCLOCK_LEAPFILE" \
    --pretend 2016-12-31T23:59:00Z >"$T/$name.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 50); do
    [ -S "$T/$name.page.sock" ] && grep -q 'published' "$T/$name.log" && return 0
    sleep 0.1
  done
  echo "  leapclockd $name:"; sed 's/^/  | /' "$T/$name.log"
  return 1
}

refused "a typo" "$T/no-such-page" 'No such file'

# the control: a usable rehearsal page runs the program on its clock
if start_page good "$D" --counter system; then
  out=$(LD_PRELOAD="$san_preload" "$L" run --timeline "$T/good.page" -- date -u +%Y-%m-%d 2>&1)
  rc=$?
  if [ $rc = 0 ] && [ "$(tail -1 <<<"$out")" = 2016-12-31 ]; then
    ok "a usable page (--counter system): exit 0, the program reads the rehearsal's 2016-12-31"
  else
    bad "a usable page: exit $rc, '$out' (want 0 and 2016-12-31)"
  fi
else
  bad "leapclockd --counter system did not publish its page"
fi

if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
  echo 01234567-89ab-cdef-0123-456789abcdef >"$T/boot_id"
  if start_page other unshare -m sh -c \
      "mount --bind '$T/boot_id' /proc/sys/kernel/random/boot_id && exec \"\$0\" \"\$@\"" \
      "$D" --counter system; then
    refused "another boot's page" "$T/other.page" 'from another boot \(01234567-89ab-cdef-0123-456789abcdef'
  else
    bad "leapclockd with another boot id did not publish its page"
  fi
else
  skip "another boot's page: needs root and unshare -m"
fi

if start_page tsc "$D" --counter tsc; then
  refused "a TSC page" "$T/tsc.page" "its counter is neither the host's CLOCK_MONOTONIC nor its CLOCK_MONOTONIC_RAW"
else
  skip "a TSC page: leapclockd --counter tsc cannot run here: $(tail -1 "$T/tsc.log")"
fi
exit $fail
