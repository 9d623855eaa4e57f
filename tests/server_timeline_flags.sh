#!/bin/bash
# server_timeline_flags.sh BUILD_DIR SOURCE_DIR - leapclockd's --timeline
# PATH and --no-timeline together are a usage error (issue 27: accepted,
# the last one won): exit 2 with a message naming both, from the daemon
# and from --check-config alike, in either order, with --timeline=PATH
# too; the same two in one config file are an error naming both lines;
# the command line still overrides the file (no-timeline over a file's
# timeline, and the reverse), and "timeline none" is no-timeline's
# spelling, no contradiction. Nothing is published: every path is in the
# test's folder and the daemon never gets past its configuration.
set -u
B=$(cd "${1:?build dir}" && pwd)
S=$(cd "${2:?source dir}" && pwd)
D=$B/leapclockd
fails=0
# shellcheck source=progs/check_lib.sh
. "$S/tests/progs/check_lib.sh"
[ -x "$D" ] || { echo "skip: leapclockd not built"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export LEAPCLOCK_LEAPFILE=$S/tests/data/leap-seconds.list.tzdata2026f
export LEAPCLOCK_TIMELINE=none
unset LEAPCLOCK_SMEAR LEAPCLOCK_HOST_LEAP
P=$T/page
L=(--listen 127.0.0.1:0=utc --stats-file none)
both='.*no-timeline publishes no timeline page, .*timeline PATH publishes one; give one of them$'

# verdict NAME WANT_RC PATTERN ARGS...: the daemon (-d) and --check-config
verdict() {
	local name=$1 want=$2 pat=$3 rc; shift 3
	timeout 10 "$D" -d "$@" >/dev/null 2>"$T/d.err"; rc=$?
	expect_rc "daemon $name" "$want" $rc
	[ -n "$pat" ] && expect_line "daemon $name: names both" "$pat" "$(cat "$T/d.err")"
	timeout 10 "$D" --check-config "$@" >"$T/c.out" 2>"$T/c.err"; rc=$?
	expect_rc "check-config $name" "$want" $rc
	[ -n "$pat" ] && expect_line "check-config $name: names both" "$pat" "$(cat "$T/c.err")"
	[ ! -e "$P" ] && ok "$name: no page published" || { bad "$name: $P published"; rm -f "$P"; }
}
verdict "--timeline P --no-timeline" 2 "^leapclockd: --no-timeline: contradicts --timeline $P: $both" \
	--timeline "$P" --no-timeline "${L[@]}"
verdict "--no-timeline --timeline=P" 2 "^leapclockd: --timeline $P: contradicts --no-timeline: $both" \
	--no-timeline --timeline="$P" "${L[@]}"

printf 'listen 127.0.0.1:0 utc\ntimeline %s\nno-timeline\n' "$P" >"$T/both.conf"
verdict "a file with timeline and no-timeline" 2 \
	"^leapclockd: $T/both.conf:3: no-timeline: contradicts $T/both.conf:2: timeline $P: $both" \
	-c "$T/both.conf" --stats-file none

# not contradictions: the command line over a file; timeline none
printf 'listen 127.0.0.1:0 utc\ntimeline %s\n' "$P" >"$T/tl.conf"
timeout 10 "$D" --check-config -c "$T/tl.conf" --no-timeline --stats-file none >"$T/c.out" 2>"$T/c.err"
expect_rc "check-config: --no-timeline over a file's timeline" 0 $?
expect_line "... no page in the effective configuration" '^timeline none$' "$(cat "$T/c.out")"
printf 'listen 127.0.0.1:0 utc\nno-timeline\n' >"$T/no.conf"
timeout 10 "$D" --check-config -c "$T/no.conf" --timeline "$T/other" --stats-file none >"$T/c.out" 2>"$T/c.err"
expect_rc "check-config: --timeline over a file's no-timeline" 0 $?
expect_line "... the command line's page" "^timeline $T/other\$" "$(cat "$T/c.out")"
timeout 10 "$D" --check-config --no-timeline --timeline none "${L[@]}" >"$T/c.out" 2>"$T/c.err"
expect_rc "check-config: --no-timeline --timeline none agree" 0 $?
[ ! -e "$T/other" ] && ok "check-config published nothing" || bad "check-config published $T/other"

[ $fails -eq 0 ]
